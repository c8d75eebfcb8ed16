// Times a plugin library's enqueue the way TensorRT calls it, without TensorRT's runtime: the
// library is opened with dlopen, its creator found through getCreators, the plugin created for
// kRUNTIME from fields, then onShapeChange and enqueue. Prints one JSON object:
//   device_ms  GPU time per enqueue (events around a batch of back-to-back calls, median batch)
//   host_us    CPU time per enqueue call (median of rounds; a stream sync every 256 calls)
//
//   enqueue_bench LIB NS::OP DTYPE IN_SHAPE OUT_SHAPE [name=i:1,2,... | name=f:0.5 ...]
// shapes as 2x3x8x8; dtype float32 or float16 (the output has the input's dtype).
#include "plugin_loading.h"

#include <chrono>

const char* const plugin_loading::kProgram = "enqueue_bench";

namespace {

using namespace plugin_loading;

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(
        stderr,
        "usage: enqueue_bench LIB NS::OP DTYPE IN_SHAPE OUT_SHAPE [name=i:1,2 | name=f:0.5 ...]\n");
    return 2;
  }
  const std::string dtype = argv[3];
  const auto type = dtype == "float16" ? nvinfer1::DataType::kHALF : nvinfer1::DataType::kFLOAT;
  const std::size_t element = dtype == "float16" ? 2 : 4;
  const auto in_shape = parse_ints(argv[4], 'x');
  const auto out_shape = parse_ints(argv[5], 'x');

  // Attributes as fields: integer lists as INT64, floats as FLOAT32 (the ONNX parser's form).
  std::vector<std::string> names;
  std::vector<std::vector<std::int64_t>> ints;
  std::vector<float> floats;
  names.reserve(argc);
  ints.reserve(argc);
  floats.reserve(argc);
  std::vector<nvinfer1::PluginField> fields;
  for (int i = 6; i < argc; ++i) {
    const std::string spec = argv[i];
    const std::size_t equals = spec.find('=');
    names.push_back(spec.substr(0, equals));
    const std::string value = spec.substr(equals + 3);
    if (spec.compare(equals + 1, 2, "i:") == 0) {
      ints.push_back(parse_ints(value, ','));
      fields.emplace_back(names.back().c_str(), ints.back().data(),
                          nvinfer1::PluginFieldType::kINT64,
                          static_cast<std::int32_t>(ints.back().size()));
    } else {
      floats.push_back(std::strtof(value.c_str(), nullptr));
      fields.emplace_back(names.back().c_str(), &floats.back(), nvinfer1::PluginFieldType::kFLOAT32,
                          1);
    }
  }
  auto* creator = find_creator(argv[1], argv[2]);
  const nvinfer1::PluginFieldCollection collection{static_cast<std::int32_t>(fields.size()),
                                                   fields.data()};
  nvinfer1::IPluginV3* plugin =
      creator->createPlugin("bench", &collection, nvinfer1::TensorRTPhase::kRUNTIME);
  if (plugin == nullptr) fail("createPlugin failed");
  auto* runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(
      plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
  const auto in = describe(in_shape, type);
  const auto out = describe(out_shape, type);
  if (runtime->onShapeChange(&in, 1, &out, 1) != 0) fail("onShapeChange failed");

  void* x = nullptr;
  void* y = nullptr;
  check(cudaMalloc(&x, std::max<std::int64_t>(1, numel(in_shape)) * element), "cudaMalloc");
  check(cudaMalloc(&y, std::max<std::int64_t>(1, numel(out_shape)) * element), "cudaMalloc");
  check(cudaMemset(x, 0x3c, numel(in_shape) * element), "cudaMemset");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const void* inputs[] = {x};
  void* outputs[] = {y};
  auto enqueue = [&] {
    if (runtime->enqueue(&in, &out, inputs, outputs, nullptr, stream) != 0) fail("enqueue failed");
  };

  // Device time: batches of back-to-back calls between two events.
  for (int i = 0; i < 20; ++i) enqueue();
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  constexpr int kBatch = 50;
  std::vector<double> batches;
  for (int round = 0; round < 9; ++round) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < kBatch; ++i) enqueue();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    batches.push_back(ms / kBatch);
  }
  std::sort(batches.begin(), batches.end());

  // Host time per call.
  std::vector<double> rounds;
  constexpr int kCalls = 2000;
  for (int round = 0; round < 7; ++round) {
    double total = 0;
    for (int i = 0; i < kCalls; ++i) {
      if (i % 256 == 0) check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      const auto begin = std::chrono::steady_clock::now();
      enqueue();
      total += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin)
                   .count();
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    rounds.push_back(total / kCalls);
  }
  std::sort(rounds.begin(), rounds.end());
  std::printf("{\"device_ms\": %.6f, \"host_us\": %.3f}\n", batches[batches.size() / 2],
              rounds[rounds.size() / 2]);
  delete plugin;
  cudaFree(x);
  cudaFree(y);
  return 0;
}
