#include "core/text/tokenizer_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "core/text/load_tokenizer.h"

namespace headroom::core::text {
namespace files {

constexpr int64_t kMaxTokenId = 16 * 1024 * 1024;  // far above any real vocabulary; guards the allocation

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read (" + std::strerror(errno) + ")");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

nlohmann::json read_json(const std::string& path) {
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {  // a parse error, or a number past a double's range
    throw std::runtime_error(path + ": not valid JSON (" + e.what() + ")");
  }
}

std::string show(const nlohmann::json& value) {
  std::string s = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

std::vector<std::string> vocab_from_json(const nlohmann::json& vocab, const std::string& where) {
  if (!vocab.is_object() || vocab.empty()) {
    throw std::runtime_error(where + ": expected a JSON object of token -> id, like {\"hello\": 31373}, got " +
                             show(vocab));
  }
  int64_t max_id = -1;
  for (const auto& [token, id] : vocab.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= kMaxTokenId) {
      throw std::runtime_error(where + ": the id of token " + show(token) +
                               " must be an integer from 0 to 16777215, got " + show(id));
    }
    max_id = std::max(max_id, id.get<int64_t>());
  }
  std::vector<std::string> spellings(static_cast<size_t>(max_id + 1));
  for (const auto& [token, id] : vocab.items()) {
    std::string& slot = spellings[id.get<size_t>()];
    if (!slot.empty()) {
      throw std::runtime_error(where + ": id " + std::to_string(id.get<int64_t>()) + " is given to both " + show(slot) +
                               " and " + show(token) + "; each token needs its own id");
    }
    if (token.empty()) throw std::runtime_error(where + ": the empty string is not a token (id " + show(id) + ")");
    slot = token;
  }
  return spellings;
}

std::unordered_map<std::string, int32_t> ids_of(const std::vector<std::string>& spellings) {
  std::unordered_map<std::string, int32_t> ids;
  for (size_t id = 0; id < spellings.size(); ++id) {
    if (!spellings[id].empty()) ids.emplace(spellings[id], static_cast<int32_t>(id));
  }
  return ids;
}

BpeMerge resolve_merge(const std::string& left, const std::string& right,
                       const std::unordered_map<std::string, int32_t>& ids, const std::string& where,
                       const std::string& vocab_name) {
  for (const std::string* symbol : {&left, &right}) {
    if (ids.count(*symbol) == 0) {
      throw std::runtime_error(where + ": symbol '" + *symbol + "' is not in " + vocab_name +
                               "; every merged symbol must be a token");
    }
  }
  const auto merged = ids.find(left + right);
  if (merged == ids.end()) {
    throw std::runtime_error(where + ": merging '" + left + "' and '" + right + "' gives '" + left + right +
                             "', which is not in " + vocab_name + "; every merge result must be a token");
  }
  return {ids.at(left), ids.at(right), merged->second};
}

void apply_special_token_config(const nlohmann::json& config, const std::string& path,
                                const std::unordered_map<std::string, int32_t>& vocab, SpecialTokenIds* ids) {
  if (!config.is_object()) throw std::runtime_error(path + ": expected a JSON object, got " + show(config));
  const std::pair<const char*, int32_t*> keys[] = {
      {"bos_token", &ids->bos}, {"eos_token", &ids->eos}, {"cls_token", &ids->cls},  {"sep_token", &ids->sep},
      {"unk_token", &ids->unk}, {"pad_token", &ids->pad}, {"mask_token", &ids->mask}};
  for (const auto& [key, slot] : keys) {
    const auto it = config.find(key);
    if (it == config.end() || it->is_null()) continue;
    const nlohmann::json* content = &*it;
    if (it->is_object() && it->contains("content")) content = &(*it)["content"];
    if (!content->is_string()) {
      throw std::runtime_error(path + ": " + key + " must be a token string or {\"content\": \"...\"}, got " +
                               show(*it));
    }
    const auto found = vocab.find(content->get<std::string>());
    if (found != vocab.end()) *slot = found->second;
  }
}

bool config_bool(const nlohmann::json& config, const std::string& path, const std::string& key, bool fallback) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw std::runtime_error(path + ": " + key + " must be true or false, got " + show(*it));
  return it->get<bool>();
}

}  // namespace files

using namespace files;

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<BpeMerge> read_merges(const std::string& path, const std::unordered_map<std::string, int32_t>& ids,
                                  const std::string& vocab_name) {
  const std::string text = read_file(path);
  std::vector<BpeMerge> merges;
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(at, eol - at);
    at = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1 && line.rfind("#version", 0) == 0) continue;
    const size_t space = line.find(' ');
    const std::string where = path + " line " + std::to_string(line_no);
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      throw std::runtime_error(where + ": expected two symbols separated by a space, got '" + line + "'");
    }
    merges.push_back(resolve_merge(line.substr(0, space), line.substr(space + 1), ids, where, vocab_name));
  }
  if (merges.empty()) throw std::runtime_error(path + ": no merges; expected one \"left right\" pair a line");
  return merges;
}

// Uncased BERT vocabularies hold no upper-case letters outside their "[CLS]"-style specials.
bool looks_uncased(const std::vector<std::string>& vocab) {
  for (const std::string& token : vocab) {
    if (!token.empty() && token.front() == '[' && token.back() == ']') continue;
    for (char c : token) {
      if (c >= 'A' && c <= 'Z') return false;
    }
  }
  return true;
}

