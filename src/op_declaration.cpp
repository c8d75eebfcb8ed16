// Declaring ops: dtype rules, examples, the declaration's options, and the registry that
// validates declarations into ops.
#include <autoplugin/backend/op.h>
#include <autoplugin/error.h>

#include <algorithm>

#include "op_internal.h"

namespace autoplugin {

DTypeRule same_dtype_as(std::string input) {
  return {DTypeRule::Kind::SameAsInput, std::move(input), DType::Float32};
}
DTypeRule fixed_dtype(DType dtype) { return {DTypeRule::Kind::Fixed, "", dtype}; }
DTypeRule dtype_from_attribute(std::string attribute) {
  return {DTypeRule::Kind::FromAttribute, std::move(attribute), DType::Float32};
}

Example& Example::rank(std::string tensor, std::size_t rank) {
  ranks_.emplace_back(std::move(tensor), rank);
  return *this;
}
Example& Example::length(std::string shape_argument, std::size_t length) {
  return rank(std::move(shape_argument), length);
}
Example& Example::attr(std::string attribute, AttrValue value) {
  attributes_.emplace_back(std::move(attribute), std::move(value));
  return *this;
}
std::optional<std::size_t> Example::rank_of(std::string_view name) const {
  for (const auto& [tensor, rank] : ranks_) {
    if (tensor == name) return rank;
  }
  return std::nullopt;
}
const AttrValue* Example::attr_of(std::string_view name) const {
  for (const auto& [attribute, value] : attributes_) {
    if (attribute == name) return &value;
  }
  return nullptr;
}

OpDeclaration::OpDeclaration(std::string schema, ShapeFunctionDescriptor shape_function,
                             std::vector<LauncherDescriptor> launchers,
                             std::string_view launcher_names, std::string location)
    : schema_text_(std::move(schema)),
      shape_function_(std::move(shape_function)),
      launchers_(std::move(launchers)),
      location_(std::move(location)) {
  std::vector<std::string> names = detail::split_launcher_names(launcher_names);
  names.resize(launchers_.size());
  for (std::size_t i = 0; i < launchers_.size(); ++i) launchers_[i].name = std::move(names[i]);
}

OpDeclaration& OpDeclaration::version(std::string version) {
  version_ = std::move(version);
  return *this;
}
OpDeclaration& OpDeclaration::output_dtype(std::string output, DTypeRule rule) {
  dtype_rules_.emplace_back(std::move(output), std::move(rule));
  return *this;
}
OpDeclaration& OpDeclaration::formats(std::string tensor, std::vector<Format> formats) {
  formats_.emplace_back(std::move(tensor), std::move(formats));
  return *this;
}
OpDeclaration& OpDeclaration::example(Example example) {
  example_ = std::move(example);
  return *this;
}

OpDeclaration& OpRegistry::add(OpDeclaration declaration) {
  std::lock_guard lock(mutex_);
  declarations_.push_back(std::make_unique<OpDeclaration>(std::move(declaration)));
  for (const auto& listener : listeners_) listener(declarations_.back()->schema_text());
  return *declarations_.back();
}

void OpRegistry::on_declare(std::function<void(const std::string& schema)> listener) {
  std::lock_guard lock(mutex_);
  for (const auto& declaration : declarations_) listener(declaration->schema_text());
  listeners_.push_back(std::move(listener));
}

void OpRegistry::validate_pending() {
  for (; validated_ < declarations_.size(); ++validated_) {
    const OpDeclaration& d = *declarations_[validated_];
    try {
      Op op = Op::build(d);
      const auto same = std::find_if(ops_.begin(), ops_.end(), [&](const Op& other) {
        return other.qualified_name() == op.qualified_name() && other.version() == op.version();
      });
      if (same != ops_.end()) {
        errors_.push_back("op '" + op.qualified_name() + "' version " + op.version() +
                          " is declared twice (at " + same->location() + " and at " + d.location() +
                          ")");
        continue;
      }
      ops_.push_back(std::move(op));
    } catch (const Error& e) {
      errors_.emplace_back(e.what());
    }
  }
}

OpList OpRegistry::ops() {
  std::lock_guard lock(mutex_);
  validate_pending();
  std::vector<const Op*> ops;
  ops.reserve(ops_.size());
  for (const Op& op : ops_) ops.push_back(&op);
  return OpList(std::move(ops));
}

std::vector<std::string> OpRegistry::errors() {
  std::lock_guard lock(mutex_);
  validate_pending();
  return errors_;
}

OpRegistry& registry() {
  static OpRegistry instance;
  return instance;
}

const Op* find_op(std::string_view name) {
  for (const Op& op : registry().ops()) {
    if (op.qualified_name() == name || op.plugin_name() == name) return &op;
  }
  return nullptr;
}

namespace detail {

OpDeclaration& register_declaration(OpDeclaration declaration) {
  return registry().add(std::move(declaration));
}

std::vector<std::string> split_launcher_names(std::string_view text) {
  std::vector<std::string> names;
  std::string current;
  int depth = 0;
  auto flush = [&] {
    const auto begin = current.find_first_not_of(" \t\n");
    const auto end = current.find_last_not_of(" \t\n");
    std::string name = begin == std::string::npos ? "" : current.substr(begin, end - begin + 1);
    // A launcher with commas in its template arguments is written in parentheses for the macro.
    if (name.size() >= 2 && name.front() == '(' && name.back() == ')') {
      int level = 0;
      bool encloses = true;
      for (std::size_t i = 0; i + 1 < name.size(); ++i) {
        level += name[i] == '(' ? 1 : name[i] == ')' ? -1 : 0;
        if (level == 0) encloses = false;
      }
      if (encloses) name = name.substr(1, name.size() - 2);
    }
    names.push_back(std::move(name));
    current.clear();
  };
  for (char c : text) {
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return names;
}

}  // namespace detail

}  // namespace autoplugin
