// Variants of a Triton kernel as tactics: two launchers for float32 over one family of variants
// (test_row_scale: BLOCK 32, 64 or 1024, EVEN when a row fills its block). The first launches
// only the unmasked variants, for rows that fill a block exactly, and declines other rows with
// Launch::NotApplicable; the second launches the masked variants for any row that fits a block.
// TensorRT times both; where the first declines, the second runs.
#include <autoplugin/autoplugin.h>
#include <autoplugin/triton.h>

#include <cstdint>

#include "triton_kernels/test_row_scale.h"

namespace ap = autoplugin;
using Kernel = autoplugin_test::test_row_scale;

namespace {

ap::Shape row_scale_shape(ap::Shape x, double) {
  ap::require(x.rank() == 2, "x is a matrix");
  ap::require(x[1] <= 1024, "rows of at most 1024 elements (the largest block compiled)");
  ap::require(x[0] <= INT32_MAX, "x's rows fit the grid");
  return x;
}

// The smallest block compiled that holds a row of `n` elements.
std::int64_t block_for(std::int64_t n) {
  for (const auto& variant : Kernel::variants) {
    if (variant.BLOCK >= n) return variant.BLOCK;
  }
  return Kernel::variants.back().BLOCK;
}

void launch(std::size_t variant, ap::In<float> x, double scale, ap::Out<float> out,
            ap::Stream stream) {
  Kernel::launch(variant, ap::triton::make_grid(x.size(0)), stream, x.data(), out.data(),
                 static_cast<std::int32_t>(x.size(1)), static_cast<float>(scale));
}

ap::Launch full_rows(ap::In<float> x, double scale, ap::Out<float> out, ap::Stream stream) {
  const auto variant = Kernel::find(x.size(1), true);
  if (!variant) return ap::Launch::NotApplicable;
  launch(*variant, x, scale, out, stream);
  return ap::Launch::Launched;
}

ap::Launch masked_rows(ap::In<float> x, double scale, ap::Out<float> out, ap::Stream stream) {
  launch(Kernel::select(block_for(x.size(1)), false), x, scale, out, stream);
  return ap::Launch::Launched;
}

}  // namespace

AUTOPLUGIN_OP("autoplugin_test::row_scale_relu(Tensor x, float scale) -> Tensor", row_scale_shape,
              full_rows, masked_rows)
    .example(ap::Example().rank("x", 2));
