// A small JSON writer for the library entry points (the core has no JSON dependency).
#pragma once

#include <autoplugin/value.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace autoplugin::json {

std::string quote(std::string_view text);   // a JSON string literal
std::string number(double value);           // shortest form that reads back exactly
std::string value(const AttrValue& value);  // None -> null, lists -> arrays, DType -> its name

}  // namespace autoplugin::json
