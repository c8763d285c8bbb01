#include "app/gui/explorer/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <toml++/toml.h>

#include "app/gui/explorer/reference_csv.h"

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
  std::string (*describe)(const RowView&);         // the row, for its point's source
  std::string (*category)(const RowView&) = nullptr;  // categorical x: our category of the row
};

enum class SeriesRule {
  Label,              // one series per grid label
  LabelAndTokenizer,  // ... and tokenizer (vb-depth-width sweeps vocabularies)
  Budget,             // the k-th widest run of every label (vb-attention-ratio's size budgets)
  Single,             // one series (categorical x)
};

struct SuiteSpec {
  std::string_view name;
  std::string_view x_key;    // the [suite] x this spec describes; "" = the number ending the label
  std::string_view x_label;
  bool log_x;
  SeriesRule series;
  const PaperSpec* paper;    // nullptr: the paper has plots only
  std::vector<std::string_view> setup_figures;  // vb_setups.csv rows cited in notes
  std::vector<std::string_view> noise_figures;  // vb_loss_std.csv rows cited in notes
  std::vector<std::string_view> findings;       // qualitative findings (assets/reference/README.md)
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
  return "LRB Table " + r.get("table") + ", " + r.get("attention") + ", d=" + r.get("d_model") + ", heads=" +
         r.get("heads") + ", head size " + r.get("head_size");
}
std::string th_series(const RowView& r) { return "TH Table " + r.get("table") + ": " + r.get("variant"); }
std::string th_describe(const RowView& r) { return "TH Table " + r.get("table") + ", " + r.get("variant") + ", h=" + r.get("h"); }
bool th_core_variant(const RowView& r) { return r.get("variant") == "multi-head" || r.get("variant") == "talking-heads"; }

const PaperSpec kLrbHeads{"SQuAD dev F1 (24-layer BERT; higher is better)",
                          {"table", "attention", "d_model", "heads", "head_size", "squad_f1", "squad_f1_sd"},
                          "heads", "squad_f1", "squad_f1_sd",
                          [](const RowView& r) { return r.get("table") == "1" || r.get("table") == "2A"; },
                          lrb_heads_series, lrb_describe};
const PaperSpec kLrbHeadSize{"SQuAD dev F1 (24-layer BERT, 8 heads; higher is better)",
                             {"table", "attention", "d_model", "heads", "head_size", "squad_f1", "squad_f1_sd"},
                             "head_size", "squad_f1", "squad_f1_sd",
                             [](const RowView& r) { return r.get("table") == "2B"; },
                             lrb_head_size_series, lrb_describe};
constexpr std::string_view kThYLabel = "ln perplexity on C4 after 65k steps (T5-base; lower is better)";
const std::vector<std::string_view> kThColumns = {"table", "variant", "h", "ln_ppl_65k", "ln_ppl_65k_sd"};
const PaperSpec kThHeads{kThYLabel, kThColumns, "h", "ln_ppl_65k", "ln_ppl_65k_sd",
                         [](const RowView& r) { return r.get("table") == "1"; }, th_series, th_describe};
// Table 8 at h = 12 and 24, with the multi-head and talking-heads rows it repeats from Table 1.
const PaperSpec kThDynamic{kThYLabel, kThColumns, "h", "ln_ppl_65k", "ln_ppl_65k_sd",
                           [](const RowView& r) {
                             const bool repeated = r.get("table") == "1" && th_core_variant(r) &&
                                                   (r.get("h") == "12" || r.get("h") == "24");
                             return r.get("table") == "8" || repeated;
                           },
                           th_series, th_describe};
// Table 3 at h = 24, with the multi-head and talking-heads rows it repeats from Table 1.
const PaperSpec kThProjections{kThYLabel, kThColumns, "h", "ln_ppl_65k", "ln_ppl_65k_sd",
                               [](const RowView& r) {
                                 return r.get("table") == "3" || (r.get("table") == "1" && th_core_variant(r) && r.get("h") == "24");
                               },
                               [](const RowView&) { return std::string("TH Tables 1 + 3, h=24"); }, th_describe,
                               [](const RowView& r) {
                                 const std::string v = r.get("variant");
                                 if (v == "project logits") return std::string("logits-proj");
                                 if (v == "project weights") return std::string("weights-proj");
                                 return v;
                               }};

constexpr std::string_view kCompareTrends =
    "The paper's numbers come from much larger models and other data and metrics: compare trends and orderings, "
    "not values.";

