// The parameter traits of <autoplugin/binding.h>: every built-in and user-bound attribute type,
// tensors, stream, workspace and shape-function types, each a few lines, read together, with the
// static_asserts that name what to change; and the descriptors made from a callable's signature.
// Not for op authors: include <autoplugin/autoplugin.h> (or <autoplugin/binding.h>).
#pragma once

#include <autoplugin/binding.h>

namespace autoplugin {
namespace detail {

template <typename T>
inline constexpr bool dependent_false = false;

// ---- type names, made at compile time for messages --------------------------------------------
// The concatenation of string_views that have static storage duration. Pointers, not
// references: nvcc's host-code pass turns a reference template argument into a pointer.
template <const std::string_view*... Parts>
struct JoinedName {
  static constexpr auto storage = [] {
    std::array<char, (Parts->size() + ... + 0) + 1> chars{};
    std::size_t at = 0;
    ((std::copy(Parts->begin(), Parts->end(), chars.begin() + static_cast<std::ptrdiff_t>(at)),
      at += Parts->size()),
     ...);
    return chars;
  }();
  static constexpr std::string_view value{storage.data(), storage.size() - 1};
};
inline constexpr std::string_view kOptionalPrefix = "std::optional<";
inline constexpr std::string_view kTemplateEnd = ">";

// The compiler's spelling of T, read from the function signature it prints ("... [with T = X;"
// from GCC, "... [T = X]" from Clang).
template <typename T>
constexpr std::string_view compiler_type_name() {
  const std::string_view signature = __PRETTY_FUNCTION__;
  const std::size_t start = signature.find("T = ");
  if (start == std::string_view::npos) return "a user-bound type";
  const std::string_view rest = signature.substr(start + 4);
  return rest.substr(0, rest.find_first_of(";]"));
}
template <typename T>
constexpr std::string_view user_type_name() {
  if constexpr (requires { AttrBinding<T>::name; }) {
    return AttrBinding<T>::name;
  } else {
    return compiler_type_name<T>();
  }
}

// ---- attribute value types -------------------------------------------------------------------
template <typename T>
struct AttrTraits {
  static constexpr bool supported = false;
};

template <typename T, BaseType Base, bool List>
struct AttrTraitsBase {
  static constexpr bool supported = true;
  static constexpr BaseType base = Base;
  static constexpr bool is_list = List;
  static constexpr bool is_optional = false;
  static constexpr bool user_bound = false;
  static constexpr bool (*fits)(const AttrValue&) = nullptr;
};

template <>
struct AttrTraits<std::int64_t> : AttrTraitsBase<std::int64_t, BaseType::Int, false> {
  static constexpr std::string_view name = "int64_t";
  static std::int64_t get(const AttrValue& v) { return std::get<std::int64_t>(v); }
};
template <>
struct AttrTraits<std::int32_t> : AttrTraitsBase<std::int32_t, BaseType::Int, false> {
  static constexpr std::string_view name = "int32_t";
  static std::int32_t get(const AttrValue& v) {
    return static_cast<std::int32_t>(std::get<std::int64_t>(v));
  }
  static bool fits_int32(const AttrValue& v) {
    const auto* x = std::get_if<std::int64_t>(&v);
    return x == nullptr || (*x >= std::numeric_limits<std::int32_t>::min() &&
                            *x <= std::numeric_limits<std::int32_t>::max());
  }
  static constexpr bool (*fits)(const AttrValue&) = &fits_int32;
};
template <>
struct AttrTraits<double> : AttrTraitsBase<double, BaseType::Float, false> {
  static constexpr std::string_view name = "double";
  static double get(const AttrValue& v) { return std::get<double>(v); }
};
template <>
struct AttrTraits<float> : AttrTraitsBase<float, BaseType::Float, false> {
  static constexpr std::string_view name = "float";
  static float get(const AttrValue& v) { return static_cast<float>(std::get<double>(v)); }
};
template <>
struct AttrTraits<bool> : AttrTraitsBase<bool, BaseType::Bool, false> {
  static constexpr std::string_view name = "bool";
  static bool get(const AttrValue& v) { return std::get<bool>(v); }
};
template <>
struct AttrTraits<std::string_view> : AttrTraitsBase<std::string_view, BaseType::Str, false> {
  static constexpr std::string_view name = "std::string_view";
  static std::string_view get(const AttrValue& v) { return std::get<std::string>(v); }
};
template <>
struct AttrTraits<std::string> : AttrTraitsBase<std::string, BaseType::Str, false> {
  static constexpr std::string_view name = "std::string";
  static const std::string& get(const AttrValue& v) { return std::get<std::string>(v); }
};
template <>
struct AttrTraits<DType> : AttrTraitsBase<DType, BaseType::ScalarType, false> {
  static constexpr std::string_view name = "autoplugin::DType";
  static DType get(const AttrValue& v) { return std::get<DType>(v); }
};
template <>
struct AttrTraits<std::span<const std::int64_t>>
    : AttrTraitsBase<std::span<const std::int64_t>, BaseType::Int, true> {
  static constexpr std::string_view name = "std::span<const int64_t>";
  static std::span<const std::int64_t> get(const AttrValue& v) { return std::get<IntList>(v); }
};
template <>
struct AttrTraits<IntList> : AttrTraitsBase<IntList, BaseType::Int, true> {
  static constexpr std::string_view name = "std::vector<int64_t>";
  static const IntList& get(const AttrValue& v) { return std::get<IntList>(v); }
};
template <>
struct AttrTraits<std::span<const double>>
    : AttrTraitsBase<std::span<const double>, BaseType::Float, true> {
  static constexpr std::string_view name = "std::span<const double>";
  static std::span<const double> get(const AttrValue& v) { return std::get<FloatList>(v); }
};
template <>
struct AttrTraits<FloatList> : AttrTraitsBase<FloatList, BaseType::Float, true> {
  static constexpr std::string_view name = "std::vector<double>";
  static const FloatList& get(const AttrValue& v) { return std::get<FloatList>(v); }
};
template <>
struct AttrTraits<std::span<const bool>>
    : AttrTraitsBase<std::span<const bool>, BaseType::Bool, true> {
  static constexpr std::string_view name = "std::span<const bool>";
  static std::span<const bool> get(const AttrValue& v) { return std::get<BoolList>(v).span(); }
};

template <typename T>
concept UserBound = requires {
  typename AttrBinding<T>::schema_type;
};

// std::optional<T> binds to the optional form of T's schema type and receives None as nullopt.
template <typename T>
requires(AttrTraits<T>::supported && !UserBound<T>) struct AttrTraits<std::optional<T>>
    : AttrTraits<T> {
  static constexpr bool is_optional = true;
  static constexpr std::string_view name =
      JoinedName<&kOptionalPrefix, &AttrTraits<T>::name, &kTemplateEnd>::value;
  static std::optional<std::remove_cvref_t<decltype(AttrTraits<T>::get(std::declval<AttrValue>()))>>
  get(const AttrValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
    return AttrTraits<T>::get(v);
  }
};

// A user-bound type (see AttrBinding): the schema type of its `schema_type`, decoded by its
// binding once per plugin.
template <typename T>
struct UserBoundTraits : AttrTraits<std::remove_cvref_t<typename AttrBinding<T>::schema_type>> {
  using Schema = AttrTraits<std::remove_cvref_t<typename AttrBinding<T>::schema_type>>;
  static_assert(Schema::supported && !Schema::is_optional && !Schema::user_bound,
                "autoplugin: AttrBinding<T>::schema_type must be a built-in, non-optional "
                "attribute parameter type (int64_t, double, bool, std::string_view, "
                "std::span<const int64_t>, autoplugin::DType, ...)");
  static constexpr bool user_bound = true;
  static constexpr std::string_view name = user_type_name<T>();
  static constexpr bool (*fits)(const AttrValue&) = nullptr;
  static T decode(const AttrValue& v) { return AttrBinding<T>::decode(Schema::get(v)); }
};
template <UserBound T>
struct AttrTraits<T> : UserBoundTraits<T> {
  using Value = T;
};
template <UserBound T>
struct AttrTraits<std::optional<T>> : UserBoundTraits<T> {
  using Value = std::optional<T>;
  static constexpr bool is_optional = true;
  static constexpr std::string_view name =
      JoinedName<&kOptionalPrefix, &UserBoundTraits<T>::name, &kTemplateEnd>::value;
  static std::optional<T> decode(const AttrValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
    return UserBoundTraits<T>::decode(v);
  }
};

// Decodes a user-bound attribute into a shared, immutable value (the plugin keeps it).
template <typename T>
std::shared_ptr<const void> bind_attribute(const AttrValue& value) {
  using Traits = AttrTraits<T>;
  return std::make_shared<const typename Traits::Value>(Traits::decode(value));
}

template <typename P>
ParamDescriptor attribute_param() {
  using Traits = AttrTraits<std::remove_cvref_t<P>>;
  ParamDescriptor d;
  d.base = Traits::base;
  d.is_list = Traits::is_list;
  d.is_optional = Traits::is_optional;
  d.cpp_type = Traits::name;
  d.fits = Traits::fits;
  if constexpr (Traits::user_bound) d.binder = &bind_attribute<std::remove_cvref_t<P>>;
  return d;
}

// ---- launcher parameters ---------------------------------------------------------------------
template <typename T>
inline constexpr bool owns_heap_memory =
    std::is_same_v<T, std::string> || std::is_same_v<T, IntList> || std::is_same_v<T, FloatList>;
template <typename T>
inline constexpr bool is_optional_owning = false;
template <typename T>
inline constexpr bool is_optional_owning<std::optional<T>> = owns_heap_memory<T>;

// enqueue must not allocate: strings and lists reach launchers as views or const references.
template <typename P>
struct NoCopyInEnqueue {
  using Value = std::remove_cvref_t<P>;
  static_assert(!owns_heap_memory<Value> || std::is_reference_v<P>,
                "autoplugin: a launcher takes strings and lists as std::string_view / std::span "
                "or by const reference; a by-value copy would allocate in every enqueue");
  static_assert(!is_optional_owning<Value>,
                "autoplugin: std::optional of a string or list would copy in every enqueue; "
                "take std::optional<std::string_view> or std::optional<std::span<const T>>");
  static constexpr bool value = true;
};

template <typename P>
struct LaunchParam {
  using Value = std::remove_cvref_t<P>;
  static_assert(
      AttrTraits<Value>::supported,
      "autoplugin: unsupported launcher parameter type. A launcher takes "
      "autoplugin::In<T>, OptIn<T>, Out<T>, SizeOut, Workspace, cudaStream_t, and attribute "
      "values "
      "(int64_t, int32_t, double, float, bool, std::string_view, DType, "
      "std::span<const int64_t/double/bool>, or std::optional of these). Launchers do not "
      "take SymInt or SymInt[] arguments (Dim, Shape): their values are the outputs' extents.");
  static ParamDescriptor describe() { return attribute_param<P>(); }
  static decltype(auto) get(const LaunchArgs& a, std::size_t k) {
    if constexpr (AttrTraits<Value>::user_bound) {
      using Bound = typename AttrTraits<Value>::Value;
      return *static_cast<const Bound*>(find_bound_value(a.bound, k, &bind_attribute<Value>));
    } else {
      return AttrTraits<Value>::get(a.attributes[k]);
    }
  }
  static constexpr Role role = Role::Attribute;
};
template <typename T>
struct LaunchParam<In<T>> {
  static constexpr Role role = Role::Input;
  static ParamDescriptor describe() {
    return {Role::Input, dtype_v<T>, BaseType::Tensor, false, false, "In"};
  }
  static In<T> get(const LaunchArgs& a, std::size_t k) { return In<T>::from(a.inputs[k]); }
};
template <typename T>
struct LaunchParam<OptIn<T>> {
  static constexpr Role role = Role::OptionalInput;
  static ParamDescriptor describe() {
    return {Role::OptionalInput, dtype_v<T>, BaseType::Tensor, false, true, "OptIn"};
  }
  static OptIn<T> get(const LaunchArgs& a, std::size_t k) { return OptIn<T>::from(a.inputs[k]); }
};
template <typename T>
struct LaunchParam<Out<T>> {
  static constexpr Role role = Role::Output;
  static ParamDescriptor describe() {
    return {Role::Output, dtype_v<T>, BaseType::Tensor, false, false, "Out"};
  }
  static Out<T> get(const LaunchArgs& a, std::size_t k) { return Out<T>::from(a.outputs[k]); }
};
template <>
struct LaunchParam<SizeOut> {
  static constexpr Role role = Role::SizeOutput;
  static ParamDescriptor describe() {
    return {Role::SizeOutput, DType::Int32, BaseType::Tensor, false, false, "SizeOut"};
  }
  static SizeOut get(const LaunchArgs& a, std::size_t k) {
    return SizeOut::from(a.size_outputs[k]);
  }
};
template <>
struct LaunchParam<Stream> {
  static constexpr Role role = Role::CudaStream;
  static ParamDescriptor describe() {
    return {Role::CudaStream, DType::Float32, BaseType::Tensor, false, false, "cudaStream_t"};
  }
  static Stream get(const LaunchArgs& a, std::size_t) { return a.stream; }
};

template <>
struct LaunchParam<Workspace> {
  static constexpr Role role = Role::ScratchSpace;
  static ParamDescriptor describe() {
    return {Role::ScratchSpace, DType::Float32, BaseType::Tensor, false, false, "Workspace"};
  }
  static Workspace get(const LaunchArgs& a, std::size_t) { return a.workspace; }
};

// The k-th parameter of its role: parameter i of roles[] gets index (count of roles[j] == roles[i],
// j < i).
// In<T> and OptIn<T> both index the op's inputs, so they count as one role here.
constexpr Role index_class(Role role) { return role == Role::OptionalInput ? Role::Input : role; }
template <std::size_t N>
constexpr std::array<std::size_t, N> role_indices(const std::array<Role, N>& roles) {
  std::array<std::size_t, N> indices{};
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      indices[i] += index_class(roles[j]) == index_class(roles[i]) ? 1 : 0;
    }
  }
  return indices;
}

