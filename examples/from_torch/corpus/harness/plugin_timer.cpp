// Times a plugin library's enqueue per tactic the way TensorRT's builder does, without TensorRT's
// runtime: dlopen + getCreators, createPlugin for kBUILD, configurePlugin, getValidTactics and
// getWorkspaceSize, then per tactic setTactic, onShapeChange and back-to-back enqueues between
// two events. Prints one JSON object: {"workspace": BYTES, "enqueues": N, "tactics": {"TACTIC":
// MS, ...}} (MS: the median batch's time per enqueue; N: the enqueues per tactic; tactic 0 where
// the plugin lists none). The same code, built as a module (plugin_timer_run), runs inside the
// benchmark's Python process, where the profiler reads each tactic's kernel time.
//
//   plugin_timer LIB NS::OP [--in DTYPE:SHAPE[@HIGH]]... [--out DTYPE:SHAPE]... [--alias OUT=IN]...
//                [--int NAME=1,2] [--float NAME=0.5] [--str NAME=TEXT] [--tactic N]
// shapes as 2x3x8; dtypes float32, float16, bfloat16, float8_e4m3fn, int8, int32, int64. Inputs
// are filled with the byte 0x3c (small finite values in every float type: 1.5 in float8); an int32
// or int64 input given @HIGH holds integers spread over [0, HIGH) instead (labels, indices the
// kernel reads through). An aliased output (an in-place op) shares its input's memory.
#include "plugin_loading.h"

#include <algorithm>
#include <deque>
#include <map>

const char* const plugin_loading::kProgram = "plugin_timer";

namespace {

using namespace plugin_loading;

struct TensorSpec {
  nvinfer1::DataType type;
  std::size_t element;
  std::vector<std::int64_t> shape;
  std::int64_t high = 0;  // > 0: integers in [0, high)
};

TensorSpec parse_tensor(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) fail("expected DTYPE:SHAPE, got '" + text + "'");
  static const std::map<std::string, std::pair<nvinfer1::DataType, std::size_t>> types = {
      {"float32", {nvinfer1::DataType::kFLOAT, 4}},
      {"float16", {nvinfer1::DataType::kHALF, 2}},
      {"bfloat16", {nvinfer1::DataType::kBF16, 2}},
      {"float8_e4m3fn", {nvinfer1::DataType::kFP8, 1}},
      {"int8", {nvinfer1::DataType::kINT8, 1}},
      {"int32", {nvinfer1::DataType::kINT32, 4}},
      {"int64", {nvinfer1::DataType::kINT64, 8}}};
  const auto found = types.find(text.substr(0, colon));
  if (found == types.end()) fail("unknown dtype in '" + text + "'");
  const std::size_t at = text.find('@', colon);
  TensorSpec spec{found->second.first, found->second.second,
                  parse_ints(text.substr(colon + 1, at == std::string::npos ? std::string::npos
                                                                            : at - colon - 1),
                             'x')};
  if (at != std::string::npos) {
    const auto high = parse_ints(text.substr(at + 1), ',');
    if (high.size() != 1 || high[0] <= 0) fail("expected @HIGH > 0 in '" + text + "'");
    if (spec.type != nvinfer1::DataType::kINT32 && spec.type != nvinfer1::DataType::kINT64) {
      fail("@HIGH is for int32 and int64 inputs, in '" + text + "'");
    }
    spec.high = high[0];
  }
  return spec;
}

