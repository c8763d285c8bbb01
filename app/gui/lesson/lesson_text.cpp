#include "app/gui/lesson/lesson_text.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/io/utf8.h"

namespace headroom::gui {
namespace {

constexpr size_t npos = std::string::npos;

// ASCII classes by hand: <cctype> is undefined for the negative chars of UTF-8 bytes.
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Unicode has sub/superscripts for only some characters; 0 means none. All of them are in DejaVu Sans.
uint32_t subscript_of(char c) {
  if (is_digit(c)) return 0x2080 + static_cast<uint32_t>(c - '0');
  switch (c) {
    case '+': return 0x208A;
    case '-': return 0x208B;
    case '=': return 0x208C;
    case '(': return 0x208D;
    case ')': return 0x208E;
    case 'a': return 0x2090;
    case 'e': return 0x2091;
    case 'o': return 0x2092;
    case 'x': return 0x2093;
    case 'h': return 0x2095;
    case 'k': return 0x2096;
    case 'l': return 0x2097;
    case 'm': return 0x2098;
    case 'n': return 0x2099;
    case 'p': return 0x209A;
    case 's': return 0x209B;
    case 't': return 0x209C;
    case 'i': return 0x1D62;
    case 'r': return 0x1D63;
    case 'u': return 0x1D64;
    case 'v': return 0x1D65;
    case 'j': return 0x2C7C;
    default: return 0;
  }
}

uint32_t superscript_of(char c) {
  switch (c) {
    case '0': return 0x2070;
    case '1': return 0x00B9;
    case '2': return 0x00B2;
    case '3': return 0x00B3;
    case '+': return 0x207A;
    case '-': return 0x207B;
    case '=': return 0x207C;
    case '(': return 0x207D;
    case ')': return 0x207E;
    case 'a': return 0x1D43;
    case 'b': return 0x1D47;
    case 'c': return 0x1D9C;
    case 'd': return 0x1D48;
    case 'e': return 0x1D49;
    case 'f': return 0x1DA0;
    case 'g': return 0x1D4D;
    case 'h': return 0x02B0;
    case 'i': return 0x2071;
    case 'j': return 0x02B2;
    case 'k': return 0x1D4F;
    case 'l': return 0x02E1;
    case 'm': return 0x1D50;
    case 'n': return 0x207F;
    case 'o': return 0x1D52;
    case 'p': return 0x1D56;
    case 'r': return 0x02B3;
    case 's': return 0x02E2;
    case 't': return 0x1D57;
    case 'u': return 0x1D58;
    case 'v': return 0x1D5B;
    case 'w': return 0x02B7;
    case 'x': return 0x02E3;
    case 'y': return 0x02B8;
    case 'z': return 0x1DBB;
    case 'T': return 0x1D40;  // transposes: K^T
    default: return c >= '4' && c <= '9' ? 0x2074 + static_cast<uint32_t>(c - '4') : 0;
  }
}

struct Symbol {
  std::string_view ascii;
  uint32_t code_point;
};
constexpr Symbol kWords[] = {
    {"alpha", 0x03B1},  {"beta", 0x03B2}, {"gamma", 0x03B3}, {"delta", 0x03B4}, {"epsilon", 0x03B5},
    {"lambda", 0x03BB}, {"mu", 0x03BC},   {"pi", 0x03C0},    {"rho", 0x03C1},   {"sigma", 0x03C3},
    {"tau", 0x03C4},    {"phi", 0x03C6},  {"omega", 0x03C9}, {"Sigma", 0x03A3}, {"Delta", 0x0394},
    {"Omega", 0x03A9},  {"sum", 0x03A3},  {"inf", 0x221E},   {"sqrt", 0x221A},
};
constexpr Symbol kOperators[] = {
    {">=", 0x2265}, {"<=", 0x2264}, {"!=", 0x2260}, {"->", 0x2192}, {"<-", 0x2190}, {"~=", 0x2248}, {"+-", 0x00B1},
};
constexpr uint32_t kTimes = 0x00D7, kDot = 0x00B7, kSqrt = 0x221A;

// The whole group as sub- or superscripts, or false when a character has none.
bool script(std::string_view group, bool sub, std::string* out) {
  if (group.empty()) return false;
  std::string s;
  for (char c : group) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
    const uint32_t cp = sub ? subscript_of(c) : superscript_of(c);
    if (cp == 0) return false;
    io::append_utf8(s, cp);
  }
  *out = std::move(s);
  return true;
}

// For each '(' and '{', the index of its closing bracket (npos when unclosed), found once per call so that
// many unclosed brackets cost linear time, not quadratic.
std::vector<size_t> match_brackets(std::string_view s) {
  std::vector<size_t> match(s.size(), npos), parens, braces;
  for (size_t i = 0; i < s.size(); ++i) {
    std::vector<size_t>* stack = s[i] == '(' || s[i] == ')' ? &parens : s[i] == '{' || s[i] == '}' ? &braces : nullptr;
    if (!stack) continue;
    if (s[i] == '(' || s[i] == '{') {
      stack->push_back(i);
    } else if (!stack->empty()) {
      match[stack->back()] = i;
      stack->pop_back();
    }
  }
  return match;
}

// sqrt(d_k) loses its parentheses: one token, no operators or spaces inside.
bool single_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_alnum(c) && c != '_' && c != '^' && c != '.') return false;
  return true;
}

