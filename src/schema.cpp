#include <autoplugin/backend/schema.h>
#include <autoplugin/error.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "text.h"

namespace autoplugin {
namespace {

constexpr std::array<std::pair<std::string_view, BaseType>, 7> kBaseTypes = {{
    {"Tensor", BaseType::Tensor},
    {"int", BaseType::Int},
    {"float", BaseType::Float},
    {"bool", BaseType::Bool},
    {"str", BaseType::Str},
    {"SymInt", BaseType::SymInt},
    {"ScalarType", BaseType::ScalarType},
}};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
// Characters of an unquoted default: numbers (1e-05, -inf), True, None, torch.float16.
bool is_bare_char(char c) { return is_ident_char(c) || c == '.' || c == '+' || c == '-'; }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

using detail::quoted;

// A default value as written, before it is converted to the argument's type.
struct Literal {
  enum class Kind { Bare, String, List } kind = Kind::Bare;
  std::string text;  // the token for Bare, the unescaped contents for String
  std::vector<Literal> items;
  std::size_t pos = 0;  // where it starts in the schema text
  std::size_t end = 0;  // one past where it ends
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Schema parse() {
    Schema schema;
    schema.text = std::string(text_);
    skip_space();
    if (at_end()) fail(0, "empty schema");
    parse_name(schema);
    expect('(', "after the operator name");
    parse_arguments(schema);
    skip_space();
    if (!text_.substr(pos_).starts_with("->")) {
      fail(pos_, "expected '->' and the return types after the argument list, found " + found());
    }
    pos_ += 2;
    parse_returns(schema);
    skip_space();
    if (!at_end()) fail(pos_, "unexpected " + found() + " after the return types");
    return schema;
  }