// ---- shape function parameters ---------------------------------------------------------------
template <typename P>
struct ShapeParam {
  using Value = std::remove_cvref_t<P>;
  static_assert(AttrTraits<Value>::supported,
                "autoplugin: unsupported shape function parameter type. A shape function takes "
                "the schema's arguments in order: autoplugin::Shape for Tensor and SymInt[], "
                "std::optional<Shape> for Tensor?, Dim for SymInt, and attribute values typed as "
                "for a launcher.");
  static ParamDescriptor describe() { return attribute_param<P>(); }
  static decltype(auto) get(const ShapeArg& a) {
    if constexpr (AttrTraits<Value>::user_bound) {
      return AttrTraits<Value>::decode(*a.value);
    } else {
      return AttrTraits<Value>::get(*a.value);
    }
  }
};
template <>
struct ShapeParam<Shape> {
  static ParamDescriptor describe() {
    return {Role::Shape, DType::Float32, BaseType::Tensor, false, false, "Shape"};
  }
  static const Shape& get(const ShapeArg& a) { return *a.shape; }
};
template <>
struct ShapeParam<std::optional<Shape>> {
  static ParamDescriptor describe() {
    return {Role::OptionalShape,   DType::Float32, BaseType::Tensor, false, true,
            "std::optional<Shape>"};
  }
  static std::optional<Shape> get(const ShapeArg& a) {
    return a.shape ? std::optional<Shape>(*a.shape) : std::nullopt;
  }
};
template <>
struct ShapeParam<Dim> {
  static ParamDescriptor describe() {
    return {Role::DimValue, DType::Float32, BaseType::SymInt, false, false, "Dim"};
  }
  static const Dim& get(const ShapeArg& a) { return (*a.shape)[0]; }
};

