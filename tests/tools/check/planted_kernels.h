// Kernels with bugs that only compute-sanitizer sees (the outputs are right): the controls that
// show a sanitizer run of `autoplugin check` reaches the processes that run the cases.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

enum class PlantedKernel {
  OutOfBoundsRead,     // memcheck: reads one element past the input
  SharedMemoryRace,    // racecheck: shared memory written and read without a barrier
  InvalidWarpBarrier,  // synccheck: a __syncwarp whose mask leaves out the calling thread
  UninitializedRead,   // initcheck: reads the workspace before anything wrote it
};

// out[i] = 0 for i < n, with the planted bug on the way; `workspace` holds n floats.
cudaError_t launch_planted_kernel(PlantedKernel kernel, const float* in, float* out,
                                  float* workspace, std::int64_t n, cudaStream_t stream);
