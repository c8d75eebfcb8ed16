#include "check.h"

#include <autoplugin/attr.h>
#include <autoplugin/error.h>
#include <autoplugin/trt/detail/convert.h>
#include <autoplugin/trt/plugin.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include <sys/uio.h>
#include <unistd.h>

#include "capabilities.h"
#include "case.h"
#include "device.h"
#include "expr_builder.h"
#include "library.h"
#include "report.h"
#include "tensor_desc.h"
#include "tensors.h"

namespace autoplugin::check {
namespace {

using nvinfer1::DataType;
using nvinfer1::PluginFieldType;
using nvinfer1::TensorFormat;
using trt::build_of;
using trt::core_of;
using trt::dims_of;
using trt::linear_desc;
using trt::runtime_of;

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

std::string field_type_text(PluginFieldType type) {
  const auto mapped = trt::from_trt(type);
  return mapped ? std::string(field_type_name(*mapped))
                : "type " + std::to_string(static_cast<int>(type));
}

std::string dtype_text(DataType type) {
  const auto mapped = trt::from_trt(type);
  return mapped ? std::string(dtype_name(*mapped))
                : "data type " + std::to_string(static_cast<int>(type));
}

std::string format_text(TensorFormat format) {
  const auto mapped = trt::from_trt(format);
  return mapped ? std::string(format_name(*mapped))
                : "format " + std::to_string(static_cast<int>(format));
}

// ---- fields from case attributes
// -----------------------------------------------------------------

// An owned PluginFieldCollection.
class Fields {
 public:
  void add(std::string name, PluginFieldType type, std::vector<std::byte> bytes,
           std::int32_t length) {
    stored_.push_back({std::move(name), type, std::move(bytes), length});
  }
  const nvinfer1::PluginFieldCollection* collection() {
    fields_.clear();
    for (const auto& s : stored_) {
      fields_.emplace_back(s.name.c_str(), s.bytes.empty() ? nullptr : s.bytes.data(), s.type,
                           s.length);
    }
    collection_ = {static_cast<std::int32_t>(fields_.size()), fields_.data()};
    return &collection_;
  }
  // A deep copy of what a plugin returned, to use after the plugin is gone.
  static Fields copy_of(const nvinfer1::PluginFieldCollection& fc);
  bool operator==(const Fields& other) const;
  std::string differences(const Fields& other) const;

