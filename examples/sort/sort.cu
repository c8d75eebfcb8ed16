// sort: PyTorch's torch.sort (torch.argsort and torch.msort are sort's indices or values): the
// elements of each row along `dim` in ascending or descending order (values, of self's dtype)
// and where each came from along `dim` (indices, int64). Full aten semantics: NaN is greater than
// every number (last ascending, first descending; NaNs keep their input order), -0.0 equals 0.0,
// equal keys keep their input order in both directions. The sort is always stable, so one kernel
// serves `stable` true and false (false allows any order of ties; the stable one is among them).
// Values are self's elements themselves (a NaN's payload and a zero's sign as they were). The
// aten ops aten.sort.default and aten.sort.stable come here through the Torch-TensorRT converter
// in python/autoplugin/aten_sort.py.
//
// Each element becomes an unsigned key whose order is the sort's: integers with their sign bit
// flipped; floats with the sign bit set on positives and every bit flipped on negatives, after
// -0.0 becomes +0.0 and every NaN the largest key; descending complements the key, which keeps
// equal keys equal, so a stable ascending sort of the keys is the stable descending sort.
// Rows of up to 16384 elements (8192 for int64) are sorted one block per row in shared memory:
// an LSD radix sort over 8-bit digits, each pass a histogram, its scan, then a stable scatter in
// tiles (each warp takes consecutive elements, 32 at a time: an element's rank among its warp's
// equal digits from __match_any_sync, the warps' counts summed per digit), skipping the passes
// whose digit is the same in every key of the row (int64 ids below 256 take one pass, not eight).
// Longer rows, and rows above 8192 elements when there are fewer rows than SMs, are sorted by CUB's
// device-wide radix sort (the CUDA toolkit's), on keys with the row number in the bits above the
// element's key, so that every row is sorted in one call over the whole tensor (one row: the
// element's key alone); int64 keys leave no bits for rows and take CUB's segmented radix sort
// instead. Sorting along a dim that is not the last reads and writes each row with the stride of
// `dim` (no transpose): the loads and stores are then uncoalesced. The block path needs up to 209
// KiB of shared memory per block (Hopper has 227 KiB); on a GPU with less, rows above 8192 elements
// go device-wide and shorter rows that do not fit fail the launch.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "../common/index_math.h"
#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

constexpr int kDigitBits = 8;
constexpr int kDigits = 1 << kDigitBits;
// Rows up to this many elements are sorted in shared memory, one block per row (the block's
// key and index buffers, twice, fit in the 227 KiB a Hopper block may have).
constexpr std::int64_t kBlockRowLimit = 16384;
constexpr std::int64_t kBlockRowLimit64 = 8192;  // 8-byte keys
// Workspace beyond the key and index buffers, for CUB's temporary storage: its bins and
// look-back counters take under one byte per element plus a few KiB (checked at launch).
constexpr std::int64_t kCubSlackBytes = std::int64_t{2} << 20;
// The device-wide path's workspace, whatever the dtype: two buffers of 8-byte keys, two of 4-byte
// positions, the segmented sort's int offsets (at most one per two elements, plus one), CUB's
// storage; each of the five buffers 256-byte aligned.
constexpr std::int64_t kWorkspaceBytesPerElement = 2 * 8 + 2 * 4 + 2 + 1;
constexpr std::int64_t kWorkspaceFixedBytes = 4 + 5 * 256 + kCubSlackBytes;

// The unsigned key of T's size.
template <typename T>
using KeyOf = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                 std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;

template <typename T>
constexpr std::int64_t block_row_limit() {
  return sizeof(T) == 8 ? kBlockRowLimit64 : kBlockRowLimit;
}

