#include <gtest/gtest.h>
#include <torch/torch.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "core/data/corpus.h"
#include "core/data/data_source.h"
#include "core/data/synthetic.h"
#include "core/data/tokenizer.h"

using namespace headroom::core;

namespace {
// Tests use their own cache so they never depend on (or pollute) the user's.
struct CacheDir : ::testing::Environment {
  void SetUp() override { setenv("HEADROOM_CACHE_DIR", (::testing::TempDir() + "/headroom-test-cache").c_str(), 1); }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new CacheDir);

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}
}  // namespace

TEST(Corpus, KjvIsTheWholeBibleOneVersePerLine) {
  const auto c = load_corpus("kjv");
  const std::string all = c.train + c.validation;
  EXPECT_GT(all.size(), 4000000u);
  EXPECT_EQ(all.rfind("In the beginning God created the heaven and the earth.\n", 0), 0u) << all.substr(0, 80);
  EXPECT_NE(all.find("The grace of our Lord Jesus Christ be with you all. Amen."), std::string::npos);
  EXPECT_EQ(all.find("Genesis 1\n"), std::string::npos);  // headings dropped
  EXPECT_EQ(all.find("1 Samuel 3\n"), std::string::npos);
  // ~5% validation, deterministic
  EXPECT_NEAR(double(c.validation.size()) / all.size(), 0.05, 0.01);
  EXPECT_EQ(load_corpus("kjv").validation, c.validation);
}

TEST(Corpus, TextFilesAndTheirErrors) {
  const auto path = write_temp("small.txt", std::string(50000, 'a') + "\nhello world\n");
  const auto c = load_corpus(path);
  EXPECT_FALSE(c.validation.empty());
  EXPECT_EQ(c.train.size() + c.validation.size(), 50000u + 13u);
  EXPECT_THROW(load_corpus("/nonexistent/corpus.txt"), std::invalid_argument);
  EXPECT_THROW(load_corpus(write_temp("empty.txt", "")), std::invalid_argument);
  try {
    load_corpus(write_temp("latin1.txt", "caf\xe9 au lait\n"));
    FAIL() << "latin-1 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("UTF-8"), std::string::npos);
  }
}

TEST(Corpus, TrainSymbolsAreCountedOverTheTrainSplitAlone) {
  auto train_symbols = [](const std::string& train) {
    bool seen[256] = {};
    for (unsigned char ch : train) seen[ch] = true;
    return static_cast<int>(std::count(std::begin(seen), std::end(seen), true));
  };
  auto split_then_count = [&](const std::string& text) {
    std::string train, validation;
    split_train_validation(text, &train, &validation);
    return train_symbols(train);
  };
  // Short: its last tenth (here the final "\n") is held out, the rest is train.
  EXPECT_EQ(count_train_symbols("abc\nabd\nxyz\n"), 8);  // a b c d x y z and "\n"
  EXPECT_EQ(count_train_symbols("abc\nabd\nxyz\n"), split_then_count("abc\nabd\nxyz\n"));
  // Long: every 20th block is validation; a byte that occurs only there does not count.
  std::string text;
  for (int line = 0; line < 40000; ++line) text += "line " + std::to_string(line) + "\n";
  std::string marked = text;
  marked[text.find("line", 19 * 8192 + 4000)] = '#';  // inside block 19 (blocks are ~8 KiB)
  std::string train, validation;
  split_train_validation(marked, &train, &validation);
  ASSERT_NE(validation.find('#'), std::string::npos) << "the marked byte should fall in a validation block";
  EXPECT_EQ(count_train_symbols(marked), split_then_count(marked));
  EXPECT_EQ(count_train_symbols(marked), count_train_symbols(text));
  // KJV: load_corpus_text is the text load_corpus splits (its fingerprint), and the count is the train split's.
  const auto c = load_corpus("kjv");
  const std::string kjv = load_corpus_text("kjv");
  EXPECT_EQ(fnv1a64(kjv), c.fingerprint);
  EXPECT_EQ(count_train_symbols(kjv), train_symbols(c.train));
}