 private:
  struct Stored {
    std::string name;
    PluginFieldType type;
    std::vector<std::byte> bytes;
    std::int32_t length;
    bool operator==(const Stored&) const = default;
  };
  std::vector<Stored> stored_;
  std::vector<nvinfer1::PluginField> fields_;
  nvinfer1::PluginFieldCollection collection_{};
};

// Copies memory a plugin handed out without trusting it: a dangling pointer gives an error
// instead of a crash.
void read_checked(void* destination, const void* source, std::size_t bytes,
                  const std::string& what) {
  if (bytes == 0) return;
  iovec local{destination, bytes};
  iovec remote{const_cast<void*>(source), bytes};
  if (process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(bytes)) {
    throw Error(what + " points to memory that cannot be read");
  }
}

std::string read_name(const char* name, int index) {
  if (name == nullptr) return "";
  std::string text;
  for (char c = 0;; ++name) {
    read_checked(&c, name, 1, "the name of field " + std::to_string(index));
    if (c == '\0' || text.size() > 4096) break;
    text += c;
  }
  return text;
}

Fields Fields::copy_of(const nvinfer1::PluginFieldCollection& fc) {
  Fields copy;
  if (fc.nbFields < 0 || fc.nbFields > 4096) {
    throw Error("the field collection claims " + std::to_string(fc.nbFields) + " fields");
  }
  std::vector<nvinfer1::PluginField> fields(static_cast<std::size_t>(fc.nbFields));
  read_checked(fields.data(), fc.fields, fields.size() * sizeof(nvinfer1::PluginField),
               "the field array");
  for (int i = 0; i < fc.nbFields; ++i) {
    const nvinfer1::PluginField& f = fields[std::size_t(i)];
    std::string name = read_name(f.name, i);
    std::vector<std::byte> bytes;
    if (f.data != nullptr && f.length > 0) {
      const auto type = trt::from_trt(f.type);
      if (!type) throw Error("field '" + name + "' has an unknown type " + field_type_text(f.type));
      const std::size_t size = field_byte_size(*type, std::size_t(f.length));
      bytes.resize(size);
      read_checked(bytes.data(), f.data, size, "the data of field '" + name + "'");
    }
    copy.add(std::move(name), f.type, std::move(bytes), f.length);
  }
  return copy;
}

bool Fields::operator==(const Fields& other) const { return stored_ == other.stored_; }

std::string Fields::differences(const Fields& other) const {
  std::string text;
  for (std::size_t i = 0; i < std::max(stored_.size(), other.stored_.size()); ++i) {
    if (i >= stored_.size() || i >= other.stored_.size()) {
      text += (text.empty() ? "" : "; ") + std::string("a different number of fields");
      break;
    }
    if (!(stored_[i] == other.stored_[i])) {
      text += (text.empty() ? "" : "; ") + std::string("field '") + stored_[i].name + "'";
    }
  }
  return text;
}

template <typename T>
void append(std::vector<std::byte>& bytes, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  bytes.insert(bytes.end(), p, p + sizeof(T));
}

// One JSON number as an element of `type`, range-checked like TensorRT's ONNX parser would not.
void append_number(std::vector<std::byte>& bytes, PluginFieldType type, const nlohmann::json& v,
                   const std::string& name) {
  const double x = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
  auto integer = [&](double low, double high) {
    if (x != std::floor(x) || x < low || x > high) {
      throw Error("attribute '" + name + "': " + v.dump() + " does not fit the creator's " +
                  field_type_text(type) + " field");
    }
  };
  switch (type) {
    case PluginFieldType::kFLOAT64:
      append(bytes, x);
      break;
    case PluginFieldType::kFLOAT32:
      append(bytes, static_cast<float>(x));
      break;
    case PluginFieldType::kFLOAT16:
      append(bytes, float_to_half(static_cast<float>(x)));
      break;
    case PluginFieldType::kBF16:
      append(bytes, float_to_bfloat16(static_cast<float>(x)));
      break;
    case PluginFieldType::kINT8:
      integer(-128, 127);
      append(bytes, static_cast<std::int8_t>(x));
      break;
    case PluginFieldType::kINT16:
      integer(-32768, 32767);
      append(bytes, static_cast<std::int16_t>(x));
      break;
    case PluginFieldType::kINT32:
      integer(-2147483648.0, 2147483647.0);
      append(bytes, static_cast<std::int32_t>(x));
      break;
    case PluginFieldType::kINT64:
      if (v.is_number_integer()) {
        append(bytes, v.get<std::int64_t>());
      } else {
        integer(-9.2e18, 9.2e18);
        append(bytes, static_cast<std::int64_t>(x));
      }
      break;
    default:
      throw Error("attribute '" + name + "': the creator lists it as " + field_type_text(type) +
                  ", which check cannot encode from " + v.dump());
  }
}

// Encodes the case's attributes with the field types the creator lists (as TensorRT's ONNX
// parser does from ONNX types); unlisted attributes get the types the parser would send.
Fields make_fields(nvinfer1::IPluginCreatorV3One& creator, const nlohmann::json& attributes,
                   Report& report) {
  std::map<std::string, PluginFieldType> listed;
  if (const auto* names = creator.getFieldNames()) {
    for (int i = 0; i < names->nbFields; ++i) {
      if (names->fields[i].name != nullptr) listed[names->fields[i].name] = names->fields[i].type;
    }
  }
  Fields fields;
  for (const auto& [name, value] : attributes.items()) {
    auto it = listed.find(name);
    if (it == listed.end()) {
      report.info("attribute '" + name + "'",
                  "the creator's getFieldNames does not list it: TensorRT's ONNX parser would "
                  "drop it (passed here anyway)");
    }
    const nlohmann::json& first = value.is_array() && !value.empty() ? value[0] : value;
    PluginFieldType type = it != listed.end() ? it->second : PluginFieldType::kUNKNOWN;
    if (type == PluginFieldType::kUNKNOWN) {
      type = first.is_string()         ? PluginFieldType::kCHAR
             : first.is_number_float() ? PluginFieldType::kFLOAT32
                                       : PluginFieldType::kINT32;
    }
    std::vector<std::byte> bytes;
    std::int32_t length = 0;
    if (value.is_string()) {
      for (char c : value.get<std::string>()) bytes.push_back(static_cast<std::byte>(c));
      bytes.push_back(std::byte{0});
      length = static_cast<std::int32_t>(bytes.size());
      type = PluginFieldType::kCHAR;
    } else if (value.is_null()) {
      length = 0;
    } else if (value.is_array()) {
      for (const auto& element : value) append_number(bytes, type, element, name);
      length = static_cast<std::int32_t>(value.size());
    } else {
      append_number(bytes, type, value, name);
      length = 1;
    }
    fields.add(name, type, std::move(bytes), length);
  }
  return fields;
}

// ---- the lifecycle
// -------------------------------------------------------------------------------

struct Options {
  std::string library;
  std::string op;
  std::string version;
  std::vector<CheckCase> cases;
  std::string reference;
  std::string reference_op;  // another op of the library whose outputs are the reference
  bool cpu_only = false;
  bool json = false;
  std::uint64_t seed = 1;
};

struct PluginDeleter {
  void operator()(nvinfer1::IPluginV3* p) const { delete p; }
};
using PluginPtr = std::unique_ptr<nvinfer1::IPluginV3, PluginDeleter>;

// A resource context with no allocator or error recorder: plugins that need them are told so
// by a null pointer, as the interface allows.
class NullResourceContext final : public nvinfer1::IPluginResourceContext {
 public:
  nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override { return nullptr; }
  nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override { return nullptr; }
};

class CaseRun {
 public:
  CaseRun(const Options& options, const CheckCase& c, PluginLibrary& library,
          CapturingLogger& logger, Report& report, bool gpu)
      : options_(options),
        case_(c),
        library_(library),
        logger_(logger),
        report_(report),
        gpu_(gpu) {}

