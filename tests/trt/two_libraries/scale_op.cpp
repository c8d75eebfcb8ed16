// One op, compiled into two plugin libraries (two_libraries_a and _b) with different namespaces
// and factors: the same C++ names in both, so a clash of their symbols or registries would show.
#include <autoplugin/autoplugin.h>

#include <string_view>

namespace ap = autoplugin;

namespace {

int scale(ap::In<float> x, ap::Out<float> y, ap::Stream) {
  for (std::int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] * TWO_LIBRARIES_FACTOR;
  return 0;
}
ap::Shape same(ap::Shape x) { return x; }
AUTOPLUGIN_OP(TWO_LIBRARIES_NAMESPACE "::scale(Tensor x) -> Tensor", same, scale);

}  // namespace
