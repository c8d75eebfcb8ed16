// Must not compile: a launcher that takes a std::string by value would allocate in enqueue.
#include <autoplugin/autoplugin.h>

#include <string>

namespace ap = autoplugin;

void launcher(ap::In<float> x, ap::Out<float> y, std::string mode, ap::Stream stream) {
  (void)x, (void)y, (void)mode, (void)stream;
}
ap::Shape shape(ap::Shape x, std::string_view) { return x; }

AUTOPLUGIN_OP("compile_fail::op(Tensor x, str mode) -> Tensor", shape, launcher);
