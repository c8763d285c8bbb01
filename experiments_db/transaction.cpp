#include "experiments_db/transaction.h"

#include <sqlite3.h>

#include "experiments_db/connection.h"
#include "experiments_db/connection_state.h"
#include "experiments_db/db_error.h"

namespace headroom::db {
namespace {

void exec_or_throw(detail::ConnectionState& state, const std::string& sql, const char* doing) {
  const int rc = sqlite3_exec(state.db, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) detail::throw_sqlite_error(state, rc, doing);
}

}  // namespace

Transaction::Transaction(Connection& connection, TransactionKind kind) : state_(&connection.state()) {
  if (connection.in_transaction()) {
    savepoint_ = "headroom_savepoint_" + std::to_string(++state_->savepoint_counter);
    exec_or_throw(*state_, "SAVEPOINT " + savepoint_, "could not open a nested transaction");
  } else if (kind == TransactionKind::Write) {
    exec_or_throw(*state_, "BEGIN IMMEDIATE", "could not start a write transaction");
  } else {
    exec_or_throw(*state_, "BEGIN DEFERRED", "could not start a read transaction");
  }
}

Transaction::~Transaction() {
  if (finished_) return;
  // Errors are ignored: SQLite may already have rolled back on its own (e.g.
  // after a disk-full error), and destructors must not throw.
  if (savepoint_.empty()) {
    sqlite3_exec(state_->db, "ROLLBACK", nullptr, nullptr, nullptr);
  } else {
    const std::string sql = "ROLLBACK TO " + savepoint_ + "; RELEASE " + savepoint_;
    sqlite3_exec(state_->db, sql.c_str(), nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  if (finished_) throw DbError(state_->path + ": commit() called twice on the same transaction");
  if (savepoint_.empty()) {
    exec_or_throw(*state_, "COMMIT", "could not commit");
  } else {
    exec_or_throw(*state_, "RELEASE " + savepoint_, "could not commit a nested transaction");
  }
  finished_ = true;
}

}  // namespace headroom::db
