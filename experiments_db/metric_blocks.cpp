#include "experiments_db/metric_blocks.h"

#include <vector>

#include "experiments_db/connection.h"

namespace headroom::db::detail {

static_assert(kBlockFanoutBits == 4, "the SQL below spells the fan-out as 16 and >> 4");

namespace {

int lowest_block_level(Connection& connection, std::int64_t series_id) {
  Statement select = connection.prepare("SELECT lowest_block_level FROM metric_series WHERE id = ?");
  select.bind(1, series_id);
  return select.step() ? static_cast<int>(select.column_int64(0)) : 1;
}

// True when one of the given 16-step blocks holds two or more points: a series starting at
// level 2 would then read up to 256 points per bucket edge instead of 16.
bool any_block_dense(Connection& connection, std::int64_t series_id, const std::set<std::int64_t>& level1_blocks) {
  Statement count =
      connection.prepare("SELECT count(*) FROM metrics WHERE series_id = ?1 AND step BETWEEN ?2 * 16 AND ?2 * 16 + 15");
  for (const std::int64_t block : level1_blocks) {
    count.bind(1, series_id).bind(2, block);
    const bool dense = count.step() && count.column_int64(0) > 1;
    count.reset();
    if (dense) return true;
  }
  return false;
}

}  // namespace

void refresh_metric_blocks(Connection& connection, std::int64_t series_id, std::set<std::int64_t> level1_blocks) {
  if (level1_blocks.empty()) return;
  const int lowest = lowest_block_level(connection, series_id);
  if (lowest > 1 && any_block_dense(connection, series_id, level1_blocks)) {
    rebuild_metric_blocks(connection, series_id);  // densely logged now: level 1 pays again
    return;
  }
  // ?1 series, ?2 level, ?3 block. "WHERE" before ON CONFLICT is required by
  // SQLite's grammar for INSERT ... SELECT upserts.
  Statement from_points = connection.prepare(
      "INSERT INTO metric_blocks (series_id, level, block, min_value, max_value) "
      "SELECT ?1, ?2, ?3, min(value), max(value) FROM metrics "
      "WHERE series_id = ?1 AND step BETWEEN ?3 << (4 * ?2) AND ((?3 + 1) << (4 * ?2)) - 1 "
      "ON CONFLICT (series_id, level, block) DO UPDATE SET "
      "min_value = excluded.min_value, max_value = excluded.max_value");
  Statement from_blocks = connection.prepare(
      "INSERT INTO metric_blocks (series_id, level, block, min_value, max_value) "
      "SELECT ?1, ?2, ?3, min(min_value), max(max_value) FROM metric_blocks "
      "WHERE series_id = ?1 AND level = ?2 - 1 AND block BETWEEN ?3 * 16 AND ?3 * 16 + 15 "
      "ON CONFLICT (series_id, level, block) DO UPDATE SET "
      "min_value = excluded.min_value, max_value = excluded.max_value");
  std::set<std::int64_t> blocks = std::move(level1_blocks);
  for (int level = 1; level <= kBlockLevels; ++level) {
    if (level >= lowest) {
      Statement& upsert = level == lowest ? from_points : from_blocks;
      for (const std::int64_t block : blocks) {
        upsert.bind(1, series_id).bind(2, level).bind(3, block);
        upsert.step();
        upsert.reset();
      }
    }
    std::set<std::int64_t> parents;
    for (const std::int64_t block : blocks) parents.insert(block >> kBlockFanoutBits);
    blocks = std::move(parents);
  }
  refresh_series_summary(connection, series_id);
}

void refresh_series_summary(Connection& connection, std::int64_t series_id) {
  // The top level's blocks cover every step, so their minimum is the series' (NaN-free) minimum.
  Statement update = connection.prepare(
      "UPDATE metric_series SET "
      "last_step = (SELECT max(step) FROM metrics WHERE series_id = ?1), "
      "last_value = (SELECT value FROM metrics WHERE series_id = ?1 ORDER BY step DESC LIMIT 1), "
      "min_value = (SELECT min(min_value) FROM metric_blocks WHERE series_id = ?1 AND level = ?2) "
      "WHERE id = ?1");
  update.bind(1, series_id).bind(2, static_cast<std::int64_t>(kBlockLevels)).step();
}

void rebuild_metric_blocks(Connection& connection, std::int64_t series_id) {
  connection.prepare("DELETE FROM metric_blocks WHERE series_id = ?").bind(1, series_id).step();
  // Level 1 only where some 16-step block holds two points; else each of its blocks would copy a point.
  Statement sparse = connection.prepare("SELECT count(*) = count(DISTINCT step >> 4) FROM metrics WHERE series_id = ?");
  sparse.bind(1, series_id);
  const int lowest = sparse.step() && sparse.column_int64(0) != 0 ? 2 : 1;
  connection.prepare("UPDATE metric_series SET lowest_block_level = ?2 WHERE id = ?1")
      .bind(1, series_id)
      .bind(2, lowest)
      .step();
  connection
      .prepare(
          "INSERT INTO metric_blocks (series_id, level, block, min_value, max_value) "
          "SELECT ?1, ?2, step >> (4 * ?2), min(value), max(value) FROM metrics WHERE series_id = ?1 "
          "GROUP BY step >> (4 * ?2)")
      .bind(1, series_id)
      .bind(2, lowest)
      .step();
  Statement up = connection.prepare(
      "INSERT INTO metric_blocks (series_id, level, block, min_value, max_value) "
      "SELECT ?1, ?2, block >> 4, min(min_value), max(max_value) FROM metric_blocks "
      "WHERE series_id = ?1 AND level = ?2 - 1 "
      "GROUP BY block >> 4");
  for (int level = lowest + 1; level <= kBlockLevels; ++level) {
    up.bind(1, series_id).bind(2, level);
    up.step();
    up.reset();
  }
  refresh_series_summary(connection, series_id);
}

void trim_metric_blocks(Connection& connection, std::int64_t run_id, std::int64_t step) {
  std::vector<std::int64_t> series;
  Statement list = connection.prepare("SELECT id FROM metric_series WHERE run_id = ?");
  list.bind(1, run_id);
  while (list.step()) series.push_back(list.column_int64(0));
  // A level-L block b starts at b << 4L; it lies after `step` when b > step >> 4L.
  Statement drop = connection.prepare("DELETE FROM metric_blocks WHERE series_id = ?1 AND block > (?2 >> (4 * level))");
  for (const std::int64_t id : series) {
    drop.bind(1, id).bind(2, step);
    drop.step();
    drop.reset();
    if (step >= 0) refresh_metric_blocks(connection, id, {step >> kBlockFanoutBits});
    refresh_series_summary(connection, id);  // also when every point went (step < 0)
  }
}

}  // namespace headroom::db::detail