// The special tokens a model directory's configs name (an instruct model's EOS, say) over the
// tokenizer's own.
void apply_dir_special_tokens(const std::string& base, TextTokenizer* tokenizer) {
  SpecialTokenIds special = tokenizer->special_ids();
  std::unordered_map<std::string, int32_t> ids;
  for (int32_t id = 0; id < tokenizer->vocab_size(); ++id) ids.emplace(tokenizer->id_to_token(id), id);
  for (const char* name : {"special_tokens_map.json", "tokenizer_config.json"}) {
    if (file_exists(base + name)) apply_special_token_config(read_json(base + name), base + name, ids, &special);
  }
  tokenizer->set_special_ids(special);
}

}  // namespace

std::unique_ptr<ByteLevelBpeTokenizer> load_gpt2_bpe(const std::string& vocab_json, const std::string& merges_txt) {
  BpeModel model;
  model.source = vocab_json;
  model.spellings = vocab_from_json(read_json(vocab_json), vocab_json);
  const auto ids = ids_of(model.spellings);
  model.merges = read_merges(merges_txt, ids, base_name(vocab_json));
  BpeOptions options;
  options.name = "gpt2-bpe-" + std::to_string(model.spellings.size());
  auto tokenizer = std::make_unique<ByteLevelBpeTokenizer>(std::move(model), std::move(options));
  SpecialTokenIds special;
  if (const auto eot = tokenizer->token_to_id("<|endoftext|>")) special.bos = special.eos = *eot;
  tokenizer->set_special_ids(special);
  return tokenizer;
}

std::unique_ptr<WordPieceTokenizer> load_bert_wordpiece(const std::string& vocab_txt,
                                                        const std::string& tokenizer_config) {
  const std::string text = read_file(vocab_txt);
  std::vector<std::string> vocab;
  for (size_t at = 0; at < text.size();) {
    size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    std::string token = text.substr(at, eol - at);
    if (!token.empty() && token.back() == '\r') token.pop_back();
    vocab.push_back(std::move(token));
    at = eol + 1;
  }
  if (vocab.empty()) throw std::runtime_error(vocab_txt + ": empty; a WordPiece vocabulary has one token a line");
  const nlohmann::json config = tokenizer_config.empty() ? nlohmann::json::object() : read_json(tokenizer_config);
  if (!config.is_object()) throw std::runtime_error(tokenizer_config + ": expected a JSON object, got " + show(config));
  WordPieceOptions options;
  options.name = "wordpiece-" + std::to_string(vocab.size());
  options.lowercase = config_bool(config, tokenizer_config, "do_lower_case", looks_uncased(vocab));
  options.strip_accents = config_bool(config, tokenizer_config, "strip_accents", options.lowercase);
  options.handle_chinese_chars = config_bool(config, tokenizer_config, "tokenize_chinese_chars", true);
  const auto ids = ids_of(vocab);
  SpecialTokenIds special;
  const std::pair<const char*, int32_t*> names[] = {{"[CLS]", &special.cls},
                                                    {"[SEP]", &special.sep},
                                                    {"[UNK]", &special.unk},
                                                    {"[PAD]", &special.pad},
                                                    {"[MASK]", &special.mask}};
  for (const auto& [token, slot] : names) {
    const auto it = ids.find(token);
    if (it != ids.end()) *slot = it->second;
  }
  apply_special_token_config(config, tokenizer_config, ids, &special);
  if (special.unk >= 0) options.unk_token = vocab[special.unk];
  for (int32_t id : {special.cls, special.sep, special.unk, special.pad, special.mask}) {
    if (id >= 0) options.added_tokens.push_back({vocab[id], id});
  }
  auto tokenizer = std::make_unique<WordPieceTokenizer>(vocab_txt, std::move(vocab), std::move(options));
  tokenizer->set_special_ids(special);
  return tokenizer;
}

std::unique_ptr<TextTokenizer> load_tokenizer_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw std::runtime_error(dir + ": not a directory; expected a model directory holding its tokenizer files");
  }
  const std::string base = dir.back() == '/' ? dir : dir + "/";
  if (file_exists(base + "tokenizer.json")) {
    auto tokenizer = load_tokenizer_json(base + "tokenizer.json");
    apply_dir_special_tokens(base, tokenizer.get());
    return tokenizer;
  }
  for (const auto& [vocab, merges] : {std::pair<std::string, std::string>{"vocab.json", "merges.txt"},
                                      std::pair<std::string, std::string>{"encoder.json", "vocab.bpe"}}) {
    if (!file_exists(base + vocab)) continue;
    if (!file_exists(base + merges)) {
      throw std::runtime_error(base + merges + ": missing; " + vocab + " (byte-level BPE) needs its merges in " +
                               merges + " beside it");
    }
    std::unique_ptr<TextTokenizer> tokenizer = load_gpt2_bpe(base + vocab, base + merges);
    apply_dir_special_tokens(base, tokenizer.get());
    return tokenizer;
  }
  if (file_exists(base + "vocab.txt")) {
    const std::string config = base + "tokenizer_config.json";
    return load_bert_wordpiece(base + "vocab.txt", file_exists(config) ? config : "");
  }
  throw std::runtime_error(dir + ": no tokenizer found; expected tokenizer.json, vocab.json + merges.txt (or " +
                           "encoder.json + vocab.bpe), or vocab.txt");
}

}  // namespace headroom::core::text
