// The versioned schema of an experiments database and its forward migrations.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace headroom::db {

class Connection;

// PRAGMA application_id of every Headroom experiments database ("HdRm").
// Together with PRAGMA user_version it is how a file is recognised as ours;
// both live in the SQLite header, so checking them reads no table data.
inline constexpr std::int32_t kApplicationId = 0x4864526D;

// PRAGMA user_version written by this build. Version 0 means "not a Headroom
// database yet". Bump it by appending a migration; never edit a released one.
inline constexpr int kSchemaVersion = 3;

// Element i upgrades a database from version i to version i + 1 (element 0
// creates the schema in an empty file). Each runs in the same transaction as
// the user_version bump, so a crash mid-migration leaves the old version.
const std::vector<std::string_view>& schema_migrations();

enum class SchemaState { Empty, Older, Current };

struct SchemaProbe {
  SchemaState state = SchemaState::Empty;
  int version = 0;
};

// Reads application_id, user_version and the table list. Throws a DbError for
// anything that must not be touched: another program's database, a newer
// Headroom's database, a damaged header. Never writes.
SchemaProbe inspect_schema(Connection& connection);

// Applies migrations from `from_version` up to kSchemaVersion and sets
// application_id and user_version. Call inside a write Transaction.
void migrate_schema(Connection& connection, int from_version);

}  // namespace headroom::db