// Groups nest (a_{b_{c}}); past this depth the rest is copied as written, which bounds the recursion.
constexpr int kMaxDepth = 8;

// Typesets s. With `pieces` (the formula's top level, and a sqrt's argument there) every script
// group becomes a piece of its own, the text between them pieces too, and the return is empty;
// without, everything is one string.
std::string typeset(std::string_view s, int depth, std::vector<FormulaPiece>* pieces) {
  std::string out;
  auto flush = [&] {
    if (pieces && !out.empty()) pieces->push_back({out, 0, out});
    if (pieces) out.clear();
  };
  if (depth > kMaxDepth) {
    out = std::string(s);
    flush();
    return out;
  }
  const std::vector<size_t> match = match_brackets(s);
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const char c = s[i];
    if ((c == '_' || c == '^') && i + 1 < n) {
      std::string_view group;
      size_t end = 0;
      bool braced = false;
      if (s[i + 1] == '{') {
        if (match[i + 1] != npos && match[i + 1] > i + 2) {
          group = s.substr(i + 2, match[i + 1] - i - 2);
          end = match[i + 1] + 1;
          braced = true;
        }
      } else {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-') ++j;
        size_t k = j;
        while (k < n && is_alnum(s[k])) ++k;
        if (k > j) {
          group = s.substr(i + 1, k - i - 1);
          end = k;
        }
      }
      if (end != 0) {
        const std::string inner = typeset(group, depth + 1, nullptr);
        std::string plain;
        if (!script(inner, c == '_', &plain))
          plain = c + (braced && utf8_length(inner) > 1 ? "(" + inner + ")" : inner);
        if (pieces) {
          flush();
          pieces->push_back({inner, c == '_' ? -1 : 1, plain});
        } else {
          out += plain;
        }
        i = end;
        continue;
      }
    }
    if (is_alpha(c)) {
      size_t j = i;
      while (j < n && is_alpha(s[j])) ++j;
      const std::string_view word = s.substr(i, j - i);
      if (word == "x" && i > 0 && s[i - 1] == ' ' && j < n && s[j] == ' ') {
        io::append_utf8(out, kTimes);
      } else if (word == "log" && j < n && is_digit(s[j])) {
        out += word;
        for (; j < n && is_digit(s[j]); ++j) io::append_utf8(out, subscript_of(s[j]));
      } else if (word == "sqrt") {
        io::append_utf8(out, kSqrt);
        if (j < n && s[j] == '(' && match[j] != npos) {
          const std::string_view arg = s.substr(j + 1, match[j] - j - 1);
          const bool bare = single_token(arg);
          if (!bare) out += '(';
          flush();
          out += typeset(arg, depth + 1, pieces);
          if (!bare) out += ')';
          j = match[j] + 1;
        }
      } else {
        const auto it =
            std::find_if(std::begin(kWords), std::end(kWords), [&](const Symbol& w) { return w.ascii == word; });
        if (it != std::end(kWords)) {
          io::append_utf8(out, it->code_point);
        } else {
          out += word;
        }
      }
      i = j;
      continue;
    }
    const auto op = std::find_if(std::begin(kOperators), std::end(kOperators),
                                 [&](const Symbol& o) { return s.substr(i, 2) == o.ascii; });
    if (op != std::end(kOperators)) {
      io::append_utf8(out, op->code_point);
      i += 2;
      continue;
    }
    if (c == '*') {
      io::append_utf8(out, kDot);
    } else {
      out += c;
    }
    ++i;
  }
  flush();
  return out;
}

// ---- markdown ----

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// One block's source: its lines joined with spaces, and where each line starts in the joined text.
struct PendingBlock {
  TextBlock block;
  std::string text;
  std::vector<std::pair<size_t, int>> line_starts;  // (offset in text, line of the source)
  int line_of(size_t offset) const {
    int line = line_starts.front().second;
    for (const auto& [start, l] : line_starts)
      if (start <= offset) line = l;
    return line;
  }
};

