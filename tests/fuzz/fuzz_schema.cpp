// libFuzzer harness: the schema parser on any text. A refused schema is a SchemaError; anything
// else (another exception, a crash, a sanitizer report) is a finding.
#include <autoplugin/backend/schema.h>
#include <autoplugin/error.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const autoplugin::Schema schema = autoplugin::parse_schema(text);
    (void)schema.qualified_name();
    (void)schema.plugin_name();
  } catch (const autoplugin::SchemaError&) {
  }
  return 0;
}
