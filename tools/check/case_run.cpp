#include "case_run.h"

#include <autoplugin/error.h>
#include <autoplugin/trt/plugin.h>

#include <cstring>
#include <random>
#include <set>
#include <sstream>

#include "capabilities.h"
#include "fields.h"
#include "tensor_desc.h"
#include "trt_text.h"

namespace autoplugin::check {

using nvinfer1::DataType;
using trt::build_of;
using trt::core_of;
using trt::dims_of;
using trt::linear_desc;
using trt::runtime_of;

void CaseRun::fail(std::size_t at, const std::string& name, const std::string& detail) {
  std::string text = detail;
  for (const auto& line : logger_.take()) text += "\nplugin log: " + line;
  report_.insert(at, Report::Status::Failed, name, text);
}

bool CaseRun::step(const std::string& name, const std::function<std::string()>& body) {
  const std::size_t at = report_.mark();
  if (progress_) progress_->step_started(name);
  bool passed = false;
  try {
    std::string problem = body();
    if (!problem.empty()) {
      fail(at, name, problem);
    } else {
      report_.insert(at, Report::Status::Passed, name);
      for (const auto& line : logger_.take()) report_.info(name, "plugin log: " + line);
      passed = true;
    }
  } catch (const std::exception& e) {
    fail(at, name, e.what());
  }
  if (progress_) progress_->result(report_.last_case_json());
  return passed;
}

std::map<std::string, std::int64_t> CaseRun::bindings(int which) const {
  std::map<std::string, std::int64_t> values;
  for (std::size_t k = 0; k < case_.inputs.size(); ++k) {
    const InputSpec& in = case_.inputs[k];
    const auto& dims = which == 0 ? in.min : which == 1 ? in.opt : in.max;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      values["in" + std::to_string(k) + "[" + std::to_string(i) + "]"] = dims[i];
    }
  }
  for (std::size_t k = 0; k < case_.shape_inputs.size(); ++k) {
    for (std::size_t i = 0; i < case_.shape_inputs[k].size(); ++i) {
      values["shape" + std::to_string(k) + "[" + std::to_string(i) + "]"] =
          case_.shape_inputs[k][i];
    }
  }
  return values;
}

bool CaseRun::create_build_plugin() {
  return step("createPlugin(kBUILD)", [&]() -> std::string {
    creator_ = &library_.find(options_.op, options_.version);
    Fields fields = make_fields(*creator_, case_.attributes, report_);
    plugin_.reset(
        creator_->createPlugin("check", fields.collection(), nvinfer1::TensorRTPhase::kBUILD));
    return plugin_ ? "" : "the creator returned no plugin";
  });
}

bool CaseRun::check_capabilities() {
  return step("capabilities", [&]() -> std::string {
    auto* core = core_of(*plugin_);
    auto* build = build_of(*plugin_);
    auto* runtime = runtime_of(*plugin_);
    if (!core || !build || !runtime) {
      return std::string(
                 "a plugin made for the build phase returns all three interfaces; missing:") +
             (core ? "" : " kCORE") + (build ? "" : " kBUILD") + (runtime ? "" : " kRUNTIME");
    }
    auto kind_is = [](nvinfer1::IPluginCapability* c, const char* kind) {
      return std::strcmp(c->getInterfaceInfo().kind, kind) == 0;
    };
    if (!kind_is(core, "PLUGIN_V3ONE_CORE") || !kind_is(build, "PLUGIN_V3ONE_BUILD") ||
        !kind_is(runtime, "PLUGIN_V3ONE_RUNTIME")) {
      return "getCapabilityInterface returned interfaces of the wrong kind";
    }
    if (std::strcmp(core->getPluginName(), creator_->getPluginName()) != 0 ||
        std::strcmp(core->getPluginVersion(), creator_->getPluginVersion()) != 0 ||
        std::strcmp(core->getPluginNamespace(), creator_->getPluginNamespace()) != 0) {
      return "the plugin's name, version or namespace differs from its creator's";
    }
    return "";
  });
}

