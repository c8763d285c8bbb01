#include "app/gui/explorer/data_paths.h"

#include <gtest/gtest.h>

namespace headroom::explorer {
namespace {

TEST(DataPaths, XdgDataHomeWinsWhenAbsolute) { EXPECT_EQ(data_dir_from("/x/data", "/home/u"), "/x/data/headroom"); }

TEST(DataPaths, RelativeXdgDataHomeIsIgnored) {
  EXPECT_EQ(data_dir_from("rel/data", "/home/u"), "/home/u/.local/share/headroom");
}

TEST(DataPaths, FallsBackToHomeThenNothing) {
  EXPECT_EQ(data_dir_from(nullptr, "/home/u"), "/home/u/.local/share/headroom");
  EXPECT_EQ(data_dir_from(nullptr, nullptr), "");
  EXPECT_EQ(data_dir_from("", ""), "");
}

}  // namespace
}  // namespace headroom::explorer
