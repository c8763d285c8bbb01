// BERT's BasicTokenizer + WordPiece on the small vocabularies of google-research/bert's
// tokenization_test.py, where the expected splits are plain to see.
#include <gtest/gtest.h>

#include "core/text/load_tokenizer.h"
#include "core/text/unicode_text.h"
#include "tests/text/text_test_util.h"

namespace headroom::core::text {
namespace {

using testing::TempDir;

std::string lines(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) out += t + "\n";
  return out;
}

const std::vector<std::string> kClassicVocab = {"[UNK]", "[CLS]", "[SEP]", "[MASK]", "want",  "##want", "##ed", "wa",
                                                "un",    "runn",  "##ing", ",",      "##aff", "##able", "hello"};

std::unique_ptr<WordPieceTokenizer> make_wordpiece(const TempDir& dir, const std::vector<std::string>& vocab,
                                                   const std::string& config = "") {
  const std::string vocab_path = dir.write("vocab.txt", lines(vocab));
  return load_bert_wordpiece(vocab_path, config.empty() ? "" : dir.write("tokenizer_config.json", config));
}

std::vector<std::string> tokens(const TextTokenizer& tok, const std::string& text, bool special = false) {
  std::vector<std::string> out;
  for (int32_t id : tok.encode(text, special)) out.push_back(tok.id_to_token(id));
  return out;
}

std::vector<std::string> words(const WordPieceTokenizer& tok, const std::string& text) {
  std::vector<std::string> out;
  for (const auto& word : tok.basic_tokenize(text, 0, text.size())) {
    out.emplace_back();
    for (const auto& c : word) append_code_point(out.back(), c.cp);
  }
  return out;
}

TEST(WordPiece, GreedyLongestMatchFirstWithContinuations) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  EXPECT_EQ(tokens(*tok, "unwanted running"), (std::vector<std::string>{"un", "##want", "##ed", "runn", "##ing"}));
  EXPECT_EQ(tokens(*tok, "unaffable"), (std::vector<std::string>{"un", "##aff", "##able"}));
}

TEST(WordPiece, UnknownWordsBecomeUnkWhole) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  EXPECT_EQ(tokens(*tok, "unwantedx running"), (std::vector<std::string>{"[UNK]", "runn", "##ing"}));
  EXPECT_EQ(tokens(*tok, std::string(100, 'a') + " " + std::string(101, 'a')),
            (std::vector<std::string>{"[UNK]", "[UNK]"}));
  // 100 characters is still a word: a vocabulary that has it splits it.
  auto long_vocab = kClassicVocab;
  long_vocab.push_back(std::string(100, 'a'));
  auto tok2 = make_wordpiece(dir, long_vocab);
  EXPECT_EQ(tokens(*tok2, std::string(100, 'a')), (std::vector<std::string>{std::string(100, 'a')}));
}

TEST(WordPiece, LowerCasingStripsAccentsAndSplitsPunctuation) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  EXPECT_EQ(words(*tok, " \tHeLLo!how  \n Are yoU?  "),
            (std::vector<std::string>{"hello", "!", "how", "are", "you", "?"}));
  EXPECT_EQ(words(*tok, "Héllo"), (std::vector<std::string>{"hello"}));
  EXPECT_EQ(tokens(*tok, "UNwant\u00E9d,running"),
            (std::vector<std::string>{"un", "##want", "##ed", ",", "runn", "##ing"}));
  // ASCII symbols that are not P* in Unicode still split, as BERT's _is_punctuation has them.
  EXPECT_EQ(words(*tok, "a$b^c`d"), (std::vector<std::string>{"a", "$", "b", "^", "c", "`", "d"}));
  EXPECT_EQ(words(*tok, "«quote»"), (std::vector<std::string>{"«", "quote", "»"}));
}

TEST(WordPiece, CasedVocabularyKeepsCaseAndAccents) {
  TempDir dir;
  auto cased = make_wordpiece(dir, {"[UNK]", "Hello", "##é"});
  EXPECT_EQ(words(*cased, " \tHeLLo!how  \n Are yoU?  "),
            (std::vector<std::string>{"HeLLo", "!", "how", "Are", "yoU", "?"}));
  EXPECT_EQ(words(*cased, "Héllo"), (std::vector<std::string>{"Héllo"}));
  // tokenizer_config.json decides over the guess from the vocabulary.
  auto lowered = make_wordpiece(dir, {"[UNK]", "Hello", "hello"}, R"({"do_lower_case": true})");
  EXPECT_EQ(tokens(*lowered, "HELLO"), (std::vector<std::string>{"hello"}));
  auto kept = make_wordpiece(dir, {"[UNK]", "hello", "Hello"}, R"({"do_lower_case": false})");
  EXPECT_EQ(tokens(*kept, "Hello"), (std::vector<std::string>{"Hello"}));
}

TEST(WordPiece, ChineseCharactersAreWordsOfTheirOwn) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  EXPECT_EQ(words(*tok, "ah\u535A\u63A8zz"), (std::vector<std::string>{"ah", "\u535A", "\u63A8", "zz"}));
}

TEST(WordPiece, CleaningDropsControlCharactersAndReplacementCharacters) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  EXPECT_EQ(words(*tok, std::string("a\x00", 2) + "b\uFFFDc\u200Bd\x07"
                                                  "e\tf"),
            (std::vector<std::string>{"abcde", "f"}));
}

TEST(WordPiece, SpecialTokensInTextAndAroundIt) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  EXPECT_EQ(tokens(*tok, "hello [MASK] running", true),
            (std::vector<std::string>{"[CLS]", "hello", "[MASK]", "runn", "##ing", "[SEP]"}));
  EXPECT_EQ(tok->special_ids().cls, 1);
  EXPECT_EQ(tok->special_ids().sep, 2);
  EXPECT_EQ(tok->special_ids().mask, 3);
  EXPECT_EQ(tok->special_ids().unk, 0);
  EXPECT_EQ(tok->special_ids().bos, -1);
}

TEST(WordPiece, OffsetsPointAtTheOriginalBytes) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  const std::string text = "Héllo, UNWANTÉD";
  const auto spans = tok->encode_with_offsets(text, false);
  std::vector<std::string> covered;
  for (const auto& span : spans) covered.push_back(text.substr(span.begin, span.end - span.begin));
  EXPECT_EQ(covered, (std::vector<std::string>{"Héllo", ",", "UN", "WANT", "ÉD"}));
}

TEST(WordPiece, DecodeGluesContinuationsAndPunctuation) {
  TempDir dir;
  auto tok = make_wordpiece(dir, kClassicVocab);
  EXPECT_EQ(tok->decode(tok->encode("unwanted, running")), "unwanted, running");
  EXPECT_EQ(tok->token_label(5), "##want");
  EXPECT_THROW(tok->decode({99}), std::out_of_range);
}

}  // namespace
}  // namespace headroom::core::text
