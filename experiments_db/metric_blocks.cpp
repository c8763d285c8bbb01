#include "experiments_db/metric_blocks.h"

#include <vector>

#include "experiments_db/connection.h"

namespace headroom::db::detail {

static_assert(kBlockFanoutBits == 4, "the SQL below spells the fan-out as 16 and >> 4");

void refresh_metric_blocks(Connection& connection, std::int64_t series_id, std::set<std::int64_t> level1_blocks) {
  if (level1_blocks.empty()) return;
  // ?1 series, ?2 level, ?3 block. "WHERE" before ON CONFLICT is required by
  // SQLite's grammar for INSERT ... SELECT upserts.
  Statement from_points = connection.prepare(
      "INSERT INTO metric_blocks (series_id, level, block, min_value, max_value) "
      "SELECT ?1, 1, ?3, min(value), max(value) FROM metrics "
      "WHERE series_id = ?1 AND step BETWEEN ?3 * 16 AND ?3 * 16 + 15 "
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
    Statement& upsert = level == 1 ? from_points : from_blocks;
    std::set<std::int64_t> parents;
    for (const std::int64_t block : blocks) {
      upsert.bind(1, series_id).bind(2, level).bind(3, block);
      upsert.step();
      upsert.reset();
      parents.insert(block >> kBlockFanoutBits);
    }
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
  connection
      .prepare(
          "INSERT INTO metric_blocks (series_id, level, block, min_value, max_value) "
          "SELECT ?1, 1, step >> 4, min(value), max(value) FROM metrics WHERE series_id = ?1 "
          "GROUP BY step >> 4")
      .bind(1, series_id)
      .step();
  Statement up = connection.prepare(
      "INSERT INTO metric_blocks (series_id, level, block, min_value, max_value) "
      "SELECT ?1, ?2, block >> 4, min(min_value), max(max_value) FROM metric_blocks "
      "WHERE series_id = ?1 AND level = ?2 - 1 "
      "GROUP BY block >> 4");
  for (int level = 2; level <= kBlockLevels; ++level) {
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