bool CaseRun::output_types_and_shapes() {
  auto* build = build_of(*plugin_);
  nb_inputs_ = static_cast<int>(case_.inputs.size());
  nb_outputs_ = build->getNbOutputs();
  for (const auto& in : case_.inputs) input_types_.push_back(*trt::to_trt(in.dtype));
  const bool types_ok = step("getOutputDataTypes", [&]() -> std::string {
    if (nb_outputs_ <= 0) return "getNbOutputs returned " + std::to_string(nb_outputs_);
    output_types_.assign(std::size_t(nb_outputs_), DataType::kFLOAT);
    if (build->getOutputDataTypes(output_types_.data(), nb_outputs_, input_types_.data(),
                                  nb_inputs_) != 0) {
      return "returned an error";
    }
    std::string text;
    for (DataType t : output_types_) text += (text.empty() ? "" : ", ") + dtype_text(t);
    report_.info("output dtypes", text);
    return "";
  });
  if (!types_ok) return false;

  return step("getOutputShapes", [&]() -> std::string {
    std::vector<nvinfer1::DimsExprs> in;
    for (std::size_t k = 0; k < case_.inputs.size(); ++k) {
      const InputSpec& spec = case_.inputs[k];
      // Extents fixed across the profile are constants, as TensorRT passes them.
      std::vector<std::int64_t> known;
      for (std::size_t i = 0; i < spec.opt.size(); ++i) {
        known.push_back(spec.min[i] == spec.max[i] ? spec.opt[i] : -1);
      }
      in.push_back(exprs_.dims("in" + std::to_string(k), known));
    }
    std::vector<nvinfer1::DimsExprs> shape_in;
    for (std::size_t k = 0; k < case_.shape_inputs.size(); ++k) {
      const std::vector<std::int64_t> unknown(case_.shape_inputs[k].size(), -1);
      shape_in.push_back(exprs_.dims("shape" + std::to_string(k), unknown));
    }
    output_exprs_.assign(std::size_t(nb_outputs_), nvinfer1::DimsExprs{});
    const int status =
        build->getOutputShapes(in.data(), nb_inputs_, shape_in.empty() ? nullptr : shape_in.data(),
                               static_cast<std::int32_t>(shape_in.size()), output_exprs_.data(),
                               nb_outputs_, exprs_.builder());
    // TensorRT frees the expressions when the call returns.
    exprs_.expire();
    if (status != 0) return "returned an error";
    // Size tensors: declared once each, at an output index, for a 0-d INT32 output.
    std::set<std::int32_t> declared;
    for (const auto& s : exprs_.size_tensors()) {
      const std::string which = "declareSizeTensor(" + std::to_string(s.output) + ")";
      if (s.output < 0 || s.output >= nb_outputs_) {
        return which + ": the index is not an output index (0.." + std::to_string(nb_outputs_ - 1) +
               "; inputs do not count)";
      }
      if (!declared.insert(s.output).second) return which + " is declared twice";
      if (output_exprs_[std::size_t(s.output)].nbDims != 0) {
        return which + ": a size tensor output must be 0-d, but output " +
               std::to_string(s.output) + " has rank " +
               std::to_string(output_exprs_[std::size_t(s.output)].nbDims);
      }
      if (output_types_[std::size_t(s.output)] != DataType::kINT32) {
        return which + ": a size tensor output must be INT32, but getOutputDataTypes gives " +
               dtype_text(output_types_[std::size_t(s.output)]);
      }
    }
    const auto opt = bindings(1);
    std::map<std::int32_t, std::int64_t> uppers;
    for (const auto& s : exprs_.size_tensors()) uppers[s.output] = exprs_.evaluate(s.upper, opt);
    size_uppers_ = uppers;
    std::ostringstream program;
    for (int j = 0; j < nb_outputs_; ++j) {
      const auto& e = output_exprs_[std::size_t(j)];
      if (e.nbDims < 0 || e.nbDims > nvinfer1::Dims::MAX_DIMS) {
        return "output " + std::to_string(j) + " has rank " + std::to_string(e.nbDims);
      }
      const std::vector<std::int64_t> predicted = extents(e, opt);
      std::vector<std::int64_t> allocated;
      program << (j ? "\n" : "") << "output " << j << ": [";
      for (int i = 0; i < e.nbDims; ++i) {
        program << (i ? ", " : "") << exprs_.to_string(e.d[i]);
        allocated.push_back(exprs_.evaluate(e.d[i], opt, uppers));
      }
      program << "] = " << shape_text(predicted);
      predicted_.push_back(predicted);
      allocated_.push_back(allocated);
    }
    for (const auto& s : exprs_.size_tensors()) {
      program << "\nsize tensor of output " << s.output << ": opt " << exprs_.to_string(s.opt)
              << ", upper " << exprs_.to_string(s.upper) << " = " << uppers[s.output];
    }
    report_.info("output shapes", program.str() + "\n(" + std::to_string(exprs_.operation_calls()) +
                                      " IExprBuilder operations)");
    for (std::size_t j = 0; j < case_.expect_shapes.size() && j < predicted_.size(); ++j) {
      if (case_.expect_shapes[j] != predicted_[j]) {
        return "output " + std::to_string(j) + " is predicted as " + shape_text(predicted_[j]) +
               " but the case expects " + shape_text(case_.expect_shapes[j]);
      }
    }
    return "";
  });
}

