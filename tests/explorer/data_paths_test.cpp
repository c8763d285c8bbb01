#include "app/gui/explorer/data_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

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

// Only <suite>_gpu.sqlite files count, sorted by suite; a folder, a stray file and a missing
// directory add nothing.
TEST(DataPaths, PaperResultsAreTheGpuExportsInAFolder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("headroom_paper_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "old_gpu.sqlite");  // a folder, not an export
  for (const char* name : {"vb_rank_gpu.sqlite", "th_heads_gpu.sqlite", "notes.txt", "_gpu.sqlite", "x.sqlite"})
    std::ofstream(dir / name) << "x";
  const auto found = paper_results_in(dir.string());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].suite, "th_heads");
  EXPECT_EQ(found[0].path, (dir / "th_heads_gpu.sqlite").string());
  EXPECT_EQ(found[1].suite, "vb_rank");
  EXPECT_TRUE(paper_results_in((dir / "missing").string()).empty());
  fs::remove_all(dir);
}

// Names a scene or --db gives: plain paths stay as they are; an unknown "@paper/" name says which
// ones there are (this build's assets ship th_extreme_heads).
TEST(DataPaths, ShippedNamesResolveOrSayWhatThereIs) {
  std::string why;
  EXPECT_EQ(resolve_db_name("/tmp/mine.sqlite", &why), "/tmp/mine.sqlite");
  EXPECT_EQ(why, "");
  const std::string paper = resolve_db_name("@paper/th_extreme_heads", &why);
  ASSERT_FALSE(paper.empty()) << why;
  EXPECT_NE(paper.find("results/paper/th_extreme_heads_gpu.sqlite"), std::string::npos) << paper;
  EXPECT_TRUE(is_shipped_db(paper));
  EXPECT_FALSE(is_shipped_db("/tmp/mine.sqlite"));
  EXPECT_EQ(resolve_db_name("@paper/nope", &why), "");
  EXPECT_NE(why.find("\"@paper/nope\" names no paper-scale results"), std::string::npos) << why;
  EXPECT_NE(why.find("@paper/th_extreme_heads"), std::string::npos) << why;
}

}  // namespace
}  // namespace headroom::explorer
