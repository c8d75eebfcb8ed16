// Check cases: input shapes (with min/opt/max ranges), dtypes, value ranges, attributes, shape
// input values, expected output shapes and tolerances. From a JSON file or command-line flags.
#pragma once

#include <autoplugin/backend/text.h>
#include <autoplugin/dtype.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin::check {

// TensorRT's Dims hold at most 8 extents (and a shape input at most 8 values).
inline constexpr std::size_t kMaxCaseRank = 8;

// A point of an optimization profile.
enum class Point { Min, Opt, Max };
std::string point_name(Point point);

// A bound of an input's value range given as an extent of an input of the case ("in0[0]" in a
// case file): an index stays within the axis it indexes at min, opt and max alike.
struct ExtentBound {
  std::size_t input = 0;  // the case's inputs[input]
  std::size_t axis = 0;
};

struct InputSpec {
  bool absent = false;  // `null` in a case file: a Tensor? input given None
  DType dtype = DType::Float32;
  std::vector<std::int64_t> min, opt, max;             // the case runs at `opt`
  double low = -1.0, high = 1.0;                       // uniform values in [low, high)
  std::optional<ExtentBound> low_extent, high_extent;  // replace low / high where set
  double zero_fraction = 0.0;                          // share of elements set to 0
  bool integers = false;                               // round values to integers
  // Integers that all differ, drawn without repeats from [low, high): an index a kernel writes
  // through without atomics (a repeated one is a race, in the eager op too).
  bool distinct = false;
  std::vector<double> values;  // explicit values (row-major), instead of random
  const std::vector<std::int64_t>& at(Point point) const {
    return point == Point::Min ? min : point == Point::Opt ? opt : max;
  }
};

struct CheckCase {
  std::string name;
  // One per tensor input of the op. Absent ones: trailing ones are left out of what TensorRT
  // passes; the others are declared in the reserved field autoplugin_absent_inputs, which the
  // loader adds to `attributes` (unless the case sets it itself).
  std::vector<InputSpec> inputs;
  std::vector<std::vector<std::int64_t>> shape_inputs;  // values of each shape input
  nlohmann::json attributes = nlohmann::json::object();
  std::vector<std::vector<std::int64_t>> expect_shapes;  // optional, per output
  std::optional<double> atol, rtol;
  // Whether a string attribute's CHAR length counts its trailing NUL: TensorRT's ONNX parser's
  // form (the default); other producers do not count it.
  bool strings_count_nul = true;
  // The case must fail, with this text in a failed step (an op that must reject an input).
  std::optional<std::string> expect_error;
};

// The indices of the inputs TensorRT passes: the present ones, in order.
std::vector<std::size_t> present_inputs(const CheckCase& c);

// inputs[k] as it runs at `point`: its extents there in `opt`, extent bounds of its range
// resolved to numbers.
InputSpec input_at(const CheckCase& c, std::size_t k, Point point);

struct CheckFile {
  std::string op;
  std::string version;
  std::vector<CheckCase> cases;
};

// Throws autoplugin::Error naming the file, the case and the key at fault; unknown keys are
// errors.
CheckFile parse_check_file(const nlohmann::json& json, const std::string& origin);
CheckFile load_check_file(const std::string& path);

// "float32:2x3x8x8" or "float16:1..4x3x8x8" (a dimension range min..max, opt = max).
InputSpec parse_input_flag(std::string_view text);
// "name=value": value as JSON when it parses ("[1,2]", "2.5", "true"), else a string.
std::pair<std::string, nlohmann::json> parse_attribute_flag(std::string_view text);
// "2,3,4": the values of one shape input.
std::vector<std::int64_t> parse_shape_input_flag(std::string_view text);

}  // namespace autoplugin::check