const std::vector<SuiteSpec>& specs() {
  static const std::vector<SuiteSpec> all = {
      {"lrb-heads", "model.attention.heads", "heads h", true, SeriesRule::Label, &kLrbHeads, {}, {},
       {"LRB Fig. 1a / 3a (LM1B, plots): with standard head size, perplexity stops improving and then worsens as heads "
        "grow past ~16 at d = 256; with fixed head size 32 it keeps improving up to 70 heads.",
        kCompareTrends}},
      {"lrb-head-size", "model.attention.d_k", "head size d_p", true, SeriesRule::Label, &kLrbHeadSize, {}, {},
       {"LRB Fig. 3b / Sec. 4.3 (plot): at a fixed number of heads a larger head size d_p is clearly better; "
        "Table 2B is the BERT counterpart.",
        kCompareTrends}},
      {"th-heads", "model.attention.heads", "heads h", true, SeriesRule::Label, &kThHeads, {}, {}, {kCompareTrends}},
      {"th-projections", "model.attention.kind", "attention kind", false, SeriesRule::Single, &kThProjections, {}, {},
       {kCompareTrends}},
      {"th-dynamic", "model.attention.heads", "heads h", true, SeriesRule::Label, &kThDynamic, {}, {},
       {"TH Table 8 repeats Table 1's multi-head and talking-heads rows at h = 12 and 24 (cited at their Table 1 "
        "lines).",
        kCompareTrends}},
      {"vb-rank", "model.embed_rank", "embedding rank r (full rank: r = width d)", true, SeriesRule::Label, nullptr,
       {"Fig. 2"}, {"Fig. 2"},
       {"VB Fig. 2 is a plot (no numbers in the text): lowering the embedding rank r at width 680 hurts much faster "
        "than shrinking the width; r/d_x = 16/680 is comparable to a full-rank network ~25% smaller."}},
      {"vb-depth-width", "model.width", "width d", false, SeriesRule::LabelAndTokenizer, nullptr,
       {"Fig. 1a", "Fig. 1b", "Fig. 1c", "Fig. 3"}, {"Fig. 1a", "Fig. 1b", "Fig. 3"},
       {"VB Fig. 1 / 3 are plots (no numbers in the text): the deeper network (48) overtakes the shallower (24) once "
        "the shallow width exceeds roughly the vocabulary size (V = 500: around width 408) or the embedding rank "
        "(V = 2000 at rank 500: around 504); with V = 50257 there is no such effect (Fig. 5)."}},
      {"vb-attention-ratio", "", "bottleneck ratio H d_a / d_x (from the grid label)", true, SeriesRule::Budget, nullptr,
       {}, {},
       {"VB Fig. 4 is a plot (no numbers in the text): at fixed size, loss worsens monotonically with H d_a / d_x in "
        "{1, 2, 4, 8, 16}; a ratio-4 network is matched by a ratio-1 network with ~75% of its parameters, ratio 16 "
        "by one with ~55%."}},
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
    std::stable_sort(s.points.begin(), s.points.end(), [](const FigurePoint& a, const FigurePoint& b) { return a.x < b.x; });
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
    if (status != db::RunStatus::Done) parts.push_back(std::to_string(count) + " " + std::string(db::to_string(status)));
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
                        status_counts(rows) + "): unfinished runs count in a point's runs but their current val "
                        "loss is not in its mean or range.");
  }
  if (!no_value.empty()) {
    fig.notes.push_back("Finished without a finite val_loss, so left out of the means: " + join(no_value, ", ") + ".");
  }
}

void build_ours(Figure& fig, const SuiteSpec& spec, const std::string& x_key, const std::vector<const RunRow*>& rows) {
  // x per run: a config value (numeric or categorical) or the label's number.
  std::vector<std::pair<const RunRow*, std::string>> texts;
  bool categorical = false;
  for (const RunRow* r : rows) {
    std::string text;
    if (x_key == "model.embed_rank") {
      text = std::to_string(r->r);
    } else if (!x_key.empty()) {
      text = config_value(r->config, x_key);
    } else if (const auto n = trailing_number(r->label)) {
      text = number_text(*n);
    }
    if (text.empty()) {
      fig.notes.push_back("Run " + r->name + " has no x (" + (x_key.empty() ? "no number ends its label" : x_key + " is not set") +
                          "); it is not drawn.");
      continue;
    }
    categorical = categorical || !parse_number(text);
    texts.emplace_back(r, text);
  }
  std::vector<std::pair<const RunRow*, double>> placed;
  for (const auto& [row, text] : texts) {
    placed.emplace_back(row, categorical ? static_cast<double>(category_index(fig.x_categories, text)) : *parse_number(text));
  }
  const auto budgets = spec.series == SeriesRule::Budget ? budget_series(placed) : std::map<const RunRow*, std::string>{};
  for (const auto& [row, x] : placed) {
    FigureSeries& series = series_named(fig.ours, series_of(spec, *row, budgets));
    auto it = std::find_if(series.points.begin(), series.points.end(), [x = x](const FigurePoint& p) { return p.x == x; });
    if (it == series.points.end()) {
      series.points.push_back(FigurePoint{});
      series.points.back().x = x;
      it = series.points.end() - 1;
    }
    add_run(*it, *row);
  }
  sort_points(fig.ours);
}

