#include "onnx_command.h"

#include <autoplugin/backend/field_codec.h>
#include <autoplugin/error.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "../exit_codes.h"
#include "capabilities.h"
#include "check/case.h"
#include "check/isolation.h"
#include "check/library.h"
#include "model.h"
#include "plugin_fields.h"

namespace autoplugin::onnx {
namespace {

using cli::kFailed;
using cli::kOk;
using cli::kUsage;

void usage(std::ostream& out) {
  out << "usage: autoplugin onnx MODEL.onnx LIB.so [--json]\n"
         "  For each node outside the standard ONNX domains, finds the plugin creator\n"
         "  TensorRT's ONNX parser would use (name = op_type, version = attribute\n"
         "  plugin_version or \"1\", namespace = attribute plugin_namespace, or \"\" then the\n"
         "  node's domain), converts the attributes the creator lists as the parser does,\n"
         "  calls createPlugin and reports what went wrong: a plugin not found (with the\n"
         "  nearest creators), attributes the parser drops or changes, the creator's errors,\n"
         "  shape-input indices (tensorrt_plugin_shape_input_indices), empty input names\n"
         "  (absent optional inputs: the parser passes a null tensor for each; leave trailing\n"
         "  ones out and list others in the INTS attribute autoplugin_absent_inputs), a\n"
         "  number of outputs other than the plugin's (size tensors count). Exits non-zero\n"
         "  on any problem. Needs no GPU and no TensorRT runtime.\n";
}

// ONNX Runtime's TensorRT execution providers register every TensorRT plugin as a custom op of
// this domain, so a node there names its creator's namespace in plugin_namespace.
constexpr const char* kOrtTensorRtDomain = "trt.plugins";

bool is_standard_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml" ||
         domain == "ai.onnx.training" || domain == "ai.onnx.preview.training";
}

struct CreatorInfo {
  nvinfer1::IPluginCreatorV3One* creator;
  std::string name, version, ns;
  std::string text() const { return (ns.empty() ? "" : ns + "::") + name + " v" + version; }
};

std::vector<CreatorInfo> v3_creators(const check::PluginLibrary& library) {
  std::vector<CreatorInfo> result;
  for (nvinfer1::IPluginCreatorInterface* c : library.creators()) {
    if (c == nullptr || !check::is_v3_creator(*c)) continue;
    auto* creator = static_cast<nvinfer1::IPluginCreatorV3One*>(c);
    const char* ns = creator->getPluginNamespace();
    result.push_back(
        {creator, creator->getPluginName(), creator->getPluginVersion(), ns != nullptr ? ns : ""});
  }
  return result;
}

// A string attribute the parser reads itself; a value of another type is a problem.
std::string string_attribute(const Node& node, const char* name, const std::string& fallback,
                             nlohmann::json& problems) {
  const Attribute* a = node.attribute(name);
  if (a == nullptr) return fallback;
  if (a->type != AttributeType::String) {
    problems.push_back(std::string("attribute '") + name + "' is " + attribute_type_name(a->type) +
                       "; TensorRT's ONNX parser reads a STRING");
  }
  return a->s;
}

// Why no creator matched, and which ones come closest.
nlohmann::json near_misses(const Node& node, const std::string& version,
                           const std::vector<std::string>& namespaces,
                           const std::vector<CreatorInfo>& creators) {
  nlohmann::json hints = nlohmann::json::array();
  auto in_namespaces = [&](const std::string& ns) {
    return std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
  };
  std::vector<std::string> names;
  for (const CreatorInfo& c : creators) {
    names.push_back(c.name);
    if (c.name != node.op_type) continue;
    if (in_namespaces(c.ns)) {
      hints.push_back(c.text() + ": the library has version \"" + c.version +
                      "\", the node asks for \"" + version +
                      "\" (set attribute plugin_version to \"" + c.version + "\")");
    } else if (c.version == version && node.domain == kOrtTensorRtDomain) {
      hints.push_back(c.text() + ": in namespace \"" + c.ns +
                      "\" (set attribute plugin_namespace to \"" + c.ns + "\"; the domain " +
                      kOrtTensorRtDomain + " is ONNX Runtime's for TensorRT plugins)");
    } else if (c.version == version) {
      hints.push_back(c.text() + ": in namespace \"" + c.ns +
                      "\" (set the node's domain or attribute plugin_namespace to \"" + c.ns +
                      "\")");
    } else {
      hints.push_back(c.text() + ": namespace \"" + c.ns + "\" and version \"" + c.version + "\"");
    }
  }
  // op_type "ns::name": the namespace belongs in the domain.
  for (const CreatorInfo& c : creators) {
    if (hints.empty() && !c.ns.empty() && node.op_type == c.ns + "::" + c.name) {
      hints.push_back(c.text() + ": op_type is the plugin name alone; set op_type \"" + c.name +
                      "\" and domain \"" + c.ns + "\"");
    }
  }
  if (hints.empty()) {
    if (const auto close = closest_name(node.op_type, names)) {
      for (const CreatorInfo& c : creators) {
        if (c.name == *close) {
          hints.push_back(c.text() + ": did you mean op_type \"" + c.name + "\"?");
        }
      }
    }
  }
  if (hints.empty()) {
    std::string all;
    for (const CreatorInfo& c : creators) all += (all.empty() ? "" : ", ") + c.text();
    hints.push_back("none close; the library's IPluginV3 creators: " +
                    (all.empty() ? std::string("none") : all));
  }
  return hints;
}

// The parser registers the plugin layer's outputs under the node's output names, one each:
// recent parsers refuse a node whose named outputs differ in number ("Node has more output
// tensors than TRT expected"), older ones leave the surplus unnamed.
void check_outputs(const Node& node, int plugin_outputs, nlohmann::json& entry) {
  const auto named = std::count_if(node.outputs.begin(), node.outputs.end(),
                                   [](const std::string& name) { return !name.empty(); });
  entry["outputs"] = named;
  if (plugin_outputs < 0 || named == plugin_outputs) return;
  entry["problems"].push_back(
      "the node names " + std::to_string(named) + " output" + (named == 1 ? "" : "s") +
      ", the plugin has " + std::to_string(plugin_outputs) +
      ": TensorRT's ONNX parser names the layer's outputs after the node's and refuses a "
      "different count; list every plugin output (for an autoplugin op: the schema's returns, "
      "then one 0-d INT32 size tensor per data-dependent extent)");
}

// The creator's decoding of the fields, in a child process: a plugin that aborts on a bad
// attribute ends only that process.
void create_plugin(const Node& node, nvinfer1::IPluginCreatorV3One& creator, Conversion& fields,
                   check::CapturingLogger& logger, nlohmann::json& entry) {
  const check::IsolatedRun run = check::run_isolated(
      [&](check::ProgressChannel& channel) {
        logger.take();
        logger.forward_to([&channel](const std::string& line) { channel.log(line); });
        channel.step_started("createPlugin");
        std::unique_ptr<nvinfer1::IPluginV3> plugin(creator.createPlugin(
            node.name.c_str(), fields.fields.collection(), nvinfer1::TensorRTPhase::kBUILD));
        nvinfer1::IPluginV3OneBuild* build = plugin ? trt::build_of(*plugin) : nullptr;
        const int outputs = build != nullptr ? build->getNbOutputs() : -1;
        channel.result(
            {{"created", plugin != nullptr}, {"outputs", outputs}, {"log", logger.take()}});
      },
      std::chrono::seconds(60));
  nlohmann::json& problems = entry["problems"];
  if (!run.result) {
    std::string text = run.timed_out ? "createPlugin did not return within 60 s"
                                     : "the plugin terminated the process during createPlugin (" +
                                           run.termination + ")";
    for (const auto& line : run.log_since_result) text += "\nplugin log: " + line;
    problems.push_back(text);
    entry["created"] = false;
    return;
  }
  entry["created"] = (*run.result)["created"];
  entry["log"] = (*run.result)["log"];
  check_outputs(node, (*run.result)["outputs"].get<int>(), entry);
  if (!run.finished) {
    std::string text =
        "the plugin terminated the process when it was destroyed (" + run.termination + ")";
    for (const auto& line : run.log_since_result) text += "\nplugin log: " + line;
    problems.push_back(text);
  }
  if (!entry["created"].get<bool>()) {
    std::string text = "createPlugin(\"" + node.name + "\", kBUILD) returned no plugin";
    if (entry["log"].empty()) text += " and logged nothing";
    std::string strings;
    for (const auto& f : fields.sent) {
      if (f["field_type"] == "CHAR")
        strings += (strings.empty() ? "'" : ", '") + f["name"].get<std::string>() + "'";
    }
    if (!strings.empty()) {
      text += ". The string fields (" + strings +
              ") were sent as TensorRT's ONNX parser sends them: CHAR fields whose length "
              "counts the trailing NUL; a plugin that reads std::string(data, length) keeps "
              "that NUL";
    }
    problems.push_back(text);
  }
  for (const auto& line : entry["log"]) {
    const std::string text = line;
    if (entry["created"].get<bool>() &&
        (text.starts_with("error: ") || text.starts_with("internal error: "))) {
      problems.push_back("the creator logged an error: " + text);
    }
  }
}

// Empty input names: ONNX's absent optional inputs. TensorRT's ONNX parser (10.0 and later) does
// not drop them: it passes a null ITensor* in the empty name's place to addPluginV3. A plugin made
// by autoplugin counts only the tensors it gets, so an absent input must be left out instead:
// trailing ones by ending the input list early, others by listing their indices in the reserved
// field autoplugin_absent_inputs (an INTS attribute).
void check_absent_inputs(const Node& node, const nvinfer1::PluginFieldCollection* field_names,
                         nlohmann::json& entry) {
  entry["absent_inputs"] = nlohmann::json::array();
  std::size_t last_named = 0;  // one past the last input with a name
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    if (!node.inputs[i].empty()) last_named = i + 1;
  }
  bool creator_lists_field = false;
  for (int f = 0; field_names != nullptr && f < field_names->nbFields; ++f) {
    const char* name = field_names->fields[f].name;
    creator_lists_field = creator_lists_field || (name != nullptr && name == kAbsentInputsField);
  }
  const std::string parser_does =
      ": TensorRT's ONNX parser passes a null tensor in its place to addPluginV3 (it does not "
      "leave it out)";
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    if (!node.inputs[i].empty()) continue;
    entry["absent_inputs"].push_back(i);
    std::string text = "input " + std::to_string(i) + " has an empty name (absent)" + parser_does;
    if (i >= last_named) {
      text +=
          "; leave trailing absent inputs out of the node's input list (the plugin then "
          "gets " +
          std::to_string(last_named) + " inputs and treats the rest as absent)";
    } else if (creator_lists_field) {
      text += "; remove the empty name from the node's inputs and list " + std::to_string(i) +
              " in the node's INTS attribute " + std::string(kAbsentInputsField) +
              " (input indices as the op declares its inputs)";
    } else {
      text += "; the creator lists no " + std::string(kAbsentInputsField) +
              " field, so this plugin must accept a null input tensor itself";
    }
    entry["problems"].push_back(text);
  }
}

