#include "app/gui/explorer/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "app/gui/explorer/curves.h"
#include "app/gui/explorer/reference_csv.h"
#include "core/io/toml_read.h"

namespace headroom::explorer {
namespace {

// --- what each suite reproduces ------------------------------------------------

// One row of a reference CSV, read by column name ("" for a missing column).
struct RowView {
  const CsvTable& table;
  const CsvRow& row;
  std::string get(std::string_view column) const {
    const auto i = table.column(column);
    return i ? row.fields[*i] : "";
  }
};

// Which rows of the suite's reference CSV are the paper's counterpart, and how to read them.
struct PaperSpec {
  std::string_view y_label;
  std::vector<std::string_view> columns;  // every column the functions below read
  std::string_view x_column, y_column, sd_column;
  bool (*keep)(const RowView&);
  std::string (*series)(const RowView&);
  std::string (*describe)(const RowView&);            // the row, for its point's source
  std::string (*category)(const RowView&) = nullptr;  // categorical x: our category of the row
};

enum class SeriesRule {
  Label,              // one series per grid label
  LabelAndTokenizer,  // ... and tokenizer (vb-depth-width sweeps vocabularies)
  Budget,             // the k-th widest run of every label (vb-attention-ratio's size budgets)
  Single,             // one series (categorical x)
};

// How a run's x is read on the suite's own axis.
enum class XRule {
  Key,            // the [suite] x config key, or the number ending the grid label
  LabelCategory,  // the grid label itself, as a category (th-head-dims: "6-24-6")
  ReducedRank,    // vb-pos-rank: the positional rank if factorised, else the token embedding's rank
                  // if factorised, else the full positional rank min(d, n)
};

struct SuiteSpec {
  std::string_view name;
  std::string_view x_key;  // the [suite] x this spec describes; "" = the number ending the label
  std::string_view x_label;
  bool log_x;
  SeriesRule series;
  const PaperSpec* paper;                       // nullptr: the paper has plots only
  std::vector<std::string_view> setup_figures;  // vb_setups.csv rows cited in notes
  std::vector<std::string_view> noise_figures;  // vb_loss_std.csv rows cited in notes
  std::vector<std::string_view> findings;       // qualitative findings (assets/reference/README.md)
  bool parameters_default = false;              // FigureAxis::Default means Parameters (VB plots)
  XRule x_rule = XRule::Key;
  // The paper's numbers are read against this (for the note on the parameters axis).
  std::string_view paper_axis = "";
  // Each series keeps (nearly) equal parameters along x (TH's tables): a computed note says how
  // far apart each series' runs are, at whatever scale they ran.
  bool series_span_note = false;
};

// lrb-heads: Table 1 sweeps heads at the standard d/h, Table 2A at a fixed head size.
std::string lrb_heads_series(const RowView& r) {
  const std::string head = r.get("table") == "1" ? "standard head size d/h" : "fixed head size " + r.get("head_size");
  return "LRB Table " + r.get("table") + ": " + head + ", d=" + r.get("d_model");
}
// lrb-head-size: Table 2B sweeps the head size at a fixed number of heads.
std::string lrb_head_size_series(const RowView& r) {
  return "LRB Table " + r.get("table") + ": fixed head size, " + r.get("heads") + " heads, d=" + r.get("d_model");
}
std::string lrb_describe(const RowView& r) {
  return "LRB Table " + r.get("table") + ", " + r.get("attention") + ", d=" + r.get("d_model") +
         ", heads=" + r.get("heads") + ", head size " + r.get("head_size");
}
std::string th_series(const RowView& r) { return "TH Table " + r.get("table") + ": " + r.get("variant"); }
std::string th_describe(const RowView& r) {
  return "TH Table " + r.get("table") + ", " + r.get("variant") + ", h=" + r.get("h");
}
bool th_core_variant(const RowView& r) {
  return r.get("variant") == "multi-head" || r.get("variant") == "talking-heads";
}

const PaperSpec kLrbHeads{"SQuAD dev F1 (24-layer BERT; higher is better)",
                          {"table", "attention", "d_model", "heads", "head_size", "squad_f1", "squad_f1_sd"},
                          "heads",
                          "squad_f1",
                          "squad_f1_sd",
                          [](const RowView& r) { return r.get("table") == "1" || r.get("table") == "2A"; },
                          lrb_heads_series,
                          lrb_describe};
const PaperSpec kLrbHeadSize{"SQuAD dev F1 (24-layer BERT, 8 heads; higher is better)",
                             {"table", "attention", "d_model", "heads", "head_size", "squad_f1", "squad_f1_sd"},
                             "head_size",
                             "squad_f1",
                             "squad_f1_sd",
                             [](const RowView& r) { return r.get("table") == "2B"; },
                             lrb_head_size_series,
                             lrb_describe};
constexpr std::string_view kThYLabel = "ln perplexity on C4 after 65k steps (T5-base; lower is better)";
const std::vector<std::string_view> kThColumns = {"table", "variant", "h", "ln_ppl_65k", "ln_ppl_65k_sd"};
const PaperSpec kThHeads{kThYLabel,    kThColumns,      "h",
                         "ln_ppl_65k", "ln_ppl_65k_sd", [](const RowView& r) { return r.get("table") == "1"; },
                         th_series,    th_describe};
// Table 8 at h = 12 and 24, with the multi-head and talking-heads rows it repeats from Table 1.
const PaperSpec kThDynamic{kThYLabel,
                           kThColumns,
                           "h",
                           "ln_ppl_65k",
                           "ln_ppl_65k_sd",
                           [](const RowView& r) {
                             const bool repeated = r.get("table") == "1" && th_core_variant(r) &&
                                                   (r.get("h") == "12" || r.get("h") == "24");
                             return r.get("table") == "8" || repeated;
                           },
                           th_series,
                           th_describe};
// Table 3 at h = 24, with the multi-head and talking-heads rows it repeats from Table 1.
const PaperSpec kThProjections{kThYLabel,
                               kThColumns,
                               "h",
                               "ln_ppl_65k",
                               "ln_ppl_65k_sd",
                               [](const RowView& r) {
                                 return r.get("table") == "3" ||
                                        (r.get("table") == "1" && th_core_variant(r) && r.get("h") == "24");
                               },
                               [](const RowView&) { return std::string("TH Tables 1 + 3, h=24"); },
                               th_describe,
                               [](const RowView& r) {
                                 const std::string v = r.get("variant");
                                 if (v == "project logits") return std::string("logits-proj");
                                 if (v == "project weights") return std::string("weights-proj");
                                 return v;
                               }};

// th-head-dims: TH Table 2, plus the 6-6-6 and 24-24-24 rows it repeats from Table 1.
std::string th_head_counts(const RowView& r) { return r.get("h_k") + "-" + r.get("h") + "-" + r.get("h_v"); }
const PaperSpec kThHeadDims{kThYLabel,
                            {"table", "variant", "h_k", "h", "h_v", "d_k", "d_v", "ln_ppl_65k", "ln_ppl_65k_sd"},
                            "h",
                            "ln_ppl_65k",
                            "ln_ppl_65k_sd",
                            [](const RowView& r) {
                              const bool repeated = r.get("table") == "1" && r.get("variant") == "talking-heads" &&
                                                    (r.get("h") == "6" || r.get("h") == "24");
                              return r.get("table") == "2" || repeated;
                            },
                            [](const RowView&) { return std::string("TH Tables 1 + 2 (T5, d = 768)"); },
                            [](const RowView& r) {
                              return "TH Table " + r.get("table") + ", talking-heads h_k-h-h_v " + th_head_counts(r) +
                                     ", d_k " + r.get("d_k") + ", d_v " + r.get("d_v");
                            },
                            th_head_counts};
// th-extreme-heads: TH Table 7 (BERT, SQuAD1.1 F1; one run each, no sd).
const PaperSpec kThExtremeHeads{"SQuAD1.1 dev F1 (12-layer BERT, TH Table 7; higher is better)",
                                {"table", "variant", "heads", "d_k", "squad11_f1"},
                                "heads",
                                "squad11_f1",
                                "",
                                [](const RowView& r) { return r.get("table") == "7"; },
                                [](const RowView& r) { return "TH Table 7: " + r.get("variant"); },
                                [](const RowView& r) {
                                  return "TH Table 7, " + r.get("variant") + ", heads=" + r.get("heads") +
                                         ", d_k=" + r.get("d_k");
                                }};

// TH's gains came mostly from the encoder and encoder-decoder attention; ours are decoder-only.
constexpr std::string_view kThSmallEffect =
    "A small effect is expected: TH's gains came mostly from the encoder and encoder-decoder attention (TH Table 4: "
    "talking-heads in the decoder self-attention alone 1.981 vs multi-head 1.989 ln PPL, inside multi-head's sd of "
    "0.009; encoder self-attention alone 1.969, encoder-decoder attention alone 1.942). These models are decoder-only "
    "(causal self-attention), so gaps near the seed noise are what the paper predicts.";

constexpr std::string_view kCompareTrends =
    "The paper's numbers come from much larger models and other data and metrics: compare trends and orderings, "
    "not values.";

const std::vector<SuiteSpec>& specs() {
  static const std::vector<SuiteSpec> all = {
      {"lrb-heads",
       "model.attention.heads",
       "heads h",
       true,
       SeriesRule::Label,
       &kLrbHeads,
       {},
       {},
       {"LRB Fig. 1a / 3a (LM1B, plots): with standard head size, perplexity stops improving and then worsens as heads "
        "grow past ~16 at d = 256; with fixed head size 32 it keeps improving up to 70 heads.",
        "Not at equal parameters: a fixed-head layer has 4 d h d_p attention parameters, h d_p / d times the standard "
        "layer's 4 d^2 at every h, and fixed-head-n (d_p = n, LRB's prescription, Tables 2A / 3) grows the same way. "
        "LRB matched Fig. 3a by widening the baseline's feed-forward layers; we did "
        "not: see the parameters axis.",
        "Our runs are causal: a causal head reaches almost every attention pattern from d_p >= floor(n/2){causal_at}, "
        "not LRB's n (docs/causal_threshold.md), so the standard heads' bottleneck binds {standard_binds}.",
        kCompareTrends},
       false,
       XRule::Key,
       "heads h"},
      {"lrb-head-size",
       "model.attention.d_k",
       "head size d_p",
       true,
       SeriesRule::Label,
       &kLrbHeadSize,
       {},
       {},
       {"LRB Fig. 3b / Sec. 4.3 (plot): at a fixed number of heads a larger head size d_p is clearly better; "
        "Table 2B is the BERT counterpart. Parameters grow with d_p (4 d h d_p per layer), as in Table 2B (130M-218M).",
        "Our runs are causal: the head-size bottleneck ends at d_p = floor(n/2){causal_at} for almost every pattern, "
        "and at n - 1 for every one (docs/causal_threshold.md).",
        kCompareTrends},
       false,
       XRule::Key,
       "head size"},
      {"th-heads",
       "model.attention.heads",
       "heads h",
       true,
       SeriesRule::Label,
       &kThHeads,
       {},
       {},
       {"TH Table 1 keeps the parameters constant across h; ours too: multi-head and talking-heads differ only by P_l "
        "and P_w (h_k h + h h_v per layer). multi-head-2x and general-bilinear have more parameters, as in TH.",
        kThSmallEffect, kCompareTrends},
       false,
       XRule::Key,
       "h",
       true},
      {"th-projections",
       "model.attention.kind",
       "attention kind",
       false,
       SeriesRule::Single,
       &kThProjections,
       {},
       {},
       {"TH Table 6 (ALBERT, downstream average) does not keep T5's ordering: multi-head 80.32, logits-projection only "
        "79.88, weights-projection only 80.36, talking-heads 80.78.",
        kThSmallEffect, kCompareTrends},
       false,
       XRule::Key,
       "attention kind"},
      {"th-dynamic",
       "model.attention.heads",
       "heads h",
       true,
       SeriesRule::Label,
       &kThDynamic,
       {},
       {},
       {"TH Table 8 repeats Table 1's multi-head and talking-heads rows at h = 12 and 24 (cited at their Table 1 "
        "lines).",
        kThSmallEffect, kCompareTrends},
       false,
       XRule::Key,
       "h"},
      {"th-head-dims",
       "",
       "h_k-h-h_v (TH's head counts{th_counts})",
       false,
       SeriesRule::Single,
       &kThHeadDims,
       {},
       {},
       {"TH Table 2 (T5): all three head counts are good to increase, the softmax heads h particularly; rows with "
        "d_k != d_v (6-24-24: d_k 128, d_v 32; 24-24-6: 32, 128) included. All rows at equal projection parameters.",
        kThSmallEffect, kCompareTrends},
       false,
       XRule::LabelCategory,
       "h_k-h-h_v"},
      {"th-extreme-heads",
       "model.attention.heads",
       "heads h (d_k = d_v = d / h)",
       true,
       SeriesRule::Label,
       &kThExtremeHeads,
       {},
       {},
       {"TH Table 7 (BERT): talking-heads keeps improving up to 768 heads with d_k = d_v = 1 (SQuAD1.1 F1 88.8 at 6 "
        "heads, 90.5 at 384 and 768); multi-head 12 heads: 88.51.",
        "P_l and P_w add 2 h^2 parameters per layer, so the most heads have the most parameters (the note \"Along x\" "
        "counts them; see the parameters axis).",
        kThSmallEffect, kCompareTrends},
       false,
       XRule::Key,
       "heads",
       true},
      {"vb-rank",
       "model.embed_rank",
       "embedding rank r (full rank: r = width d)",
       true,
       SeriesRule::Label,
       nullptr,
       {"Fig. 2"},
       {"Fig. 2"},
       {"VB Fig. 2 is a plot of loss against parameter count (no numbers in the text): lowering the embedding rank r "
        "at width 680 hurts much faster than shrinking the width; r/d_x = 16/680 is comparable to a full-rank network "
        "~25% smaller."},
       true},
      {"vb-depth-width",
       "model.width",
       "width d",
       false,
       SeriesRule::LabelAndTokenizer,
       nullptr,
       {"Fig. 1a", "Fig. 1b", "Fig. 1c", "Fig. 3", "Fig. 5"},
       {"Fig. 1a", "Fig. 1b", "Fig. 3"},
       {"VB Fig. 1 / 3 / 5 plot loss against parameter count (no numbers in the text): the deeper network (48) "
        "overtakes the shallower (24) once the shallow width exceeds roughly the vocabulary size (V = 500: around "
        "width 408) or the embedding rank (rank 500 of V = 2000: around 504). With V = 50257 (Fig. 5) there is still a "
        "crossing, at about the shallow width of V = 2000's: once V exceeds the width it no longer moves the "
        "crossing.",
        "VB's claim is for L > log3 d_x (3^L > d_x, VB Sec. 4): below it (L < log3 d_x) depth is favoured whatever the "
        "vocabulary (Levine et al. 2020, recalled in VB Sec. 4). The suite keeps every depth inside at full and paper "
        "scale (full: depth 4 at widths <= 80 < 3^4, depth 8; paper: depth 6 at <= 704 < 3^6, depth 12) and matches "
        "each shallow model to a deep one on all parameters (embeddings and head included) within 2%. Its arms, full "
        "/ paper scale: a small vocabulary the widths cross (KJV bytes, 63 symbols occur / bpe:500, crossing "
        "expected near 408-500), bpe:2000 (no crossing expected below 2000) and bpe:2000 at embedding rank 56 / 448 "
        "(crossing expected near the rank)."},
       true},
      {"vb-attention-ratio",
       "",
       "bottleneck ratio H d_a / d_x (from the grid label)",
       true,
       SeriesRule::Budget,
       nullptr,
       {},
       {},
       {"VB Fig. 4 is a plot of loss against parameter count (no numbers in the text): at fixed size, loss worsens "
        "monotonically with H d_a / d_x in {1, 2, 4, 8, 16}; a ratio-4 network is matched by a ratio-1 network with "
        "~75% of its parameters, ratio 16 by one with ~55%.",
        "Our size budgets match the blocks, not all parameters: the embedding and head shrink with d_x, so the "
        "high-ratio models are smaller than the ratio-1 ones (the note \"Not at equal parameters within a budget\" "
        "says by how much, where they are). On the parameters axis each ratio is one line, as in VB Fig. 4."},
       true},
      {"vb-pos-rank",
       "model.pos_rank",
       "rank of the reduced embedding (positional or token; baseline: min(d, n); no positions: 0)",
       true,
       SeriesRule::Label,
       nullptr,
       {"Fig. 7"},
       {},
       {"VB Fig. 7 / C.4 is a plot (no numbers in the text): a positional embedding of rank down to 16 is on par with "
        "full rank (within 2 std), and even rank 1 reaches the loss of a vocabulary rank between 64 and 128."},
       // VB Fig. 7 compares ranks, not sizes, and at one width every positional rank has nearly the same
       // parameter count (a cluster on that axis): the rank is this figure's default.
       false,
       XRule::ReducedRank},
  };
  return all;
}

const SuiteSpec* find_spec(const std::string& name) {
  for (const SuiteSpec& s : specs()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// --- small helpers ---------------------------------------------------------------

std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

void warn(std::string* warnings, const std::string& line) {
  if (warnings == nullptr) return;
  if (!warnings->empty()) *warnings += '\n';
  *warnings += line;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string number_text(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::size_t category_index(std::vector<std::string>& categories, const std::string& value) {
  const auto it = std::find(categories.begin(), categories.end(), value);
  if (it != categories.end()) return static_cast<std::size_t>(it - categories.begin());
  categories.push_back(value);
  return categories.size() - 1;
}

FigureSeries& series_named(std::vector<FigureSeries>& all, const std::string& label) {
  for (FigureSeries& s : all) {
    if (s.label == label) return s;
  }
  all.push_back(FigureSeries{label, {}});
  return all.back();
}

void sort_points(std::vector<FigureSeries>& all) {
  for (FigureSeries& s : all) {
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const FigurePoint& a, const FigurePoint& b) { return a.x < b.x; });
  }
}

// --- ours --------------------------------------------------------------------------

// "ratio-4" -> 4: the number ending a grid label.
std::optional<double> trailing_number(const std::string& label) {
  const std::size_t start = label.find_last_not_of("0123456789.") + 1;
  return start < label.size() ? parse_number(label.substr(start)) : std::nullopt;
}

// Series names of vb-attention-ratio: the k-th widest run of each label shares size budget k,
// named by the width of the label with the smallest x ("budget 1 (width 32 at ratio-1)").
std::map<const RunRow*, std::string> budget_series(const std::vector<std::pair<const RunRow*, double>>& placed) {
  std::map<std::string, std::set<int, std::greater<int>>> widths;  // label -> widths, widest first
  const RunRow* smallest = nullptr;
  double smallest_x = 0;
  for (const auto& [row, x] : placed) {
    widths[row->label].insert(row->d);
    if (smallest == nullptr || x < smallest_x) {
      smallest = row;
      smallest_x = x;
    }
  }
  std::map<const RunRow*, std::string> names;
  for (const auto& [row, x] : placed) {
    const auto& mine = widths[row->label];
    const auto rank = static_cast<std::size_t>(std::distance(mine.begin(), mine.find(row->d)));
    const auto& base = widths[smallest->label];
    std::string name = "budget " + std::to_string(rank + 1);
    if (rank < base.size()) {
      name += " (width " + std::to_string(*std::next(base.begin(), static_cast<std::ptrdiff_t>(rank))) + " at " +
              smallest->label + ")";
    }
    names[row] = name;
  }
  return names;
}

std::string series_of(const SuiteSpec& spec, const RunRow& row, const std::map<const RunRow*, std::string>& budgets) {
  const std::string label = row.label.empty() ? "(no label)" : row.label;
  switch (spec.series) {
    case SeriesRule::Label: return label;
    case SeriesRule::LabelAndTokenizer: return label + " " + row.tokenizer;
    case SeriesRule::Budget: return budgets.at(&row);
    case SeriesRule::Single: return "ours";
  }
  return label;
}

void add_run(FigurePoint& point, const RunRow& row) {
  point.runs += 1;
  point.run_ids.push_back(row.id);
  if (row.status != db::RunStatus::Done || !std::isfinite(row.last_val_loss)) return;
  const double v = row.last_val_loss;
  const double sum = (point.done == 0 ? 0 : point.mean * point.done) + v;
  point.done += 1;
  point.mean = sum / point.done;
  point.lo = point.done == 1 ? v : std::min(point.lo, v);
  point.hi = point.done == 1 ? v : std::max(point.hi, v);
}

std::string status_counts(const std::vector<const RunRow*>& rows) {
  std::map<db::RunStatus, int> counts;
  for (const RunRow* r : rows) counts[r->status] += 1;
  std::vector<std::string> parts;
  for (const auto& [status, count] : counts) {
    if (status != db::RunStatus::Done)
      parts.push_back(std::to_string(count) + " " + std::string(db::to_string(status)));
  }
  return join(parts, ", ");
}

void add_completion_notes(Figure& fig, const std::vector<const RunRow*>& rows) {
  if (rows.empty()) {
    fig.notes.push_back("No runs of this suite are stored yet.");
    return;
  }
  std::size_t done = 0;
  std::vector<std::string> no_value;
  for (const RunRow* r : rows) {
    if (r->status != db::RunStatus::Done) continue;
    ++done;
    if (!std::isfinite(r->last_val_loss)) no_value.push_back(r->name);
  }
  if (done < rows.size()) {
    fig.notes.push_back(std::to_string(done) + " of " + std::to_string(rows.size()) + " runs finished (" +
                        status_counts(rows) +
                        "): unfinished runs count in a point's runs but their current val "
                        "loss is not in its mean or range.");
  }
  if (!no_value.empty()) {
    fig.notes.push_back("Finished without a finite val_loss, so left out of the means: " + join(no_value, ", ") + ".");
  }
}

// On the suite's own axis, say where the compared runs are not at equal parameters (counted over
// every parameter: embeddings, blocks, head): the x where the series differ most, and for size
// budgets (vb-attention-ratio) the spread along each budget.
void add_parameter_notes(Figure& fig, const SuiteSpec& spec,
                         const std::vector<std::pair<const RunRow*, double>>& placed,
                         const std::map<const RunRow*, std::string>& budgets) {
  struct Extremes {
    const RunRow* lo = nullptr;
    const RunRow* hi = nullptr;
    void add(const RunRow* r) {
      if (r->params <= 0) return;
      if (!lo || r->params < lo->params) lo = r;
      if (!hi || r->params > hi->params) hi = r;
    }
    double ratio() const { return lo && hi ? static_cast<double>(hi->params) / static_cast<double>(lo->params) : 1.0; }
  };
  constexpr double kEqual = 1.02;  // within 2% counts as equal
  if (spec.series_span_note) {     // each series along x: its smallest and largest run, all parameters counted
    std::map<std::string, Extremes> per_series;
    std::map<const RunRow*, double> x_of;
    for (const auto& [row, x] : placed) {
      per_series[series_of(spec, *row, budgets)].add(row);
      x_of[row] = x;
    }
    std::vector<std::string> parts;
    for (const auto& [name, e] : per_series) {
      if (!e.lo || e.lo == e.hi) continue;
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%", (e.ratio() - 1.0) * 100.0);
      parts.push_back(name + " " + thousands(e.lo->params) + " (" +
                      (spec.paper_axis.empty() ? fig.key_x_label : std::string(spec.paper_axis)) + " = " +
                      number_text(x_of.at(e.lo)) + ") .. " + thousands(e.hi->params) + " (" +
                      number_text(x_of.at(e.hi)) + "), " + pct + " apart");
    }
    if (!parts.empty()) fig.notes.push_back("Along x, all parameters included: " + join(parts, "; ") + ".");
  }
  if (spec.series == SeriesRule::Budget) {
    std::map<std::string, Extremes> per_budget;
    for (const auto& [row, x] : placed) per_budget[budgets.at(row)].add(row);
    std::vector<std::string> parts;
    for (const auto& [name, e] : per_budget) {
      if (e.ratio() <= kEqual) continue;
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%", (e.ratio() - 1.0) * 100.0);
      parts.push_back(name + ": " + thousands(e.lo->params) + " (" + e.lo->label + ") .. " + thousands(e.hi->params) +
                      " (" + e.hi->label + "), " + pct + " apart");
    }
    if (!parts.empty()) {
      fig.notes.push_back("Not at equal parameters within a budget (all parameters, embeddings and head included): " +
                          join(parts, "; ") + ".");
    }
    return;
  }
  std::map<double, Extremes> per_x;
  for (const auto& [row, x] : placed) per_x[x].add(row);
  const Extremes* worst = nullptr;
  double worst_x = 0;
  for (const auto& [x, e] : per_x) {
    if (e.lo && e.hi && e.lo->label != e.hi->label && (!worst || e.ratio() > worst->ratio())) worst = &e, worst_x = x;
  }
  if (!worst || worst->ratio() <= kEqual) return;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", worst->ratio());
  const int xi = static_cast<int>(worst_x);
  const std::string at = !fig.x_categories.empty() && xi >= 0 && xi < static_cast<int>(fig.x_categories.size())
                             ? fig.x_categories[static_cast<std::size_t>(xi)]
                             : number_text(worst_x);
  fig.notes.push_back(
      "Series at the same x are not at equal parameters (all parameters, embeddings and head "
      "included): at " +
      fig.key_x_label + " = " + at + ", " + worst->hi->label + " has " + thousands(worst->hi->params) + " and " +
      worst->lo->label + " " + thousands(worst->lo->params) + " (" + ratio +
      "). The parameters axis plots each run at its count.");
}

// vb-pos-rank's x: the rank that run reduces (see XRule::ReducedRank); 0 without positions.
std::string reduced_rank(const RunRow& r) {
  if (config_value(r.config, "model.positions") == "none") return "0";
  const auto pos = parse_number(config_value(r.config, "model.pos_rank"));
  if (pos && *pos > 0) return number_text(std::min({*pos, static_cast<double>(r.d), static_cast<double>(r.n)}));
  if (r.r > 0 && r.r < r.d) return std::to_string(r.r);
  return std::to_string(std::min(r.d, r.n));
}

// Series a log x axis cannot place (every point at x <= 0) become level lines (FigureSeries::level).
void mark_levels(Figure& fig) {
  for (FigureSeries& s : fig.ours) {
    if (s.points.empty()) continue;
    if (std::any_of(s.points.begin(), s.points.end(), [](const FigurePoint& p) { return p.x > 0; })) continue;
    s.level = true;
    fig.notes.push_back(s.label + " sits at x = " + number_text(s.points.front().x) +
                        ", which the log axis cannot show: it is drawn as a level line across the plot at its mean "
                        "(its band: min .. max over seeds), and the table lists it at " +
                        number_text(s.points.front().x) + ".");
  }
}

void build_ours(Figure& fig, const SuiteSpec& spec, const std::string& x_key, const std::vector<const RunRow*>& rows,
                bool parameters) {
  // x per run: its parameter count, a config value (numeric or categorical) or the label's number.
  std::vector<std::pair<const RunRow*, std::string>> texts;
  bool categorical = false;
  std::vector<std::string> no_params;
  for (const RunRow* r : rows) {
    std::string text;
    if (parameters) {
      if (r->params <= 0) {
        no_params.push_back(r->name);
        continue;
      }
      text = std::to_string(r->params);
    } else if (spec.x_rule == XRule::LabelCategory && x_key.empty()) {
      text = r->label;
      categorical = true;
    } else if (spec.x_rule == XRule::ReducedRank && x_key == spec.x_key) {
      text = reduced_rank(*r);
    } else if (x_key == "model.embed_rank") {
      text = std::to_string(r->r);
    } else if (!x_key.empty()) {
      text = config_value(r->config, x_key);
    } else if (const auto n = trailing_number(r->label)) {
      text = number_text(*n);
    }
    if (text.empty()) {
      fig.notes.push_back("Run " + r->name + " has no x (" +
                          (x_key.empty() ? "no number ends its label" : x_key + " is not set") + "); it is not drawn.");
      continue;
    }
    categorical = categorical || !parse_number(text);
    texts.emplace_back(r, text);
  }
  if (!no_params.empty()) {
    fig.notes.push_back(
        "Runs with no stored parameter count are not drawn on the parameters axis: " + join(no_params, ", ") + ".");
  }
  std::vector<std::pair<const RunRow*, double>> placed;
  for (const auto& [row, text] : texts) {
    placed.emplace_back(
        row, categorical ? static_cast<double>(category_index(fig.x_categories, text)) : *parse_number(text));
  }
  // On the parameters axis every grid label is its own line (VB Fig. 4: one line per ratio).
  SuiteSpec local = spec;
  if (parameters && (spec.series == SeriesRule::Budget || spec.series == SeriesRule::Single))
    local.series = SeriesRule::Label;
  const auto budgets =
      local.series == SeriesRule::Budget ? budget_series(placed) : std::map<const RunRow*, std::string>{};
  for (const auto& [row, x] : placed) {
    FigureSeries& series = series_named(fig.ours, series_of(local, *row, budgets));
    if (series.points.empty() && series.tokenizer.empty()) series.tokenizer = row->tokenizer;
    if (series.tokenizer != row->tokenizer) series.tokenizer = "*";
    auto it =
        std::find_if(series.points.begin(), series.points.end(), [x = x](const FigurePoint& p) { return p.x == x; });
    if (it == series.points.end()) {
      series.points.push_back(FigurePoint{});
      series.points.back().x = x;
      it = series.points.end() - 1;
    }
    add_run(*it, *row);
  }
  sort_points(fig.ours);
  if (!parameters) add_parameter_notes(fig, local, placed, budgets);
}

// A loss is in nats per unit of the run's tokenizer: per byte for "bytes", per BPE token otherwise.
std::string loss_unit(const std::string& tokenizer) { return tokenizer == "bytes" ? "nats/byte" : "nats/token"; }

// Runs of several tokenizers share the plot (vb-depth-width's arms), so the label names each unit.
std::string ours_y_label(const std::vector<const RunRow*>& rows) {
  std::vector<std::string> data;
  for (const RunRow* r : rows) {
    for (const std::string& v : {r->corpus, r->tokenizer}) {
      if (!v.empty() && std::find(data.begin(), data.end(), v) == data.end()) data.push_back(v);
    }
  }
  const std::vector<std::string> tokenizers = tokenizers_of(rows);
  std::string unit;
  if (tokenizers.size() > 1) {
    unit = "nats per token of each series' tokenizer, a byte for bytes";
  } else {
    unit = loss_unit(tokenizers.empty() ? "" : tokenizers[0]);
  }
  return "final val loss (" + unit + (data.empty() ? "" : "; " + join(data, ", ")) + "; lower is better)";
}

// Losses of different tokenizers are different units: a BPE token carries several bytes, so its
// loss is higher for the same model quality. Said once when a figure mixes them; when every series
// is of one tokenizer, the figure gets a panel (its own plot and y axis) per tokenizer.
void add_unit_note(Figure& fig, const std::vector<const RunRow*>& rows) {
  const std::vector<std::string> tokenizers = tokenizers_of(rows);
  if (tokenizers.size() < 2) return;
  const bool separable = std::none_of(fig.ours.begin(), fig.ours.end(),
                                      [](const FigureSeries& s) { return s.tokenizer == "*" || s.tokenizer.empty(); });
  fig.notes.push_back(
      loss_units_warning(rows, "val_loss") +
      (separable ? " Each tokenizer has its own plot: compare series within a plot, never across." : ""));
  if (!separable) return;
  for (const std::string& t : tokenizers) {
    fig.ours_panels.push_back(FigurePanel{t, "final val loss (" + loss_unit(t) + ")"});
  }
}

// --- paper ------------------------------------------------------------------------

std::optional<CsvTable> load_reference(Figure& fig, const std::string& path, std::string* warnings) {
  std::string error;
  auto table = read_reference_csv(path, &error);
  if (!table) {
    warn(warnings, fig.suite + ": " + error);
    fig.notes.push_back("Reference numbers unavailable: " + error + ".");
    return std::nullopt;
  }
  for (const std::string& p : table->problems) warn(warnings, fig.suite + ": " + p);
  return table;
}

bool has_columns(Figure& fig, const CsvTable& table, const std::vector<std::string_view>& columns,
                 std::string* warnings) {
  for (std::string_view c : columns) {
    if (table.column(c)) continue;
    const std::string msg =
        table.file + " has no column '" + std::string(c) + "' (its columns: " + join(table.header, ", ") + ")";
    warn(warnings, fig.suite + ": " + msg);
    fig.notes.push_back("Reference numbers unavailable: " + msg + ".");
    return false;
  }
  return true;
}

void build_paper(Figure& fig, const PaperSpec& spec, const CsvTable& table, std::string* warnings) {
  fig.paper_y_label = std::string(spec.y_label);
  if (!has_columns(fig, table, spec.columns, warnings)) return;
  for (const CsvRow& row : table.rows) {
    const RowView view{table, row};
    if (!spec.keep(view) || view.get(spec.y_column).empty()) continue;  // empty = not reported
    const std::string where = table.file + " line " + std::to_string(row.line);
    const auto y = parse_number(view.get(spec.y_column));
    const auto x = spec.category ? std::optional<double>(0) : parse_number(view.get(spec.x_column));
    const std::string sd_text = view.get(spec.sd_column);
    const auto sd = parse_number(sd_text);
    if (!y || !x || (!sd_text.empty() && !sd)) {
      warn(warnings, fig.suite + ": " + where + ": " + std::string(spec.x_column) + ", " + std::string(spec.y_column) +
                         " and " + std::string(spec.sd_column) + " must be numbers (row skipped)");
      continue;
    }
    FigurePoint p;
    p.x = spec.category ? static_cast<double>(category_index(fig.x_categories, spec.category(view))) : *x;
    p.mean = *y;
    if (sd) {
      p.sd = *sd;
      p.lo = *y - *sd;
      p.hi = *y + *sd;
    }
    p.source = where + ": " + spec.describe(view);
    series_named(fig.paper, spec.series(view)).points.push_back(p);
  }
  sort_points(fig.paper);
}

// VB has plots only: cite the architectures it trained and its seed noise.
void add_vb_notes(Figure& fig, const SuiteSpec& spec, const CsvTable& reference, const std::string& reference_dir,
                  std::string* warnings) {
  if (reference.column("ratio") && reference.column("depth")) {
    std::set<double> ratios;
    for (const CsvRow& row : reference.rows) {
      if (const auto r = parse_number(RowView{reference, row}.get("ratio"))) ratios.insert(*r);
    }
    std::vector<std::string> list;
    for (double r : ratios) list.push_back(number_text(r));
    fig.notes.push_back("VB Table 5 (" + reference.file + ") lists " + std::to_string(reference.rows.size()) +
                        " trained architectures at ratios " + join(list, ", ") + "; their losses are plotted only.");
  }
  if (!spec.setup_figures.empty() &&
      has_columns(fig, reference, {"figure", "vocab", "depth", "widths_or_ranks"}, warnings)) {
    for (const CsvRow& row : reference.rows) {
      const RowView v{reference, row};
      if (std::find(spec.setup_figures.begin(), spec.setup_figures.end(), v.get("figure")) == spec.setup_figures.end())
        continue;
      fig.notes.push_back("VB " + v.get("figure") + " trained (" + reference.file + " line " +
                          std::to_string(row.line) + "): vocabulary " + v.get("vocab") + ", depth " + v.get("depth") +
                          ", " + v.get("widths_or_ranks"));
    }
  }
  if (spec.noise_figures.empty()) return;
  const auto noise = load_reference(fig, reference_dir + "/vb_loss_std.csv", warnings);
  if (!noise || !has_columns(fig, *noise, {"figure", "depth", "width", "embed_rank", "test_loss_std"}, warnings))
    return;
  std::vector<std::string> parts;
  for (const CsvRow& row : noise->rows) {
    const RowView v{*noise, row};
    if (std::find(spec.noise_figures.begin(), spec.noise_figures.end(), v.get("figure")) == spec.noise_figures.end())
      continue;
    const std::string rank = v.get("embed_rank").empty() ? "full rank" : "r " + v.get("embed_rank");
    parts.push_back(v.get("test_loss_std") + " (" + v.get("figure") + ", depth " + v.get("depth") + ", width " +
                    v.get("width") + ", " + rank + "; line " + std::to_string(row.line) + ")");
  }
  if (!parts.empty()) {
    fig.notes.push_back("VB's noise floor, the std of the test loss over 5 trainings (" + noise->file +
                        "): " + join(parts, "; ") + ".");
  }
}

// Numbers in a spec's notes and axis label that depend on the scale the runs trained at, computed
// from the runs (one n for all, else the sentence without the number):
//   {causal_at}       " (32 at n = 64)": floor(n/2) at the runs' context n
//   {standard_binds}  "from h = 8 (d/h = 16)": the fewest standard heads whose d/h < floor(n/2)
//   {th_counts}       "; ours: 6 -> 4, 24 -> 16": TH Table 2's head counts and the runs' own
std::string fill_from_runs(std::string text, const std::vector<const RunRow*>& runs) {
  std::set<int> contexts;
  for (const RunRow* r : runs) contexts.insert(r->n);
  const int n = contexts.size() == 1 ? *contexts.begin() : 0;
  const auto replace = [&](const std::string& token, const std::string& value) {
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at + value.size()))
      text.replace(at, token.size(), value);
  };
  replace("{causal_at}", n > 0 ? " (" + std::to_string(n / 2) + " at n = " + std::to_string(n) + ")" : "");
  const RunRow* binds = nullptr;
  for (const RunRow* r : runs)
    if (n > 0 && r->label == "standard" && r->h > 0 && r->d / r->h < n / 2 && (!binds || r->h < binds->h)) binds = r;
  replace("{standard_binds}",
          binds ? "from h = " + std::to_string(binds->h) + " (d/h = " + std::to_string(binds->d / binds->h) + ")"
                : std::string("once d/h < floor(n/2)"));
  std::string counts;
  for (const auto& [label, th] : {std::pair<const char*, int>{"6-6-6", 6}, {"24-24-24", 24}})
    for (const RunRow* r : runs)
      if (r->label == label) {
        counts += (counts.empty() ? "; ours: " : ", ") + std::to_string(th) + " -> " + std::to_string(r->h);
        break;
      }
  replace("{th_counts}", counts);
  return text;
}

}  // namespace

std::vector<std::string> figure_suites() {
  std::vector<std::string> names;
  for (const SuiteSpec& s : specs()) names.emplace_back(s.name);
  return names;
}

namespace {

// A stored suite's TOML, parsed once for every use in a build of the figures: through the shield,
// as a DB's stored TOML may come from anywhere (core/io/toml_read.h).
struct StoredToml {
  std::optional<toml::table> table;
  std::string error;  // why it does not parse
};

StoredToml parse_stored(const db::SuiteRecord& suite) {
  StoredToml t;
  t.table = io::parse_toml_shielded(suite.source_toml, suite.name, "suite", &t.error);
  return t;
}

std::vector<StoredToml> parse_stored(const std::vector<db::SuiteRecord>& suites) {
  std::vector<StoredToml> parsed;
  parsed.reserve(suites.size());
  for (const db::SuiteRecord& s : suites) parsed.push_back(parse_stored(s));
  return parsed;
}

std::optional<Figure> figure_of(const db::SuiteRecord& suite, const StoredToml& stored, const std::vector<RunRow>& rows,
                                const std::string& reference_dir, std::string* warnings, FigureAxis axis,
                                const std::vector<std::string>& pooled) {
  const SuiteSpec* spec = find_spec(suite.name);
  if (spec == nullptr) return std::nullopt;
  if (!stored.table) {
    warn(warnings, suite.name + ": the stored suite TOML does not parse (" + stored.error + "); no figure for it");
    return std::nullopt;
  }
  const toml::table& source = *stored.table;
  Figure fig;
  fig.suite = suite.name;
  fig.title = io::toml_string(source["suite"]["reproduces"], suite.name);
  fig.paper_name = io::toml_string(source["suite"]["paper"]);
  const std::string x_key = io::toml_string(source["suite"]["x"]);
  std::vector<const RunRow*> mine;
  for (const RunRow& r : rows) {
    if (r.suite == suite.name || std::find(pooled.begin(), pooled.end(), r.suite) != pooled.end()) mine.push_back(&r);
  }
  fig.key_x_label = x_key == spec->x_key ? fill_from_runs(std::string(spec->x_label), mine) : x_key;
  fig.default_axis = spec->parameters_default ? FigureAxis::Parameters : FigureAxis::SuiteKey;
  fig.axis = axis == FigureAxis::Default ? fig.default_axis : axis;
  const bool parameters = fig.axis == FigureAxis::Parameters;
  fig.x_label = parameters ? "parameters (all: embeddings, blocks, head)" : fig.key_x_label;
  fig.log_x = parameters || (x_key == spec->x_key && spec->log_x);

  fig.ours_y_label = ours_y_label(mine);
  build_ours(fig, *spec, x_key, mine, parameters);
  if (fig.log_x) mark_levels(fig);
  add_completion_notes(fig, mine);
  add_unit_note(fig, mine);
  if (!suite.scale.empty()) fig.notes.push_back("Runs enqueued at scale '" + suite.scale + "'.");
  if (!pooled.empty()) {
    std::string names;
    for (const std::string& p : pooled) names += (names.empty() ? "" : ", ") + p;
    fig.notes.push_back("With the runs of " + names +
                        ": stored suites that reproduce the same figure on the same x at the same scale "
                        "(more seeds or rows of this one); their run groups pool with this suite's.");
  }

  const std::string reference = io::toml_string(source["suite"]["reference"]);
  if (reference.empty()) {
    fig.notes.push_back("The stored suite names no reference file, so there are no paper numbers.");
  } else if (const auto table = load_reference(fig, reference_dir + "/" + reference, warnings)) {
    if (spec->paper != nullptr && parameters) {
      fig.notes.push_back("The paper's numbers (" + reference + ") are indexed by " + std::string(spec->paper_axis) +
                          ", not by a total parameter count: choose the suite's axis to see them beside ours.");
    } else if (spec->paper != nullptr) {
      build_paper(fig, *spec->paper, *table, warnings);
    } else {
      add_vb_notes(fig, *spec, *table, reference_dir, warnings);
    }
  }
  for (std::string_view f : spec->findings) fig.notes.push_back(fill_from_runs(std::string(f), mine));
  return fig;
}

std::vector<std::vector<std::string>> pooled_of(const std::vector<db::SuiteRecord>& suites,
                                                const std::vector<StoredToml>& parsed) {
  // What each stored suite reproduces, on which x, at which scale ("" where its TOML does not parse
  // or says nothing).
  std::vector<std::string> identities;
  for (size_t i = 0; i < suites.size(); ++i) {
    std::string identity;
    if (const auto& t = parsed[i].table) {
      const std::string reproduces = io::toml_string((*t)["suite"]["reproduces"]);
      if (!reproduces.empty())
        identity = reproduces + '\n' + io::toml_string((*t)["suite"]["x"]) + '\n' + suites[i].scale;
    }
    identities.push_back(std::move(identity));
  }
  std::vector<std::vector<std::string>> pooled(suites.size());
  for (size_t i = 0; i < suites.size(); ++i) {
    if (identities[i].empty() || find_spec(suites[i].name) == nullptr) continue;
    for (size_t j = 0; j < suites.size(); ++j) {
      if (identities[j] == identities[i] && find_spec(suites[j].name) == nullptr) pooled[i].push_back(suites[j].name);
    }
  }
  return pooled;
}

}  // namespace

std::optional<Figure> build_figure(const db::SuiteRecord& suite, const std::vector<RunRow>& rows,
                                   const std::string& reference_dir, std::string* warnings, FigureAxis axis,
                                   const std::vector<std::string>& pooled) {
  return figure_of(suite, parse_stored(suite), rows, reference_dir, warnings, axis, pooled);
}

std::vector<std::vector<std::string>> pooled_suites(const std::vector<db::SuiteRecord>& suites) {
  return pooled_of(suites, parse_stored(suites));
}

std::vector<Figure> build_figures(const std::vector<db::SuiteRecord>& suites, const std::vector<RunRow>& rows,
                                  const std::string& reference_dir, std::string* warnings,
                                  const std::map<std::string, FigureAxis>& axes, FigureAxis otherwise) {
  const std::vector<StoredToml> parsed = parse_stored(suites);
  const std::vector<std::vector<std::string>> pooled = pooled_of(suites, parsed);
  std::vector<Figure> figures;
  for (size_t i = 0; i < suites.size(); ++i) {
    const auto chosen = axes.find(suites[i].name);
    const FigureAxis axis = chosen != axes.end() ? chosen->second : otherwise;
    if (auto fig = figure_of(suites[i], parsed[i], rows, reference_dir, warnings, axis, pooled[i]))
      figures.push_back(std::move(*fig));
  }
  return figures;
}

std::vector<Figure> build_figures(db::RunStore& store, const std::vector<RunRow>& rows,
                                  const std::string& reference_dir, std::string* warnings, FigureAxis axis) {
  return build_figures(store.list_suites(), rows, reference_dir, warnings, {}, axis);
}

std::string x_category(const Figure& fig, double x) {
  const int i = static_cast<int>(x);
  if (fig.x_categories.empty() || i < 0 || i >= static_cast<int>(fig.x_categories.size())) return {};
  return fig.x_categories[static_cast<size_t>(i)];
}

void write_figure_csv(std::ostream& out, const Figure& fig) {
  out << "figure,source,series,x,x_category,value,min,max,sd,runs_done,runs,citation\r\n";
  const auto rows = [&](const std::vector<FigureSeries>& all, bool paper) {
    for (const FigureSeries& s : all)
      for (const FigurePoint& p : s.points) {
        const bool spread = std::isfinite(p.lo) && std::isfinite(p.hi);
        out << csv_field(fig.suite) << ',' << (paper ? "paper" : "ours") << ',' << csv_field(s.label) << ','
            << csv_number(p.x) << ',' << csv_field(x_category(fig, p.x)) << ',' << csv_number(p.mean) << ','
            << (!paper && spread ? csv_number(p.lo) : "") << ',' << (!paper && spread ? csv_number(p.hi) : "") << ','
            << (paper ? csv_number(p.sd) : "") << ',' << (paper ? "" : std::to_string(p.done)) << ','
            << (paper ? "" : std::to_string(p.runs)) << ',' << csv_field(p.source) << "\r\n";
      }
  };
  rows(fig.ours, false);
  rows(fig.paper, true);
}

std::string figure_value_text(const FigurePoint& p, bool paper) {
  if (!std::isfinite(p.mean)) return "-";
  char text[96];
  const bool spread = std::isfinite(p.lo) && std::isfinite(p.hi) && p.hi > p.lo;
  if (paper) {
    if (std::isfinite(p.sd)) std::snprintf(text, sizeof text, "%g (sd %g)", p.mean, p.sd);
    else std::snprintf(text, sizeof text, "%g", p.mean);
  } else if (spread) {
    std::snprintf(text, sizeof text, "%.4f (%.4f .. %.4f)", p.mean, p.lo, p.hi);
  } else {
    std::snprintf(text, sizeof text, "%.4f", p.mean);
  }
  return text;
}

int figure_for_runs(const std::vector<Figure>& figures, const std::set<std::int64_t>& selected,
                    const std::vector<std::int64_t>& shown) {
  // The figures hold a few hundred runs, the table's filtered rows up to 100k: index the figures'
  // runs (figure indices, once per point that holds the run) and look each row up, rather than
  // make a set of the rows.
  std::unordered_map<std::int64_t, std::vector<int>> figures_of_run;
  for (std::size_t i = 0; i < figures.size(); ++i)
    for (const auto& series : figures[i].ours)
      for (const auto& point : series.points)
        for (const std::int64_t id : point.run_ids) figures_of_run[id].push_back(static_cast<int>(i));
  // (selected, shown) runs in each figure; the shown rows are distinct runs.
  std::vector<std::pair<std::size_t, std::size_t>> counts(figures.size());
  for (const std::int64_t id : selected)
    if (const auto it = figures_of_run.find(id); it != figures_of_run.end())
      for (const int i : it->second) ++counts[static_cast<std::size_t>(i)].first;
  for (const std::int64_t id : shown)
    if (const auto it = figures_of_run.find(id); it != figures_of_run.end())
      for (const int i : it->second) ++counts[static_cast<std::size_t>(i)].second;
  int best = -1;
  std::pair<std::size_t, std::size_t> best_count{0, 0};
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const auto& count = counts[i];
    if (count.first == 0 && count.second == 0) continue;
    // A figure with a selected run beats one with none, whatever they hold of the shown rows.
    const bool better = best < 0 || count.first > best_count.first ||
                        (count.first == best_count.first && best_count.first == 0 && count.second > best_count.second);
    if (better) best = static_cast<int>(i), best_count = count;
  }
  return best;
}

}  // namespace headroom::explorer