// The key whose unsigned order is the sort's order of v (see the top of the file).
template <typename T>
__device__ inline KeyOf<T> order_key(T v, bool descending) {
  using Key = KeyOf<T>;
  constexpr Key kSign = static_cast<Key>(Key{1} << (8 * sizeof(Key) - 1));
  Key bits;
  memcpy(&bits, &v, sizeof(T));
  Key key;
  if constexpr (std::is_integral_v<T>) {
    key = static_cast<Key>(bits ^ kSign);
  } else {
    // The bits of +infinity: a larger magnitude is a NaN.
    constexpr Key kInfinity = std::is_same_v<T, float>    ? Key{0x7F800000u}
                              : std::is_same_v<T, __half> ? Key{0x7C00u}
                                                          : Key{0x7F80u};  // bfloat16
    const auto magnitude = static_cast<Key>(bits & static_cast<Key>(~kSign));
    if (magnitude > kInfinity) {
      key = static_cast<Key>(~Key{0});  // every NaN, either sign: above +infinity
    } else if (magnitude == 0) {
      key = kSign;  // -0.0 and +0.0
    } else if ((bits & kSign) != 0) {
      key = static_cast<Key>(~bits);
    } else {
      key = static_cast<Key>(bits | kSign);
    }
  }
  return descending ? static_cast<Key>(~key) : key;
}

// The rows of a dense tensor along `dim`: (outer, n, inner) blocks; row r = o * inner + i has its
// k-th element at o * n * inner + k * inner + i.
struct Rows {
  std::int64_t count;  // outer * inner
  std::int64_t n;      // extent along dim
  std::int64_t inner;  // stride of dim, in elements
  FastDivisor by_inner;
  FastDivisor by_n;
  bool small;  // every offset fits in int32: divisions take FastDivisor's fast path

  __device__ std::int64_t quotient(const FastDivisor& d, std::int64_t v) const {
    return small ? d.divide32(static_cast<std::int32_t>(v)) : d.divide64(v);
  }
  __device__ std::int64_t start(std::int64_t row) const {
    const std::int64_t outer = quotient(by_inner, row);
    return outer * n * inner + (row - outer * inner);
  }
};

Rows rows_of(std::int64_t numel, std::int64_t n, std::int64_t inner) {
  return Rows{
      numel / n, n, inner, FastDivisor(inner), FastDivisor(n), numel < (std::int64_t{1} << 31)};
}

// Rows of at most one element: values are self, indices 0.
template <typename T>
__global__ void copy_kernel(const T* __restrict__ x, T* __restrict__ values,
                            std::int64_t* __restrict__ indices, std::int64_t total) {
  for (std::int64_t e = global_thread_index(); e < total; e += grid_stride()) {
    values[e] = x[e];
    indices[e] = 0;
  }
}

// ---- One block per row, in shared memory ----

// Shared memory of the block path: per-warp digit counts (uint16: at most a warp's 256 elements of
// a tile per digit, then positions below 65536), the next position of each digit, then keys and
// element positions twice.
template <typename T>
std::size_t block_shared_bytes(int threads, std::int64_t n) {
  const std::size_t counts = static_cast<std::size_t>(threads / kWarp) * kDigits * 2;
  const std::size_t next = kDigits * sizeof(int);
  const std::size_t keys = 2 * static_cast<std::size_t>(n) * sizeof(KeyOf<T>);
  const std::size_t order = 2 * static_cast<std::size_t>(n) * sizeof(std::uint16_t);
  return counts + next + keys + order;
}

