// The markdown subset a lesson's text and speaker notes are written in, and the ASCII formulas inside
// it typeset as Unicode. The GUI draws the blocks as rich text; the HTML handout writes them out.
// Plain data, no ImGui: the same parse validates a lesson file when it is opened (an unclosed '**'
// is an error with its line, not a surprise in front of a class).
//
// The subset, and nothing else (no headings, links, images or nested lists):
//   - paragraphs, separated by blank lines; single newlines join lines with a space;
//   - "- " or "* " starts a bullet item, "1. " (up to 9 digits, kept as written) a numbered item;
//     the lines after an item, up to a blank line or the next item, continue it;
//   - **bold**, *italic*, `formula` (typeset by typeset_formula_pieces: its scripts runs of their own);
//   - backslash escapes \* \` \\ for a literal '*', '`' or '\'.
// Bold and italic switch independently, so ***both*** and **bold *and italic*** work, and a formula
// inside bold or italic keeps that style (run.formula and run.bold both true). A '*' with a space
// (or the end of the block) after it cannot open, and one with a space before it cannot close, so
// "2 * 3" needs no escape. Inside a formula every character up to the next '`' is the formula's
// (no escapes there). Markup never spans a blank line: a '**', '*' or '`' still open at the end of
// its paragraph or item is an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::gui {

struct TextRun {
  std::string text;  // UTF-8; for a formula already typeset
  bool bold = false, italic = false, formula = false;
  // A formula's subscript (-1) or superscript (+1) group: the GUI draws it smaller below or above
  // the line, the handout as <sub> / <sup>. `plain` is then its plain-text form: Unicode sub- or
  // superscript characters where every character has one (dₚ), else the ASCII (P_w).
  int script = 0;
  std::string plain;
};

struct TextBlock {
  enum class Kind { Paragraph, Bullet, Numbered };
  Kind kind = Kind::Paragraph;
  int number = 0;             // Numbered: the item's number as written
  std::vector<TextRun> runs;  // adjacent runs with the same style merged
};

// Parses `source` (the subset above) into blocks. On an error returns false and sets *error to one
// line saying what is wrong, on which line of the text, and what would be right, e.g.
//   unclosed '**' (bold) opened on line 2 of the text; close it with another '**', or write \* ...
bool parse_lesson_markdown(const std::string& source, std::vector<TextBlock>* blocks, std::string* error);
// Same; on an error also sets *error_line to that line of the text (1-based), so that a lesson's
// message can point at the line of the file.
bool parse_lesson_markdown(const std::string& source, std::vector<TextBlock>* blocks, std::string* error,
                           int* error_line);

// ASCII formula -> Unicode (UTF-8), for projectors and handouts without a TeX engine:
//   a_b, a_{bc}, a_bc, a^b, a^{bc}, a^-1  sub- and superscripts from Unicode's sub/superscript characters
//                                         when every character of the group has one; otherwise the
//                                         ASCII form is kept: "_b", "_bc" as written, "_(bc)" for braces
//                                         (d_{model} -> "d_(model)": there is no subscript d). An
//                                         unbraced group is a run of letters and digits (with one
//                                         leading sign): d_k1 -> dₖ₁, 2^10 -> 2¹⁰;
//   >= <= != -> <- ~= +-                  ≥ ≤ ≠ → ← ≈ ±
//   " x " (spaces both sides), "*"        × and ·
//   sqrt(...)                             √(...), and √dₖ without parentheses for one token: sqrt(d_k)
//   inf, sum, alpha beta gamma delta epsilon lambda mu pi rho sigma tau phi omega, Sigma Delta Omega
//                                         ∞ Σ α β γ δ ε λ μ π ρ σ τ φ ω Σ Δ Ω, as whole words
//   log3                                  log₃ (log followed by digits)
// Everything else, non-ASCII included, is copied unchanged.
std::string typeset_formula(const std::string& ascii);

// The same, in pieces: the formula's sub- and superscript groups apart (script -1 / +1, `text` the
// group typeset, `plain` what typeset_formula writes for it), the rest between them (script 0,
// plain == text), so that a renderer can draw real scripts where Unicode has none (P_w, d_{model}).
// Concatenating the pieces' `plain` gives typeset_formula(ascii). Groups inside groups (a_{b_c})
// stay inside their group's text, as typeset_formula writes them.
struct FormulaPiece {
  std::string text;
  int script = 0;
  std::string plain;
};
std::vector<FormulaPiece> typeset_formula_pieces(const std::string& ascii);

// The blocks as plain UTF-8 text: runs concatenated, blocks separated by "\n", bullets prefixed
// "• ", numbered items "N. ".
std::string plain_text(const std::vector<TextBlock>& blocks);

// The blocks as HTML for the handout: <p>, <ul><li>, <ol><li> (start="N" when the first item is not
// 1), <strong>, <em>, <span class="f">formula</span>; all text HTML-escaped (& < > " ').
std::string blocks_to_html(const std::vector<TextBlock>& blocks);
// Text with & < > " ' as HTML entities (what blocks_to_html does to every run).
std::string html_escape(const std::string& s);

// Every code point typeset_formula substitutes (besides what it copies from its input), sorted: the
// GUI's font needs a glyph for each (tests/lesson checks DejaVu Sans has them all).
std::vector<uint32_t> formula_code_points();

}  // namespace headroom::gui
