#include "core/data/tokenizer.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "core/data/subprocess.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace headroom::core {
namespace {

std::string printable(const std::string& piece) {
  std::string out;
  for (unsigned char c : piece) {
    if (c == '\n') out += "\xE2\x8F\x8E";      // ⏎
    else if (c == ' ') out += "\xE2\x90\xA3";  // ␣
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else out.push_back(static_cast<char>(c));
  }
  return out;
}

class ByteTokenizer final : public Tokenizer {
 public:
  std::string name() const override { return "bytes"; }
  int vocab_size() const override { return 256; }
  std::vector<int32_t> encode(const std::string& text) const override {
    std::vector<int32_t> ids(text.size());
    for (size_t i = 0; i < text.size(); ++i) ids[i] = static_cast<unsigned char>(text[i]);
    return ids;
  }
  std::string decode(const std::vector<int32_t>& ids) const override {
    std::string s;
    for (auto id : ids) s.push_back(static_cast<char>(id & 0xff));
    return s;
  }
  std::string token_label(int32_t id) const override {
    if (id >= 0x80) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", id & 0xff);
      return buf;
    }
    return printable(std::string(1, static_cast<char>(id)));
  }
};

// sentencepiece's BPE encoder, re-implemented on its .vocab file (piece<TAB>score, id = line).
// Headroom trains with Debian's `spm_train` but does not link libsentencepiece: its bundled
// protobuf-lite 3.14 cannot live in one process with LibTorch's protobuf 3.21. Training uses
// the identity normaliser, so this encoder gives exactly spm_encode's ids (a test checks that).
class BpeTokenizer final : public Tokenizer {
 public:
  BpeTokenizer(int vocab, const std::string& vocab_path) : vocab_(vocab) {
    std::ifstream in(vocab_path);
    if (!in) throw std::invalid_argument("cannot read BPE vocabulary " + vocab_path);
    std::string line;
    while (std::getline(in, line)) {
      const auto tab = line.find('\t');
      if (tab == std::string::npos) throw std::invalid_argument("malformed BPE vocabulary line in " + vocab_path);
      const std::string piece = line.substr(0, tab);
      const float score = std::stof(line.substr(tab + 1));
      ids_.emplace(piece, std::make_pair(static_cast<int32_t>(pieces_.size()), score));
      pieces_.push_back(piece);
    }
    if (pieces_.empty()) throw std::invalid_argument("empty BPE vocabulary " + vocab_path);
  }
  std::string name() const override { return "bpe-" + std::to_string(vocab_); }
  int vocab_size() const override { return static_cast<int>(pieces_.size()); }

  std::vector<int32_t> encode(const std::string& text) const override {
    std::vector<int32_t> out;
    size_t start = 0;
    while (start <= text.size()) {  // sentencepiece encodes line by line
      const size_t nl = text.find('\n', start);
      const size_t end = nl == std::string::npos ? text.size() : nl;
      if (end > start) encode_line(text.substr(start, end - start), &out);
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    return out;
  }

  std::string decode(const std::vector<int32_t>& ids) const override {
    std::string out;
    for (auto id : ids) {
      if (id < 0 || id >= static_cast<int32_t>(pieces_.size())) continue;
      const std::string& piece = pieces_[id];
      out += piece == "<unk>" ? "\xE2\x81\x87" : with_spaces(piece);  // ⁇, as sentencepiece decodes it
    }
    if (!out.empty() && out[0] == ' ') out.erase(0, 1);  // the dummy prefix
    return out;
  }

  std::string token_label(int32_t id) const override {
    if (id < 0 || id >= static_cast<int32_t>(pieces_.size())) return "?";
    return printable(with_spaces(pieces_[id]));
  }

 private:
  inline static const std::string kSpace = "\xE2\x96\x81";  // U+2581, sentencepiece's space

  // A piece with its space marks as spaces.
  static std::string with_spaces(const std::string& piece) {
    std::string out;
    for (size_t i = 0; i < piece.size();) {
      if (piece.compare(i, kSpace.size(), kSpace) == 0) {
        out += ' ';
        i += kSpace.size();
      } else {
        out.push_back(piece[i++]);
      }
    }
    return out;
  }

  // Greedy BPE as sentencepiece's bpe_model.cc: start from characters, repeatedly merge the
  // adjacent pair whose concatenation is a piece with the highest score (leftmost on ties).
  void encode_line(const std::string& line, std::vector<int32_t>* out) const {
    std::string s = kSpace;  // add_dummy_prefix
    for (char c : line) {
      if (c == ' ') s += kSpace;
      else s.push_back(c);
    }
    struct Sym {
      size_t begin, len;
      int prev, next;
    };
    std::vector<Sym> syms;
    for (size_t i = 0; i < s.size();) {
      const unsigned char c = s[i];
      const size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
      const size_t l = std::min(len, s.size() - i);
      syms.push_back({i, l, static_cast<int>(syms.size()) - 1, static_cast<int>(syms.size()) + 1});
      i += l;
    }
    if (syms.empty()) return;
    syms.back().next = -1;
    struct Cand {
      float score;
      int left;
      size_t len;
    };
    auto worse = [](const Cand& a, const Cand& b) { return a.score != b.score ? a.score < b.score : a.left > b.left; };
    std::priority_queue<Cand, std::vector<Cand>, decltype(worse)> agenda(worse);
    auto try_add = [&](int left) {
      if (left < 0) return;
      const int right = syms[left].next;
      if (right < 0) return;
      const size_t len = syms[left].len + syms[right].len;
      auto it = ids_.find(s.substr(syms[left].begin, len));
      if (it != ids_.end()) agenda.push({it->second.second, left, len});
    };
    for (int i = 0; i + 1 < static_cast<int>(syms.size()); ++i) try_add(i);
    while (!agenda.empty()) {
      const Cand c = agenda.top();
      agenda.pop();
      Sym& left = syms[c.left];
      if (left.len == 0 || left.next < 0) continue;
      Sym& right = syms[left.next];
      if (left.len + right.len != c.len) continue;  // stale: a neighbour merged meanwhile
      left.len += right.len;
      right.len = 0;
      left.next = right.next;
      if (right.next >= 0) syms[right.next].prev = c.left;
      try_add(left.prev);
      try_add(c.left);
    }
    for (int i = 0; i >= 0; i = syms[i].next) {
      auto it = ids_.find(s.substr(syms[i].begin, syms[i].len));
      out->push_back(it == ids_.end() ? 0 : it->second.first);  // 0 = <unk>
    }
  }

  int vocab_;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, std::pair<int32_t, float>> ids_;
};

// spm_train's last complaint, without its source-location prefix.
std::string last_error_line(const std::string& err) {
  std::string best;
  size_t start = 0;
  while (start < err.size()) {
    size_t end = err.find('\n', start);
    if (end == std::string::npos) end = err.size();
    const std::string line = err.substr(start, end - start);
    if (line.find("Program terminated") == std::string::npos && !line.empty()) best = line;
    start = end + 1;
  }
  const auto bracket = best.rfind("] ");
  if (bracket != std::string::npos) best = best.substr(bracket + 2);
  return best.empty() ? "it failed without saying why" : best;
}

}  // namespace

