#include "experiments_db/connection.h"

#include <sqlite3.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>
#include <fstream>
#include <utility>

#include "core/io/blocking_io.h"
#include "experiments_db/connection_state.h"
#include "experiments_db/db_error.h"
#include "experiments_db/schema.h"
#include "experiments_db/transaction.h"

namespace headroom::db {
namespace detail {
namespace {

// 5000 -> "5", 400 -> "0.4": whole seconds where they are whole.
std::string seconds_text(int ms) {
  if (ms % 1000 == 0) return std::to_string(ms / 1000);
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", ms / 1000.0);
  return text;
}

}  // namespace

void throw_sqlite_error(const ConnectionState& state, int rc, std::string_view doing) {
  // SQLite reports the system's errno only for some failures: keep the one the failed call left.
  const int errno_now = errno;
  std::string message = state.path + ": " + std::string(doing) + ": " +
                        (state.db != nullptr ? sqlite3_errmsg(state.db) : sqlite3_errstr(rc));
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      message += " (another process kept the file locked for more than " + seconds_text(state.lock_wait_ms) +
                 " s; is a worker stuck, a backup or an sqlite3 shell holding it, or is the file on a network drive "
                 "that does not support locking?)";
      break;
    case SQLITE_IOERR: {
      // "disk I/O error" names no cause; the system's errno does (SQLite's own copy of it, or for a
      // failed write -- where SQLite keeps none -- errno as the failing call left it).
      int system_error = state.db != nullptr ? sqlite3_system_errno(state.db) : 0;
      if (system_error == 0 && rc == SQLITE_IOERR_WRITE) system_error = errno_now;
      if (system_error == EFBIG) {
        message += " (the file reached this process's file size limit, ulimit -f)";
      } else if (system_error == ENOSPC || system_error == EDQUOT) {
        message += " (the disk is full)";
      } else if (system_error != 0) {
        message += std::string(" (") + std::strerror(system_error) + ")";
      }
      break;
    }
    case SQLITE_READONLY:
      message += state.read_only ? " (this connection was opened read-only; open the file read-write to change it)"
                                 : " (the file or its folder is not writable)";
      break;
    case SQLITE_FULL: message += " (the disk is full)"; break;
    case SQLITE_CORRUPT:
      message += " (the file is damaged: `sqlite3 " + state.path +
                 " \"PRAGMA integrity_check\"` lists where, and the sqlite3 shell's .recover copies out what can "
                 "still be read; restore it from a copy if you have one)";
      break;
    case SQLITE_NOTADB: message += " (the file is damaged or is not an SQLite database)"; break;
    case SQLITE_TOOBIG: message += " (a single value may be at most 1 GB in SQLite)"; break;
    default: break;
  }
  throw DbError(message, rc);
}

std::string sqlite_file_name(const std::string& path) {
  if (path.rfind("file:", 0) == 0 || path.rfind(':', 0) == 0) return "./" + path;
  return path;
}

}  // namespace detail

