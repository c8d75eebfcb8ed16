// The ops of example_like_ops.cpp, by name.
#pragma once

#include <array>
#include <string_view>

namespace example_like {
inline constexpr std::array<std::string_view, 8> kOps = {
    "example_like::gelu_tanh",     "example_like::scale_shift", "example_like::circular_pad",
    "example_like::embedding_bag", "example_like::nonzero",     "example_like::broadcast_to",
    "example_like::row_max",       "example_like::row_sum"};
}  // namespace example_like