namespace {
// Points HEADROOM_LINUX_SOURCE and the cache at a test's own files for its lifetime.
struct LinuxSourceEnv {
  std::string old_cache;
  explicit LinuxSourceEnv(const std::string& tarball, const std::string& tag) {
    old_cache = std::getenv("HEADROOM_CACHE_DIR") ? std::getenv("HEADROOM_CACHE_DIR") : "";
    const std::string cache = ::testing::TempDir() + "/linux-docs-cache-" + tag;
    std::system(("rm -rf '" + cache + "'").c_str());
    setenv("HEADROOM_CACHE_DIR", cache.c_str(), 1);
    setenv("HEADROOM_LINUX_SOURCE", tarball.c_str(), 1);
  }
  ~LinuxSourceEnv() {
    setenv("HEADROOM_CACHE_DIR", old_cache.c_str(), 1);
    unsetenv("HEADROOM_LINUX_SOURCE");
  }
};

// A linux-source-like tarball: Documentation prose, a translation and a C file beside it.
std::string fake_linux_source(const std::string& tag, size_t prose_bytes) {
  const std::string root = ::testing::TempDir() + "/fake-linux-" + tag;
  std::system(("rm -rf '" + root + "' && mkdir -p '" + root + "/linux-source-6.1/Documentation/admin-guide' '" + root +
               "/linux-source-6.1/Documentation/translations/it_IT' '" + root + "/linux-source-6.1/kernel'")
                  .c_str());
  std::string prose;
  while (prose.size() < prose_bytes) prose += "The kernel schedules tasks fairly across the CPUs it manages.\n";
  std::ofstream(root + "/linux-source-6.1/Documentation/admin-guide/README.rst") << "Linux kernel release notes\n"
                                                                                 << prose;
  std::ofstream(root + "/linux-source-6.1/Documentation/translations/it_IT/index.rst") << "Traduzione italiana\n";
  std::ofstream(root + "/linux-source-6.1/Documentation/admin-guide/notes.txt") << "not reStructuredText\n";
  std::ofstream(root + "/linux-source-6.1/kernel/fork.c") << "int copy_process(void);\n";
  const std::string tarball = root + "/linux-source-6.1.tar.xz";
  EXPECT_EQ(std::system(("tar -cJf '" + tarball + "' -C '" + root + "' linux-source-6.1").c_str()), 0);
  return tarball;
}
}  // namespace

TEST(Corpus, LinuxDocsIsTheDocumentationProseOfALinuxSourceTarball) {
  const std::string tarball = fake_linux_source("ok", 1200000);
  LinuxSourceEnv env(tarball, "ok");
  EXPECT_TRUE(is_builtin_corpus("linux-docs"));
  const auto c = load_corpus("linux-docs");
  const std::string all = c.train + c.validation;
  EXPECT_EQ(all.rfind("Linux kernel release notes\n", 0), 0u) << all.substr(0, 80);
  EXPECT_EQ(all.find("Traduzione"), std::string::npos) << "translations are left out";
  EXPECT_EQ(all.find("copy_process"), std::string::npos) << "only Documentation/";
  EXPECT_EQ(all.find("not reStructuredText"), std::string::npos) << "only .rst files";
  EXPECT_NEAR(double(c.validation.size()) / all.size(), 0.05, 0.01);
  // The second load reads the cache, not the tarball: the same corpus with the tarball gone.
  std::remove(tarball.c_str());
  const auto again = load_corpus("linux-docs");
  EXPECT_EQ(again.fingerprint, c.fingerprint);
  EXPECT_EQ(again.validation, c.validation);
}

