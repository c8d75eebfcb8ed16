#include "case.h"

#include <autoplugin/backend/field_codec.h>
#include <autoplugin/backend/text.h>
#include <autoplugin/error.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace autoplugin::check {

std::vector<std::size_t> present_inputs(const CheckCase& c) {
  std::vector<std::size_t> present;
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    if (!c.inputs[k].absent) present.push_back(k);
  }
  return present;
}

std::string point_name(Point point) {
  return point == Point::Min ? "min" : point == Point::Opt ? "opt" : "max";
}

InputSpec input_at(const CheckCase& c, std::size_t k, Point point) {
  InputSpec spec = c.inputs.at(k);
  spec.opt = spec.at(point);
  const auto extent = [&](const ExtentBound& bound) {
    return static_cast<double>(c.inputs.at(bound.input).at(point).at(bound.axis));
  };
  if (spec.low_extent) spec.low = extent(*spec.low_extent);
  if (spec.high_extent) spec.high = extent(*spec.high_extent);
  return spec;
}

namespace {

// A key the case file format does not have is an error (a misspelled key would otherwise be
// ignored and its intent silently lost).
void check_keys(const nlohmann::json& object, const std::vector<std::string>& known,
                const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string text = where + ": unknown key \"" + key + "\"";
    if (const auto close = closest_name(key, known)) text += "; did you mean \"" + *close + "\"?";
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw Error(text + " (known: " + list + ")");
  }
}

