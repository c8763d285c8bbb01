#include "app/gui/lesson/lesson_text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

// One translation unit compiles stb_truetype, for the glyph check.
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb/stb_truetype.h>

namespace headroom::gui {
namespace {

using Kind = TextBlock::Kind;

std::vector<TextBlock> parse(const std::string& source) {
  std::vector<TextBlock> blocks;
  std::string error;
  EXPECT_TRUE(parse_lesson_markdown(source, &blocks, &error)) << error;
  return blocks;
}

std::string error_of(const std::string& source, int* line = nullptr) {
  std::vector<TextBlock> blocks;
  std::string error;
  int l = 0;
  EXPECT_FALSE(parse_lesson_markdown(source, &blocks, &error, &l));
  if (line) *line = l;
  return error;
}

// A block's runs as "text|bif_" style tags ('_' a subscript, '^' a superscript), for compact
// expectations.
std::string runs_of(const TextBlock& b) {
  std::string out;
  for (const TextRun& r : b.runs) {
    out += "[" + r.text;
    if (r.bold || r.italic || r.formula) out += "|";
    if (r.bold) out += "b";
    if (r.italic) out += "i";
    if (r.formula) out += "f";
    if (r.script != 0) out += r.script < 0 ? "_" : "^";
    out += "]";
  }
  return out;
}

TEST(LessonMarkdown, ParagraphsAndJoinedLines) {
  const auto blocks = parse("One line\n  and its continuation.  \n\n\nSecond paragraph.\r\n");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].kind, Kind::Paragraph);
  EXPECT_EQ(runs_of(blocks[0]), "[One line and its continuation.]");
  EXPECT_EQ(runs_of(blocks[1]), "[Second paragraph.]");
  EXPECT_TRUE(parse("").empty());
  EXPECT_TRUE(parse("\n  \n").empty());
}

TEST(LessonMarkdown, BulletsAndNumberedItems) {
  const auto blocks = parse("Intro:\n- one\n* two\n  continued\n\n3. third\n10. tenth\n-1 is not a bullet\n");
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[0].kind, Kind::Paragraph);
  EXPECT_EQ(blocks[1].kind, Kind::Bullet);
  EXPECT_EQ(runs_of(blocks[1]), "[one]");
  EXPECT_EQ(blocks[2].kind, Kind::Bullet);
  EXPECT_EQ(runs_of(blocks[2]), "[two continued]");
  EXPECT_EQ(blocks[3].kind, Kind::Numbered);
  EXPECT_EQ(blocks[3].number, 3);
  EXPECT_EQ(runs_of(blocks[3]), "[third]");
  EXPECT_EQ(blocks[4].kind, Kind::Numbered);
  EXPECT_EQ(blocks[4].number, 10);
  EXPECT_EQ(runs_of(blocks[4]), "[tenth -1 is not a bullet]");  // a lazy continuation
  // Too many digits for an item number: a paragraph.
  EXPECT_EQ(parse("1234567890. x")[0].kind, Kind::Paragraph);
}

TEST(LessonMarkdown, Runs) {
  const auto blocks = parse("A **bold** and *italic* word, `d_k` and ***both*** **a *b* c**.");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(runs_of(blocks[0]),
            "[A ][bold|b][ and ][italic|i][ word, ][d|f][k|f_][ and ][both|bi][ ][a |b][b|bi][ c|b][.]");
}

TEST(LessonMarkdown, MarkupSpansLinesOfOneBlock) {
  EXPECT_EQ(runs_of(parse("**bold\nacross lines**")[0]), "[bold across lines|b]");
}

TEST(LessonMarkdown, FormulaInsideBoldKeepsBold) {
  // Documented: a formula inside bold or italic is allowed and keeps that style.
  EXPECT_EQ(runs_of(parse("**bold `Q K^T` here**")[0]), "[bold |b][Q K|bf][T|bf^][ here|b]");
  EXPECT_EQ(runs_of(parse("*`x`*")[0]), "[x|if]");
}

