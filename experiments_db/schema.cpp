#include "experiments_db/schema.h"

#include <sqlite3.h>

#include <cstdio>
#include <string>

#include "experiments_db/connection.h"
#include "experiments_db/db_error.h"

namespace headroom::db {
namespace {

// Version 1. STRICT tables (SQLite >= 3.37) so a value of the wrong type is an
// error instead of being stored silently. Times are Unix seconds (REAL).
constexpr std::string_view kSchemaV1 = R"sql(
CREATE TABLE suites (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE CHECK (name <> ''),
  source_toml TEXT NOT NULL DEFAULT '',
  scale       TEXT NOT NULL DEFAULT '',
  created_at  REAL NOT NULL
) STRICT;

CREATE TABLE runs (
  id               INTEGER PRIMARY KEY,
  suite_id         INTEGER REFERENCES suites(id) ON DELETE SET NULL,
  name             TEXT NOT NULL UNIQUE CHECK (name <> ''),
  config_json      TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  worker           TEXT,
  seed             INTEGER NOT NULL DEFAULT 0,
  shard_key        INTEGER NOT NULL DEFAULT 0 CHECK (shard_key >= 0),
  param_count      INTEGER NOT NULL DEFAULT 0,
  current_step     INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  software_version TEXT NOT NULL DEFAULT '',
  error_text       TEXT,
  created_at       REAL NOT NULL,
  started_at       REAL,
  finished_at      REAL,
  heartbeat_at     REAL
) STRICT;
CREATE INDEX runs_by_status ON runs (status, id);
CREATE INDEX runs_by_suite ON runs (suite_id);

CREATE TABLE metric_series (
  id     INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name   TEXT NOT NULL CHECK (name <> ''),
  UNIQUE (run_id, name)
) STRICT;

-- Clustered on (series, step): a curve is one contiguous range of the b-tree.
-- value / wall_seconds NULL stand for NaN (SQLite cannot store NaN).
CREATE TABLE metrics (
  series_id    INTEGER NOT NULL REFERENCES metric_series(id) ON DELETE CASCADE,
  step         INTEGER NOT NULL CHECK (step >= 0),
  tokens       INTEGER NOT NULL DEFAULT 0,
  wall_seconds REAL,
  value        REAL,
  PRIMARY KEY (series_id, step)
) STRICT, WITHOUT ROWID;

-- Min/max pyramid over metrics so curve queries cost O(buckets), not
-- O(points); derived data, maintained by headroom_db (see metric_blocks.h).
-- Block b of level L covers the steps [b * 16^L, (b + 1) * 16^L - 1].
CREATE TABLE metric_blocks (
  series_id INTEGER NOT NULL REFERENCES metric_series(id) ON DELETE CASCADE,
  level     INTEGER NOT NULL CHECK (level >= 1),
  block     INTEGER NOT NULL,
  min_value REAL,
  max_value REAL,
  PRIMARY KEY (series_id, level, block)
) STRICT, WITHOUT ROWID;

CREATE TABLE artifacts (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step       INTEGER NOT NULL CHECK (step >= 0),
  kind       TEXT NOT NULL CHECK (kind <> ''),
  bytes      BLOB NOT NULL,
  created_at REAL NOT NULL,
  UNIQUE (run_id, kind, step)
) STRICT;
)sql";

// Version 2. Each series keeps its latest point and its minimum, so the explorer's run table
// reads one row per series instead of seeking into metrics and metric_blocks for every one
// (1.35 s -> a scan at 300,000 series). Derived data, maintained by headroom_db with the
// pyramid (refresh_series_summary in metric_blocks.h); last_step NULL: no points yet.
constexpr std::string_view kSchemaV2 = R"sql(
ALTER TABLE metric_series ADD COLUMN last_step INTEGER;
ALTER TABLE metric_series ADD COLUMN last_value REAL;
ALTER TABLE metric_series ADD COLUMN min_value REAL;
UPDATE metric_series SET
  last_step  = (SELECT max(step) FROM metrics WHERE series_id = metric_series.id),
  last_value = (SELECT value FROM metrics WHERE series_id = metric_series.id ORDER BY step DESC LIMIT 1),
  min_value  = (SELECT min(min_value) FROM metric_blocks WHERE series_id = metric_series.id AND level = 6);
)sql";

// Version 3. A series whose points are sparse (no 16-step block holds two of them, as when a run
// logs every 16 or more steps) need not store pyramid level 1: each of its blocks would copy one
// point. lowest_block_level says where its pyramid starts; the curve query reads the points in
// level 1's place. Merge and export write such series (metric_blocks.h): the shipped results
// export went from 26.9 to 20.8 MB. Version 2 files all start at level 1, which stays correct.
constexpr std::string_view kSchemaV3 = R"sql(
ALTER TABLE metric_series ADD COLUMN lowest_block_level INTEGER NOT NULL DEFAULT 1
  CHECK (lowest_block_level IN (1, 2));
)sql";

