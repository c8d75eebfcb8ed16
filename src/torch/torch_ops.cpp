// The PyTorch adapter: each op declared in the library becomes a PyTorch operator with the
// declaration's schema string, and a CUDA kernel that calls the op's own launcher (the fake
// implementation is the Python package's: autoplugin.torch.load_library). Compiled into the
// libraries that autoplugin_add_torch_library builds; `torch.ops.load_library` loads them.
//
// An eager call's host work (converting the attributes, the shape function, the output dtypes,
// the launcher choice, the workspace size) depends only on its signature: the inputs' dtypes and
// extents, the shape inputs' and attributes' values. It is done once per signature and kept
// (Prepared, in the op's SignatureCache); a later call whose tensors are contiguous CUDA tensors
// on one device (a direct call) packs its signature, finds it, allocates the outputs and
// launches. Every other call (a non-contiguous input, a CPU tensor, a bad argument, an op with
// data-dependent extents) takes the full path, which reports errors.
//
// Calls from Python may skip the dispatcher too (autoplugin_torch_v1_direct_call, through the
// module of src/torch/eager_module.cpp): a direct call of a kept signature, where the dispatcher
// would only pass the call on to the CUDA kernel, is launched as the kernel launches it.
#include <ATen/ATen.h>
#include <ATen/core/stack.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/EmptyTensor.h>
#include <ATen/record_function.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/util/SmallVector.h>
#include <cuda_runtime.h>
#include <torch/library.h>

#include <autoplugin/backend/op.h>
#include <autoplugin/backend/shapes.h>
#include <autoplugin/error.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "torch_signature.h"
#include "torch_values.h"

namespace autoplugin::torch_adapter {
namespace {

// Tactics chosen with autoplugin_torch_v1_set_tactic (0: the op's first launcher). Each choice
// counts one generation more, which empties the signature caches (their launchers were chosen
// with the tactics before).
std::mutex tactic_mutex;
std::map<std::string, std::int32_t, std::less<>> chosen_tactics;
std::atomic<std::uint64_t> tactic_generation{0};

std::int32_t tactic_of(const std::string& op) {
  std::lock_guard lock(tactic_mutex);
  const auto it = chosen_tactics.find(op);
  return it == chosen_tactics.end() ? 0 : it->second;
}

std::string dtype_list(std::span<const DType> dtypes) {
  std::string text;
  for (DType d : dtypes) text += (text.empty() ? "" : ", ") + std::string(dtype_name(d));
  return text;
}

// The start of every message, made only when one is (not per call).
std::string who(const Op& op) { return "op '" + op.qualified_name() + "': "; }

using Outputs = c10::SmallVector<at::Tensor, 4>;

// An output or workspace from PyTorch's caching allocator: at::empty's CUDA kernel without the
// dispatcher (and with its fill where deterministic algorithms ask for one).
at::Tensor empty_on(c10::Device device, at::IntArrayRef extents, c10::ScalarType type) {
  const at::Context& context = at::globalContext();
  if (context.deterministicAlgorithms() && context.deterministicFillUninitializedMemory()) {
    return at::empty(extents, at::TensorOptions().dtype(type).device(device));
  }
  return at::detail::empty_cuda(extents, type, device, std::nullopt);
}

// Allocates the outputs and workspace of a prepared call and runs its launcher on the current
// stream of `device` (already the current device). `inputs`: the dense tensors, one per input
// (null where absent), which in-place outputs are.
Outputs launch(const Op& op, const Prepared& prepared, c10::Device device,
               std::span<const TensorRef> input_refs, std::span<const at::Tensor* const> inputs) {
  Outputs outputs;
  c10::SmallVector<TensorRef, 4> output_refs;
  for (const PreparedOutput& p : prepared.outputs) {
    at::Tensor out = p.aliased >= 0 ? *inputs[std::size_t(p.aliased)]
                                    : empty_on(device, p.extents, p.scalar_type);
    TensorRef ref;
    ref.dtype = p.dtype;
    ref.rank = static_cast<std::int32_t>(p.extents.size());
    std::copy(p.extents.begin(), p.extents.end(), ref.extents.begin());
    ref.data = out.numel() > 0 ? out.data_ptr() : nullptr;
    outputs.push_back(std::move(out));
    output_refs.push_back(ref);
  }
  at::Tensor workspace;
  if (prepared.workspace_bytes > 0) {
    workspace = empty_on(device, {static_cast<std::int64_t>(prepared.workspace_bytes)}, at::kByte);
  }
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  const LaunchArgs args{input_refs,
                        {output_refs.data(), output_refs.size()},
                        {},
                        prepared.attributes,
                        reinterpret_cast<Stream>(stream),
                        Workspace{prepared.workspace_bytes > 0 ? workspace.data_ptr() : nullptr,
                                  prepared.workspace_bytes},
                        prepared.bound};
  const LauncherEntry* ran = prepared.launcher;
  const std::int64_t status = op.launch(*prepared.launcher, args, &ran);
  if (status != 0) {
    throw Error(who(op) + "launcher '" + ran->launcher->name + "' returned status " +
                std::to_string(status));
  }
  if (!ran->launcher->returns_status) {
    const cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess) {
      throw Error(who(op) + "launcher '" + ran->launcher->name + "' left CUDA error " +
                  cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
    }
  }
  return outputs;
}

// The full path of a call: its arguments converted and checked, the shape function run, outputs
// allocated, the launcher called. Calls without data-dependent extents keep what they computed
// in their op's SignatureCache (when they are direct: see pack_direct_call).
class Call {
 public:
  Call(const Op& op, at::ArrayRef<c10::IValue> arguments) : op_(op) {
    if (arguments.size() != op.schema().arguments.size()) {
      throw Error(who() + "called with " + std::to_string(arguments.size()) +
                  " arguments; the schema has " + std::to_string(op.schema().arguments.size()));
    }
    for (std::size_t i = 0; i < arguments.size(); ++i) take(op.schema().arguments[i], arguments[i]);
  }

