// The Python module `_autoplugin_eager`, built beside each PyTorch op library where Python's
// headers are found (autoplugin_add_torch_library): the direct path of an eager call from Python.
// `op(...)` makes the function of one op (`autoplugin.torch.direct_ops`): it converts a call's
// positional arguments to IValues and hands them to the op library's
// autoplugin_torch_v1_direct_call, which launches without PyTorch's dispatcher where the
// dispatcher would only have passed the call on to the op's CUDA kernel; every other call
// (keyword arguments, tensor subclasses and modes, gradients, a signature not seen before) is
// passed to the op in torch.ops, which handles it and reports its errors.
#include <Python.h>

#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/core/ivalue.h>
#include <c10/util/SmallVector.h>
#include <torch/csrc/autograd/python_variable.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

using DirectCall = int (*)(void* op, const void* arguments, std::size_t count, void* outputs,
                           void* error);

std::atomic<std::uint64_t> direct_calls{0};

// A list of Python ints, floats or bools as the IValue torch.ops would make for an int[],
// float[] or bool[] argument; nullopt for anything else (an empty list included: its type is the
// schema's).
std::optional<c10::IValue> list_value(PyObject* sequence) {
  const Py_ssize_t size = PySequence_Fast_GET_SIZE(sequence);
  PyObject** items = PySequence_Fast_ITEMS(sequence);
  if (size == 0) return std::nullopt;
  if (PyBool_Check(items[0])) {
    c10::List<bool> values;
    values.reserve(std::size_t(size));
    for (Py_ssize_t i = 0; i < size; ++i) {
      if (!PyBool_Check(items[i])) return std::nullopt;
      values.push_back(items[i] == Py_True);
    }
    return c10::IValue(std::move(values));
  }
  if (PyLong_CheckExact(items[0])) {
    c10::List<std::int64_t> values;
    values.reserve(std::size_t(size));
    for (Py_ssize_t i = 0; i < size; ++i) {
      if (!PyLong_CheckExact(items[i])) return std::nullopt;
      int overflow = 0;
      const long long value = PyLong_AsLongLongAndOverflow(items[i], &overflow);
      if (overflow != 0) return std::nullopt;
      values.push_back(value);
    }
    return c10::IValue(std::move(values));
  }
  if (PyFloat_CheckExact(items[0])) {
    c10::List<double> values;
    values.reserve(std::size_t(size));
    for (Py_ssize_t i = 0; i < size; ++i) {
      if (!PyFloat_CheckExact(items[i])) return std::nullopt;
      values.push_back(PyFloat_AS_DOUBLE(items[i]));
    }
    return c10::IValue(std::move(values));
  }
  return std::nullopt;
}

// The IValue torch.ops makes of an argument of the Python type `object` has, for the types a
// direct call takes; nullopt for the rest (tensor subclasses, SymInts, numpy scalars, ...).
std::optional<c10::IValue> argument_value(PyObject* object) {
  if (THPVariable_CheckExact(object)) return c10::IValue(THPVariable_Unpack(object));
  if (object == Py_None) return c10::IValue();
  if (PyBool_Check(object)) return c10::IValue(object == Py_True);
  if (PyLong_CheckExact(object)) {
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(object, &overflow);
    if (overflow != 0) return std::nullopt;
    return c10::IValue(static_cast<std::int64_t>(value));
  }
  if (PyFloat_CheckExact(object)) return c10::IValue(PyFloat_AS_DOUBLE(object));
  if (PyList_CheckExact(object) || PyTuple_CheckExact(object)) return list_value(object);
  if (PyUnicode_CheckExact(object)) {
    Py_ssize_t length = 0;
    const char* text = PyUnicode_AsUTF8AndSize(object, &length);
    if (text == nullptr) {
      PyErr_Clear();
      return std::nullopt;
    }
    return c10::IValue(std::string(text, std::size_t(length)));
  }
  return std::nullopt;
}

// One op of one library: its direct entry, the op's handle there, and the op as torch.ops has
// it (the call every call that is not direct becomes). The `self` of the op's function.
struct DirectOp {
  DirectCall call;
  void* op;
  PyObject* target;
  std::string name;
  PyMethodDef method;
};

constexpr const char* kCapsuleName = "autoplugin.eager.DirectOp";

