// Internal to headroom_db: the min/max pyramid that makes curve queries cost
// O(buckets), not O(points). Not part of the public API.
#pragma once

#include <cstdint>
#include <set>

namespace headroom::db {
class Connection;
}

namespace headroom::db::detail {

// Level L >= 1 block b of a metric series holds min(value) and max(value)
// over the steps [b * 16^L, (b + 1) * 16^L - 1] (NULL when they hold no
// finite value). Level 0 is the metrics table itself. Any step range is the
// disjoint union of fewer than 2 * 16 blocks per level, so its min and max
// read at most ~32 * (kBlockLevels + 1) rows however many points it spans.
//
// A sparse series (no 16-step block holds two points) may start at level 2
// (metric_series.lowest_block_level): its level-1 blocks would each copy one
// point, so the curve query reads the points in their place, still < 32 per
// bucket edge. Only rebuild_metric_blocks chooses level 2 (merge, export);
// appending two points to one 16-step block of such a series rebuilds it from
// level 1.
inline constexpr int kBlockFanoutBits = 4;  // 16 children per block
inline constexpr int kBlockLevels = 6;      // top blocks span 16^6 = 16.7M steps

// Recomputes the blocks above the given level-1 block indices (step >> 4),
// bottom-up from the series' lowest level, from their children. Call after changing the metrics of those
// steps, in the same transaction. Cost: ~16 rows read per touched block.
void refresh_metric_blocks(Connection& connection, std::int64_t series_id, std::set<std::int64_t> level1_blocks);

// Sets the series' summary columns (last_step, last_value, min_value) from its points and its
// top pyramid level: three index seeks. Called by the three functions here, so every path
// that changes metrics keeps it true.
void refresh_series_summary(Connection& connection, std::int64_t series_id);

// Drops the blocks of a series and builds them again from its metrics (after
// bulk copies such as a merge), from level 2 when the series is sparse.
// Linear in the series' points.
void rebuild_metric_blocks(Connection& connection, std::int64_t series_id);

// After deleting a run's metrics with step > `step`: drops the blocks that lie
// entirely after `step` and recomputes the ones that contain it.
void trim_metric_blocks(Connection& connection, std::int64_t run_id, std::int64_t step);

}  // namespace headroom::db::detail
