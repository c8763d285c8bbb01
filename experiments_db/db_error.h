// The one exception type of headroom_db.
#pragma once

#include <stdexcept>
#include <string>

namespace headroom::db {

// Every failure in headroom_db is reported as a DbError whose message names the
// database file, the thing that is wrong, and what would be right, so callers
// (the worker CLI, the GUI) can show it to the user verbatim.
class DbError : public std::runtime_error {
 public:
  explicit DbError(const std::string& message, int sqlite_code = 0)
      : std::runtime_error(message), sqlite_code_(sqlite_code) {}

  // The (extended) SQLite result code behind the error, or 0 when the error was
  // detected by Headroom itself. Lets callers tell "locked" from "corrupt".
  int sqlite_code() const noexcept { return sqlite_code_; }

 private:
  int sqlite_code_;
};

}  // namespace headroom::db
