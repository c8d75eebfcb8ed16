// The generic IPluginV3 plugin, instantiated per op: each method maps onto the core's Op.
#include <autoplugin/backend/shapes.h>
#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/error.h>
#include <autoplugin/trt/plugin.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "adapter_internal.h"

namespace autoplugin::trt {

using nvinfer1::DataType;

namespace {

void expect_count(const char* what, std::int32_t actual, int expected) {
  if (actual != expected) {
    throw Error("expected " + std::to_string(expected) + " " + what + ", TensorRT passed " +
                std::to_string(actual));
  }
}

DType dtype_of_tensor(DataType type, const std::string& tensor) {
  if (auto dtype = from_trt(type)) return *dtype;
  throw Error("tensor '" + tensor + "' has a TensorRT data type (" +
              std::to_string(static_cast<int>(type)) + ") that no autoplugin launcher accepts");
}

// Lowers the core's expression graph onto TensorRT's IExprBuilder. Symbols are the expressions
// TensorRT passed in; handles are IDimensionExpr pointers, valid during getOutputShapes only.
class BuilderSink final : public DimSink {
 public:
  // `present`: the op input index of each tensor TensorRT passed (symbols name op inputs).
  BuilderSink(nvinfer1::IExprBuilder& builder, const nvinfer1::DimsExprs* inputs,
              std::span<const int> present, const nvinfer1::DimsExprs* shape_inputs,
              int first_size_output)
      : builder_(builder),
        inputs_(inputs),
        present_(present),
        shape_inputs_(shape_inputs),
        first_size_output_(first_size_output) {}

  Handle constant(std::int64_t value) override { return checked(builder_.constant(value)); }
  Handle input_extent(int input, int axis, std::string_view) override {
    const auto position = std::find(present_.begin(), present_.end(), input);
    if (position == present_.end()) throw Error("an absent input's extent was used");
    return inputs_[position - present_.begin()].d[axis];
  }
  Handle shape_value(int shape_input, int index, std::string_view) override {
    return shape_inputs_[shape_input].d[index];
  }
  Handle size_tensor(int index, Handle opt, Handle upper) override {
    declared_.push_back(index);
    return checked(builder_.declareSizeTensor(first_size_output_ + index, expr(opt), expr(upper)));
  }
  Handle operation(DimOp op, Handle a, Handle b) override {
    return checked(builder_.operation(to_trt(op), expr(a), expr(b)));
  }
  bool declared(int index) const {
    return std::find(declared_.begin(), declared_.end(), index) != declared_.end();
  }

