#include "widgets/text_wrap.h"

#include <gtest/gtest.h>

#include <imgui.h>

#include <cfloat>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/utf8.h"
#include "tests/widgets/headless_imgui.h"

namespace hw = headroom::widgets;

namespace {

// One unit a character (a UTF-8 sequence counts once).
float chars(std::string_view s) {
  float n = 0.0f;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1.0f : 0.0f;
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST(TextWrap, BreaksOnlyAtSpacesAndReplacesThem) {
  // 17 characters then "5.607": a wrap that may break after '.' would end the line at "5.".
  EXPECT_EQ(hw::wrap_at_spaces("loss on the input 5.607 nats", 20.0f, chars), "loss on the input\n5.607 nats");
  EXPECT_EQ(hw::wrap_at_spaces("see VB §5.2 here", 10.0f, chars), "see VB\n§5.2 here");
  EXPECT_EQ(hw::wrap_at_spaces("1,234,567 tokens", 12.0f, chars), "1,234,567\ntokens");
  // A run of spaces at a break goes; inside a line it stays.
  EXPECT_EQ(hw::wrap_at_spaces("n = 54   params 16.4k   model 141k", 17.0f, chars),
            "n = 54   params\n16.4k   model\n141k");
}

TEST(TextWrap, FillsEachLineAsFarAsItFits) {
  const std::string text = "a bb ccc dddd eeeee ffffff ggggggg";
  for (float width = 7.0f; width <= 40.0f; width += 1.0f) {
    const auto lines = lines_of(hw::wrap_at_spaces(text, width, chars));
    std::string joined;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_LE(chars(lines[i]), width) << "width " << width << ": " << lines[i];
      // Greedy: the next line's first word would not have fitted on this one.
      if (i + 1 < lines.size()) {
        EXPECT_GT(chars(lines[i]) + 1.0f + chars(lines[i + 1].substr(0, lines[i + 1].find(' '))), width);
      }
      joined += (i ? " " : "") + lines[i];
    }
    EXPECT_EQ(joined, text) << "width " << width;
  }
}

TEST(TextWrap, KeepsHardBreaksAndLeadingSpaces) {
  EXPECT_EQ(hw::wrap_at_spaces("one two\n  three four", 9.0f, chars), "one two\n  three\nfour");
  EXPECT_EQ(hw::wrap_at_spaces("short\n\nlines ", 40.0f, chars), "short\n\nlines ");
  EXPECT_EQ(hw::wrap_at_spaces("", 10.0f, chars), "");
}

TEST(TextWrap, CutsAWordWiderThanALineBetweenCharacters) {
  EXPECT_EQ(hw::wrap_at_spaces("abcdefgh", 3.0f, chars), "abc\ndef\ngh");
  EXPECT_EQ(hw::wrap_at_spaces("x /a/long/path.sqlite y", 6.0f, chars), "x\n/a/lon\ng/path\n.sqlit\ne y");
  // A two-byte character is never split: "§" is one unit wide here.
  EXPECT_EQ(hw::wrap_at_spaces("§§§§§", 2.0f, chars), "§§\n§§\n§");
  // A line narrower than one character still takes one a line, and ends.
  EXPECT_EQ(hw::wrap_at_spaces("ab", 0.5f, chars), "a\nb");
}

TEST(TextWrap, NoWidthLeavesTheTextAsItIs) {
  EXPECT_EQ(hw::wrap_at_spaces("a b c", 0.0f, chars), "a b c");
  EXPECT_EQ(hw::wrap_at_spaces("a b c", -1.0f, chars), "a b c");
}

TEST(TextWrap, InImGuisFontEveryLineFitsAndNoNumberIsSplit) {
  hw::testing::create_headless_imgui_context();
  ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  const auto measure = [&](std::string_view s) {
    return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, s.data(), s.data() + s.size()).x;
  };
  const std::string text = "loss on the input 5.607 -> 5.612 with 2 heads off (VB §5.2, LRB §2.3): 1,234 tokens";
  for (float width = 60.0f; width <= 400.0f; width += 3.0f) {
    const auto lines = lines_of(hw::wrap_at_spaces(text, width, measure));
    std::string joined;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_LE(measure(lines[i]), width + 1e-3f) << "width " << width << ": " << lines[i];
      joined += (i ? " " : "") + lines[i];
    }
    EXPECT_EQ(joined, text) << "width " << width;  // every break at a space
  }
  ImGui::DestroyContext();
}

