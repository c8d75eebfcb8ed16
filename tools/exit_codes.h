// The exit codes of every autoplugin command.
#pragma once

namespace autoplugin::cli {

inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;  // the command ran and found a problem (or could not run)
inline constexpr int kUsage = 2;   // the command line was wrong

}  // namespace autoplugin::cli
