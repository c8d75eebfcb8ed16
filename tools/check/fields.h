// Plugin field collections: built from a case's attributes with the types a creator lists (as
// TensorRT's ONNX parser builds them), and copied out of a plugin without trusting its pointers.
#pragma once

#include <NvInferRuntime.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "report.h"

namespace autoplugin::check {

// An owned PluginFieldCollection.
class Fields {
 public:
  void add(std::string name, nvinfer1::PluginFieldType type, std::vector<std::byte> bytes,
           std::int32_t length) {
    stored_.push_back({std::move(name), type, std::move(bytes), length});
  }
  const nvinfer1::PluginFieldCollection* collection() {
    fields_.clear();
    for (const auto& s : stored_) {
      fields_.emplace_back(s.name.c_str(), s.bytes.empty() ? nullptr : s.bytes.data(), s.type,
                           s.length);
    }
    collection_ = {static_cast<std::int32_t>(fields_.size()), fields_.data()};
    return &collection_;
  }
  // The fields' values as JSON, by name: numbers, strings (CHAR up to the first NUL), lists
  // where the length is not 1 or `lists` names the field; fields of raw bytes are left out.
  nlohmann::json values(const std::vector<std::string>& lists) const;
  // A deep copy of what a plugin returned, to use after the plugin is gone.
  static Fields copy_of(const nvinfer1::PluginFieldCollection& fc);
  bool operator==(const Fields& other) const;
  std::string differences(const Fields& other) const;

 private:
  struct Stored {
    std::string name;
    nvinfer1::PluginFieldType type;
    std::vector<std::byte> bytes;
    std::int32_t length;
    bool operator==(const Stored&) const = default;
  };
  std::vector<Stored> stored_;
  std::vector<nvinfer1::PluginField> fields_;
  nvinfer1::PluginFieldCollection collection_{};
};

// Copies memory a plugin handed out without trusting it: a dangling pointer gives an error
// instead of a crash.
void read_checked(void* destination, const void* source, std::size_t bytes,
                  const std::string& what);

// Encodes the case's attributes with the field types the creator lists (as TensorRT's ONNX
// parser does from ONNX types); unlisted attributes get the types the parser would send. A
// string's CHAR length counts its trailing NUL when `strings_count_nul` (as the ONNX parser
// sends it) or not (as other producers do).
Fields make_fields(nvinfer1::IPluginCreatorV3One& creator, const nlohmann::json& attributes,
                   bool strings_count_nul, Report& report);

// The attributes a reference computes with: the case's, and every other attribute the plugin
// serializes with its value (an autoplugin plugin serializes all, defaults applied).
nlohmann::json attributes_with_defaults(const nlohmann::json& case_attributes,
                                        const Fields& serialized,
                                        nvinfer1::IPluginCreatorV3One& creator);

}  // namespace autoplugin::check
