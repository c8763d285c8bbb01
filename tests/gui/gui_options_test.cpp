#include "app/gui/gui_options.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

namespace hg = headroom::gui;

namespace {
struct Parsed {
  hg::ParseResult result;
  hg::GuiOptions options;
  std::string out, err;
};
Parsed parse(std::vector<const char*> args) {
  args.insert(args.begin(), "headroom");
  Parsed p;
  std::ostringstream out, err;
  p.result = hg::parse_gui_options(static_cast<int>(args.size()), args.data(), &p.options, out, err);
  p.out = out.str();
  p.err = err.str();
  return p;
}
}  // namespace

TEST(GuiOptions, DefaultsAreInteractive) {
  const Parsed p = parse({});
  ASSERT_TRUE(p.result.run);
  EXPECT_EQ(p.options.width, 1280);
  EXPECT_EQ(p.options.height, 800);
  EXPECT_FALSE(p.options.automation());
  EXPECT_EQ(p.options.frames_to_run(), 0);
}

TEST(GuiOptions, FullContract) {
  const Parsed p = parse({"--scene", "s.json", "--screenshot", "out.png", "--frames", "7", "--size", "1024x768",
                          "--state-out", "st.json", "--db", "x.sqlite", "--view", "About", "--presentation"});
  ASSERT_TRUE(p.result.run) << p.err;
  EXPECT_EQ(p.options.scene_path, "s.json");
  EXPECT_EQ(p.options.screenshot_path, "out.png");
  EXPECT_EQ(p.options.frames, 7);
  EXPECT_EQ(p.options.width, 1024);
  EXPECT_EQ(p.options.height, 768);
  EXPECT_TRUE(p.options.size_given);
  EXPECT_EQ(p.options.state_out, "st.json");
  EXPECT_EQ(p.options.db_path, "x.sqlite");
  EXPECT_EQ(p.options.view, "About");
  EXPECT_TRUE(p.options.presentation);
  EXPECT_TRUE(p.options.automation());
  EXPECT_EQ(p.options.frames_to_run(), 7);
}

TEST(GuiOptions, ScreenshotDefaultsToFiveFrames) {
  const Parsed p = parse({"--screenshot", "a.png"});
  ASSERT_TRUE(p.result.run);
  EXPECT_EQ(p.options.frames_to_run(), 5);
}

TEST(GuiOptions, BenchFramesRunsThatMany) {
  const Parsed p = parse({"--bench-frames", "120"});
  ASSERT_TRUE(p.result.run);
  EXPECT_TRUE(p.options.automation());
  EXPECT_EQ(p.options.frames_to_run(), 120);
}

TEST(GuiOptions, BadSizeIsUsageError) {
  for (const char* bad : {"12x", "x800", "1280", "1280x800x2", "-5x10", "10x10", "99999x100", "axb", "1280 x800"}) {
    const Parsed p = parse({"--size", bad});
    EXPECT_FALSE(p.result.run) << bad;
    EXPECT_EQ(p.result.exit_code, 2) << bad;
    EXPECT_NE(p.err.find(std::string("'") + bad + "'"), std::string::npos) << p.err;
    EXPECT_NE(p.err.find("1280x800"), std::string::npos) << "message should show a valid example: " << p.err;
  }
}

TEST(GuiOptions, ParseWindowSize) {
  int w = 0, h = 0;
  std::string err;
  EXPECT_TRUE(hg::parse_window_size("640X480", &w, &h, &err));
  EXPECT_EQ(w, 640);
  EXPECT_EQ(h, 480);
  EXPECT_FALSE(hg::parse_window_size("12x", &w, &h, &err));
  EXPECT_NE(err.find("WIDTHxHEIGHT"), std::string::npos);
  EXPECT_FALSE(hg::parse_window_size("20x20", &w, &h, &err));
  EXPECT_NE(err.find("between 64 and 16384"), std::string::npos) << err;
}

TEST(GuiOptions, BadNumbersAndUnknownOptions) {
  for (std::vector<const char*> args : {std::vector<const char*>{"--frames", "0"},
                                        {"--frames", "abc"},
                                        {"--bench-frames", "-1"},
                                        {"--bogus"},
                                        {"--screenshot"}}) {
    const Parsed p = parse(args);
    EXPECT_FALSE(p.result.run);
    EXPECT_EQ(p.result.exit_code, 2) << args[0];
    EXPECT_NE(p.err.find("headroom:"), std::string::npos);
    EXPECT_NE(p.err.find("--help"), std::string::npos);
  }
}

TEST(GuiOptions, HelpAndVersionExitZero) {
  const Parsed h = parse({"--help"});
  EXPECT_FALSE(h.result.run);
  EXPECT_EQ(h.result.exit_code, 0);
  EXPECT_NE(h.out.find("--screenshot"), std::string::npos);
  const Parsed v = parse({"--version"});
  EXPECT_FALSE(v.result.run);
  EXPECT_EQ(v.result.exit_code, 0);
  EXPECT_NE(v.out.find("headroom "), std::string::npos);
}

TEST(GuiOptions, ALessonTurnsPresentationOnAndAHandoutIsAnAutomationRun) {
  const Parsed lesson = parse({"--lesson", "one_head.toml", "--lesson-step", "3"});
  ASSERT_TRUE(lesson.result.run) << lesson.err;
  EXPECT_EQ(lesson.options.lesson_path, "one_head.toml");
  EXPECT_EQ(lesson.options.lesson_step, 3);
  EXPECT_TRUE(lesson.options.presentation);
  EXPECT_FALSE(lesson.options.automation());

  const Parsed handout = parse({"--lesson", "one_head.toml", "--handout", "out"});
  ASSERT_TRUE(handout.result.run) << handout.err;
  EXPECT_EQ(handout.options.handout_dir, "out");
  EXPECT_TRUE(handout.options.automation());
}

TEST(GuiOptions, LessonOptionsThatCannotWorkAreUsageErrors) {
  const struct {
    std::vector<const char*> args;
    const char* says;
  } cases[] = {
      {{"--handout", "out"}, "give the lesson too"},
      {{"--lesson-step", "2"}, "give the lesson too"},
      {{"--lesson", "a.toml", "--lesson-step", "0"}, "must be 1 or more"},
      {{"--lesson", "a.toml", "--handout", "out", "--screenshot", "x.png"}, "takes its own screenshots"},
      {{"--lesson", ""}, "needs a lesson file"},
  };
  for (const auto& c : cases) {
    const Parsed p = parse(c.args);
    EXPECT_FALSE(p.result.run) << c.says;
    EXPECT_EQ(p.result.exit_code, 2) << c.says;
    EXPECT_NE(p.err.find(c.says), std::string::npos) << p.err;
  }
}

// The About view's command-line text is the parser's own help: every option it accepts is listed.
TEST(GuiOptions, TheHelpTheAboutViewShowsListsEveryOption) {
  const std::string help = hg::gui_options_help();
  for (const char* option :
       {"--scene", "--screenshot", "--frames", "--size", "--state-out", "--bench-frames", "--db", "--view", "--model",
        "--presentation", "--lesson", "--lesson-step", "--handout", "--version"})
    EXPECT_NE(help.find(option), std::string::npos) << option << " is missing from:\n" << help;
  const Parsed p = parse({"--help"});
  EXPECT_FALSE(p.result.run);
  EXPECT_EQ(p.out, help) << "--help and the About view differ";
}
