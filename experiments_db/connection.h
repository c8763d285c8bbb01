// An open Headroom experiments database: one SQLite file per study.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "experiments_db/statement.h"

namespace headroom::db {

namespace detail {
struct ConnectionState;
}

enum class OpenMode {
  // For the GUI and `status`/`export`: never writes, never migrates, works
  // while a worker writes (WAL). An older-schema file is refused with a
  // message saying the worker upgrades it.
  ReadOnly,
  // Like ReadOnly, but a file of an older schema opens as it is, nothing
  // migrated: for merge and export, which copy its rows of the columns every
  // schema has and derive the rest (summaries, the curve pyramid) anew.
  Source,
  // The file must already be a Headroom database; older schemas are migrated
  // forward in place.
  ReadWrite,
  // Like ReadWrite, but a missing or empty (0-byte) file becomes a new database.
  Create,
};

// Owns one sqlite3 connection. Move-only; not for concurrent use from several
// threads (give each thread its own Connection, they may share the file).
//
// Connection::open only ever returns a connection to a genuine Headroom
// database at the current schema version. Anything else -- a missing file, a
// text file, random bytes, someone else's SQLite database, a file written by
// a newer Headroom -- is refused with a DbError before a single byte of it is
// written. Files can come from other people (cluster shards, e-mail), so every
// connection is hardened: defensive mode, trusted_schema off, no extension
// loading, triggers and views disabled (Headroom's schema has none), and
// nothing read from the file is ever used as a path or a command.
//
// Writers use WAL with synchronous=NORMAL: readers (the GUI) never block the
// worker and vice versa; a power cut can lose the last few commits but never
// corrupts the file. All connections wait up to kBusyTimeoutMs for a lock.
class Connection {
 public:
  static constexpr int kBusyTimeoutMs = 5000;

  // `lock_wait_ms`: how long opening waits for a lock another process holds (then
  // set_lock_wait's for the connection's statements).
  static Connection open(const std::string& path, OpenMode mode, int lock_wait_ms = kBusyTimeoutMs);

  // The schema version of `path` when it is a Headroom database older than this build reads
  // (a read-only open refuses it; a read-write open upgrades it in place), else nullopt --
  // also for files open() would refuse for another reason. Reads the header only.
  static std::optional<int> older_schema(const std::string& path);

  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs one or more statements without results (no parameters). Meant for
  // fixed SQL written in this library and tests, never for text from a file.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);

  // Changes whenever another connection commits to the file. The GUI polls it
  // to re-query only after the worker wrote something. Same-connection writes
  // do not change it (SQLite's definition of PRAGMA data_version).
  std::int64_t data_version();
  std::int64_t last_insert_rowid() const;
  // Rows changed by the most recent INSERT/UPDATE/DELETE on this connection.
  std::int64_t changes() const;
  // True inside BEGIN ... COMMIT (see Transaction).
  bool in_transaction() const;

  const std::string& path() const;
  bool read_only() const;

  // How long a statement waits for a lock another process holds before it fails with a DbError
  // (SQLITE_BUSY): kBusyTimeoutMs unless set. A worker sets minutes, so a backup tool or a
  // sqlite3 shell holding the file does not end its run. `on_long_wait`, when given, is called once
  // per wait that has lasted `notice_after_ms`, with the milliseconds waited so far (the worker
  // prints "waiting for the lock" with it); it runs on the thread that is waiting.
  void set_lock_wait(int wait_ms, int notice_after_ms = 0, std::function<void(int waited_ms)> on_long_wait = {});
  int lock_wait_ms() const;

  // For Statement and Transaction.
  const detail::ConnectionState& state() const { return *state_; }
  detail::ConnectionState& state() { return *state_; }

 private:
  explicit Connection(std::unique_ptr<detail::ConnectionState> state);

  std::unique_ptr<detail::ConnectionState> state_;
};

}  // namespace headroom::db
