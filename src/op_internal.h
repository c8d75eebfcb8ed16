// What the op sources share, and tests may reach: the problem list that validation and decoding
// report through, and launcher naming. Not installed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin::detail {

// Splits the stringified launcher list of AUTOPLUGIN_OP at top-level commas.
std::vector<std::string> split_launcher_names(std::string_view text);

// "1 input", "2 inputs".
inline std::string plural(std::size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

// Problems found in one pass over a declaration or a set of fields, reported together (each once).
class Problems {
 public:
  void add(std::string problem) {
    if (std::find(list_.begin(), list_.end(), problem) == list_.end()) list_.push_back(problem);
  }
  bool empty() const { return list_.empty(); }
  std::string join() const {
    std::string text;
    for (const auto& p : list_) text += "\n  - " + p;
    return text;
  }

 private:
  std::vector<std::string> list_;
};

}  // namespace autoplugin::detail
