// Every error the tokenizer file readers raise: one line naming the file (and line or key), what is
// wrong and what would be right.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/load_tokenizer.h"
#include "tests/text/text_test_util.h"

namespace headroom::core::text {
namespace {

using nlohmann::json;
using testing::expect_error;
using testing::TempDir;

// A GPT-2 layout directory whose merges.txt holds `merges`.
void load_with_merges(const TempDir& dir, const std::string& merges) {
  dir.write("vocab.json", testing::byte_level_vocab_json({"ab"}));
  dir.write("merges.txt", merges);
  load_tokenizer_dir(dir.path());
}

TEST(TokenizerFileErrors, MergesLineWithoutTwoSymbols) {
  TempDir dir;
  expect_error([&] { load_with_merges(dir, "#version: 0.2\na b\nabc\n"); },
               {dir.file("merges.txt") + " line 3", "expected two symbols separated by a space, got 'abc'"});
  expect_error([&] { load_with_merges(dir, "a b c\n"); }, {"merges.txt line 1", "got 'a b c'"});
}

TEST(TokenizerFileErrors, MergeSymbolNotInVocabulary) {
  TempDir dir;
  expect_error([&] { load_with_merges(dir, "a b\n\xE2\x82\xAC b\n"); },
               {"merges.txt line 2", "symbol '\xE2\x82\xAC' is not in vocab.json"});
}

TEST(TokenizerFileErrors, MergeResultNotInVocabulary) {
  TempDir dir;
  expect_error([&] { load_with_merges(dir, "b c\n"); },
               {"merges.txt line 1", "gives 'bc', which is not in vocab.json", "every merge result must be a token"});
}

TEST(TokenizerFileErrors, MergesFileEmpty) {
  TempDir dir;
  expect_error([&] { load_with_merges(dir, "#version: 0.2\n"); }, {"merges.txt", "no merges"});
}

TEST(TokenizerFileErrors, VocabJsonNotJson) {
  TempDir dir;
  dir.write("merges.txt", "a b\n");
  dir.write("vocab.json", "{\"a\": 1,");
  expect_error([&] { load_tokenizer_dir(dir.path()); }, {dir.file("vocab.json"), "not valid JSON"});
}

TEST(TokenizerFileErrors, AJsonNumberPastADoublesRangeIsNotValidJson) {
  // nlohmann reports it as out_of_range, not parse_error: it escaped the reader without the file's
  // name (found by the tokenizer fuzz target).
  TempDir dir;
  dir.write("vocab.txt", "[UNK]\nword\n");
  dir.write("tokenizer_config.json", "{\"model_max_length\": 4e188888}");
  expect_error([&] { load_tokenizer_dir(dir.path()); },
               {dir.file("tokenizer_config.json") + ": not valid JSON", "number overflow"});
}

TEST(TokenizerFileErrors, VocabJsonNotAnObject) {
  TempDir dir;
  dir.write("merges.txt", "a b\n");
  dir.write("vocab.json", "[\"a\", \"b\"]");
  expect_error([&] { load_tokenizer_dir(dir.path()); }, {"vocab.json", "expected a JSON object of token -> id"});
}

TEST(TokenizerFileErrors, VocabJsonIdNotAnInteger) {
  TempDir dir;
  dir.write("merges.txt", "a b\n");
  dir.write("vocab.json", R"({"a": 0, "b": "one"})");
  expect_error([&] { load_tokenizer_dir(dir.path()); },
               {"vocab.json", "the id of token \"b\" must be an integer from 0", "got \"one\""});
}

TEST(TokenizerFileErrors, VocabJsonIdTwice) {
  TempDir dir;
  dir.write("merges.txt", "a b\n");
  dir.write("vocab.json", R"({"a": 0, "b": 0})");
  expect_error([&] { load_tokenizer_dir(dir.path()); }, {"vocab.json", "id 0 is given to both", "its own id"});
}

TEST(TokenizerFileErrors, VocabJsonLacksAByte) {
  TempDir dir;
  dir.write("merges.txt", "a b\n");
  dir.write("vocab.json", R"({"a": 0, "b": 1, "ab": 2})");
  expect_error([&] { load_tokenizer_dir(dir.path()); },
               {"vocab.json", "needs a token for each of the 256 bytes", "byte 0x00"});
}

TEST(TokenizerFileErrors, MergesMissingBesideVocabJson) {
  TempDir dir;
  dir.write("encoder.json", testing::byte_level_vocab_json({}));
  expect_error([&] { load_tokenizer_dir(dir.path()); }, {dir.file("vocab.bpe") + ": missing", "encoder.json"});
}

TEST(TokenizerFileErrors, FileCannotBeRead) {
  TempDir dir;
  expect_error([&] { load_gpt2_bpe(dir.file("nothing.json"), dir.file("merges.txt")); },
               {dir.file("nothing.json"), "cannot be read"});
}

TEST(TokenizerFileErrors, NotADirectory) {
  TempDir dir;
  expect_error([&] { load_tokenizer_dir(dir.write("file", "x")); }, {dir.file("file"), "not a directory"});
}

TEST(TokenizerFileErrors, NoTokenizerFilesInDirectory) {
  TempDir dir;
  expect_error([&] { load_tokenizer_dir(dir.path()); },
               {dir.path(), "no tokenizer found", "tokenizer.json", "vocab.json + merges.txt", "vocab.txt"});
}

TEST(TokenizerFileErrors, VocabTxtEmpty) {
  TempDir dir;
  dir.write("vocab.txt", "");
  expect_error([&] { load_tokenizer_dir(dir.path()); }, {dir.file("vocab.txt"), "empty", "one token a line"});
}

TEST(TokenizerFileErrors, VocabTxtWithoutUnknownToken) {
  TempDir dir;
  dir.write("vocab.txt", "a\nb\n");
  expect_error([&] { load_tokenizer_dir(dir.path()); }, {dir.file("vocab.txt"), "the unknown token '[UNK]'"});
}

TEST(TokenizerFileErrors, TokenizerConfigOptionNotABoolean) {
  TempDir dir;
  dir.write("vocab.txt", "[UNK]\na\n");
  dir.write("tokenizer_config.json", R"({"do_lower_case": "yes"})");
  expect_error([&] { load_tokenizer_dir(dir.path()); },
               {dir.file("tokenizer_config.json"), "do_lower_case must be true or false, got \"yes\""});
}

TEST(TokenizerFileErrors, TokenizerConfigSpecialTokenOfWrongType) {
  TempDir dir;
  dir.write("vocab.txt", "[UNK]\na\n");
  dir.write("tokenizer_config.json", R"({"cls_token": 5})");
  expect_error([&] { load_tokenizer_dir(dir.path()); },
               {"tokenizer_config.json", "cls_token must be a token string or {\"content\": \"...\"}, got 5"});
}

// tokenizer.json: a minimal byte-level BPE file, then one key broken at a time.
json good_tokenizer_json() {
  return {{"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model",
           {{"type", "BPE"}, {"vocab", json::parse(testing::byte_level_vocab_json({"ab"}))}, {"merges", {"a b"}}}}};
}

void expect_tokenizer_json_error(json j, const std::vector<std::string>& parts) {
  TempDir dir;
  dir.write("tokenizer.json", j.dump());
  expect_error([&] { load_tokenizer_dir(dir.path()); }, parts);
}

TEST(TokenizerJsonErrors, GoodFileLoads) {
  TempDir dir;
  dir.write("tokenizer.json", good_tokenizer_json().dump());
  EXPECT_EQ(load_tokenizer_dir(dir.path())->encode("ab"), (std::vector<int32_t>{256}));
}

TEST(TokenizerJsonErrors, ModelMissing) {
  json j = good_tokenizer_json();
  j.erase("model");
  expect_tokenizer_json_error(j, {"tokenizer.json", "model must be a JSON object, got null"});
}

TEST(TokenizerJsonErrors, UnigramRefused) {
  json j = good_tokenizer_json();
  j["model"]["type"] = "Unigram";
  expect_tokenizer_json_error(j, {"tokenizer.json", "model.type is \"Unigram\"", "Headroom reads model BPE"});
}

TEST(TokenizerJsonErrors, ByteFallbackRefused) {
  json j = good_tokenizer_json();
  j["model"]["byte_fallback"] = true;
  expect_tokenizer_json_error(j, {"model.byte_fallback is true", "does not implement"});
}

TEST(TokenizerJsonErrors, NormalizerRefused) {
  json j = good_tokenizer_json();
  j["normalizer"] = {{"type", "NFC"}};
  expect_tokenizer_json_error(j, {"normalizer.type is \"NFC\""});
}

TEST(TokenizerJsonErrors, DecoderRefused) {
  json j = good_tokenizer_json();
  j["decoder"] = {{"type", "Metaspace"}};
  expect_tokenizer_json_error(j, {"decoder.type is \"Metaspace\""});
}

TEST(TokenizerJsonErrors, SplitBehaviorRefused) {
  json j = good_tokenizer_json();
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"}, {"pattern", {{"Regex", "\\s+"}}}, {"behavior", "Removed"}},
                          {{"type", "ByteLevel"}, {"use_regex", false}}}}};
  expect_tokenizer_json_error(j, {"pre_tokenizer.pretokenizers[0].behavior is \"Removed\""});
}

