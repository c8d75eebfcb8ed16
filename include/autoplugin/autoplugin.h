// autoplugin: one declaration turns a kernel launcher and a shape function into a TensorRT plugin.
#pragma once

#include <autoplugin/attr.h>
#include <autoplugin/binding.h>
#include <autoplugin/describe.h>
#include <autoplugin/dim.h>
#include <autoplugin/dtype.h>
#include <autoplugin/error.h>
#include <autoplugin/op.h>
#include <autoplugin/schema.h>
#include <autoplugin/tensor.h>
#include <autoplugin/value.h>
