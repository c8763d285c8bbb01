// Training curves for the explorer's plots: fetched bucketed from the store (so a plot costs the
// same for 100 or 1M logged points), re-fetched for a zoomed window, smoothed, grouped across
// seeds into mean + band, and exported as CSV.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/gui/explorer/flat_config.h"
#include "experiments_db/run_records.h"
#include "experiments_db/run_store.h"

namespace headroom::explorer {

enum class XAxis {
  Step,           // the optimizer step the value was logged at
  Tokens,         // training tokens seen when it was logged
  TrainSeconds,   // the stored training wall time (seconds spent training, summed over resumes)
  RelativeHours,  // the same clock in hours, 0 at the metric's first logged point
};

// "step", "tokens", "train time (s)", "hours since first point".
const char* x_axis_label(XAxis axis);

// One metric of one run, one point per non-empty bucket (at the bucket's last step).
struct Curve {
  std::int64_t run_id = 0;
  std::string metric;
  std::vector<std::int64_t> step;    // the bucket's last step
  std::vector<double> x, y;          // y: the value at that step
  std::vector<double> y_min, y_max;  // exact extremes over the bucket (the spikes a plot must show)
};

// A curve via RunStore::curve: `buckets` equal step slices over `steps` (the metric's whole
// logged range when nullopt). Empty when nothing was logged there. Throws std::invalid_argument
// when buckets < 1.
Curve fetch_curve(db::RunStore& store, std::int64_t run_id, const std::string& metric, XAxis axis,
                  std::optional<db::StepRange> steps, int buckets);

// The steps to re-fetch after zooming to [x_lo, x_hi] (either order) on a shown curve: from the
// point before the first one inside the window to the point after the last one (x grows with
// step), so the re-fetched curve reaches the window's edges. A window between two points gives
// those two; nullopt when the window misses the curve entirely or it is empty.
std::optional<db::StepRange> steps_for_x_range(const Curve& shown, double x_lo, double x_hi);

// The window to fetch after a zoom asked for `want`: the current window when `want` lies inside
// it and is not much smaller (a third of it or more), so small pans and zooms reuse what was
// fetched; else `want` padded by a quarter of its width on each side (clamped at step 0).
db::StepRange next_zoom_window(const std::optional<db::StepRange>& current, const db::StepRange& want);

// A bucketed curve as one polyline that visits every bucket's exact extremes: from the previous
// bucket's last value to the nearer of its min / max, to the other, to its last value, all at
// the bucket's x. With buckets no wider than a few pixels this draws what the full series would
// (the M4 idea: a vertical stroke per pixel column), so spikes survive decimation, and it costs
// a software rasterizer far less than a translucent min..max band.
void envelope_polyline(const Curve& c, std::vector<float>* xs, std::vector<float>* ys);

// TensorBoard's smoothing: s_i = w s_{i-1} + (1 - w) y_i from s = 0, divided by 1 - w^k (k = finite
// points so far) so the start is not pulled to 0. Non-finite points stay as they are and do not
// enter the average. Throws std::invalid_argument unless 0 <= weight < 1.
std::vector<double> ema_debiased(const std::vector<double>& y, double weight);

// Trailing mean over the last `window` points (fewer at the start); NaN points are left out of
// every mean (a NaN point itself gets the mean of its finite neighbours), NaN when a window has
// no finite point. Throws std::invalid_argument when window < 1.
std::vector<double> moving_average(const std::vector<double>& y, int window);

enum class BandKind {
  MinMax,  // lo / hi = the lowest / highest member
  StdDev,  // lo / hi = mean -/+ the population standard deviation (0 for one member)
};

struct GroupCurve {
  std::string key_value;
  std::vector<std::int64_t> run_ids;
  std::vector<double> x, mean, lo, hi;
};

// Groups curves by a config key's value (key_values[i] belongs to curves[i]): runs that differ
// only in seed collapse into one mean curve with a band. Groups come in order of first
// appearance. The x grid is the union of the members' x inside the range all of them cover
// (empty if they do not overlap); each member is linearly interpolated onto it. Members with a
// non-finite value at a grid x are left out there. Empty curves join run_ids but not the grid.
// Throws std::invalid_argument when the two vectors differ in length.
std::vector<GroupCurve> group_curves(const std::vector<Curve>& curves, const std::vector<std::string>& key_values,
                                     BandKind band);

// Grouping runs over seeds: the key shared by runs whose configs differ only in train.seed
// (suite, label and the config without the seed), and the group's legend label: the first run's
// short name without its trailing ",seed=N" / "seed=N" part, and the number of runs.
std::string seedless_group_key(const std::string& suite, const std::string& label, const FlatConfig& config);
std::string seed_group_label(const std::string& first_run_short_name, std::size_t runs);
// The two parts of it: the name without its trailing seed, and " (N runs)" appended.
std::string without_seed(const std::string& short_name);
std::string runs_counted(const std::string& label, std::size_t runs);

// Legend labels that would read alike: runs named the same in different suites (a seed check's
// suite repeats a row of the suite it checks: "fixed-head/heads=32" in lrb-heads and in a later
// suite) get their suite in front, "lrb-heads: fixed-head/heads=32", so that no two lines share a
// name (nor, in the plot, a legend entry). Give it the names before runs_counted: groups of 1 and
// 2 runs of one name read alike too. Labels already unique are left as they are. suites[i] is
// the suite of labels[i]; throws std::invalid_argument when they differ in length.
std::vector<std::string> with_suites_where_alike(std::vector<std::string> labels,
                                                 const std::vector<std::string>& suites);

// CSV with header series,run,metric,step,x,y,y_min,y_max, one line per point; labels[i] names
// curves[i] (e.g. the run name). RFC 4180: CRLF line ends, fields with , " CR or LF quoted with ""
// doubled; numbers round-trip exactly, NaN is an empty field, x is an integer on the Step and
// Tokens axes. Throws std::invalid_argument when labels and curves differ in length.
void write_curves_csv(std::ostream& out, const std::vector<Curve>& curves, const std::vector<std::string>& labels,
                      XAxis axis);

// One RFC 4180 field: quoted (with "" for ") only when it holds , " CR or LF.
std::string csv_field(const std::string& text);
// A number that reads back exactly (shortest round-trip form); NaN is an empty field.
std::string csv_number(double value);

}  // namespace headroom::explorer
