// The files `autoplugin new` writes for one op: text only, no file system access, so that what a
// schema becomes can be read and tested on its own.
#pragma once

#include <autoplugin/backend/schema.h>
#include <autoplugin/dtype.h>

#include <string>
#include <vector>

namespace autoplugin::scaffold {

struct GeneratedFile {
  std::string name;  // relative to the project folder
  std::string text;
};

// The CMake project of `schema`'s op with one launcher per dtype. Throws autoplugin::Error when
// the schema has something the generated stub cannot express (e.g. a non-tensor return).
std::vector<GeneratedFile> generate_project(const Schema& schema, const std::vector<DType>& dtypes);

}  // namespace autoplugin::scaffold
