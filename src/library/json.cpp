#include "json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <variant>

namespace autoplugin::json {

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(double value) {
  if (std::isnan(value)) return "NaN";  // Python's json module reads these forms
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  std::string out(text, result.ptr);
  if (out.find_first_of(".eE") == std::string::npos) out += ".0";  // stays a float in Python
  return out;
}

std::string value(const AttrValue& attribute) {
  const auto list = [](const auto& items, auto item) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + item(items[i]);
    return out + "]";
  };
  return std::visit(
      [&](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return "null";
        } else if constexpr (std::is_same_v<V, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<V, double>) {
          return number(v);
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<V, std::string>) {
          return quote(v);
        } else if constexpr (std::is_same_v<V, IntList>) {
          return list(v, [](std::int64_t x) { return std::to_string(x); });
        } else if constexpr (std::is_same_v<V, FloatList>) {
          return list(v, [](double x) { return number(x); });
        } else if constexpr (std::is_same_v<V, BoolList>) {
          return list(v.span(), [](bool x) { return std::string(x ? "true" : "false"); });
        } else {
          return quote(dtype_name(v));
        }
      },
      attribute);
}

}  // namespace autoplugin::json