  // `signature`: the call's when it is direct (its Prepared is then kept), else null.
  Outputs run(const Signature* signature, SignatureCache& cache) {
    if (device_ == std::nullopt) throw Error(who() + "has no tensor argument to run on");
    const c10::cuda::CUDAGuard guard(*device_);
    const std::uint64_t generation = tactic_generation.load(std::memory_order_acquire);
    bound_ = op_.bind_attributes(attributes_);
    ShapeScope scope;
    const std::vector<Shape> shapes =
        op_.output_shapes(input_shapes_, shape_inputs_, attributes_, scope, absent_);
    std::vector<DType> dtypes = input_dtypes_;
    for (int j = 0; j < op_.num_returns(); ++j) {
      dtypes.push_back(op_.output_dtype(j, input_dtypes_, attributes_, absent_));
    }
    const LauncherEntry* launcher =
        op_.find_launcher(dtypes, tactic_of(op_.qualified_name()), absent_);
    if (launcher == nullptr) throw Error(missing_launcher(dtypes));
    if (scope.size_tensors().empty()) {
      return run_prepared(prepare(shapes, dtypes, launcher), signature, cache, generation);
    }
    return run_data_dependent(shapes, dtypes, launcher, scope);
  }

 private:
  // Every output extent is known: what any call of this signature computes.
  std::shared_ptr<const Prepared> prepare(const std::vector<Shape>& shapes,
                                          const std::vector<DType>& dtypes,
                                          const LauncherEntry* launcher) {
    auto prepared = std::make_shared<Prepared>();
    prepared->launcher = launcher;
    for (int j = 0; j < op_.num_returns(); ++j) {
      const Shape& shape = shapes[std::size_t(j)];
      PreparedOutput output;
      for (std::size_t i = 0; i < shape.rank(); ++i) {
        output.extents.push_back(bounded_extent(shape[i], {}));
      }
      output.dtype = dtypes[input_dtypes_.size() + std::size_t(j)];
      output.aliased = op_.aliased_input(j);
      if (output.aliased < 0) output.scalar_type = to_scalar_type(output.dtype);
      prepared->outputs.push_back(std::move(output));
    }
    prepared->workspace_bytes =
        op_.has_workspace() ? op_.workspace_size(input_shapes_, shape_inputs_, attributes_, absent_)
                            : 0;
    prepared->attributes = std::move(attributes_);
    prepared->bound = std::move(bound_);
    return prepared;
  }

