#include "app/gui/scene.h"

#include <gtest/gtest.h>

namespace hg = headroom::gui;

TEST(Scene, ParsesViewAndKeepsTheRest) {
  hg::Scene s;
  std::string err;
  ASSERT_TRUE(hg::parse_scene_text(R"({"view": "About", "lab": {"heads": 8}})", "s.json", &s, &err)) << err;
  EXPECT_EQ(s.view, "About");
  EXPECT_EQ(s.data["lab"]["heads"], 8);
  ASSERT_TRUE(hg::parse_scene_text("{}", "s.json", &s, &err));
  EXPECT_EQ(s.view, "");
}

TEST(Scene, MalformedJsonNamesFileAndPosition) {
  hg::Scene s;
  std::string err;
  EXPECT_FALSE(hg::parse_scene_text("{\"view\": \"About\",}", "bad.json", &s, &err));
  EXPECT_NE(err.find("'bad.json'"), std::string::npos) << err;
  EXPECT_NE(err.find("not valid JSON"), std::string::npos) << err;
  EXPECT_NE(err.find("line 1"), std::string::npos) << err;
}

TEST(Scene, ANumberTooLargeForADoubleIsRefusedNotACrash) {
  // Found by fuzz/scene_fuzz.cpp: nlohmann throws out_of_range (not parse_error) for it.
  hg::Scene s;
  std::string err;
  EXPECT_FALSE(hg::parse_scene_text("{\"lab\": {\"d\": 5e45552}}", "big.json", &s, &err));
  EXPECT_NE(err.find("'big.json' is not valid JSON"), std::string::npos) << err;
  EXPECT_NE(err.find("number overflow"), std::string::npos) << err;
}

TEST(Scene, WrongShapes) {
  hg::Scene s;
  std::string err;
  EXPECT_FALSE(hg::parse_scene_text("[1, 2]", "a.json", &s, &err));
  EXPECT_NE(err.find("JSON object"), std::string::npos) << err;
  EXPECT_FALSE(hg::parse_scene_text(R"({"view": 3})", "a.json", &s, &err));
  EXPECT_NE(err.find("\"view\""), std::string::npos) << err;
}

TEST(Scene, MissingFile) {
  hg::Scene s;
  std::string err;
  EXPECT_FALSE(hg::load_scene_file("/nonexistent/headroom-scene.json", &s, &err));
  EXPECT_NE(err.find("'/nonexistent/headroom-scene.json'"), std::string::npos) << err;
  EXPECT_NE(err.find("No such file"), std::string::npos) << err;
}