TEST(LessonMarkdown, AdjacentRunsMerge) { EXPECT_EQ(runs_of(parse("**a****b** `c``d`")[0]), "[ab|b][ ][cd|f]"); }

TEST(LessonMarkdown, EscapesAndLiteralAsterisks) {
  EXPECT_EQ(runs_of(parse("\\*not italic\\* \\`no formula\\` a \\\\ b \\n")[0]),
            "[*not italic* `no formula` a \\ b \\n]");
  // A '*' with a space after it cannot open: arithmetic needs no escape.
  EXPECT_EQ(runs_of(parse("2 * 3 * 4 and a * at the end *")[0]), "[2 * 3 * 4 and a * at the end *]");
  // Inside a formula nothing is markup: '*' is the formula's (a dot).
  EXPECT_EQ(runs_of(parse("`a*b` and `**`")[0]),
            "[a\xC2\xB7"
            "b|f][ and ][\xC2\xB7\xC2\xB7|f]");
}

TEST(LessonMarkdown, Errors) {
  int line = 0;
  EXPECT_EQ(error_of("fine\n\nA **bold\nstart", &line),
            "unclosed '**' (bold) opened on line 3 of the text; close it with another '**', or write \\* for a "
            "literal asterisk");
  EXPECT_EQ(line, 3);
  EXPECT_EQ(error_of("one *two\n\nthree*", &line),
            "unclosed '*' (italic) opened on line 1 of the text; close it with another '*', or write \\* for a literal "
            "asterisk");
  EXPECT_EQ(line, 1);  // markup never crosses a blank line
  EXPECT_EQ(error_of("- a\n- b `c", &line),
            "unclosed '`' (formula) opened on line 2 of the text; close it with another '`', or write \\` for a "
            "literal backquote");
  EXPECT_EQ(line, 2);
  // Both open: the one opened first is named.
  EXPECT_NE(error_of("*a **b").find("'*' (italic)"), std::string::npos);
  // The three-argument form says the same.
  std::vector<TextBlock> blocks;
  std::string error;
  EXPECT_FALSE(parse_lesson_markdown("**x", &blocks, &error));
  EXPECT_EQ(error.rfind("unclosed '**' (bold) opened on line 1", 0), 0u);
}

// Scripts are runs of their own, drawn as real sub/superscripts, also where Unicode has no
// character for them (there is no subscript w); plain text keeps typeset_formula's form.
TEST(LessonMarkdown, FormulaScriptsAreRunsWithTheirPlainForm) {
  const auto blocks = parse("`P_w` and `d_{model} x K^T`");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(runs_of(blocks[0]), "[P|f][w|f_][ and ][d|f][model|f_][ \xC3\x97 K|f][T|f^]");
  EXPECT_EQ(plain_text(blocks), "P_w and d_(model) \xC3\x97 K\xE1\xB5\x80");
  EXPECT_EQ(blocks_to_html(blocks),
            "<p><span class=\"f\">P</span><span class=\"f\"><sub>w</sub></span> and <span class=\"f\">d</span>"
            "<span class=\"f\"><sub>model</sub></span><span class=\"f\"> \xC3\x97 K</span>"
            "<span class=\"f\"><sup>T</sup></span></p>\n");
}

TEST(LessonMarkdown, PlainText) {
  EXPECT_EQ(plain_text(parse("Some **bold** text.\n\n- item\n2. second")),
            "Some bold text.\n\xE2\x80\xA2 item\n2. second");
}