TEST(TextWrap, DrawsTheBrokenLinesAsOneItem) {
  hw::testing::create_headless_imgui_context();
  hw::testing::begin_frame(ImVec2(-1, -1));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 150.0f);
  const float y0 = ImGui::GetCursorPosY();
  hw::TextWrappedAtSpaces("loss on the input 5.607 nats, and more words after it to wrap");
  const ImVec2 size = ImGui::GetItemRectSize();
  ImGui::PopTextWrapPos();
  const float line = ImGui::GetTextLineHeight();
  EXPECT_LE(size.x, 150.0f + 1.0f);
  EXPECT_GE(size.y, 2.0f * line);  // wrapped
  EXPECT_GT(ImGui::GetCursorPosY(), y0 + 2.0f * line);
  hw::testing::end_frame();
  ImGui::DestroyContext();
}

TEST(TextWrap, NoBreakSpacesGlueWords) {
  // "\xC2\xA0" (U+00A0) is not a break: "470k" stays with "params", "ms" with its number.
  const std::string text =
      "n = 54   params\xC2\xA0"
      "470k   (104.6\xC2\xA0ms)";
  EXPECT_EQ(hw::wrap_at_spaces(text, 14.0f, chars),
            "n = 54\nparams\xC2\xA0"
            "470k\n(104.6\xC2\xA0ms)");
}

TEST(TextWrap, KeepsAtMostTheLinesAskedForAndSaysSo) {
  const std::string wrapped = hw::wrap_at_spaces("one two three four five six seven eight", 10.0f, chars);
  ASSERT_EQ(wrapped, "one two\nthree four\nfive six\nseven\neight");
  bool cut = false;
  // Line 2 "three four" is 10 wide: with the ellipsis it drops "four".
  EXPECT_EQ(hw::keep_lines(wrapped, 2, 10.0f, chars, &cut), "one two\nthree\xE2\x80\xA6");
  EXPECT_TRUE(cut);
  EXPECT_EQ(hw::keep_lines(wrapped, 3, 10.0f, chars, &cut), "one two\nthree four\nfive six\xE2\x80\xA6");
  EXPECT_TRUE(cut);
  // As many lines as there are, or more, or no limit: nothing left out.
  for (int max : {5, 6, 0, -1}) {
    EXPECT_EQ(hw::keep_lines(wrapped, max, 10.0f, chars, &cut), wrapped) << max;
    EXPECT_FALSE(cut) << max;
  }
  // A last line of one word too wide for the ellipsis gives it up.
  EXPECT_EQ(hw::keep_lines("abcdefghij\nmore", 1, 10.0f, chars, &cut), "\xE2\x80\xA6");
  EXPECT_TRUE(cut);
}

// The one middle cut both name shorteners use (the GUI's by pixels, the worker's `status` by bytes).
TEST(TextWrap, ElideMiddleBytesKeepsBothEndsAndWholeCharacters) {
  namespace io = headroom::io;
  EXPECT_EQ(io::elide_middle_bytes("lrb-heads/h32-dp16/seed=2", 9), "lrb-h...ed=2") << "5 + 4";
  EXPECT_EQ(io::elide_middle_bytes("abcdef", 0), "...");
  EXPECT_EQ(io::elide_middle_bytes("abc", 99), "ab...c") << "keep past the size: all of it kept";
  // "αβγδ" is 8 bytes of 2-byte characters: a cut inside one moves to its boundary, so fewer bytes.
  const std::string greek = "\xCE\xB1\xCE\xB2\xCE\xB3\xCE\xB4";
  EXPECT_EQ(io::elide_middle_bytes(greek, 4), "\xCE\xB1...\xCE\xB4");
  EXPECT_EQ(io::elide_middle_bytes(greek, 3), "\xCE\xB1...") << "head 2 bytes, tail 1 byte: no tail";
  for (size_t keep = 0; keep <= greek.size(); ++keep) {
    const std::string cut = io::elide_middle_bytes(greek, keep);
    EXPECT_LE(cut.size(), keep + 3) << keep;
    EXPECT_EQ(cut.size() % 2, 1u) << "whole 2-byte characters around the dots, keep " << keep;
  }
}