 private:
  static const nvinfer1::IDimensionExpr& expr(Handle h) {
    return *static_cast<const nvinfer1::IDimensionExpr*>(h);
  }
  static Handle checked(const nvinfer1::IDimensionExpr* e) {
    if (e == nullptr) throw Error("TensorRT's expression builder returned no expression");
    return e;
  }
  nvinfer1::IExprBuilder& builder_;
  const nvinfer1::DimsExprs* inputs_;
  std::span<const int> present_;
  const nvinfer1::DimsExprs* shape_inputs_;
  int first_size_output_;
  std::vector<int> declared_;
};

TensorRef tensor_ref(const nvinfer1::PluginTensorDesc& desc, const std::string& name) {
  TensorRef ref;
  ref.dtype = dtype_of_tensor(desc.type, name);
  const auto format = from_trt(desc.format);
  if (!format) throw Error("tensor '" + name + "' has a format autoplugin does not support");
  ref.format = *format;
  if (desc.dims.nbDims < 0 || desc.dims.nbDims > kMaxRank) {
    throw Error("tensor '" + name + "' has rank " + std::to_string(desc.dims.nbDims));
  }
  ref.rank = desc.dims.nbDims;
  for (int i = 0; i < ref.rank; ++i) ref.extents[std::size_t(i)] = desc.dims.d[i];
  return ref;
}

class Plugin final : public nvinfer1::IPluginV3,
                     public nvinfer1::IPluginV3OneCore,
                     public nvinfer1::IPluginV3OneBuildV2,
                     public nvinfer1::IPluginV3OneRuntime {
 public:
  Plugin(const Op& op, std::vector<AttrValue> attributes, AbsentInputs declared_absent,
         std::string instance)
      : op_(&op),
        attributes_(std::move(attributes)),
        bound_(op.bind_attributes(attributes_)),
        declared_absent_(declared_absent),
        instance_(std::move(instance)) {}

  // ---- IPluginV3 ----
  nvinfer1::IPluginCapability* getCapabilityInterface(
      nvinfer1::PluginCapabilityType type) noexcept override {
    switch (type) {
      case nvinfer1::PluginCapabilityType::kCORE:
        return static_cast<nvinfer1::IPluginV3OneCore*>(this);
      case nvinfer1::PluginCapabilityType::kBUILD:
        return static_cast<nvinfer1::IPluginV3OneBuildV2*>(this);
      case nvinfer1::PluginCapabilityType::kRUNTIME:
        return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
    }
    return nullptr;
  }

  // A copy of the configuration; nothing on the device is allocated or shared.
  nvinfer1::IPluginV3* clone() noexcept override {
    return guarded<nvinfer1::IPluginV3*>(*op_, instance_, "clone", nullptr,
                                         [&] { return new Plugin(*this); });
  }

  // ---- IPluginV3OneCore ----
  const char* getPluginName() const noexcept override { return op_->plugin_name().c_str(); }
  const char* getPluginVersion() const noexcept override { return op_->version().c_str(); }
  const char* getPluginNamespace() const noexcept override {
    return op_->plugin_namespace().c_str();
  }

  // ---- IPluginV3OneBuild ----
  std::int32_t getNbOutputs() const noexcept override { return op_->num_outputs(); }

  std::int32_t getOutputDataTypes(DataType* output_types, std::int32_t nb_outputs,
                                  const DataType* input_types,
                                  std::int32_t nb_inputs) const noexcept override {
    return guarded(*op_, instance_, "getOutputDataTypes", kFailure, [&] {
      const AbsentInputs absent = absent_for(nb_inputs);
      expect_count("outputs", nb_outputs, op_->num_outputs());
      const std::vector<int> present = op_->present_inputs(absent);
      std::vector<DType> inputs(std::size_t(op_->num_inputs()), DType::Float32);
      for (int p = 0; p < nb_inputs; ++p) {
        const int k = present[std::size_t(p)];
        inputs[std::size_t(k)] = dtype_of_tensor(input_types[p], op_->input(k).name);
      }
      for (int j = 0; j < nb_outputs; ++j) {
        output_types[j] = *to_trt(op_->output_dtype(j, inputs, attributes_, absent));
      }
      return 0;
    });
  }

  std::int32_t getOutputShapes(const nvinfer1::DimsExprs* inputs, std::int32_t nb_inputs,
                               const nvinfer1::DimsExprs* shape_inputs,
                               std::int32_t nb_shape_inputs, nvinfer1::DimsExprs* outputs,
                               std::int32_t nb_outputs,
                               nvinfer1::IExprBuilder& builder) noexcept override {
    return guarded(*op_, instance_, "getOutputShapes", kFailure, [&] {
      const AbsentInputs absent = absent_for(nb_inputs);
      const std::vector<int> present = op_->present_inputs(absent);
      expect_count("shape inputs", nb_shape_inputs, op_->num_shape_inputs());
      expect_count("outputs", nb_outputs, op_->num_outputs());
      // Extents TensorRT already knows enter as constants, so they fold before reaching it.
      auto shapes_of = [](const nvinfer1::DimsExprs* dims, int count, auto&& name_of,
                          auto&& make_symbol) {
        std::vector<Shape> result(static_cast<std::size_t>(count));
        for (int k = 0; k < count; ++k) {
          for (int i = 0; i < dims[k].nbDims; ++i) {
            const nvinfer1::IDimensionExpr* e = dims[k].d[i];
            result[std::size_t(k)].push_back(
                e->isConstant() ? Dim(e->getConstantValue())
                                : make_symbol(k, i, name_of(k) + "[" + std::to_string(i) + "]"));
          }
        }
        return result;
      };
      // By op input index: an absent input's entry stays empty.
      const std::vector<Shape> passed = shapes_of(
          inputs, nb_inputs, [&](int p) { return op_->input(present[std::size_t(p)]).name; },
          [&](int p, int i, std::string label) {
            return Dim::input_extent(present[std::size_t(p)], i, label);
          });
      std::vector<Shape> in(std::size_t(op_->num_inputs()));
      for (int p = 0; p < nb_inputs; ++p) in[std::size_t(present[std::size_t(p)])] = passed[p];
      const std::vector<Shape> shape_in = shapes_of(
          shape_inputs, nb_shape_inputs, [&](int k) { return op_->shape_input(k).name; },
          [](int k, int i, std::string label) { return Dim::shape_value(k, i, label); });
      ShapeScope scope;
      std::vector<Shape> shapes = op_->output_shapes(in, shape_in, attributes_, scope, absent);
      const std::vector<Requirement> folded =
          fold_shape_value_requirements(shapes, scope.requirements());
      if (!folded.empty()) log_folded_requirements(folded);
      BuilderSink sink(builder, inputs, present, shape_inputs, op_->num_returns());
      Lowering lowering(sink);
      for (int j = 0; j < op_->num_returns(); ++j) {
        const Shape& shape = shapes[std::size_t(j)];
        outputs[j].nbDims = static_cast<std::int32_t>(shape.rank());
        for (std::size_t i = 0; i < shape.rank(); ++i) {
          outputs[j].d[i] = static_cast<const nvinfer1::IDimensionExpr*>(lowering.lower(shape[i]));
        }
      }
      // Size tensors are 0-d; each is declared once, also when no output extent uses it.
      for (int s = 0; s < op_->num_size_tensors(); ++s) {
        outputs[op_->num_returns() + s].nbDims = 0;
        if (!sink.declared(s)) {
          const SizeTensorDecl& decl = scope.size_tensors()[std::size_t(s)];
          sink.size_tensor(s, lowering.lower(decl.opt), lowering.lower(decl.upper));
        }
      }
      return 0;
    });
  }

  bool supportsFormatCombination(std::int32_t pos, const nvinfer1::DynamicPluginTensorDesc* in_out,
                                 std::int32_t nb_inputs,
                                 std::int32_t nb_outputs) noexcept override {
    return guarded(*op_, instance_, "supportsFormatCombination", false, [&] {
      const AbsentInputs absent = absent_for(nb_inputs);
      expect_count("outputs", nb_outputs, op_->num_outputs());
      if (pos < 0 || pos >= nb_inputs + nb_outputs) return false;
      // TensorRT's positions (present inputs, outputs) onto the op's (every input, outputs).
      const std::vector<int> present = op_->present_inputs(absent);
      auto op_position = [&](int p) {
        return p < nb_inputs ? present[std::size_t(p)] : op_->num_inputs() + (p - nb_inputs);
      };
      // Only positions 0..pos are read, as TensorRT requires.
      std::vector<PortDesc> ports(std::size_t(op_position(pos)) + 1);
      for (int p = 0; p <= pos; ++p) {
        const auto dtype = from_trt(in_out[p].desc.type);
        const auto format = from_trt(in_out[p].desc.format);
        if (!dtype || !format) return false;
        ports[std::size_t(op_position(p))] = {*dtype, *format};
      }
      return op_->supports(op_position(pos), ports, attributes_, absent);
    });
  }

  std::int32_t configurePlugin(const nvinfer1::DynamicPluginTensorDesc* in, std::int32_t nb_inputs,
                               const nvinfer1::DynamicPluginTensorDesc* out,
                               std::int32_t nb_outputs) noexcept override {
    return guarded(*op_, instance_, "configurePlugin", kFailure, [&] {
      configured_absent_ = absent_for(nb_inputs);
      expect_count("outputs", nb_outputs, op_->num_outputs());
      const std::vector<int> present = op_->present_inputs(configured_absent_);
      check_profile_requirements(in, present, configured_absent_);
      configured_dtypes_.assign(std::size_t(op_->num_inputs()), DType::Float32);
      for (int p = 0; p < nb_inputs; ++p) {
        const int k = present[std::size_t(p)];
        configured_dtypes_[std::size_t(k)] = dtype_of_tensor(in[p].desc.type, op_->input(k).name);
      }
      for (int j = 0; j < op_->num_returns(); ++j) {
        configured_dtypes_.push_back(dtype_of_tensor(out[j].desc.type, op_->output_name(j)));
      }
      return 0;
    });
  }

  std::size_t getWorkspaceSize(const nvinfer1::DynamicPluginTensorDesc* inputs,
                               std::int32_t nb_inputs, const nvinfer1::DynamicPluginTensorDesc*,
                               std::int32_t) const noexcept override {
    return guarded(*op_, instance_, "getWorkspaceSize", std::size_t{0}, [&] {
      if (!op_->has_workspace()) return std::size_t{0};
      const AbsentInputs absent = absent_for(nb_inputs);
      const std::vector<int> present = op_->present_inputs(absent);
      std::vector<Shape> largest(std::size_t(op_->num_inputs()));
      for (int p = 0; p < nb_inputs; ++p) {
        largest[std::size_t(present[std::size_t(p)])] = Shape::concrete(
            std::span<const std::int64_t>(inputs[p].max.d, std::size_t(inputs[p].max.nbDims)));
      }
      return op_->workspace_size(largest, shape_inputs_unknown(), attributes_, absent);
    });
  }

  std::int32_t getNbTactics() noexcept override {
    return guarded(*op_, instance_, "getNbTactics", 0, [&] {
      const int count = op_->tactic_count(configured_dtypes_, configured_absent_);
      return count > 1 ? count : 0;
    });
  }

  std::int32_t getValidTactics(std::int32_t* tactics, std::int32_t nb_tactics) noexcept override {
    return guarded(*op_, instance_, "getValidTactics", kFailure, [&] {
      expect_count("tactics", nb_tactics, getNbTactics());
      for (int t = 0; t < nb_tactics; ++t) tactics[t] = t + 1;
      return 0;
    });
  }

  // Encodes everything the kernel's timing depends on besides shapes: the op and its attributes.
  const char* getTimingCacheID() noexcept override {
    return guarded<const char*>(*op_, instance_, "getTimingCacheID", nullptr, [&] {
      timing_cache_id_ = op_->qualified_name() + "/" + op_->version();
      for (std::size_t a = 0; a < attributes_.size(); ++a) {
        timing_cache_id_ +=
            (a == 0 ? "(" : ",") + op_->attributes()[a]->name + "=" + to_string(attributes_[a]);
      }
      if (!attributes_.empty()) timing_cache_id_ += ")";
      // Which inputs are absent changes what the kernel does, as an attribute would.
      for (int k : declared_absent_.indices()) {
        timing_cache_id_ +=
            (k == declared_absent_.indices().front() ? "[absent " : ",") + op_->input(k).name;
      }
      if (!declared_absent_.empty()) timing_cache_id_ += "]";
      return timing_cache_id_.c_str();
    });
  }

  const char* getMetadataString() noexcept override { return op_->schema().text.c_str(); }

  std::int32_t getAliasedInput(std::int32_t output_index) noexcept override {
    return op_->aliased_input(output_index);
  }

  // ---- IPluginV3OneRuntime ----
  // TensorRT may set the tactic after onShapeChange: the launcher follows it.
  std::int32_t setTactic(std::int32_t tactic) noexcept override {
    return guarded(*op_, instance_, "setTactic", kFailure, [&] {
      tactic_ = tactic;
      if (launcher_ == nullptr) return 0;
      const LauncherEntry* current = launcher_;
      launcher_ = nullptr;  // none until one matches the new tactic
      launcher_ = &op_->launcher_for(current->dtypes, tactic_);
      return 0;
    });
  }

  // Everything enqueue needs is prepared here: tensor descriptions, the launcher for these dtypes
  // and tactic, the workspace size. Requirements that only concrete extents decide are checked.
  std::int32_t onShapeChange(const nvinfer1::PluginTensorDesc* in, std::int32_t nb_inputs,
                             const nvinfer1::PluginTensorDesc* out,
                             std::int32_t nb_outputs) noexcept override {
    return guarded(*op_, instance_, "onShapeChange", kFailure, [&] {
      launcher_ = nullptr;
      const AbsentInputs absent = absent_for(nb_inputs);
      expect_count("outputs", nb_outputs, op_->num_outputs());
      present_ = op_->present_inputs(absent);
      TensorRef absent_ref;
      absent_ref.present = false;
      inputs_.assign(std::size_t(op_->num_inputs()), absent_ref);
      outputs_.clear();
      size_outputs_.clear();
      std::vector<DType> dtypes(std::size_t(op_->num_inputs()), DType::Float32);
      std::vector<Shape> input_shapes(std::size_t(op_->num_inputs()));
      for (int p = 0; p < nb_inputs; ++p) {
        const auto k = std::size_t(present_[std::size_t(p)]);
        inputs_[k] = tensor_ref(in[p], op_->input(int(k)).name);
        dtypes[k] = inputs_[k].dtype;
        input_shapes[k] = Shape::concrete(
            std::span<const std::int64_t>(in[p].dims.d, std::size_t(in[p].dims.nbDims)));
      }
      for (int j = 0; j < nb_outputs; ++j) {
        TensorRef ref = tensor_ref(out[j], op_->output_name(j));
        refuse_negative_extents(ref, j);
        if (j < op_->num_returns()) {
          dtypes.push_back(ref.dtype);
          outputs_.push_back(ref);
        } else {
          size_outputs_.push_back(ref);
        }
      }
      const LauncherEntry* launcher = &op_->launcher_for(dtypes, tactic_, absent);
      // With concrete extents, requirements on them are decided (a failed one throws). Ops with
      // shape inputs are left to getOutputShapes: their values are not visible at run time.
      const std::vector<Shape> shape_inputs = shape_inputs_unknown();
      if (op_->num_shape_inputs() == 0) {
        ShapeScope scope;
        op_->output_shapes(input_shapes, shape_inputs, attributes_, scope, absent);
      }
      workspace_size_ = op_->has_workspace()
                            ? op_->workspace_size(input_shapes, shape_inputs, attributes_, absent)
                            : 0;
      launcher_ = launcher;
      return 0;
    });
  }

  // The hot path: fill in addresses, call the launcher, check its status. No allocation.
  std::int32_t enqueue(const nvinfer1::PluginTensorDesc*, const nvinfer1::PluginTensorDesc*,
                       const void* const* inputs, void* const* outputs, void* workspace,
                       cudaStream_t stream) noexcept override {
    return guarded(*op_, instance_, "enqueue", kFailure, [&] {
      if (launcher_ == nullptr) throw Error("enqueue without a successful onShapeChange");
      for (std::size_t p = 0; p < present_.size(); ++p) {
        inputs_[std::size_t(present_[p])].data = const_cast<void*>(inputs[p]);
      }
      for (std::size_t j = 0; j < outputs_.size(); ++j) outputs_[j].data = outputs[j];
      for (std::size_t s = 0; s < size_outputs_.size(); ++s) {
        size_outputs_[s].data = outputs[outputs_.size() + s];
      }
      const LaunchArgs args{inputs_,     outputs_, size_outputs_,
                            attributes_, stream,   Workspace{workspace, workspace_size_},
                            bound_};
      const LauncherEntry* ran = launcher_;
      const std::int64_t status = op_->launch(*launcher_, args, &ran);
      if (status != 0) {
        throw Error("launcher '" + ran->launcher->name + "' returned status " +
                    std::to_string(status));
      }
      if (ran->launcher->returns_status) return 0;
      const cudaError_t error = cudaGetLastError();
      if (error != cudaSuccess) {
        throw Error("launcher '" + ran->launcher->name + "' left CUDA error " +
                    cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
      }
      return 0;
    });
  }

  nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override {
    return clone();
  }

  // Rebuilt on every call from this object's own attributes, so the fields never point into
  // another plugin (the source of a clone may be destroyed first).
  const nvinfer1::PluginFieldCollection* getFieldsToSerialize() noexcept override {
    return guarded<const nvinfer1::PluginFieldCollection*>(
        *op_, instance_, "getFieldsToSerialize", nullptr, [&] {
          serialized_ = op_->encode_fields(attributes_, declared_absent_);
          collection_ = to_trt(serialized_, fields_);
          return &collection_;
        });
  }

 private:
  Plugin(const Plugin&) = default;

  void log_folded_requirements(const std::vector<Requirement>& folded) const {
    std::string text;
    for (const Requirement& r : folded) {
      text +=
          (text.empty() ? "" : "; ") + to_string(r.condition.as_dim()) + " (\"" + r.message + "\")";
    }
    log(nvinfer1::ILogger::Severity::kVERBOSE,
        "op '" + op_->qualified_name() + "' (layer '" + instance_ +
            "'): requirements on shape-input values, enforced by making every output extent -1 "
            "when one fails: " +
            text);
  }

  // A profile whose smallest or largest shapes break a requirement on input extents would give an
  // engine that accepts shapes the op refuses: the build fails here instead. Requirements on
  // shape-input values are left to getOutputShapes (their values are not known here), and so are
  // ops with SymInt[] arguments, whose lengths are not known here either.
  void check_profile_requirements(const nvinfer1::DynamicPluginTensorDesc* in,
                                  const std::vector<int>& present,
                                  const AbsentInputs& absent) const {
    for (int k = 0; k < op_->num_shape_inputs(); ++k) {
      if (op_->shape_input(k).type.is_list) return;
    }
    const auto check_at = [&](const char* point, auto&& dims_of) {
      std::vector<Shape> shapes(std::size_t(op_->num_inputs()));  // absent inputs stay empty
      std::string text;
      for (std::size_t p = 0; p < present.size(); ++p) {
        const int k = present[p];
        const nvinfer1::Dims& dims = dims_of(in[p]);
        if (dims.nbDims < 0 || dims.nbDims > kMaxRank) return;
        const std::span<const std::int64_t> extents(dims.d, std::size_t(dims.nbDims));
        if (std::any_of(extents.begin(), extents.end(), [](std::int64_t e) { return e < 0; })) {
          return;  // not a profile: nothing to check
        }
        shapes[std::size_t(k)] = Shape::concrete(extents);
        text += (text.empty() ? "" : ", ") + op_->input(k).name + " " +
                to_string(shapes[std::size_t(k)]);
      }
      try {
        ShapeScope scope;
        op_->output_shapes(shapes, shape_inputs_unknown(), attributes_, scope, absent);
      } catch (const ShapeError& e) {
        std::string what = e.what();
        const std::string prefix = "op '" + op_->qualified_name() + "': ";
        if (what.starts_with(prefix)) what.erase(0, prefix.size());
        throw Error(std::string("the profile's ") + point + " shapes (" + text +
                    ") break a requirement of the op, so the engine would accept shapes the op "
                    "refuses: " +
                    what);
      }
    };
    check_at("min", [](const nvinfer1::DynamicPluginTensorDesc& d) -> const nvinfer1::Dims& {
      return d.min;
    });
    check_at("max", [](const nvinfer1::DynamicPluginTensorDesc& d) -> const nvinfer1::Dims& {
      return d.max;
    });
  }

  // getOutputShapes makes every extent -1 when a requirement on shape-input values fails;
  // TensorRT refuses such shapes itself, and this is the plugin's own guard before any launch.
  // (A data-dependent extent is -1 here too: ops with size tensors are left to TensorRT.)
  void refuse_negative_extents(const TensorRef& ref, int output) const {
    if (op_->num_shape_inputs() == 0 || op_->num_size_tensors() > 0) return;
    for (int i = 0; i < ref.rank; ++i) {
      if (ref.extents[std::size_t(i)] >= 0) continue;
      std::string names;
      for (int k = 0; k < op_->num_shape_inputs(); ++k) {
        names += (names.empty() ? "'" : ", '") + op_->shape_input(k).name + "'";
      }
      throw Error("output '" + op_->output_name(output) + "' has extent " +
                  std::to_string(ref.extents[std::size_t(i)]) + " on axis " + std::to_string(i) +
                  ": a requirement on the values of " + names +
                  " failed (autoplugin describe lists them)");
    }
  }

  // The inputs absent in a call where TensorRT passes `nb_inputs` tensors: those the reserved
  // field declared, and the trailing ones it leaves out. Too many or a required one missing
  // throws.
  AbsentInputs absent_for(std::int32_t nb_inputs) const {
    const int most = op_->num_inputs() - static_cast<int>(declared_absent_.indices().size());
    if (nb_inputs < 0 || nb_inputs > most) expect_count("inputs", nb_inputs, most);
    return op_->absent_inputs(declared_absent_, nb_inputs);
  }

  // Shape inputs' values (and a SymInt[]'s length) are only visible to getOutputShapes; a
  // workspace function that uses them fails with a message saying so.
  std::vector<Shape> shape_inputs_unknown() const {
    std::vector<Shape> shapes;
    for (int k = 0; k < op_->num_shape_inputs(); ++k) {
      const Argument& a = op_->shape_input(k);
      Shape values;
      if (!a.type.is_list) values.push_back(Dim::shape_value(k, 0, a.name));
      shapes.push_back(std::move(values));
    }
    return shapes;
  }

  const Op* op_;
  std::vector<AttrValue> attributes_;
  std::vector<BoundValues> bound_;  // user-bound attribute types, decoded once (shared by clones)
  AbsentInputs declared_absent_;    // by the reserved field; trailing ones by TensorRT's count
  std::string instance_;
  std::vector<DType> configured_dtypes_;  // by op input index (absent ones' entries unread)
  AbsentInputs configured_absent_;
  std::int32_t tactic_ = 0;
  const LauncherEntry* launcher_ = nullptr;
  std::vector<int> present_;       // the op input index of each tensor TensorRT passes
  std::vector<TensorRef> inputs_;  // by op input index
  std::vector<TensorRef> outputs_;
  std::vector<TensorRef> size_outputs_;
  std::size_t workspace_size_ = 0;
  std::string timing_cache_id_;
  FieldList serialized_;
  std::vector<nvinfer1::PluginField> fields_;
  nvinfer1::PluginFieldCollection collection_{};
};

}  // namespace

nvinfer1::IPluginV3* make_plugin(const Op& op, std::vector<AttrValue> attributes,
                                 AbsentInputs declared_absent, std::string instance) {
  return new Plugin(op, std::move(attributes), declared_absent, std::move(instance));
}

}  // namespace autoplugin::trt
