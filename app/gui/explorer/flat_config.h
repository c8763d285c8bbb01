// A run's config as sorted "dotted.key" -> value-text pairs: what the run table, the filters, the
// paper figures and seed grouping read. Built by one SAX pass over config_json into one arena, so
// a row costs three allocations instead of a JSON tree's dozens (100,000 rows: see README).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::explorer {

class FlatConfig {
 public:
  FlatConfig() = default;

  // Leaves of nested objects become "a.b.c" -> text: strings without quotes, numbers as written,
  // true / false / null; an array is one value in compact JSON ("[1,2]"). Text that is not a
  // JSON object gives an empty config (valid() false). The text itself is not kept (the Run tab
  // reads it through the loader): at 100,000 runs every byte per row is 100 kB.
  static FlatConfig parse(std::string_view json_text);

  // The value text of a leaf or array, "" when absent (also for a key naming an object).
  std::string_view value(std::string_view dotted_key) const;
  bool has(std::string_view dotted_key) const;

  std::size_t size() const { return entries_.size(); }
  std::string_view key_at(std::size_t i) const;  // in key order
  std::string_view value_at(std::size_t i) const;

  bool valid() const { return valid_; }

 private:
  struct Entry {
    std::uint32_t key = 0, key_size = 0, value = 0, value_size = 0;  // offsets into arena_
  };
  friend class FlatConfigBuilder;
  const Entry* find(std::string_view dotted_key) const;

  std::string arena_;
  std::vector<Entry> entries_;  // sorted by key
  bool valid_ = false;
};

}  // namespace headroom::explorer