std::string ours_y_label(const std::vector<const RunRow*>& rows) {
  std::vector<std::string> data;
  bool bytes_only = !rows.empty();
  for (const RunRow* r : rows) {
    for (const std::string& v : {r->corpus, r->tokenizer}) {
      if (!v.empty() && std::find(data.begin(), data.end(), v) == data.end()) data.push_back(v);
    }
    bytes_only = bytes_only && r->tokenizer == "bytes";
  }
  return std::string("final val loss (nats/") + (bytes_only ? "byte" : "token") + (data.empty() ? "" : "; " + join(data, ", ")) +
         "; lower is better)";
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

bool has_columns(Figure& fig, const CsvTable& table, const std::vector<std::string_view>& columns, std::string* warnings) {
  for (std::string_view c : columns) {
    if (table.column(c)) continue;
    const std::string msg = table.file + " has no column '" + std::string(c) + "' (its columns: " + join(table.header, ", ") + ")";
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
  if (!spec.setup_figures.empty() && has_columns(fig, reference, {"figure", "vocab", "depth", "widths_or_ranks"}, warnings)) {
    for (const CsvRow& row : reference.rows) {
      const RowView v{reference, row};
      if (std::find(spec.setup_figures.begin(), spec.setup_figures.end(), v.get("figure")) == spec.setup_figures.end()) continue;
      fig.notes.push_back("VB " + v.get("figure") + " trained (" + reference.file + " line " + std::to_string(row.line) +
                          "): vocabulary " + v.get("vocab") + ", depth " + v.get("depth") + ", " + v.get("widths_or_ranks"));
    }
  }
  if (spec.noise_figures.empty()) return;
  const auto noise = load_reference(fig, reference_dir + "/vb_loss_std.csv", warnings);
  if (!noise || !has_columns(fig, *noise, {"figure", "depth", "width", "embed_rank", "test_loss_std"}, warnings)) return;
  std::vector<std::string> parts;
  for (const CsvRow& row : noise->rows) {
    const RowView v{*noise, row};
    if (std::find(spec.noise_figures.begin(), spec.noise_figures.end(), v.get("figure")) == spec.noise_figures.end()) continue;
    const std::string rank = v.get("embed_rank").empty() ? "full rank" : "r " + v.get("embed_rank");
    parts.push_back(v.get("test_loss_std") + " (" + v.get("figure") + ", depth " + v.get("depth") + ", width " +
                    v.get("width") + ", " + rank + "; line " + std::to_string(row.line) + ")");
  }
  if (!parts.empty()) {
    fig.notes.push_back("VB's noise floor, the std of the test loss over 5 trainings (" + noise->file + "): " +
                        join(parts, "; ") + ".");
  }
}

}  // namespace

std::vector<std::string> figure_suites() {
  std::vector<std::string> names;
  for (const SuiteSpec& s : specs()) names.emplace_back(s.name);
  return names;
}

std::optional<Figure> build_figure(const db::SuiteRecord& suite, const std::vector<RunRow>& rows,
                                   const std::string& reference_dir, std::string* warnings) {
  const SuiteSpec* spec = find_spec(suite.name);
  if (spec == nullptr) return std::nullopt;
  toml::table source;
  try {
    source = toml::parse(suite.source_toml);
  } catch (const toml::parse_error& e) {
    warn(warnings, suite.name + ": the stored suite TOML does not parse (" + std::string(e.description()) +
                       "); no figure for it");
    return std::nullopt;
  }
  Figure fig;
  fig.suite = suite.name;
  fig.title = source["suite"]["reproduces"].value_or(suite.name);
  fig.paper_name = source["suite"]["paper"].value_or(std::string());
  const std::string x_key = source["suite"]["x"].value_or(std::string());
  fig.x_label = x_key == spec->x_key ? std::string(spec->x_label) : x_key;
  fig.log_x = x_key == spec->x_key && spec->log_x;

  std::vector<const RunRow*> mine;
  for (const RunRow& r : rows) {
    if (r.suite == suite.name) mine.push_back(&r);
  }
  fig.ours_y_label = ours_y_label(mine);
  build_ours(fig, *spec, x_key, mine);
  add_completion_notes(fig, mine);
  if (!suite.scale.empty()) fig.notes.push_back("Runs enqueued at scale '" + suite.scale + "'.");

  const std::string reference = source["suite"]["reference"].value_or(std::string());
  if (reference.empty()) {
    fig.notes.push_back("The stored suite names no reference file, so there are no paper numbers.");
  } else if (const auto table = load_reference(fig, reference_dir + "/" + reference, warnings)) {
    if (spec->paper != nullptr) {
      build_paper(fig, *spec->paper, *table, warnings);
    } else {
      add_vb_notes(fig, *spec, *table, reference_dir, warnings);
    }
  }
  for (std::string_view f : spec->findings) fig.notes.emplace_back(f);
  return fig;
}

std::vector<Figure> build_figures(db::RunStore& store, const std::vector<RunRow>& rows, const std::string& reference_dir,
                                  std::string* warnings) {
  std::vector<Figure> figures;
  for (const db::SuiteRecord& suite : store.list_suites()) {
    if (auto fig = build_figure(suite, rows, reference_dir, warnings)) figures.push_back(std::move(*fig));
  }
  return figures;
}

}  // namespace headroom::explorer
