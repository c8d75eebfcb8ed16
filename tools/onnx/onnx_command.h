// `autoplugin onnx MODEL.onnx LIB.so`: each node of a model that TensorRT's ONNX parser would
// make a plugin of, resolved and created against a plugin library as the parser does it.
#pragma once

#include <string_view>
#include <vector>

namespace autoplugin::onnx {

// The process exit status: 0 when every plugin node resolves and is created without a problem,
// 1 on any problem, 2 on a usage error.
int onnx_main(const std::vector<std::string_view>& args);

}  // namespace autoplugin::onnx