  Outputs run_prepared(const std::shared_ptr<const Prepared>& prepared, const Signature* signature,
                       SignatureCache& cache, std::uint64_t generation) {
    c10::SmallVector<const at::Tensor*, 6> inputs;
    for (const at::Tensor& input : inputs_) inputs.push_back(&input);
    Outputs outputs = launch(op_, *prepared, *device_, input_refs_, inputs);
    if (signature != nullptr) cache.insert(*signature, prepared, generation);
    for (std::size_t j = 0; j < outputs.size(); ++j) {  // in place on a dense copy: write it back
      const int k = prepared->outputs[j].aliased;
      if (k >= 0 && copied_inputs_[std::size_t(k)].defined()) {
        copied_inputs_[std::size_t(k)].copy_(inputs_[std::size_t(k)]);
        outputs[j] = copied_inputs_[std::size_t(k)];
      }
    }
    return outputs;
  }

  // Data-dependent extents are allocated at their upper bound; the kernel writes the counts.
  Outputs run_data_dependent(const std::vector<Shape>& shapes, const std::vector<DType>& dtypes,
                             const LauncherEntry* launcher, const ShapeScope& scope) {
    const std::size_t num_size_tensors = scope.size_tensors().size();
    std::vector<std::int64_t> uppers;
    for (const SizeTensorDecl& s : scope.size_tensors()) uppers.push_back(evaluate_known(s.upper));
    std::vector<at::Tensor> outputs;
    std::vector<TensorRef> output_refs;
    for (int j = 0; j < op_.num_returns(); ++j) {
      const Shape& shape = shapes[std::size_t(j)];
      const DType dtype = dtypes[input_dtypes_.size() + std::size_t(j)];
      const int aliased = op_.aliased_input(j);
      TensorRef ref;
      ref.dtype = dtype;
      ref.rank = static_cast<std::int32_t>(shape.rank());
      std::int64_t upper_numel = 1;
      for (std::size_t i = 0; i < shape.rank(); ++i) {
        const bool data_dependent = !shape[i].is_constant();
        const std::int64_t upper = bounded_extent(shape[i], uppers);
        ref.extents[i] = data_dependent ? -1 : upper;  // as TensorRT passes such extents
        upper_numel *= upper;
      }
      at::Tensor out;
      if (aliased >= 0) {
        out = inputs_[std::size_t(aliased)];
      } else {
        out = at::empty({upper_numel},
                        at::TensorOptions().dtype(to_scalar_type(dtype)).device(*device_));
      }
      ref.data = out.numel() > 0 ? out.data_ptr() : nullptr;
      outputs.push_back(out);
      output_refs.push_back(ref);
    }
    std::vector<at::Tensor> counts;
    std::vector<TensorRef> count_refs;
    for (std::size_t s = 0; s < num_size_tensors; ++s) {
      counts.push_back(at::zeros({}, at::TensorOptions().dtype(at::kInt).device(*device_)));
      TensorRef ref;
      ref.dtype = DType::Int32;
      ref.data = counts.back().data_ptr();
      count_refs.push_back(ref);
    }
    at::Tensor workspace;
    const std::size_t workspace_bytes =
        op_.has_workspace() ? op_.workspace_size(input_shapes_, shape_inputs_, attributes_, absent_)
                            : 0;
    if (workspace_bytes > 0) {
      workspace = at::empty({static_cast<std::int64_t>(workspace_bytes)},
                            at::TensorOptions().dtype(at::kByte).device(*device_));
    }
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device_->index()).stream();
    const LaunchArgs args{
        input_refs_,
        output_refs,
        count_refs,
        attributes_,
        reinterpret_cast<Stream>(stream),
        Workspace{workspace_bytes > 0 ? workspace.data_ptr() : nullptr, workspace_bytes},
        bound_};
    const LauncherEntry* ran = launcher;
    const std::int64_t status = op_.launch(*launcher, args, &ran);
    if (status != 0) {
      throw Error(who() + "launcher '" + ran->launcher->name + "' returned status " +
                  std::to_string(status));
    }
    if (!ran->launcher->returns_status) {
      const cudaError_t error = cudaGetLastError();
      if (error != cudaSuccess) {
        throw Error(who() + "launcher '" + ran->launcher->name + "' left CUDA error " +
                    cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
      }
    }
    for (int j = 0; j < op_.num_returns(); ++j) {  // in place on a dense copy: write it back
      const int k = op_.aliased_input(j);
      if (k >= 0 && copied_inputs_[std::size_t(k)].defined()) {
        copied_inputs_[std::size_t(k)].copy_(inputs_[std::size_t(k)]);
      }
    }
    std::vector<at::Tensor> shaped =
        shape_outputs(shapes, scope, counts, uppers, std::move(outputs));
    return Outputs(std::make_move_iterator(shaped.begin()), std::make_move_iterator(shaped.end()));
  }

