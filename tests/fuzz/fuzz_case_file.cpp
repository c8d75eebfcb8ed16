// libFuzzer harness: the case files and command-line case flags of `autoplugin check`
// (tools/check/case.*) on any text. A refused case is an autoplugin::Error naming what is wrong;
// any other exception, a crash or a sanitizer report is a finding.
#include <autoplugin/error.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "check/case.h"

namespace check = autoplugin::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the entry point; the rest is its text.
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 0: {
        const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (!json.is_discarded()) (void)check::parse_check_file(json, "fuzz.json");
        break;
      }
      case 1:
        (void)check::parse_input_flag(text);
        break;
      case 2:
        (void)check::parse_attribute_flag(text);
        break;
      default:
        (void)check::parse_shape_input_flag(text);
        break;
    }
  } catch (const autoplugin::Error&) {
  }
  return 0;
}
