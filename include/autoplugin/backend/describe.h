// Human-readable description of the TensorRT plugin an op becomes.
#pragma once

#include <autoplugin/backend/op.h>

#include <string>

namespace autoplugin {

// Plugin identity, inputs/outputs, fields, dtype table, output shapes as expressions over the
// input extents (using the op's Example values, else defaults), the TensorRT builder operations
// those shapes take, size tensors and requirements.
std::string describe(const Op& op);

}  // namespace autoplugin