// Numbers are read only after their JSON kind and range are checked: a value such as 4e25
// where an integer belongs would otherwise be converted with undefined behaviour.
std::int64_t integer(const nlohmann::json& value, const std::string& where) {
  const bool fits = value.is_number_integer() &&
                    (!value.is_number_unsigned() ||
                     value.get<std::uint64_t>() <=
                         static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  if (!fits) throw Error(where + ": expected a 64-bit integer, got " + value.dump());
  return value.get<std::int64_t>();
}

double number(const nlohmann::json& value, const std::string& where) {
  if (!value.is_number()) throw Error(where + ": expected a number, got " + value.dump());
  return value.get<double>();
}

// An input value: a number, or (floating-point dtypes) "nan", "inf" or "-inf", which JSON has no
// literals for.
double input_value(const nlohmann::json& value, DType dtype, const std::string& where) {
  const bool floating = dtype == DType::Float32 || dtype == DType::Float16 ||
                        dtype == DType::BFloat16 || dtype == DType::Float8E4M3;
  if (floating && value.is_string()) {
    const auto text = value.get<std::string>();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  if (!value.is_number()) {
    throw Error(where + ": expected a number" + (floating ? " or \"nan\", \"inf\", \"-inf\"" : "") +
                ", got " + value.dump());
  }
  return value.get<double>();
}

bool boolean(const nlohmann::json& value, const std::string& where) {
  if (!value.is_boolean()) throw Error(where + ": expected true or false, got " + value.dump());
  return value.get<bool>();
}

std::vector<std::int64_t> extents(const nlohmann::json& value, const std::string& where) {
  if (!value.is_array()) throw Error(where + ": expected a list of extents");
  std::vector<std::int64_t> result;
  for (const auto& v : value) {
    if (!v.is_number_integer() || integer(v, where) < 0) {
      throw Error(where + ": extents are non-negative integers, got " + v.dump());
    }
    result.push_back(v.get<std::int64_t>());
  }
  return result;
}

std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// "in<k>[<axis>]": the extent of the case's inputs[k] along `axis`, at the point the case runs.
ExtentBound extent_bound(const std::string& text, const std::string& where) {
  ExtentBound bound;
  const auto open = text.find('[');
  const auto parse = [](std::string_view digits, std::size_t& value) {
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return !digits.empty() && error == std::errc() && end == digits.data() + digits.size();
  };
  const std::string_view view(text);
  if (text.rfind("in", 0) != 0 || open == std::string::npos || text.back() != ']' ||
      !parse(view.substr(2, open - 2), bound.input) ||
      !parse(view.substr(open + 1, text.size() - open - 2), bound.axis)) {
    throw Error(where + ": expected a number or an input's extent such as \"in0[1]\", got \"" +
                text + "\"");
  }
  return bound;
}

InputSpec parse_input(const nlohmann::json& j, const std::string& where) {
  InputSpec spec;
  if (!j.is_object()) throw Error(where + ": expected an object with \"dtype\" and \"shape\"");
  check_keys(j,
             {"dtype", "shape", "min", "opt", "max", "range", "values", "zero_fraction", "integers",
              "distinct"},
             where);
  const std::string dtype = j.value("dtype", "float32");
  const auto parsed = dtype_from_name(dtype);
  if (!parsed) throw Error(where + ": unknown dtype \"" + dtype + "\"");
  spec.dtype = *parsed;
  if (j.contains("shape")) {
    spec.opt = extents(j["shape"], where + ".shape");
    spec.min = spec.max = spec.opt;
  }
  if (j.contains("opt")) spec.opt = extents(j["opt"], where + ".opt");
  spec.min = j.contains("min") ? extents(j["min"], where + ".min") : spec.opt;
  spec.max = j.contains("max") ? extents(j["max"], where + ".max") : spec.opt;
  if (spec.opt.empty() && !j.contains("shape") && !j.contains("opt")) {
    throw Error(where + ": needs \"shape\" (or \"min\"/\"opt\"/\"max\")");
  }
  if (spec.min.size() != spec.opt.size() || spec.max.size() != spec.opt.size()) {
    throw Error(where + ": min, opt and max have different ranks");
  }
  if (spec.opt.size() > kMaxCaseRank) {
    throw Error(where + ": rank " + std::to_string(spec.opt.size()) + " exceeds TensorRT's " +
                std::to_string(kMaxCaseRank));
  }
  for (std::size_t i = 0; i < spec.opt.size(); ++i) {
    if (spec.min[i] > spec.opt[i] || spec.opt[i] > spec.max[i]) {
      throw Error(where + ": dimension " + std::to_string(i) + " needs min <= opt <= max");
    }
  }
  if (j.contains("range")) {
    const auto& r = j["range"];
    if (!r.is_array() || r.size() != 2) throw Error(where + ".range: expected [low, high]");
    if (r[0].is_string()) {
      spec.low_extent = extent_bound(r[0].get<std::string>(), where + ".range[0]");
    } else {
      spec.low = number(r[0], where + ".range[0]");
    }
    if (r[1].is_string()) {
      spec.high_extent = extent_bound(r[1].get<std::string>(), where + ".range[1]");
    } else {
      spec.high = number(r[1], where + ".range[1]");
    }
  }
  if (j.contains("values")) {
    if (!j["values"].is_array()) throw Error(where + ".values: expected a list of numbers");
    for (const auto& v : j["values"]) {
      spec.values.push_back(input_value(v, spec.dtype, where + ".values"));
    }
    std::int64_t count = 1;
    for (std::int64_t d : spec.opt) count *= d;
    if (static_cast<std::int64_t>(spec.values.size()) != count) {
      throw Error(where + ".values: " + std::to_string(spec.values.size()) +
                  " values for a shape of " + std::to_string(count) + " elements");
    }
  }
  if (j.contains("zero_fraction")) {
    spec.zero_fraction = number(j["zero_fraction"], where + ".zero_fraction");
    if (!(spec.zero_fraction >= 0.0 && spec.zero_fraction <= 1.0)) {
      throw Error(where + ".zero_fraction: expected a fraction from 0 to 1, got " +
                  j["zero_fraction"].dump());
    }
  }
  if (j.contains("integers")) spec.integers = boolean(j["integers"], where + ".integers");
  if (j.contains("distinct")) spec.distinct = boolean(j["distinct"], where + ".distinct");
  if (spec.distinct && (!spec.values.empty() || spec.zero_fraction > 0.0)) {
    throw Error(where + ".distinct: random values only (no \"values\", no \"zero_fraction\")");
  }
  return spec;
}

// Extent bounds name an input of the case and one of its axes; distinct values fit their range
// at min, opt and max.
void check_ranges(const CheckCase& c, const std::string& where) {
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    const InputSpec& spec = c.inputs[k];
    const std::string at = where + ".inputs[" + std::to_string(k) + "].range";
    for (const auto& bound : {spec.low_extent, spec.high_extent}) {
      if (!bound) continue;
      const std::string name =
          "in" + std::to_string(bound->input) + "[" + std::to_string(bound->axis) + "]";
      if (bound->input >= c.inputs.size() || c.inputs[bound->input].absent) {
        throw Error(at + ": " + name + " names no input of the case (it has " +
                    std::to_string(c.inputs.size()) + ", absent ones excluded)");
      }
      if (bound->axis >= c.inputs[bound->input].opt.size()) {
        throw Error(at + ": " + name + " names no axis of input " + std::to_string(bound->input) +
                    " (rank " + std::to_string(c.inputs[bound->input].opt.size()) + ")");
      }
    }
    if (spec.absent || !spec.distinct) continue;
    for (Point point : {Point::Min, Point::Opt, Point::Max}) {
      const InputSpec resolved = input_at(c, k, point);
      std::int64_t count = 1;
      for (std::int64_t d : resolved.opt) count *= d;
      // 2^53: every integer up to it is a double, and ceil() of a bound converts exactly.
      constexpr double kExactIntegers = 9007199254740992.0;
      if (!(std::fabs(resolved.low) <= kExactIntegers &&
            std::fabs(resolved.high) <= kExactIntegers)) {
        throw Error(where + ".inputs[" + std::to_string(k) +
                    "].distinct: the range's bounds must lie within -2^53 and 2^53");
      }
      const double integers = std::ceil(resolved.high) - std::ceil(resolved.low);
      if (static_cast<double>(count) > integers) {
        throw Error(where + ".inputs[" + std::to_string(k) +
                    "].distinct: " + std::to_string(count) + " distinct values at the " +
                    point_name(point) + " shapes, but the range [" + number_text(resolved.low) +
                    ", " + number_text(resolved.high) + ") holds " +
                    number_text(std::max(integers, 0.0)) + " integers");
      }
    }
  }
}

}  // namespace