std::int64_t pragma_int(Connection& connection, const char* sql) {
  Statement statement = connection.prepare(sql);
  return statement.step() ? statement.column_int64(0) : 0;
}

std::string hex32(std::int64_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", static_cast<unsigned>(value & 0xFFFFFFFF));
  return text;
}

// Table names come from a file we do not trust; keep them printable and short
// before they reach a terminal.
std::string printable(const std::string& text) {
  std::string out;
  for (const char c : text) {
    out.push_back(c >= 0x20 && c < 0x7F ? c : '?');
    if (out.size() >= 40) return out + "...";
  }
  return out;
}

}  // namespace

const std::vector<std::string_view>& schema_migrations() {
  static const std::vector<std::string_view> migrations = {kSchemaV1, kSchemaV2, kSchemaV3};
  return migrations;
}

SchemaProbe inspect_schema(Connection& connection) {
  const std::string& path = connection.path();
  const std::int64_t application_id = pragma_int(connection, "PRAGMA application_id");
  const std::int64_t version = pragma_int(connection, "PRAGMA user_version");

  if (application_id == kApplicationId) {
    if (version > kSchemaVersion) {
      throw DbError(path + ": schema version " + std::to_string(version) +
                    " is newer than this Headroom understands (" + std::to_string(kSchemaVersion) +
                    "); open it with a newer headroom-worker. The file was not changed.");
    }
    if (version < 1) {
      throw DbError(path + ": has the Headroom application id but schema version " + std::to_string(version) +
                    " (expected 1.." + std::to_string(kSchemaVersion) +
                    "); the file is damaged or was not written by Headroom. The file was not changed.");
    }
    return {version < kSchemaVersion ? SchemaState::Older : SchemaState::Current, static_cast<int>(version)};
  }

  std::vector<std::string> tables;
  Statement list =
      connection.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name LIMIT 4");
  while (list.step()) tables.push_back(printable(list.column_text(0)));
  const bool empty = tables.empty() && pragma_int(connection, "SELECT count(*) FROM sqlite_schema") == 0;

  if (application_id == 0 && version == 0 && empty) return {SchemaState::Empty, 0};

  std::string what = path + ": is an SQLite database but not a Headroom experiments database (";
  if (application_id != 0) {
    what += "its application id " + hex32(application_id) + " belongs to another program, Headroom's is " +
            hex32(kApplicationId);
  } else {
    what += "it has no Headroom application id";
    if (!tables.empty()) {
      what += " and holds the tables ";
      for (std::size_t i = 0; i < tables.size(); ++i) what += (i == 0 ? "'" : ", '") + tables[i] + "'";
      if (tables.size() == 4) what += ", ...";
    }
  }
  throw DbError(what + "); point Headroom at its own runs file or a new path. The file was not changed.");
}

void migrate_schema(Connection& connection, int from_version) {
  const auto& migrations = schema_migrations();
  static_assert(kSchemaVersion >= 1);
  if (migrations.size() != static_cast<std::size_t>(kSchemaVersion)) {
    throw DbError("headroom_db was built with " + std::to_string(migrations.size()) +
                  " migrations but kSchemaVersion " + std::to_string(kSchemaVersion) + "; they must match");
  }
  for (int version = from_version; version < kSchemaVersion; ++version) {
    try {
      connection.exec(migrations[static_cast<std::size_t>(version)]);
    } catch (const DbError& e) {
      // A lock or a full disk says so itself; an SQL error here means the tables are not what the
      // version number says (e.g. "duplicate column name": they are already a later version's).
      if ((e.sqlite_code() & 0xFF) != SQLITE_ERROR) throw;
      const std::string what = e.what();
      const std::size_t reason_at = what.rfind("\": ");
      throw DbError(connection.path() + ": says it is schema version " + std::to_string(from_version) +
                        ", but upgrading it to version " + std::to_string(version + 1) + " failed (" +
                        (reason_at == std::string::npos ? what : what.substr(reason_at + 3)) +
                        "): its tables do not match the version it states, so a program other than Headroom "
                        "changed them or its version number (`sqlite3 FILE .schema` shows its tables). The file "
                        "was not changed.",
                    e.sqlite_code());
    }
  }
  connection.exec("PRAGMA application_id = " + std::to_string(kApplicationId) +
                  "; PRAGMA user_version = " + std::to_string(kSchemaVersion));
}

}  // namespace headroom::db
