// Attribute values: the typed, owned form of everything a schema argument other than a tensor
// or a shape input can hold; and the base types a schema spells.
#pragma once

#include <autoplugin/dtype.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace autoplugin {

// A schema argument's type without its list and optional marks: "Tensor", "int", "float", "bool",
// "str", "SymInt", "ScalarType".
enum class BaseType { Tensor, Int, Float, Bool, Str, SymInt, ScalarType };

// A list of bools that can be viewed as std::span<const bool> (std::vector<bool> cannot).
class BoolList {
 public:
  BoolList() = default;
  BoolList(std::initializer_list<bool> values);
  explicit BoolList(std::span<const bool> values);
  BoolList(const BoolList& other);
  BoolList& operator=(const BoolList& other);
  BoolList(BoolList&&) noexcept = default;
  BoolList& operator=(BoolList&&) noexcept = default;

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const bool* data() const noexcept { return data_.get(); }
  bool operator[](std::size_t i) const { return data_[i]; }
  std::span<const bool> span() const noexcept { return {data_.get(), size_}; }
  friend bool operator==(const BoolList& a, const BoolList& b) noexcept;

 private:
  std::unique_ptr<bool[]> data_;
  std::size_t size_ = 0;
};

using IntList = std::vector<std::int64_t>;
using FloatList = std::vector<double>;

// std::monostate is None (an absent optional value).
using AttrValue = std::variant<std::monostate, std::int64_t, double, bool, std::string, IntList,
                               FloatList, BoolList, DType>;

// Python-like rendering used in messages and `describe`: None, 3, 1e-05, True, "reflect",
// [1, 2], float16.
std::string to_string(const AttrValue& value);

}  // namespace autoplugin