CheckFile parse_check_file(const nlohmann::json& json, const std::string& origin) {
  CheckFile file;
  try {
    if (!json.is_object()) throw Error(origin + ": expected an object with \"cases\"");
    check_keys(json, {"op", "version", "cases"}, origin);
    file.op = json.value("op", "");
    file.version = json.value("version", "");
    if (!json.contains("cases") || !json["cases"].is_array()) {
      throw Error(origin + ": expected \"cases\": [...]");
    }
    int index = 0;
    for (const auto& c : json["cases"]) {
      CheckCase parsed;
      parsed.name = c.value("name", "case" + std::to_string(index));
      const std::string where = origin + ": case '" + parsed.name + "'";
      check_keys(c,
                 {"name", "inputs", "shape_inputs", "attributes", "expect_shapes", "atol", "rtol",
                  "strings_count_nul", "expect_error"},
                 where);
      if (!c.contains("inputs")) throw Error(where + ": needs \"inputs\"");
      if (!c["inputs"].is_array()) throw Error(where + ".inputs: expected a list");
      int k = 0;
      for (const auto& input : c["inputs"]) {
        if (input.is_null()) {  // an absent Tensor? input
          InputSpec absent;
          absent.absent = true;
          parsed.inputs.push_back(absent);
          ++k;
          continue;
        }
        parsed.inputs.push_back(parse_input(input, where + ".inputs[" + std::to_string(k++) + "]"));
      }
      check_ranges(parsed, where);
      if (c.contains("shape_inputs")) {
        if (!c["shape_inputs"].is_array()) {
          throw Error(where + ".shape_inputs: expected a list of lists of integers");
        }
        int s = 0;
        for (const auto& values : c["shape_inputs"]) {
          const std::string at = where + ".shape_inputs[" + std::to_string(s++) + "]";
          if (!values.is_array()) throw Error(at + ": expected a list of integers");
          std::vector<std::int64_t> v;
          for (const auto& x : values) v.push_back(integer(x, at));
          if (v.size() > kMaxCaseRank) {
            throw Error(where + ".shape_inputs: more than " + std::to_string(kMaxCaseRank) +
                        " values");
          }
          parsed.shape_inputs.push_back(std::move(v));
        }
      }
      if (c.contains("attributes")) {
        if (!c["attributes"].is_object()) throw Error(where + ".attributes: expected an object");
        parsed.attributes = c["attributes"];
      }
      // Absent inputs before the last present one are declared in the reserved field.
      std::size_t passed = parsed.inputs.size();
      while (passed > 0 && parsed.inputs[passed - 1].absent) --passed;
      nlohmann::json declared = nlohmann::json::array();
      for (std::size_t i = 0; i < passed; ++i) {
        if (parsed.inputs[i].absent) declared.push_back(i);
      }
      const std::string field(kAbsentInputsField);
      if (!declared.empty() && !parsed.attributes.contains(field)) {
        parsed.attributes[field] = declared;
      }
      if (c.contains("expect_shapes")) {
        for (const auto& shape : c["expect_shapes"]) {
          parsed.expect_shapes.push_back(extents(shape, where + ".expect_shapes"));
        }
      }
      if (c.contains("atol")) parsed.atol = number(c["atol"], where + ".atol");
      if (c.contains("rtol")) parsed.rtol = number(c["rtol"], where + ".rtol");
      if (c.contains("expect_error")) {
        if (!c["expect_error"].is_string() || c["expect_error"].get<std::string>().empty()) {
          throw Error(where + ".expect_error: expected the text of the error the case must give");
        }
        parsed.expect_error = c["expect_error"].get<std::string>();
      }
      if (c.contains("strings_count_nul")) {
        parsed.strings_count_nul = boolean(c["strings_count_nul"], where + ".strings_count_nul");
      }
      file.cases.push_back(std::move(parsed));
      ++index;
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(origin + ": " + e.what());
  }
  return file;
}

CheckFile load_check_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read case file " + path);
  try {
    return parse_check_file(nlohmann::json::parse(in), path);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
}

namespace {

std::int64_t parse_integer(std::string_view text, std::string_view what) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw Error("expected an integer in " + std::string(what) + ", got '" + std::string(text) +
                "'");
  }
  return value;
}

}  // namespace

