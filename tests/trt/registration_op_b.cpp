// The second translation unit with an op, for the registration test (see registration_op_a.cpp).
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

namespace {

void copy_b(ap::In<float> x, ap::Out<float> y, ap::Stream) { (void)x, (void)y; }
ap::Shape same_b(ap::Shape x) { return x; }

}  // namespace

AUTOPLUGIN_OP("registration_test::b(Tensor x) -> Tensor", same_b, copy_b);
