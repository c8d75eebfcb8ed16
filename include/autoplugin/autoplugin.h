// autoplugin: one declaration turns a kernel launcher and a shape function into a TensorRT plugin
// and a PyTorch op. This is what an op's source includes:
//
//   tensor.h   In<T>, OptIn<T>, Out<T>, SizeOut, Workspace: a launcher's tensors and scratch
//   dim.h      Dim and Shape: a shape function's symbolic extents, require(), select()
//   dtype.h    DType and the C++ element type of each
//   value.h    attribute values (AttrValue), for examples and defaults
//   binding.h  AttrBinding, to bind a type of your own to a schema attribute
//   op.h       AUTOPLUGIN_OP and its options: version, output_dtype, formats, workspace, ...
//   error.h    the errors autoplugin throws
//
// Engine adapters and tools include autoplugin/backend/ headers instead; an op does not need them.
#pragma once

#include <autoplugin/binding.h>
#include <autoplugin/dim.h>
#include <autoplugin/dtype.h>
#include <autoplugin/error.h>
#include <autoplugin/op.h>
#include <autoplugin/tensor.h>
#include <autoplugin/value.h>