  void run();

 private:
  // Runs one step; a false result or an exception fails it, with what the plugin logged.
  bool step(const std::string& name, const std::function<std::string()>& body);
  void fail(std::size_t at, const std::string& name, const std::string& detail);

  bool create_build_plugin();
  bool check_capabilities();
  bool output_types_and_shapes();
  void formats();
  bool configure();
  void tactics_and_runs();
  void serialization();

  nvinfer1::PluginTensorDesc input_desc(std::size_t k) const;
  std::vector<nvinfer1::PluginTensorDesc> output_descs() const;
  std::vector<nvinfer1::PluginTensorDesc> case_descs() const;     // inputs, then outputs
  std::map<std::string, std::int64_t> bindings(int which) const;  // 0 min, 1 opt, 2 max
  // An output's extents for `bindings`, -1 where data-dependent.
  std::vector<std::int64_t> extents(const nvinfer1::DimsExprs& e,
                                    const std::map<std::string, std::int64_t>& bindings) const;
  std::optional<std::vector<HostTensor>> execute(nvinfer1::IPluginV3& plugin,
                                                 const std::string& label);
  std::optional<std::vector<HostTensor>> reference_outputs();

  const Options& options_;
  const CheckCase& case_;
  PluginLibrary& library_;
  CapturingLogger& logger_;
  Report& report_;
  bool gpu_;

