// The papers' tables and figures re-made from stored runs, beside the papers' own numbers.
//
// One figure per stored suite named like one of the eleven in assets/suites (lrb-heads,
// lrb-head-size, th-heads, th-projections, th-dynamic, th-head-dims, th-extreme-heads, vb-rank,
// vb-depth-width, vb-attention-ratio, vb-pos-rank). Ours: the final val loss (the last logged val_loss) of each
// finished run, per series (the grid label; see build_figure) and x, mean and min/max across seeds. Paper: the rows of
// the suite's [suite] reference CSV that the suite reproduces, each point citing its file, line and table. Nothing is
// invented: every number comes from the DB or a CSV; where a paper has only plots (VB), the paper series are empty and
// a note quotes its qualitative finding.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "app/gui/explorer/run_rows.h"
#include "experiments_db/run_records.h"
#include "experiments_db/run_store.h"

namespace headroom::explorer {

struct FigurePoint {
  double x = 0;
  double mean = kNaN, lo = kNaN, hi = kNaN;  // ours: mean, min, max over finished runs; paper: value -/+ its sd
  double sd = kNaN;                          // paper: the sd as its CSV gives it (NaN: none given)
  int runs = 0;                              // runs at this point, finished or not
  int done = 0;                              // of which finished (only these are in mean / lo / hi)
  std::vector<std::int64_t> run_ids;
  std::string source;  // paper points: "th_t5.csv line 6: TH Table 1, talking-heads, h=12"; "" for ours
};

struct FigureSeries {
  std::string label;
  std::vector<FigurePoint> points;  // ascending x
  std::string tokenizer;            // ours: its runs' tokenizer ("*" when they differ); paper: ""
  // Ours, on a log x axis, with every point at x <= 0, which that axis cannot show (vb-pos-rank's
  // model without positional embedding, rank 0): drawn as a level line across the plot at its
  // mean, its band min .. max; the table lists it at its x. A note says so.
  bool level = false;
};

// One plot of ours when a figure's runs use several tokenizers (vb-depth-width: bytes, bpe:2000):
// a loss per byte and a loss per BPE token are different units, so each gets its own y axis.
struct FigurePanel {
  std::string tokenizer;
  std::string y_label;  // "final val loss (nats/byte)" or "(nats/token)"
};

// What the figures put on x: the suite's own axis (its [suite] x key, or the number / category its
// grid labels carry) or each run's parameter count (all trainable parameters: embeddings, blocks,
// head; the runs table's "parameters", RunRecord::param_count). VB Figs. 1, 2, 3, 4, 5, 7 plot
// loss against parameter count, so Default is Parameters for the VB suites and SuiteKey otherwise.
enum class FigureAxis { Default, SuiteKey, Parameters };

struct Figure {
  std::string suite;
  std::string title;       // [suite] reproduces
  std::string paper_name;  // [suite] paper: "LRB", "TH", "VB" (not `paper`: that name is the paper's series)
  std::string x_label;
  bool log_x = false;
  FigureAxis axis = FigureAxis::SuiteKey;  // resolved: SuiteKey or Parameters
  FigureAxis default_axis = FigureAxis::SuiteKey;
  std::string key_x_label;  // the suite-key axis's label (for a picker)
  // Non-empty when x is categorical (th-projections: the attention kind): x is an index into it.
  std::vector<std::string> x_categories;
  std::string ours_y_label;  // e.g. "final val loss (nats/token; kjv, bytes)"
  std::vector<FigureSeries> ours;
  // Several tokenizers, each series of one: a panel per tokenizer, in first-seen order (else empty).
  std::vector<FigurePanel> ours_panels;
  std::string paper_y_label;  // e.g. "ln perplexity on C4 after 65k steps (T5-base; lower is better)"
  std::vector<FigureSeries> paper;
  std::vector<std::string> notes;  // caveats, e.g. "3 of 8 runs finished; ..."
};

// The category at x on a categorical x axis (th-projections: the attention kind), else "".
std::string x_category(const Figure& fig, double x);

// A point's value as the figure's table shows it. Ours: "1.1526", or over several finished seeds
// "1.1526 (1.1476 .. 1.1583)" (mean, then min .. max); "-" with none finished. Paper: the value as
// the paper prints it ("88.51"), with "sd 0.15" where its CSV has one.
std::string figure_value_text(const FigurePoint& p, bool paper);

// The figure to show for the runs a person is looking at: the one holding the most of `selected`
// (the runs of its points, pooled suites' included; ties go to the first); where no figure holds a
// selected run, the one holding the most of `shown` (the table's rows under a filter); -1 when no
// figure holds any of either. A suite with its own `reproduces` (a diagnostic) is in no figure.
int figure_for_runs(const std::vector<Figure>& figures, const std::set<std::int64_t>& selected,
                    const std::vector<std::int64_t>& shown);

// The figure's table as CSV, what the Paper figures tab lists: a header, then one line per point,
// ours first. Columns figure,source,series,x,x_category,value,min,max,sd,runs_done,runs,citation:
// ours have min / max over finished seeds, the paper's points their sd where the CSV gives one and
// their citation (file, line, table). RFC 4180 as write_curves_csv; numbers round-trip exactly.
void write_figure_csv(std::ostream& out, const Figure& fig);

// The suite names build_figure knows, in assets/suites order.
std::vector<std::string> figure_suites();

// The figure of one stored suite from the rows of its runs (rows of other suites are ignored).
// x: the [suite] x config key of the stored TOML (model.embed_rank counts a full-rank run at r = d),
// or, without one, the number ending the grid label ("ratio-4" -> 4). Series: the grid label;
// vb-depth-width adds the tokenizer ("shallow bpe:257"); vb-attention-ratio groups by size budget
// (the k-th widest run of each ratio label); th-projections (x = kind) is one series.
// nullopt for a suite name not in figure_suites() or a stored TOML that does not parse (warning).
// Problems with reference files are appended to *warnings (one line each) and noted in the figure.
// axis Parameters: x is each run's parameter count (log x); runs without one (0) are left out with a
// note; series are the grid labels (plus the tokenizer for vb-depth-width); the paper's series,
// indexed by heads, head size or h_k-h-h_v rather than total parameters, are left out with a note.
// pooled: other suites whose runs join this figure (build_figures finds them: see there).
std::optional<Figure> build_figure(const db::SuiteRecord& suite, const std::vector<RunRow>& rows,
                                   const std::string& reference_dir, std::string* warnings,
                                   FigureAxis axis = FigureAxis::Default, const std::vector<std::string>& pooled = {});

// Per stored suite (index-aligned), the suites whose runs join its figure: a suite build_figure
// does not know joins the figure of one it knows where both stored TOMLs give the same [suite]
// reproduces and x and both were enqueued at the same scale, as a seed check of some rows does
// (docs/results/gpu_h200_2026-11-27/vb_pos_rank_seeds.toml). Empty for the others.
std::vector<std::vector<std::string>> pooled_suites(const std::vector<db::SuiteRecord>& suites);

// build_figure for every suite of `suites` it knows, in their order, each with its pooled_suites
// (the figure's notes name them) and on its axis from `axes` (by suite name; `otherwise` where absent).
std::vector<Figure> build_figures(const std::vector<db::SuiteRecord>& suites, const std::vector<RunRow>& rows,
                                  const std::string& reference_dir, std::string* warnings,
                                  const std::map<std::string, FigureAxis>& axes,
                                  FigureAxis otherwise = FigureAxis::Default);
// The same for every stored suite, all on `axis`.
std::vector<Figure> build_figures(db::RunStore& store, const std::vector<RunRow>& rows,
                                  const std::string& reference_dir, std::string* warnings,
                                  FigureAxis axis = FigureAxis::Default);

}  // namespace headroom::explorer
