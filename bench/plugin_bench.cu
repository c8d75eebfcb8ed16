// Times the example plugins through their IPluginV3 enqueue, and the host cost of enqueue
// against a direct launcher call and an empty kernel launch. Prints one JSON object per run;
// bench/run_benchmarks.py puts these figures beside PyTorch's, Triton's and a device copy's.
#include <autoplugin/autoplugin.h>
#include <autoplugin/backend/trt/convert.h>
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
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
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

// Inputs filled on the device: a hash of the position picks each value, so that runs repeat.
__device__ inline float unit_hash(std::uint64_t i, std::uint32_t seed) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
  h ^= static_cast<std::uint32_t>(i >> 32) * 2246822519u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  h *= 3266489917u;
  h ^= h >> 16;
  return static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
}

template <typename T>
__device__ inline T from_unit(float v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return static_cast<T>(v);
  }
}

// Values in [-2, 2), or (nonzero_fraction >= 0) 1 with that probability and 0 otherwise.
template <typename T>
__global__ void fill_values(T* x, std::int64_t n, float nonzero_fraction) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const float u = unit_hash(static_cast<std::uint64_t>(i), 17u);
    x[i] = from_unit<T>(nonzero_fraction >= 0 ? (u < nonzero_fraction ? 1.0f : 0.0f)
                                              : 4.0f * u - 2.0f);
  }
}

// embedding_bag's indices (uniform over `rows`) and offsets (`per_bag` indices per bag).
template <typename I>
__global__ void fill_bags(I* indices, I* offsets, std::int64_t bags, std::int64_t per_bag,
                          std::int64_t rows) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < bags * per_bag;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    indices[i] = static_cast<I>(unit_hash(static_cast<std::uint64_t>(i), 99u) * rows) % rows;
    if (i < bags) offsets[i] = static_cast<I>(i * per_bag);
  }
}

void fill(void* x, const std::string& dtype, std::int64_t n, float nonzero_fraction) {
  const unsigned blocks = 4096;
  if (dtype == "float32") fill_values<<<blocks, 256>>>(static_cast<float*>(x), n, nonzero_fraction);
  if (dtype == "float16")
    fill_values<<<blocks, 256>>>(static_cast<__half*>(x), n, nonzero_fraction);
  if (dtype == "bfloat16") {
    fill_values<<<blocks, 256>>>(static_cast<__nv_bfloat16*>(x), n, nonzero_fraction);
  }
  if (dtype == "int32") {
    fill_values<<<blocks, 256>>>(static_cast<std::int32_t*>(x), n, nonzero_fraction);
  }
  if (dtype == "int64") {
    fill_values<<<blocks, 256>>>(static_cast<std::int64_t*>(x), n, nonzero_fraction);
  }
  check(cudaGetLastError(), "fill");
}

// What an op is timed on, from `key=value` arguments.
struct Options {
  std::vector<std::int64_t> padding;  // circular_pad, circular_pad_triton
  float nonzero = 1.0f;               // nonzero: the fraction of non-zero elements
  std::int64_t bags = 65536;          // embedding_bag (the shape is the table's)
  std::int64_t per_bag = 32;
  std::string index = "int64";
  std::string mode = "sum";
  bool weighted = false;  // embedding_bag's per_sample_weights
  std::optional<std::int64_t> padding_idx;
  int tactics = 0;  // time tactics 1..tactics (0: the default launcher only)
  int iterations = 50;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (key == "padding")
      o.padding = parse_list(value.c_str());
    else if (key == "nonzero")
      o.nonzero = std::stof(value);
    else if (key == "bags")
      o.bags = std::stoll(value);
    else if (key == "per_bag")
      o.per_bag = std::stoll(value);
    else if (key == "index")
      o.index = value;
    else if (key == "mode")
      o.mode = value;
    else if (key == "weighted")
      o.weighted = value == "1";
    else if (key == "padding_idx")
      o.padding_idx = std::stoll(value);
    else if (key == "tactics")
      o.tactics = std::stoi(value);
    else if (key == "iterations")
      o.iterations = std::stoi(value);
    else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      std::exit(2);
    }
  }
  return o;
}

