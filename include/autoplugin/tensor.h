// Typed tensor views handed to launchers, and the type-erased tensor the runtime builds them from.
#pragma once

#include <autoplugin/dtype.h>
#include <autoplugin/limits.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#if defined(__CUDACC__)
#define AUTOPLUGIN_HOST_DEVICE __host__ __device__
#else
#define AUTOPLUGIN_HOST_DEVICE
#endif

struct CUstream_st;

namespace autoplugin {

// The same type as cudaStream_t, without needing the CUDA headers.
using Stream = CUstream_st*;

// What the runtime knows about one tensor: element type, layout, extents, address, and whether
// it was given at all (an absent `Tensor?` input is not; a present tensor without elements may
// have no address, as TensorRT passes it).
struct TensorRef {
  void* data = nullptr;
  DType dtype = DType::Float32;
  Format format = Format::Linear;
  std::int32_t rank = 0;
  std::array<std::int64_t, kMaxRank> extents{};
  bool present = true;
};

[[noreturn]] void throw_dtype_mismatch(DType expected, DType actual);
inline std::int64_t element_count(const TensorRef& ref) {
  std::int64_t count = 1;
  for (std::int32_t i = 0; i < ref.rank; ++i) count *= ref.extents[std::size_t(i)];
  return count;
}
[[noreturn]] void throw_missing_tensor(DType expected);

// A dense, row-major view. Copyable by value into a kernel's parameters.
template <typename T>
class TensorView {
 public:
  using element_type = T;

  TensorView() = default;
  TensorView(T* data, std::span<const std::int64_t> extents) : data_(data) {
    rank_ = static_cast<std::int32_t>(extents.size() < kMaxRank ? extents.size() : kMaxRank);
    for (std::int32_t i = 0; i < rank_; ++i) extents_[i] = extents[i];
  }

  AUTOPLUGIN_HOST_DEVICE T* data() const { return data_; }
  AUTOPLUGIN_HOST_DEVICE std::int32_t rank() const { return rank_; }
  // Extent of `axis`; negative axes count from the end.
  AUTOPLUGIN_HOST_DEVICE std::int64_t size(std::int32_t axis) const {
    return extents_[axis < 0 ? axis + rank_ : axis];
  }
  // Elements between consecutive indices of `axis` (dense row-major layout).
  AUTOPLUGIN_HOST_DEVICE std::int64_t stride(std::int32_t axis) const {
    std::int64_t stride = 1;
    for (std::int32_t i = rank_ - 1; i > (axis < 0 ? axis + rank_ : axis); --i)
      stride *= extents_[i];
    return stride;
  }
  AUTOPLUGIN_HOST_DEVICE std::int64_t numel() const {
    std::int64_t count = 1;
    for (std::int32_t i = 0; i < rank_; ++i) count *= extents_[i];
    return count;
  }
  std::span<const std::int64_t> shape() const { return {extents_, std::size_t(rank_)}; }
  static constexpr DType dtype() { return dtype_v<std::remove_const_t<T>>; }

 protected:
  T* data_ = nullptr;
  std::int32_t rank_ = 0;
  std::int64_t extents_[kMaxRank] = {};  // a plain array: std::array is host-only in CUDA

  void assign(const TensorRef& ref) {
    if (ref.dtype != dtype()) throw_dtype_mismatch(dtype(), ref.dtype);
    data_ = static_cast<T*>(ref.data);
    rank_ = ref.rank;
    for (int i = 0; i < kMaxRank; ++i) extents_[i] = ref.extents[std::size_t(i)];
  }
};

// An input tensor of the launcher (read-only).
template <Element T>
class In : public TensorView<const T> {
 public:
  using TensorView<const T>::TensorView;
  // Throws TensorError when the tensor's dtype is not T.
  static In from(const TensorRef& ref) {
    In view;
    view.assign(ref);
    return view;
  }
};

// An optional input (schema type `Tensor?`): present() is false when the caller passed None,
// and true for a tensor given without elements (whose data() may be null).
template <Element T>
class OptIn : public TensorView<const T> {
 public:
  OptIn() = default;  // absent
  OptIn(const T* data, std::span<const std::int64_t> extents)
      : TensorView<const T>(data, extents), present_(true) {}
  AUTOPLUGIN_HOST_DEVICE bool present() const { return present_; }
  static OptIn from(const TensorRef& ref) {
    OptIn view;
    if (ref.present) {
      view.assign(ref);
      view.present_ = true;
    }
    return view;
  }

 private:
  bool present_ = false;
};

// An output tensor of the launcher.
template <Element T>
class Out : public TensorView<T> {
 public:
  using TensorView<T>::TensorView;
  // TensorRT passes no address for a tensor without elements; only a non-empty one needs one.
  static Out from(const TensorRef& ref) {
    if (ref.data == nullptr && element_count(ref) != 0) throw_missing_tensor(dtype_v<T>);
    Out view;
    view.assign(ref);
    return view;
  }
};

// The device-side count of a data-dependent extent (declared with size_tensor() in the shape
// function): the kernel writes the actual extent here. TensorRT requires size tensors to be
// 0-d INT32. The k-th SizeOut parameter of a launcher receives the k-th declared size tensor.
// (The output whose extent it is arrives with -1 for that extent; its buffer holds the upper
// bound.)
class SizeOut {
 public:
  SizeOut() = default;
  explicit SizeOut(std::int32_t* count) : count_(count) {}
  AUTOPLUGIN_HOST_DEVICE std::int32_t* data() const { return count_; }
  static SizeOut from(const TensorRef& ref) {
    if (ref.dtype != DType::Int32) throw_dtype_mismatch(DType::Int32, ref.dtype);
    return SizeOut(static_cast<std::int32_t*>(ref.data));
  }

 private:
  std::int32_t* count_ = nullptr;
};

// Scratch device memory TensorRT provides for the launch, sized by the op's workspace function
// for the current shapes.
struct Workspace {
  void* data = nullptr;
  std::size_t size = 0;
};

}  // namespace autoplugin