namespace {

namespace fs = std::filesystem;

enum class FileKind { Missing, Directory, Empty, LooksLikeSqlite, NotSqlite };

// Looks at the file with plain reads, so a text file or random bytes is
// refused without SQLite ever opening it.
FileKind inspect_file(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  // Past "no such file": a name longer than NAME_MAX, a plain file used as a directory, a directory
  // without search permission. "Does not exist" (or SQLite's "unable to open") would hide why.
  if (error && error != std::errc::no_such_file_or_directory)
    throw DbError(path + ": cannot be looked up (" + error.message() + "); check the path (nothing was created)");
  if (error || !fs::exists(status)) return FileKind::Missing;
  if (fs::is_directory(status)) return FileKind::Directory;
  if (fs::file_size(path, error) == 0 && !error) return FileKind::Empty;
  static constexpr char kMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
  char header[16] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileKind::LooksLikeSqlite;  // unreadable: let SQLite report why
  in.read(header, sizeof header);
  if (in.gcount() != sizeof header) return FileKind::NotSqlite;
  return std::equal(std::begin(header), std::end(header), std::begin(kMagic)) ? FileKind::LooksLikeSqlite
                                                                              : FileKind::NotSqlite;
}

std::string not_ours(const std::string& path, const std::string& why) {
  return path + ": is not a Headroom experiments database (" + why +
         "); point Headroom at its own runs file or a new path. The file was not changed.";
}

// `uri`, when given, is what SQLite opens (with SQLITE_OPEN_URI in `flags`); `path` names the file.
std::unique_ptr<detail::ConnectionState> raw_open(const std::string& path, int flags, bool read_only,
                                                  const std::string& uri = "") {
  auto state = std::make_unique<detail::ConnectionState>();
  state->path = path;
  state->read_only = read_only;
  const std::string name = uri.empty() ? detail::sqlite_file_name(path) : uri;
  const int rc = sqlite3_open_v2(name.c_str(), &state->db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string reason = state->db != nullptr ? sqlite3_errmsg(state->db) : sqlite3_errstr(rc);
    sqlite3_close_v2(state->db);
    throw DbError(path + ": could not open the experiments database: " + reason, rc);
  }
  return state;
}

void db_config(detail::ConnectionState& state, int option, int value, const char* what) {
  int applied = -1;
  const int rc = sqlite3_db_config(state.db, option, value, &applied);
  if (rc != SQLITE_OK || applied != value) {
    throw DbError(state.path + ": this SQLite library cannot " + what + "; Headroom needs SQLite 3.35 or newer", rc);
  }
}

// SQLite calls this while a lock it needs is held elsewhere: retry (non-zero) until the
// connection's lock wait has passed, sleeping a little longer each time up to 50 ms.
int busy_handler(void* context, int count) {
  auto& state = *static_cast<detail::ConnectionState*>(context);
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) {
    state.wait_started = now;
    state.wait_noticed = false;
  }
  const int waited =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(now - state.wait_started).count());
  if (waited >= state.lock_wait_ms) return 0;
  if (state.on_long_wait && !state.wait_noticed && waited >= state.lock_notice_after_ms) {
    state.wait_noticed = true;
    state.on_long_wait(waited);
  }
  const int sleep_ms = std::min({1 << std::min(count, 5), 50, state.lock_wait_ms - waited});
  std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  return 1;
}

// Settings every connection gets before it reads anything from the file.
void harden(detail::ConnectionState& state, int lock_wait_ms = Connection::kBusyTimeoutMs) {
  sqlite3_extended_result_codes(state.db, 1);
  state.lock_wait_ms = std::max(0, lock_wait_ms);
  sqlite3_busy_handler(state.db, busy_handler, &state);
  db_config(state, SQLITE_DBCONFIG_DEFENSIVE, 1, "enable defensive mode");
  db_config(state, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "turn off trusted_schema");
  db_config(state, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "disable extension loading");
  db_config(state, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "disable triggers");
  db_config(state, SQLITE_DBCONFIG_ENABLE_VIEW, 0, "disable views");
  db_config(state, SQLITE_DBCONFIG_DQS_DML, 0, "disable double-quoted string literals");
  db_config(state, SQLITE_DBCONFIG_DQS_DDL, 0, "disable double-quoted string literals");
}

// Runs inspect_schema, turning "SQLite cannot read this" into the same
// "not a Headroom experiments database" message as for a text file.
SchemaProbe probe(Connection& connection) {
  try {
    return inspect_schema(connection);
  } catch (const DbError& error) {
    const int code = error.sqlite_code() & 0xFF;
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
      throw DbError(not_ours(connection.path(), "SQLite cannot read it: it is damaged or not an SQLite file"),
                    error.sqlite_code());
    }
    throw;
  }
}

// "file:/abs/path?immutable=1", the path's bytes outside [A-Za-z0-9/._~-] percent-encoded.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const unsigned char c : fs::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '~' || c == '-') {
      uri += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      uri += hex;
    }
  }
  return uri + "?immutable=1";
}

std::string query_text(Connection& connection, const char* sql) {
  Statement statement = connection.prepare(sql);
  return statement.step() ? statement.column_text(0) : std::string();
}

}  // namespace

Connection::Connection(std::unique_ptr<detail::ConnectionState> state) : state_(std::move(state)) {}

Connection::Connection(Connection&& other) noexcept = default;

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (state_) sqlite3_close_v2(state_->db);
    state_ = std::move(other.state_);
  }
  return *this;
}