struct Buffer {
  void* data = nullptr;
  explicit Buffer(std::size_t bytes) {
    check(cudaMalloc(&data, std::max<std::size_t>(bytes, 1)), "malloc");
  }
  ~Buffer() { cudaFree(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

std::size_t bytes_of(const std::string& dtype, std::int64_t n) {
  return static_cast<std::size_t>(n) * ap::dtype_size(*ap::dtype_from_name(dtype));
}

// One op through the plugin's enqueue: prints the median milliseconds (the best tactic's, with
// each tactic's when there are several).
int time_op(const std::string& op, const std::string& dtype, const std::vector<std::int64_t>& shape,
            const Options& o) {
  std::vector<nvinfer1::PluginField> fields;
  if (op == "circular_pad" || op == "circular_pad_triton") {
    fields.emplace_back("padding", o.padding.data(), nvinfer1::PluginFieldType::kINT64,
                        static_cast<std::int32_t>(o.padding.size()));
  }
  const std::string mode = o.mode;  // NUL-terminated for the field
  if (op == "embedding_bag") {
    fields.emplace_back("mode", mode.c_str(), nvinfer1::PluginFieldType::kCHAR,
                        static_cast<std::int32_t>(mode.size() + 1));
    if (o.padding_idx) {
      fields.emplace_back("padding_idx", &*o.padding_idx, nvinfer1::PluginFieldType::kINT64, 1);
    }
  }
  Plugin p = make_plugin(("torchtrt_ex::" + op).c_str(), fields);
  const auto type = trt_dtype(dtype);
  const std::vector<std::int64_t> leading(shape.begin(), shape.end() - (shape.empty() ? 0 : 1));
  std::vector<nvinfer1::PluginTensorDesc> in = {ap::trt::linear_desc(type, shape)};
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> out;  // dtype, extents
  if (op == "circular_pad" || op == "circular_pad_triton") {
    std::vector<std::int64_t> padded = shape;
    for (std::size_t i = 0; i < o.padding.size() / 2; ++i) {
      padded[padded.size() - 1 - i] += o.padding[2 * i] + o.padding[2 * i + 1];
    }
    out = {{dtype, padded}};
  } else if (op == "gelu_tanh") {
    out = {{dtype, shape}};
  } else if (op == "nonzero") {
    // [count, rank] int64 coordinates (sized for every element) and the 0-d count.
    out = {{"int64", {numel(shape), static_cast<std::int64_t>(shape.size())}}, {"int32", {}}};
  } else if (op == "row_sum") {
    out = {{dtype, leading}};
  } else if (op == "row_max") {
    out = {{dtype, leading}, {"int64", leading}};
  } else if (op == "embedding_bag") {
    const auto index_type = trt_dtype(o.index);
    in.push_back(ap::trt::linear_desc(index_type, {o.bags * o.per_bag}));
    in.push_back(ap::trt::linear_desc(index_type, {o.bags}));
    if (o.weighted) in.push_back(ap::trt::linear_desc(type, {o.bags * o.per_bag}));
    out = {{dtype, {o.bags, shape[1]}}};
  } else {
    std::fprintf(stderr, "unknown op %s\n", op.c_str());
    return 2;
  }
  std::vector<nvinfer1::PluginTensorDesc> out_desc;
  for (const auto& [name, extents] : out) {
    std::vector<std::int64_t> dims = extents;
    if (op == "nonzero" && name == "int64") dims[0] = -1;  // data-dependent
    out_desc.push_back(ap::trt::linear_desc(trt_dtype(name), dims));
  }
  const auto nb_in = static_cast<std::int32_t>(in.size());
  const auto nb_out = static_cast<std::int32_t>(out_desc.size());
  if (p.runtime->onShapeChange(in.data(), nb_in, out_desc.data(), nb_out) != 0) return 1;

  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  buffers.push_back(std::make_unique<Buffer>(bytes_of(dtype, numel(shape))));
  inputs.push_back(buffers.back()->data);
  fill(buffers.back()->data, dtype, numel(shape), op == "nonzero" ? o.nonzero : -1.0f);
  if (op == "embedding_bag") {
    buffers.push_back(std::make_unique<Buffer>(bytes_of(o.index, o.bags * o.per_bag)));
    buffers.push_back(std::make_unique<Buffer>(bytes_of(o.index, o.bags)));
    void* indices = buffers[1]->data;
    void* offsets = buffers[2]->data;
    if (o.index == "int32") {
      fill_bags<<<4096, 256>>>(static_cast<std::int32_t*>(indices),
                               static_cast<std::int32_t*>(offsets), o.bags, o.per_bag, shape[0]);
    } else {
      fill_bags<<<4096, 256>>>(static_cast<std::int64_t*>(indices),
                               static_cast<std::int64_t*>(offsets), o.bags, o.per_bag, shape[0]);
    }
    check(cudaGetLastError(), "fill_bags");
    inputs.push_back(indices);
    inputs.push_back(offsets);
    if (o.weighted) {
      buffers.push_back(std::make_unique<Buffer>(bytes_of(dtype, o.bags * o.per_bag)));
      fill(buffers.back()->data, dtype, o.bags * o.per_bag, -1.0f);
      inputs.push_back(buffers.back()->data);
    }
  }
  for (const auto& [name, extents] : out) {
    buffers.push_back(std::make_unique<Buffer>(bytes_of(name, numel(extents))));
    outputs.push_back(buffers.back()->data);
  }
  // Enough for nonzero's flag bits and block counts; the others need none.
  Buffer workspace(static_cast<std::size_t>(numel(shape)) / 8 + (1 << 20));
  check(cudaDeviceSynchronize(), "fill");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  auto time_current = [&] {
    return median_ms(
        [&] {
          if (p.runtime->enqueue(in.data(), out_desc.data(), inputs.data(), outputs.data(),
                                 workspace.data, stream) != 0) {
            std::exit(1);
          }
        },
        stream, o.iterations);
  };
  std::string tactic_text;
  double best = 0;
  if (o.tactics == 0) {
    best = time_current();
  } else {
    for (int t = 1; t <= o.tactics; ++t) {
      if (p.runtime->setTactic(t) != 0) return 1;
      const double ms = time_current();
      best = t == 1 ? ms : std::min(best, ms);
      tactic_text +=
          (t == 1 ? "" : ", ") + ("\"" + std::to_string(t) + "\": ") + std::to_string(ms);
    }
  }
  std::printf("{\"op\": \"%s\", \"dtype\": \"%s\", \"ms\": %.6f, \"tactics\": {%s}}\n", op.c_str(),
              dtype.c_str(), best, tactic_text.c_str());
  check(cudaStreamDestroy(stream), "stream");
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
  if (argc >= 4)
    return time_op(mode, argv[2], parse_list(argv[3]), parse_options(argc - 4, argv + 4));
  std::fprintf(
      stderr,
      "usage: autoplugin_bench overhead [CALLS]\n"
      "       autoplugin_bench OP DTYPE D0,D1,... [padding=P0,P1,...] [nonzero=FRACTION]\n"
      "                        [bags=N] [per_bag=N] [index=int32|int64] [mode=sum|mean|max]\n"
      "                        [weighted=0|1] [padding_idx=N]\n"
      "                        [tactics=N] [iterations=N]\n"
      "  OP: circular_pad, circular_pad_triton, gelu_tanh, nonzero, row_sum, row_max,\n"
      "      embedding_bag (D0,D1: the table's rows and width)\n");
  return 2;
}
