#include "case_run.h"

#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/dtype.h>
#include <autoplugin/error.h>
#include <autoplugin/trt/plugin.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <sstream>

#include "capabilities.h"
#include "device.h"
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
  const std::vector<std::string> log = logger_.take();
  // A plugin that needs a device where there is none (a constructor that queries it, say) has
  // not failed: it was not tested.
  const bool needs_gpu = options_.no_gpu_here && mentions_cuda(log);
  std::string text = needs_gpu ? "needs a GPU, and this machine has none: " + detail : detail;
  for (const auto& line : log) text += "\nplugin log: " + line;
  report_.insert(at, needs_gpu ? Report::Status::Skipped : Report::Status::Failed, name, text);
}

bool CaseRun::step(const std::string& name, const std::function<std::string()>& body) {
  const std::size_t at = report_.mark();
  if (progress_) progress_->step_started(name);
  bool passed = false;
  try {
    std::string problem = body();
    if (resource_context_ != nullptr) {
      const std::string reported = resource_context_->take_reported_errors();
      if (!reported.empty()) problem += (problem.empty() ? "" : "\n") + reported;
    }
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

std::map<std::string, std::int64_t> CaseRun::bindings(Point point) const {
  std::map<std::string, std::int64_t> values;
  for (std::size_t k = 0; k < present_.size(); ++k) {
    const auto& dims = passed_input(k).at(point);
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
    Fields fields = make_fields(*creator_, case_.attributes, case_.strings_count_nul, report_);
    plugin_.reset(
        creator_->createPlugin("check", fields.collection(), nvinfer1::TensorRTPhase::kBUILD));
    if (plugin_) return "";
    return "the creator returned no plugin" + string_form_hint();
  });
}

// After a failed createPlugin: which form the case's strings were sent in, and the other one.
std::string CaseRun::string_form_hint() const {
  std::string names;
  for (const auto& [name, value] : case_.attributes.items()) {
    if (value.is_string()) names += (names.empty() ? "'" : ", '") + name + "'";
  }
  if (names.empty()) return "";
  if (case_.strings_count_nul) {
    return ". The string attributes (" + names +
           ") were sent as TensorRT's ONNX parser sends them: CHAR fields whose length counts "
           "the trailing NUL. A plugin that reads std::string(data, length) keeps that NUL; "
           "read up to the first NUL instead. Other producers do not count it: to check that "
           "form, set \"strings_count_nul\": false in the case (--strings-without-nul)";
  }
  return ". The string attributes (" + names +
         ") were sent with lengths that do not count the trailing NUL; TensorRT's ONNX parser "
         "counts it: to check that form, leave out \"strings_count_nul\": false";
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
  nb_inputs_ = static_cast<int>(present_.size());
  nb_outputs_ = build->getNbOutputs();
  for (std::size_t k = 0; k < present_.size(); ++k) {
    input_types_.push_back(*trt::to_trt(passed_input(k).dtype));
  }
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
    for (std::size_t k = 0; k < present_.size(); ++k) {
      const InputSpec& spec = passed_input(k);
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
    const auto opt = bindings(Point::Opt);
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
      program << (j ? "\n" : "") << "output " << j << ": [";
      for (int i = 0; i < e.nbDims; ++i) {
        program << (i ? ", " : "") << exprs_.to_string(e.d[i]);
        // Throws (failing the step) where even the size tensors' upper bounds leave it unknown.
        exprs_.evaluate(e.d[i], opt, uppers);
      }
      program << "] = " << shape_text(predicted);
      predicted_.push_back(predicted);
    }
    for (const auto& s : exprs_.size_tensors()) {
      program << "\nsize tensor of output " << s.output << ": opt " << exprs_.to_string(s.opt)
              << ", upper " << exprs_.to_string(s.upper) << " = " << uppers[s.output];
    }
    report_.info("output shapes", program.str() + "\n(" + std::to_string(exprs_.operation_calls()) +
                                      " IExprBuilder operations)");
    if (std::string problem = extent_problem(); !problem.empty()) return problem;
    for (std::size_t j = 0; j < case_.expect_shapes.size() && j < predicted_.size(); ++j) {
      if (case_.expect_shapes[j] != predicted_[j]) {
        return "output " + std::to_string(j) + " is predicted as " + shape_text(predicted_[j]) +
               " but the case expects " + shape_text(case_.expect_shapes[j]);
      }
    }
    return "";
  });
}

