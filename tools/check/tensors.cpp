#include "tensors.h"

#include <autoplugin/error.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <utility>

namespace autoplugin::check {
namespace {

template <typename T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void store(std::byte* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

std::string npy_descr(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return "<f4";
    case DType::Float16:
      return "<f2";
    case DType::BFloat16:
      return "<u2";
    case DType::Int8:
      return "|i1";
    case DType::Int32:
      return "<i4";
    case DType::Int64:
      return "<i8";
    case DType::UInt8:
      return "|u1";
    case DType::Bool:
      return "|b1";
    case DType::Float8E4M3:
      return "|u1";
  }
  return "?";
}

}  // namespace

std::int64_t HostTensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

double HostTensor::at(std::size_t index) const {
  const std::byte* p = bytes.data() + index * dtype_size(dtype);
  switch (dtype) {
    case DType::Float32:
      return load<float>(p);
    case DType::Float16:
      return half_to_float(load<std::uint16_t>(p));
    case DType::BFloat16:
      return bfloat16_to_float(load<std::uint16_t>(p));
    case DType::Int8:
      return load<std::int8_t>(p);
    case DType::Int32:
      return load<std::int32_t>(p);
    case DType::Int64:
      return static_cast<double>(load<std::int64_t>(p));
    case DType::UInt8:
      return load<std::uint8_t>(p);
    case DType::Float8E4M3:
      return float8_e4m3_to_float(load<std::uint8_t>(p));
    case DType::Bool:
      return load<bool>(p) ? 1.0 : 0.0;
  }
  return 0;
}

HostTensor make_tensor(DType dtype, std::vector<std::int64_t> shape) {
  HostTensor t{dtype, std::move(shape), {}};
  t.bytes.resize(static_cast<std::size_t>(t.numel()) * dtype_size(dtype));
  return t;
}

namespace {

// `count` different integers of [low, high), in random order (the case file's check makes sure
// the range holds them).
std::vector<double> distinct_integers(std::int64_t count, double low, double high,
                                      std::mt19937_64& rng) {
  const auto first = static_cast<std::int64_t>(std::ceil(low));
  const auto size = static_cast<std::int64_t>(std::ceil(high)) - first;
  std::vector<double> chosen;
  chosen.reserve(static_cast<std::size_t>(count));
  if (size <= 4 * count) {  // a shuffled prefix of the whole range
    std::vector<std::int64_t> all(static_cast<std::size_t>(size));
    for (std::int64_t i = 0; i < size; ++i) all[static_cast<std::size_t>(i)] = first + i;
    for (std::int64_t i = 0; i < count; ++i) {
      std::uniform_int_distribution<std::int64_t> pick(i, size - 1);
      std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(pick(rng))]);
      chosen.push_back(static_cast<double>(all[static_cast<std::size_t>(i)]));
    }
    return chosen;
  }
  std::unordered_set<std::int64_t> seen;  // a large range: draw again on a repeat
  std::uniform_int_distribution<std::int64_t> pick(first, first + size - 1);
  while (static_cast<std::int64_t>(chosen.size()) < count) {
    const std::int64_t v = pick(rng);
    if (seen.insert(v).second) chosen.push_back(static_cast<double>(v));
  }
  return chosen;
}

}  // namespace

HostTensor random_tensor(const InputSpec& spec, std::mt19937_64& rng) {
  HostTensor t = make_tensor(spec.dtype, spec.opt);
  std::uniform_real_distribution<double> value(spec.low, spec.high);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::vector<double> distinct = spec.distinct
                                           ? distinct_integers(t.numel(), spec.low, spec.high, rng)
                                           : std::vector<double>{};
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    double v = spec.distinct         ? distinct[static_cast<std::size_t>(i)]
               : spec.values.empty() ? value(rng)
                                     : spec.values[static_cast<std::size_t>(i)];
    if (spec.integers || spec.dtype == DType::Int8 || spec.dtype == DType::Int32 ||
        spec.dtype == DType::Int64) {
      v = std::floor(v);
    }
    if (unit(rng) < spec.zero_fraction) v = 0.0;
    std::byte* p = t.bytes.data() + static_cast<std::size_t>(i) * dtype_size(spec.dtype);
    switch (spec.dtype) {
      case DType::Float32:
        store(p, static_cast<float>(v));
        break;
      case DType::Float16:
        store(p, float_to_half(static_cast<float>(v)));
        break;
      case DType::BFloat16:
        store(p, float_to_bfloat16(static_cast<float>(v)));
        break;
      case DType::Int8:
        store(p, static_cast<std::int8_t>(v));
        break;
      case DType::Int32:
        store(p, static_cast<std::int32_t>(v));
        break;
      case DType::Int64:
        store(p, static_cast<std::int64_t>(v));
        break;
      case DType::UInt8:
        store(p, static_cast<std::uint8_t>(v));
        break;
      case DType::Float8E4M3:
        store(p, float_to_float8_e4m3(static_cast<float>(v)));
        break;
      case DType::Bool:
        store(p, v != 0.0);
        break;
    }
  }
  return t;
}