  nvinfer1::IPluginCreatorV3One* creator_ = nullptr;
  PluginPtr plugin_;
  int nb_inputs_ = 0;
  int nb_outputs_ = 0;
  std::vector<DataType> input_types_, output_types_;
  trt::RecordingExprBuilder exprs_;
  std::vector<nvinfer1::DimsExprs> output_exprs_;
  std::vector<std::vector<std::int64_t>> predicted_;  // at opt; -1 where data-dependent
  std::vector<std::vector<std::int64_t>> allocated_;  // at opt; upper bounds where data-dependent
  std::map<std::int32_t, std::int64_t> size_uppers_;  // output index -> upper bound at opt
  std::vector<std::int32_t> tactics_{0};
  std::size_t workspace_ = 0;
  std::vector<HostTensor> inputs_;
  std::optional<std::vector<HostTensor>> first_outputs_;
};

void CaseRun::fail(std::size_t at, const std::string& name, const std::string& detail) {
  std::string text = detail;
  for (const auto& line : logger_.take()) text += "\nplugin log: " + line;
  report_.insert(at, Report::Status::Failed, name, text);
}

bool CaseRun::step(const std::string& name, const std::function<std::string()>& body) {
  const std::size_t at = report_.mark();
  try {
    std::string problem = body();
    if (!problem.empty()) {
      fail(at, name, problem);
      return false;
    }
    report_.insert(at, Report::Status::Passed, name);
    for (const auto& line : logger_.take()) report_.info(name, "plugin log: " + line);
    return true;
  } catch (const std::exception& e) {
    fail(at, name, e.what());
    return false;
  }
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

// TensorRT asks position by position; the answer for `pos` may only depend on positions
// 0..pos. Enumerates combinations in that order and, at each question, asks again with the later
// positions changed: any different answer is a violation.
void CaseRun::formats() {
  auto* build = build_of(*plugin_);
  const int n = nb_inputs_ + nb_outputs_;
  const std::vector<DataType> types{DataType::kFLOAT, DataType::kHALF,  DataType::kBF16,
                                    DataType::kINT8,  DataType::kINT32, DataType::kINT64};
  const std::vector<TensorFormat> layouts{TensorFormat::kLINEAR, TensorFormat::kHWC8,
                                          TensorFormat::kCHW4, TensorFormat::kCHW32};
  const std::vector<nvinfer1::PluginTensorDesc> descs = case_descs();
  std::vector<nvinfer1::DynamicPluginTensorDesc> io(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) io[std::size_t(p)].desc = descs[std::size_t(p)];
  std::mt19937 rng(static_cast<std::uint32_t>(options_.seed));
  std::string violation;
  int accepted = 0;
  int questions = 0;
  constexpr int kMaxQuestions = 4000;
  std::function<void(int)> search = [&](int pos) {
    if (pos == n) {
      ++accepted;
      return;
    }
    for (DataType t : types) {
      for (TensorFormat f : layouts) {
        if (questions >= kMaxQuestions || !violation.empty()) return;
        io[std::size_t(pos)].desc.type = t;
        io[std::size_t(pos)].desc.format = f;
        ++questions;
        const bool answer =
            build->supportsFormatCombination(pos, io.data(), nb_inputs_, nb_outputs_);
        const auto saved = io;
        for (int probe = 0; probe < 3 && pos + 1 < n; ++probe) {
          for (int later = pos + 1; later < n; ++later) {
            io[std::size_t(later)].desc.type = types[rng() % types.size()];
            io[std::size_t(later)].desc.format = layouts[rng() % layouts.size()];
          }
          if (build->supportsFormatCombination(pos, io.data(), nb_inputs_, nb_outputs_) != answer) {
            violation = "supportsFormatCombination(pos=" + std::to_string(pos) + ") answered " +
                        (answer ? "true" : "false") + " for " + dtype_text(t) + "/" +
                        format_text(f) + ", then the opposite when only positions after " +
                        std::to_string(pos) +
                        " changed: the answer for pos may only depend on positions 0..pos";
          }
        }
        io = saved;
        if (answer) search(pos + 1);
      }
    }
  };
  step("supportsFormatCombination", [&]() -> std::string {
    search(0);
    if (!violation.empty()) return violation;
    if (accepted == 0) return "no combination of dtypes and formats is accepted";
    report_.info("format combinations",
                 std::to_string(accepted) + " accepted (" + std::to_string(questions) +
                     " questions" + (questions >= kMaxQuestions ? ", search capped" : "") + ")");
    // The combination this case runs: its input dtypes and the outputs' reported dtypes, LINEAR.
    for (int p = 0; p < n; ++p) io[std::size_t(p)].desc = descs[std::size_t(p)];
    for (int p = 0; p < n; ++p) {
      if (!build->supportsFormatCombination(p, io.data(), nb_inputs_, nb_outputs_)) {
        return "the case's combination is rejected at position " + std::to_string(p) + " (" +
               dtype_text(io[std::size_t(p)].desc.type) + ", LINEAR)";
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

std::optional<std::vector<HostTensor>> CaseRun::reference_outputs() {
  namespace fs = std::filesystem;
  std::string safe_name = case_.name;
  for (char& c : safe_name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  const fs::path dir = fs::temp_directory_path() /
                       ("autoplugin-check-" + std::to_string(::getpid()) + "-" + safe_name);
  fs::create_directories(dir);
  nlohmann::json manifest{
      {"op", options_.op}, {"attributes", case_.attributes}, {"shape_inputs", case_.shape_inputs}};
  for (std::size_t k = 0; k < inputs_.size(); ++k) {
    const std::string file = "input" + std::to_string(k) + ".npy";
    write_npy((dir / file).string(), inputs_[k]);
    manifest["inputs"].push_back(
        {{"file", file}, {"dtype", dtype_name(inputs_[k].dtype)}, {"shape", inputs_[k].shape}});
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

// onShapeChange then enqueue on the GPU with the case's inputs; returns the outputs, cut to their
// actual extents where data-dependent.
std::optional<std::vector<HostTensor>> CaseRun::execute(nvinfer1::IPluginV3& plugin,
                                                        const std::string& label) {
  auto* runtime = runtime_of(plugin);
  const auto out_descs = output_descs();
  std::vector<nvinfer1::PluginTensorDesc> in_descs;
  for (int k = 0; k < nb_inputs_; ++k) in_descs.push_back(input_desc(std::size_t(k)));
  if (!step(label + ": onShapeChange", [&]() -> std::string {
        return runtime->onShapeChange(in_descs.data(), nb_inputs_, out_descs.data(), nb_outputs_) ==
                       0
                   ? ""
                   : "returned an error";
      })) {
    return std::nullopt;
  }
  if (!gpu_) return std::nullopt;
  std::optional<std::vector<HostTensor>> result;
  step(label + ": enqueue", [&]() -> std::string {
    Stream stream;
    std::vector<DeviceBuffer> inputs, outputs;
    std::vector<const void*> input_ptrs;
    std::vector<void*> output_ptrs;
    for (const HostTensor& t : inputs_) {
      inputs.emplace_back(t.bytes.size());
      inputs.back().upload(t.bytes.data(), t.bytes.size());
      input_ptrs.push_back(inputs.back().data());
    }
    std::vector<HostTensor> host;
    for (int j = 0; j < nb_outputs_; ++j) {
      host.push_back(
          make_tensor(*trt::from_trt(output_types_[std::size_t(j)]), allocated_[std::size_t(j)]));
      outputs.emplace_back(host.back().bytes.size());
      outputs.back().poison();
      output_ptrs.push_back(outputs.back().data());
    }
    DeviceBuffer workspace(workspace_);
    if (runtime->enqueue(in_descs.data(), out_descs.data(), input_ptrs.data(), output_ptrs.data(),
                         workspace.data(), stream.get()) != 0) {
      return "returned an error";
    }
    stream.synchronize("after enqueue");
    for (int j = 0; j < nb_outputs_; ++j) {
      outputs[std::size_t(j)].download(host[std::size_t(j)].bytes.data(),
                                       host[std::size_t(j)].bytes.size());
    }
    // Size tensors: within their upper bound; they give the actual extents.
    std::map<std::int32_t, std::int64_t> counts;
    for (const auto& [output, upper] : size_uppers_) {
      const HostTensor& t = host.at(std::size_t(output));
      const auto count = static_cast<std::int64_t>(t.at(0));
      if (count < 0 || count > upper) {
        return "size tensor output " + std::to_string(output) + " holds " + std::to_string(count) +
               ", outside 0.." + std::to_string(upper);
      }
      counts[output] = count;
    }
    const auto opt = bindings(1);
    for (int j = 0; j < nb_outputs_; ++j) {
      const auto& e = output_exprs_[std::size_t(j)];
      std::vector<std::int64_t> actual;
      for (int i = 0; i < e.nbDims; ++i) actual.push_back(exprs_.evaluate(e.d[i], opt, counts));
      HostTensor& t = host[std::size_t(j)];
      if (actual != t.shape) {
        // Data-dependent: the rows beyond the actual count are not part of the result.
        HostTensor cut = make_tensor(t.dtype, actual);
        std::copy_n(t.bytes.begin(), cut.bytes.size(), cut.bytes.begin());
        t = std::move(cut);
      }
    }
    result = std::move(host);
    return "";
  });
  return result;
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
    auto outputs = execute(*clone, label);
    if (!outputs) continue;
    if (tactic == tactics_.front()) first_outputs_ = outputs;
    if (!expected) continue;
    step(label + ": outputs vs reference", [&]() -> std::string {
      std::string problems;
      for (int j = 0; j < nb_outputs_; ++j) {
        const HostTensor& e = (*expected)[std::size_t(j)];
        if (e.bytes.empty() && e.shape.empty()) continue;  // a size tensor
        Tolerance tolerance = default_tolerance(e.dtype);
        if (case_.atol) tolerance.atol = *case_.atol;
        if (case_.rtol) tolerance.rtol = *case_.rtol;
        if (auto mismatch = compare((*outputs)[std::size_t(j)], e, tolerance)) {
          problems += (problems.empty() ? "" : "\n") + std::string("output ") + std::to_string(j) +
                      ": " + *mismatch;
        }
      }
      return problems;
    });
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
    Fields fields = make_fields(*creator_, case_.attributes, report_);
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
        deserialized.reset(creator_->createPlugin("check", serialized.collection(),
                                                  nvinfer1::TensorRTPhase::kRUNTIME));
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
  NullResourceContext context;
  PluginPtr attached;
  if (!step("attachToContext", [&]() -> std::string {
        attached.reset(runtime_of(*deserialized)->attachToContext(&context));
        if (!attached) return "returned null";
        if (attached.get() == deserialized.get()) return "must return a clone, not the plugin";
        return "";
      })) {
    return;
  }
  auto outputs = execute(*attached, "deserialized");
  if (outputs && first_outputs_) {
    step("deserialized outputs bitwise equal", [&]() -> std::string {
      for (int j = 0; j < nb_outputs_; ++j) {
        if (!bitwise_equal((*outputs)[std::size_t(j)], (*first_outputs_)[std::size_t(j)])) {
          return "output " + std::to_string(j) + " differs from the build-phase plugin's";
        }
      }
      return "";
    });
  }
  attached.reset();
  deserialized.reset();
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

// ---- command lines
// -------------------------------------------------------------------------------

void check_usage(std::ostream& out) {
  out << "usage: autoplugin check LIB.so --op NS::NAME [--version V]\n"
         "         (--case FILE.json | --input DTYPE:SHAPE... [--attr NAME=VALUE]...\n"
         "          [--shape-input V,V,...]... [--expect-shape AxB]...)\n"
         "         [--reference COMMAND | --reference-op NS::NAME] [--seed N] [--cpu] [--json]\n"
         "  SHAPE is like 2x3x8; a dimension may be a range MIN..MAX (run at MAX).\n"
         "  COMMAND gets a folder with case.json and input<k>.npy, and writes output<j>.npy.\n"
         "  --reference-op compares with another op of the same library on the same inputs.\n";
}

Options parse_check_args(const std::vector<std::string_view>& args) {
  Options options;
  CheckCase flags_case;
  flags_case.name = "command line";
  std::string case_file;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= args.size()) throw Error(std::string(a) + " needs a value");
      return args[++i];
    };
    if (a == "--op") {
      options.op = value();
    } else if (a == "--version") {
      options.version = value();
    } else if (a == "--case") {
      case_file = value();
    } else if (a == "--input") {
      flags_case.inputs.push_back(parse_input_flag(value()));
    } else if (a == "--attr") {
      auto [name, v] = parse_attribute_flag(value());
      flags_case.attributes[name] = v;
    } else if (a == "--shape-input") {
      flags_case.shape_inputs.push_back(parse_shape_input_flag(value()));
    } else if (a == "--expect-shape") {
      flags_case.expect_shapes.push_back(parse_input_flag("float32:" + std::string(value())).opt);
    } else if (a == "--reference") {
      options.reference = value();
    } else if (a == "--reference-op") {
      options.reference_op = value();
    } else if (a == "--seed") {
      options.seed = std::stoull(std::string(value()));
    } else if (a == "--cpu") {
      options.cpu_only = true;
    } else if (a == "--json") {
      options.json = true;
    } else if (!a.starts_with("--") && options.library.empty()) {
      options.library = a;
    } else {
      throw Error("unexpected argument '" + std::string(a) + "'");
    }
  }
  if (options.library.empty()) throw Error("no plugin library given");
  if (!options.reference.empty() && !options.reference_op.empty()) {
    throw Error("give --reference or --reference-op, not both");
  }
  if (!case_file.empty()) {
    CheckFile file = load_check_file(case_file);
    if (options.op.empty()) options.op = file.op;
    if (options.version.empty()) options.version = file.version;
    options.cases = std::move(file.cases);
  }
  if (!flags_case.inputs.empty()) options.cases.push_back(std::move(flags_case));
  if (options.op.empty()) throw Error("no op given (--op, or \"op\" in the case file)");
  if (options.cases.empty()) throw Error("no case given (--case FILE or --input ...)");
  return options;
}

}  // namespace

int check_main(const std::vector<std::string_view>& args) {
  Options options;
  try {
    options = parse_check_args(args);
  } catch (const std::exception& e) {
    std::cerr << "autoplugin check: " << e.what() << "\n";
    check_usage(std::cerr);
    return kUsage;
  }
  Report report;
  CapturingLogger logger;
  const auto no_gpu =
      options.cpu_only ? std::optional<std::string>("--cpu given") : gpu_unavailable();
  report.header["library"] = options.library;
  report.header["op"] = options.op + (options.version.empty() ? "" : " v" + options.version);
  report.header["gpu"] =
      no_gpu ? "none (" + *no_gpu + "): everything but enqueue is checked" : gpu_name();
  try {
    PluginLibrary library(options.library, logger);
    if (!library.has_logger_finder()) {
      report.info("setLoggerFinder", "not exported: the library's log lines are not captured");
    }
    for (const CheckCase& c : options.cases) {
      CaseRun(options, c, library, logger, report, !no_gpu).run();
    }
  } catch (const std::exception& e) {
    report.fail("load", e.what());
  }
  if (options.json) {
    std::cout << report.to_json().dump(2) << "\n";
  } else {
    report.print(std::cout);
  }
  return report.failures() == 0 ? kOk : kFailed;
}

int inspect_main(const std::vector<std::string_view>& args) {
  if (args.empty() || args[0].starts_with("--")) {
    std::cerr << "usage: autoplugin inspect LIB.so [--json]\n";
    return kUsage;
  }
  const bool json = args.size() > 1 && args[1] == "--json";
  CapturingLogger logger;
  try {
    PluginLibrary library{std::string(args[0]), logger};
    nlohmann::json result{{"library", library.path()},
                          {"setLoggerFinder", library.has_logger_finder()}};
    result["creators"] = nlohmann::json::array();
    for (nvinfer1::IPluginCreatorInterface* c : library.creators()) {
      nlohmann::json entry{{"kind", c->getInterfaceInfo().kind}};
      if (is_v3_creator(*c)) {
        auto& creator = static_cast<nvinfer1::IPluginCreatorV3One&>(*c);
        entry["name"] = creator.getPluginName();
        entry["version"] = creator.getPluginVersion();
        entry["namespace"] = creator.getPluginNamespace();
        entry["fields"] = nlohmann::json::array();
        if (const auto* names = creator.getFieldNames()) {
          for (int i = 0; i < names->nbFields; ++i) {
            const auto& f = names->fields[i];
            entry["fields"].push_back({{"name", f.name ? f.name : ""},
                                       {"type", field_type_text(f.type)},
                                       {"length", f.length}});
          }
        }
      }
      result["creators"].push_back(entry);
    }
    if (json) {
      std::cout << result.dump(2) << "\n";
      return kOk;
    }
    std::cout << library.path() << ": " << result["creators"].size() << " creators"
              << (library.has_logger_finder() ? "" : " (no setLoggerFinder)") << "\n";
    for (const auto& entry : result["creators"]) {
      std::cout << "  " << entry["kind"].get<std::string>();
      if (entry.contains("name")) {
        const std::string ns = entry["namespace"];
        std::cout << "  " << (ns.empty() ? "" : ns + "::") << entry["name"].get<std::string>()
                  << "  version " << entry["version"].get<std::string>() << "\n";
        for (const auto& f : entry["fields"]) {
          std::cout << "      " << f["name"].get<std::string>() << ": "
                    << f["type"].get<std::string>() << " x"
                    << (f["length"].get<int>() == 0 ? std::string("N")
                                                    : std::to_string(f["length"].get<int>()))
                    << "\n";
        }
      } else {
        std::cout << "  (not an IPluginV3 creator)\n";
      }
    }
    for (const auto& line : logger.take()) std::cout << "  plugin log: " << line << "\n";
    return kOk;
  } catch (const std::exception& e) {
    std::cerr << "autoplugin inspect: " << e.what() << "\n";
    return kFailed;
  }
}

}  // namespace autoplugin::check
