// Must not compile: a shape function that returns something other than shapes.
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

void launcher(ap::In<float> x, ap::Out<float> y, ap::Stream stream) {
  (void)x, (void)y, (void)stream;
}
int shape(ap::Shape x) { return static_cast<int>(x.rank()); }

AUTOPLUGIN_OP("compile_fail::op(Tensor x) -> Tensor", shape, launcher);
