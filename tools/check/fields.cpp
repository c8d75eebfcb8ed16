#include "fields.h"

#include <autoplugin/attr.h>
#include <autoplugin/error.h>
#include <autoplugin/trt/detail/convert.h>
#include <autoplugin/trt/plugin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <sys/uio.h>
#include <unistd.h>

#include "case.h"
#include "trt_text.h"

namespace autoplugin::check {

using nvinfer1::PluginFieldType;

void read_checked(void* destination, const void* source, std::size_t bytes,
                  const std::string& what) {
  if (bytes == 0) return;
  iovec local{destination, bytes};
  iovec remote{const_cast<void*>(source), bytes};
  if (process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(bytes)) {
    throw Error(what + " points to memory that cannot be read");
  }
}

namespace {

std::string read_name(const char* name, int index) {
  if (name == nullptr) return "";
  std::string text;
  for (char c = 0;; ++name) {
    read_checked(&c, name, 1, "the name of field " + std::to_string(index));
    if (c == '\0' || text.size() > 4096) break;
    text += c;
  }
  return text;
}

}  // namespace

Fields Fields::copy_of(const nvinfer1::PluginFieldCollection& fc) {
  Fields copy;
  if (fc.nbFields < 0 || fc.nbFields > 4096) {
    throw Error("the field collection claims " + std::to_string(fc.nbFields) + " fields");
  }
  std::vector<nvinfer1::PluginField> fields(static_cast<std::size_t>(fc.nbFields));
  read_checked(fields.data(), fc.fields, fields.size() * sizeof(nvinfer1::PluginField),
               "the field array");
  for (int i = 0; i < fc.nbFields; ++i) {
    const nvinfer1::PluginField& f = fields[std::size_t(i)];
    std::string name = read_name(f.name, i);
    std::vector<std::byte> bytes;
    if (f.data != nullptr && f.length > 0) {
      const auto type = trt::from_trt(f.type);
      if (!type) throw Error("field '" + name + "' has an unknown type " + field_type_text(f.type));
      const std::size_t size = field_byte_size(*type, std::size_t(f.length));
      bytes.resize(size);
      read_checked(bytes.data(), f.data, size, "the data of field '" + name + "'");
    }
    copy.add(std::move(name), f.type, std::move(bytes), f.length);
  }
  return copy;
}

bool Fields::operator==(const Fields& other) const { return stored_ == other.stored_; }

std::string Fields::differences(const Fields& other) const {
  std::string text;
  for (std::size_t i = 0; i < std::max(stored_.size(), other.stored_.size()); ++i) {
    if (i >= stored_.size() || i >= other.stored_.size()) {
      text += (text.empty() ? "" : "; ") + std::string("a different number of fields");
      break;
    }
    if (!(stored_[i] == other.stored_[i])) {
      text += (text.empty() ? "" : "; ") + std::string("field '") + stored_[i].name + "'";
    }
  }
  return text;
}
namespace {

template <typename T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

// One element of a field as JSON; null for a type without a number form.
nlohmann::json element(PluginFieldType type, const std::byte* p) {
  switch (type) {
    case PluginFieldType::kFLOAT64:
      return load<double>(p);
    case PluginFieldType::kFLOAT32:
      return load<float>(p);
    case PluginFieldType::kFLOAT16:
      return half_to_float(load<std::uint16_t>(p));
    case PluginFieldType::kBF16:
      return bfloat16_to_float(load<std::uint16_t>(p));
    case PluginFieldType::kINT8:
      return load<std::int8_t>(p);
    case PluginFieldType::kINT16:
      return load<std::int16_t>(p);
    case PluginFieldType::kINT32:
      return load<std::int32_t>(p);
    case PluginFieldType::kINT64:
      return load<std::int64_t>(p);
    default:
      return nullptr;
  }
}

}  // namespace

nlohmann::json Fields::values(const std::vector<std::string>& lists) const {
  nlohmann::json result = nlohmann::json::object();
  for (const Stored& f : stored_) {
    if (f.type == PluginFieldType::kCHAR) {
      std::string text;
      for (std::byte b : f.bytes) {
        if (b == std::byte{0}) break;
        text += static_cast<char>(b);
      }
      result[f.name] = text;
      continue;
    }
    const auto type = trt::from_trt(f.type);
    if (!type || f.type == PluginFieldType::kUNKNOWN || f.length < 0) continue;
    const std::size_t size = f.length == 0 ? 0 : f.bytes.size() / std::size_t(f.length);
    nlohmann::json list = nlohmann::json::array();
    for (std::int32_t i = 0; i < f.length && size != 0; ++i) {
      list.push_back(element(f.type, f.bytes.data() + std::size_t(i) * size));
    }
    const bool is_list =
        f.length != 1 || std::find(lists.begin(), lists.end(), f.name) != lists.end();
    result[f.name] = f.length == 0 && !is_list ? nlohmann::json() : is_list ? list : list[0];
  }
  return result;
}

nlohmann::json attributes_with_defaults(const nlohmann::json& case_attributes,
                                        const Fields& serialized,
                                        nvinfer1::IPluginCreatorV3One& creator) {
  std::vector<std::string> lists;  // fields the creator lists with a variable length
  if (const auto* names = creator.getFieldNames()) {
    for (int i = 0; i < names->nbFields; ++i) {
      if (names->fields[i].name != nullptr && names->fields[i].length == 0) {
        lists.emplace_back(names->fields[i].name);
      }
    }
  }
  nlohmann::json attributes = serialized.values(lists);
  attributes.update(case_attributes);  // the case's own values as it wrote them
  return attributes;
}

namespace {

template <typename T>
void append(std::vector<std::byte>& bytes, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  bytes.insert(bytes.end(), p, p + sizeof(T));
}

// One JSON number as an element of `type`, range-checked like TensorRT's ONNX parser would not.
void append_number(std::vector<std::byte>& bytes, PluginFieldType type, const nlohmann::json& v,
                   const std::string& name) {
  if (!v.is_number() && !v.is_boolean()) {
    throw Error("attribute '" + name + "': expected a number for the creator's " +
                field_type_text(type) + " field, got " + v.dump());
  }
  const double x = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
  auto integer = [&](double low, double high) {
    if (x != std::floor(x) || x < low || x > high) {
      throw Error("attribute '" + name + "': " + v.dump() + " does not fit the creator's " +
                  field_type_text(type) + " field");
    }
  };
  switch (type) {
    case PluginFieldType::kFLOAT64:
      append(bytes, x);
      break;
    case PluginFieldType::kFLOAT32:
      if (std::isfinite(x) && std::abs(x) > std::numeric_limits<float>::max()) {
        throw Error("attribute '" + name + "': " + v.dump() + " does not fit the creator's " +
                    field_type_text(type) + " field");
      }
      append(bytes, static_cast<float>(x));
      break;
    case PluginFieldType::kFLOAT16:
      append(bytes, float_to_half(static_cast<float>(x)));
      break;
    case PluginFieldType::kBF16:
      append(bytes, float_to_bfloat16(static_cast<float>(x)));
      break;
    case PluginFieldType::kINT8:
      integer(-128, 127);
      append(bytes, static_cast<std::int8_t>(x));
      break;
    case PluginFieldType::kINT16:
      integer(-32768, 32767);
      append(bytes, static_cast<std::int16_t>(x));
      break;
    case PluginFieldType::kINT32:
      integer(-2147483648.0, 2147483647.0);
      append(bytes, static_cast<std::int32_t>(x));
      break;
    case PluginFieldType::kINT64:
      if (v.is_number_unsigned() &&
          v.get<std::uint64_t>() >
              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        throw Error("attribute '" + name + "': " + v.dump() + " does not fit the creator's " +
                    field_type_text(type) + " field");
      }
      if (v.is_number_integer()) {
        append(bytes, v.get<std::int64_t>());
      } else {
        integer(-9.2e18, 9.2e18);
        append(bytes, static_cast<std::int64_t>(x));
      }
      break;
    default:
      throw Error("attribute '" + name + "': the creator lists it as " + field_type_text(type) +
                  ", which check cannot encode from " + v.dump());
  }
}

}  // namespace

Fields make_fields(nvinfer1::IPluginCreatorV3One& creator, const nlohmann::json& attributes,
                   bool strings_count_nul, Report& report) {
  std::map<std::string, PluginFieldType> listed;
  if (const auto* names = creator.getFieldNames()) {
    for (int i = 0; i < names->nbFields; ++i) {
      if (names->fields[i].name != nullptr) listed[names->fields[i].name] = names->fields[i].type;
    }
  }
  Fields fields;
  for (const auto& [name, value] : attributes.items()) {
    auto it = listed.find(name);
    if (it == listed.end() && !listed.empty()) {
      // Most likely misspelled: the plugin would silently run with its default.
      std::vector<std::string> names;
      std::string list;
      for (const auto& entry : listed) {
        names.push_back(entry.first);
        list += (list.empty() ? "" : ", ") + entry.first;
      }
      const auto close = closest_name(name, names);
      throw Error("attribute '" + name + "' is not among the creator's fields (" + list +
                  "): TensorRT's ONNX parser would drop it" +
                  (close ? "; did you mean '" + *close + "'?" : ""));
    }
    if (it == listed.end()) {
      report.info("attribute '" + name + "'",
                  "the creator's getFieldNames lists no fields: TensorRT's ONNX parser would "
                  "drop it (passed here anyway)");
    }
    const nlohmann::json& first = value.is_array() && !value.empty() ? value[0] : value;
    PluginFieldType type = it != listed.end() ? it->second : PluginFieldType::kUNKNOWN;
    if (type == PluginFieldType::kUNKNOWN) {
      type = first.is_string()         ? PluginFieldType::kCHAR
             : first.is_number_float() ? PluginFieldType::kFLOAT32
                                       : PluginFieldType::kINT32;
    }
    std::vector<std::byte> bytes;
    std::int32_t length = 0;
    if (value.is_string()) {
      for (char c : value.get<std::string>()) bytes.push_back(static_cast<std::byte>(c));
      // The NUL is always in memory; whether the length counts it is the producer's choice.
      bytes.push_back(std::byte{0});
      length = static_cast<std::int32_t>(bytes.size()) - (strings_count_nul ? 0 : 1);
      type = PluginFieldType::kCHAR;
    } else if (value.is_null()) {
      length = 0;
    } else if (value.is_array()) {
      for (const auto& element : value) append_number(bytes, type, element, name);
      length = static_cast<std::int32_t>(value.size());
    } else {
      append_number(bytes, type, value, name);
      length = 1;
    }
    fields.add(name, type, std::move(bytes), length);
  }
  return fields;
}

}  // namespace autoplugin::check
