// `autoplugin inspect` and `autoplugin check`: drive any IPluginV3 plugin library through
// TensorRT's documented lifecycle without libnvinfer.
#pragma once

#include <string_view>
#include <vector>

namespace autoplugin::check {

// Both return the process exit status: 0 when everything passed, 1 on a failed check, 2 on a
// usage error.
int inspect_main(const std::vector<std::string_view>& args);
int check_main(const std::vector<std::string_view>& args);

}  // namespace autoplugin::check