template <typename R>
struct ShapeResult {
  static_assert(dependent_false<R>,
                "autoplugin: a shape function returns Shape, std::vector<Shape>, "
                "std::array<Shape, N>, std::pair<Shape, Shape> or std::tuple<Shape...>.");
};
template <>
struct ShapeResult<Shape> {
  static constexpr int count = 1;
  static std::vector<Shape> convert(Shape s) { return {std::move(s)}; }
};
template <>
struct ShapeResult<std::vector<Shape>> {
  static constexpr int count = -1;
  static std::vector<Shape> convert(std::vector<Shape> s) { return s; }
};
template <std::size_t N>
struct ShapeResult<std::array<Shape, N>> {
  static constexpr int count = static_cast<int>(N);
  static std::vector<Shape> convert(const std::array<Shape, N>& s) { return {s.begin(), s.end()}; }
};
template <typename... S>
requires(std::is_same_v<S, Shape>&&...) struct ShapeResult<std::tuple<S...>> {
  static constexpr int count = sizeof...(S);
  static std::vector<Shape> convert(std::tuple<S...> s) {
    return std::apply([](auto&... x) { return std::vector<Shape>{std::move(x)...}; }, s);
  }
};
template <>
struct ShapeResult<std::pair<Shape, Shape>> {
  static constexpr int count = 2;
  static std::vector<Shape> convert(std::pair<Shape, Shape> s) {
    return {std::move(s.first), std::move(s.second)};
  }
};

