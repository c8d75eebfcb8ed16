// The example-like ops (example_like_ops.cpp) copy the bundled examples' schemas by hand; this
// test compares each with the schema its example declares (examples/*/*.cu), so that a change
// to an example's arguments, defaults or returns fails here until the copy follows.
#include <autoplugin/autoplugin.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

#include "example_like_ops.h"

namespace ap = autoplugin;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kExamplesNamespace = "torchtrt_ex::";
constexpr std::string_view kCopiesNamespace = "example_like::";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The string literals that follow `at` (adjacent ones concatenated, as the compiler does), with
// their escapes resolved; empty when no literal follows.
std::string literal_at(std::string_view source, std::size_t at) {
  std::string text;
  while (true) {
    while (at < source.size() && is_space(source[at])) ++at;
    if (at >= source.size() || source[at] != '"') return text;
    for (++at; at < source.size() && source[at] != '"'; ++at) {
      if (source[at] == '\\' && at + 1 < source.size()) {
        ++at;
        text += source[at] == 'n' ? '\n' : source[at] == 't' ? '\t' : source[at];
      } else {
        text += source[at];
      }
    }
    ++at;  // the closing quote
  }
}

// The schema text of every AUTOPLUGIN_OP declaration in the examples' sources, by op name.
std::map<std::string, std::string> example_schemas(const fs::path& examples) {
  std::map<std::string, std::string> schemas;
  constexpr std::string_view kMacro = "AUTOPLUGIN_OP(";
  for (const auto& entry : fs::recursive_directory_iterator(examples)) {
    const auto extension = entry.path().extension();
    if (!entry.is_regular_file() || (extension != ".cu" && extension != ".cpp")) continue;
    const std::string source = read_file(entry.path());
    for (std::size_t at = source.find(kMacro); at != std::string::npos;
         at = source.find(kMacro, at + 1)) {
      const std::string schema = literal_at(source, at + kMacro.size());
      if (schema.empty()) continue;  // the macro's own definition or a mention in a comment
      schemas[schema.substr(0, schema.find('('))] = schema;
    }
  }
  return schemas;
}

std::string names_of(const std::map<std::string, std::string>& schemas) {
  std::string names;
  for (const auto& [name, schema] : schemas) names += " " + name;
  return names;
}

TEST(ExampleLikeOps, SchemasAreTheExamples) {
  const fs::path examples = fs::path(AUTOPLUGIN_SOURCE_DIR) / "examples";
  if (!fs::is_directory(examples)) GTEST_SKIP() << "no examples folder at " << examples;
  const auto schemas = example_schemas(examples);
  ASSERT_FALSE(schemas.empty()) << "no AUTOPLUGIN_OP declaration found under " << examples;
  std::map<std::string, std::string> copies;
  for (const auto& op : ap::registry().ops()) copies[op.qualified_name()] = op.schema().text;
  for (const std::string_view name : example_like::kOps) {
    SCOPED_TRACE(std::string(name));
    const auto copy = copies.find(std::string(name));
    ASSERT_TRUE(copy != copies.end()) << "not declared (see example_like_ops.cpp)";
    std::string example_name(kExamplesNamespace);
    example_name += name.substr(kCopiesNamespace.size());
    const auto example = schemas.find(example_name);
    ASSERT_TRUE(example != schemas.end())
        << "no example declares " << example_name << "; the examples declare" << names_of(schemas);
    std::string expected = example->second;
    expected.replace(0, kExamplesNamespace.size(), kCopiesNamespace);
    EXPECT_EQ(copy->second, expected)
        << "example_like_ops.cpp's copy differs from the example's declaration: copy the "
           "example's schema";
  }
}

}  // namespace
