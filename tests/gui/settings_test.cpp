#include "app/gui/settings.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace hg = headroom::gui;

TEST(Settings, ConfigDirFollowsXdg) {
  EXPECT_EQ(hg::config_dir_from("/x/cfg", "/home/a"), "/x/cfg/headroom");
  EXPECT_EQ(hg::config_dir_from(nullptr, "/home/a"), "/home/a/.config/headroom");
  EXPECT_EQ(hg::config_dir_from("relative", "/home/a"), "/home/a/.config/headroom");  // XDG: ignore relative
  EXPECT_EQ(hg::config_dir_from("", "/home/a"), "/home/a/.config/headroom");
  EXPECT_EQ(hg::config_dir_from(nullptr, nullptr), "");
}

TEST(Settings, RoundTripCreatesDirectory) {
  const std::string dir = ::testing::TempDir() + "headroom-settings-test/nested/headroom";
  hg::Settings s;
  s.last_view = "About";
  s.window_width = 1000;
  s.window_height = 700;
  std::string err;
  ASSERT_TRUE(hg::save_settings(dir, s, &err)) << err;
  hg::Settings back;
  ASSERT_TRUE(hg::load_settings(dir, &back, &err)) << err;
  EXPECT_EQ(back.last_view, "About");
  EXPECT_EQ(back.window_width, 1000);
  EXPECT_EQ(back.window_height, 700);
}

TEST(Settings, MissingFileIsDefaultsMalformedIsWarning) {
  hg::Settings s;
  std::string err;
  EXPECT_TRUE(hg::load_settings("/nonexistent/headroom", &s, &err));
  EXPECT_EQ(s.last_view, "");
  const std::string dir = ::testing::TempDir() + "headroom-settings-bad";
  ASSERT_TRUE(hg::ensure_dir(dir, &err)) << err;
  std::ofstream(dir + "/settings.json") << "{not json";
  EXPECT_FALSE(hg::load_settings(dir, &s, &err));
  EXPECT_NE(err.find("settings.json"), std::string::npos) << err;
  EXPECT_EQ(s.window_width, 0);
}
