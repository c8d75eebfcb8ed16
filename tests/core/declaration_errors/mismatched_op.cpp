// An op whose launcher does not match its schema: building its library must fail with the
// message loading it would log.
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

namespace {
void launcher(ap::In<float> x, ap::Out<float> y, double scale, ap::Stream stream) {
  (void)x, (void)y, (void)scale, (void)stream;
}
ap::Shape shape(ap::Shape x, std::string_view) { return x; }
}  // namespace

AUTOPLUGIN_OP("broken::scale(Tensor x, str mode) -> Tensor", shape, launcher);