__device__ inline unsigned long long warp_or(unsigned long long v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v |= __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

template <typename T, int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads)
    sort_rows_kernel(const T* __restrict__ x, T* __restrict__ values,
                     std::int64_t* __restrict__ indices, Rows rows, bool descending) {
  using Key = KeyOf<T>;
  constexpr int kWarps = kThreads / kWarp;
  extern __shared__ __align__(16) unsigned char shared[];
  __shared__ unsigned long long differing;  // OR of every key XOR the row's first key
  const int n = static_cast<int>(rows.n);
  auto* counts = reinterpret_cast<std::uint16_t*>(shared);  // [warp][digit]
  auto* next = reinterpret_cast<int*>(counts + kWarps * kDigits);
  // Two buffers each, selected by `current` (no arrays of pointers: they would live in local
  // memory).
  Key* const keys0 = reinterpret_cast<Key*>(next + kDigits);
  Key* const keys1 = keys0 + n;
  auto* const order0 = reinterpret_cast<std::uint16_t*>(keys1 + n);
  std::uint16_t* const order1 = order0 + n;
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kWarp;
  const int warp = tid / kWarp;
  const std::int64_t inner = rows.inner;

  for (std::int64_t row = blockIdx.x; row < rows.count; row += gridDim.x) {
    const std::int64_t start = rows.start(row);
    if (tid == 0) differing = 0;
    __syncthreads();
    const Key first = order_key(x[start], descending);
    unsigned long long mine = 0;
    for (int k = tid; k < n; k += kThreads) {
      const Key key = order_key(x[start + k * inner], descending);
      keys0[k] = key;
      order0[k] = static_cast<std::uint16_t>(k);
      mine |= static_cast<unsigned long long>(key ^ first);
    }
    mine = warp_or(mine);
    if (lane == 0 && mine != 0) atomicOr(&differing, mine);
    __syncthreads();
    const unsigned long long digits_that_differ = differing;
    int current = 0;
    for (int shift = 0; shift < 8 * static_cast<int>(sizeof(Key)); shift += kDigitBits) {
      // A digit that every key shares leaves the order as it is: no pass.
      if (((digits_that_differ >> shift) & (kDigits - 1)) == 0) continue;
      const Key* from_keys = current == 0 ? keys0 : keys1;
      const std::uint16_t* from_order = current == 0 ? order0 : order1;
      Key* to_keys = current == 0 ? keys1 : keys0;
      std::uint16_t* to_order = current == 0 ? order1 : order0;
      for (int d = tid; d < kDigits; d += kThreads) next[d] = 0;
      __syncthreads();
      for (int k = tid; k < n; k += kThreads) {
        atomicAdd(&next[(from_keys[k] >> shift) & (kDigits - 1)], 1);
      }
      __syncthreads();
      // Exclusive scan of the histogram by warp 0, 8 digits a lane.
      if (warp == 0) {
        constexpr int kPerLane = kDigits / kWarp;
        int local[kPerLane];
        int sum = 0;
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) {
          local[j] = next[lane * kPerLane + j];
          sum += local[j];
        }
        int inclusive = sum;
        for (int offset = 1; offset < kWarp; offset *= 2) {
          const int before = __shfl_up_sync(0xffffffffu, inclusive, offset);
          if (lane >= offset) inclusive += before;
        }
        int running = inclusive - sum;
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) {
          next[lane * kPerLane + j] = running;
          running += local[j];
        }
      }
      __syncthreads();
      // Stable scatter, a tile of kThreads * kItems consecutive elements at a time, each warp
      // taking kWarp * kItems consecutive ones in kItems steps of kWarp: an element goes after
      // every element of its digit in earlier tiles, earlier warps, earlier steps of its warp
      // and earlier lanes of its step.
      for (int tile = 0; tile < n; tile += kThreads * kItems) {
        for (int d = lane; d < kDigits; d += kWarp) counts[warp * kDigits + d] = 0;
        __syncwarp();
        Key key[kItems];
        std::uint16_t position[kItems];
        unsigned digit[kItems];
        int rank[kItems];  // among the warp's elements of the same digit
        const int warp_first = tile + warp * kWarp * kItems;
#pragma unroll
        for (int s = 0; s < kItems; ++s) {
          const int k = warp_first + s * kWarp + lane;
          const bool valid = k < n;
          key[s] = valid ? from_keys[k] : Key{0};
          position[s] = valid ? from_order[k] : std::uint16_t{0};
          digit[s] = valid ? static_cast<unsigned>((key[s] >> shift) & (kDigits - 1))
                           : static_cast<unsigned>(kDigits);  // matches no digit
          const unsigned peers = __match_any_sync(0xffffffffu, digit[s]);
          const int earlier = valid ? counts[warp * kDigits + digit[s]] : 0;
          const int in_step = __popc(peers & ((1u << lane) - 1u));
          rank[s] = earlier + in_step;
          __syncwarp();  // every lane has read its count before the step's first lane adds to it
          if (valid && in_step == 0) {
            counts[warp * kDigits + digit[s]] = static_cast<std::uint16_t>(earlier + __popc(peers));
          }
          __syncwarp();
        }
        __syncthreads();
        for (int d = tid; d < kDigits; d += kThreads) {
          int running = next[d];
          for (int w = 0; w < kWarps; ++w) {
            const int count = counts[w * kDigits + d];
            counts[w * kDigits + d] = static_cast<std::uint16_t>(running);
            running += count;
          }
          next[d] = running;
        }
        __syncthreads();
#pragma unroll
        for (int s = 0; s < kItems; ++s) {
          if (digit[s] < kDigits) {
            const int at = counts[warp * kDigits + digit[s]] + rank[s];
            to_keys[at] = key[s];
            to_order[at] = position[s];
          }
        }
        __syncthreads();
      }
      current ^= 1;
    }
    for (int j = tid; j < n; j += kThreads) {
      const std::int64_t k = (current == 0 ? order0 : order1)[j];
      values[start + j * inner] = x[start + k * inner];
      indices[start + j * inner] = k;
    }
    __syncthreads();  // the next row reuses shared memory
  }
}

