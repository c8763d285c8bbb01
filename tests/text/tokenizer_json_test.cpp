// tokenizer.json: the supported kinds encode like their classic files; the rest are refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/load_tokenizer.h"
#include "tests/text/text_test_util.h"

namespace headroom::core::text {
namespace {

using nlohmann::json;
using testing::TempDir;

const std::vector<std::string> kExtra = {"\xC4\xA0t",        "\xC4\xA0th", "\xC4\xA0the", "he",
                                         "\xC4\xA0\xC4\xA0", "12",         "123"};
const std::vector<std::string> kMerges = {"\xC4\xA0 t", "h e", "\xC4\xA0t he", "\xC4\xA0 \xC4\xA0", "1 2", "12 3"};

json bpe_tokenizer_json(const json& pre_tokenizer, const std::vector<std::string>& merges = kMerges) {
  json j;
  j["version"] = "1.0";
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = pre_tokenizer;
  j["decoder"] = {{"type", "ByteLevel"}};
  j["model"] = {{"type", "BPE"},          {"dropout", nullptr},
                {"unk_token", nullptr},   {"byte_fallback", false},
                {"ignore_merges", false}, {"vocab", json::parse(testing::byte_level_vocab_json(kExtra))},
                {"merges", merges}};
  j["added_tokens"] = json::array();
  return j;
}

json byte_level(bool use_regex) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", use_regex}};
}

json split_then_byte_level(const std::string& pattern) {
  return {{"type", "Sequence"},
          {"pretokenizers",
           {{{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
            byte_level(false)}}};
}

std::unique_ptr<TextTokenizer> load(const TempDir& dir, const json& j) {
  return load_tokenizer_json(dir.write("tokenizer.json", j.dump()));
}

TEST(TokenizerJson, ByteLevelBpeEncodesLikeVocabJsonAndMerges) {
  TempDir dir;
  auto classic = load_gpt2_bpe(dir.write("vocab.json", testing::byte_level_vocab_json(kExtra)),
                               dir.write("merges.txt", testing::merges_txt(kMerges)));
  auto from_json = load(dir, bpe_tokenizer_json(byte_level(true)));
  // Newer tokenizers versions write merges as pairs; same model.
  std::vector<std::vector<std::string>> pairs;
  for (const auto& m : kMerges) pairs.push_back({m.substr(0, m.find(' ')), m.substr(m.find(' ') + 1)});
  json as_pairs = bpe_tokenizer_json(byte_level(true));
  as_pairs["model"]["merges"] = pairs;
  auto from_pairs = load(dir, as_pairs);
  auto from_split = load(dir, bpe_tokenizer_json(split_then_byte_level(kGpt2Pattern)));
  for (const std::string& text : testing::awkward_strings()) {
    const std::string s = text + " the 123";
    EXPECT_EQ(from_json->encode(s), classic->encode(s)) << s;
    EXPECT_EQ(from_pairs->encode(s), classic->encode(s)) << s;
    EXPECT_EQ(from_split->encode(s), classic->encode(s)) << s;
    EXPECT_EQ(from_json->decode(from_json->encode(s)), s);
  }
}

std::vector<std::string> covered(const TextTokenizer& tok, const std::string& text) {
  std::vector<std::string> out;
  for (const auto& span : tok.encode_with_offsets(text, false))
    out.push_back(text.substr(span.begin, span.end - span.begin));
  return out;
}

TEST(TokenizerJson, SplitUsesItsOwnPattern) {
  TempDir dir;
  // Llama 3 cuts digit runs into threes: "1234512" is "123" "451" "2", and "12" cannot merge across
  // pieces; GPT-2's pattern keeps the run whole, so both "1 2" merges fire.
  const std::string llama3 =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  auto tok = load(dir, bpe_tokenizer_json(split_then_byte_level(llama3)));
  auto gpt2 = load(dir, bpe_tokenizer_json(byte_level(true)));
  EXPECT_EQ(covered(*tok, "1234512"), (std::vector<std::string>{"123", "4", "5", "1", "2"}));
  EXPECT_EQ(covered(*gpt2, "1234512"), (std::vector<std::string>{"123", "4", "5", "12"}));
  for (const std::string& text : testing::awkward_strings()) EXPECT_EQ(tok->decode(tok->encode(text)), text);
}

TEST(TokenizerJson, AddedTokensAreMatchedBeforePreTokenization) {
  TempDir dir;
  json j = bpe_tokenizer_json(byte_level(true));
  j["added_tokens"] = {{{"id", 300},
                        {"content", "<|endoftext|>"},
                        {"special", true},
                        {"lstrip", false},
                        {"rstrip", false},
                        {"single_word", false},
                        {"normalized", false}},
                       {{"id", 301},
                        {"content", "<mask>"},
                        {"special", true},
                        {"lstrip", true},
                        {"rstrip", false},
                        {"single_word", false},
                        {"normalized", false}}};
  auto tok = load(dir, j);
  EXPECT_EQ(tok->vocab_size(), 302);
  const auto ids = tok->encode("a<|endoftext|>b  <mask>");
  EXPECT_EQ(ids, (std::vector<int32_t>{'a', 300, 'b', 301}));  // <mask> swallows the spaces before it
  EXPECT_EQ(tok->decode({300}), "<|endoftext|>");
  EXPECT_EQ(tok->special_ids().eos, 300);
}

TEST(TokenizerJson, AnAddedTokenTheMergesReachCoversTheBytesTheyMerged) {
  // "\xC4\xA0t" (id 256) is also an added token: matched as those characters in the raw text, and
  // made by the merge "Ġ t" from the input " t". Its span was measured by its content (3 bytes),
  // so " t" gave a token ending past the text (found while writing the tokenizer fuzz target).
  TempDir dir;
  json j = bpe_tokenizer_json(byte_level(true));
  j["added_tokens"] = {{{"id", 256}, {"content", "\xC4\xA0t"}, {"special", false}}};
  auto tok = load(dir, j);
  const std::string text = "a t";
  const auto spans = tok->encode_with_offsets(text, false);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[1].id, 256);
  EXPECT_EQ(spans[1].begin, 1u);
  EXPECT_EQ(spans[1].end, 3u);                 // " t", within the text
  EXPECT_EQ(tok->decode({256}), "\xC4\xA0t");  // an added token decodes as written
  // Its content in the raw text is matched before pre-tokenization, over its own 3 bytes.
  const auto raw = tok->encode_with_offsets("x\xC4\xA0t", false);
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(raw[1].id, 256);
  EXPECT_EQ(raw[1].end, 4u);
}

TEST(TokenizerJson, IgnoreMergesTakesAWholeTokenAsIs) {
  TempDir dir;
  json j = bpe_tokenizer_json(byte_level(true), {"h e"});  // "\xC4\xA0the" is a token no merge reaches
  auto merging = load(dir, j);
  EXPECT_EQ(merging->encode(" the").size(), 3u);  // Ġ t he
  j["model"]["ignore_merges"] = true;
  auto whole = load(dir, j);
  EXPECT_EQ(whole->encode(" the"), (std::vector<int32_t>{*whole->token_to_id("\xC4\xA0the")}));
}

TEST(TokenizerJson, TemplateProcessingPutsTheBosFirst) {
  TempDir dir;
  json j = bpe_tokenizer_json(byte_level(true));
  j["added_tokens"] = {{{"id", 300}, {"content", "<|begin_of_text|>"}, {"special", true}}};
  j["post_processor"] = {{"type", "TemplateProcessing"},
                         {"single",
                          {{{"SpecialToken", {{"id", "<|begin_of_text|>"}, {"type_id", 0}}}},
                           {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}}};
  auto tok = load(dir, j);
  EXPECT_EQ(tok->special_ids().bos, 300);
  EXPECT_EQ(tok->encode("a", true), (std::vector<int32_t>{300, 'a'}));
  EXPECT_EQ(tok->encode("a", false), (std::vector<int32_t>{'a'}));
}

TEST(TokenizerJson, WordPieceEncodesLikeVocabTxt) {
  TempDir dir;
  const std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##want",
                                          "##ed",  "runn",  "##ing", ",",     "hello",  "!",  "\u535A"};
  std::string lines;
  json vocab_json = json::object();
  for (size_t i = 0; i < vocab.size(); ++i) {
    lines += vocab[i] + "\n";
    vocab_json[vocab[i]] = i;
  }
  auto classic = load_bert_wordpiece(dir.write("vocab.txt", lines), "");
  json added = json::array();
  for (int id = 0; id < 5; ++id) {
    added.push_back({{"id", id}, {"content", vocab[id]}, {"special", true}, {"normalized", false}});
  }
  json j = {{"normalizer",
             {{"type", "BertNormalizer"},
              {"clean_text", true},
              {"handle_chinese_chars", true},
              {"strip_accents", nullptr},
              {"lowercase", true}}},
            {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
            {"post_processor", {{"type", "BertProcessing"}, {"sep", {"[SEP]", 3}}, {"cls", {"[CLS]", 2}}}},
            {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
            {"added_tokens", added},
            {"model",
             {{"type", "WordPiece"},
              {"unk_token", "[UNK]"},
              {"continuing_subword_prefix", "##"},
              {"max_input_chars_per_word", 100},
              {"vocab", vocab_json}}}};
  auto from_json = load(dir, j);
  for (const std::string text : {"UNwant\u00E9d,running!", "Hello [MASK] x\u535A", "  ", "h\u00E9llo\tWORLD"}) {
    EXPECT_EQ(from_json->encode(text, true), classic->encode(text, true)) << text;
  }
  EXPECT_EQ(from_json->special_ids().cls, 2);
  EXPECT_EQ(from_json->special_ids().sep, 3);
}

TEST(TokenizerJson, AddPrefixSpaceEncodesAsIfTheTextStartedWithASpace) {
  TempDir dir;
  json with_space = byte_level(true);
  with_space["add_prefix_space"] = true;
  auto tok = load(dir, bpe_tokenizer_json(with_space));
  auto plain = load(dir, bpe_tokenizer_json(byte_level(true)));
  EXPECT_EQ(tok->encode("the"), plain->encode(" the"));
  const auto spans = tok->encode_with_offsets("the", false);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin, 0u);  // the added space stands for no input byte
  EXPECT_EQ(spans[0].end, 3u);
}

TEST(TokenizerJson, ModelDirectoryConfigsNameTheSpecialTokens) {
  TempDir dir;
  json j = bpe_tokenizer_json(byte_level(true));
  j["added_tokens"] = {{{"id", 300}, {"content", "<|end_of_text|>"}, {"special", true}},
                       {{"id", 301}, {"content", "<|eot_id|>"}, {"special", true}}};
  dir.write("tokenizer.json", j.dump());
  EXPECT_EQ(load_tokenizer_dir(dir.path())->special_ids().eos, 300);
  dir.write("tokenizer_config.json", R"({"eos_token": {"content": "<|eot_id|>", "lstrip": false}, "pad_token": null})");
  EXPECT_EQ(load_tokenizer_dir(dir.path())->special_ids().eos, 301);
  // The GPT-2 layout reads special_tokens_map.json the same way.
  TempDir gpt2;
  gpt2.write("vocab.json", testing::byte_level_vocab_json({"<|endoftext|>", "<pad>", "ab"}));
  gpt2.write("merges.txt", testing::merges_txt({"a b"}));
  gpt2.write("special_tokens_map.json", R"({"pad_token": "<pad>"})");
  auto tok = load_tokenizer_dir(gpt2.path());
  EXPECT_EQ(tok->special_ids().pad, 257);
  EXPECT_EQ(tok->special_ids().eos, 256);
}

TEST(TokenizerJson, MetaspaceIsRefusedNamingKeyValueAndWhatWorks) {
  TempDir dir;
  json j = bpe_tokenizer_json({{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}});
  testing::expect_error([&] { load(dir, j); },
                        {"tokenizer.json", "pre_tokenizer.type", "\"Metaspace\"", "Headroom reads model BPE with"});
}

}  // namespace
}  // namespace headroom::core::text