// ---- callables -------------------------------------------------------------------------------
template <typename F>
struct Signature : Signature<decltype(&F::operator())> {};
template <typename R, typename... A>
struct Signature<R (*)(A...)> {
  using Result = R;
  using Args = std::tuple<A...>;
};
template <typename R, typename... A>
struct Signature<R (*)(A...) noexcept> : Signature<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct Signature<R (C::*)(A...) const> : Signature<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct Signature<R (C::*)(A...) const noexcept> : Signature<R (*)(A...)> {};

template <typename M>
inline constexpr bool is_const_member_function = false;
template <typename C, typename R, typename... A>
inline constexpr bool is_const_member_function<R (C::*)(A...) const> = true;
template <typename C, typename R, typename... A>
inline constexpr bool is_const_member_function<R (C::*)(A...) const noexcept> = true;

// A function, or a callable with one call operator that is not a template: its parameter types
// are what binds it. (A function name or pointer arrives here as a function pointer.)
template <typename F>
concept FixedSignature = std::is_function_v<std::remove_pointer_t<F>> || requires {
  &F::operator();
};
// Launchers run concurrently from TensorRT's execution contexts: their call operator is const.
template <typename F>
concept ConstCallable = std::is_function_v<std::remove_pointer_t<F>> ||
    (FixedSignature<F>&& is_const_member_function<decltype(&F::operator())>);

