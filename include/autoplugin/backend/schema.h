// PyTorch-style operator schemas, "ns::name.overload(Tensor x, int[] padding=[0, 0]) -> Tensor",
// and their parser.
#pragma once

#include <autoplugin/value.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin {

std::string_view base_type_name(BaseType base) noexcept;  // "Tensor", "int", "float", ...

struct Type {
  BaseType base = BaseType::Tensor;
  bool is_list = false;                   // "int[]", "int[2]"
  std::optional<std::size_t> fixed_size;  // 2 for "int[2]"
  bool optional = false;                  // trailing '?': the value may be None

  bool is_tensor() const noexcept { return base == BaseType::Tensor && !is_list; }
  // SymInt and SymInt[] become TensorRT shape inputs, not fields.
  bool is_shape_input() const noexcept { return base == BaseType::SymInt; }
  // Everything that is neither a tensor nor a shape input is an attribute (a plugin field).
  bool is_attribute() const noexcept { return base != BaseType::Tensor && !is_shape_input(); }
  std::string to_string() const;  // "int[2]?", "Tensor?", "SymInt[]"
  friend bool operator==(const Type&, const Type&) = default;
};

// "Tensor(a!)": the tensor belongs to alias set `set`; `is_write` marks in-place mutation.
struct AliasInfo {
  std::string set;
  bool is_write = false;
  friend bool operator==(const AliasInfo&, const AliasInfo&) = default;
};

struct Argument {
  std::string name;
  Type type;
  std::optional<AttrValue> default_value;  // already converted to the argument's type
  std::optional<AliasInfo> alias;
  std::size_t column = 0;  // 1-based column of the argument's type in the schema text
};

struct Schema {
  // The string it was parsed from, byte for byte: what other engines (PyTorch) are given, so
  // what only they read, like the bare '*' before keyword-only arguments, stays in it.
  std::string text;
  std::string ns;  // "" when the name has no "ns::" prefix
  std::string name;
  std::string overload;  // "" when absent
  std::vector<Argument> arguments;
  std::vector<Argument> returns;  // unnamed returns are named "out" (one) or "out0", "out1", ...

  // "ns::name.overload", without the parts that are empty.
  std::string qualified_name() const;
  // TensorRT plugin name: "name" or "name.overload".
  std::string plugin_name() const;
};

// Parses a schema, or throws SchemaError whose message names the column, shows the text with a
// caret under that column, and says what was expected there.
Schema parse_schema(std::string_view text);

}  // namespace autoplugin
