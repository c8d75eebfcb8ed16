// `autoplugin new NS::NAME --schema "..." [--dtypes ...] [--out DIR]`: a CMake project for a new
// op.
#pragma once

#include <string_view>
#include <vector>

namespace autoplugin::scaffold {

// Arguments after "new"; returns the process exit status.
int new_main(const std::vector<std::string_view>& args);

}  // namespace autoplugin::scaffold