nvinfer1::PluginTensorDesc CaseRun::input_desc(std::size_t k) const {
  return linear_desc(input_types_[k], case_.inputs[k].opt);
}

std::vector<nvinfer1::PluginTensorDesc> CaseRun::output_descs() const {
  std::vector<nvinfer1::PluginTensorDesc> descs;
  for (int j = 0; j < nb_outputs_; ++j) {
    descs.push_back(linear_desc(output_types_[std::size_t(j)], predicted_.at(std::size_t(j))));
  }
  return descs;
}

std::vector<nvinfer1::PluginTensorDesc> CaseRun::case_descs() const {
  std::vector<nvinfer1::PluginTensorDesc> descs;
  for (int k = 0; k < nb_inputs_; ++k) descs.push_back(input_desc(std::size_t(k)));
  const auto outputs = output_descs();
  descs.insert(descs.end(), outputs.begin(), outputs.end());
  return descs;
}

std::vector<std::int64_t> CaseRun::extents(
    const nvinfer1::DimsExprs& e, const std::map<std::string, std::int64_t>& bindings) const {
  std::vector<std::int64_t> values;
  for (int i = 0; i < e.nbDims; ++i) {
    try {
      values.push_back(exprs_.evaluate(e.d[i], bindings));
    } catch (const std::out_of_range&) {
      values.push_back(-1);  // data-dependent
    }
  }
  return values;
}

bool CaseRun::configure() {
  auto* build = build_of(*plugin_);
  std::vector<nvinfer1::DynamicPluginTensorDesc> in(static_cast<std::size_t>(nb_inputs_));
  std::vector<nvinfer1::DynamicPluginTensorDesc> out(static_cast<std::size_t>(nb_outputs_));
  for (int k = 0; k < nb_inputs_; ++k) {
    auto& d = in[std::size_t(k)];
    d.desc = input_desc(std::size_t(k));
    d.min = dims_of(case_.inputs[std::size_t(k)].min);
    d.opt = dims_of(case_.inputs[std::size_t(k)].opt);
    d.max = dims_of(case_.inputs[std::size_t(k)].max);
  }
  const auto descs = output_descs();
  const std::map<std::string, std::int64_t> profile[] = {bindings(0), bindings(1), bindings(2)};
  for (int j = 0; j < nb_outputs_; ++j) {
    auto& d = out[std::size_t(j)];
    d.desc = descs[std::size_t(j)];
    const auto& e = output_exprs_[std::size_t(j)];
    d.min = dims_of(extents(e, profile[0]));
    d.opt = dims_of(extents(e, profile[1]));
    d.max = dims_of(extents(e, profile[2]));
  }
  const bool configured = step("configurePlugin (min/opt/max)", [&]() -> std::string {
    return build->configurePlugin(in.data(), nb_inputs_, out.data(), nb_outputs_) == 0
               ? ""
               : "returned an error";
  });
  step("getWorkspaceSize", [&]() -> std::string {
    workspace_ = build->getWorkspaceSize(in.data(), nb_inputs_, out.data(), nb_outputs_);
    report_.info("workspace", std::to_string(workspace_) + " bytes");
    return "";
  });
  return configured;
}

void CaseRun::run() {
  report_.begin_case(case_.name);
  std::mt19937_64 rng(options_.seed);
  for (const InputSpec& spec : case_.inputs) inputs_.push_back(random_tensor(spec, rng));
  if (!create_build_plugin() || !check_capabilities() || !output_types_and_shapes()) return;
  formats();
  if (!configure()) return;
  tactics_and_runs();
  serialization();
  step("no expression used after getOutputShapes", [&]() -> std::string {
    std::string text;
    for (const auto& v : exprs_.violations()) text += (text.empty() ? "" : "\n") + v;
    return text;
  });
  step("destroy", [&]() -> std::string {
    plugin_.reset();
    return "";
  });
}

}  // namespace autoplugin::check