void check_shape_inputs(const Node& node, nlohmann::json& entry) {
  const Attribute* a = node.attribute("tensorrt_plugin_shape_input_indices");
  entry["shape_inputs"] = nlohmann::json::array();
  if (a == nullptr) return;
  if (a->type != AttributeType::Ints) {
    entry["problems"].push_back("attribute 'tensorrt_plugin_shape_input_indices' is " +
                                attribute_type_name(a->type) +
                                "; TensorRT's ONNX parser reads INTS");
    return;
  }
  std::vector<std::int64_t> seen;
  for (std::int64_t index : a->ints) {
    if (index < 0 || index >= static_cast<std::int64_t>(node.inputs.size())) {
      entry["problems"].push_back("tensorrt_plugin_shape_input_indices: " + std::to_string(index) +
                                  " is not an input index (the node has " +
                                  std::to_string(node.inputs.size()) + " inputs)");
    } else if (std::find(seen.begin(), seen.end(), index) != seen.end()) {
      entry["problems"].push_back("tensorrt_plugin_shape_input_indices: input " +
                                  std::to_string(index) + " is listed twice");
    } else {
      entry["shape_inputs"].push_back(
          {{"index", index}, {"input", node.inputs[std::size_t(index)]}});
    }
    seen.push_back(index);
  }
}