std::unique_ptr<Tokenizer> make_byte_tokenizer() { return std::make_unique<ByteTokenizer>(); }

std::unique_ptr<Tokenizer> make_bpe_tokenizer(const Corpus& corpus, int vocab) {
  if (vocab < kMinBpeVocab || vocab > kMaxBpeVocab)
    throw std::invalid_argument("BPE vocabulary " + std::to_string(vocab) + " is out of range: use " +
                                std::to_string(kMinBpeVocab) + ".." + std::to_string(kMaxBpeVocab) +
                                " (VB used 257, 500, 2000)");
  char fp[32];
  std::snprintf(fp, sizeof fp, "%016llx", static_cast<unsigned long long>(corpus.fingerprint));
  const std::string prefix = cache_dir() + "/bpe-" + fp + "-" + std::to_string(vocab);
  const std::string model = prefix + ".model";
  const std::string vocab_file = prefix + ".vocab";
  if (access(vocab_file.c_str(), R_OK) != 0) {
    // Train into a private prefix and rename, so concurrent workers never read half a model.
    const std::string tmp_prefix = prefix + ".tmp" + std::to_string(getpid());
    const std::string input = tmp_prefix + ".txt";
    std::ofstream(input, std::ios::binary) << corpus.train;
    int code = 0;
    std::string err;
    run_program(
        {"spm_train", "--input=" + input, "--model_prefix=" + tmp_prefix, "--vocab_size=" + std::to_string(vocab),
         "--model_type=bpe", "--character_coverage=1.0", "--normalization_rule_name=identity",
         "--remove_extra_whitespaces=false", "--max_sentence_length=100000", "--num_threads=2", "--minloglevel=2",
         "--unk_id=0", "--bos_id=-1", "--eos_id=-1", "--pad_id=-1"},
        &code, &err);
    std::remove(input.c_str());
    if (code != 0) {
      std::remove((tmp_prefix + ".model").c_str());
      std::remove((tmp_prefix + ".vocab").c_str());
      throw std::invalid_argument(
          code == -1
              ? "BPE tokenizers need sentencepiece's spm_train (Debian package sentencepiece); run scripts/setup.sh"
              : "spm_train could not build a BPE vocabulary of " + std::to_string(vocab) + " on corpus " + corpus.name +
                    ": " + last_error_line(err));
    }
    std::rename((tmp_prefix + ".model").c_str(), model.c_str());
    std::rename((tmp_prefix + ".vocab").c_str(), vocab_file.c_str());
  }
  return std::make_unique<BpeTokenizer>(vocab, vocab_file);
}

std::unique_ptr<Tokenizer> make_tokenizer(const std::string& spec, const Corpus* corpus) {
  if (spec == "bytes") return make_byte_tokenizer();
  if (spec.rfind("bpe:", 0) == 0) {
    int v = 0;
    try {
      size_t used = 0;
      v = std::stoi(spec.substr(4), &used);
      if (used != spec.size() - 4) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw std::invalid_argument("tokenizer '" + spec + "': expected bpe:<V>, e.g. bpe:2000");
    }
    if (!corpus) throw std::invalid_argument("tokenizer " + spec + " needs a text corpus to train on");
    return make_bpe_tokenizer(*corpus, v);
  }
  throw std::invalid_argument("unknown tokenizer '" + spec + "': use bytes or bpe:<V> (e.g. bpe:2000)");
}

}  // namespace headroom::core