Connection::~Connection() {
  if (state_) sqlite3_close_v2(state_->db);
}

Connection Connection::open(const std::string& path, OpenMode mode, int lock_wait_ms) {
  io::note_blocking_io("opening an experiments DB");
  if (path.empty()) throw DbError("experiments database path is empty; give a file such as runs.sqlite");

  const FileKind kind = inspect_file(path);
  switch (kind) {
    case FileKind::Directory:
      throw DbError(path + ": is a directory; give the path of an experiments database file such as " +
                    (fs::path(path) / "runs.sqlite").string());
    case FileKind::NotSqlite: throw DbError(not_ours(path, "it is not an SQLite file at all"));
    case FileKind::Missing:
      if (mode != OpenMode::Create) {
        throw DbError(path +
                      ": does not exist (nothing was created); check the path, or create the database "
                      "first, e.g. by enqueueing a suite with headroom-worker");
      }
      {
        // SQLite would say only "unable to open database file".
        const fs::path folder = fs::path(path).parent_path();
        std::error_code error;
        if (!folder.empty() && !fs::is_directory(folder, error))
          throw DbError(path + ": the folder " + folder.string() +
                        " does not exist; create it first or give a path in an existing folder (nothing was created)");
      }
      break;
    case FileKind::Empty:
      if (mode != OpenMode::Create) {
        throw DbError(path +
                      ": is an empty file, not a Headroom experiments database yet; headroom-worker run, enqueue "
                      "or train with --db " +
                      path + " makes it one (the file was not changed)");
      }
      break;
    case FileKind::LooksLikeSqlite: break;
  }

  // Inspect an existing file through a read-only connection first: a
  // read-write connection could change someone else's file on close (WAL
  // checkpoint, hot-journal rollback) before we even know it is not ours.
  if (kind == FileKind::LooksLikeSqlite) {
    // A WAL file in a folder this user may not write cannot be read as usual: SQLite must create
    // PATH-shm beside it. Where no changes wait in PATH-wal (a worker that closed cleanly leaves
    // none), the file alone is the whole database and is read as immutable; where some do, say so.
    auto open_reader = [&](const std::string& uri) {
      auto state = raw_open(path, SQLITE_OPEN_READONLY | (uri.empty() ? 0 : SQLITE_OPEN_URI), true, uri);
      harden(*state, lock_wait_ms);
      return Connection(std::move(state));
    };
    Connection reader = open_reader("");
    SchemaProbe found;
    try {
      found = probe(reader);
    } catch (const DbError& error) {
      const int code = error.sqlite_code() & 0xFF;
      const fs::path folder = fs::absolute(path).parent_path();
      if ((code != SQLITE_READONLY && code != SQLITE_CANTOPEN) || access(folder.c_str(), W_OK) == 0) throw;
      std::error_code size_error;
      const auto wal_bytes = fs::file_size(path + "-wal", size_error);
      if (!size_error && wal_bytes > 0)
        throw DbError(path + ": cannot be read by this user: its latest changes wait in " + path +
                          "-wal, which SQLite reads through an index file it must create beside it, and this user "
                          "may not create files in " +
                          folder.string() +
                          "; read it as a user who may, or copy the file and its -wal into a writable folder. The "
                          "file was not changed.",
                      error.sqlite_code());
      reader = open_reader(immutable_uri(path));
      found = probe(reader);
    }
    if (found.state == SchemaState::Empty && mode != OpenMode::Create) {
      throw DbError(path +
                    ": is an empty SQLite database, not a Headroom experiments database yet; headroom-worker "
                    "run, enqueue or train with --db " +
                    path + " makes it one (the file was not changed)");
    }
    if (mode == OpenMode::ReadOnly || mode == OpenMode::Source) {
      if (found.state == SchemaState::Older && mode == OpenMode::ReadOnly) {
        throw DbError(path + ": schema version " + std::to_string(found.version) +
                      " is older than this Headroom reads (" + std::to_string(kSchemaVersion) +
                      "); `headroom-worker merge NEW.sqlite " + path +
                      "` copies it into a current file and leaves it as it is, and a writing command on it "
                      "(headroom-worker run, enqueue or train --db) upgrades it in place");
      }
      reader.exec("PRAGMA foreign_keys = ON; PRAGMA cell_size_check = ON; PRAGMA query_only = ON");
      return reader;
    }
  }

  const int flags = SQLITE_OPEN_READWRITE | (mode == OpenMode::Create ? SQLITE_OPEN_CREATE : 0);
  auto state = raw_open(path, flags, false);
  // SQLite quietly opens a write-protected file read-only; say so now, not at the first write.
  if (sqlite3_db_readonly(state->db, "main") == 1) {
    sqlite3_close_v2(state->db);
    throw DbError(path +
                      ": is not writable by this user (or it sits on a read-only file system), and writing runs "
                      "needs that; fix its permissions or copy it somewhere writable. The file was not changed.",
                  SQLITE_READONLY);
  }
  harden(*state, lock_wait_ms);
  Connection writer(std::move(state));
  writer.exec("PRAGMA foreign_keys = ON; PRAGMA cell_size_check = ON");
  {
    // Decide again under the write lock: another process may have created or
    // migrated the file since we looked.
    Transaction transaction(writer, TransactionKind::Write);
    const SchemaProbe found = probe(writer);
    if (found.state == SchemaState::Empty && mode != OpenMode::Create) {
      throw DbError(path + ": is an empty SQLite database, not a Headroom experiments database yet");
    }
    if (found.state != SchemaState::Current) migrate_schema(writer, found.version);
    transaction.commit();
  }
  // WAL lets the GUI read while the worker writes. On file systems without
  // shared memory (some network drives) SQLite keeps the rollback journal,
  // which is slower for concurrent readers but still correct.
  if (query_text(writer, "PRAGMA journal_mode") != "wal") query_text(writer, "PRAGMA journal_mode = WAL");
  writer.exec("PRAGMA synchronous = NORMAL");
  return writer;
}

