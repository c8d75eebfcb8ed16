// One case through TensorRT's plugin lifecycle: build phase (on the CPU), execution and
// serialization (enqueue on a GPU), each step reported with what the plugin logged.
#pragma once

#include <NvInferRuntime.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "case.h"
#include "expr_builder.h"
#include "isolation.h"
#include "library.h"
#include "report.h"
#include "resource_context.h"
#include "tensors.h"

namespace autoplugin::check {

struct Options {
  std::string library;
  std::string op;
  std::string version;
  std::vector<CheckCase> cases;
  std::string reference;
  std::string reference_op;  // another op of the library whose outputs are the reference
  // A TensorRT runtime library whose plugin registry loads the plugin library (--tensorrt);
  // empty: check loads it itself.
  std::string tensorrt_runtime;
  bool cpu_only = false;
  bool no_gpu_here = false;           // this machine has no usable GPU (not merely --cpu)
  std::chrono::seconds timeout{300};  // per case
  bool json = false;
  // On a GPU, each enqueue is also captured into a CUDA graph and replayed (--no-cuda-graph).
  bool cuda_graph = true;
  std::uint64_t seed = 1;
  // The concurrency run after the cases (--threads): 0 threads for none.
  int threads = 0;
  int contexts = 1;  // execution contexts per thread
  std::chrono::seconds concurrency_duration{10};
};

struct PluginDeleter {
  void operator()(nvinfer1::IPluginV3* p) const { delete p; }
};
using PluginPtr = std::unique_ptr<nvinfer1::IPluginV3, PluginDeleter>;

// One enqueue as the serial run made it, for the concurrency run to repeat: the runtime plugin
// (deserialized, tactic set; execution contexts attach to it) and what it was given and returned.
struct Launch {
  std::vector<nvinfer1::PluginTensorDesc> in_descs, out_descs;
  std::vector<HostTensor> inputs;
  std::vector<std::size_t> output_bytes;  // allocated (data-dependent outputs: their upper bound)
  std::vector<HostTensor> outputs;        // data-dependent ones cut to their actual extents
  std::size_t workspace = 0;
};
struct LaunchRecipe {
  PluginPtr plugin;
  Launch launch;
};

class CaseRun {
 public:
  CaseRun(const Options& options, const CheckCase& c, PluginLibrary& library,
          CapturingLogger& logger, Report& report, bool gpu, ProgressChannel* progress = nullptr)
      : options_(options),
        case_(c),
        library_(library),
        logger_(logger),
        report_(report),
        gpu_(gpu),
        progress_(progress) {}

  void run();
  // After run(): the runtime plugin and its launch at opt, when the serial run got that far
  // (kept only when asked for before run(), since it keeps the plugin alive).
  void keep_launch_recipe() { keep_recipe_ = true; }
  std::optional<LaunchRecipe> take_launch_recipe() { return std::move(recipe_); }

 private:
  // Runs one step; a false result or an exception fails it, with what the plugin logged.
  bool step(const std::string& name, const std::function<std::string()>& body);
  void fail(std::size_t at, const std::string& name, const std::string& detail);

  bool create_build_plugin();
  std::string string_form_hint() const;
  bool check_capabilities();
  bool output_types_and_shapes();
  void formats();
  bool configure();
  void tactics_and_runs();
  void serialization();

  // Concrete descriptions at one point of the profile (as onShapeChange and enqueue get them).
  nvinfer1::PluginTensorDesc input_desc(std::size_t k, Point point = Point::Opt) const;
  std::vector<nvinfer1::PluginTensorDesc> output_descs(Point point = Point::Opt) const;
  // What the build phase gets: the case's profile, desc.dims -1 where it is dynamic; or a
  // profile fixed at one point.
  struct ProfileDescs {
    std::vector<nvinfer1::DynamicPluginTensorDesc> in, out;
  };
  ProfileDescs profile_descs(std::optional<Point> fixed) const;
  bool dynamic_profile() const;
  // A FAIL text for a negative extent or an output too large for int64 bytes; "" when none.
  std::string extent_problem() const;
  // A FAIL text for an absurd workspace, one that shrinks as shapes grow or one smaller than a
  // profile fixed at one of its points asks for; "" when none.
  std::string workspace_problem(std::size_t bytes, const std::map<Point, std::size_t>& fixed) const;
  std::map<std::string, std::int64_t> bindings(Point point) const;
  // The case's input at position `p` of what TensorRT passes (absent inputs are not passed).
  const InputSpec& passed_input(std::size_t p) const { return case_.inputs[present_[p]]; }
  // An output's extents for `bindings`, -1 where data-dependent.
  std::vector<std::int64_t> extents(const nvinfer1::DimsExprs& e,
                                    const std::map<std::string, std::int64_t>& bindings) const;
  // The dtype's default tolerance, with the case's atol and rtol where it gives them.
  Tolerance case_tolerance(DType dtype) const;
  // An output that should equal `expected` bit for bit and does not. Where the plugin's runs agree
  // among themselves (`runs_vary` false) that fails: "output N" + `differs` + `reproduced`. A
  // kernel whose result changes from run to run (floating-point atomics in no fixed order) cannot
  // match bitwise: then each of `runs` is compared with `expected` within the case's tolerance and
  // `note` is reported. Returns the FAIL text, "" when it passes.
  // Where outputs change from run to run beyond the tolerance: the integer input that repeats
  // values, if any (a race on a repeated index), and how to draw it without repeats.
  std::string repeated_index_hint() const;
  std::string unequal_output(int output, const std::vector<const HostTensor*>& runs,
                             const HostTensor& expected, bool runs_vary, const std::string& differs,
                             const std::string& reproduced, const std::string& note);
  std::optional<std::vector<HostTensor>> execute(nvinfer1::IPluginV3& plugin,
                                                 const std::string& label, Point point);
  std::optional<std::vector<HostTensor>> reference_outputs();

  const Options& options_;
  const CheckCase& case_;
  PluginLibrary& library_;
  CapturingLogger& logger_;
  Report& report_;
  bool gpu_;
  ProgressChannel* progress_;  // tells the parent process how far the case got; may be null

  nvinfer1::IPluginCreatorV3One* creator_ = nullptr;
  PluginPtr plugin_;
  std::vector<std::size_t> present_;  // the case's inputs TensorRT passes, in order
  int nb_inputs_ = 0;
  int nb_outputs_ = 0;
  std::vector<nvinfer1::DataType> input_types_, output_types_;
  trt::RecordingExprBuilder exprs_;
  std::vector<nvinfer1::DimsExprs> output_exprs_;
  std::vector<std::vector<std::int64_t>> predicted_;  // at opt; -1 where data-dependent
  std::map<std::int32_t, std::int64_t> size_uppers_;  // output index -> upper bound at opt
  std::vector<std::int32_t> tactics_{0};
  std::size_t workspace_ = 0;
  std::vector<HostTensor> inputs_;  // one per passed input
  std::optional<std::vector<HostTensor>> first_outputs_;
  // While set (an attached plugin is alive), what the plugin reports through its error recorder
  // fails the step it was reported in.
  const CheckResourceContext* resource_context_ = nullptr;
  bool keep_recipe_ = false;
  std::optional<Launch> last_launch_;  // the latest successful execute(), when keep_recipe_
  std::optional<LaunchRecipe> recipe_;
};

}  // namespace autoplugin::check
