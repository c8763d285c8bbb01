// Opening rules of experiments databases, hardening, transactions, statements.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include "experiments_db/connection.h"
#include "tests/db/db_test_util.h"
#include "experiments_db/db_error.h"
#include "experiments_db/run_store.h"
#include "experiments_db/schema.h"
#include "experiments_db/transaction.h"

namespace headroom::db {
namespace {

using testing::bytes_of;
using testing::read_bytes;
using testing::TempDir;

namespace fs = std::filesystem;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// Writes with the raw C API, bypassing every Headroom check.
void raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

std::string query_text(Connection& connection, const char* sql) {
  Statement statement = connection.prepare(sql);
  EXPECT_TRUE(statement.step()) << sql;
  return statement.column_text(0);
}

std::int64_t query_int(Connection& connection, const char* sql) {
  Statement statement = connection.prepare(sql);
  EXPECT_TRUE(statement.step()) << sql;
  return statement.column_int64(0);
}

// Opening `path` in `mode` must throw a DbError whose message contains every
// one of `fragments`.
void expect_refused(const std::string& path, OpenMode mode, std::initializer_list<std::string> fragments) {
  try {
    Connection::open(path, mode);
    ADD_FAILURE() << path << " was opened but should have been refused";
  } catch (const DbError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    for (const std::string& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos) << "missing '" << fragment << "' in: " << message;
    }
  }
}

constexpr OpenMode kAllModes[] = {OpenMode::ReadOnly, OpenMode::ReadWrite, OpenMode::Create};

NewRun simple_run(const std::string& name) {
  NewRun run;
  run.name = name;
  run.config_json = R"({"heads": 8})";
  return run;
}

TEST(Open, CreateMakesCurrentSchemaInWalMode) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  Connection connection = Connection::open(path, OpenMode::Create);
  EXPECT_EQ(query_int(connection, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(query_int(connection, "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(query_text(connection, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(query_int(connection, "PRAGMA foreign_keys"), 1);
  EXPECT_FALSE(connection.read_only());
  EXPECT_EQ(connection.path(), path);
}

TEST(Open, ReopenKeepsDataInEveryMode) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  {
    Connection connection = Connection::open(path, OpenMode::Create);
    RunStore(connection).enqueue_run(simple_run("a"));
  }
  for (OpenMode mode : kAllModes) {
    Connection connection = Connection::open(path, mode);
    const auto runs = RunStore(connection).list_runs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].name, "a");
    EXPECT_EQ(query_int(connection, "PRAGMA user_version"), kSchemaVersion);
  }
}

TEST(Open, MissingFileIsRefusedAndNotCreated) {
  TempDir dir;
  const std::string path = dir.path("absent.sqlite");
  expect_refused(path, OpenMode::ReadOnly, {"does not exist"});
  expect_refused(path, OpenMode::ReadWrite, {"does not exist"});
  EXPECT_FALSE(fs::exists(path));
}

TEST(Open, DirectoryIsRefused) {
  TempDir dir;
  const std::string path = dir.path("folder");
  fs::create_directory(path);
  for (OpenMode mode : kAllModes) expect_refused(path, mode, {"is a directory"});
}

// A path the file system cannot look up (a name past NAME_MAX, a file used as a directory) says
// what the file system said, in every mode, instead of "does not exist" or SQLite's generic
// "unable to open database file"; nothing is created.
TEST(Open, APathTheFileSystemCannotLookUpSaysWhy) {
  TempDir dir;
  const std::string too_long = dir.path(std::string(300, 'r') + ".sqlite");
  for (OpenMode mode : kAllModes)
    expect_refused(too_long, mode, {too_long + ": cannot be looked up (File name too long)"});
  const std::string file = dir.path("plain.txt");
  write_bytes(file, "text");
  for (OpenMode mode : kAllModes)
    expect_refused(file + "/runs.sqlite", mode, {file + "/runs.sqlite: cannot be looked up (Not a directory)"});
  EXPECT_EQ(read_bytes(file), "text");
}

TEST(Open, NewerSchemaVersionIsRefusedAndFileUnchanged) {
  TempDir dir;
  const std::string path = dir.path("future.sqlite");
  { Connection::open(path, OpenMode::Create); }
  raw_exec(path, "PRAGMA user_version = " + std::to_string(kSchemaVersion + 6));
  const std::string before = read_bytes(path);
  for (OpenMode mode : kAllModes) {
    expect_refused(path, mode,
                   {"schema version " + std::to_string(kSchemaVersion + 6) + " is newer",
                    "(" + std::to_string(kSchemaVersion) + ")", "newer headroom-worker"});
  }
  EXPECT_EQ(read_bytes(path), before);
}

// A version-1 file, as the worker wrote it before the series summaries existed: the current
// schema with the columns version 2 added dropped again.
void write_version_1_db(const std::string& path) {
  {
    Connection connection = Connection::open(path, OpenMode::Create);
    RunStore store(connection);
    const std::int64_t a = store.enqueue_run(simple_run("a"));
    const std::int64_t b = store.enqueue_run(simple_run("b"));
    store.enqueue_run(simple_run("silent"));
    std::vector<MetricRow> rows;
    for (int s = 0; s < 300; ++s) rows.push_back({"val_loss", s, 0, 0, 5.0 - s * 0.01 + (s == 77 ? -3.0 : 0.0)});
    rows.push_back({"train_loss", 299, 0, 0, 2.0});
    store.append_metrics(a, rows);
    store.append_metrics(b, {{"val_loss", 4, 0, 0, std::nan("")}, {"lr", 4, 0, 0, 0.1}});
  }
  raw_exec(path, testing::kDowngradeToVersion1);
}

TEST(Open, Version1IsUpgradedInPlaceWithItsSeriesSummaries) {
  TempDir dir;
  const std::string path = dir.path("v1.sqlite");
  write_version_1_db(path);
  // A reader cannot upgrade: it says who can, and leaves the file alone.
  const std::string before = read_bytes(path);
  expect_refused(path, OpenMode::ReadOnly, {"schema version 1 is older", "headroom-worker"});
  EXPECT_EQ(read_bytes(path), before);

  { Connection::open(path, OpenMode::ReadWrite); }  // the writer upgrades
  Connection connection = Connection::open(path, OpenMode::ReadOnly);
  EXPECT_EQ(query_int(connection, "PRAGMA user_version"), kSchemaVersion);
  RunStore store(connection);
  const auto a = store.find_run("a").value().id, b = store.find_run("b").value().id;
  const auto summaries = store.metric_summaries("val_loss");
  EXPECT_EQ(summaries.size(), 2u);  // "silent" logged nothing
  EXPECT_DOUBLE_EQ(summaries.at(a).min_of_metric, 5.0 - 0.77 - 3.0);
  EXPECT_DOUBLE_EQ(summaries.at(a).latest.at("val_loss"), 5.0 - 2.99);
  EXPECT_DOUBLE_EQ(summaries.at(a).latest.at("train_loss"), 2.0);
  EXPECT_TRUE(std::isnan(summaries.at(b).min_of_metric));
  EXPECT_TRUE(std::isnan(summaries.at(b).latest.at("val_loss")));
  EXPECT_DOUBLE_EQ(summaries.at(b).latest.at("lr"), 0.1);
  EXPECT_EQ(store.list_runs().size(), 3u);
}

TEST(Open, AVersionNumberItsTablesContradictIsRefusedAndTheFileUnchanged) {
  // A current file whose version number was set back to 1: upgrading it would add columns it has.
  TempDir dir;
  const std::string path = dir.path("relabelled.sqlite");
  {
    Connection connection = Connection::open(path, OpenMode::Create);
    RunStore(connection).enqueue_run(simple_run("a"));
  }
  raw_exec(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 1");
  const std::string before = read_bytes(path);
  expect_refused(path, OpenMode::ReadWrite,
                 {"says it is schema version 1, but upgrading it to version 2 failed (duplicate column name",
                  "its tables do not match the version it states", "The file was not changed."});
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Open, TextFileIsRefusedAndUnchanged) {
  TempDir dir;
  const std::string path = dir.path("notes.txt");
  std::string text;
  for (int i = 0; i < 100; ++i) text += "line " + std::to_string(i) + ": this is not a database\n";
  write_bytes(path, text);
  for (OpenMode mode : kAllModes) {
    expect_refused(path, mode, {"is not a Headroom experiments database", "not an SQLite file"});
  }
  EXPECT_EQ(read_bytes(path), text);
}

TEST(Open, RandomBytesAreRefusedAndUnchanged) {
  TempDir dir;
  std::mt19937 random(12345);
  std::string noise(16384, '\0');
  for (char& c : noise) c = static_cast<char>(random() & 0xFF);
  // Plain noise, and noise behind a valid SQLite magic string (so that SQLite
  // itself has to reject it, not just the header check).
  const std::string magic("SQLite format 3\0", 16);
  for (const std::string& bytes : {noise, magic + noise}) {
    const std::string path = dir.path("noise.bin");
    write_bytes(path, bytes);
    for (OpenMode mode : kAllModes) expect_refused(path, mode, {"is not a Headroom experiments database"});
    EXPECT_EQ(read_bytes(path), bytes);
  }
}

TEST(Open, ForeignSqliteDatabaseIsRefusedAndUnchanged) {
  TempDir dir;
  const std::string path = dir.path("other_app.sqlite");
  raw_exec(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x');");
  const std::string before = read_bytes(path);
  for (OpenMode mode : kAllModes) {
    expect_refused(path, mode, {"not a Headroom experiments database", "'notes'", "not changed"});
  }
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-journal"));
}

TEST(Open, ForeignWalDatabaseIsRefusedWithoutCheckpointingIt) {
  // Another program crashed with committed data still in its -wal file. A
  // read-write connection closing on it would checkpoint that data into the
  // main file; Headroom must look without writing.
  TempDir dir;
  const std::string live = dir.path("live.sqlite");
  const std::string path = dir.path("crashed.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(live.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; "
                         "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('in the wal only');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  fs::copy_file(live, path);
  fs::copy_file(live + "-wal", path + "-wal");
  sqlite3_close(db);
  const std::string main_before = read_bytes(path);
  const std::string wal_before = read_bytes(path + "-wal");
  ASSERT_FALSE(wal_before.empty());
  for (OpenMode mode : kAllModes) expect_refused(path, mode, {"not a Headroom experiments database", "'notes'"});
  EXPECT_EQ(read_bytes(path), main_before);
  EXPECT_EQ(read_bytes(path + "-wal"), wal_before);
}

TEST(Open, ForeignApplicationIdIsRefusedAndUnchanged) {
  TempDir dir;
  const std::string path = dir.path("fossil.sqlite");
  raw_exec(path, "PRAGMA application_id = 252006673; CREATE TABLE blob (rid INTEGER PRIMARY KEY);");
  const std::string before = read_bytes(path);
  for (OpenMode mode : kAllModes) expect_refused(path, mode, {"application id 0x0F055111", "another program"});
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Open, EmptyFileIsCreatedOnlyWithCreate) {
  TempDir dir;
  const std::string path = dir.path("empty.sqlite");
  write_bytes(path, "");
  expect_refused(path, OpenMode::ReadOnly, {"empty file"});
  expect_refused(path, OpenMode::ReadWrite, {"empty file"});
  EXPECT_EQ(fs::file_size(path), 0u);
  Connection connection = Connection::open(path, OpenMode::Create);
  EXPECT_EQ(query_int(connection, "PRAGMA user_version"), kSchemaVersion);
}

TEST(Open, PathsThatLookLikeUrisAreOrdinaryFiles) {
  TempDir dir;
  const fs::path old_cwd = fs::current_path();
  fs::current_path(dir.path(""));
  {
    Connection connection = Connection::open("file:runs.sqlite?mode=memory", OpenMode::Create);
    RunStore(connection).enqueue_run(simple_run("a"));
  }
  EXPECT_TRUE(fs::exists("file:runs.sqlite?mode=memory"));
  fs::current_path(old_cwd);
}

TEST(Open, ConnectionsAreHardened) {
  TempDir dir;
  Connection connection = Connection::open(dir.path("runs.sqlite"), OpenMode::Create);
  EXPECT_EQ(query_int(connection, "PRAGMA trusted_schema"), 0);
  try {
    connection.exec("SELECT load_extension('/nonexistent/evil.so')");
    ADD_FAILURE() << "load_extension() is callable";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("not authorized"), std::string::npos) << error.what();
  }
  // Defensive mode: the schema cannot be edited as data.
  EXPECT_THROW(connection.exec("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = ''"), DbError);
}

TEST(Open, ReadOnlyConnectionCannotWrite) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  { Connection::open(path, OpenMode::Create); }
  Connection reader = Connection::open(path, OpenMode::ReadOnly);
  EXPECT_TRUE(reader.read_only());
  EXPECT_THROW(reader.exec("INSERT INTO suites (name, created_at) VALUES ('s', 0)"), DbError);
  RunStore store(reader);
  try {
    store.enqueue_run(simple_run("a"));
    ADD_FAILURE() << "a read-only store enqueued a run";
  } catch (const DbError& error) {
    EXPECT_NE(std::string(error.what()).find("read-only"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(store.list_runs().empty());
  Connection writer = Connection::open(path, OpenMode::ReadWrite);
  EXPECT_TRUE(RunStore(writer).list_runs().empty());
}

TEST(Open, AWriterWaitsForALockAsLongAsItsLockWaitAndSaysSoOnce) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  Connection holder = Connection::open(path, OpenMode::Create);
  Connection writer = Connection::open(path, OpenMode::ReadWrite);
  EXPECT_EQ(writer.lock_wait_ms(), Connection::kBusyTimeoutMs);
  std::vector<int> notices;
  writer.set_lock_wait(400, 100, [&](int waited_ms) { notices.push_back(waited_ms); });

  // Held past the lock wait: the write fails with SQLITE_BUSY and a message naming the wait.
  holder.exec("BEGIN IMMEDIATE");
  const auto started = std::chrono::steady_clock::now();
  try {
    RunStore(writer).enqueue_run(simple_run("a"));
    ADD_FAILURE() << "wrote through another connection's lock";
  } catch (const DbError& error) {
    EXPECT_EQ(error.sqlite_code() & 0xFF, 5) << error.what();  // SQLITE_BUSY
    EXPECT_NE(std::string(error.what()).find("locked for more than 0.4 s"), std::string::npos) << error.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(400));
  ASSERT_EQ(notices.size(), 1u) << "one notice per wait";
  EXPECT_GE(notices[0], 100);

  // Released within the wait: the write goes through.
  writer.set_lock_wait(10000, 100, [&](int waited_ms) { notices.push_back(waited_ms); });
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    holder.exec("ROLLBACK");
  });
  RunStore(writer).enqueue_run(simple_run("b"));
  release.join();
  EXPECT_EQ(notices.size(), 2u);
  EXPECT_EQ(RunStore(holder).list_runs().size(), 1u);
}

TEST(Open, ReaderSeesDataVersionChangeAfterAnotherConnectionWrites) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  Connection writer = Connection::open(path, OpenMode::Create);
  Connection reader = Connection::open(path, OpenMode::ReadOnly);
  const std::int64_t before = reader.data_version();
  EXPECT_EQ(reader.data_version(), before);
  RunStore(writer).enqueue_run(simple_run("a"));
  EXPECT_NE(reader.data_version(), before);
  EXPECT_EQ(RunStore(reader).list_runs().size(), 1u);
}

std::int64_t suite_count(Connection& connection) { return query_int(connection, "SELECT count(*) FROM suites"); }

void insert_suite(Connection& connection, const std::string& name) {
  connection.prepare("INSERT INTO suites (name, created_at) VALUES (?, 0)").bind(1, name).step();
}

TEST(Transaction, RollsBackUnlessCommitted) {
  TempDir dir;
  Connection connection = Connection::open(dir.path("runs.sqlite"), OpenMode::Create);
  {
    Transaction transaction(connection);
    insert_suite(connection, "dropped");
    EXPECT_TRUE(connection.in_transaction());
  }
  EXPECT_FALSE(connection.in_transaction());
  EXPECT_EQ(suite_count(connection), 0);
  try {
    Transaction transaction(connection);
    insert_suite(connection, "dropped too");
    throw std::runtime_error("simulated failure");
  } catch (const std::runtime_error&) {}
  EXPECT_EQ(suite_count(connection), 0);
  {
    Transaction transaction(connection);
    insert_suite(connection, "kept");
    transaction.commit();
    EXPECT_THROW(transaction.commit(), DbError);
  }
  EXPECT_EQ(suite_count(connection), 1);
}

TEST(Transaction, NestedTransactionsAreSavepoints) {
  TempDir dir;
  Connection connection = Connection::open(dir.path("runs.sqlite"), OpenMode::Create);
  {
    Transaction outer(connection);
    insert_suite(connection, "outer");
    {
      Transaction inner(connection);
      insert_suite(connection, "inner, rolled back");
    }
    EXPECT_EQ(suite_count(connection), 1);
    outer.commit();
  }
  EXPECT_EQ(suite_count(connection), 1);
  {
    Transaction outer(connection);
    {
      Transaction inner(connection);
      insert_suite(connection, "inner, committed, but the outer rolls back");
      inner.commit();
    }
  }
  EXPECT_EQ(suite_count(connection), 1);
}

TEST(Statement, RoundTripsValuesIncludingNanAndEmptyBlob) {
  TempDir dir;
  Connection connection = Connection::open(dir.path("runs.sqlite"), OpenMode::Create);
  connection.exec("CREATE TEMP TABLE t (i INTEGER, d REAL, s TEXT, b BLOB)");
  const std::string text("a\0b", 3);
  connection.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
      .bind(1, 1234567890123LL)
      .bind(2, std::nan(""))
      .bind(3, text)
      .bind(4, BlobView(Blob{}))
      .step();
  Statement select = connection.prepare("SELECT i, d, s, b, typeof(b) FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.column_int64(0), 1234567890123LL);
  EXPECT_TRUE(select.column_is_null(1));
  EXPECT_TRUE(std::isnan(select.column_nullable_double(1)));
  EXPECT_EQ(select.column_text(2), text);
  EXPECT_TRUE(select.column_blob(3).empty());
  EXPECT_EQ(select.column_text(4), "blob");
  EXPECT_FALSE(select.step());
}

TEST(Statement, ErrorsNameTheFileAndTheStatement) {
  TempDir dir;
  const std::string path = dir.path("runs.sqlite");
  Connection connection = Connection::open(path, OpenMode::Create);
  try {
    connection.prepare("SELECT * FROM no_such_table");
    ADD_FAILURE() << "prepared a query on a missing table";
  } catch (const DbError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("no_such_table"), std::string::npos) << message;
  }
}

TEST(RunStatus, StringsRoundTrip) {
  for (RunStatus status :
       {RunStatus::Queued, RunStatus::Running, RunStatus::Done, RunStatus::Failed, RunStatus::Cancelled}) {
    EXPECT_EQ(parse_run_status(to_string(status)), status);
  }
  EXPECT_EQ(to_string(RunStatus::Cancelled), "cancelled");
  EXPECT_FALSE(run_status_from_string("finished"));
  EXPECT_THROW(parse_run_status("finished"), DbError);
}

}  // namespace
}  // namespace headroom::db