// Checks every rule that depends on the C++ signature alone; true when the callable can be bound.
template <typename F>
constexpr bool check_callable() {
  static_assert(FixedSignature<F>,
                "autoplugin: a launcher or shape function must be a function or a callable with "
                "one non-template operator(); a generic lambda ([](auto x) ...) has no parameter "
                "types to bind: spell them out, or name one instantiation (launcher<float>)");
  if constexpr (FixedSignature<F>) {
    static_assert(ConstCallable<F>,
                  "autoplugin: a launcher or shape function must not change its own state: "
                  "remove `mutable` from the lambda (or make operator() const); TensorRT calls "
                  "it from several execution contexts at once");
    return ConstCallable<F>;
  }
  return false;
}

template <typename... P>
constexpr bool check_launcher_parameters() {
  constexpr std::size_t streams =
      (std::size_t{std::is_same_v<std::remove_cvref_t<P>, Stream>} + ... + 0);
  constexpr std::size_t workspaces =
      (std::size_t{std::is_same_v<std::remove_cvref_t<P>, Workspace>} + ... + 0);
  static_assert(streams == 1,
                "autoplugin: a launcher takes exactly one cudaStream_t (autoplugin::Stream) and "
                "launches its kernels on it: TensorRT's stream for the plugin");
  static_assert(workspaces <= 1,
                "autoplugin: a launcher takes at most one autoplugin::Workspace (the op's "
                "scratch memory, sized by .workspace(bytes_function))");
  return streams == 1 && workspaces <= 1;
}