class InlineParser {
 public:
  InlineParser(const PendingBlock& block, std::vector<TextRun>* runs) : b_(block), runs_(runs) {}

  bool parse(std::string* error, int* error_line) {
    const std::string& t = b_.text;
    const size_t n = t.size();
    size_t i = 0;
    while (i < n) {
      const char c = t[i];
      if (c == '\\' && i + 1 < n && (t[i + 1] == '*' || t[i + 1] == '`' || t[i + 1] == '\\')) {
        plain_ += t[i + 1];
        i += 2;
      } else if (c == '`') {
        const size_t close = t.find('`', i + 1);
        if (close == npos) {
          return fail(i, "'`' (formula)", "close it with another '`', or write \\` for a literal backquote", error,
                      error_line);
        }
        flush();
        for (const FormulaPiece& piece : typeset_formula_pieces(t.substr(i + 1, close - i - 1)))
          emit(piece.text, true, piece.script, piece.plain);
        i = close + 1;
      } else if (c == '*') {
        const size_t len = i + 1 < n && t[i + 1] == '*' ? 2 : 1;
        bool& on = len == 2 ? bold_ : italic_;
        const bool space_before = i == 0 || is_blank(t[i - 1]);
        const bool space_after = i + len >= n || is_blank(t[i + len]);
        if (on && !space_before) {
          flush();
          on = false;
        } else if (!on && !space_after) {
          flush();
          on = true;
          (len == 2 ? bold_at_ : italic_at_) = i;
        } else {
          plain_.append(t, i, len);
        }
        i += len;
      } else {
        plain_ += c;
        ++i;
      }
    }
    flush();
    const char* right = "close it with another '%', or write \\* for a literal asterisk";
    if (bold_ && (!italic_ || bold_at_ < italic_at_))
      return fail(bold_at_, "'**' (bold)", with(right, "**"), error, error_line);
    if (italic_) return fail(italic_at_, "'*' (italic)", with(right, "*"), error, error_line);
    return true;
  }

 private:
  static std::string with(const char* pattern, const char* marker) {
    std::string s = pattern;
    s.replace(s.find('%'), 1, marker);
    return s;
  }
  bool fail(size_t at, const char* what, const std::string& right, std::string* error, int* error_line) {
    const int line = b_.line_of(at);
    *error = "unclosed " + std::string(what) + " opened on line " + std::to_string(line) + " of the text; " + right;
    if (error_line) *error_line = line;
    return false;
  }
  void flush() {
    emit(plain_, false);
    plain_.clear();
  }
  void emit(const std::string& text, bool formula, int script = 0, const std::string& plain = {}) {
    if (text.empty()) return;
    if (!runs_->empty() && script == 0) {
      TextRun& last = runs_->back();
      if (last.bold == bold_ && last.italic == italic_ && last.formula == formula && last.script == 0) {
        last.text += text;
        return;
      }
    }
    runs_->push_back(TextRun{text, bold_, italic_, formula, script, script != 0 ? plain : std::string()});
  }

  const PendingBlock& b_;
  std::vector<TextRun>* runs_;
  std::string plain_;
  bool bold_ = false, italic_ = false;
  size_t bold_at_ = 0, italic_at_ = 0;
};

// "- x", "* x" -> bullet; "12. x" -> numbered 12 (at most 9 digits, so it fits an int).
bool list_item(std::string_view line, TextBlock::Kind* kind, int* number, std::string_view* rest) {
  if (line.size() > 2 && (line[0] == '-' || line[0] == '*') && line[1] == ' ') {
    *kind = TextBlock::Kind::Bullet;
    *rest = trim(line.substr(2));
    return true;
  }
  size_t d = 0;
  while (d < line.size() && is_digit(line[d])) ++d;
  if (d == 0 || d > 9 || d + 2 >= line.size() || line[d] != '.' || line[d + 1] != ' ') return false;
  *kind = TextBlock::Kind::Numbered;
  *number = std::stoi(std::string(line.substr(0, d)));
  *rest = trim(line.substr(d + 2));
  return true;
}

}  // namespace

std::string typeset_formula(const std::string& ascii) { return typeset(ascii, 0, nullptr); }

std::vector<FormulaPiece> typeset_formula_pieces(const std::string& ascii) {
  std::vector<FormulaPiece> pieces;
  typeset(ascii, 0, &pieces);
  // Neighbours without a script between them (a sqrt's argument beside its sign) are one piece.
  std::vector<FormulaPiece> merged;
  for (FormulaPiece& p : pieces) {
    if (!merged.empty() && p.script == 0 && merged.back().script == 0) {
      merged.back().text += p.text;
      merged.back().plain += p.plain;
    } else {
      merged.push_back(std::move(p));
    }
  }
  return merged;
}

