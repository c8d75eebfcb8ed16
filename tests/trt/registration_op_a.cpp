// One of two translation units with an op, for the registration test: each registers from its own
// static initializer, in an order the test does not control.
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

namespace {

void copy_a(ap::In<float> x, ap::Out<float> y, ap::Stream) { (void)x, (void)y; }
ap::Shape same_a(ap::Shape x) { return x; }

}  // namespace

AUTOPLUGIN_OP("registration_test::a(Tensor x) -> Tensor", same_a, copy_a);
