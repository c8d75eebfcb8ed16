// What the PyTorch adapter keeps per call signature (see torch_ops.cpp): a call's signature packed
// into words, the host work done for it (Prepared), and the cache of an op's signatures.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/SmallVector.h>

#include <autoplugin/backend/op.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace autoplugin::torch_adapter {

// One return of a call, as every call with the same signature has it.
struct PreparedOutput {
  std::vector<std::int64_t> extents;
  c10::ScalarType scalar_type = c10::ScalarType::Float;
  DType dtype = DType::Float32;
  int aliased = -1;  // the input an in-place (Tensor(a!)) output is, or -1
};

// The host work of a call that depends only on its signature: the attributes converted and
// bound, the output shapes and dtypes, the launcher for the dtypes and tactic, the workspace size.
// Only for calls without data-dependent extents (those are known after the kernel only).
struct Prepared {
  std::vector<AttrValue> attributes;  // one per attribute argument
  std::vector<BoundValues> bound;     // Op::bind_attributes of them
  const LauncherEntry* launcher = nullptr;
  std::vector<PreparedOutput> outputs;  // one per return
  std::size_t workspace_bytes = 0;
};

// A call's signature, packed into words: per tensor argument its dtype, rank and extents (or
// None), per SymInt or attribute argument the IValue's kind and value. Calls with the same
// signature compute the same Prepared. Up to 32 words without allocating.
class Signature {
 public:
  void add(std::int64_t word) noexcept {
    words_.push_back(word);
    hash_ = (hash_ ^ static_cast<std::uint64_t>(word)) * 0x100000001b3ULL;
  }
  void clear() noexcept {
    words_.clear();
    hash_ = kSeed;
  }
  std::uint64_t hash() const noexcept { return hash_; }
  std::span<const std::int64_t> words() const noexcept { return {words_.data(), words_.size()}; }

 private:
  static constexpr std::uint64_t kSeed = 0xcbf29ce484222325ULL;
  c10::SmallVector<std::int64_t, 32> words_;
  std::uint64_t hash_ = kSeed;
};

// The tensors of a direct call: contiguous CUDA tensors on one device, of dtypes and ranks
// autoplugin takes, read while its signature is packed.
struct DirectInputs {
  c10::SmallVector<TensorRef, 6> refs;             // one per tensor argument, absent ones too
  c10::SmallVector<const at::Tensor*, 6> tensors;  // the caller's tensors; null where absent
  std::optional<c10::Device> device;
};

// Packs the signature of a call of `op` with `arguments` (the stack's, in schema order) and reads
// its tensors. False when the call is not direct, or an argument is of a kind no signature packs
// (the full path then converts and checks every argument, and reports the errors); `signature`
// and `inputs` are then unusable. Allocates nothing for up to 6 tensors and 32 words.
bool pack_direct_call(const Op& op, at::ArrayRef<c10::IValue> arguments, Signature& signature,
                      DirectInputs& inputs);

// An op's Prepared per signature, filled by the calls that miss. Emptied when a tactic changes
// (`generation` counts autoplugin_torch_v1_set_tactic calls) and when it holds kMaxEntries.
class SignatureCache {
 public:
  static constexpr std::size_t kMaxEntries = 4096;
  // The Prepared of `signature`, or null.
  std::shared_ptr<const Prepared> find(const Signature& signature, std::uint64_t generation);
  // `generation`: the one read before the tactic that chose prepared->launcher.
  void insert(const Signature& signature, std::shared_ptr<const Prepared> prepared,
              std::uint64_t generation);

 private:
  struct Entry {
    std::vector<std::int64_t> words;
    std::shared_ptr<const Prepared> prepared;
  };
  void renew(std::uint64_t generation);  // with mutex_ held
  // The entry for `signature`, or null; with mutex_ held.
  const Entry* entry(const Signature& signature) const;
  std::mutex mutex_;
  std::uint64_t generation_ = 0;
  std::unordered_multimap<std::uint64_t, Entry> entries_;  // by Signature::hash
};

}  // namespace autoplugin::torch_adapter
