// The steps that run kernels and the serialization round trip: tactics, enqueue against a
// reference, getFieldsToSerialize, createPlugin(kRUNTIME), attachToContext.
#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/error.h>
#include <autoplugin/trt/plugin.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <unistd.h>

#include "capabilities.h"
#include "case_run.h"
#include "device.h"
#include "fields.h"
#include "resource_context.h"

namespace autoplugin::check {

using trt::build_of;
using trt::core_of;
using trt::runtime_of;

std::optional<std::vector<HostTensor>> CaseRun::reference_outputs() {
  namespace fs = std::filesystem;
  std::string safe_name = case_.name;
  for (char& c : safe_name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  const fs::path dir = fs::temp_directory_path() /
                       ("autoplugin-check-" + std::to_string(::getpid()) + "-" + safe_name);
  fs::create_directories(dir);
  const auto* serialized = runtime_of(*plugin_)->getFieldsToSerialize();
  if (serialized == nullptr) throw Error("getFieldsToSerialize returned null");
  nlohmann::json manifest{
      {"op", options_.op},
      {"attributes",
       attributes_with_defaults(case_.attributes, Fields::copy_of(*serialized), *creator_)},
      {"shape_inputs", case_.shape_inputs}};
  manifest["attributes"].erase(std::string(kAbsentInputsField));
  // One entry per input of the op; an absent one is null (the reference gets None).
  for (std::size_t k = 0, p = 0; k < case_.inputs.size(); ++k) {
    if (case_.inputs[k].absent) {
      manifest["inputs"].push_back(nullptr);
      continue;
    }
    const std::string file = "input" + std::to_string(k) + ".npy";
    write_npy((dir / file).string(), inputs_[p]);
    manifest["inputs"].push_back(
        {{"file", file}, {"dtype", dtype_name(inputs_[p].dtype)}, {"shape", inputs_[p].shape}});
    ++p;
  }
  std::vector<int> compared;
  for (int j = 0; j < nb_outputs_; ++j) {
    if (size_uppers_.count(j) != 0) continue;  // size tensors are checked against the rows
    compared.push_back(j);
    manifest["outputs"].push_back(
        {{"file", "output" + std::to_string(j) + ".npy"},
         {"dtype", dtype_name(*trt::from_trt(output_types_[std::size_t(j)]))}});
  }
  std::ofstream((dir / "case.json").string()) << manifest.dump(2);
  const std::string command = options_.reference + " '" + dir.string() + "' > '" +
                              (dir / "reference.log").string() + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::ifstream log((dir / "reference.log").string());
    std::stringstream text;
    text << log.rdbuf();
    throw Error("the reference command failed: " + options_.reference + "\n" + text.str());
  }
  std::vector<HostTensor> outputs(static_cast<std::size_t>(nb_outputs_));
  for (int j : compared) {
    outputs[std::size_t(j)] = read_npy((dir / ("output" + std::to_string(j) + ".npy")).string(),
                                       *trt::from_trt(output_types_[std::size_t(j)]));
  }
  fs::remove_all(dir);
  return outputs;
}

// onShapeChange then enqueue on the GPU at one point of the profile (at opt with the case's
// inputs, elsewhere with seeded random ones), with exactly the workspace the plugin asked for and
// guard bytes after every output and the workspace; returns the outputs, cut to their actual
// extents where data-dependent.
Tolerance CaseRun::case_tolerance(DType dtype) const {
  Tolerance tolerance = default_tolerance(dtype);
  if (case_.atol) tolerance.atol = *case_.atol;
  if (case_.rtol) tolerance.rtol = *case_.rtol;
  return tolerance;
}

std::optional<std::vector<HostTensor>> CaseRun::execute(nvinfer1::IPluginV3& plugin,
                                                        const std::string& label, Point point) {
  auto* runtime = runtime_of(plugin);
  const auto out_descs = output_descs(point);
  std::vector<nvinfer1::PluginTensorDesc> in_descs;
  for (int k = 0; k < nb_inputs_; ++k) in_descs.push_back(input_desc(std::size_t(k), point));
  if (!step(label + ": onShapeChange", [&]() -> std::string {
        return runtime->onShapeChange(in_descs.data(), nb_inputs_, out_descs.data(), nb_outputs_) ==
                       0
                   ? ""
                   : "returned an error";
      })) {
    return std::nullopt;
  }
  if (!gpu_) return std::nullopt;
  const auto at_point = bindings(point);
  std::map<std::int32_t, std::int64_t> uppers;
  for (const auto& s : exprs_.size_tensors()) {
    uppers[s.output] = exprs_.evaluate(s.upper, at_point);
  }
  std::vector<HostTensor> point_inputs;
  if (point == Point::Opt) {
    point_inputs = inputs_;
  } else {
    // An input whose shape and range do not change keeps the case's values (explicit ones,
    // such as offsets, stay valid); the others get seeded random values in their range there.
    std::mt19937_64 rng(options_.seed + static_cast<std::uint64_t>(point));
    for (std::size_t k = 0; k < present_.size(); ++k) {
      InputSpec spec = input_at(case_, present_[k], point);
      const InputSpec at_opt = input_at(case_, present_[k], Point::Opt);
      if (spec.opt == at_opt.opt && spec.low == at_opt.low && spec.high == at_opt.high) {
        point_inputs.push_back(inputs_[k]);
        continue;
      }
      spec.values.clear();
      point_inputs.push_back(random_tensor(spec, rng));
    }
  }
  const std::string where = point == Point::Opt ? "" : " at the " + point_name(point) + " shapes";
  std::optional<std::vector<HostTensor>> result;
  // Kept for the CUDA graph step: the same buffers, stream and the outputs as first written.
  std::optional<Stream> stream;
  std::vector<DeviceBuffer> inputs, outputs;
  std::optional<DeviceBuffer> workspace;
  std::vector<const void*> input_ptrs;
  std::vector<void*> output_ptrs;
  std::vector<HostTensor> written;
  const bool ran = step(label + ": enqueue", [&]() -> std::string {
    stream.emplace();
    for (const HostTensor& t : point_inputs) {
      inputs.emplace_back(t.bytes.size());
      inputs.back().upload(t.bytes.data(), t.bytes.size());
      input_ptrs.push_back(inputs.back().data());
    }
    std::vector<HostTensor> host;
    for (int j = 0; j < nb_outputs_; ++j) {
      const auto& e = output_exprs_[std::size_t(j)];
      std::vector<std::int64_t> allocated;
      for (int i = 0; i < e.nbDims; ++i) {
        allocated.push_back(exprs_.evaluate(e.d[i], at_point, uppers));
      }
      host.push_back(make_tensor(*trt::from_trt(output_types_[std::size_t(j)]), allocated));
      outputs.emplace_back(host.back().bytes.size(), kGuardBytes);
      outputs.back().poison();
      output_ptrs.push_back(outputs.back().data());
    }
    workspace.emplace(workspace_, kGuardBytes);
    if (runtime->enqueue(in_descs.data(), out_descs.data(), input_ptrs.data(), output_ptrs.data(),
                         workspace->data(), stream->get()) != 0) {
      return "returned an error";
    }
    stream->synchronize("after enqueue");
    for (int j = 0; j < nb_outputs_; ++j) {
      const HostTensor& t = host[std::size_t(j)];
      if (const auto at = outputs[std::size_t(j)].guard_overwritten()) {
        return "wrote past the end of output " + std::to_string(j) + " (" +
               std::to_string(t.bytes.size()) + " bytes for " + shape_text(t.shape) + where +
               "): guard byte " + std::to_string(*at) + " after it changed";
      }
    }
    if (const auto at = workspace->guard_overwritten()) {
      return "wrote past the end of the workspace (" + std::to_string(workspace_) +
             " bytes, as getWorkspaceSize asked for the profile" + where + "): guard byte " +
             std::to_string(*at) + " after it changed";
    }
    for (int j = 0; j < nb_outputs_; ++j) {
      outputs[std::size_t(j)].download(host[std::size_t(j)].bytes.data(),
                                       host[std::size_t(j)].bytes.size());
    }
    written = host;
    // Size tensors: within their upper bound; they give the actual extents.
    std::map<std::int32_t, std::int64_t> counts;
    for (const auto& [output, upper] : uppers) {
      const HostTensor& t = host.at(std::size_t(output));
      const auto count = static_cast<std::int64_t>(t.at(0));
      if (count < 0 || count > upper) {
        return "size tensor output " + std::to_string(output) + " holds " + std::to_string(count) +
               ", outside 0.." + std::to_string(upper) + where;
      }
      counts[output] = count;
    }
    for (int j = 0; j < nb_outputs_; ++j) {
      const auto& e = output_exprs_[std::size_t(j)];
      std::vector<std::int64_t> actual;
      for (int i = 0; i < e.nbDims; ++i) {
        actual.push_back(exprs_.evaluate(e.d[i], at_point, counts));
      }
      HostTensor& t = host[std::size_t(j)];
      if (actual != t.shape) {
        // Data-dependent: the rows beyond the actual count are not part of the result.
        HostTensor cut = make_tensor(t.dtype, actual);
        std::copy_n(t.bytes.begin(), cut.bytes.size(), cut.bytes.begin());
        t = std::move(cut);
      }
    }
    if (keep_recipe_) {
      last_launch_ = Launch{in_descs, out_descs, point_inputs, {}, host, workspace_};
      for (const DeviceBuffer& b : outputs) last_launch_->output_bytes.push_back(b.size());
    }
    result = std::move(host);
    return "";
  });
  if (ran && options_.cuda_graph) {
    step(label + ": CUDA graph, captured and replayed twice", [&]() -> std::string {
      CapturedGraph graph(stream->get(), [&] {
        return runtime->enqueue(in_descs.data(), out_descs.data(), input_ptrs.data(),
                                output_ptrs.data(), workspace->data(), stream->get()) == 0;
      });
      if (!graph.failure().empty()) {
        return graph.failure() +
               ": enqueue must not synchronize, allocate or free device memory, or copy device "
               "values to the host (TensorRT and Torch-TensorRT capture it into CUDA graphs)";
      }
      std::vector<std::vector<HostTensor>> replays;
      for (int replay = 1; replay <= 2; ++replay) {
        for (DeviceBuffer& output : outputs) output.poison_async(stream->get());
        graph.launch(stream->get());
        stream->synchronize("replaying the graph");
        replays.push_back(written);
        for (int j = 0; j < nb_outputs_; ++j) {
          HostTensor& replayed = replays.back()[std::size_t(j)];
          outputs[std::size_t(j)].download(replayed.bytes.data(), replayed.bytes.size());
        }
      }
      for (int j = 0; j < nb_outputs_; ++j) {
        const HostTensor& direct = written[std::size_t(j)];
        const HostTensor& first = replays[0][std::size_t(j)];
        const HostTensor& second = replays[1][std::size_t(j)];
        if (bitwise_equal(first, direct) && bitwise_equal(second, direct)) continue;
        const std::string problem = unequal_output(
            j, {&first, &second}, direct, !bitwise_equal(first, second),
            " differs from the direct enqueue's" + where,
            " (both replays give the same): " +
                compare(first, direct, Tolerance{0, 0}).value_or("bytes differ"),
            "the graph's two replays differ (e.g. floating-point atomics); compared with the "
            "direct run within tolerance");
        if (!problem.empty()) return problem;
      }
      return "";
    });
  }
  return result;
}

std::string CaseRun::repeated_index_hint() const {
  for (std::size_t p = 0; p < present_.size(); ++p) {
    if (repeats_values(inputs_[p])) {
      return "; it changes from run to run, and input " + std::to_string(present_[p]) +
             " repeats values: a kernel that writes through an index without atomics races on "
             "a repeated one (\"distinct\": true in the case draws them without repeats)";
    }
  }
  return "";
}

std::string CaseRun::unequal_output(int output, const std::vector<const HostTensor*>& runs,
                                    const HostTensor& expected, bool runs_vary,
                                    const std::string& differs, const std::string& reproduced,
                                    const std::string& note) {
  const std::string which = "output " + std::to_string(output);
  if (!runs_vary) return which + differs + reproduced;
  for (const HostTensor* run : runs) {
    if (auto mismatch = compare(*run, expected, case_tolerance(expected.dtype))) {
      return which + differs + ": " + *mismatch + repeated_index_hint();
    }
  }
  report_.info("nondeterministic " + which, note);
  return "";
}

void CaseRun::tactics_and_runs() {
  auto* build = build_of(*plugin_);
  step("tactics", [&]() -> std::string {
    const int n = build->getNbTactics();
    if (n < 0) return "getNbTactics returned " + std::to_string(n);
    if (n == 0) return "";
    std::vector<std::int32_t> tactics(static_cast<std::size_t>(n));
    if (build->getValidTactics(tactics.data(), n) != 0) return "getValidTactics returned an error";
    std::set<std::int32_t> unique(tactics.begin(), tactics.end());
    if (unique.size() != tactics.size() || unique.count(0) != 0) {
      return "tactics must be unique and non-zero (0 is the default tactic)";
    }
    tactics_ = tactics;
    std::string text;
    for (auto t : tactics) text += (text.empty() ? "" : ", ") + std::to_string(t);
    report_.info("tactics", text);
    return "";
  });
  if (const char* id = build->getTimingCacheID()) report_.info("timing cache ID", id);

  std::optional<std::vector<HostTensor>> expected;
  if (gpu_ && !options_.reference.empty()) {
    step("reference", [&]() -> std::string {
      expected = reference_outputs();
      return "";
    });
  } else if (gpu_ && !options_.reference_op.empty()) {
    step("reference: " + options_.reference_op, [&]() -> std::string {
      // The same case (so the same inputs, from the same seed) through the other op's plugin.
      Options reference = options_;
      reference.op = options_.reference_op;
      reference.version.clear();
      reference.reference_op.clear();
      Report nested;
      CaseRun run(reference, case_, library_, logger_, nested, gpu_);
      run.run();
      if (nested.failures() != 0 || !run.first_outputs_) {
        std::ostringstream text;
        nested.print(text);
        return "the reference op did not pass its own check:\n" + text.str();
      }
      expected = std::move(run.first_outputs_);
      return "";
    });
  } else if (gpu_) {
    report_.skip("reference", "no --reference: outputs are not compared");
  }
  for (std::int32_t tactic : tactics_) {
    const std::string label = "tactic " + std::to_string(tactic);
    PluginPtr clone(plugin_->clone());
    if (!step(label + ": clone + setTactic", [&]() -> std::string {
          if (!clone) return "clone returned null";
          if (clone.get() == plugin_.get()) return "clone returned the plugin itself";
          return runtime_of(*clone)->setTactic(tactic) == 0 ? "" : "setTactic returned an error";
        })) {
      continue;
    }
    auto outputs = execute(*clone, label, Point::Opt);
    if (outputs && tactic == tactics_.front()) first_outputs_ = outputs;
    if (outputs && expected) {
      step(label + ": outputs vs reference", [&]() -> std::string {
        std::string problems;
        for (int j = 0; j < nb_outputs_; ++j) {
          const HostTensor& e = (*expected)[std::size_t(j)];
          if (e.bytes.empty() && e.shape.empty()) continue;  // a size tensor
          if (auto mismatch = compare((*outputs)[std::size_t(j)], e, case_tolerance(e.dtype))) {
            problems += (problems.empty() ? "" : "\n") + std::string("output ") +
                        std::to_string(j) + ": " + *mismatch;
          }
        }
        return problems;
      });
    }
    // The whole profile: also at its min and max shapes, where they differ from opt.
    for (Point point : {Point::Min, Point::Max}) {
      bool differs = false;
      for (const InputSpec& spec : case_.inputs) differs = differs || spec.at(point) != spec.opt;
      if (differs) execute(*clone, label + ", " + point_name(point) + " shapes", point);
    }
  }
  if (!gpu_) report_.skip("enqueue", "no GPU: kernels were not run");
}

void CaseRun::serialization() {
  Fields serialized;
  step("getFieldsToSerialize", [&]() -> std::string {
    const auto* fc = runtime_of(*plugin_)->getFieldsToSerialize();
    if (fc == nullptr) return "returned null";
    serialized = Fields::copy_of(*fc);
    return "";
  });
  // A clone's fields must not point into the plugin it was cloned from (a field list built in
  // the constructor and copied by clone() does): destroy the source, then read them again.
  step("fields of a clone outlive its source", [&]() -> std::string {
    Fields fields = make_fields(*creator_, case_.attributes, case_.strings_count_nul, report_);
    PluginPtr source(
        creator_->createPlugin("check", fields.collection(), nvinfer1::TensorRTPhase::kBUILD));
    if (!source) return "could not create the source plugin";
    PluginPtr clone(source->clone());
    if (!clone) return "clone returned null";
    source.reset();
    const auto* fc = runtime_of(*clone)->getFieldsToSerialize();
    if (fc == nullptr) return "returned null";
    Fields after;
    try {
      after = Fields::copy_of(*fc);
    } catch (const Error& e) {
      return std::string("after the source plugin was destroyed, ") + e.what() +
             ": the clone's serialized fields point into the destroyed plugin (rebuild the "
             "field list in each getFieldsToSerialize call)";
    }
    if (!(after == serialized)) {
      return "after the source plugin was destroyed, the clone's serialized " +
             serialized.differences(after) +
             " changed: they point into the destroyed plugin (rebuild the field list in each "
             "getFieldsToSerialize call)";
    }
    return "";
  });
  PluginPtr deserialized;
  if (!step("createPlugin(kRUNTIME) from the serialized fields", [&]() -> std::string {
        deserialized.reset(library_.runtime_creator(*creator_).createPlugin(
            "check", serialized.collection(), nvinfer1::TensorRTPhase::kRUNTIME));
        if (!deserialized) return "the creator returned no plugin";
        if (!core_of(*deserialized) || !runtime_of(*deserialized)) {
          return "a plugin made at run time returns kCORE and kRUNTIME";
        }
        const auto* fc = runtime_of(*deserialized)->getFieldsToSerialize();
        if (fc == nullptr) return "getFieldsToSerialize returned null";
        const Fields again = Fields::copy_of(*fc);
        if (!(again == serialized)) {
          return "serializing the deserialized plugin gives different " +
                 again.differences(serialized);
        }
        return runtime_of(*deserialized)->setTactic(tactics_.front()) == 0
                   ? ""
                   : "setTactic returned an error";
      })) {
    return;
  }
  // The attached plugin's allocations and error reports go through `context`, which outlives it.
  CheckResourceContext context;
  resource_context_ = &context;
  PluginPtr attached;
  if (!step("attachToContext", [&]() -> std::string {
        attached.reset(runtime_of(*deserialized)->attachToContext(&context));
        if (!attached) return "returned null";
        if (attached.get() == deserialized.get()) return "must return a clone, not the plugin";
        return "";
      })) {
    if (attached.get() == deserialized.get()) (void)attached.release();  // not deleted twice
    attached.reset();
    resource_context_ = nullptr;
    return;
  }
  last_launch_.reset();
  auto outputs = execute(*attached, "deserialized", Point::Opt);
  if (outputs && first_outputs_) {
    // A kernel whose result changes from run to run (floating-point atomics in no fixed order)
    // cannot match bitwise: where a few more runs of either plugin show two runs of one plugin
    // that differ, the outputs are compared within the case's tolerance instead, and the report
    // says so. Both plugins run again: warm runs of such a kernel often agree with each other
    // and not with the process's first, cold one (the build-phase plugin's).
    constexpr int kRunsAgain = 4;
    bool differs = false;
    for (int j = 0; j < nb_outputs_; ++j) {
      differs =
          differs || !bitwise_equal((*outputs)[std::size_t(j)], (*first_outputs_)[std::size_t(j)]);
    }
    std::vector<std::vector<HostTensor>> again;
    std::vector<std::vector<HostTensor>> built_again;
    if (differs) {
      PluginPtr built_plugin(plugin_->clone());
      const bool rerun_built =
          built_plugin && runtime_of(*built_plugin)->setTactic(tactics_.front()) == 0;
      for (int run = 0; run < kRunsAgain; ++run) {
        if (auto repeated = execute(*attached, "deserialized, run again", Point::Opt)) {
          again.push_back(std::move(*repeated));
        }
        if (!rerun_built) continue;
        if (auto repeated = execute(*built_plugin, "build-phase plugin, run again", Point::Opt)) {
          built_again.push_back(std::move(*repeated));
        }
      }
    }
    step("deserialized outputs bitwise equal", [&]() -> std::string {
      std::string problems;
      for (int j = 0; j < nb_outputs_; ++j) {
        const HostTensor& built = (*first_outputs_)[std::size_t(j)];
        const HostTensor& loaded = (*outputs)[std::size_t(j)];
        if (bitwise_equal(loaded, built)) continue;
        const auto differs_from = [j](const HostTensor& first) {
          return
              [j, &first](const auto& run) { return !bitwise_equal(run[std::size_t(j)], first); };
        };
        const bool varies =
            std::any_of(again.begin(), again.end(), differs_from(loaded)) ||
            std::any_of(built_again.begin(), built_again.end(), differs_from(built));
        const std::string problem = unequal_output(
            j, {&loaded}, built, varies, " differs from the build-phase plugin's",
            again.empty() ? ""
                          : " (" + std::to_string(again.size() + built_again.size()) +
                                " more runs of the two plugins give the same)",
            "two runs of one plugin differ (e.g. floating-point atomics); the deserialized "
            "plugin's output was compared within tolerance");
        if (!problem.empty()) problems += (problems.empty() ? "" : "\n") + problem;
      }
      return problems;
    });
  }
  step("destroy the attached plugin", [&]() -> std::string {
    attached.reset();
    if (context.allocator().allocations() != 0) {
      report_.info("GPU allocator",
                   context.allocator().summary() + " through the resource context");
    }
    return context.allocator().problems();
  });
  resource_context_ = nullptr;
  if (keep_recipe_ && last_launch_) {
    recipe_ = LaunchRecipe{std::move(deserialized), std::move(*last_launch_)};
  }
  deserialized.reset();
}

}  // namespace autoplugin::check