nlohmann::json check_node(const Node& node, const std::vector<CreatorInfo>& creators,
                          std::size_t other_creators, check::CapturingLogger& logger) {
  nlohmann::json entry{{"node", node.name},
                       {"op_type", node.op_type},
                       {"domain", node.domain},
                       {"graph", node.graph}};
  nlohmann::json problems = nlohmann::json::array();
  const std::string version = string_attribute(node, "plugin_version", "1", problems);
  std::vector<std::string> namespaces;
  if (node.attribute("plugin_namespace") != nullptr) {
    namespaces.push_back(string_attribute(node, "plugin_namespace", "", problems));
  } else {
    namespaces.push_back("");
    if (!node.domain.empty()) namespaces.push_back(node.domain);
  }
  entry["problems"] = problems;
  entry["lookup"] = {{"name", node.op_type}, {"version", version}, {"namespaces", namespaces}};
  check_shape_inputs(node, entry);
  const CreatorInfo* found = nullptr;
  for (const std::string& ns : namespaces) {
    for (const CreatorInfo& c : creators) {
      if (!found && c.name == node.op_type && c.version == version && c.ns == ns) found = &c;
    }
  }
  entry["found"] = found != nullptr;
  if (found == nullptr) {
    std::string where;
    for (const std::string& ns : namespaces) where += (where.empty() ? "\"" : " or \"") + ns + "\"";
    entry["problems"].push_back("no plugin creator named \"" + node.op_type + "\", version \"" +
                                version + "\", in namespace " + where);
    entry["did_you_mean"] = near_misses(node, version, namespaces, creators);
    if (other_creators > 0) {
      entry["problems"].push_back(
          "the library also has " + std::to_string(other_creators) +
          " creators that are not IPluginV3 creators, which this command does not look at");
    }
    return entry;
  }
  entry["creator"] = found->text();
  check_absent_inputs(node, found->creator->getFieldNames(), entry);
  Conversion fields = convert_attributes(node, found->creator->getFieldNames());
  entry["fields"] = fields.sent;
  entry["dropped"] = fields.dropped;
  entry["not_set"] = fields.not_set;
  for (const std::string& p : fields.problems) entry["problems"].push_back(p);
  for (const std::string& name : fields.dropped) {
    std::string listed;
    for (const std::string& n : fields.not_set) listed += (listed.empty() ? "" : ", ") + n;
    std::string text = "attribute '" + name +
                       "' is not among the creator's fields: TensorRT's ONNX parser drops it "
                       "silently";
    std::vector<std::string> candidates = fields.not_set;
    for (const auto& f : fields.sent) candidates.push_back(f["name"]);
    if (const auto close = closest_name(name, candidates)) {
      text += "; did you mean '" + *close + "'?";
    }
    entry["problems"].push_back(text);
  }
  create_plugin(node, *found->creator, fields, logger, entry);
  return entry;
}