  void take(const Argument& argument, const c10::IValue& value) {
    if (argument.type.is_tensor()) {
      take_tensor(argument, value);
    } else if (argument.type.is_shape_input()) {
      shape_inputs_.push_back(shape_input_values(op_, argument, value));
    } else {
      attributes_.push_back(attribute_value(op_, argument, value));
    }
  }

  void take_tensor(const Argument& argument, const c10::IValue& value) {
    const auto where = [&] { return who() + "argument '" + argument.name + "': "; };
    if (value.isNone()) {
      if (!argument.type.optional) {
        throw Error(where() + "(" + argument.type.to_string() + ") is required, got None");
      }
      const int k = static_cast<int>(input_refs_.size());
      if (k > AbsentInputs::kMaxIndex) {
        throw Error(where() + "inputs past index " + std::to_string(AbsentInputs::kMaxIndex) +
                    " cannot be None");
      }
      absent_.add(k);  // the launcher's OptIn sees present() == false
      TensorRef ref;
      ref.present = false;
      copied_inputs_.emplace_back();
      input_shapes_.emplace_back();
      input_dtypes_.push_back(DType::Float32);  // not read
      input_refs_.push_back(ref);
      inputs_.emplace_back();
      return;
    }
    if (!value.isTensor()) throw Error(where() + "expected a tensor, got " + value.tagKind());
    at::Tensor tensor = value.toTensor();
    if (!tensor.defined()) throw Error(where() + "expected a tensor, got an undefined one");
    if (!tensor.is_cuda()) {
      throw Error(where() + "expected a CUDA tensor, got one on " + tensor.device().str());
    }
    if (device_ && tensor.device() != *device_) {
      throw Error(where() + "is on " + tensor.device().str() + ", the other tensors on " +
                  device_->str());
    }
    device_ = tensor.device();
    const std::optional<DType> dtype = from_scalar_type(tensor.scalar_type());
    if (!dtype) {
      throw Error(where() + "has dtype " + std::string(c10::toString(tensor.scalar_type())) +
                  "; autoplugin ops take float32, float16, bfloat16, int8, int32 or int64");
    }
    if (tensor.dim() > kMaxRank) {
      throw Error(where() + "has rank " + std::to_string(tensor.dim()) + "; at most " +
                  std::to_string(kMaxRank) + " (TensorRT's limit)");
    }
    at::Tensor original = tensor;
    at::Tensor dense = tensor.contiguous();  // launchers read dense row-major tensors
    copied_inputs_.push_back(dense.is_same(original) ? at::Tensor() : original);
    TensorRef ref;
    ref.dtype = *dtype;
    ref.rank = static_cast<std::int32_t>(dense.dim());
    for (std::int64_t i = 0; i < dense.dim(); ++i) ref.extents[std::size_t(i)] = dense.size(i);
    ref.data = dense.numel() > 0 ? dense.data_ptr() : nullptr;
    input_shapes_.push_back(Shape::concrete(dense.sizes().vec()));
    input_dtypes_.push_back(*dtype);
    input_refs_.push_back(ref);
    inputs_.push_back(std::move(dense));
  }

  std::int64_t evaluate_known(const Dim& dim) const {
    const std::optional<std::int64_t> value = dim.constant();
    if (!value) throw Error(who() + "extent " + to_string(dim) + " is not known before the launch");
    return *value;
  }

  // An output extent before the launch: its value, or its size tensor's upper bound.
  std::int64_t bounded_extent(const Dim& dim, const std::vector<std::int64_t>& uppers) const {
    const DimBindings bindings{{}, {}, uppers};
    const std::int64_t value = evaluate(dim, bindings);
    if (value < 0)
      throw Error(who() + "output extent " + to_string(dim) + " is " + std::to_string(value));
    return value;
  }

