// The C entry points every library built with autoplugin exports (TensorRT plugin libraries and
// PyTorch op libraries alike), so that tools and the Python package can ask a library about the
// ops it holds: `autoplugin describe LIB.so`, PyTorch fake implementations, Torch-TensorRT
// converters. Each returns a NUL-terminated JSON document (or text, for describe) owned by the
// library and valid until the next call from the same thread; none throws.
#pragma once

#include <cstdint>

extern "C" {

// A plugin field, as TensorRT's PluginField: `type` numbers as nvinfer1::PluginFieldType.
struct autoplugin_field_v1 {
  const char* name;
  std::int32_t type;
  const void* data;
  std::int32_t length;
};

// {"autoplugin": 1, "ops": [op...], "errors": ["declaration that failed to validate", ...]}
const char* autoplugin_library_v1_ops();

// `autoplugin describe` text of one op (qualified name), of every op when `op` is null, or one
// line per op (`autoplugin list`) when `op` is "".
const char* autoplugin_library_v1_describe(const char* op);

// Output shapes, dtypes, requirements and data-dependent extents of one call of `op`, as an
// expression program over the inputs' extents and shape inputs' values: input k has rank
// input_ranks[k] (-1: an absent Tensor?) and dtype input_dtypes[k] (a dtype name); shape input
// k has shape_input_lengths[k] values; the attributes are plugin fields. The dtypes must have a
// launcher and the attributes must decode. {"ok": true, ...} or {"ok": false, "error": "..."}.
const char* autoplugin_library_v1_shape_program(const char* op, std::int32_t num_inputs,
                                                const std::int32_t* input_ranks,
                                                const char* const* input_dtypes,
                                                std::int32_t num_shape_inputs,
                                                const std::int32_t* shape_input_lengths,
                                                std::int32_t num_fields,
                                                const autoplugin_field_v1* fields);

// The attribute values `op`'s creator decodes from these fields (defaults applied), with the
// warnings it would log: {"ok": true, "values": {...}, "warnings": [...]} or an error.
const char* autoplugin_library_v1_decode_fields(const char* op, std::int32_t num_fields,
                                                const autoplugin_field_v1* fields);
}
