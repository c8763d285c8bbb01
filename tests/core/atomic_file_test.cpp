// Whole-or-nothing file writes (core/io/atomic_file.h): what settings, scenes, exports and
// checkpoints are written with.
#include "core/io/atomic_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace headroom::core {
namespace {

namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path = fs::path(::testing::TempDir()) / ("atomic_file_" + std::to_string(getpid()));
  ScratchDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::size_t entries() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {})); }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(AtomicFile, WritesAndReplacesWholeFilesLeavingNoTemporaries) {
  ScratchDir dir;
  const std::string file = (dir.path / "settings.json").string();
  std::string error;
  ASSERT_TRUE(write_file_atomically(file, "first", &error)) << error;
  EXPECT_EQ(read(file), "first");
  ASSERT_TRUE(write_file_atomically(file, std::string(100000, 'x'), &error)) << error;
  EXPECT_EQ(read(file), std::string(100000, 'x'));
  ASSERT_TRUE(write_file_atomically(file, "", &error)) << error;
  EXPECT_EQ(read(file), "");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(AtomicFile, AMissingDirectoryOrADirectoryInTheWayIsExplained) {
  ScratchDir dir;
  std::string error;
  const std::string missing = (dir.path / "no_such_dir" / "scene.json").string();
  EXPECT_FALSE(write_file_atomically(missing, "x", &error));
  EXPECT_NE(error.find(missing), std::string::npos) << error;
  EXPECT_NE(error.find("check the directory exists"), std::string::npos) << error;

  fs::create_directories(dir.path / "taken");
  error.clear();
  EXPECT_FALSE(write_file_atomically((dir.path / "taken").string(), "x", &error));
  EXPECT_NE(error.find("previous file is unchanged"), std::string::npos) << error;
  EXPECT_EQ(dir.entries(), 1u);  // no temporary left beside it
}

TEST(AtomicFile, AFullDiskLeavesTheOldFileWholeAndNoTemporary) {
  ScratchDir dir;
  const std::string file = (dir.path / "scene.json").string();
  ASSERT_TRUE(write_file_atomically(file, "the old scene", nullptr));
  // A child whose files may not grow past 1 KB: the kernel's way to make a disk "full".
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);  // then write() fails with EFBIG instead of killing the process
    rlimit limit{1024, 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    std::string error;
    const bool ok = write_file_atomically(file, std::string(64 * 1024, 'n'), &error);
    const bool said = error.find("is the disk full?") != std::string::npos && error.find(file) != std::string::npos;
    _exit(ok ? 2 : said ? 0 : 3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: the write claimed success, 3: the message did not say why";
  EXPECT_EQ(read(file), "the old scene");
  EXPECT_EQ(dir.entries(), 1u);
}

}  // namespace
}  // namespace headroom::core