TEST(TokenizerJsonErrors, SplitRegexDoesNotCompile) {
  json j = good_tokenizer_json();
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}},
                          {{"type", "ByteLevel"}, {"use_regex", false}}}}};
  expect_tokenizer_json_error(j, {"pre_tokenizer.pretokenizers[0].pattern.Regex", "'(unclosed' does not compile"});
}

// Found by fuzz/tokenizer_fuzz.cpp: a pattern with a line break in it made a two-line message. The
// pattern is shown with its control characters escaped.
TEST(TokenizerJsonErrors, APatternThatDoesNotCompileIsShownOnOneLine) {
  json j = good_tokenizer_json();
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"}, {"pattern", {{"Regex", "\\p{N}{[\r\n\t\x01"}}}, {"behavior", "Isolated"}},
                          {{"type", "ByteLevel"}, {"use_regex", false}}}}};
  expect_tokenizer_json_error(j, {"'\\p{N}{[\\r\\n\\t\\x01' does not compile"});
}

TEST(TokenizerJsonErrors, MergeEntryMalformed) {
  json j = good_tokenizer_json();
  j["model"]["merges"] = {"a b", "ab"};
  expect_tokenizer_json_error(j, {"tokenizer.json: model.merges[1]", "expected two symbols", "\"ab\""});
}

TEST(TokenizerJsonErrors, AddedTokenMalformed) {
  json j = good_tokenizer_json();
  j["added_tokens"] = {{{"content", "<x>"}}};
  expect_tokenizer_json_error(j, {"added_tokens[0] must be an object with an integer \"id\""});
}

TEST(TokenizerJsonErrors, ValueOfUnexpectedType) {
  json j = good_tokenizer_json();
  j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {"Split", "ByteLevel"}}};
  expect_tokenizer_json_error(j, {"tokenizer.json", "not the tokenizers format Headroom reads"});
}

}  // namespace
}  // namespace headroom::core::text