// At the case's min, opt and max shapes: a negative extent (TensorRT refuses it when it infers
// shapes; an autoplugin op gives -1 when a requirement on its shape-input values fails), or an
// output whose size in bytes does not fit in int64.
std::string CaseRun::extent_problem() const {
  for (Point point : {Point::Min, Point::Opt, Point::Max}) {
    const auto values = bindings(point);
    for (int j = 0; j < nb_outputs_; ++j) {
      const auto& e = output_exprs_[std::size_t(j)];
      const auto dtype = trt::from_trt(output_types_[std::size_t(j)]);
      std::int64_t bytes = dtype ? static_cast<std::int64_t>(dtype_size(*dtype)) : 1;
      for (int i = 0; i < e.nbDims; ++i) {
        std::int64_t extent = 0;
        try {
          extent = exprs_.evaluate(e.d[i], values);
        } catch (const std::out_of_range&) {
          continue;  // data-dependent
        }
        // A guarded expression runs to hundreds of characters: the plugin log shows the rest.
        constexpr std::size_t kShown = 120;
        std::string expression = exprs_.to_string(e.d[i]);
        if (expression.size() > kShown) expression = expression.substr(0, kShown) + "...";
        const std::string where = "output " + std::to_string(j) + " at the " + point_name(point) +
                                  " shapes: extent " + std::to_string(i) + " (" + expression +
                                  ") is " + std::to_string(extent);
        if (extent < 0) {
          return where +
                 ": negative. TensorRT refuses negative extents when it infers shapes; an "
                 "autoplugin op gives -1 where a requirement on its shape-input values fails "
                 "(the plugin log below lists them: one of them is broken by the case's "
                 "shape_inputs)";
        }
        if (extent > 0 && bytes > INT64_MAX / extent) {
          return where + ": the output's size in bytes overflows int64";
        }
        bytes *= extent;
      }
    }
  }
  return "";
}

nvinfer1::PluginTensorDesc CaseRun::input_desc(std::size_t k, Point point) const {
  return linear_desc(input_types_[k], passed_input(k).at(point));
}

std::vector<nvinfer1::PluginTensorDesc> CaseRun::output_descs(Point point) const {
  std::vector<nvinfer1::PluginTensorDesc> descs;
  for (int j = 0; j < nb_outputs_; ++j) {
    const auto& e = output_exprs_[std::size_t(j)];
    descs.push_back(linear_desc(output_types_[std::size_t(j)], extents(e, bindings(point))));
  }
  return descs;
}

CaseRun::ProfileDescs CaseRun::profile_descs(std::optional<Point> fixed) const {
  // min, opt, max extents of one tensor as a DynamicPluginTensorDesc: desc.dims -1 wherever the
  // profile leaves an extent dynamic, as TensorRT's build phase passes it.
  auto describe = [&](DataType type, const std::vector<std::int64_t>* at_point) {
    const auto& min = at_point[int(fixed.value_or(Point::Min))];
    const auto& opt = at_point[int(fixed.value_or(Point::Opt))];
    const auto& max = at_point[int(fixed.value_or(Point::Max))];
    std::vector<std::int64_t> dims = min;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (max[i] != min[i]) dims[i] = -1;
    }
    nvinfer1::DynamicPluginTensorDesc d{};
    d.desc = linear_desc(type, dims);
    d.min = dims_of(min);
    d.opt = dims_of(opt);
    d.max = dims_of(max);
    return d;
  };
  ProfileDescs descs;
  for (int k = 0; k < nb_inputs_; ++k) {
    const InputSpec& spec = passed_input(std::size_t(k));
    const std::vector<std::int64_t> at_point[] = {spec.min, spec.opt, spec.max};
    descs.in.push_back(describe(input_types_[std::size_t(k)], at_point));
  }
  const std::map<std::string, std::int64_t> profile[] = {bindings(Point::Min), bindings(Point::Opt),
                                                         bindings(Point::Max)};
  for (int j = 0; j < nb_outputs_; ++j) {
    const auto& e = output_exprs_[std::size_t(j)];
    const std::vector<std::int64_t> at_point[] = {extents(e, profile[0]), extents(e, profile[1]),
                                                  extents(e, profile[2])};
    descs.out.push_back(describe(output_types_[std::size_t(j)], at_point));
  }
  return descs;
}