template <typename T, int kThreads, int kItems>
cudaError_t launch_block_rows(const T* x, T* values, std::int64_t* indices, const Rows& rows,
                              bool descending, std::size_t bytes, cudaStream_t stream) {
  const auto kernel = sort_rows_kernel<T, kThreads, kItems>;
  if (bytes > 48 * 1024) {  // above the default a block may have
    const cudaError_t status = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (status != cudaSuccess) return status;
  }
  const auto blocks = static_cast<unsigned int>(
      std::min<std::int64_t>(rows.count, std::numeric_limits<std::int32_t>::max()));
  kernel<<<blocks, kThreads, bytes, stream>>>(x, values, indices, rows, descending);
  return cudaGetLastError();
}

// ---- Longer rows: CUB's device-wide radix sort ----

// Keys and each element's position in its row, in row order; `row_shift` > 0 puts the row number
// above the element's key.
template <typename T, typename SortKey>
__global__ void keys_kernel(const T* __restrict__ x, SortKey* __restrict__ keys,
                            std::uint32_t* __restrict__ positions, Rows rows, int row_shift,
                            bool descending) {
  const std::int64_t total = rows.count * rows.n;
  for (std::int64_t e = global_thread_index(); e < total; e += grid_stride()) {
    const std::int64_t row = rows.quotient(rows.by_n, e);
    const std::int64_t k = e - row * rows.n;
    auto key = static_cast<SortKey>(order_key(x[rows.start(row) + k * rows.inner], descending));
    if (row_shift > 0) key |= static_cast<SortKey>(row) << row_shift;
    keys[e] = key;
    positions[e] = static_cast<std::uint32_t>(k);
  }
}

// The sorted positions, row by row, as indices, and the values they point at.
template <typename T>
__global__ void gather_kernel(const T* __restrict__ x, const std::uint32_t* __restrict__ positions,
                              T* __restrict__ values, std::int64_t* __restrict__ indices,
                              Rows rows) {
  const std::int64_t total = rows.count * rows.n;
  for (std::int64_t e = global_thread_index(); e < total; e += grid_stride()) {
    const std::int64_t row = rows.quotient(rows.by_n, e);
    const std::int64_t j = e - row * rows.n;
    const std::int64_t start = rows.start(row);
    const std::int64_t k = positions[e];
    values[start + j * rows.inner] = x[start + k * rows.inner];
    indices[start + j * rows.inner] = k;
  }
}

// Offsets of the rows of one call of the segmented sort: row j starts at j * n.
__global__ void offsets_kernel(int* __restrict__ offsets, std::int64_t count, std::int64_t n) {
  for (std::int64_t j = global_thread_index(); j < count; j += grid_stride()) {
    offsets[j] = static_cast<int>(j * n);
  }
}

