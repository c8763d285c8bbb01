// Byte-level BPE on hand-written vocabularies whose expected splits follow from the merge ranks.
#include <gtest/gtest.h>

#include <thread>

#include "core/text/load_tokenizer.h"
#include "core/text/unicode_text.h"
#include "tests/text/text_test_util.h"

namespace headroom::core::text {
namespace {

using testing::TempDir;

std::unique_ptr<ByteLevelBpeTokenizer> make_bpe(const TempDir& dir, const std::vector<std::string>& extra,
                                                const std::vector<std::string>& merges) {
  return load_gpt2_bpe(dir.write("vocab.json", testing::byte_level_vocab_json(extra)),
                       dir.write("merges.txt", testing::merges_txt(merges)));
}

std::vector<std::string> spellings(const TextTokenizer& tok, const std::vector<int32_t>& ids) {
  std::vector<std::string> out;
  for (int32_t id : ids) out.push_back(tok.id_to_token(id));
  return out;
}

std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [begin, end] : RegexSplitter(kGpt2Pattern).split(text))
    out.push_back(text.substr(begin, end - begin));
  return out;
}

TEST(ByteLevelBpe, MergesApplyLowestRankFirst) {
  TempDir dir;
  // "b c" ranks before "a b": abc -> a bc -> abc. The other order: abc -> ab c, and "a bc" never fires.
  auto bc_first = make_bpe(dir, {"bc", "ab", "abc"}, {"b c", "a b", "a bc"});
  EXPECT_EQ(spellings(*bc_first, bc_first->encode("abc")), (std::vector<std::string>{"abc"}));
  auto ab_first = make_bpe(dir, {"bc", "ab", "abc"}, {"a b", "b c", "a bc"});
  EXPECT_EQ(spellings(*ab_first, ab_first->encode("abc")), (std::vector<std::string>{"ab", "c"}));
}

TEST(ByteLevelBpe, EveryOccurrenceOfTheBestPairMergesLeftToRight) {
  TempDir dir;
  auto tok = make_bpe(dir, {"aa", "aaaa"}, {"a a", "aa aa"});
  EXPECT_EQ(spellings(*tok, tok->encode("aaaa")), (std::vector<std::string>{"aaaa"}));
  EXPECT_EQ(spellings(*tok, tok->encode("aaa")), (std::vector<std::string>{"aa", "a"}));
  EXPECT_EQ(spellings(*tok, tok->encode("aaaaa")), (std::vector<std::string>{"aaaa", "a"}));
}

TEST(ByteLevelBpe, LeadingSpaceIsPartOfTheWordAndLabelledAsOpenBox) {
  TempDir dir;
  auto tok = make_bpe(dir, {"\xC4\xA0h", "\xC4\xA0hi", "\xC4\x8A\xC4\x8A"},
                      {"\xC4\xA0 h", "\xC4\xA0h i", "\xC4\x8A \xC4\x8A"});
  const auto ids = tok->encode("hi hi\n\n");
  EXPECT_EQ(spellings(*tok, ids), (std::vector<std::string>{"h", "i", "\xC4\xA0hi", "\xC4\x8A\xC4\x8A"}));
  EXPECT_EQ(tok->token_label(ids[2]), "\xE2\x90\xA3hi");            // ␣hi
  EXPECT_EQ(tok->token_label(ids[3]), "\xE2\x8F\x8E\xE2\x8F\x8E");  // ⏎⏎
  EXPECT_EQ(tok->token_label('\t'), "\\t");
}

TEST(ByteLevelBpe, UnusualBytesFallBackToTheirByteTokens) {
  TempDir dir;
  auto tok = make_bpe(dir, {"ab"}, {"a b"});
  // In this vocabulary byte b has id b: a byte no merge covers is its own token.
  const std::string text = std::string("\x00\x7f\xff", 3) + "\xF0\x9F\xA6\x80" + "ab";
  const std::vector<int32_t> expected = {0x00, 0x7f, 0xff, 0xF0, 0x9F, 0xA6, 0x80, 256};
  EXPECT_EQ(tok->encode(text), expected);
  EXPECT_EQ(tok->decode(tok->encode(text)), text);
  EXPECT_EQ(tok->token_label(0xff), "\\xff");  // half a character: shown as its byte, still valid UTF-8
  EXPECT_EQ(tok->token_label(0), "\\x00");
}

