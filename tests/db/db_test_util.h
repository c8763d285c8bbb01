// Shared fixtures of the headroom_db tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "experiments_db/blob.h"

namespace headroom::db::testing {

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "db") {
    std::string pattern = (std::filesystem::temp_directory_path() / ("headroom_" + tag + "_XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path(const std::string& name) const { return (root_ / name).string(); }

 private:
  std::filesystem::path root_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline Blob bytes_of(const std::string& text) { return Blob(text.begin(), text.end()); }

// SQL that turns a current file back into how a schema-version-1 worker wrote it (no per-series
// summary columns, no lowest_block_level), to test the upgrade. Undoes released migrations only.
inline constexpr const char* kDowngradeToVersion1 =
    "ALTER TABLE metric_series DROP COLUMN lowest_block_level; "
    "ALTER TABLE metric_series DROP COLUMN last_step; "
    "ALTER TABLE metric_series DROP COLUMN last_value; "
    "ALTER TABLE metric_series DROP COLUMN min_value; "
    "PRAGMA user_version = 1";

}  // namespace headroom::db::testing
