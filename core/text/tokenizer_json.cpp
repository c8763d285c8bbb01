// tokenizer.json (HF tokenizers' serialization): the BPE + ByteLevel and WordPiece + Bert families.
#include <stdexcept>

#include "core/text/load_tokenizer.h"
#include "core/text/tokenizer_files.h"
#include "core/text/unicode_text.h"

namespace headroom::core::text {
namespace {

using nlohmann::json;
using namespace files;

constexpr const char* kSupported =
    "Headroom reads model BPE with pre_tokenizer ByteLevel or Sequence[Split, ByteLevel(use_regex=false)], "
    "and model WordPiece with pre_tokenizer BertPreTokenizer (normalizer null or BertNormalizer)";

// Reads one tokenizer.json; every message names the file and the key path.
class TokenizerJson {
 public:
  explicit TokenizerJson(const std::string& path) : path_(path), root_(read_json(path)) {
    if (!root_.is_object()) fail("", "a JSON object with \"model\", \"pre_tokenizer\", ...", root_);
  }

  std::unique_ptr<TextTokenizer> load() {
    const json& model = object_at(root_, "model", "model");
    std::string type = model.contains("type") ? string_at(model, "type", "model.type")
                                              : (model.contains("merges") ? "BPE" : "WordPiece");
    if (type == "BPE") return load_bpe(model);
    if (type == "WordPiece") return load_wordpiece(model);
    refuse("model.type", model.at("type"));
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& expected, const json& got) const {
    throw std::runtime_error(path_ + ": " + (key.empty() ? "the file" : key) + " must be " + expected + ", got " +
                             show(got));
  }
  [[noreturn]] void refuse(const std::string& key, const json& value) const {
    throw std::runtime_error(path_ + ": " + key + " is " + show(value) + ", which Headroom does not implement; " +
                             kSupported);
  }

  const json& object_at(const json& parent, const char* key, const std::string& where) const {
    const auto it = parent.find(key);
    if (it == parent.end() || !it->is_object()) fail(where, "a JSON object", it == parent.end() ? json() : *it);
    return *it;
  }
  std::string string_at(const json& parent, const char* key, const std::string& where) const {
    const auto it = parent.find(key);
    if (it == parent.end() || !it->is_string()) fail(where, "a string", it == parent.end() ? json() : *it);
    return it->get<std::string>();
  }
  bool flag(const json& parent, const char* key, const std::string& where, bool fallback) const {
    const auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) fail(where, "true or false", *it);
    return it->get<bool>();
  }
  // A key that must be absent, null or `neutral` (e.g. byte_fallback: false) for what Headroom does.
  void require_neutral(const json& parent, const char* key, const std::string& where, const json& neutral) const {
    const auto it = parent.find(key);
    if (it != parent.end() && !it->is_null() && *it != neutral) refuse(where, *it);
  }

  std::vector<AddedToken> added_tokens(std::vector<std::string>* spellings) const {
    std::vector<AddedToken> tokens;
    const auto it = root_.find("added_tokens");
    if (it == root_.end() || it->is_null()) return tokens;
    if (!it->is_array()) fail("added_tokens", "an array", *it);
    for (size_t i = 0; i < it->size(); ++i) {
      const json& entry = (*it)[i];
      const std::string where = "added_tokens[" + std::to_string(i) + "]";
      if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_number_integer() ||
          entry["id"].get<int64_t>() < 0 || entry["id"].get<int64_t>() >= (1 << 24)) {
        fail(where, "an object with an integer \"id\" from 0 and a string \"content\"", entry);
      }
      AddedToken token;
      token.id = entry["id"].get<int32_t>();
      token.content = string_at(entry, "content", where + ".content");
      token.lstrip = flag(entry, "lstrip", where + ".lstrip", false);
      token.rstrip = flag(entry, "rstrip", where + ".rstrip", false);
      token.single_word = flag(entry, "single_word", where + ".single_word", false);
      token.special = flag(entry, "special", where + ".special", false);
      if (token.content.empty()) fail(where + ".content", "a non-empty string", entry["content"]);
      if (static_cast<size_t>(token.id) >= spellings->size()) spellings->resize(token.id + 1);
      (*spellings)[token.id] = token.content;
      tokens.push_back(std::move(token));
    }
    return tokens;
  }