void write_npy(const std::string& path, const HostTensor& tensor) {
  std::string shape = "(";
  for (std::int64_t d : tensor.shape) shape += std::to_string(d) + ",";
  if (tensor.shape.size() > 1) shape.pop_back();
  shape += ")";
  std::string header = "{'descr': '" + npy_descr(tensor.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Version 1.0: the header, padded with spaces and ended by '\n', makes the data 64-aligned.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  const auto length = static_cast<std::uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(reinterpret_cast<const char*>(&length), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(tensor.bytes.data()),
            static_cast<std::streamsize>(tensor.bytes.size()));
  if (!out) throw Error("cannot write " + path);
}

HostTensor read_npy(const std::string& path, DType expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("the reference wrote no " + path);
  char magic[8];
  std::uint16_t length = 0;
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(&length), 2);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0 || magic[6] != 1) {
    throw Error(path + " is not a version 1 .npy file");
  }
  std::string header(length, ' ');
  in.read(header.data(), length);
  auto field = [&](const std::string& key) {
    const auto at = header.find("'" + key + "':");
    if (at == std::string::npos) throw Error(path + ": header has no " + key);
    return header.substr(at + key.size() + 3);
  };
  const std::string descr = field("descr");
  const std::string wanted = npy_descr(expected);
  if (descr.find(wanted) == std::string::npos) {
    throw Error(path + ": dtype " + descr.substr(0, descr.find(',')) + ", expected '" + wanted +
                "' (" + std::string(dtype_name(expected)) + ")");
  }
  if (field("fortran_order").find("False") != 1) throw Error(path + ": Fortran order");
  const std::string shape_text = field("shape");
  std::vector<std::int64_t> shape;
  std::istringstream dims(
      shape_text.substr(shape_text.find('(') + 1, shape_text.find(')') - shape_text.find('(') - 1));
  for (std::string dim; std::getline(dims, dim, ',');) {
    if (dim.find_first_not_of(' ') != std::string::npos) shape.push_back(std::stoll(dim));
  }
  HostTensor tensor = make_tensor(expected, shape);
  in.read(reinterpret_cast<char*>(tensor.bytes.data()),
          static_cast<std::streamsize>(tensor.bytes.size()));
  if (!in) throw Error(path + ": fewer bytes than its shape needs");
  return tensor;
}

Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return {1e-5, 1e-5};
    case DType::Float16:
      return {1e-3, 1e-3};
    case DType::BFloat16:
      return {1e-2, 1e-2};
    default:
      return {0, 0};
  }
}

std::optional<std::string> compare(const HostTensor& actual, const HostTensor& expected,
                                   Tolerance tolerance) {
  if (actual.shape != expected.shape) {
    return "shape " + shape_text(actual.shape) + ", reference " + shape_text(expected.shape);
  }
  std::ostringstream text;
  std::int64_t mismatches = 0;
  double worst = 0;
  for (std::int64_t i = 0; i < actual.numel(); ++i) {
    const double a = actual.at(std::size_t(i));
    const double e = expected.at(std::size_t(i));
    // Equal values match (inf - inf is NaN), as do two NaNs.
    if (a == e || (std::isnan(a) && std::isnan(e))) continue;
    const double error = std::abs(a - e);
    // An infinity matches only itself (rtol * inf would accept any value).
    const bool finite = std::isfinite(a) && std::isfinite(e);
    if (!finite || !(error <= tolerance.atol + tolerance.rtol * std::abs(e))) {
      if (mismatches < 3) text << (mismatches ? ", " : "") << "[" << i << "] " << a << " vs " << e;
      worst = std::max(worst, std::isnan(error) ? INFINITY : error);
      ++mismatches;
    }
  }
  if (mismatches == 0) return std::nullopt;
  return std::to_string(mismatches) + " of " + std::to_string(actual.numel()) +
         " elements differ (atol " + std::to_string(tolerance.atol) + ", rtol " +
         std::to_string(tolerance.rtol) + "): " + text.str() + "; largest error " +
         std::to_string(worst);
}

bool bitwise_equal(const HostTensor& a, const HostTensor& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.bytes == b.bytes;
}

bool repeats_values(const HostTensor& t) {
  if (t.dtype != DType::Int8 && t.dtype != DType::Int32 && t.dtype != DType::Int64 &&
      t.dtype != DType::UInt8) {
    return false;
  }
  std::unordered_set<double> seen;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.numel()); ++i) {
    if (!seen.insert(t.at(i)).second) return true;
  }
  return false;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace autoplugin::check
