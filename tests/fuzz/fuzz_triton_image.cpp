// libFuzzer harness: what the Triton runtime computes from an artefact's metadata (the
// KernelImage generated from its .json): grids and scratch memory sizes, in bytes and as a Dim
// for a workspace function, for any scratch sizes, alignments, parameter counts and grid
// extents. (The .json and the PTX themselves are parsed at build time, by tools/triton_aot.py,
// whose tests cover malformed artefacts.) A refusal is an autoplugin::Error; a crash, an
// escaping exception, a sanitizer report or a size smaller than the scratch it must hold is a
// finding.
#include <autoplugin/error.h>
#include <autoplugin/triton.h>

#include "fuzzed_fields.h"

namespace ap = autoplugin;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::ByteReader in(data, size);
  ap::triton::KernelImage image{};
  image.name = "fuzz";
  image.function = "fuzz_kernel";
  image.signature = "";
  image.scratch_parameters = static_cast<std::int8_t>(in.byte());
  image.global_scratch_bytes = static_cast<std::uint32_t>(in.int32());
  image.global_scratch_align = static_cast<std::uint32_t>(in.int32());
  image.profile_scratch_bytes = static_cast<std::uint32_t>(in.int32());
  image.profile_scratch_align = static_cast<std::uint32_t>(in.int32());
  const auto extent = [&] {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(in.int32()) << 32 |
                                     static_cast<std::uint32_t>(in.int32()));
  };
  const std::int64_t x = extent(), y = extent(), z = extent();
  try {
    const ap::triton::Grid grid = ap::triton::make_grid(x, y, z);
    const std::size_t bytes = ap::triton::scratch_bytes(image, grid);
    if (image.scratch_parameters >= 1 && grid.programs() > 0 &&
        bytes / grid.programs() < image.global_scratch_bytes) {
      __builtin_trap();  // less than every program's global scratch
    }
  } catch (const ap::Error&) {
  }
  try {
    (void)ap::triton::scratch_bytes(image, ap::Dim(x));
  } catch (const ap::Error&) {
  }
  return 0;
}