  // Reads the counts the kernel wrote (a device-to-host copy, which waits for the kernel, as
  // torch.nonzero does) and returns every output at its true size.
  std::vector<at::Tensor> shape_outputs(const std::vector<Shape>& shapes, const ShapeScope& scope,
                                        const std::vector<at::Tensor>& counts,
                                        const std::vector<std::int64_t>& uppers,
                                        std::vector<at::Tensor> outputs) const {
    std::vector<std::int64_t> values;
    for (std::size_t s = 0; s < counts.size(); ++s) {
      const std::int64_t count = counts[s].item<std::int32_t>();
      if (count < 0 || count > uppers[s]) {
        throw Error(who() + "the kernel wrote " + std::to_string(count) + " to size tensor " +
                    std::to_string(s) + ", outside 0.." + std::to_string(uppers[s]));
      }
      values.push_back(count);
    }
    const DimBindings bindings{{}, {}, values};
    check_requirements(scope.requirements(), bindings);
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      if (op_.aliased_input(int(j)) >= 0) {
        const int k = op_.aliased_input(int(j));
        outputs[j] =
            copied_inputs_[std::size_t(k)].defined() ? copied_inputs_[std::size_t(k)] : outputs[j];
        continue;
      }
      const std::vector<std::int64_t> extents = evaluate(shapes[j], bindings);
      std::int64_t numel = 1;
      for (std::int64_t e : extents) numel *= e;
      outputs[j] = outputs[j].narrow(0, 0, numel).view(extents);
    }
    return outputs;
  }

  std::string missing_launcher(std::span<const DType> dtypes) const {
    std::string rows;
    for (const LauncherEntry& e : op_.launchers()) {
      if (e.tactic <= 1) rows += "\n  (" + dtype_list(e.dtypes) + ")  " + e.launcher->name;
    }
    return who() + "no launcher for dtypes (" + dtype_list(dtypes) +
           "), inputs then outputs; add a launcher for them. The op's launchers take:" + rows;
  }

  std::string who() const { return torch_adapter::who(op_); }

  const Op& op_;
  std::optional<c10::Device> device_;
  std::vector<at::Tensor> inputs_;         // dense
  std::vector<at::Tensor> copied_inputs_;  // the caller's tensor where a dense copy was made
  std::vector<TensorRef> input_refs_;
  std::vector<Shape> input_shapes_;
  std::vector<DType> input_dtypes_;
  AbsentInputs absent_;  // the Tensor? arguments given None
  std::vector<Shape> shape_inputs_;
  std::vector<AttrValue> attributes_;
  std::vector<BoundValues> bound_;
};

// One declared operator as the adapter keeps it: its op, found on the first call (declarations
// validate after the library loads), and its signatures' Prepared, shared by the dispatcher's
// kernels and the direct entry below.
class OpState {
 public:
  explicit OpState(std::string name) : name_(std::move(name)) {}

  // The op of the operator's name, validated, or null.
  const Op* find() {
    const Op* found = op_.load(std::memory_order_acquire);
    if (found == nullptr) {
      found = find_op(name_);
      op_.store(found, std::memory_order_release);
    }
    return found;
  }

  // As find(), throwing the library's validation errors where the op did not validate.
  const Op& op() {
    if (const Op* found = find()) return *found;
    std::string errors;
    for (const std::string& e : registry().errors()) errors += "\n  " + e;
    throw Error("op '" + name_ + "' did not validate:" + errors);
  }

  SignatureCache& cache() { return cache_; }

 private:
  std::string name_;
  std::atomic<const Op*> op_{nullptr};
  SignatureCache cache_;
};

// The kernel of one operator (CUDA; on the CPU it refuses the call, naming the argument): the
// direct path where the call's signature was kept, else the full path.
class Kernel final : public c10::OperatorKernel {
 public:
  explicit Kernel(OpState& state) : state_(state) {}

  void operator()(const c10::OperatorHandle& handle, c10::DispatchKeySet,
                  torch::jit::Stack* stack) {
    const std::size_t num_arguments = handle.schema().arguments().size();
    Outputs outputs;
    try {
      outputs = call(torch::jit::last(*stack, num_arguments));
    } catch (const c10::Error&) {
      throw;
    } catch (const std::exception& e) {
      TORCH_CHECK(false, "autoplugin: ", e.what());
    }
    torch::jit::drop(*stack, num_arguments);
    for (at::Tensor& out : outputs) torch::jit::push(*stack, std::move(out));
  }