InputSpec parse_input_flag(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw Error("--input expects DTYPE:SHAPE such as float32:2x3x8, got '" + std::string(text) +
                "'");
  }
  InputSpec spec;
  const auto dtype = dtype_from_name(text.substr(0, colon));
  if (!dtype) throw Error("--input: unknown dtype '" + std::string(text.substr(0, colon)) + "'");
  spec.dtype = *dtype;
  std::string_view dims = text.substr(colon + 1);
  while (!dims.empty()) {
    const auto x = dims.find('x');
    const std::string_view dim = dims.substr(0, x);
    const auto range = dim.find("..");
    if (range == std::string_view::npos) {
      const std::int64_t v = parse_integer(dim, "--input");
      spec.min.push_back(v);
      spec.opt.push_back(v);
      spec.max.push_back(v);
    } else {
      spec.min.push_back(parse_integer(dim.substr(0, range), "--input"));
      spec.max.push_back(parse_integer(dim.substr(range + 2), "--input"));
      spec.opt.push_back(spec.max.back());
    }
    dims = x == std::string_view::npos ? std::string_view() : dims.substr(x + 1);
  }
  if (spec.opt.size() > kMaxCaseRank) {
    throw Error("--input: rank " + std::to_string(spec.opt.size()) + " exceeds TensorRT's " +
                std::to_string(kMaxCaseRank));
  }
  return spec;
}

std::pair<std::string, nlohmann::json> parse_attribute_flag(std::string_view text) {
  const auto equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    throw Error("--attr expects NAME=VALUE, got '" + std::string(text) + "'");
  }
  const std::string value(text.substr(equals + 1));
  nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
  if (parsed.is_discarded()) parsed = value;
  return {std::string(text.substr(0, equals)), parsed};
}

std::vector<std::int64_t> parse_shape_input_flag(std::string_view text) {
  std::vector<std::int64_t> values;
  while (!text.empty()) {
    const auto comma = text.find(',');
    values.push_back(parse_integer(text.substr(0, comma), "--shape-input"));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  if (values.size() > kMaxCaseRank) {
    throw Error("--shape-input: more than " + std::to_string(kMaxCaseRank) + " values");
  }
  return values;
}

}  // namespace autoplugin::check
