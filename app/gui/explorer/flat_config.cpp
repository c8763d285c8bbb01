#include "app/gui/explorer/flat_config.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace headroom::explorer {

// nlohmann's SAX interface: objects extend the key path, scalars become entries, arrays are
// written out as compact JSON text and become one entry.
class FlatConfigBuilder {
 public:
  using json = nlohmann::json;

  explicit FlatConfigBuilder(FlatConfig& out) : out_(out) {}

  bool null() { return scalar("null"); }
  bool boolean(bool v) { return scalar(v ? "true" : "false"); }
  bool number_integer(json::number_integer_t v) { return scalar(std::to_string(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(std::to_string(v)); }
  bool number_float(json::number_float_t, const std::string& text) { return scalar(text); }
  bool string(std::string& v) {
    if (array_depth_ > 0) return scalar(json(v).dump());
    return scalar(v);
  }
  bool binary(json::binary_t&) { return false; }  // not in JSON text

  bool start_object(std::size_t) {
    if (array_depth_ > 0) {
      open_in_array('{');
      return true;
    }
    if (depth_ == 0 && !started_) {
      started_ = true;
      ++depth_;
      return true;
    }
    if (depth_ == 0) return false;  // a second top-level value cannot happen in valid JSON
    path_sizes_.push_back(path_.size());
    if (!path_.empty()) path_ += '.';
    path_ += key_;
    ++depth_;
    return true;
  }
  bool key(std::string& k) {
    if (array_depth_ > 0) {
      separate();
      text_ += json(k).dump();
      text_ += ':';
      after_key_ = true;
      return true;
    }
    key_ = k;
    return true;
  }
  bool end_object() {
    if (array_depth_ > 0) return close_in_array('}');
    --depth_;
    if (!path_sizes_.empty()) {
      path_.resize(path_sizes_.back());
      path_sizes_.pop_back();
    }
    return true;
  }
  bool start_array(std::size_t) {
    if (depth_ == 0) return false;  // the config itself must be an object
    if (array_depth_ == 0) text_.clear();
    open_in_array('[');
    return true;
  }
  bool end_array() { return close_in_array(']'); }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  void finish() {
    auto& e = out_.entries_;
    const std::string& arena = out_.arena_;
    auto key_of = [&](const FlatConfig::Entry& x) { return std::string_view(arena).substr(x.key, x.key_size); };
    std::stable_sort(e.begin(), e.end(), [&](const auto& a, const auto& b) { return key_of(a) < key_of(b); });
    // A key given twice keeps its last value, as a JSON tree would.
    std::vector<FlatConfig::Entry> unique;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (i + 1 < e.size() && key_of(e[i]) == key_of(e[i + 1])) continue;
      unique.push_back(e[i]);
    }
    e = std::move(unique);
    e.shrink_to_fit();
    out_.arena_.shrink_to_fit();
  }

 private:
  bool scalar(std::string_view text) {
    if (depth_ == 0) return false;  // the config itself must be an object
    if (array_depth_ > 0) {
      separate();
      text_ += text;
      return true;
    }
    add(text);
    return true;
  }
  void add(std::string_view value) {
    FlatConfig::Entry entry;
    std::string& arena = out_.arena_;
    entry.key = static_cast<std::uint32_t>(arena.size());
    if (!path_.empty()) {
      arena += path_;
      arena += '.';
    }
    arena += key_;
    entry.key_size = static_cast<std::uint32_t>(arena.size() - entry.key);
    entry.value = static_cast<std::uint32_t>(arena.size());
    arena += value;
    entry.value_size = static_cast<std::uint32_t>(value.size());
    out_.entries_.push_back(entry);
  }
  // Inside an array: a comma before every element but the first (and none right after a key).
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty() && !first_.back()) text_ += ',';
    if (!first_.empty()) first_.back() = false;
  }
  void open_in_array(char bracket) {
    separate();
    text_ += bracket;
    first_.push_back(true);
    ++array_depth_;
  }
  bool close_in_array(char bracket) {
    text_ += bracket;
    first_.pop_back();
    if (--array_depth_ == 0) add(text_);
    return true;
  }

  FlatConfig& out_;
  int depth_ = 0;  // object nesting outside arrays
  bool started_ = false;
  std::string path_, key_;
  std::vector<std::size_t> path_sizes_;
  int array_depth_ = 0;  // nesting inside the array being written out
  std::string text_;     // that array's compact JSON
  std::vector<bool> first_;
  bool after_key_ = false;
};

FlatConfig FlatConfig::parse(std::string_view json_text) {
  FlatConfig config;
  config.arena_.reserve(json_text.size());
  FlatConfigBuilder builder(config);
  if (!nlohmann::json::sax_parse(json_text, &builder)) return FlatConfig();
  builder.finish();
  config.valid_ = true;
  return config;
}

const FlatConfig::Entry* FlatConfig::find(std::string_view dotted_key) const {
  auto key_of = [&](const Entry& e) { return std::string_view(arena_).substr(e.key, e.key_size); };
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), dotted_key,
                                   [&](const Entry& e, std::string_view k) { return key_of(e) < k; });
  return it != entries_.end() && key_of(*it) == dotted_key ? &*it : nullptr;
}

std::string_view FlatConfig::value(std::string_view dotted_key) const {
  const Entry* e = find(dotted_key);
  return e == nullptr ? std::string_view() : std::string_view(arena_).substr(e->value, e->value_size);
}

bool FlatConfig::has(std::string_view dotted_key) const { return find(dotted_key) != nullptr; }

std::string_view FlatConfig::key_at(std::size_t i) const {
  return std::string_view(arena_).substr(entries_.at(i).key, entries_.at(i).key_size);
}

std::string_view FlatConfig::value_at(std::size_t i) const {
  return std::string_view(arena_).substr(entries_.at(i).value, entries_.at(i).value_size);
}

}  // namespace headroom::explorer