 private:
  Outputs call(at::ArrayRef<c10::IValue> arguments) {
    const Op& op = state_.op();
    const std::uint64_t generation = tactic_generation.load(std::memory_order_acquire);
    Signature signature;
    DirectInputs inputs;
    if (!pack_direct_call(op, arguments, signature, inputs)) {
      return Call(op, arguments).run(nullptr, state_.cache());
    }
    const std::shared_ptr<const Prepared> prepared = state_.cache().find(signature, generation);
    if (prepared == nullptr) return Call(op, arguments).run(&signature, state_.cache());
    const c10::cuda::CUDAGuard guard(*inputs.device);
    return launch(op, *prepared, *inputs.device, inputs.refs, inputs.tensors);
  }

  OpState& state_;
};

// PyTorch libraries of this shared library, one per namespace and kind, alive while it is.
struct Libraries {
  std::mutex mutex;
  std::deque<torch::Library> libraries;
  struct Namespace {
    torch::Library* definitions = nullptr;
    torch::Library* cuda = nullptr;  // kernels
    torch::Library* cpu = nullptr;   // refusals
  };
  std::map<std::string, Namespace> by_namespace;
  std::map<std::string, std::unique_ptr<OpState>, std::less<>> states;  // by qualified name

  void define(const std::string& schema_text) {
    const std::string ns = schema_text.substr(0, schema_text.find("::"));
    std::string name = schema_text.substr(ns.size() + 2);
    name = name.substr(0, name.find('('));
    std::lock_guard lock(mutex);
    auto [it, added] = by_namespace.try_emplace(ns);
    if (added) {
      libraries.emplace_back(torch::Library::FRAGMENT, ns, std::nullopt, __FILE__, __LINE__);
      it->second.definitions = &libraries.back();
      libraries.emplace_back(torch::Library::IMPL, ns, c10::DispatchKey::CUDA, __FILE__, __LINE__);
      it->second.cuda = &libraries.back();
      // On the CPU the same kernel refuses the call, naming the argument (not "no kernel").
      libraries.emplace_back(torch::Library::IMPL, ns, c10::DispatchKey::CPU, __FILE__, __LINE__);
      it->second.cpu = &libraries.back();
    }
    const std::string qualified = ns + "::" + name;
    OpState& state =
        *states.try_emplace(qualified, std::make_unique<OpState>(qualified)).first->second;
    it->second.definitions->def(schema_text.c_str());
    it->second.cuda->impl(
        name.c_str(), torch::CppFunction::makeFromBoxedFunctor(std::make_unique<Kernel>(state)));
    it->second.cpu->impl(name.c_str(),
                         torch::CppFunction::makeFromBoxedFunctor(std::make_unique<Kernel>(state)));
  }