TEST(ByteLevelBpe, Gpt2PatternSplitsWordsSpacesContractionsAndDigits) {
  EXPECT_EQ(pieces("don't I'll we've"), (std::vector<std::string>{"don", "'t", " I", "'ll", " we", "'ve"}));
  // Spaces before a word go with it, except the one it takes: the rest stay a run (\s+(?!\S)).
  EXPECT_EQ(pieces("  multiple   spaces"), (std::vector<std::string>{" ", " multiple", "  ", " spaces"}));
  EXPECT_EQ(pieces("2024 12345"), (std::vector<std::string>{"2024", " 12345"}));
  EXPECT_EQ(pieces("\n\nx"), (std::vector<std::string>{"\n", "\n", "x"}));
  EXPECT_EQ(pieces("a\tb!?"), (std::vector<std::string>{"a", "\t", "b", "!?"}));
}

TEST(ByteLevelBpe, DecodeInvertsEncodeOnAwkwardStrings) {
  TempDir dir;
  auto tok = make_bpe(dir, {"\xC4\xA0t", "\xC4\xA0th", "\xC4\xA0\xC4\xA0", "'t"},
                      {"\xC4\xA0 t", "\xC4\xA0t h", "\xC4\xA0 \xC4\xA0", "' t"});
  for (const std::string& text : testing::awkward_strings()) {
    const auto spans = tok->encode_with_offsets(text, false);
    EXPECT_EQ(tok->decode(tok->encode(text)), text) << text;
    size_t at = 0;  // the spans tile the text
    for (const TokenSpan& span : spans) {
      EXPECT_EQ(span.begin, at) << text;
      EXPECT_EQ(text.substr(span.begin, span.end - span.begin), tok->decode({span.id})) << text;
      at = span.end;
    }
    EXPECT_EQ(at, text.size()) << text;
  }
}

TEST(ByteLevelBpe, LabelsAreShortValidUtf8) {
  TempDir dir;
  const std::string long_word(40, 'x');
  std::vector<std::string> extra = {"xx", "xxxx", "xxxxxxxx", "xxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
  auto tok =
      make_bpe(dir, extra, {"x x", "xx xx", "xxxx xxxx", "xxxxxxxx xxxxxxxx", "xxxxxxxxxxxxxxxx xxxxxxxxxxxxxxxx"});
  const auto ids = tok->encode(long_word);
  ASSERT_EQ(spellings(*tok, ids).front(), extra.back());
  EXPECT_EQ(tok->token_label(ids.front()), std::string(16, 'x') + "\xE2\x80\xA6");  // …
  EXPECT_EQ(tok->token_label(-1), "?");
}

TEST(ByteLevelBpe, SpecialIdsAndOutOfRangeDecode) {
  TempDir dir;
  auto tok = make_bpe(dir, {"ab", "<|endoftext|>"}, {"a b"});
  EXPECT_EQ(tok->special_ids().eos, 257);
  EXPECT_EQ(tok->special_ids().bos, 257);
  EXPECT_EQ(tok->vocab_size(), 258);
  EXPECT_EQ(tok->name(), "gpt2-bpe-258");
  EXPECT_THROW(tok->decode({258}), std::out_of_range);
  // OpenAI's encoder reads "<|endoftext|>" in text as characters, not as the token.
  EXPECT_GT(tok->encode("<|endoftext|>").size(), 1u);
}

TEST(ByteLevelBpe, ConcurrentEncodesAgree) {
  TempDir dir;
  const std::vector<std::string> extra = {"\xC4\xA0t", "\xC4\xA0th"}, merges = {"\xC4\xA0 t", "\xC4\xA0t h"};
  auto reference = make_bpe(dir, extra, merges);
  auto shared = make_bpe(dir, extra, merges);  // its word cache fills from four threads at once
  std::vector<std::vector<int32_t>> expected;
  for (const auto& s : testing::awkward_strings()) expected.push_back(reference->encode(s));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (size_t i = 0; i < expected.size(); ++i) {
          if (shared->encode(testing::awkward_strings()[i]) != expected[i]) ++mismatches[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
}  // namespace headroom::core::text
