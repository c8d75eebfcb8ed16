// Dimensions a shape function computes with. A Dim is either a known integer (stored inline, no
// allocation) or a node of an immutable symbolic expression graph. The same user shape function
// therefore runs on plain integers (every input extent known) or symbolically (for TensorRT's
// IExprBuilder, `describe` and tests): operations fold constants and simplify as they build.
#pragma once

#include <autoplugin/limits.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace autoplugin {

// TensorRT's nine DimensionOperations, with the same numbering.
enum class DimOp : std::uint8_t { Sum, Prod, Max, Min, Sub, Equal, Less, FloorDiv, CeilDiv };
std::string_view dim_op_name(DimOp op) noexcept;  // "SUM", "PROD", ..., "CEIL_DIV"

namespace detail {
struct DimNode;
struct DimAccess;
}  // namespace detail

class Bool;

class Dim {
 public:
  Dim() noexcept = default;  // the constant 0
  // Any integer is a constant dim, so `x[0] + 1` and `x[x.rank() - 1]` read naturally. An
  // unsigned value above INT64_MAX throws ShapeError.
  template <std::integral T>
  requires(!std::same_as<T, bool>) Dim(T value)  // NOLINT(google-explicit-constructor)
      : value_(static_cast<std::int64_t>(value)) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
      if (value > static_cast<T>(INT64_MAX)) throw_out_of_range(value);
    }
  }

  // Symbols. `label` is how the symbol prints, e.g. "x[2]" or "size[0]".
  static Dim input_extent(int input, int axis, std::string label);
  static Dim shape_value(int shape_input, int index, std::string label);

  bool is_constant() const noexcept { return node_ == nullptr; }
  std::optional<std::int64_t> constant() const noexcept;
  // The constant value; throws ShapeError naming the expression when it is symbolic.
  std::int64_t value() const;

  Dim& operator+=(const Dim& other);
  Dim& operator-=(const Dim& other);
  Dim& operator*=(const Dim& other);
  Dim& operator/=(const Dim& other);  // floor division

 private:
  friend struct detail::DimAccess;  // the implementation builds and reads symbolic dims
  [[noreturn]] static void throw_out_of_range(std::uint64_t value);
  std::int64_t value_ = 0;
  std::shared_ptr<const detail::DimNode> node_;
};

// A 0/1 condition (TensorRT's EQUAL/LESS produce 0 or 1). Converts to bool only when constant;
// branching on a symbolic condition throws ShapeError suggesting select() or require().
class Bool {
 public:
  explicit Bool(Dim zero_or_one) : dim_(std::move(zero_or_one)) {}
  Bool(bool value) : dim_(value ? 1 : 0) {}  // NOLINT: literal conditions
  const Dim& as_dim() const noexcept { return dim_; }
  explicit operator bool() const;

 private:
  Dim dim_;
};

// The nine operations (each folds constants and applies value-preserving simplifications).
Dim apply(DimOp op, const Dim& a, const Dim& b);
Dim operator+(const Dim& a, const Dim& b);
Dim operator-(const Dim& a, const Dim& b);
Dim operator-(const Dim& a);
Dim operator*(const Dim& a, const Dim& b);
Dim floor_div(const Dim& a, const Dim& b);  // rounds toward negative infinity
Dim ceil_div(const Dim& a, const Dim& b);   // rounds toward positive infinity
Dim operator/(const Dim& a, const Dim& b);  // floor_div, like Python's //
Dim max(const Dim& a, const Dim& b);
Dim min(const Dim& a, const Dim& b);
Bool operator==(const Dim& a, const Dim& b);
Bool operator<(const Dim& a, const Dim& b);

// Derived operations, lowered onto the nine.
Dim operator%(const Dim& a, const Dim& b);  // a - floor_div(a, b) * b: sign of b, like Python's %
Bool operator!=(const Dim& a, const Dim& b);
Bool operator<=(const Dim& a, const Dim& b);
Bool operator>(const Dim& a, const Dim& b);
Bool operator>=(const Dim& a, const Dim& b);
Bool operator!(const Bool& a);
Bool operator&&(const Bool& a, const Bool& b);
Bool operator||(const Bool& a, const Bool& b);
Dim select(const Bool& condition, const Dim& if_true, const Dim& if_false);

// Human-readable infix form: "x[2] + 4", "max(x[0], y[0])", "floor_div(x[1] + 1, 2)".
std::string to_string(const Dim& dim);

// The shape of one tensor: a list of Dims (rank <= kMaxRank, TensorRT's limit).
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<Dim> dims);
  explicit Shape(std::vector<Dim> dims);
  // A shape of `rank` symbols labelled "<name>[i]" for input `input`.
  static Shape symbolic_input(int input, std::size_t rank, std::string_view name);
  static Shape concrete(std::span<const std::int64_t> extents);

  std::size_t rank() const noexcept { return dims_.size(); }
  // Bounds-checked; out of range throws ShapeError naming the index and the rank.
  Dim& operator[](std::size_t axis);
  const Dim& operator[](std::size_t axis) const;
  // Python-style: negative axes count from the end.
  Dim& at(std::int64_t axis);
  const Dim& at(std::int64_t axis) const;
  void push_back(Dim dim);
  void insert(std::size_t axis, Dim dim);
  void erase(std::size_t axis);
  Dim numel() const;
  bool is_constant() const noexcept;
  std::vector<std::int64_t> values() const;  // throws ShapeError when any dim is symbolic

  auto begin() noexcept { return dims_.begin(); }
  auto end() noexcept { return dims_.end(); }
  auto begin() const noexcept { return dims_.begin(); }
  auto end() const noexcept { return dims_.end(); }

 private:
  std::vector<Dim> dims_;
};

std::string to_string(const Shape& shape);  // "[x[0], x[1], x[2] + 4]"

// A condition a shape function requires (recorded when it cannot be decided yet).
struct Requirement {
  Bool condition;
  std::string message;
};

// A data-dependent extent: known only after the kernel runs. `opt` is TensorRT's optimization
// value, `upper` bounds the output buffer.
struct SizeTensorDecl {
  Dim opt;
  Dim upper;
};

// Throws ShapeError(message) when `condition` is constant false; records it in the active
// ShapeScope when symbolic (throws std::logic_error when no scope is active).
void require(const Bool& condition, std::string_view message);

// Declares a data-dependent extent in the active ShapeScope; size tensors are numbered in the
// order they are declared. `opt` and `upper` must not themselves depend on a size tensor.
Dim size_tensor(const Dim& opt, const Dim& upper);

}  // namespace autoplugin
