// The papers' numbers in assets/reference/*.csv: `#` comment lines, then a header row, then one
// row per printed table row. Fields may be quoted ("360 384 420"), as RFC 4180.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::explorer {

struct CsvRow {
  int line = 0;                     // 1-based line in the file, for citing the row
  std::vector<std::string> fields;  // as many as the header has
};

struct CsvTable {
  std::string file;  // the file name, e.g. "th_t5.csv"
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  std::vector<std::string> problems;  // "th_t5.csv line 9: 3 fields, the header has 15" (row skipped)

  // Index of a column; nullopt if the header has none of that name.
  std::optional<std::size_t> column(std::string_view name) const;
};

// Parses CSV text. `file` only names the source in problems. nullopt with *error when there is
// no header row.
std::optional<CsvTable> parse_reference_csv(std::string_view text, const std::string& file, std::string* error);

// Reads and parses a file; nullopt with *error naming the path when it cannot be read.
std::optional<CsvTable> read_reference_csv(const std::string& path, std::string* error);

}  // namespace headroom::explorer
