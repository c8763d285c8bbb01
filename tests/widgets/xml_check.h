// A tiny XML well-formedness checker for the SVG tests: balanced, properly nested
// tags, quoted attributes, and no raw '<' or unknown entities in text or attributes.
// Not a full XML parser (no DTD, CDATA or comments beyond skipping "<!...>").
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace headroom::widgets::test {

// Valid entity at s[i] == '&': one of the five named ones or a numeric reference.
inline bool entity_at(const std::string& s, size_t i, size_t* len) {
  for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
    const std::string ent(e);
    if (s.compare(i, ent.size(), ent) == 0) {
      *len = ent.size();
      return true;
    }
  }
  if (s.compare(i, 2, "&#") != 0) return false;
  size_t j = i + 2;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i + 2 || j >= s.size() || s[j] != ';') return false;
  *len = j + 1 - i;
  return true;
}

// Empty string when well-formed, else what is wrong and where.
inline std::string xml_problem(const std::string& s) {
  std::vector<std::string> stack;
  int roots = 0;
  size_t i = 0;
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.';
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '&') {
      size_t len = 0;
      if (!entity_at(s, i, &len)) return "bad entity at " + std::to_string(i);
      i += len;
      continue;
    }
    if (c == '>') return "raw '>' in text at " + std::to_string(i);  // legal XML, but we always escape it
    if (c != '<') {
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(c)))
        return "text outside the root at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s.compare(i, 2, "<?") == 0 || s.compare(i, 2, "<!") == 0) {
      const size_t e = s.find('>', i);
      if (e == std::string::npos) return "unterminated declaration";
      i = e + 1;
      continue;
    }
    if (s.compare(i, 2, "</") == 0) {
      size_t j = i + 2;
      while (j < s.size() && name_char(s[j])) ++j;
      const std::string name = s.substr(i + 2, j - i - 2);
      if (j >= s.size() || s[j] != '>') return "bad end tag at " + std::to_string(i);
      if (stack.empty() || stack.back() != name) return "mismatched </" + name + "> at " + std::to_string(i);
      stack.pop_back();
      i = j + 1;
      continue;
    }
    size_t j = i + 1;
    while (j < s.size() && name_char(s[j])) ++j;
    const std::string name = s.substr(i + 1, j - i - 1);
    if (name.empty()) return "raw '<' at " + std::to_string(i);
    if (stack.empty() && ++roots > 1) return "second root element <" + name + ">";
    // Attributes: name="value" separated by whitespace, then '>' or '/>'.
    for (;;) {
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (j >= s.size()) return "unterminated <" + name;
      if (s[j] == '>') {
        stack.push_back(name);
        ++j;
        break;
      }
      if (s.compare(j, 2, "/>") == 0) {
        j += 2;
        break;
      }
      const size_t a = j;
      while (j < s.size() && name_char(s[j])) ++j;
      if (j == a || j + 1 >= s.size() || s[j] != '=' || s[j + 1] != '"')
        return "bad attribute in <" + name + "> at " + std::to_string(j);
      j += 2;
      while (j < s.size() && s[j] != '"') {
        if (s[j] == '<') return "raw '<' in attribute at " + std::to_string(j);
        if (s[j] == '&') {
          size_t len = 0;
          if (!entity_at(s, j, &len)) return "bad entity in attribute at " + std::to_string(j);
          j += len;
        } else {
          ++j;
        }
      }
      if (j >= s.size()) return "unterminated attribute in <" + name + ">";
      ++j;
    }
    i = j;
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "no root element";
  return "";
}

}  // namespace headroom::widgets::test
