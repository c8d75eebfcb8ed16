// "Did you mean" suggestions, shared by the field codec and the tools.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin {

// Levenshtein distance: the fewest single-character insertions, deletions and substitutions that
// turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to a misspelled `name`, if one is close enough to be what was meant:
// within 2 edits, or a third of the name's length for longer names. The first of equals wins.
std::optional<std::string> closest_name(std::string_view name,
                                        const std::vector<std::string>& candidates);

}  // namespace autoplugin