// The parser expands a call of a model-local function instead of looking for a plugin.
bool calls_local_function(const Node& node, const Model& model) {
  return std::any_of(model.functions.begin(), model.functions.end(), [&](const Function& f) {
    return f.domain == node.domain && f.name == node.op_type;
  });
}

void print_text(const nlohmann::json& report, std::ostream& out) {
  out << report["model"].get<std::string>() << " against " << report["library"].get<std::string>()
      << ": " << report["nodes"].size() << " plugin node"
      << (report["nodes"].size() == 1 ? "" : "s") << ", " << report["failed"].get<int>()
      << " with problems\n";
  for (const auto& line : report["load_log"]) {
    out << "  plugin log while loading: " << line.get<std::string>() << "\n";
  }
  for (const auto& node : report["nodes"]) {
    const bool ok = node["problems"].empty();
    out << "\n"
        << (ok ? "ok   " : "FAIL ") << "node '" << node["node"].get<std::string>() << "' (op_type "
        << node["op_type"].get<std::string>() << ", domain \"" << node["domain"].get<std::string>()
        << "\")";
    if (!node["graph"].get<std::string>().empty()) {
      out << " in " << node["graph"].get<std::string>();
    }
    if (node.contains("creator")) out << ": " << node["creator"].get<std::string>();
    out << "\n";
    if (node.contains("fields")) {
      for (const auto& f : node["fields"]) {
        out << "       field " << f["name"].get<std::string>() << " = "
            << (f.contains("value") ? f["value"].dump() : "(raw)") << "  ("
            << f["attribute_type"].get<std::string>() << " -> "
            << f["field_type"].get<std::string>() << " x" << f["length"].get<int>() << ")\n";
      }
      if (!node["not_set"].empty()) {
        out << "       not set (the creator's defaults):";
        for (const auto& n : node["not_set"]) out << " " << n.get<std::string>();
        out << "\n";
      }
    }
    if (node.contains("absent_inputs")) {
      for (const auto& k : node["absent_inputs"]) {
        out << "       absent input: input " << k.get<int>() << " (empty name)\n";
      }
    }
    for (const auto& s : node["shape_inputs"]) {
      out << "       shape input: input " << s["index"].get<int>() << " ('"
          << s["input"].get<std::string>() << "')\n";
    }
    for (const auto& p : node["problems"]) out << "     problem: " << p.get<std::string>() << "\n";
    if (node.contains("did_you_mean")) {
      for (const auto& h : node["did_you_mean"])
        out << "     nearest: " << h.get<std::string>() << "\n";
    }
    if (node.contains("log")) {
      for (const auto& l : node["log"]) out << "     plugin log: " << l.get<std::string>() << "\n";
    }
  }
  for (const auto& call : report["local_function_calls"]) {
    out << "\nnode '" << call["node"].get<std::string>() << "' calls the model-local function "
        << call["function"].get<std::string>()
        << ": the parser expands it (its body's nodes are not checked here)\n";
  }
  if (report["nodes"].empty()) {
    out << "no node outside the standard ONNX domains: TensorRT makes no plugin of this model\n";
  }
}

}  // namespace

