// Must not compile: a launcher with two streams (TensorRT gives one).
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

void launcher(ap::In<float> x, ap::Out<float> y, ap::Stream a, ap::Stream b) {
  (void)x, (void)y, (void)a, (void)b;
}
ap::Shape shape(ap::Shape x) { return x; }

AUTOPLUGIN_OP("compile_fail::op(Tensor x) -> Tensor", shape, launcher);
