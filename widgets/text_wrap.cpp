#include "widgets/text_wrap.h"

#include "core/io/utf8.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <cfloat>

namespace headroom::widgets {

namespace {

// The end of the UTF-8 character that starts at p (a stray continuation byte counts as one).
const char* next_char(const char* p, const char* end) {
  ++p;
  while (p < end && (static_cast<unsigned char>(*p) & 0xC0) == 0x80) ++p;
  return p;
}

}  // namespace

std::string wrap_at_spaces(std::string_view text, float width, const std::function<float(std::string_view)>& measure) {
  if (!(width > 0.0f)) return std::string(text);
  std::string out;
  out.reserve(text.size());
  const char* p = text.data();
  const char* const end = p + text.size();
  float x = 0.0f;          // width of the current line so far
  bool line_empty = true;  // nothing but (dropped) spaces on the current line yet
  while (p < end) {
    if (*p == '\n') {
      out += '\n';
      x = 0.0f;
      line_empty = true;
      ++p;
      continue;
    }
    // The spaces before the next word, then the word.
    const char* spaces_end = p;
    while (spaces_end < end && *spaces_end == ' ') ++spaces_end;
    const char* word_end = spaces_end;
    while (word_end < end && *word_end != ' ' && *word_end != '\n') ++word_end;
    const std::string_view spaces(p, static_cast<size_t>(spaces_end - p));
    std::string_view word(spaces_end, static_cast<size_t>(word_end - spaces_end));
    const float spaces_w = spaces.empty() ? 0.0f : measure(spaces);
    float word_w = word.empty() ? 0.0f : measure(word);
    if (word.empty()) {  // spaces before a '\n' or the end: kept, they take no room that shows
      out.append(spaces);
      p = word_end;
      continue;
    }
    if (!line_empty && x + spaces_w + word_w > width) {
      out += '\n';  // the break takes the place of the spaces
      x = 0.0f;
      line_empty = true;
    } else if (!spaces.empty()) {
      out.append(spaces);
      x += spaces_w;
    }
    // A word wider than a line: as much of it a line as fits, then the rest.
    while (line_empty && x + word_w > width) {
      const char* const stop = word.data() + word.size();
      const char* cut = next_char(word.data(), stop);  // at least one character
      for (const char* c = cut; c < stop;) {
        const char* n = next_char(c, stop);
        if (x + measure(std::string_view(word.data(), static_cast<size_t>(n - word.data()))) > width) break;
        cut = c = n;
      }
      out.append(word.data(), static_cast<size_t>(cut - word.data()));
      word.remove_prefix(static_cast<size_t>(cut - word.data()));
      if (word.empty()) break;
      out += '\n';
      x = 0.0f;
      word_w = measure(word);
    }
    out.append(word);
    x = word.empty() ? width : x + word_w;  // empty: one character wider than the line filled it
    line_empty = false;
    p = word_end;
  }
  return out;
}

std::string keep_lines(const std::string& wrapped, int max_lines, float width,
                       const std::function<float(std::string_view)>& measure, bool* cut) {
  if (cut) *cut = false;
  if (max_lines <= 0) return wrapped;
  size_t start = 0;  // where line max_lines starts
  for (int line = 1; line < max_lines; ++line) {
    const size_t newline = wrapped.find('\n', start);
    if (newline == std::string::npos) return wrapped;  // fewer lines
    start = newline + 1;
  }
  const size_t end = wrapped.find('\n', start);
  if (wrapped.find_first_not_of(" \n", end) == std::string::npos) return wrapped;  // exactly max_lines
  if (cut) *cut = true;
  static constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026
  std::string last = wrapped.substr(start, end - start);
  while (!last.empty() && measure(last + std::string(kEllipsis)) > width) {
    const size_t space = last.find_last_of(' ');
    last.resize(space == std::string::npos ? 0 : space);  // a line of one word gives it up whole
  }
  while (!last.empty() && last.back() == ' ') last.pop_back();
  return wrapped.substr(0, start) + last + std::string(kEllipsis);
}

bool TextWrappedAtSpaces(std::string_view text, int max_lines) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return false;
  // As ImGui::TextWrapped: where no wrap position is pushed, the window's edge.
  const float wrap_pos = window->DC.TextWrapPos < 0.0f ? 0.0f : window->DC.TextWrapPos;
  const float width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos);
  bool cut = false;
  const std::string lines = wrap_in_current_font(text, width, max_lines, &cut);
  ImGui::PushTextWrapPos(-1.0f);  // the breaks are in the text now
  ImGui::TextUnformatted(lines.data(), lines.data() + lines.size());
  ImGui::PopTextWrapPos();
  return cut;
}

float current_font_width(std::string_view text) {
  return ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize(), FLT_MAX, 0.0f, text.data(), text.data() + text.size()).x;
}

std::string wrap_in_current_font(std::string_view text, float width, int max_lines, bool* cut) {
  return keep_lines(wrap_at_spaces(text, width, current_font_width), max_lines, width, current_font_width, cut);
}

std::string elide_middle(std::string_view text, float width) {
  if (ImGui::CalcTextSize(text.data(), text.data() + text.size()).x <= width) return std::string(text);
  // Keep `keep` bytes' worth, split between the ends (the start gets the odd one).
  auto cut = [&](std::size_t keep) { return io::elide_middle_bytes(text, keep); };
  // The widest cut that fits: its width grows with `keep`, so a binary search (~log2 of the
  // length in text measurements a frame, not one per character).
  std::size_t lo = 0, hi = text.size();  // cut(lo) fits (or lo = 0: "..."), cut(hi) does not
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (ImGui::CalcTextSize(cut(mid).c_str()).x <= width ? lo : hi) = mid;
  }
  return lo == 0 ? std::string("...") : cut(lo);
}

}  // namespace headroom::widgets