TEST(LessonMarkdown, Html) {
  const auto blocks = parse("<b> & \"q\" 'a' **x<y**\n\n- `a<=b`\n- *i*\n\n3. c\n4. d\n\nEnd.\n\n1. e");
  EXPECT_EQ(blocks_to_html(blocks),
            "<p>&lt;b&gt; &amp; &quot;q&quot; &#39;a&#39; <strong>x&lt;y</strong></p>\n"
            "<ul>\n<li><span class=\"f\">a\xE2\x89\xA4"
            "b</span></li>\n<li><em>i</em></li>\n</ul>\n"
            "<ol start=\"3\">\n<li>c</li>\n<li>d</li>\n</ol>\n"
            "<p>End.</p>\n"
            "<ol>\n<li>e</li>\n</ol>\n");
  EXPECT_EQ(blocks_to_html(parse("**`f`**")), "<p><strong><span class=\"f\">f</span></strong></p>\n");
  EXPECT_EQ(blocks_to_html({}), "");
}

TEST(TypesetFormula, Table) {
  const std::pair<const char*, const char*> cases[] = {
      {"d_p >= n", "d\xE2\x82\x9A \xE2\x89\xA5 n"},  // dₚ ≥ n
      {"h_k d_k", "h\xE2\x82\x96 d\xE2\x82\x96"},    // hₖ dₖ
      {"sqrt(d_k)",
       "\xE2\x88\x9A"
       "d\xE2\x82\x96"},                              // √dₖ
      {"sqrt(h d)", "\xE2\x88\x9A(h d)"},             // √(h d): more than one token
      {"Q K^T", "Q K\xE1\xB5\x80"},                   // Q Kᵀ
      {"min(n, d_k)", "min(n, d\xE2\x82\x96)"},       // min(n, dₖ)
      {"d_{model}", "d_(model)"},                     // no subscript d: ASCII
      {"d_model", "d_model"},                         // unbraced: as written
      {"W_Q", "W_Q"},                                 // no subscript Q
      {"log3 d_x", "log\xE2\x82\x83 d\xE2\x82\x93"},  // log₃ dₓ
      {"sigma_1", "\xCF\x83\xE2\x82\x81"},            // σ₁
      {"2^10", "2\xC2\xB9\xE2\x81\xB0"},              // 2¹⁰
      {"a -> b", "a \xE2\x86\x92 b"},                 // a → b
      {"a <- b", "a \xE2\x86\x90 b"},                 // a ← b
      {"a <= b != c ~= d +- e", "a \xE2\x89\xA4 b \xE2\x89\xA0 c \xE2\x89\x88 d \xC2\xB1 e"},
      {"h x d_p", "h \xC3\x97 d\xE2\x82\x9A"},                         // h × dₚ
      {"x_ij", "x\xE1\xB5\xA2\xE2\xB1\xBC"},                           // xᵢⱼ
      {"max(x)", "max(x)"},                                            // x without spaces both sides
      {"Q*K", "Q\xC2\xB7K"},                                           // Q·K
      {"n^{-1}", "n\xE2\x81\xBB\xC2\xB9"},                             // n⁻¹
      {"10^-3", "10\xE2\x81\xBB\xC2\xB3"},                             // 10⁻³
      {"x_{i,j}", "x_(i,j)"},                                          // ',' has no subscript
      {"W_alpha", "W_\xCE\xB1"},                                       // W_α: no subscript alpha
      {"sum_i alpha_i", "\xCE\xA3\xE1\xB5\xA2 \xCE\xB1\xE1\xB5\xA2"},  // Σᵢ αᵢ
      {"inf info", "\xE2\x88\x9E info"},                               // whole words only
      {"alphabet pi", "alphabet \xCF\x80"},
      {"Sigma Delta Omega", "\xCE\xA3 \xCE\x94 \xCE\xA9"},
      {"e^{x_1}", "e^(x\xE2\x82\x81)"},  // no superscript ₁: ASCII around it
      {"x_", "x_"},
      {"a_{}", "a_{}"},
      {"a^{b", "a^{b"},
      {"sqrt(", "\xE2\x88\x9A("},
      {"\xC3\xA9_k", "\xC3\xA9\xE2\x82\x96"},  // non-ASCII is copied
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(typeset_formula(in), want) << in;
}

TEST(TypesetFormula, PiecesSplitOutTheScriptsAndJoinToTheString) {
  auto pieces_of = [](const std::string& ascii) {
    std::string out, joined;
    for (const FormulaPiece& p : typeset_formula_pieces(ascii)) {
      out += "[" + p.text + (p.script < 0 ? "|_" : p.script > 0 ? "|^" : "") + "]";
      joined += p.plain;
    }
    EXPECT_EQ(joined, typeset_formula(ascii)) << ascii;
    return out;
  };
  EXPECT_EQ(pieces_of("P_w x P_l"), "[P][w|_][ \xC3\x97 P][l|_]");
  EXPECT_EQ(pieces_of("sqrt(d_k)"),
            "[\xE2\x88\x9A"
            "d][k|_]");                                                       // the sign and its argument's text merge
  EXPECT_EQ(pieces_of("sqrt(h d_k) + 1"), "[\xE2\x88\x9A(h d][k|_][) + 1]");  // parentheses around pieces
  EXPECT_EQ(pieces_of("e^{x_1}"), "[e][x\xE2\x82\x81|^]");  // a group inside a group stays in its text
  EXPECT_EQ(pieces_of("10^-3 n^{-1}"), "[10][-3|^][ n][-1|^]");
  EXPECT_EQ(pieces_of("log3 d"), "[log\xE2\x82\x83 d]");  // log's base is not a script group
  EXPECT_EQ(pieces_of("x_ a_{}"), "[x_ a_{}]");           // nothing to script
  EXPECT_EQ(pieces_of(""), "");
  const auto w = typeset_formula_pieces("P_w");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].plain, "_w");  // no subscript w: the ASCII form
  const auto k = typeset_formula_pieces("d_k");
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[1].plain, "\xE2\x82\x96");  // the Unicode subscript k
}

