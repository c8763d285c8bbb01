#include "experiments_db/statement.h"

#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <utility>

#include "experiments_db/connection_state.h"
#include "experiments_db/db_error.h"

namespace headroom::db {
namespace {

// SQL shortened to one line for error messages (the curve query is 20 lines).
std::string sql_for_message(const char* text) {
  std::string out;
  for (const char* c = text; c != nullptr && *c != '\0'; ++c) {
    const bool space = *c == ' ' || *c == '\n' || *c == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out.push_back(space ? ' ' : *c);
    if (out.size() >= 120) return out + "...";
  }
  return out;
}

}  // namespace

Statement::Statement(sqlite3_stmt* stmt, const detail::ConnectionState* owner) : stmt_(stmt), owner_(owner) {}

Statement::Statement(Statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)), owner_(other.owner_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    finalize();
    stmt_ = std::exchange(other.stmt_, nullptr);
    owner_ = other.owner_;
  }
  return *this;
}

Statement::~Statement() { finalize(); }

void Statement::finalize() noexcept {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  stmt_ = nullptr;
}

void Statement::check_bind(int rc, int index) {
  if (rc != SQLITE_OK) {
    detail::throw_sqlite_error(*owner_, rc,
                               "could not bind parameter " + std::to_string(index) + " of \"" + sql() + "\"");
  }
}

Statement& Statement::bind_int64(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  // SQLite itself turns NaN into NULL; doing it here keeps that explicit.
  if (std::isnan(value)) return bind(index, nullptr);
  check_bind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  check_bind(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8), index);
  return *this;
}

Statement& Statement::bind(int index, BlobView bytes) {
  // A zero-length blob with a null pointer would bind NULL; keep it a blob.
  static const std::uint8_t kEmpty = 0;
  const void* data = bytes.data != nullptr ? bytes.data : &kEmpty;
  check_bind(sqlite3_bind_blob64(stmt_, index, data, bytes.size, SQLITE_STATIC), index);
  return *this;
}

Statement& Statement::bind(int index, std::nullptr_t) {
  check_bind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

Statement& Statement::bind_column(int index, const Statement& source, int column) {
  check_bind(sqlite3_bind_value(stmt_, index, sqlite3_column_value(source.stmt_, column)), index);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // Take the message before reset() can replace it.
  const std::string doing = "could not run \"" + sql() + "\"";
  try {
    detail::throw_sqlite_error(*owner_, rc, doing);
  } catch (...) {
    sqlite3_reset(stmt_);
    throw;
  }
}

void Statement::reset() { sqlite3_reset(stmt_); }

void Statement::clear_bindings() { sqlite3_clear_bindings(stmt_); }

bool Statement::column_is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::int64_t Statement::column_int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

double Statement::column_nullable_double(int column) const {
  if (column_is_null(column)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::column_text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (text == nullptr) return {};
  return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

Blob Statement::column_blob(int column) const {
  const auto* bytes = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt_, column));
  const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
  if (bytes == nullptr) return {};
  return Blob(bytes, bytes + size);
}

std::optional<std::int64_t> Statement::column_optional_int64(int column) const {
  if (column_is_null(column)) return std::nullopt;
  return column_int64(column);
}

std::optional<double> Statement::column_optional_double(int column) const {
  if (column_is_null(column)) return std::nullopt;
  return column_double(column);
}

std::int64_t Statement::vm_steps() const { return sqlite3_stmt_status(stmt_, SQLITE_STMTSTATUS_VM_STEP, 0); }

std::string Statement::sql() const { return sql_for_message(stmt_ != nullptr ? sqlite3_sql(stmt_) : nullptr); }

}  // namespace headroom::db
