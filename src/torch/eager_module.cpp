// The Python module `_autoplugin_eager`, built beside each PyTorch op library where Python's
// headers are found (autoplugin_add_torch_library): the direct path of an eager call from Python.
// `autoplugin.torch.direct_ops` calls `call(bound, args)` first; it converts the arguments to
// IValues and hands them to the op library's autoplugin_torch_v1_direct_call, which launches
// without PyTorch's dispatcher where the dispatcher would only have passed the call on to the
// op's CUDA kernel. None means "not taken": the caller then calls the op through torch.ops,
// which handles every other case (keyword arguments, tensor subclasses and modes, gradients, a
// signature not seen before, errors).
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

// One op of one library: its direct entry and the op's handle there.
struct Bound {
  DirectCall call;
  void* op;
};

constexpr const char* kCapsuleName = "autoplugin.eager.Bound";

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

// bind(call_address, op_address) -> an opaque handle for call().
PyObject* bind(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "bind(call_address, op_address) takes 2 arguments");
    return nullptr;
  }
  void* call = PyLong_AsVoidPtr(args[0]);
  void* op = PyLong_AsVoidPtr(args[1]);
  if (PyErr_Occurred() != nullptr) return nullptr;
  if (call == nullptr || op == nullptr) {
    PyErr_SetString(PyExc_ValueError, "bind: the direct entry and the op must not be null");
    return nullptr;
  }
  auto* bound = new Bound{reinterpret_cast<DirectCall>(call), op};
  PyObject* capsule = PyCapsule_New(bound, kCapsuleName, [](PyObject* self) {
    delete static_cast<Bound*>(PyCapsule_GetPointer(self, kCapsuleName));
  });
  if (capsule == nullptr) delete bound;
  return capsule;
}

// call(bound, args) -> the op's return (a tensor, or a tuple of them), or None where the call was
// not taken.
PyObject* call(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyTuple_CheckExact(args[1])) {
    PyErr_SetString(PyExc_TypeError, "call(bound, args) takes a handle and a tuple");
    return nullptr;
  }
  const auto* bound = static_cast<const Bound*>(PyCapsule_GetPointer(args[0], kCapsuleName));
  if (bound == nullptr) return nullptr;
  // A torch function mode (TorchFunctionMode, `with torch.device(...)`) sees every call.
  if (at::impl::torch_function_mode_enabled()) Py_RETURN_NONE;
  const Py_ssize_t count = PyTuple_GET_SIZE(args[1]);
  c10::SmallVector<c10::IValue, 8> arguments;
  for (Py_ssize_t i = 0; i < count; ++i) {
    std::optional<c10::IValue> value = argument_value(PyTuple_GET_ITEM(args[1], i));
    if (!value) Py_RETURN_NONE;
    arguments.push_back(std::move(*value));
  }
  std::vector<at::Tensor> outputs;
  std::string error;
  int answer = 0;
  Py_BEGIN_ALLOW_THREADS answer =
      bound->call(bound->op, arguments.data(), arguments.size(), &outputs, &error);
  Py_END_ALLOW_THREADS if (answer < 0) {
    PyErr_SetString(PyExc_RuntimeError, error.c_str());
    return nullptr;
  }
  if (answer == 0) Py_RETURN_NONE;
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

// How many calls this module ran directly (for tests).
PyObject* count_direct_calls(PyObject*, PyObject*) {
  return PyLong_FromUnsignedLongLong(direct_calls.load(std::memory_order_relaxed));
}

PyMethodDef methods[] = {
    {"bind", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(bind)), METH_FASTCALL,
     "bind(call_address, op_address): a handle for call()"},
    {"call", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(call)), METH_FASTCALL,
     "call(handle, args): the op's return, or None where the call must go through torch.ops"},
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
