// Turns fuzzer bytes into a plugin field collection, the way TensorRT or its ONNX parser could
// hand one to createPlugin: any names (NUL-terminated, as TensorRT's are), any field types
// (valid or not), any lengths (negative, huge) and data. Data is owned here and sized to the
// claimed length, so the only out-of-range reads a sanitizer can see are the decoder's; a
// length too large to back with memory comes with no data (a null pointer).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

struct FuzzedField {
  std::string name;
  std::int32_t type = 0;  // TensorRT's PluginFieldType value, possibly out of range
  std::int32_t length = 0;
  bool has_data = false;
  std::vector<std::byte> data;
};

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return position_ >= size_; }
  std::uint8_t byte() { return empty() ? 0 : data_[position_++]; }
  std::int32_t int32() {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = value << 8 | byte();
    return static_cast<std::int32_t>(value);
  }
  std::string_view take(std::size_t count) {
    count = std::min(count, size_ - std::min(position_, size_));
    std::string_view text(reinterpret_cast<const char*>(data_) + position_, count);
    position_ += count;
    return text;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

// Element sizes of TensorRT's PluginFieldType values 0..13 (kINT4 and kFP4 pack two per byte,
// rounded up here); 0 for kUNKNOWN and values past the enum.
inline std::size_t element_bytes(std::int32_t type) {
  static constexpr std::size_t sizes[] = {2, 4, 8, 1, 2, 4, 1, 36, 0, 2, 8, 1, 1, 1};
  return type >= 0 && type < 14 ? sizes[type] : 0;
}

// Field names a fuzzer would rarely guess: the example ops' attribute names.
inline constexpr std::string_view kKnownNames[] = {"scale",   "shift", "relu", "rounding",
                                                   "padding", "mode",  "size", "x"};

// Layout per field: a name byte (high bit: a known name by the low bits; else that many bytes
// of name), a type byte (values past 13 stay as they are), a flag byte (bit 0: a 4-byte length
// follows instead of the data's own length; bit 1: no data), then up to 255 data bytes.
inline std::vector<FuzzedField> read_fields(ByteReader& in) {
  std::vector<FuzzedField> fields;
  while (!in.empty() && fields.size() < 64) {
    FuzzedField field;
    const std::uint8_t name_byte = in.byte();
    if (name_byte & 0x80) {
      field.name = kKnownNames[name_byte % std::size(kKnownNames)];
    } else {
      field.name = std::string(in.take(name_byte & 0x1f));
      field.name.erase(std::find(field.name.begin(), field.name.end(), '\0'), field.name.end());
    }
    const std::uint8_t type_byte = in.byte();
    field.type = type_byte < 0x80 ? type_byte % 16 : static_cast<std::int8_t>(type_byte);
    const std::uint8_t flags = in.byte();
    const std::size_t data_bytes = in.byte();
    const std::string_view bytes = in.take(data_bytes);
    const std::size_t element = std::max<std::size_t>(element_bytes(field.type), 1);
    field.length = static_cast<std::int32_t>(bytes.size() / element);
    if (flags & 1) field.length = in.int32();
    field.has_data = !(flags & 2);
    if (field.has_data) {
      // Backed to the claimed length where that is small; past it, no data at all.
      const std::int64_t claimed =
          static_cast<std::int64_t>(field.length) * static_cast<std::int64_t>(element);
      if (claimed > (1 << 16)) {
        field.has_data = false;
      } else {
        field.data.resize(static_cast<std::size_t>(std::max<std::int64_t>(claimed, 0)));
        const std::size_t copied = std::min(bytes.size(), field.data.size());
        if (copied > 0) std::memcpy(field.data.data(), bytes.data(), copied);
      }
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

}  // namespace fuzz
