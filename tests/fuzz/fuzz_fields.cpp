// libFuzzer harness: decoding plugin fields into an example-like op's attributes and binding
// them to its launchers' types (Op::decode_fields + Op::bind_attributes), the core half of
// createPlugin; runs without TensorRT's headers. A refused collection is an autoplugin::Error;
// anything else is a finding.
#include <autoplugin/backend/op.h>
#include <autoplugin/error.h>

#include "example_like_ops.h"
#include "fuzzed_fields.h"

namespace ap = autoplugin;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::ByteReader in(data, size);
  const ap::Op* op = ap::find_op(example_like::kOps[in.byte() % example_like::kOps.size()]);
  if (op == nullptr) __builtin_trap();  // the example ops failed to register
  const std::vector<fuzz::FuzzedField> fields = fuzz::read_fields(in);
  std::vector<ap::FieldView> views;
  for (const fuzz::FuzzedField& f : fields) {
    const auto type =
        f.type >= 0 && f.type < 14 ? static_cast<ap::FieldType>(f.type) : ap::FieldType::Unknown;
    views.push_back({f.name, type, f.has_data ? f.data.data() : nullptr, f.length});
  }
  try {
    const ap::DecodedAttributes decoded = op->decode_fields(views);
    (void)op->bind_attributes(decoded.values);
  } catch (const ap::Error&) {
  }
  return 0;
}
