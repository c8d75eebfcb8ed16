// An op whose Triton kernel needs global scratch memory (device-side tensor descriptors), taken
// from the plugin's workspace: the workspace function and the launch size it the same way.
#include <autoplugin/autoplugin.h>
#include <autoplugin/triton.h>

#include <cstdint>

#include "triton_kernels/test_tile_copy.h"

namespace ap = autoplugin;
using Kernel = autoplugin_test::test_tile_copy;

namespace {

ap::Shape tile_copy_shape(ap::Shape x) {
  ap::require(x.rank() == 2, "x is a matrix");
  // The kernel was compiled with "i32:16" for the columns: a promise that they are a multiple
  // of 16 (rows of 64-byte multiples, as tensor descriptors need).
  ap::require(x[1] % 16 == 0, "x has a multiple of 16 columns");
  ap::require(x[0] <= INT32_MAX, "x's rows fit the kernel's int32");
  ap::require(x[1] <= INT32_MAX, "x's columns fit the kernel's int32");
  return x;
}

// The kernel's programs for x: one per 64 x 64 tile.
ap::Dim tile_copy_workspace(ap::Shape x) {
  return Kernel::scratch_bytes(ap::ceil_div(x[0], Kernel::BLOCK_M) *
                               ap::ceil_div(x[1], Kernel::BLOCK_N));
}

void tile_copy(ap::In<float> x, ap::Out<float> out, ap::Workspace scratch, ap::Stream stream) {
  const ap::triton::Grid grid = ap::triton::make_grid(ap::triton::cdiv(x.size(0), Kernel::BLOCK_M),
                                                      ap::triton::cdiv(x.size(1), Kernel::BLOCK_N));
  Kernel::launch(grid, stream, scratch, x.data(), out.data(), static_cast<std::int32_t>(x.size(0)),
                 static_cast<std::int32_t>(x.size(1)));
}

}  // namespace

AUTOPLUGIN_OP("autoplugin_test::tile_copy_triton(Tensor x) -> Tensor", tile_copy_shape, tile_copy)
    .workspace(tile_copy_workspace)
    .example(ap::Example().rank("x", 2));
