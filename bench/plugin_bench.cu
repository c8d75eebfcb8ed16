// Times the example plugins through their IPluginV3 enqueue, and the host cost of enqueue
// against a direct launcher call and an empty kernel launch. Prints one JSON object per run;
// bench/run_benchmarks.py puts these figures beside PyTorch's, Triton's and a device copy's.
#include <autoplugin/autoplugin.h>
#include <autoplugin/trt/detail/convert.h>
#include <autoplugin/trt/plugin.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor_desc.h"

namespace ap = autoplugin;

// The example's launcher, called directly for the overhead comparison.
template <typename T>
cudaError_t gelu_tanh(ap::In<T> x, ap::Out<T> y, cudaStream_t stream);

namespace {

__global__ void empty_kernel() {}

void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
    std::exit(1);
  }
}

std::vector<std::int64_t> parse_list(const char* text) {
  std::vector<std::int64_t> values;
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    values.push_back(std::strtoll(p, &end, 10));
    p = *end == ',' ? end + 1 : end;
  }
  return values;
}

nvinfer1::DataType trt_dtype(const std::string& name) {
  return *ap::trt::to_trt(*ap::dtype_from_name(name));
}

std::int64_t numel(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

struct Plugin {
  std::unique_ptr<nvinfer1::IPluginV3> plugin;
  nvinfer1::IPluginV3OneRuntime* runtime;
};

Plugin make_plugin(const char* op, std::vector<nvinfer1::PluginField> fields) {
  auto* creator = ap::trt::creator_for(op);
  if (creator == nullptr) {
    std::fprintf(stderr, "no creator for %s\n", op);
    std::exit(1);
  }
  const nvinfer1::PluginFieldCollection fc{static_cast<std::int32_t>(fields.size()), fields.data()};
  Plugin p;
  p.plugin.reset(creator->createPlugin("bench", &fc, nvinfer1::TensorRTPhase::kRUNTIME));
  p.runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(
      p.plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
  return p;
}

// Median milliseconds of `run` over `iterations` timed calls, after warm-up.
template <typename Run>
double median_ms(Run&& run, cudaStream_t stream, int iterations) {
  for (int i = 0; i < 5; ++i) run();
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::vector<float> times;
  for (int i = 0; i < iterations; ++i) {
    check(cudaEventRecord(start, stream), "record");
    run();
    check(cudaEventRecord(stop, stream), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// circular_pad, circular_pad_triton, gelu_tanh or nonzero through the plugin's enqueue.
int time_op(const std::string& op, const std::string& dtype, const std::vector<std::int64_t>& shape,
            const std::vector<std::int64_t>& padding, int iterations) {
  std::vector<std::int64_t> out_shape = shape;
  std::vector<nvinfer1::PluginField> fields;
  if (op == "circular_pad" || op == "circular_pad_triton") {
    for (std::size_t i = 0; i < padding.size() / 2; ++i) {
      out_shape[out_shape.size() - 1 - i] += padding[2 * i] + padding[2 * i + 1];
    }
    fields.emplace_back("padding", padding.data(), nvinfer1::PluginFieldType::kINT64,
                        static_cast<std::int32_t>(padding.size()));
  }
  Plugin p = make_plugin(("torchtrt_ex::" + op).c_str(), fields);
  const auto type = trt_dtype(dtype);
  const auto in = ap::trt::linear_desc(type, shape);
  const std::size_t element = ap::dtype_size(*ap::dtype_from_name(dtype));
  // nonzero: [count, rank] int64 coordinates (sized for every element) and the 0-d count.
  const bool coordinates = op == "nonzero";
  std::vector<nvinfer1::PluginTensorDesc> out;
  if (coordinates) {
    out_shape = {numel(shape), static_cast<std::int64_t>(shape.size())};
    out = {ap::trt::linear_desc(nvinfer1::DataType::kINT64, {-1, out_shape[1]}),
           ap::trt::linear_desc(nvinfer1::DataType::kINT32, {})};
  } else {
    out = {ap::trt::linear_desc(type, out_shape)};
  }
  const auto nb_out = static_cast<std::int32_t>(out.size());
  if (p.runtime->onShapeChange(&in, 1, out.data(), nb_out) != 0) return 1;
  const std::size_t out_element = coordinates ? sizeof(std::int64_t) : element;
  void* x = nullptr;
  void* y = nullptr;
  void* count = nullptr;
  void* workspace = nullptr;
  check(cudaMalloc(&x, numel(shape) * element), "malloc");
  check(cudaMalloc(&y, numel(out_shape) * out_element), "malloc");
  check(cudaMalloc(&count, sizeof(std::int32_t)), "malloc");
  check(cudaMalloc(&workspace, 1 << 20), "malloc");
  // Non-zero everywhere (0x3c bytes): the worst case for nonzero's output.
  check(cudaMemset(x, 0x3c, numel(shape) * element), "memset");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  const void* inputs[] = {x};
  void* outputs[] = {y, count};
  const double ms = median_ms(
      [&] {
        if (p.runtime->enqueue(&in, out.data(), inputs, outputs, workspace, stream) != 0) {
          std::exit(1);
        }
      },
      stream, iterations);
  std::printf("{\"op\": \"%s\", \"dtype\": \"%s\", \"ms\": %.6f}\n", op.c_str(), dtype.c_str(), ms);
  cudaFree(x);
  cudaFree(y);
  cudaFree(count);
  cudaFree(workspace);
  return 0;
}

// Host microseconds per call, on tiny tensors: what a call costs the CPU thread. Launch costs
// drift while the process warms up, so the variants are measured in interleaved rounds after a
// warm-up, and each one's median round is reported.
int time_overhead(int calls) {
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  float* x = nullptr;
  float* y = nullptr;
  check(cudaMalloc(&x, sizeof(float)), "malloc");
  check(cudaMalloc(&y, sizeof(float)), "malloc");
  Plugin gelu = make_plugin("torchtrt_ex::gelu_tanh", {});
  const auto in = ap::trt::linear_desc(nvinfer1::DataType::kFLOAT, {1});
  if (gelu.runtime->onShapeChange(&in, 1, &in, 1) != 0) return 1;
  const void* inputs[] = {x};
  void* outputs[] = {y};
  const std::int64_t one = 1;
  // circular_pad on [1, 1]: the CUDA kernel's plugin, and the Triton kernel's (driver API launch).
  const std::vector<std::int64_t> no_padding = {0, 0};
  const std::vector<nvinfer1::PluginField> pad_fields = {
      {"padding", no_padding.data(), nvinfer1::PluginFieldType::kINT64, 2}};
  const auto pad_desc = ap::trt::linear_desc(nvinfer1::DataType::kFLOAT, {1, 1});
  Plugin pad = make_plugin("torchtrt_ex::circular_pad", pad_fields);
  Plugin pad_triton = make_plugin("torchtrt_ex::circular_pad_triton", pad_fields);
  for (Plugin* p : {&pad, &pad_triton}) {
    if (p->runtime->onShapeChange(&pad_desc, 1, &pad_desc, 1) != 0) return 1;
  }
  struct Variant {
    const char* key;
    std::function<void()> call;
    std::vector<double> rounds;
  };
  std::vector<Variant> variants = {
      {"empty_launch_us", [&] { empty_kernel<<<1, 1, 0, stream>>>(); }, {}},
      {"direct_call_us",
       [&] {
         gelu_tanh<float>(ap::In<float>(x, {&one, 1}), ap::Out<float>(y, {&one, 1}), stream);
       },
       {}},
      {"plugin_enqueue_us",
       [&] { gelu.runtime->enqueue(&in, &in, inputs, outputs, nullptr, stream); },
       {}},
      {"circular_pad_enqueue_us",
       [&] { pad.runtime->enqueue(&pad_desc, &pad_desc, inputs, outputs, nullptr, stream); },
       {}},
      {"circular_pad_triton_enqueue_us",
       [&] { pad_triton.runtime->enqueue(&pad_desc, &pad_desc, inputs, outputs, nullptr, stream); },
       {}},
  };
  auto host_us = [&](const std::function<void()>& call) {
    double total = 0;
    for (int i = 0; i < calls; ++i) {
      if (i % 256 == 0) check(cudaStreamSynchronize(stream), "sync");  // never a full queue
      const auto start = std::chrono::steady_clock::now();
      call();
      total += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                   .count();
    }
    check(cudaStreamSynchronize(stream), "sync");
    return total / calls;
  };
  for (int warm_up = 0; warm_up < 3; ++warm_up) {
    for (Variant& v : variants) host_us(v.call);
  }
  for (int round = 0; round < 7; ++round) {
    for (Variant& v : variants) v.rounds.push_back(host_us(v.call));
  }
  std::printf("{");
  for (std::size_t i = 0; i < variants.size(); ++i) {
    auto& rounds = variants[i].rounds;
    std::sort(rounds.begin(), rounds.end());
    std::printf("%s\"%s\": %.3f", i == 0 ? "" : ", ", variants[i].key, rounds[rounds.size() / 2]);
  }
  std::printf("}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "overhead") return time_overhead(argc > 2 ? std::atoi(argv[2]) : 5000);
  if ((mode == "circular_pad" || mode == "circular_pad_triton" || mode == "gelu_tanh" ||
       mode == "nonzero") &&
      argc >= 4) {
    const std::vector<std::int64_t> padding =
        argc > 4 ? parse_list(argv[4]) : std::vector<std::int64_t>{};
    return time_op(mode, argv[2], parse_list(argv[3]), padding, argc > 5 ? std::atoi(argv[5]) : 50);
  }
  std::fprintf(stderr,
               "usage: autoplugin_bench overhead [CALLS]\n"
               "       autoplugin_bench circular_pad|circular_pad_triton|gelu_tanh|nonzero DTYPE "
               "D0,D1,... [PADDING] [ITERATIONS]\n");
  return 2;
}
