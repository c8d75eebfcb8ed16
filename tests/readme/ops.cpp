// The declaration whose load error README.md quotes (scripts/readme-excerpts runs
// `autoplugin list` on this library): a launcher whose attribute types do not fit the schema.
#include <autoplugin/autoplugin.h>

#include <cstdint>

namespace ap = autoplugin;

template <typename T>
void scale(ap::In<T> x, ap::Out<T> y, double padding, std::int64_t mode, ap::Stream stream) {
  (void)x, (void)y, (void)padding, (void)mode, (void)stream;
}

ap::Shape same_shape(ap::Shape x, std::span<const std::int64_t>, std::string_view) { return x; }

AUTOPLUGIN_OP("ex::op(Tensor x, int[] padding, str mode) -> Tensor", same_shape, scale<float>);
