// Must not compile: a launcher parameter whose type has no role (a raw pointer).
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

void launcher(ap::In<float> x, ap::Out<float> y, float* scratch, ap::Stream stream) {
  (void)x, (void)y, (void)scratch, (void)stream;
}
ap::Shape shape(ap::Shape x) { return x; }

AUTOPLUGIN_OP("compile_fail::op(Tensor x) -> Tensor", shape, launcher);
