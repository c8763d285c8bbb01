// Text-level helpers for the SVG tests: pull one <g class="..."> group out of a
// document, its <text> contents, its polylines' points.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace headroom::widgets::test {

// The content of the first <g class="cls" ...>...</g> (groups are not nested in render_svg).
inline std::string svg_group(const std::string& svg, const std::string& cls) {
  const size_t a = svg.find("<g class=\"" + cls + "\"");
  if (a == std::string::npos) return "";
  const size_t b = svg.find('>', a);
  const size_t e = svg.find("</g>", b);
  return svg.substr(b + 1, e - b - 1);
}

inline int count_of(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// Contents of every <text ...>...</text> in s, in order (still escaped).
inline std::vector<std::string> svg_texts(const std::string& s) {
  std::vector<std::string> out;
  for (size_t p = s.find("<text"); p != std::string::npos; p = s.find("<text", p + 1)) {
    const size_t b = s.find('>', p), e = s.find("</text>", b);
    out.push_back(s.substr(b + 1, e - b - 1));
  }
  return out;
}

// Value of attribute `attr` in the element starting at s[pos].
inline std::string svg_attr(const std::string& s, size_t pos, const std::string& attr) {
  const size_t end = s.find('>', pos);
  const size_t a = s.find(" " + attr + "=\"", pos);
  if (a == std::string::npos || a > end) return "";
  const size_t v = a + attr.size() + 3;
  return s.substr(v, s.find('"', v) - v);
}

// points of every <polyline> in s.
inline std::vector<std::vector<std::pair<double, double>>> svg_polylines(const std::string& s) {
  std::vector<std::vector<std::pair<double, double>>> out;
  for (size_t p = s.find("<polyline"); p != std::string::npos; p = s.find("<polyline", p + 1)) {
    const std::string pts = svg_attr(s, p, "points");
    std::vector<std::pair<double, double>> line;
    const char* c = pts.c_str();
    char* end = nullptr;
    for (;;) {
      const double x = std::strtod(c, &end);
      if (end == c || *end != ',') break;
      const double y = std::strtod(end + 1, &end);
      line.emplace_back(x, y);
      c = end;
    }
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace headroom::widgets::test
