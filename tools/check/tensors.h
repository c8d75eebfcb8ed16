// Host-side tensors for checks: seeded random inputs, .npy files for references, comparison
// with per-dtype tolerances.
#pragma once

#include "case.h"

#include <autoplugin/dtype.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace autoplugin::check {

struct HostTensor {
  DType dtype = DType::Float32;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> bytes;

  std::int64_t numel() const;
  double at(std::size_t index) const;  // element as a double
};

HostTensor make_tensor(DType dtype, std::vector<std::int64_t> shape);
HostTensor random_tensor(const InputSpec& spec, std::mt19937_64& rng);

// NumPy's .npy format; bfloat16 travels as uint16 bits (NumPy has no bfloat16). Throws
// autoplugin::Error naming the file.
void write_npy(const std::string& path, const HostTensor& tensor);
HostTensor read_npy(const std::string& path, DType expected);

struct Tolerance {
  double atol;
  double rtol;
};
Tolerance default_tolerance(DType dtype);

// Nothing when `actual` matches `expected` within the tolerance (equal values, infinities
// included, match, and NaN matches NaN); otherwise a
// description of the first mismatches and the largest error.
std::optional<std::string> compare(const HostTensor& actual, const HostTensor& expected,
                                   Tolerance tolerance);
bool bitwise_equal(const HostTensor& a, const HostTensor& b);
// An integer tensor holding some value twice (an index that repeats).
bool repeats_values(const HostTensor& t);
std::string shape_text(const std::vector<std::int64_t>& shape);

}  // namespace autoplugin::check