TEST(Corpus, LinuxDocsWithoutTheSourceSaysWhatToInstall) {
  {
    LinuxSourceEnv env(::testing::TempDir() + "/no-such-linux-source.tar.xz", "missing");
    try {
      load_corpus("linux-docs");
      FAIL() << "a missing tarball was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("no-such-linux-source.tar.xz, which does not exist"), std::string::npos) << m;
      EXPECT_NE(m.find("apt-get install linux-source-6.1"), std::string::npos) << m;
      EXPECT_NE(m.find("HEADROOM_LINUX_SOURCE"), std::string::npos) << m;
    }
  }
  {
    // A tarball with little Documentation/ prose is not a kernel tree.
    LinuxSourceEnv env(fake_linux_source("small", 100), "small");
    try {
      load_corpus("linux-docs");
      FAIL() << "a tarball without the kernel's documentation was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("could not read Documentation/*.rst"), std::string::npos) << e.what();
    }
  }
}

// The real corpus, where Debian's linux-source-6.1 is installed (scripts/setup.sh installs it).
TEST(Corpus, LinuxDocsFromDebiansLinuxSource) {
  if (access("/usr/src/linux-source-6.1.tar.xz", R_OK) != 0)
    GTEST_SKIP() << "linux-source-6.1 is not installed (apt-get install linux-source-6.1)";
  const auto c = load_corpus("linux-docs");  // the test cache: extracted once per test run
  const std::string all = c.train + c.validation;
  EXPECT_GT(all.size(), 15000000u);
  EXPECT_NE(all.find("SPDX-License-Identifier"), std::string::npos);
  EXPECT_NE(all.find("kernel"), std::string::npos);
  EXPECT_EQ(first_invalid_utf8(all), -1);
}

TEST(Tokenizer, BytesRoundTrip) {
  auto t = make_byte_tokenizer();
  EXPECT_EQ(t->vocab_size(), 256);
  EXPECT_EQ(t->decode(t->encode("héllo\n")), "héllo\n");
  EXPECT_EQ(t->token_label(' '), "\xE2\x90\xA3");
}

TEST(Tokenizer, BpeTrainsOnTheTrainSplitAndCaches) {
  std::string text;
  for (int i = 0; i < 400; ++i)
    text += "And God said, Let there be light: and there was light. " + std::to_string(i % 7) + "\n";
  const auto c = load_corpus(write_temp("bpe.txt", text));
  auto t = make_bpe_tokenizer(c, 60);
  EXPECT_EQ(t->vocab_size(), 60);
  const auto ids = t->encode("Let there be light");
  EXPECT_LT(ids.size(), 18u);  // merges happened: fewer tokens than characters
  EXPECT_EQ(t->decode(ids), "Let there be light");
  auto again = make_tokenizer("bpe:60", &c);  // from the cache
  EXPECT_EQ(again->encode("Let there be light"), ids);
  EXPECT_THROW(make_tokenizer("bpe:x", &c), std::invalid_argument);
  try {
    make_bpe_tokenizer(c, 5000);  // more pieces than this text has
    FAIL() << "impossible vocabulary accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too high"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_tokenizer("words", &c), std::invalid_argument);
}

TEST(Tokenizer, BpeEncoderMatchesSentencepiecesOwn) {
  // Headroom encodes with its own implementation of sentencepiece's BPE; spm_encode must agree.
  const auto c = load_corpus("kjv");
  auto t = make_bpe_tokenizer(c, 500);
  const std::string sample = c.validation.substr(0, 20000);
  const std::string path = write_temp("sample.txt", sample);
  char fp[32];
  std::snprintf(fp, sizeof fp, "%016llx", static_cast<unsigned long long>(c.fingerprint));
  const std::string model = cache_dir() + "/bpe-" + fp + "-500.model";
  const std::string cmd = "spm_encode --model=" + model + " --output_format=id < " + path;
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::vector<int32_t> expected;
  int id = 0;
  while (fscanf(pipe, "%d", &id) == 1) expected.push_back(id);
  ASSERT_EQ(pclose(pipe), 0);
  const auto ours = t->encode(sample);
  ASSERT_EQ(ours.size(), expected.size());
  EXPECT_EQ(ours, expected);
}

TEST(Synthetic, SequencesAreWellFormed) {
  std::mt19937_64 rng(1);
  for (auto task :
       {SyntheticTask::Copy, SyntheticTask::Reverse, SyntheticTask::Induction, SyntheticTask::AssociativeRecall}) {
    for (int n : {4, 9, 32}) {
      const auto s = make_synthetic_sequence(task, n, rng);
      ASSERT_EQ(s.tokens.size(), size_t(n) + 1);
      ASSERT_EQ(s.mask.size(), size_t(n));
      int scored = 0;
      for (auto m : s.mask) scored += m;
      EXPECT_GT(scored, 0) << to_string(task) << " n=" << n;
      for (auto t : s.tokens) EXPECT_TRUE(t >= 0 && t < kSyntheticVocab);
    }
  }
  const auto c = make_synthetic_sequence(SyntheticTask::Copy, 10, rng);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c.tokens[6 + i], c.tokens[i]);
  const auto r = make_synthetic_sequence(SyntheticTask::AssociativeRecall, 12, rng);
  EXPECT_EQ(r.tokens[10], kSyntheticQuery);  // n - 2
  bool found = false;
  for (int p = 0; p + 1 < 10; p += 2)
    if (r.tokens[p] == r.tokens[11]) found = (r.tokens[p + 1] == r.tokens[12]);
  EXPECT_TRUE(found);
}

TEST(DataSource, BatchesAreAFunctionOfSeedAndStep) {
  auto src = make_data_source("induction", "bytes");
  auto a = src->train_batch(7, 3, 4, 16), b = src->train_batch(7, 3, 4, 16), c = src->train_batch(7, 4, 4, 16);
  EXPECT_TRUE(torch::equal(a.inputs, b.inputs));
  EXPECT_FALSE(torch::equal(a.inputs, c.inputs));
  EXPECT_TRUE(torch::equal(a.inputs.narrow(1, 1, 15), a.targets.narrow(1, 0, 15)));
  EXPECT_TRUE(torch::equal(src->validation_batch(0, 4, 16).inputs, src->validation_batch(0, 4, 16).inputs));
  EXPECT_THROW(make_data_source("kjvv", "bytes"), std::invalid_argument);
}
