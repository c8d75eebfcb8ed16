// Shapes, and the scope that collects a shape function's requirements and size tensors.
#include <algorithm>
#include <stdexcept>

#include "autoplugin/error.h"
#include "dim_internal.h"

namespace autoplugin {

using namespace detail;

namespace {

thread_local ShapeScope* t_active_scope = nullptr;

void check_rank(std::size_t rank) {
  if (rank > std::size_t(kMaxRank)) {
    throw ShapeError("a shape of rank " + std::to_string(rank) +
                     " exceeds TensorRT's maximum rank " + std::to_string(kMaxRank));
  }
}

[[noreturn]] void throw_axis(std::int64_t axis, std::size_t rank) {
  throw ShapeError("axis " + std::to_string(axis) + " is out of range for a shape of rank " +
                   std::to_string(rank));
}

std::size_t python_axis(std::int64_t axis, std::size_t rank) {
  const std::int64_t resolved = axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
  if (resolved < 0 || resolved >= static_cast<std::int64_t>(rank)) throw_axis(axis, rank);
  return static_cast<std::size_t>(resolved);
}
}  // namespace

Shape::Shape(std::initializer_list<Dim> dims) : dims_(dims) { check_rank(dims_.size()); }

Shape::Shape(std::vector<Dim> dims) : dims_(std::move(dims)) { check_rank(dims_.size()); }

Shape Shape::symbolic_input(int input, std::size_t rank, std::string_view name) {
  check_rank(rank);
  std::vector<Dim> dims;
  dims.reserve(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) {
    dims.push_back(Dim::input_extent(input, static_cast<int>(axis),
                                     std::string(name) + "[" + std::to_string(axis) + "]"));
  }
  return Shape(std::move(dims));
}

Shape Shape::concrete(std::span<const std::int64_t> extents) {
  check_rank(extents.size());
  return Shape(std::vector<Dim>(extents.begin(), extents.end()));
}

Dim& Shape::operator[](std::size_t axis) {
  if (axis >= dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  return dims_[axis];
}

const Dim& Shape::operator[](std::size_t axis) const {
  if (axis >= dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  return dims_[axis];
}

Dim& Shape::at(std::int64_t axis) { return dims_[python_axis(axis, dims_.size())]; }
const Dim& Shape::at(std::int64_t axis) const { return dims_[python_axis(axis, dims_.size())]; }

void Shape::push_back(Dim dim) {
  check_rank(dims_.size() + 1);
  dims_.push_back(std::move(dim));
}

void Shape::insert(std::size_t axis, Dim dim) {
  if (axis > dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  check_rank(dims_.size() + 1);
  dims_.insert(dims_.begin() + static_cast<std::ptrdiff_t>(axis), std::move(dim));
}

void Shape::erase(std::size_t axis) {
  if (axis >= dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  dims_.erase(dims_.begin() + static_cast<std::ptrdiff_t>(axis));
}

Dim Shape::numel() const {
  Dim product = 1;
  for (const Dim& dim : dims_) product *= dim;
  return product;
}

bool Shape::is_constant() const noexcept {
  return std::all_of(dims_.begin(), dims_.end(), [](const Dim& dim) { return dim.is_constant(); });
}

std::vector<std::int64_t> Shape::values() const {
  std::vector<std::int64_t> values;
  values.reserve(dims_.size());
  for (std::size_t axis = 0; axis < dims_.size(); ++axis) {
    if (!dims_[axis].is_constant()) {
      throw ShapeError("the shape " + to_string(*this) + " is symbolic at axis " +
                       std::to_string(axis) + " ('" + to_string(dims_[axis]) + "')");
    }
    values.push_back(*dims_[axis].constant());
  }
  return values;
}

std::string to_string(const Shape& shape) {
  std::string text = "[";
  for (const Dim& dim : shape) {
    if (text.size() > 1) text += ", ";
    text += to_string(dim);
  }
  return text + "]";
}

ShapeScope::ShapeScope() : previous_(t_active_scope) { t_active_scope = this; }
ShapeScope::~ShapeScope() { t_active_scope = previous_; }

void require(const Bool& condition, std::string_view message) {
  if (auto value = condition.as_dim().constant()) {
    if (*value == 0) throw ShapeError(std::string(message));
    return;
  }
  if (!t_active_scope) {
    throw std::logic_error("autoplugin::require on the symbolic condition '" +
                           to_string(condition.as_dim()) + "' outside a ShapeScope");
  }
  t_active_scope->requirements_.push_back({condition, std::string(message)});
}

Dim size_tensor(const Dim& opt, const Dim& upper) {
  if (!t_active_scope) throw std::logic_error("autoplugin::size_tensor outside a ShapeScope");
  for (const auto& [name, dim] : {std::pair{"opt", &opt}, std::pair{"upper", &upper}}) {
    if (has_size_tensor(*dim)) {
      throw ShapeError(std::string("the ") + name + " value '" + to_string(*dim) +
                       "' of a size tensor depends on another size tensor");
    }
  }
  auto& declarations = t_active_scope->size_tensors_;
  const int index = static_cast<int>(declarations.size());
  declarations.push_back({opt, upper});
  return make_size_tensor(index, opt, upper);
}

}  // namespace autoplugin
