#include <autoplugin/value.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace autoplugin {

BoolList::BoolList(std::initializer_list<bool> values)
    : BoolList(std::span<const bool>(values.begin(), values.size())) {}

BoolList::BoolList(std::span<const bool> values)
    : data_(values.empty() ? nullptr : new bool[values.size()]), size_(values.size()) {
  std::copy(values.begin(), values.end(), data_.get());
}

BoolList::BoolList(const BoolList& other) : BoolList(other.span()) {}

BoolList& BoolList::operator=(const BoolList& other) {
  if (this != &other) *this = BoolList(other);
  return *this;
}

bool operator==(const BoolList& a, const BoolList& b) noexcept {
  return std::ranges::equal(a.span(), b.span());
}

namespace {

// Python's repr of a float: the shortest digits that read back exactly, in positional notation
// for exponents -4..15 and scientific otherwise ("100.0", "0.5", "1e-05", "1e+16").
std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  int digits = 1;
  for (;; ++digits) {  // 17 significant digits always read back exactly
    std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, value);
    if (digits == 17 || std::strtod(buffer, nullptr) == value) break;
  }
  const int exponent = value == 0 ? 0 : std::atoi(std::strchr(buffer, 'e') + 1);
  if (exponent < -4 || exponent >= 16) {
    return buffer;  // already "%.*e" with the shortest digits
  }
  std::snprintf(buffer, sizeof buffer, "%.*f", std::max(digits - 1 - exponent, 1), value);
  return buffer;
}

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <typename List, typename Format>
std::string format_list(const List& list, Format format) {
  std::string out = "[";
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out += ", ";
    out += format(list[i]);
  }
  return out + "]";
}

}  // namespace

std::string to_string(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return "None";
        } else if constexpr (std::is_same_v<V, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<V, double>) {
          return format_double(v);
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "True" : "False";
        } else if constexpr (std::is_same_v<V, std::string>) {
          return quote(v);
        } else if constexpr (std::is_same_v<V, IntList>) {
          return format_list(v, [](std::int64_t x) { return std::to_string(x); });
        } else if constexpr (std::is_same_v<V, FloatList>) {
          return format_list(v, format_double);
        } else if constexpr (std::is_same_v<V, BoolList>) {
          return format_list(v, [](bool x) { return std::string(x ? "True" : "False"); });
        } else {
          return std::string(dtype_name(v));
        }
      },
      value);
}

}  // namespace autoplugin
