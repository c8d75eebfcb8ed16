// The field codec: typed attribute values <-> a neutral list of plugin fields (name, element type,
// data, count), the engine-independent mirror of TensorRT's PluginFieldCollection.
#pragma once

#include <autoplugin/backend/schema.h>
#include <autoplugin/value.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin {

// Same members and numbering as nvinfer1::PluginFieldType.
enum class FieldType : std::uint8_t {
  Float16,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Char,
  Dims,
  Unknown,
  BFloat16,
  Int64,
  FP8,
  Int4,
  FP4,
};
std::string_view field_type_name(FieldType type) noexcept;  // "FLOAT32", "INT64", "CHAR", ...

// A non-owning field, as TensorRT hands them over. `length` counts elements (chars for Char).
struct FieldView {
  std::string_view name;
  FieldType type = FieldType::Unknown;
  const void* data = nullptr;
  std::int32_t length = 0;
};

// Bytes taken by `count` elements of `type` (Dims as TensorRT's Dims64; Int4/FP4 two per byte).
std::size_t field_byte_size(FieldType type, std::size_t count) noexcept;

// What a creator advertises for one attribute: the type TensorRT's ONNX parser sends for it
// (INT/INTS -> Int32, FLOAT/FLOATS -> Float32, STRING -> Char) and its length (0: variable).
struct FieldSpec {
  std::string name;
  FieldType type;
  std::int32_t length;
};

// The reserved plugin field listing a plugin instance's absent `Tensor?` inputs by input index
// (0-based among the schema's tensor arguments): integers of any type, any order. Listed among a
// creator's fields (INT32, variable length) when the schema has a `Tensor?` argument, serialized
// (INT64) when not empty. Trailing absent inputs need not be listed: an engine that passes fewer
// tensors leaves them out. Argument names starting with "autoplugin_" are reserved.
inline constexpr std::string_view kAbsentInputsField = "autoplugin_absent_inputs";
bool has_optional_tensor(const Schema& schema);

// The attribute arguments of a schema (everything except tensors and shape inputs), in order.
std::vector<const Argument*> attribute_arguments(const Schema& schema);
// One per attribute argument, then the reserved field when the schema has a `Tensor?` argument.
std::vector<FieldSpec> field_specs(const Schema& schema);

// Owned, serialized fields. Views stay valid for the life of this object and are unaffected by
// copying or moving it elsewhere (each copy owns its own bytes).
class FieldList {
 public:
  FieldList() = default;
  FieldList(const FieldList& other);
  FieldList& operator=(const FieldList& other);
  FieldList(FieldList&&) noexcept = default;
  FieldList& operator=(FieldList&&) noexcept = default;

  // Appends a field, copying `bytes` (count elements of `type`).
  void add(std::string name, FieldType type, const void* bytes, std::int32_t count);
  std::span<const FieldView> views() const noexcept { return views_; }
  std::size_t size() const noexcept { return views_.size(); }

 private:
  void rebuild_views();
  struct Stored {
    std::string name;
    FieldType type;
    std::vector<std::byte> bytes;
    std::int32_t count;
  };
  std::vector<Stored> stored_;
  std::vector<FieldView> views_;
};

// Our serialized form, one field per attribute, in schema order:
//   int -> Int64 x1; float -> Float64 x1; bool -> Int8 x1; str -> Char with a trailing NUL;
//   int[] -> Int64 xN; float[] -> Float64 xN; bool[] -> Int8 xN; ScalarType -> Char (its name);
//   None (an optional attribute without a value) -> its type with length 0, except for a
//   variable-size list (int[]?, ...), where that is the empty list: its None is Unknown x0.
// `values` holds one value per attribute argument (see attribute_arguments); a non-empty
// `absent_inputs` adds the reserved field (Int64 xN). Throws FieldError when a value does not
// have its argument's type.
FieldList encode_attributes(const Schema& schema, std::span<const AttrValue> values,
                            std::span<const std::int64_t> absent_inputs = {});

struct DecodedAttributes {
  std::vector<AttrValue> values;            // one per attribute argument, defaults applied
  std::vector<std::string> warnings;        // e.g. unknown fields, which are ignored
  std::vector<std::int64_t> absent_inputs;  // the reserved field's values, as given
};

// Decodes fields from our serialized form or from what a user or TensorRT's ONNX parser sends:
// any integer type for int/int[] (range-checked), any float type for float/float[], integers 0/1
// for bool, Char with or without a trailing NUL for str, a name or a PyTorch ScalarType code for
// ScalarType; a single value for a fixed-size list broadcasts. Missing fields take the schema
// default. Throws one FieldError listing every problem (wrong type, wrong length, missing
// required field, null data, duplicate field), each naming the op and the field.
DecodedAttributes decode_attributes(const Schema& schema, std::span<const FieldView> fields);

// The value an attribute argument takes when none is given: its default, or None for an
// optional one; nullopt when it is required.
std::optional<AttrValue> value_when_absent(const Argument& argument);

// Checks that `value` fits `argument`'s type; returns the value converted to the canonical
// alternative (e.g. an int for a float argument becomes a double). Throws FieldError.
AttrValue coerce_attribute(const Schema& schema, const Argument& argument, AttrValue value);

}  // namespace autoplugin