bool CaseRun::dynamic_profile() const {
  for (const InputSpec& spec : case_.inputs) {
    if (spec.min != spec.max) return true;
  }
  return false;
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
  ProfileDescs profile = profile_descs(std::nullopt);
  const bool configured = step("configurePlugin (min/opt/max)", [&]() -> std::string {
    return build->configurePlugin(profile.in.data(), nb_inputs_, profile.out.data(), nb_outputs_) ==
                   0
               ? ""
               : "returned an error";
  });
  step("getWorkspaceSize", [&]() -> std::string {
    workspace_ =
        build->getWorkspaceSize(profile.in.data(), nb_inputs_, profile.out.data(), nb_outputs_);
    if (!dynamic_profile()) {
      report_.info("workspace", std::to_string(workspace_) + " bytes");
      return workspace_problem(workspace_, {});
    }
    // A workspace serves every shape of the profile: ask again for profiles fixed at its min, opt
    // and max shapes (TensorRT configures a plugin many times), then configure the real one again.
    std::map<Point, std::size_t> fixed;
    for (Point point : {Point::Min, Point::Opt, Point::Max}) {
      ProfileDescs at = profile_descs(point);
      if (build->configurePlugin(at.in.data(), nb_inputs_, at.out.data(), nb_outputs_) != 0) {
        return "configurePlugin for a profile fixed at the " + point_name(point) +
               " shapes returned an error";
      }
      fixed[point] = build->getWorkspaceSize(at.in.data(), nb_inputs_, at.out.data(), nb_outputs_);
    }
    if (build->configurePlugin(profile.in.data(), nb_inputs_, profile.out.data(), nb_outputs_) !=
        0) {
      return "configurePlugin for the case's profile returned an error the second time";
    }
    report_.info("workspace", std::to_string(workspace_) + " bytes (for profiles fixed at min " +
                                  std::to_string(fixed[Point::Min]) + ", opt " +
                                  std::to_string(fixed[Point::Opt]) + ", max " +
                                  std::to_string(fixed[Point::Max]) + ")");
    return workspace_problem(workspace_, fixed);
  });
  return configured;
}

std::string CaseRun::workspace_problem(std::size_t bytes,
                                       const std::map<Point, std::size_t>& fixed) const {
  constexpr std::size_t kAbsurd = std::size_t(1) << 40;
  auto absurd = [&](std::size_t size, const std::string& what) -> std::string {
    return std::to_string(size) + " bytes " + what +
           " (1 TiB or more): absurd. A size computed from desc.dims? In the build phase "
           "TensorRT passes -1 for every extent the profile leaves dynamic; size the workspace "
           "from desc.max";
  };
  if (bytes >= kAbsurd) return absurd(bytes, "for the case's profile");
  for (const auto& [point, size] : fixed) {
    if (size >= kAbsurd)
      return absurd(size, "for a profile fixed at the " + point_name(point) + " shapes");
  }
  if (fixed.empty()) return "";
  const std::size_t at_min = fixed.at(Point::Min);
  const std::size_t at_max = fixed.at(Point::Max);
  if (at_max < at_min) {
    return "the workspace shrinks as shapes grow: " + std::to_string(at_min) +
           " bytes for a profile fixed at the min shapes, " + std::to_string(at_max) +
           " bytes at the max shapes";
  }
  for (const auto& [point, size] : fixed) {
    if (size > bytes) {
      return std::to_string(bytes) + " bytes for the case's profile, but " + std::to_string(size) +
             " bytes for a profile fixed at its " + point_name(point) +
             " shapes: the workspace must serve every shape up to max (sized from opt?)";
    }
  }
  return "";
}

void CaseRun::run() {
  report_.begin_case(case_.name);
  std::mt19937_64 rng(options_.seed);
  present_ = present_inputs(case_);
  for (std::size_t k : present_) {
    inputs_.push_back(random_tensor(input_at(case_, k, Point::Opt), rng));
  }
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
