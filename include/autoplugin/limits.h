// TensorRT's limits that the core's tensor and shape types share.
#pragma once

namespace autoplugin {

inline constexpr int kMaxRank = 8;  // the largest rank of a TensorRT tensor

}  // namespace autoplugin