template <typename F, typename R, typename... P>
std::int64_t call_launcher(const void* callable, const LaunchArgs& args, std::tuple<P...>*) {
  static constexpr std::array<Role, sizeof...(P)> roles{
      LaunchParam<std::remove_cvref_t<P>>::role...};
  static constexpr auto index = role_indices(roles);
  const F& fn = *static_cast<const F*>(callable);
  return [&]<std::size_t... I>(std::index_sequence<I...>)->std::int64_t {
    if constexpr (std::is_void_v<R>) {
      fn(LaunchParam<std::remove_cvref_t<P>>::get(args, index[I])...);
      return 0;
    } else if constexpr (std::is_same_v<R, Launch>) {
      return fn(LaunchParam<std::remove_cvref_t<P>>::get(args, index[I])...) == Launch::Launched
                 ? 0
                 : kNotApplicable;
    } else {
      return static_cast<std::int64_t>(
          fn(LaunchParam<std::remove_cvref_t<P>>::get(args, index[I])...));
    }
  }
  (std::index_sequence_for<P...>{});
}

template <typename F>
LauncherDescriptor make_launcher(F fn, std::string name) {
  LauncherDescriptor d;
  if constexpr (check_callable<F>()) {
    using Sig = Signature<F>;
    using R = typename Sig::Result;
    static_assert(std::is_void_v<R> || std::is_integral_v<R> || std::is_enum_v<R>,
                  "autoplugin: a launcher returns void, autoplugin::Launch (for launchers that "
                  "handle only some shapes) or a status (0 = success), e.g. cudaError_t");
    d.name = std::move(name);
    d.returns_status = !std::is_void_v<R> && !std::is_same_v<R, Launch>;
    const bool valid = [&]<typename... P>(std::tuple<P...>*) {
      static_assert((NoCopyInEnqueue<P>::value && ...));
      if constexpr (check_launcher_parameters<P...>()) {
        // One initializer list, not push_back per parameter: g++ 13 at -O3 warns falsely
        // (-Wstringop-overflow) about the reallocation path push_back inlines.
        d.params = {LaunchParam<std::remove_cvref_t<P>>::describe()...};
        return true;
      }
      return false;
    }(static_cast<typename Sig::Args*>(nullptr));
    if (valid) {
      d.callable = std::make_shared<const F>(std::move(fn));
      d.thunk = [](const void* callable, const LaunchArgs& args) {
        return call_launcher<F, R>(callable, args, static_cast<typename Sig::Args*>(nullptr));
      };
    }
  }
  return d;
}

template <typename R>
Dim workspace_bytes(R bytes) {
  static_assert(std::is_same_v<R, Dim> || std::is_integral_v<R>,
                "autoplugin: a workspace function returns its size in bytes as autoplugin::Dim "
                "or an integer.");
  return Dim(bytes);
}