// The direct path of one call: the op's return (a tensor, or a tuple of them), null with a
// Python error set, or std::nullopt where the call must go through torch.ops.
std::optional<PyObject*> direct_call(const DirectOp& op, PyObject* const* args, Py_ssize_t nargs) {
  // A torch function mode (TorchFunctionMode, `with torch.device(...)`) sees every call.
  if (at::impl::torch_function_mode_enabled()) return std::nullopt;
  c10::SmallVector<c10::IValue, 8> arguments;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    std::optional<c10::IValue> value = argument_value(args[i]);
    if (!value) return std::nullopt;
    arguments.push_back(std::move(*value));
  }
  std::vector<at::Tensor> outputs;
  std::string error;
  int answer = 0;
  Py_BEGIN_ALLOW_THREADS answer =
      op.call(op.op, arguments.data(), arguments.size(), &outputs, &error);
  Py_END_ALLOW_THREADS if (answer < 0) {
    PyErr_SetString(PyExc_RuntimeError, error.c_str());
    return nullptr;
  }
  if (answer == 0) return std::nullopt;
  direct_calls.fetch_add(1, std::memory_order_relaxed);
  if (outputs.size() == 1) return THPVariable_Wrap(std::move(outputs[0]));
  PyObject* tuple = PyTuple_New(Py_ssize_t(outputs.size()));
  if (tuple == nullptr) return nullptr;
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    PyObject* tensor = THPVariable_Wrap(std::move(outputs[j]));
    if (tensor == nullptr) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, Py_ssize_t(j), tensor);
  }
  return tuple;
}

// The op's function: the direct path for positional calls, else (and where it is not taken) the
// torch.ops op with the same arguments.
PyObject* call_op(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const auto* op = static_cast<const DirectOp*>(PyCapsule_GetPointer(self, kCapsuleName));
  if (op == nullptr) return nullptr;
  if (kwnames == nullptr || PyTuple_GET_SIZE(kwnames) == 0) {
    if (std::optional<PyObject*> result = direct_call(*op, args, nargs)) return *result;
  }
  return PyObject_Vectorcall(op->target, args, std::size_t(nargs), kwnames);
}

// op(call_address, op_address, target, name) -> the op's function, a builtin named `name`.
PyObject* make_op(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4 || !PyUnicode_Check(args[3])) {
    PyErr_SetString(PyExc_TypeError, "op(call_address, op_address, target, name)");
    return nullptr;
  }
  void* call = PyLong_AsVoidPtr(args[0]);
  void* handle = PyLong_AsVoidPtr(args[1]);
  const char* name = PyUnicode_AsUTF8(args[3]);
  if (PyErr_Occurred() != nullptr) return nullptr;
  if (call == nullptr || handle == nullptr) {
    PyErr_SetString(PyExc_ValueError, "op: the direct entry and the op must not be null");
    return nullptr;
  }
  auto* op = new DirectOp{reinterpret_cast<DirectCall>(call), handle, args[2], name, {}};
  Py_INCREF(op->target);
  op->method = {op->name.c_str(),
                reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(call_op)),
                METH_FASTCALL | METH_KEYWORDS,
                "An autoplugin op, called directly where PyTorch's dispatcher would only pass the "
                "call on (autoplugin.torch.direct_ops)."};
  PyObject* capsule = PyCapsule_New(op, kCapsuleName, [](PyObject* self) {
    auto* owned = static_cast<DirectOp*>(PyCapsule_GetPointer(self, kCapsuleName));
    Py_DECREF(owned->target);
    delete owned;
  });
  if (capsule == nullptr) {
    Py_DECREF(op->target);
    delete op;
    return nullptr;
  }
  PyObject* function = PyCFunction_New(&op->method, capsule);
  Py_DECREF(capsule);  // the function holds it
  return function;
}

// How many calls this module ran directly (for tests).
PyObject* count_direct_calls(PyObject*, PyObject*) {
  return PyLong_FromUnsignedLongLong(direct_calls.load(std::memory_order_relaxed));
}

PyMethodDef methods[] = {
    {"op", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(make_op)), METH_FASTCALL,
     "op(call_address, op_address, target, name): the op's function, which calls `target` (the "
     "op in torch.ops) where the call is not direct"},
    {"direct_calls", count_direct_calls, METH_NOARGS, "how many calls ran directly"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT,
                      "_autoplugin_eager",
                      "The direct path of autoplugin ops' eager calls.",
                      -1,
                      methods,
                      nullptr,
                      nullptr,
                      nullptr,
                      nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__autoplugin_eager() { return PyModule_Create(&module); }