 private:
  [[noreturn]] void fail(std::size_t pos, const std::string& message) const {
    // Control characters become spaces so that the caret lines up under the echoed text.
    std::string echo(text_);
    for (char& c : echo) {
      if (is_space(c)) c = ' ';
    }
    const std::size_t column = pos + 1;
    throw SchemaError("invalid schema at column " + std::to_string(column) + ": " + message +
                          "\n  " + echo + "\n  " + std::string(pos, ' ') + "^",
                      column);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_space() {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }

  bool consume(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  // The token at the current position, as error messages show it.
  std::string found() const {
    if (at_end()) return "end of schema";
    std::size_t end = pos_ + 1;
    if (is_ident_char(text_[pos_])) {
      while (end < text_.size() && is_ident_char(text_[end])) ++end;
    }
    return quoted(text_.substr(pos_, end - pos_));
  }

  void expect(char c, const std::string& context) {
    if (!consume(c))
      fail(pos_, "expected '" + std::string(1, c) + "' " + context + ", found " + found());
  }

  std::string identifier(const std::string& what) {
    skip_space();
    if (!is_ident_start(peek())) fail(pos_, "expected " + what + ", found " + found());
    const std::size_t start = pos_;
    while (!at_end() && is_ident_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  void parse_name(Schema& schema) {
    std::string first = identifier("an operator name");
    skip_space();
    if (text_.substr(pos_).starts_with("::")) {
      pos_ += 2;
      schema.ns = std::move(first);
      schema.name = identifier("an operator name after '::'");
    } else {
      schema.name = std::move(first);
    }
    if (consume('.')) schema.overload = identifier("an overload name after '.'");
  }

  void parse_arguments(Schema& schema) {
    if (consume(')')) return;
    // A bare '*' starts PyTorch's keyword-only arguments. It is checked here and kept in the text;
    // TensorRT has no keyword arguments, so nothing else records it.
    bool seen_star = false;
    while (true) {
      skip_space();
      const std::size_t start = pos_;
      std::string after;
      if (consume('*')) {
        if (seen_star) fail(start, "only one bare '*' is allowed");
        skip_space();
        if (peek() == ')') fail(start, "a bare '*' must be followed by keyword-only arguments");
        seen_star = true;
        after = "'*'";
      } else {
        Argument argument = parse_argument(schema);
        after = "argument " + quoted(argument.name);
        schema.arguments.push_back(std::move(argument));
      }
      if (consume(',')) continue;
      if (consume(')')) return;
      fail(pos_, "expected ',' or ')' after " + after + ", found " + found());
    }
  }

  Argument parse_argument(const Schema& schema) {
    Argument argument;
    parse_type(argument, "an argument type");
    skip_space();
    const std::size_t name_pos = pos_;
    argument.name = identifier("an argument name after type " + quoted(argument.type.to_string()));
    for (const Argument& other : schema.arguments) {
      if (other.name == argument.name)
        fail(name_pos, "duplicate argument name " + quoted(argument.name));
    }
    skip_space();
    const std::size_t equals_pos = pos_;
    if (consume('=')) argument.default_value = parse_default(argument, equals_pos);
    return argument;
  }

  // Reads a type with its suffixes, in PyTorch's order: base, alias annotation, list, optional.
  void parse_type(Argument& argument, const std::string& what) {
    skip_space();
    argument.column = pos_ + 1;
    if (!is_ident_start(peek())) fail(pos_, "expected " + what + ", found " + found());
    const std::size_t start = pos_;
    const std::string name = identifier(what);
    Type& type = argument.type;
    type.base = lookup_base_type(name, start);

    skip_space();
    if (peek() == '(') {
      if (type.base != BaseType::Tensor) {
        fail(pos_,
             "an alias annotation like '(a!)' is only allowed on Tensor, not on " + quoted(name));
      }
      ++pos_;
      AliasInfo alias;
      alias.set = identifier("an alias set name like 'a'");
      alias.is_write = consume('!');
      expect(')', "to close the alias annotation");
      argument.alias = std::move(alias);
    }

    skip_space();
    if (peek() == '[') {
      ++pos_;
      skip_space();
      if (is_digit(peek())) type.fixed_size = parse_list_size();
      expect(']', "to close the list type");
      if (type.base == BaseType::Tensor) {
        fail(start,
             "Tensor[] (a list of tensors) is not supported; declare each tensor separately");
      }
      if (type.base == BaseType::Str || type.base == BaseType::ScalarType) {
        fail(start,
             name + "[] is not supported; lists are supported for int, float, bool and SymInt");
      }
      type.is_list = true;
    }
    type.optional = consume('?');
  }

  BaseType lookup_base_type(const std::string& name, std::size_t pos) const {
    std::string known;
    std::string suggestion;
    for (const auto& [spelling, base] : kBaseTypes) {
      if (spelling == name) return base;
      if (equal_ignoring_case(spelling, name)) suggestion = std::string(spelling);
      known += (known.empty() ? "" : ", ") + std::string(spelling);
    }
    fail(pos, "unknown type " + quoted(name) + " (" +
                  (suggestion.empty() ? "" : "did you mean " + quoted(suggestion) + "? ") +
                  "known types: " + known + ")");
  }

  static constexpr std::size_t kMaxFixedListSize = 1 << 16;

  std::size_t parse_list_size() {
    const std::size_t start = pos_;
    std::size_t size = 0;
    while (is_digit(peek())) {
      size = size * 10 + static_cast<std::size_t>(peek() - '0');
      // A scalar default is repeated to this size when the schema is parsed, so an absurd
      // size would exhaust memory there; no attribute list in a schema needs more.
      if (size > kMaxFixedListSize) {
        fail(start,
             "fixed list size is too large (at most " + std::to_string(kMaxFixedListSize) + ")");
      }
      ++pos_;
    }
    if (size == 0) fail(start, "a fixed list size must be at least 1 (write '[]' for any size)");
    return size;
  }

  Literal parse_literal(bool in_list) {
    skip_space();
    Literal literal;
    literal.pos = pos_;
    const char c = peek();
    if (c == '"' || c == '\'') {
      literal.kind = Literal::Kind::String;
      literal.text = parse_string();
    } else if (c == '[') {
      if (in_list) fail(pos_, "nested lists are not supported");
      literal.kind = Literal::Kind::List;
      ++pos_;
      if (!consume(']')) {
        while (true) {
          literal.items.push_back(parse_literal(true));
          if (consume(',')) continue;
          if (consume(']')) break;
          fail(pos_, "expected ',' or ']' in the list, found " + found());
        }
      }
    } else {
      while (!at_end() && is_bare_char(text_[pos_])) ++pos_;
      if (pos_ == literal.pos) fail(pos_, "expected a default value, found " + found());
      literal.text = std::string(text_.substr(literal.pos, pos_ - literal.pos));
    }
    literal.end = pos_;
    return literal;
  }

  std::string parse_string() {
    const std::size_t start = pos_;
    const char quote = text_[pos_++];
    std::string value;
    while (true) {
      if (at_end()) fail(start, "unterminated string literal");
      const char c = text_[pos_++];
      if (c == quote) return value;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (at_end()) fail(start, "unterminated string literal");
      switch (text_[pos_++]) {
        case '\\':
          value += '\\';
          break;
        case '"':
          value += '"';
          break;
        case '\'':
          value += '\'';
          break;
        case 'n':
          value += '\n';
          break;
        case 't':
          value += '\t';
          break;
        default:
          fail(pos_ - 2, "invalid escape " + quoted(text_.substr(pos_ - 2, 2)) +
                             " in string literal (allowed: \\\\ \\\" \\' \\n \\t)");
      }
    }
  }

  AttrValue parse_default(const Argument& argument, std::size_t equals_pos) {
    const Type& type = argument.type;
    const std::string& name = argument.name;
    if (type.base == BaseType::Tensor && !type.optional) {
      fail(equals_pos, "Tensor argument " + quoted(name) + " cannot have a default");
    }
    if (type.base == BaseType::SymInt && !type.optional) {
      fail(equals_pos, "SymInt argument " + quoted(name) + " cannot have a default");
    }
    const Literal literal = parse_literal(false);
    if (literal.kind == Literal::Kind::Bare && literal.text == "None") {
      if (!type.optional) {
        fail(literal.pos, "None is not a valid default for " + quoted(name) + " of type " +
                              quoted(type.to_string()) + "; only optional types ('" +
                              type.to_string() + "?') can default to None");
      }
      return std::monostate{};
    }
    if (type.base == BaseType::Tensor || type.base == BaseType::SymInt) {
      fail(literal.pos, "the default of " + quoted(name) + " of type " + quoted(type.to_string()) +
                            " can only be None, found " + source(literal));
    }
    if (!type.is_list) {
      if (literal.kind == Literal::Kind::List) {
        fail(literal.pos, "the default of " + quoted(name) + " must be a single " +
                              std::string(base_type_name(type.base)) + ", not a list");
      }
      return scalar(literal, type, name);
    }
    std::vector<const Literal*> items;
    if (literal.kind == Literal::Kind::List) {
      for (const Literal& item : literal.items) items.push_back(&item);
      if (type.fixed_size && items.size() != *type.fixed_size) {
        fail(literal.pos, "the default of " + quoted(name) + " has " +
                              std::to_string(items.size()) + " elements, but " +
                              quoted(type.to_string()) + " needs " +
                              std::to_string(*type.fixed_size) + " (or one value to repeat)");
      }
    } else if (type.fixed_size) {
      items.assign(*type.fixed_size, &literal);  // "int[2] stride=1" means [1, 1]
    } else {
      fail(literal.pos, "the default of " + quoted(name) + " of type " + quoted(type.to_string()) +
                            " must be a list like [1, 2], found " + source(literal));
    }
    switch (type.base) {
      case BaseType::Int: {
        IntList values;
        for (const Literal* item : items) values.push_back(int_value(*item, name));
        return values;
      }
      case BaseType::Float: {
        FloatList values;
        for (const Literal* item : items) values.push_back(float_value(*item, name));
        return values;
      }
      default: {
        auto values = std::make_unique<bool[]>(items.size());
        for (std::size_t i = 0; i < items.size(); ++i) values[i] = bool_value(*items[i], name);
        return BoolList(std::span<const bool>(values.get(), items.size()));
      }
    }
  }

  AttrValue scalar(const Literal& literal, const Type& type, const std::string& name) const {
    switch (type.base) {
      case BaseType::Int:
        return int_value(literal, name);
      case BaseType::Float:
        return float_value(literal, name);
      case BaseType::Bool:
        return bool_value(literal, name);
      case BaseType::Str:
        if (literal.kind != Literal::Kind::String) {
          fail(literal.pos, "the default of " + quoted(name) +
                                " must be a string literal in quotes, found " + source(literal));
        }
        return literal.text;
      default: {
        const auto dtype =
            literal.kind == Literal::Kind::Bare ? dtype_from_name(literal.text) : std::nullopt;
        if (!dtype) {
          fail(literal.pos, "the default of " + quoted(name) +
                                " must be a dtype name like float32 or torch.float16, found " +
                                source(literal));
        }
        return *dtype;
      }
    }
  }

  std::int64_t int_value(const Literal& literal, const std::string& name) const {
    std::string_view text = literal.text;
    const bool plus = text.starts_with('+');
    if (plus) text.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (literal.kind != Literal::Kind::Bare || text.empty() || (plus && text.starts_with('-')) ||
        end != text.data() + text.size() || error == std::errc::invalid_argument) {
      fail(literal.pos,
           "the default of " + quoted(name) + " must be an integer, found " + source(literal));
    }
    if (error == std::errc::result_out_of_range) {
      fail(literal.pos, "the default of " + quoted(name) + " is out of range for int (int64)");
    }
    return value;
  }

  double float_value(const Literal& literal, const std::string& name) const {
    // from_chars takes no '+', so the sign is handled here.
    std::string_view text = literal.text;
    const bool negative = text.starts_with('-');
    if (negative || text.starts_with('+')) text.remove_prefix(1);
    double value = 0;
    const auto [end, error] =
        std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
    if (literal.kind != Literal::Kind::Bare || text.empty() || text.starts_with('-') ||
        text.starts_with('+') || end != text.data() + text.size() ||
        error == std::errc::invalid_argument) {
      fail(literal.pos, "the default of " + quoted(name) +
                            " must be a number like 1e-05, -1.5 or inf, found " + source(literal));
    }
    if (error == std::errc::result_out_of_range) {
      fail(literal.pos, "the default of " + quoted(name) + " is out of range for float (float64)");
    }
    return negative ? -value : value;
  }

  bool bool_value(const Literal& literal, const std::string& name) const {
    if (literal.kind == Literal::Kind::Bare) {
      if (literal.text == "True") return true;
      if (literal.text == "False") return false;
    }
    fail(literal.pos,
         "the default of " + quoted(name) + " must be True or False, found " + source(literal));
  }

  std::string source(const Literal& literal) const {
    return quoted(text_.substr(literal.pos, literal.end - literal.pos));
  }

  void parse_returns(Schema& schema) {
    std::vector<std::size_t> name_pos;  // where each return's name is, or its type if unnamed
    std::vector<bool> named;
    const auto parse_one = [&] {
      Argument result;
      parse_type(result, "a return type");
      if (result.type.base != BaseType::Tensor || result.type.optional) {
        fail(result.column - 1,
             "only Tensor returns are supported, found " + quoted(result.type.to_string()));
      }
      skip_space();
      name_pos.push_back(is_ident_start(peek()) ? pos_ : result.column - 1);
      named.push_back(is_ident_start(peek()));
      if (named.back()) result.name = identifier("a return name");
      schema.returns.push_back(std::move(result));
    };

    skip_space();
    if (consume('(')) {
      if (!consume(')')) {
        while (true) {
          parse_one();
          if (consume(',')) continue;
          if (consume(')')) break;
          fail(pos_, "expected ',' or ')' after return " + std::to_string(schema.returns.size()) +
                         ", found " + found());
        }
      }
    } else {
      parse_one();
    }

    auto& returns = schema.returns;
    for (std::size_t i = 0; i < returns.size(); ++i) {
      if (!named[i]) returns[i].name = returns.size() == 1 ? "out" : "out" + std::to_string(i);
      const std::string how =
          named[i] ? "" : " (the name given to unnamed return " + std::to_string(i + 1) + ")";
      for (const Argument& argument : schema.arguments) {
        if (argument.name == returns[i].name) {
          fail(name_pos[i], "return name " + quoted(returns[i].name) + how +
                                " is already the name of an argument");
        }
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (returns[j].name == returns[i].name) {
          fail(name_pos[i], "duplicate return name " + quoted(returns[i].name) + how);
        }
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string_view base_type_name(BaseType base) noexcept {
  for (const auto& [spelling, value] : kBaseTypes) {
    if (value == base) return spelling;
  }
  return "?";
}

std::string Type::to_string() const {
  std::string text(base_type_name(base));
  if (is_list) text += "[" + (fixed_size ? std::to_string(*fixed_size) : "") + "]";
  if (optional) text += "?";
  return text;
}

std::string Schema::qualified_name() const { return (ns.empty() ? "" : ns + "::") + plugin_name(); }

std::string Schema::plugin_name() const { return overload.empty() ? name : name + "." + overload; }

Schema parse_schema(std::string_view text) { return Parser(text).parse(); }

}  // namespace autoplugin