// Shape functions and workspace functions share one calling convention; these turn what each
// returns into shapes.
struct ShapesResult {
  template <typename R>
  static std::vector<Shape> convert(R result) {
    return ShapeResult<R>::convert(std::move(result));
  }
};
// A workspace function's byte count, as one rank-1 shape.
struct WorkspaceResult {
  template <typename R>
  static std::vector<Shape> convert(R bytes) {
    return {Shape{workspace_bytes(bytes)}};
  }
};

template <typename F, typename Result, typename... P>
std::vector<Shape> call_shape_function(const void* callable, std::span<const ShapeArg> args,
                                       std::tuple<P...>*) {
  const F& fn = *static_cast<const F*>(callable);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return Result::convert(fn(ShapeParam<std::remove_cvref_t<P>>::get(args[I])...));
  }
  (std::index_sequence_for<P...>{});
}

template <typename Result, typename F>
ShapeFunctionDescriptor make_shape_descriptor(F fn, int num_results) {
  ShapeFunctionDescriptor d;
  if constexpr (check_callable<F>()) {
    using Sig = Signature<F>;
    [&]<typename... P>(std::tuple<P...>*) {
      d.params = {ShapeParam<std::remove_cvref_t<P>>::describe()...};  // see make_launcher
    }(static_cast<typename Sig::Args*>(nullptr));
    d.num_results = num_results;
    d.callable = std::make_shared<const F>(std::move(fn));
    d.thunk = [](const void* callable, std::span<const ShapeArg> args) {
      // The function's arity is checked against the schema before any call.
      return call_shape_function<F, Result>(callable, args,
                                            static_cast<typename Sig::Args*>(nullptr));
    };
  }
  return d;
}

template <typename F>
ShapeFunctionDescriptor make_shape_function(F fn) {
  if constexpr (check_callable<F>()) {
    using R = std::remove_cvref_t<typename Signature<F>::Result>;
    return make_shape_descriptor<ShapesResult>(std::move(fn), ShapeResult<R>::count);
  } else {
    return {};
  }
}

// A workspace function takes the shape function's parameters and returns a byte count; it is
// stored as a shape function with one rank-1 result.
template <typename F>
ShapeFunctionDescriptor make_workspace_function(F fn) {
  return make_shape_descriptor<WorkspaceResult>(std::move(fn), 1);
}

// An attribute check takes the op's attributes (its arguments that are neither tensors nor
// SymInts) in schema order, typed as for a launcher, and returns void (refusing by throwing) or a
// std::string (empty when the values are acceptable, else what is wrong with them).
template <typename F>
AttributeCheckDescriptor make_attribute_check(F fn) {
  AttributeCheckDescriptor d;
  if constexpr (check_callable<F>()) {
    using Sig = Signature<F>;
    using R = std::remove_cvref_t<typename Sig::Result>;
    static_assert(std::is_void_v<R> || std::is_same_v<R, std::string>,
                  "autoplugin: an attribute check returns void (refusing by throwing) or a "
                  "std::string (empty when the attributes are acceptable)");
    [&]<typename... P>(std::tuple<P...>*) {
      d.params = {ShapeParam<std::remove_cvref_t<P>>::describe()...};  // see make_launcher
    }(static_cast<typename Sig::Args*>(nullptr));
    d.callable = std::make_shared<const F>(std::move(fn));
    d.thunk = [](const void* callable, std::span<const ShapeArg> args) -> std::string {
      const F& check = *static_cast<const F*>(callable);
      return [&]<typename... P>(std::tuple<P...>*) {
        return [&]<std::size_t... I>(std::index_sequence<I...>)->std::string {
          if constexpr (std::is_void_v<R>) {
            check(ShapeParam<std::remove_cvref_t<P>>::get(args[I])...);
            return {};
          } else {
            return check(ShapeParam<std::remove_cvref_t<P>>::get(args[I])...);
          }
        }
        (std::index_sequence_for<P...>{});
      }(static_cast<typename Sig::Args*>(nullptr));
    };
  }
  return d;
}

}  // namespace detail
}  // namespace autoplugin