// Integers spread over [0, high) (a multiplicative walk, so that neighbours differ).
void fill_integers(void* device, const TensorSpec& spec) {
  const auto count = static_cast<std::size_t>(std::max<std::int64_t>(1, numel(spec.shape)));
  std::vector<std::int64_t> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = static_cast<std::int64_t>((i * 7919u + 13u) % static_cast<std::size_t>(spec.high));
  }
  if (spec.type == nvinfer1::DataType::kINT64) {
    check(cudaMemcpy(device, values.data(), count * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
    return;
  }
  std::vector<std::int32_t> narrow(values.begin(), values.end());
  check(cudaMemcpy(device, narrow.data(), count * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
}

nvinfer1::PluginTensorDesc describe(const TensorSpec& spec) {
  return plugin_loading::describe(spec.shape, spec.type);
}

constexpr int kWarmup = 20;
constexpr int kBatch = 50;
constexpr int kRounds = 9;

nvinfer1::DynamicPluginTensorDesc describe_dynamic(const TensorSpec& spec) {
  nvinfer1::DynamicPluginTensorDesc desc{};
  desc.desc = describe(spec);
  desc.min = desc.opt = desc.max = desc.desc.dims;
  return desc;
}

}  // namespace

// Times the plugin as main() describes; writes the JSON object into `json` (NUL-terminated,
// cut at `capacity`). Returns 0, or 2 on a usage error; other errors exit the process.
extern "C" int plugin_timer_run(int argc, char** argv, char* json, std::size_t capacity) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: plugin_timer LIB NS::OP [--in DTYPE:SHAPE]... [--out DTYPE:SHAPE]... "
                 "[--alias OUT=IN]... [--int NAME=1,2] [--float NAME=0.5] [--str NAME=TEXT] "
                 "[--tactic N]\n");
    return 2;
  }
  std::vector<TensorSpec> in_specs, out_specs;
  int only_tactic = -1;
  std::map<int, int> aliases;
  // Fields as TensorRT's ONNX parser sends them: integers as INT64 lists, floats as FLOAT32,
  // strings as CHAR with the NUL counted. Deques keep the values' addresses stable.
  std::deque<std::string> names, strings;
  std::deque<std::vector<std::int64_t>> ints;
  std::deque<float> floats;
  std::vector<nvinfer1::PluginField> fields;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    const std::size_t equals = value.find('=');
    if (flag == "--in") {
      in_specs.push_back(parse_tensor(value));
    } else if (flag == "--out") {
      out_specs.push_back(parse_tensor(value));
    } else if (flag == "--alias") {
      aliases[std::atoi(value.substr(0, equals).c_str())] =
          std::atoi(value.substr(equals + 1).c_str());
    } else if (flag == "--int") {
      names.push_back(value.substr(0, equals));
      ints.push_back(parse_ints(value.substr(equals + 1), ','));
      fields.emplace_back(names.back().c_str(), ints.back().data(),
                          nvinfer1::PluginFieldType::kINT64,
                          static_cast<std::int32_t>(ints.back().size()));
    } else if (flag == "--float") {
      names.push_back(value.substr(0, equals));
      floats.push_back(std::strtof(value.substr(equals + 1).c_str(), nullptr));
      fields.emplace_back(names.back().c_str(), &floats.back(), nvinfer1::PluginFieldType::kFLOAT32,
                          1);
    } else if (flag == "--tactic") {
      only_tactic = std::atoi(value.c_str());
    } else if (flag == "--str") {
      names.push_back(value.substr(0, equals));
      strings.push_back(value.substr(equals + 1));
      fields.emplace_back(names.back().c_str(), strings.back().c_str(),
                          nvinfer1::PluginFieldType::kCHAR,
                          static_cast<std::int32_t>(strings.back().size() + 1));
    } else {
      fail("unknown option " + flag);
    }
  }

  auto* creator = find_creator(argv[1], argv[2]);
  const nvinfer1::PluginFieldCollection collection{static_cast<std::int32_t>(fields.size()),
                                                   fields.data()};
  nvinfer1::IPluginV3* plugin =
      creator->createPlugin("timer", &collection, nvinfer1::TensorRTPhase::kBUILD);
  if (plugin == nullptr) fail("createPlugin failed");
  auto* build = static_cast<nvinfer1::IPluginV3OneBuild*>(
      plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kBUILD));
  auto* runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(
      plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
  if (build == nullptr || runtime == nullptr)
    fail("the plugin lacks the build or runtime interface");

  std::vector<nvinfer1::PluginTensorDesc> in_desc, out_desc;
  std::vector<nvinfer1::DynamicPluginTensorDesc> in_dynamic, out_dynamic;
  for (const auto& spec : in_specs) {
    in_desc.push_back(describe(spec));
    in_dynamic.push_back(describe_dynamic(spec));
  }
  for (const auto& spec : out_specs) {
    out_desc.push_back(describe(spec));
    out_dynamic.push_back(describe_dynamic(spec));
  }
  const auto n_in = static_cast<std::int32_t>(in_specs.size());
  const auto n_out = static_cast<std::int32_t>(out_specs.size());
  if (build->configurePlugin(in_dynamic.data(), n_in, out_dynamic.data(), n_out) != 0) {
    fail("configurePlugin failed");
  }
  const std::size_t workspace_size =
      build->getWorkspaceSize(in_dynamic.data(), n_in, out_dynamic.data(), n_out);
  std::vector<std::int32_t> tactics(static_cast<std::size_t>(std::max(0, build->getNbTactics())));
  if (!tactics.empty() &&
      build->getValidTactics(tactics.data(), static_cast<std::int32_t>(tactics.size())) != 0) {
    fail("getValidTactics failed");
  }
  if (tactics.empty()) tactics.push_back(0);
  if (only_tactic >= 0) {
    if (std::find(tactics.begin(), tactics.end(), only_tactic) == tactics.end()) {
      fail("--tactic " + std::to_string(only_tactic) + ": not one of the plugin's tactics");
    }
    tactics = {only_tactic};
  }

  std::vector<void*> in_ptrs, out_ptrs;
  for (const auto& spec : in_specs) {
    void* p = nullptr;
    const auto bytes =
        static_cast<std::size_t>(std::max<std::int64_t>(1, numel(spec.shape))) * spec.element;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    if (spec.high > 0) {
      fill_integers(p, spec);
    } else {
      check(cudaMemset(p, 0x3c, bytes), "cudaMemset");
    }
    in_ptrs.push_back(p);
  }
  for (std::size_t j = 0; j < out_specs.size(); ++j) {
    const auto alias = aliases.find(static_cast<int>(j));
    if (alias != aliases.end()) {
      out_ptrs.push_back(in_ptrs.at(static_cast<std::size_t>(alias->second)));
      continue;
    }
    void* p = nullptr;
    check(cudaMalloc(
              &p, static_cast<std::size_t>(std::max<std::int64_t>(1, numel(out_specs[j].shape))) *
                      out_specs[j].element),
          "cudaMalloc");
    out_ptrs.push_back(p);
  }
  void* workspace = nullptr;
  if (workspace_size > 0) check(cudaMalloc(&workspace, workspace_size), "cudaMalloc");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  std::string text;
  for (const std::int32_t tactic : tactics) {
    if (runtime->setTactic(tactic) != 0) fail("setTactic(" + std::to_string(tactic) + ") failed");
    if (runtime->onShapeChange(in_desc.data(), n_in, out_desc.data(), n_out) != 0) {
      fail("onShapeChange failed");
    }
    auto enqueue = [&] {
      if (runtime->enqueue(in_desc.data(), out_desc.data(), in_ptrs.data(), out_ptrs.data(),
                           workspace, stream) != 0) {
        fail("enqueue failed (tactic " + std::to_string(tactic) + ")");
      }
    };
    for (int i = 0; i < kWarmup; ++i) enqueue();
    std::vector<double> batches;
    for (int round = 0; round < kRounds; ++round) {
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      for (int i = 0; i < kBatch; ++i) enqueue();
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      batches.push_back(ms / kBatch);
    }
    std::sort(batches.begin(), batches.end());
    char entry[64];
    std::snprintf(entry, sizeof entry, "\"%d\": %.6f", tactic, batches[batches.size() / 2]);
    text += (text.empty() ? "" : ", ") + std::string(entry);
  }
  std::snprintf(json, capacity, "{\"workspace\": %zu, \"enqueues\": %d, \"tactics\": {%s}}",
                workspace_size, kWarmup + kRounds * kBatch, text.c_str());
  delete plugin;
  return 0;
}
