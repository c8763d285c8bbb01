#include "app/gui/explorer/reference_csv.h"

#include <fstream>
#include <iterator>

#include "core/io/blocking_io.h"

namespace headroom::explorer {
namespace {

// Splits one line into fields; false when a quoted field is not closed.
bool split_line(std::string_view line, std::vector<std::string>* fields) {
  fields->assign(1, "");
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields->back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields->back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields->emplace_back();
    } else {
      fields->back() += c;
    }
  }
  return !quoted;
}

std::string_view strip_cr(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

}  // namespace

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

std::optional<CsvTable> parse_reference_csv(std::string_view text, const std::string& file, std::string* error) {
  CsvTable table;
  table.file = file;
  int line_no = 0;
  std::vector<std::string> fields;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = strip_cr(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const std::string where = file + " line " + std::to_string(line_no);
    if (!split_line(line, &fields)) {
      table.problems.push_back(where + ": a quoted field is not closed (row skipped)");
      continue;
    }
    if (table.header.empty()) {
      table.header = fields;
    } else if (fields.size() != table.header.size()) {
      table.problems.push_back(where + ": " + std::to_string(fields.size()) + " fields, the header has " +
                               std::to_string(table.header.size()) + " (row skipped)");
    } else {
      table.rows.push_back(CsvRow{line_no, fields});
    }
  }
  if (table.header.empty()) {
    if (error != nullptr) *error = file + ": no header row (expected comment lines starting with #, then a header)";
    return std::nullopt;
  }
  return table;
}

std::optional<CsvTable> read_reference_csv(const std::string& path, std::string* error) {
  io::note_blocking_io("reading a reference CSV");  // the figures are built on their own thread
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error != nullptr) *error = "cannot read reference file " + path;
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t slash = path.find_last_of('/');
  return parse_reference_csv(text, slash == std::string::npos ? path : path.substr(slash + 1), error);
}

}  // namespace headroom::explorer
