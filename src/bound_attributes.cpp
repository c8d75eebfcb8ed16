// User-bound attribute types (AttrBinding): decoded once per plugin, found by each launch.
#include <autoplugin/backend/op.h>
#include <autoplugin/error.h>

#include <algorithm>

namespace autoplugin {

const void* find_bound_value(std::span<const BoundValues> bound, std::size_t attribute,
                             BoundValue::Binder binder) {
  if (attribute < bound.size()) {
    for (const BoundValue& value : bound[attribute]) {
      if (value.binder == binder) return value.value.get();
    }
  }
  throw Error("attribute " + std::to_string(attribute) +
              " has no decoded value: the launch arguments were made without "
              "Op::bind_attributes");
}

std::vector<BoundValues> Op::bind_attributes(std::span<const AttrValue> attributes) const {
  std::vector<BoundValues> bound(attributes_.size());
  std::vector<std::string> problems;
  std::vector<std::pair<std::size_t, BoundValue::Binder>> tried;  // each binding decodes once
  const auto bind_all = [&](const std::vector<ParamDescriptor>& params) {
    std::size_t attribute = 0;
    for (const ParamDescriptor& param : params) {
      if (param.role != Role::Attribute) continue;
      const std::size_t k = attribute++;
      if (param.binder == nullptr || k >= attributes.size()) continue;
      const std::pair<std::size_t, BoundValue::Binder> binding{k, param.binder};
      if (std::find(tried.begin(), tried.end(), binding) != tried.end()) continue;
      tried.push_back(binding);
      try {
        bound[k].push_back({param.binder, param.binder(attributes[k])});
      } catch (const std::exception& e) {
        problems.push_back("field '" + attributes_[k]->name + "' (" + std::string(param.cpp_type) +
                           "): " + e.what());
      }
    }
  };
  for (const LauncherDescriptor& launcher : launcher_descriptors_) bind_all(launcher.params);
  bind_all(shape_function_.params);
  if (workspace_function_) bind_all(workspace_function_->params);
  if (attribute_check_) bind_all(attribute_check_->params);
  if (problems.empty()) {
    check_attributes(attributes);
    return bound;
  }
  std::string message = "op '" + qualified_name_ + "': ";
  if (problems.size() == 1) throw FieldError(message + problems.front());
  message += std::to_string(problems.size()) + " attributes do not decode:";
  for (const std::string& problem : problems) message += "\n  " + problem;
  throw FieldError(message);
}

void Op::check_attributes(std::span<const AttrValue> attributes) const {
  if (!attribute_check_) return;
  if (attributes.size() != attributes_.size()) {
    throw FieldError("op '" + qualified_name_ + "': attribute check called with " +
                     std::to_string(attributes.size()) + " attributes; expected " +
                     std::to_string(attributes_.size()));
  }
  std::vector<ShapeArg> args(attributes.size());
  for (std::size_t k = 0; k < attributes.size(); ++k) args[k].value = &attributes[k];
  std::string problem;
  try {
    problem = attribute_check_->thunk(attribute_check_->callable.get(), args);
  } catch (const std::exception& e) {
    problem = e.what();
  } catch (...) {
    problem = "the attribute check threw a non-standard exception";
  }
  if (!problem.empty()) {
    throw FieldError("op '" + qualified_name_ + "': attributes refused: " + problem);
  }
}

}  // namespace autoplugin
