// Move-only RAII wrapper over one prepared sqlite3_stmt.
#pragma once

#include <cstdint>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "experiments_db/blob.h"

struct sqlite3_stmt;

namespace headroom::db {

namespace detail {
struct ConnectionState;
}

// A compiled SQL statement. Obtain one from Connection::prepare. It is
// finalized in the destructor; it must not outlive its Connection.
//
// Parameter indexes are 1-based (SQLite's convention), column indexes 0-based.
// Text is copied when bound; blobs are NOT copied (see BlobView), so the bytes
// must stay alive until step() has returned false or reset() was called.
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, const detail::ConnectionState* owner);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  // Without this overload a string literal would convert to bool.
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, BlobView bytes);
  Statement& bind(int index, std::nullptr_t);
  // The value of `source`'s column (of its current row) as it is: integer, real, text, blob or
  // NULL, copied. For copying rows between databases whatever their columns hold.
  Statement& bind_column(int index, const Statement& source, int column);
  // Every integer type binds as a 64-bit integer (avoids int/double ambiguity).
  template <class Int, std::enable_if_t<std::is_integral_v<Int>, int> = 0>
  Statement& bind(int index, Int value) {
    return bind_int64(index, static_cast<std::int64_t>(value));
  }
  // An empty optional binds NULL.
  template <class T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, nullptr);
  }

  // Runs the statement to its next row. Returns true when a row is available
  // through the column accessors, false when the statement has finished.
  bool step();
  // Rewinds so the statement can run again; bindings are kept.
  void reset();
  // Sets every parameter back to NULL.
  void clear_bindings();

  bool column_is_null(int column) const;
  std::int64_t column_int64(int column) const;
  // NULL reads as 0.0; use column_nullable_double for columns where NULL means NaN.
  double column_double(int column) const;
  // NULL reads as NaN. SQLite stores NaN as NULL, so this restores it.
  double column_nullable_double(int column) const;
  std::string column_text(int column) const;
  Blob column_blob(int column) const;
  std::optional<std::int64_t> column_optional_int64(int column) const;
  std::optional<double> column_optional_double(int column) const;

  // Virtual-machine instructions executed since the statement was prepared: a
  // deterministic measure of how much work a query did.
  std::int64_t vm_steps() const;

  // The SQL text on one line, shortened, for messages.
  std::string sql() const;

 private:
  Statement& bind_int64(int index, std::int64_t value);
  void check_bind(int rc, int index);
  void finalize() noexcept;

  sqlite3_stmt* stmt_ = nullptr;
  const detail::ConnectionState* owner_ = nullptr;
};

}  // namespace headroom::db