std::optional<int> Connection::older_schema(const std::string& path) {
  io::note_blocking_io("opening an experiments DB");
  if (inspect_file(path) != FileKind::LooksLikeSqlite) return std::nullopt;
  try {
    auto state = raw_open(path, SQLITE_OPEN_READONLY, true);
    harden(*state);
    Connection reader(std::move(state));
    const SchemaProbe found = inspect_schema(reader);
    if (found.state == SchemaState::Older) return found.version;
  } catch (const DbError&) {}
  return std::nullopt;
}

void Connection::exec(std::string_view sql) {
  io::note_blocking_io("SQL");
  const std::string text(sql);
  char* error = nullptr;
  const int rc = sqlite3_exec(state_->db, text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    const std::string reason = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    std::string shown = text.substr(0, 80);
    for (char& c : shown) c = (c == '\n' ? ' ' : c);
    detail::throw_sqlite_error(*state_, rc, "could not run \"" + shown + (text.size() > 80 ? "...\"" : "\""));
  }
}

Statement Connection::prepare(std::string_view sql) {
  io::note_blocking_io("SQL");
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(state_->db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    std::string shown(sql.substr(0, 80));
    for (char& c : shown) c = (c == '\n' ? ' ' : c);
    detail::throw_sqlite_error(*state_, rc, "could not prepare \"" + shown + "\"");
  }
  return Statement(stmt, state_.get());
}

std::int64_t Connection::data_version() {
  Statement statement = prepare("PRAGMA data_version");
  return statement.step() ? statement.column_int64(0) : 0;
}

std::int64_t Connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(state_->db); }

std::int64_t Connection::changes() const { return sqlite3_changes64(state_->db); }

bool Connection::in_transaction() const { return sqlite3_get_autocommit(state_->db) == 0; }

const std::string& Connection::path() const { return state_->path; }

bool Connection::read_only() const { return state_->read_only; }

void Connection::set_lock_wait(int wait_ms, int notice_after_ms, std::function<void(int waited_ms)> on_long_wait) {
  state_->lock_wait_ms = std::max(0, wait_ms);
  state_->lock_notice_after_ms = std::max(0, notice_after_ms);
  state_->on_long_wait = std::move(on_long_wait);
}

int Connection::lock_wait_ms() const { return state_->lock_wait_ms; }

}  // namespace headroom::db