bool parse_lesson_markdown(const std::string& source, std::vector<TextBlock>* blocks, std::string* error) {
  return parse_lesson_markdown(source, blocks, error, nullptr);
}

bool parse_lesson_markdown(const std::string& source, std::vector<TextBlock>* blocks, std::string* error,
                           int* error_line) {
  std::vector<TextBlock> out;
  PendingBlock pending;
  bool open = false;
  auto flush = [&]() -> bool {
    if (!open) return true;
    open = false;
    InlineParser parser(pending, &pending.block.runs);
    if (!parser.parse(error, error_line)) return false;
    out.push_back(std::move(pending.block));
    return true;
  };
  auto start = [&](TextBlock::Kind kind, int number, std::string_view text, int line) {
    pending = PendingBlock();
    pending.block.kind = kind;
    pending.block.number = number;
    pending.text = std::string(text);
    pending.line_starts.push_back({0, line});
    open = true;
  };

  int line_number = 0;
  size_t pos = 0;
  while (pos <= source.size()) {
    size_t end = source.find('\n', pos);
    if (end == npos) end = source.size();
    const std::string_view line = trim(std::string_view(source).substr(pos, end - pos));
    ++line_number;
    pos = end + 1;
    TextBlock::Kind kind;
    int number = 0;
    std::string_view rest;
    if (line.empty()) {
      if (!flush()) return false;
    } else if (list_item(line, &kind, &number, &rest)) {
      if (!flush()) return false;
      start(kind, number, rest, line_number);
    } else if (open) {
      pending.text += ' ';
      pending.line_starts.push_back({pending.text.size(), line_number});
      pending.text += line;
    } else {
      start(TextBlock::Kind::Paragraph, 0, line, line_number);
    }
  }
  if (!flush()) return false;
  *blocks = std::move(out);
  return true;
}

std::string plain_text(const std::vector<TextBlock>& blocks) {
  std::string out;
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (b > 0) out += '\n';
    if (blocks[b].kind == TextBlock::Kind::Bullet) out += "\xE2\x80\xA2 ";
    if (blocks[b].kind == TextBlock::Kind::Numbered) out += std::to_string(blocks[b].number) + ". ";
    for (const TextRun& run : blocks[b].runs) out += run.script != 0 ? run.plain : run.text;
  }
  return out;
}

std::string blocks_to_html(const std::vector<TextBlock>& blocks) {
  std::string out;
  const TextBlock::Kind none = TextBlock::Kind::Paragraph;
  TextBlock::Kind list = none;  // the list being written, Paragraph when none
  auto close_list = [&]() {
    if (list == TextBlock::Kind::Bullet) out += "</ul>\n";
    if (list == TextBlock::Kind::Numbered) out += "</ol>\n";
    list = none;
  };
  for (const TextBlock& block : blocks) {
    if (block.kind != list) close_list();
    if (block.kind != none && list == none) {
      if (block.kind == TextBlock::Kind::Bullet) {
        out += "<ul>\n";
      } else {
        out += block.number == 1 ? "<ol>\n" : "<ol start=\"" + std::to_string(block.number) + "\">\n";
      }
      list = block.kind;
    }
    out += block.kind == none ? "<p>" : "<li>";
    for (const TextRun& run : block.runs) {
      std::string text = html_escape(run.text);
      if (run.script != 0) text = (run.script < 0 ? "<sub>" : "<sup>") + text + (run.script < 0 ? "</sub>" : "</sup>");
      if (run.formula) text = "<span class=\"f\">" + text + "</span>";
      if (run.italic) text = "<em>" + text + "</em>";
      if (run.bold) text = "<strong>" + text + "</strong>";
      out += text;
    }
    out += block.kind == none ? "</p>\n" : "</li>\n";
  }
  close_list();
  return out;
}

std::vector<uint32_t> formula_code_points() {
  std::vector<uint32_t> cps = {kTimes, kDot, kSqrt};
  for (const Symbol& w : kWords) cps.push_back(w.code_point);
  for (const Symbol& o : kOperators) cps.push_back(o.code_point);
  for (int c = 0; c < 0x80; ++c) {
    if (const uint32_t cp = subscript_of(static_cast<char>(c))) cps.push_back(cp);
    if (const uint32_t cp = superscript_of(static_cast<char>(c))) cps.push_back(cp);
  }
  std::sort(cps.begin(), cps.end());
  cps.erase(std::unique(cps.begin(), cps.end()), cps.end());
  return cps;
}

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace headroom::gui
