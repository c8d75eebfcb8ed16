// Must not compile: a launcher taking a SymInt argument's Dim (only shape functions get it).
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

void launcher(ap::In<float> x, ap::Out<float> y, ap::Dim fill, ap::Stream stream) {
  (void)x, (void)y, (void)fill, (void)stream;
}
ap::Shape shape(ap::Shape x, ap::Dim) { return x; }

AUTOPLUGIN_OP("compile_fail::op(Tensor x, SymInt fill) -> Tensor", shape, launcher);