std::size_t aligned_bytes(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

int bits_for(std::int64_t count) {  // bits of count - 1: the row numbers 0 .. count - 1
  int bits = 0;
  while (bits < 63 && (std::int64_t{1} << bits) < count) ++bits;
  return bits;
}

std::int64_t global_workspace_bytes(std::int64_t total) {
  return total * kWorkspaceBytesPerElement + kWorkspaceFixedBytes;
}

template <typename T, typename SortKey>
cudaError_t sort_device_wide(const T* x, T* values, std::int64_t* indices, const Rows& rows,
                             bool descending, const ap::Workspace& scratch, cudaStream_t stream) {
  constexpr int kKeyBits = 8 * sizeof(KeyOf<T>);
  const std::int64_t total = rows.count * rows.n;
  const int row_bits = rows.count > 1 ? bits_for(rows.count) : 0;
  // Rows in the key's high bits where they fit; else (int64) one segment per row.
  const bool segmented = kKeyBits + row_bits > 8 * static_cast<int>(sizeof(SortKey));
  auto* base = static_cast<unsigned char*>(scratch.data);
  std::size_t used = 0;
  const auto take = [&](std::size_t bytes) {
    unsigned char* p = base + used;
    used += aligned_bytes(bytes);
    return p;
  };
  const auto count = static_cast<std::size_t>(total);
  auto* keys_a = reinterpret_cast<SortKey*>(take(count * sizeof(SortKey)));
  auto* keys_b = reinterpret_cast<SortKey*>(take(count * sizeof(SortKey)));
  auto* positions_a = reinterpret_cast<std::uint32_t*>(take(count * sizeof(std::uint32_t)));
  auto* positions_b = reinterpret_cast<std::uint32_t*>(take(count * sizeof(std::uint32_t)));
  // The segmented sort counts elements in int: calls of whole rows, below 2^31 elements each.
  if (segmented && rows.n > std::numeric_limits<std::int32_t>::max()) return cudaErrorInvalidValue;
  const std::int64_t rows_per_call =
      segmented ? std::min(rows.count, std::numeric_limits<std::int32_t>::max() / rows.n)
                : rows.count;
  int* offsets =
      segmented
          ? reinterpret_cast<int*>(take(static_cast<std::size_t>(rows_per_call + 1) * sizeof(int)))
          : nullptr;
  if (used > scratch.size) return cudaErrorInvalidValue;
  void* temp = base + used;
  const std::size_t available = scratch.size - used;

  const int shift = segmented || row_bits == 0 ? 0 : kKeyBits;
  keys_kernel<T, SortKey><<<blocks_for(total), kThreadsPerBlock, 0, stream>>>(
      x, keys_a, positions_a, rows, shift, descending);
  cub::DoubleBuffer<SortKey> keys(keys_a, keys_b);
  cub::DoubleBuffer<std::uint32_t> positions(positions_a, positions_b);
  std::size_t temp_bytes = 0;
  cudaError_t status = cudaSuccess;
  if (!segmented) {
    const int end_bit = kKeyBits + (shift > 0 ? row_bits : 0);
    status = cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, positions, total, 0,
                                             end_bit, stream);
    if (status != cudaSuccess) return status;
    if (temp_bytes > available) return cudaErrorInvalidValue;  // the workspace bound is wrong
    status = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, positions, total, 0, end_bit,
                                             stream);
    if (status != cudaSuccess) return status;
  } else {
    offsets_kernel<<<blocks_for(rows_per_call + 1), kThreadsPerBlock, 0, stream>>>(
        offsets, rows_per_call + 1, rows.n);
    // Every call starts from buffers a and sorts the same bits, so every call's result lands in
    // the same buffer: the one the last call's selector names.
    for (std::int64_t first = 0; first < rows.count; first += rows_per_call) {
      const std::int64_t segments = std::min(rows_per_call, rows.count - first);
      const std::int64_t at = first * rows.n;
      cub::DoubleBuffer<SortKey> part_keys(keys_a + at, keys_b + at);
      cub::DoubleBuffer<std::uint32_t> part_positions(positions_a + at, positions_b + at);
      const auto items = static_cast<int>(segments * rows.n);
      status = cub::DeviceSegmentedRadixSort::SortPairs(
          nullptr, temp_bytes, part_keys, part_positions, items, static_cast<int>(segments),
          offsets, offsets + 1, 0, kKeyBits, stream);
      if (status != cudaSuccess) return status;
      if (temp_bytes > available) return cudaErrorInvalidValue;
      status = cub::DeviceSegmentedRadixSort::SortPairs(temp, temp_bytes, part_keys, part_positions,
                                                        items, static_cast<int>(segments), offsets,
                                                        offsets + 1, 0, kKeyBits, stream);
      if (status != cudaSuccess) return status;
      positions.selector = part_positions.selector;
    }
  }
  gather_kernel<T><<<blocks_for(total), kThreadsPerBlock, 0, stream>>>(x, positions.Current(),
                                                                       values, indices, rows);
  return cudaGetLastError();
}

// A device attribute of the current device, or `otherwise` when it cannot be read.
int device_attribute(cudaDeviceAttr attribute, int otherwise) {
  int device = 0;
  int value = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess) {
    return otherwise;
  }
  return value;
}

}  // namespace