  OpState* state(std::string_view qualified) {
    std::lock_guard lock(mutex);
    const auto it = states.find(qualified);
    return it == states.end() ? nullptr : it->second.get();
  }
};

Libraries& libraries() {
  static Libraries instance;
  return instance;
}

// Defines every op of this library with PyTorch as it loads, including ops whose declarations
// run after this initializer.
const bool registered = [] {
  registry().on_declare([](const std::string& schema) { libraries().define(schema); });
  return true;
}();

// Whether PyTorch's dispatcher would take a call with these arguments straight to the op's CUDA
// kernel, through keys that change nothing for it: no input needs a gradient (or grad mode is
// off), so autograd and ADInplaceOrView only pass it on; and no other key (autocast, a Python
// mode or tensor subclass, functionalization, vmap, the JIT tracer, a conjugate or negative
// view) comes first. Record-function callbacks (the profiler) are the dispatcher's too.
bool dispatches_to_kernel(at::ArrayRef<c10::IValue> arguments) {
  c10::DispatchKeySet keys;
  bool needs_gradient = false;
  for (const c10::IValue& value : arguments) {
    if (!value.isTensor()) continue;
    const at::Tensor& tensor = value.toTensor();
    keys = keys | tensor.key_set();
    needs_gradient = needs_gradient || tensor.requires_grad();
  }
  if (needs_gradient && c10::GradMode::is_enabled()) return false;
  if (at::hasCallbacks()) return false;
  const c10::impl::LocalDispatchKeySet local = c10::impl::tls_local_dispatch_key_set();
  // BackendSelect (in the default included set) chooses kernels of factory ops only.
  keys = ((keys | local.included_) - local.excluded_) -
         c10::autograd_dispatch_keyset_with_ADInplaceOrView -
         c10::DispatchKeySet(c10::DispatchKey::BackendSelect);
  return keys.highestPriorityTypeId() == c10::DispatchKey::CUDA;
}

// What autoplugin_torch_v1_direct_call answers.
enum DirectAnswer : int { kDirectError = -1, kNotDirect = 0, kDirectRan = 1 };

int direct_call(OpState& state, at::ArrayRef<c10::IValue> arguments,
                std::vector<at::Tensor>& outputs, std::string& error) noexcept {
  try {
    const Op* op = state.find();
    if (op == nullptr || !dispatches_to_kernel(arguments)) return kNotDirect;
    const std::uint64_t generation = tactic_generation.load(std::memory_order_acquire);
    Signature signature;
    DirectInputs inputs;
    if (!pack_direct_call(*op, arguments, signature, inputs)) return kNotDirect;
    const std::shared_ptr<const Prepared> prepared = state.cache().find(signature, generation);
    // In-place outputs are the caller's tensors, whose version counters the dispatcher keeps.
    if (prepared == nullptr || std::ranges::any_of(prepared->outputs, [](const PreparedOutput& p) {
          return p.aliased >= 0;
        })) {
      return kNotDirect;
    }
    const c10::cuda::CUDAGuard guard(*inputs.device);
    Outputs launched = launch(*op, *prepared, *inputs.device, inputs.refs, inputs.tensors);
    outputs.assign(std::make_move_iterator(launched.begin()),
                   std::make_move_iterator(launched.end()));
    return kDirectRan;
  } catch (const c10::Error& e) {
    error = e.what_without_backtrace();
  } catch (const std::exception& e) {
    error = std::string("autoplugin: ") + e.what();
  } catch (...) {
    error = "autoplugin: an unknown exception";
  }
  return kDirectError;
}

}  // namespace
}  // namespace autoplugin::torch_adapter

// The direct entry of eager calls from Python (the module built beside each PyTorch op library,
// src/torch/eager_module.cpp; both are built against the same PyTorch). The op of a qualified
// name ("namespace::name"), or null where this library defines none.
extern "C" __attribute__((visibility("default"))) void* autoplugin_torch_v1_direct_op(
    const char* qualified_name) {
  if (qualified_name == nullptr) return nullptr;
  return autoplugin::torch_adapter::libraries().state(qualified_name);
}

// Runs a call of `op` (from autoplugin_torch_v1_direct_op) with `arguments` (c10::IValue[count],
// in schema order) without the dispatcher, where the dispatcher would have reached the op's CUDA
// kernel and the call's signature was kept by an earlier call through it: 1, with the returns in
// `outputs` (std::vector<at::Tensor>*). 0 where the call must go through the dispatcher (nothing
// was run); -1 where the launch failed, with the message in `error` (std::string*).
extern "C" __attribute__((visibility("default"))) int autoplugin_torch_v1_direct_call(
    void* op, const void* arguments, std::size_t count, void* outputs, void* error) {
  using namespace autoplugin::torch_adapter;
  return direct_call(*static_cast<OpState*>(op),
                     at::ArrayRef<c10::IValue>(static_cast<const c10::IValue*>(arguments), count),
                     *static_cast<std::vector<at::Tensor>*>(outputs),
                     *static_cast<std::string*>(error));
}

// Chooses the launcher among an op's tactics (1, 2, ... as `describe` numbers them; 0 resets to
// the first) for later calls from PyTorch. Returns 0, or -1 for an unknown op.
extern "C" __attribute__((visibility("default"))) int autoplugin_torch_v1_set_tactic(
    const char* op, std::int32_t tactic) {
  using namespace autoplugin;
  if (op == nullptr || tactic < 0 || autoplugin::find_op(op) == nullptr) return -1;
  std::lock_guard lock(torch_adapter::tactic_mutex);
  torch_adapter::chosen_tactics[op] = tactic;
  torch_adapter::tactic_generation.fetch_add(1, std::memory_order_release);
  return 0;
}