TEST(TypesetFormula, DeepNestingIsCopied) {
  std::string deep;
  for (int i = 0; i < 2000; ++i) deep += "x_{";
  deep += "1";
  for (int i = 0; i < 2000; ++i) deep += "}";
  const std::string out = typeset_formula(deep);
  EXPECT_FALSE(out.empty());
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "_{(sqrt(";
  EXPECT_FALSE(typeset_formula(many).empty());
  EXPECT_FALSE(typeset_formula_pieces(deep).empty());
  EXPECT_FALSE(typeset_formula_pieces(many).empty());
}

std::vector<uint32_t> decode_utf8(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += len;
  }
  return out;
}

TEST(TypesetFormula, EmitsOnlyListedCodePoints) {
  const std::vector<uint32_t> listed = formula_code_points();
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  const std::string all =
      "a_0123456789 a_{+-=()} a_{aehijklmnoprstuvx} a^0123456789 a^{+-=()} a^{abcdefghijklmnoprstuvwxyz} K^T "
      ">= <= != -> <- ~= +- a x b * sqrt(x) inf sum alpha beta gamma delta epsilon lambda mu pi rho sigma tau phi "
      "omega Sigma Delta Omega log2";
  for (uint32_t cp : decode_utf8(typeset_formula(all))) {
    if (cp < 0x80) continue;
    EXPECT_TRUE(std::binary_search(listed.begin(), listed.end(), cp)) << std::hex << cp;
  }
}

TEST(TypesetFormula, DejaVuSansHasEveryGlyph) {
  const char* path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << path << " is missing (apt-get install fonts-dejavu-core)";
  const std::vector<unsigned char> font((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  stbtt_fontinfo info;
  ASSERT_TRUE(stbtt_InitFont(&info, font.data(), stbtt_GetFontOffsetForIndex(font.data(), 0)));
  for (uint32_t cp : formula_code_points())
    EXPECT_NE(stbtt_FindGlyphIndex(&info, static_cast<int>(cp)), 0) << "no glyph for U+" << std::hex << cp;
  EXPECT_EQ(stbtt_FindGlyphIndex(&info, 0x10FFFD), 0);  // the check can fail
}

}  // namespace
}  // namespace headroom::gui
