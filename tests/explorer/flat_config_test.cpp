// FlatConfig: a run config flattened to sorted dotted keys, read by the table, filters and figures.
#include "app/gui/explorer/flat_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace headroom::explorer {
namespace {

TEST(FlatConfig, LeavesOfNestedObjectsBecomeDottedKeysInOrder) {
  const auto c = FlatConfig::parse(
      R"({"train": {"lr": 0.003, "clip": 1.0, "seed": 7, "big": 18446744073709551615, "neg": -4},)"
      R"( "model": {"attention": {"kind": "talking-heads", "causal": true, "extra": null}, "width": 64}})");
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.value("model.attention.kind"), "talking-heads");
  EXPECT_EQ(c.value("model.attention.causal"), "true");
  EXPECT_EQ(c.value("model.attention.extra"), "null");
  EXPECT_EQ(c.value("model.width"), "64");
  EXPECT_EQ(c.value("train.lr"), "0.003");  // numbers as written
  EXPECT_EQ(c.value("train.clip"), "1.0");
  EXPECT_EQ(c.value("train.big"), "18446744073709551615");
  EXPECT_EQ(c.value("train.neg"), "-4");
  EXPECT_EQ(c.value("model.attention"), "");  // an object is not a value
  EXPECT_EQ(c.value("model.width.more"), "");
  EXPECT_EQ(c.value("missing"), "");
  EXPECT_TRUE(c.has("train.seed"));
  EXPECT_FALSE(c.has("train"));
  ASSERT_EQ(c.size(), 9u);
  for (std::size_t i = 1; i < c.size(); ++i) EXPECT_LT(c.key_at(i - 1), c.key_at(i));
  EXPECT_EQ(c.key_at(0), "model.attention.causal");
}

TEST(FlatConfig, ArraysAreOneValueInCompactJson) {
  const auto c = FlatConfig::parse(
      R"({"a": [1, 2.5, "x\"y", true, null, [], [3, [4]], {"k": [5], "s": "t"}], "b": {"e": []}, "z": 0})");
  ASSERT_TRUE(c.valid());
  const std::string a(c.value("a"));
  EXPECT_EQ(a, R"([1,2.5,"x\"y",true,null,[],[3,[4]],{"k":[5],"s":"t"}])");
  // The text is JSON that means the same as what was written.
  EXPECT_EQ(nlohmann::json::parse(a), nlohmann::json::parse(R"([1, 2.5, "x\"y", true, null, [], [3, [4]],
                                                                {"k": [5], "s": "t"}])"));
  EXPECT_EQ(c.value("b.e"), "[]");
  EXPECT_EQ(c.value("z"), "0");  // keys after an array still land at the right path
  EXPECT_EQ(c.size(), 3u);
}

TEST(FlatConfig, EscapesAreDecodedInStringsAndKeys) {
  const auto c = FlatConfig::parse(R"({"na\u00efve": {"t\tab": "line\nbreak \u2713"}})");
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.value("na\xC3\xAFve.t\tab"), "line\nbreak \xE2\x9C\x93");
}

TEST(FlatConfig, ARepeatedKeyKeepsItsLastValue) {
  const auto c = FlatConfig::parse(R"({"h": 1, "h": 2})");
  EXPECT_EQ(c.value("h"), "2");
  EXPECT_EQ(c.size(), 1u);
}

TEST(FlatConfig, TextThatIsNotAnObjectGivesAnEmptyConfig) {
  for (const char* text : {"{not json", "", "[1, 2]", "5", "\"s\"", "{\"a\": 1} trailing", "{\"a\": [1, }"}) {
    const auto c = FlatConfig::parse(text);
    EXPECT_FALSE(c.valid()) << text;
    EXPECT_EQ(c.size(), 0u) << text;
    EXPECT_EQ(c.value("a"), "") << text;
  }
  const auto empty = FlatConfig::parse("{}");
  EXPECT_TRUE(empty.valid());
  EXPECT_EQ(empty.size(), 0u);
}

}  // namespace
}  // namespace headroom::explorer
