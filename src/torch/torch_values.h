// PyTorch values <-> autoplugin values, for the PyTorch adapter.
#pragma once

#include <ATen/core/ivalue.h>
#include <c10/core/ScalarType.h>

#include <autoplugin/backend/op.h>
#include <autoplugin/dim.h>

#include <optional>

namespace autoplugin::torch_adapter {

std::optional<DType> from_scalar_type(c10::ScalarType type) noexcept;
c10::ScalarType to_scalar_type(DType dtype);

// The attribute value of `argument` from a call's IValue; throws Error naming the op, the
// argument and the Python type it expected.
AttrValue attribute_value(const Op& op, const Argument& argument, const c10::IValue& value);

// A SymInt or SymInt[] argument's values (concrete in eager calls) as a shape.
Shape shape_input_values(const Op& op, const Argument& argument, const c10::IValue& value);

}  // namespace autoplugin::torch_adapter