  // The special tokens a post-processor puts around the text: TemplateProcessing's "single"
  // ([{"SpecialToken": {"id": "<|begin_of_text|>"}}, {"Sequence": ...}]), Bert/RobertaProcessing's cls
  // and sep. *first is the BOS or [CLS], *last the [SEP]; -1 where there is none.
  void read_post_processor(const json& processor, const std::unordered_map<std::string, int32_t>& ids, int32_t* first,
                           int32_t* last) const {
    if (!processor.is_object()) return;
    const std::string type = processor.value("type", "");
    if (type == "Sequence" && processor.contains("processors") && processor["processors"].is_array()) {
      for (const json& p : processor["processors"]) read_post_processor(p, ids, first, last);
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
      for (const auto& [key, slot] : {std::pair<const char*, int32_t*>{"cls", first}, {"sep", last}}) {
        const auto it = processor.find(key);
        if (it != processor.end() && it->is_array() && it->size() == 2 && (*it)[1].is_number_integer()) {
          *slot = (*it)[1].get<int32_t>();
        }
      }
    } else if (type == "TemplateProcessing" && processor.contains("single") && processor["single"].is_array()) {
      const json& single = processor["single"];
      auto special_id = [&](const json& piece) -> int32_t {
        if (!piece.is_object() || !piece.contains("SpecialToken") || !piece["SpecialToken"].is_object()) return -1;
        const auto found = ids.find(piece["SpecialToken"].value("id", ""));
        return found == ids.end() ? -1 : found->second;
      };
      if (!single.empty()) *first = special_id(single.front());
      if (single.size() > 1) *last = special_id(single.back());
    }
  }

  void name_specials(const std::unordered_map<std::string, int32_t>& ids, SpecialTokenIds* s) const {
    const std::pair<const char*, int32_t*> names[] = {{"<|endoftext|>", &s->eos},
                                                      {"<|begin_of_text|>", &s->bos},
                                                      {"<|end_of_text|>", &s->eos},
                                                      {"<s>", &s->bos},
                                                      {"</s>", &s->eos},
                                                      {"<unk>", &s->unk},
                                                      {"<pad>", &s->pad},
                                                      {"[CLS]", &s->cls},
                                                      {"[SEP]", &s->sep},
                                                      {"[UNK]", &s->unk},
                                                      {"[PAD]", &s->pad},
                                                      {"[MASK]", &s->mask}};
    for (const auto& [name, slot] : names) {
      const auto it = ids.find(name);
      if (it != ids.end()) *slot = it->second;
    }
    if (s->bos < 0 && ids.count("<|endoftext|>")) s->bos = ids.at("<|endoftext|>");
  }