// The always-stable sort serves `stable` true and false alike.
template <typename T>
cudaError_t sort(ap::In<T> self, ap::Out<T> values, ap::Out<std::int64_t> indices, std::int64_t dim,
                 bool descending, bool /*stable*/, ap::Workspace scratch, cudaStream_t stream) {
  const std::int64_t total = self.numel();
  if (total == 0) return cudaSuccess;
  const int rank = self.rank();
  const int axis = rank == 0 ? 0 : static_cast<int>(dim < 0 ? dim + rank : dim);
  const std::int64_t n = rank == 0 ? 1 : self.size(axis);
  if (n == 1) {
    copy_kernel<<<blocks_for(total), kThreadsPerBlock, 0, stream>>>(self.data(), values.data(),
                                                                    indices.data(), total);
    return cudaGetLastError();
  }
  std::int64_t inner = 1;
  for (int d = axis + 1; d < rank; ++d) inner *= self.size(d);
  const Rows rows = rows_of(total, n, inner);
  // Fewer rows than SMs, of a length that has workspace: a block per row would leave most of the
  // GPU idle, and the device-wide sort takes them.
  const bool few_long_rows =
      n > kBlockRowLimit64 && rows.count < device_attribute(cudaDevAttrMultiProcessorCount, 1);
  if (n <= block_row_limit<T>() && !few_long_rows) {
    const int threads = n <= 1024 ? 128 : 1024;
    const std::size_t bytes = block_shared_bytes<T>(threads, n);
    if (bytes <= static_cast<std::size_t>(
                     device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024))) {
      // One tile of the scatter covers a row of 1024 (or 4096) elements.
      return threads == 128
                 ? launch_block_rows<T, 128, 8>(self.data(), values.data(), indices.data(), rows,
                                                descending, bytes, stream)
                 : launch_block_rows<T, 1024, 4>(self.data(), values.data(), indices.data(), rows,
                                                 descending, bytes, stream);
    }
  }
  // Positions within a row are 32-bit.
  if (n > std::numeric_limits<std::uint32_t>::max()) return cudaErrorInvalidValue;
  if (scratch.size < static_cast<std::size_t>(global_workspace_bytes(total))) {
    return cudaErrorInvalidValue;  // a row the block path could not take on this device
  }
  if (rows.count == 1) {
    return sort_device_wide<T, KeyOf<T>>(self.data(), values.data(), indices.data(), rows,
                                         descending, scratch, stream);
  }
  return sort_device_wide<T, std::uint64_t>(self.data(), values.data(), indices.data(), rows,
                                            descending, scratch, stream);
}

std::pair<ap::Shape, ap::Shape> sort_shape(ap::Shape self, std::int64_t dim, bool /*descending*/,
                                           bool /*stable*/) {
  const auto rank = static_cast<std::int64_t>(std::max<std::size_t>(1, self.rank()));
  ap::require(dim >= -rank && dim < rank, "dim is in [-rank, rank) (rank 1 for a 0-d self)");
  return {self, self};
}

// Rows longer than the shared-memory path takes (for some dtype) are sorted device-wide, in
// workspace; shorter ones need none.
ap::Dim sort_workspace(ap::Shape self, std::int64_t dim, bool /*descending*/, bool /*stable*/) {
  const auto rank = static_cast<std::int64_t>(self.rank());
  if (rank == 0 || dim < -rank || dim >= rank) return ap::Dim(0);  // the shape function refuses
  const ap::Dim n = self[static_cast<std::size_t>(dim < 0 ? dim + rank : dim)];
  const ap::Dim total = self.numel();
  return ap::select(n > ap::Dim(kBlockRowLimit64),
                    total * ap::Dim(kWorkspaceBytesPerElement) + ap::Dim(kWorkspaceFixedBytes),
                    ap::Dim(0));
}

AUTOPLUGIN_OP(
    "torchtrt_ex::sort(Tensor self, int dim=-1, bool descending=False, bool stable=False) -> "
    "(Tensor values, Tensor indices)",
    sort_shape, sort<float>, sort<__half>, sort<__nv_bfloat16>, sort<std::int32_t>,
    sort<std::int64_t>)
    .workspace(sort_workspace)
    .example(ap::Example().rank("self", 2));
