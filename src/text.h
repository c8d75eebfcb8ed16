// Text helpers the core's messages share. Not installed.
#pragma once

#include <string>
#include <string_view>

namespace autoplugin::detail {

// A name as messages quote it: 'padding'.
inline std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

}  // namespace autoplugin::detail
