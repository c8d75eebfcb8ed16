// Host time of the pieces of an eager PyTorch call of an autoplugin op, on the CPU (no GPU
// needed): what the full path does per call (convert the attributes, run the shape function, bind
// the attributes, choose the launcher, allocate), against what a call with a known signature does
// (pack the signature, find it). The op is circular_pad's declaration (its shape function) with
// a launcher that launches nothing; its tensors are (1, 1, 4, 4) float32, padding (1, 1, 1, 1).
//
//   build/bench/autoplugin_torch_host_bench
#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <benchmark/benchmark.h>
#include <c10/core/TensorImpl.h>
#include <cuda_runtime.h>

#include <autoplugin/autoplugin.h>
#include <autoplugin/backend/op.h>
#include <autoplugin/backend/shapes.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "../examples/common/circular_pad_shape.h"
#include "../src/torch/torch_signature.h"
#include "../src/torch/torch_values.h"

namespace ap = autoplugin;
namespace adapter = autoplugin::torch_adapter;

namespace {

cudaError_t no_launch(ap::In<float>, std::span<const std::int64_t>, ap::Out<float>, cudaStream_t) {
  return cudaSuccess;
}

}  // namespace

AUTOPLUGIN_OP("host_bench::circular_pad(Tensor x, int[] padding) -> Tensor",
              autoplugin_examples::circular_pad_shape, no_launch);

namespace {

const ap::Op& pad_op() {
  static const ap::Op& op = *ap::find_op("host_bench::circular_pad");
  return op;
}

// A tensor that says it is on CUDA device 0 without a GPU: its data pointer is never read.
at::Tensor cuda_looking(std::vector<std::int64_t> extents) {
  c10::Storage storage(
      c10::Storage::use_byte_size_t(), 1 << 20,
      c10::DataPtr(reinterpret_cast<void*>(std::uintptr_t{1} << 20), c10::Device(c10::kCUDA, 0)),
      nullptr, false);
  at::Tensor tensor = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CUDA),
      caffe2::TypeMeta::Make<float>());
  tensor.unsafeGetTensorImpl()->set_sizes_contiguous(extents);
  return tensor;
}

const std::vector<std::int64_t> kExtents = {1, 1, 4, 4};

std::vector<c10::IValue> call_stack() {
  return {c10::IValue(cuda_looking(kExtents)), c10::IValue(std::vector<std::int64_t>{1, 1, 1, 1})};
}

// --- the full path, piece by piece (each call did all of these) ---------------------------------

void FullPath_ConvertAttribute(benchmark::State& state) {
  const c10::IValue padding(std::vector<std::int64_t>{1, 1, 1, 1});
  const ap::Argument& argument = pad_op().schema().arguments[1];
  for (auto _ : state) {
    benchmark::DoNotOptimize(adapter::attribute_value(pad_op(), argument, padding));
  }
}
BENCHMARK(FullPath_ConvertAttribute);

void FullPath_InputShape(benchmark::State& state) {
  const at::Tensor x = at::empty(kExtents);
  for (auto _ : state) benchmark::DoNotOptimize(ap::Shape::concrete(x.sizes().vec()));
}
BENCHMARK(FullPath_InputShape);

void FullPath_BindAttributes(benchmark::State& state) {
  const std::vector<ap::AttrValue> attributes = {
      ap::AttrValue(std::vector<std::int64_t>{1, 1, 1, 1})};
  for (auto _ : state) benchmark::DoNotOptimize(pad_op().bind_attributes(attributes));
}
BENCHMARK(FullPath_BindAttributes);

void FullPath_ShapeFunction(benchmark::State& state) {
  const std::vector<ap::Shape> inputs = {ap::Shape::concrete(kExtents)};
  const std::vector<ap::AttrValue> attributes = {
      ap::AttrValue(std::vector<std::int64_t>{1, 1, 1, 1})};
  for (auto _ : state) {
    ap::ShapeScope scope;
    benchmark::DoNotOptimize(pad_op().output_shapes(inputs, {}, attributes, scope));
  }
}
BENCHMARK(FullPath_ShapeFunction);

void FullPath_DtypesAndLauncher(benchmark::State& state) {
  const std::vector<ap::AttrValue> attributes = {
      ap::AttrValue(std::vector<std::int64_t>{1, 1, 1, 1})};
  const std::vector<ap::DType> input_dtypes = {ap::DType::Float32};
  std::mutex mutex;  // the tactic table the full path reads, by op name
  const std::map<std::string, std::int32_t, std::less<>> tactics = {{"other::op", 2}};
  for (auto _ : state) {
    std::vector<ap::DType> dtypes = input_dtypes;
    dtypes.push_back(pad_op().output_dtype(0, input_dtypes, attributes));
    std::int32_t tactic = 0;
    {
      std::lock_guard lock(mutex);
      const auto it = tactics.find(pad_op().qualified_name());
      tactic = it == tactics.end() ? 0 : it->second;
    }
    benchmark::DoNotOptimize(pad_op().find_launcher(dtypes, tactic));
  }
}
BENCHMARK(FullPath_DtypesAndLauncher);

// The full path's output: a flat allocation, narrowed and viewed (two more dispatched ops); on
// the CPU here, so the allocator is not the CUDA caching allocator the GPU run uses.
void FullPath_AllocateOutputCpu(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        at::empty({36}, at::TensorOptions().dtype(at::kFloat)).narrow(0, 0, 36).view({1, 1, 6, 6}));
  }
}
BENCHMARK(FullPath_AllocateOutputCpu);

// --- the direct path of a known signature -------------------------------------------------------

void Direct_PackSignature(benchmark::State& state) {
  const std::vector<c10::IValue> stack = call_stack();
  for (auto _ : state) {
    adapter::Signature signature;
    adapter::DirectInputs inputs;
    benchmark::DoNotOptimize(adapter::pack_direct_call(pad_op(), stack, signature, inputs));
  }
}
BENCHMARK(Direct_PackSignature);

void Direct_PackAndFind(benchmark::State& state) {
  const std::vector<c10::IValue> stack = call_stack();
  adapter::SignatureCache cache;
  {
    adapter::Signature signature;
    adapter::DirectInputs inputs;
    if (!adapter::pack_direct_call(pad_op(), stack, signature, inputs)) {
      state.SkipWithError("the call is not direct");
      return;
    }
    cache.insert(signature, std::make_shared<adapter::Prepared>(), 0);
  }
  for (auto _ : state) {
    adapter::Signature signature;
    adapter::DirectInputs inputs;
    adapter::pack_direct_call(pad_op(), stack, signature, inputs);
    benchmark::DoNotOptimize(cache.find(signature, 0));
  }
}
BENCHMARK(Direct_PackAndFind);

// The direct path's output: one allocation of the final shape, without the dispatcher.
void Direct_AllocateOutputCpu(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(at::detail::empty_cpu({1, 1, 6, 6}, at::kFloat));
  }
}
BENCHMARK(Direct_AllocateOutputCpu);

}  // namespace

BENCHMARK_MAIN();
