// Internal to headroom_db: what a Connection shares with its Statements and
// Transactions. Not part of the public API; do not include from outside.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

struct sqlite3;

namespace headroom::db::detail {

// Lives on the heap so that moving a Connection does not invalidate the
// pointers held by its statements and transactions.
struct ConnectionState {
  sqlite3* db = nullptr;
  std::string path;  // as given by the caller; used in every message
  bool read_only = false;
  int savepoint_counter = 0;
  // How long a statement waits for another connection's lock (Connection::set_lock_wait).
  int lock_wait_ms = 5000;
  int lock_notice_after_ms = 0;
  std::function<void(int waited_ms)> on_long_wait;
  std::chrono::steady_clock::time_point wait_started;
  bool wait_noticed = false;
};

// Throws a DbError for SQLite result code `rc` that happened while `doing`
// something, e.g. "could not record metrics of run 4". Adds a hint for the
// common cases (locked, read-only, disk full, damaged file).
[[noreturn]] void throw_sqlite_error(const ConnectionState& state, int rc, std::string_view doing);

// The text SQLite wants for a file name: a path beginning with "file:" or
// ":" would otherwise be read as a URI or a special name (this SQLite is built
// with URI support), so it is prefixed with "./".
std::string sqlite_file_name(const std::string& path);

}  // namespace headroom::db::detail
