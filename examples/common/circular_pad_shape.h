// The shape function of circular padding, shared by the CUDA and the Triton circular_pad ops.
#pragma once

#include <autoplugin/autoplugin.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

namespace autoplugin_examples {

// `padding` in PyTorch order: last dimension first, a (before, after) pair per dimension.
inline autoplugin::Shape circular_pad_shape(autoplugin::Shape x,
                                            std::span<const std::int64_t> padding) {
  autoplugin::require(padding.size() % 2 == 0,
                      "padding holds a (before, after) pair per dimension");
  autoplugin::require(padding.size() / 2 <= x.rank(),
                      "padding covers at most every dimension of x");
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    autoplugin::Dim& extent = x[x.rank() - 1 - i];
    const std::int64_t before = padding[2 * i];
    const std::int64_t after = padding[2 * i + 1];
    // As in PyTorch: padding wraps at most once, and negative padding crops at most the extent.
    // The attributes are known values, so only the checks that can fail are recorded.
    const std::int64_t largest = std::max(std::abs(before), std::abs(after));
    if (largest > 0) {
      autoplugin::require(largest <= extent, "circular padding wraps around at most once");
    }
    extent += before + after;
    if (before + after < 0) {
      autoplugin::require(extent >= 0, "padding leaves a non-negative extent");
    }
  }
  return x;
}

}  // namespace autoplugin_examples
