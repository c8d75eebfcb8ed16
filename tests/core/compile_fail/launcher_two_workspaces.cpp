// Must not compile: a launcher with two workspaces (an op has one).
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

void launcher(ap::In<float> x, ap::Out<float> y, ap::Workspace a, ap::Workspace b, ap::Stream s) {
  (void)x, (void)y, (void)a, (void)b, (void)s;
}
ap::Shape shape(ap::Shape x) { return x; }

AUTOPLUGIN_OP("compile_fail::op(Tensor x) -> Tensor", shape, launcher).workspace([](ap::Shape) {
  return 16;
});
