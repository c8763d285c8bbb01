// Scoped transaction: rolls back unless commit() is called.
#pragma once

#include <string>

namespace headroom::db {

class Connection;
namespace detail {
struct ConnectionState;
}

enum class TransactionKind {
  // BEGIN IMMEDIATE: takes the write lock up front (waiting up to the busy
  // timeout), so the transaction can never fail half-way with "database is
  // locked" when it first writes. Use for anything that writes.
  Write,
  // BEGIN DEFERRED: a consistent snapshot for several reads (WAL readers never
  // block the writer). Do not write inside it.
  Read,
};

// Transactions nest: a Transaction opened while another is active on the same
// connection becomes a SAVEPOINT, so RunStore methods that use their own
// transaction can also run inside one held by the caller (e.g. metrics and a
// checkpoint committed together). Nested commit() only takes effect when the
// outermost transaction commits.
//
// The destructor rolls back if commit() was not reached (early return or
// exception) and never throws. Not movable; keep it on the stack.
class Transaction {
 public:
  explicit Transaction(Connection& connection, TransactionKind kind = TransactionKind::Write);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  void commit();

 private:
  detail::ConnectionState* state_;
  std::string savepoint_;  // empty for the outermost transaction
  bool finished_ = false;
};

}  // namespace headroom::db
