// The ONNX wire-format reader of `autoplugin onnx`, on a model written by the onnx package
// (tests/tools/onnx/make_models.py).
#include <gtest/gtest.h>

#include <autoplugin/error.h>

#include <fstream>
#include <sstream>

#include "onnx/model.h"

namespace {

using autoplugin::onnx::AttributeType;

std::string model_bytes() {
  std::ifstream file(AUTOPLUGIN_ONNX_MODELS "/examples.onnx", std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

TEST(OnnxModel, ReadsNodesAndAttributes) {
  const auto model = autoplugin::onnx::parse_model(model_bytes(), "examples.onnx");
  ASSERT_EQ(model.nodes.size(), 5u);
  EXPECT_EQ(model.nodes[0].op_type, "Relu");
  EXPECT_EQ(model.nodes[0].domain, "");
  const auto& pad = model.nodes[1];
  EXPECT_EQ(pad.name, "pad");
  EXPECT_EQ(pad.domain, "torchtrt_ex");
  ASSERT_NE(pad.attribute("padding"), nullptr);
  EXPECT_EQ(pad.attribute("padding")->type, AttributeType::Ints);
  EXPECT_EQ(pad.attribute("padding")->ints, (std::vector<std::int64_t>{1, 1, 2, 2}));
  const auto& affine = model.nodes[2];
  EXPECT_EQ(affine.attribute("scale")->type, AttributeType::Float);
  EXPECT_FLOAT_EQ(affine.attribute("scale")->f, 0.5f);
  EXPECT_EQ(affine.attribute("shift")->i, 3);
  EXPECT_EQ(affine.attribute("rounding")->s, "none");
  const auto& expand = model.nodes[3];
  EXPECT_EQ(expand.inputs, (std::vector<std::string>{"s", "size"}));
  EXPECT_EQ(expand.outputs, (std::vector<std::string>{"b"}));
  const auto* scale = model.nodes[4].attribute("scale");
  ASSERT_TRUE(scale != nullptr && scale->t.has_value());
  EXPECT_EQ(scale->t->data_type, 1);
}

// Every prefix of the file either parses (a cut between top-level fields) or is an error naming
// the byte; none reads out of bounds (the sanitizer builds would see it).
TEST(OnnxModel, EveryTruncationIsACleanError) {
  const std::string bytes = model_bytes();
  ASSERT_FALSE(bytes.empty());
  int errors = 0;
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    try {
      autoplugin::onnx::parse_model(std::string_view(bytes).substr(0, size), "cut.onnx");
    } catch (const autoplugin::Error& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with("cut.onnx is not ")) << e.what();
      ++errors;
    }
  }
  EXPECT_GT(errors, static_cast<int>(bytes.size()) / 2);
}

// Each byte of the file set to each of a few values: the reader returns or throws
// autoplugin::Error, whatever the lengths, tags and wire types now say.
TEST(OnnxModel, EveryCorruptedByteIsHandled) {
  const std::string bytes = model_bytes();
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    for (const int value : {0x00, 0x07, 0x7f, 0x80, 0xff}) {
      std::string corrupted = bytes;
      corrupted[at] = static_cast<char>(value);
      try {
        autoplugin::onnx::parse_model(corrupted, "corrupted.onnx");
      } catch (const autoplugin::Error&) {
        // a clean error is what a corrupted file should give
      }
    }
  }
}

TEST(OnnxModel, HugeLengthIsAnError) {
  // ModelProto.graph claiming 2^62 bytes.
  const std::string bytes = "\x3a\x80\x80\x80\x80\x80\x80\x80\x80\x40";
  EXPECT_THROW(autoplugin::onnx::parse_model(bytes, "huge.onnx"), autoplugin::Error);
}

// Protobuf's length-delimited field `field` holding `payload`.
std::string length_delimited(int field, const std::string& payload) {
  std::string out(1, static_cast<char>(field << 3 | 2));
  for (std::size_t n = payload.size();; n >>= 7) {
    out += static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    if (n < 0x80) break;
  }
  return out + payload;
}

// A node whose attribute holds a graph whose node holds ..., `depth` graphs deep.
std::string nested_model(int depth) {
  std::string graph;
  for (int level = 0; level < depth; ++level) {
    const std::string attribute = length_delimited(1, "body") + length_delimited(6, graph);
    const std::string node = length_delimited(4, "Loop") + length_delimited(5, attribute);
    graph = length_delimited(1, node);
  }
  return length_delimited(7, graph);
}

TEST(OnnxModel, ReadsSubgraphsAndRefusesDeepNesting) {
  const auto model = autoplugin::onnx::parse_model(nested_model(3), "nested.onnx");
  ASSERT_EQ(model.nodes.size(), 3u);
  EXPECT_EQ(model.nodes[0].graph, "");
  EXPECT_EQ(model.nodes[1].graph, "node '' attribute 'body'");
  EXPECT_EQ(model.nodes[2].graph, "node '' attribute 'body' / node '' attribute 'body'");
  try {
    autoplugin::onnx::parse_model(nested_model(5000), "deep.onnx");
    FAIL() << "expected an error";
  } catch (const autoplugin::Error& e) {
    EXPECT_NE(std::string(e.what()).find("subgraphs nested more than 32 deep"), std::string::npos)
        << e.what();
  }
}

}  // namespace