int onnx_main(const std::vector<std::string_view>& args) {
  std::string model_path, library_path;
  bool json = false;
  for (std::string_view a : args) {
    if (a == "--help" || a == "-h") {
      usage(std::cout);
      return kOk;
    }
    if (a == "--json") {
      json = true;
    } else if (!a.starts_with("-") && model_path.empty()) {
      model_path = a;
    } else if (!a.starts_with("-") && library_path.empty()) {
      library_path = a;
    } else {
      std::cerr << "autoplugin onnx: unexpected argument '" << a << "'\n";
      usage(std::cerr);
      return kUsage;
    }
  }
  if (library_path.empty()) {
    std::cerr << "autoplugin onnx: give a model and a plugin library\n";
    usage(std::cerr);
    return kUsage;
  }
  try {
    const Model model = read_model(model_path);
    check::CapturingLogger logger;
    check::PluginLibrary library(library_path, logger);
    const std::vector<CreatorInfo> creators = v3_creators(library);
    nlohmann::json report{
        {"model", model_path}, {"library", library_path}, {"load_log", logger.take()}};
    report["nodes"] = nlohmann::json::array();
    int failed = 0;
    report["local_function_calls"] = nlohmann::json::array();
    for (const Node& node : model.nodes) {
      if (is_standard_domain(node.domain)) continue;
      if (calls_local_function(node, model)) {
        report["local_function_calls"].push_back(
            {{"node", node.name}, {"function", node.domain + "::" + node.op_type}});
        continue;
      }
      nlohmann::json entry =
          check_node(node, creators, library.creators().size() - creators.size(), logger);
      failed += entry["problems"].empty() ? 0 : 1;
      report["nodes"].push_back(std::move(entry));
    }
    // A library that logs an error while loading (a declaration that does not match its
    // schema, say) lacks a plugin it was meant to have.
    for (const auto& line : report["load_log"]) {
      const std::string text = line;
      if (text.starts_with("error: ") || text.starts_with("internal error: ")) ++failed;
    }
    report["failed"] = failed;
    if (json) {
      std::cout << report.dump(2) << "\n";
    } else {
      print_text(report, std::cout);
    }
    return failed == 0 ? kOk : kFailed;
  } catch (const std::exception& e) {
    std::cerr << "autoplugin onnx: " << e.what() << "\n";
    return kFailed;
  }
}

}  // namespace autoplugin::onnx