  // pre_tokenizer of a byte-level BPE: the regex it splits with and add_prefix_space.
  void read_byte_level(BpeOptions* options) const {
    const auto it = root_.find("pre_tokenizer");
    if (it == root_.end() || !it->is_object()) refuse("pre_tokenizer", it == root_.end() ? json() : *it);
    const json& pre = *it;
    const std::string type = pre.value("type", "");
    if (type == "ByteLevel") {
      options->pattern = flag(pre, "use_regex", "pre_tokenizer.use_regex", true) ? kGpt2Pattern : "";
      options->add_prefix_space = flag(pre, "add_prefix_space", "pre_tokenizer.add_prefix_space", false);
      return;
    }
    if (type != "Sequence") refuse("pre_tokenizer.type", pre.value("type", json()));
    const json& list = pre.contains("pretokenizers") ? pre["pretokenizers"] : json();
    if (!list.is_array() || list.size() != 2) refuse("pre_tokenizer.pretokenizers", list);
    const json& split = list[0];
    const json& byte_level = list[1];
    if (split.value("type", "") != "Split") refuse("pre_tokenizer.pretokenizers[0].type", split.value("type", json()));
    if (split.value("behavior", "") != "Isolated")
      refuse("pre_tokenizer.pretokenizers[0].behavior", split.value("behavior", json()));
    if (flag(split, "invert", "pre_tokenizer.pretokenizers[0].invert", false)) {
      refuse("pre_tokenizer.pretokenizers[0].invert", split.at("invert"));
    }
    const json& pattern = split.contains("pattern") ? split["pattern"] : json();
    if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()) {
      options->pattern = pattern["Regex"].get<std::string>();
      try {
        RegexSplitter check(options->pattern);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(path_ + ": pre_tokenizer.pretokenizers[0].pattern.Regex: " + e.what());
      }
    } else if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
      options->pattern = "\\Q" + pattern["String"].get<std::string>() + "\\E";
    } else {
      fail("pre_tokenizer.pretokenizers[0].pattern", "{\"Regex\": \"...\"} or {\"String\": \"...\"}", pattern);
    }
    if (byte_level.value("type", "") != "ByteLevel") {
      refuse("pre_tokenizer.pretokenizers[1].type", byte_level.value("type", json()));
    }
    if (flag(byte_level, "use_regex", "pre_tokenizer.pretokenizers[1].use_regex", true)) {
      refuse("pre_tokenizer.pretokenizers[1].use_regex", byte_level.value("use_regex", json(true)));
    }
    options->add_prefix_space =
        flag(byte_level, "add_prefix_space", "pre_tokenizer.pretokenizers[1].add_prefix_space", false);
  }

  std::unique_ptr<TextTokenizer> load_bpe(const json& model) {
    const auto normalizer = root_.find("normalizer");
    if (normalizer != root_.end() && !normalizer->is_null()) {
      refuse("normalizer.type", normalizer->is_object() ? normalizer->value("type", json()) : *normalizer);
    }
    require_neutral(model, "dropout", "model.dropout", 0.0);
    require_neutral(model, "byte_fallback", "model.byte_fallback", false);
    require_neutral(model, "continuing_subword_prefix", "model.continuing_subword_prefix", "");
    require_neutral(model, "end_of_word_suffix", "model.end_of_word_suffix", "");
    if (root_.contains("decoder") && !root_["decoder"].is_null() && root_["decoder"].value("type", "") != "ByteLevel") {
      refuse("decoder.type", root_["decoder"].value("type", json()));
    }
    BpeModel bpe;
    bpe.source = path_;
    bpe.spellings = vocab_from_json(model.contains("vocab") ? model["vocab"] : json(), path_ + ": model.vocab");
    const auto ids = ids_of(bpe.spellings);
    const json& merges = model.contains("merges") ? model["merges"] : json();
    if (!merges.is_array()) fail("model.merges", "an array of \"left right\" strings or [left, right] pairs", merges);
    for (size_t i = 0; i < merges.size(); ++i) {
      const json& m = merges[i];
      const std::string where = path_ + ": model.merges[" + std::to_string(i) + "]";
      std::string left, right;
      if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        left = m[0].get<std::string>();
        right = m[1].get<std::string>();
      } else if (m.is_string() && m.get<std::string>().find(' ') != std::string::npos) {
        const std::string s = m.get<std::string>();
        left = s.substr(0, s.find(' '));
        right = s.substr(s.find(' ') + 1);
      }
      if (left.empty() || right.empty() || right.find(' ') != std::string::npos) {
        throw std::runtime_error(where + ": expected two symbols separated by a space (or a [left, right] pair), got " +
                                 show(m));
      }
      bpe.merges.push_back(resolve_merge(left, right, ids, where, "model.vocab"));
    }
    BpeOptions options;
    read_byte_level(&options);
    options.ignore_merges = flag(model, "ignore_merges", "model.ignore_merges", false);
    options.added_tokens = added_tokens(&bpe.spellings);
    options.name = "bpe-" + std::to_string(bpe.spellings.size());
    SpecialTokenIds special;
    const auto all_ids = ids_of(bpe.spellings);
    name_specials(all_ids, &special);
    int32_t first = -1, last = -1;
    if (root_.contains("post_processor")) read_post_processor(root_["post_processor"], all_ids, &first, &last);
    if (first >= 0) {
      special.bos = first;
      options.add_bos = true;
    }
    auto tokenizer = std::make_unique<ByteLevelBpeTokenizer>(std::move(bpe), std::move(options));
    tokenizer->set_special_ids(special);
    return tokenizer;
  }

  void read_bert_normalizer(WordPieceOptions* options) const {
    const auto it = root_.find("normalizer");
    if (it == root_.end() || it->is_null()) {
      options->clean_text = options->handle_chinese_chars = options->lowercase = options->strip_accents = false;
      return;
    }
    if (!it->is_object() || it->value("type", "") != "BertNormalizer")
      refuse("normalizer.type", it->value("type", json()));
    options->clean_text = flag(*it, "clean_text", "normalizer.clean_text", true);
    options->handle_chinese_chars = flag(*it, "handle_chinese_chars", "normalizer.handle_chinese_chars", true);
    options->lowercase = flag(*it, "lowercase", "normalizer.lowercase", true);
    options->strip_accents = flag(*it, "strip_accents", "normalizer.strip_accents", options->lowercase);
  }

  std::unique_ptr<TextTokenizer> load_wordpiece(const json& model) {
    const auto pre = root_.find("pre_tokenizer");
    if (pre == root_.end() || !pre->is_object() || pre->value("type", "") != "BertPreTokenizer") {
      refuse("pre_tokenizer.type", pre == root_.end() || !pre->is_object() ? json() : pre->value("type", json()));
    }
    if (root_.contains("decoder") && !root_["decoder"].is_null() && root_["decoder"].value("type", "") != "WordPiece") {
      refuse("decoder.type", root_["decoder"].value("type", json()));
    }
    WordPieceOptions options;
    read_bert_normalizer(&options);
    std::vector<std::string> vocab =
        vocab_from_json(model.contains("vocab") ? model["vocab"] : json(), path_ + ": model.vocab");
    options.unk_token = model.contains("unk_token") ? string_at(model, "unk_token", "model.unk_token") : "[UNK]";
    if (model.contains("continuing_subword_prefix")) {
      options.continuing_prefix = string_at(model, "continuing_subword_prefix", "model.continuing_subword_prefix");
    }
    if (model.contains("max_input_chars_per_word")) {
      const json& max = model["max_input_chars_per_word"];
      if (!max.is_number_unsigned()) fail("model.max_input_chars_per_word", "a positive integer", max);
      options.max_input_chars_per_word = max.get<size_t>();
    }
    options.added_tokens = added_tokens(&vocab);
    options.name = "wordpiece-" + std::to_string(vocab.size());
    SpecialTokenIds special;
    const auto ids = ids_of(vocab);
    name_specials(ids, &special);
    int32_t first = -1, last = -1;
    if (root_.contains("post_processor")) read_post_processor(root_["post_processor"], ids, &first, &last);
    if (first >= 0) special.cls = first;
    if (last >= 0) special.sep = last;
    auto tokenizer = std::make_unique<WordPieceTokenizer>(path_, std::move(vocab), std::move(options));
    tokenizer->set_special_ids(special);
    return tokenizer;
  }

  std::string path_;
  json root_;
};

}  // namespace

std::unique_ptr<TextTokenizer> load_tokenizer_json(const std::string& path) {
  try {
    return TokenizerJson(path).load();
  } catch (const nlohmann::json::exception& e) {  // a value of an unexpected JSON type somewhere
    throw std::runtime_error(path + ": not the tokenizers format Headroom reads (" + e.what() + "); " + kSupported);
  }
}

}  // namespace headroom::core::text
