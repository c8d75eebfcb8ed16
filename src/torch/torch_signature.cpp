#include "torch_signature.h"

#include <autoplugin/limits.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "torch_values.h"

namespace autoplugin::torch_adapter {
namespace {

// The kind of each packed value, so that values of different kinds never pack alike.
enum Kind : std::int64_t {
  kAbsent = 1,
  kTensor,
  kInt,
  kDouble,
  kBool,
  kIntList,
  kDoubleList,
  kBoolList,
  kString,
};

bool pack_tensor(const Argument& argument, const c10::IValue& value, Signature& signature,
                 DirectInputs& inputs) {
  if (value.isNone()) {
    if (!argument.type.optional || inputs.refs.size() > std::size_t(AbsentInputs::kMaxIndex)) {
      return false;
    }
    signature.add(kAbsent);
    TensorRef ref;
    ref.present = false;
    inputs.refs.push_back(ref);
    inputs.tensors.push_back(nullptr);
    return true;
  }
  if (!value.isTensor()) return false;
  const at::Tensor& tensor = value.toTensor();
  if (!tensor.defined() || !tensor.is_cuda()) return false;
  if (inputs.device && tensor.device() != *inputs.device) return false;
  const std::optional<DType> dtype = from_scalar_type(tensor.scalar_type());
  const std::int64_t rank = tensor.dim();
  if (!dtype || rank > kMaxRank || !tensor.is_contiguous()) return false;
  inputs.device = tensor.device();
  signature.add(kTensor);
  signature.add(static_cast<std::int64_t>(*dtype));
  signature.add(rank);
  TensorRef ref;
  ref.dtype = *dtype;
  ref.rank = static_cast<std::int32_t>(rank);
  const c10::IntArrayRef sizes = tensor.sizes();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    signature.add(sizes[i]);
    ref.extents[i] = sizes[i];
  }
  ref.data = tensor.numel() > 0 ? tensor.data_ptr() : nullptr;
  inputs.refs.push_back(ref);
  inputs.tensors.push_back(&tensor);
  return true;
}

bool pack_scalar(const c10::IValue& value, Signature& signature) {
  if (value.isInt()) {
    signature.add(kInt);
    signature.add(value.toInt());
  } else if (value.isDouble()) {
    signature.add(kDouble);
    signature.add(std::bit_cast<std::int64_t>(value.toDouble()));
  } else if (value.isBool()) {
    signature.add(kBool);
    signature.add(value.toBool() ? 1 : 0);
  } else {
    return false;
  }
  return true;
}

bool pack_value(const c10::IValue& value, Signature& signature) {
  if (value.isNone()) {
    signature.add(kAbsent);
    return true;
  }
  if (value.isIntList() || value.isDoubleList() || value.isBoolList()) {
    signature.add(value.isIntList() ? kIntList : value.isDoubleList() ? kDoubleList : kBoolList);
    const c10::ArrayRef<c10::IValue> items = value.toListRef();
    signature.add(static_cast<std::int64_t>(items.size()));
    for (const c10::IValue& item : items) {
      if (!pack_scalar(item, signature)) return false;
    }
    return true;
  }
  if (value.isString()) {
    const std::string& text = value.toStringRef();
    signature.add(kString);
    signature.add(static_cast<std::int64_t>(text.size()));
    for (std::size_t at = 0; at < text.size(); at += sizeof(std::int64_t)) {
      std::int64_t word = 0;
      std::memcpy(&word, text.data() + at, std::min(sizeof(word), text.size() - at));
      signature.add(word);
    }
    return true;
  }
  return pack_scalar(value, signature);
}

}  // namespace

bool pack_direct_call(const Op& op, at::ArrayRef<c10::IValue> arguments, Signature& signature,
                      DirectInputs& inputs) {
  const std::vector<Argument>& schema = op.schema().arguments;
  if (arguments.size() != schema.size()) return false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const bool packed = schema[i].type.is_tensor()
                            ? pack_tensor(schema[i], arguments[i], signature, inputs)
                            : pack_value(arguments[i], signature);
    if (!packed) return false;
  }
  return inputs.device.has_value();
}

void SignatureCache::renew(std::uint64_t generation) {
  if (generation != generation_) {
    entries_.clear();
    generation_ = generation;
  }
}

const SignatureCache::Entry* SignatureCache::entry(const Signature& signature) const {
  const std::span<const std::int64_t> words = signature.words();
  auto [it, end] = entries_.equal_range(signature.hash());
  for (; it != end; ++it) {
    if (std::ranges::equal(it->second.words, words)) return &it->second;
  }
  return nullptr;
}

std::shared_ptr<const Prepared> SignatureCache::find(const Signature& signature,
                                                     std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  renew(generation);
  const Entry* found = entry(signature);
  return found != nullptr ? found->prepared : nullptr;
}

void SignatureCache::insert(const Signature& signature, std::shared_ptr<const Prepared> prepared,
                            std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  renew(generation);
  if (entry(signature) != nullptr) return;  // another thread's call came first
  if (entries_.size() >= kMaxEntries) entries_.clear();
  const std::span<const std::int64_t> words = signature.words();
  entries_.emplace(signature.hash(), Entry{std::vector<std::int64_t>(words.begin(), words.end()),
                                           std::move(prepared)});
}

}  // namespace autoplugin::torch_adapter
