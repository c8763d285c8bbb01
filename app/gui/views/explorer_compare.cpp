#include "app/gui/views/explorer_compare.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/gui/ui_util.h"
#include "app/gui/views/plot_series.h"
#include "core/io/atomic_file.h"
#include "widgets/draw_util.h"
#include "widgets/line_plot.h"

namespace headroom::gui {
namespace {

constexpr int kBuckets = 320;
constexpr const char* kMetric = "val_loss";

std::string seed_list(const std::vector<std::int64_t>& seeds) {
  std::string text;
  for (std::int64_t s : seeds) text += (text.empty() ? "" : ", ") + std::to_string(s);
  return text;
}

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

}  // namespace

void ExplorerCompare::reset() {
  rows_.reset();
  selection_.clear();
  pools_.clear();
  labels_.clear();
  paired_ = {};
  units_warning_.clear();
  parameters_.clear();
  a_ = 0, b_ = 1;
  curves_drawn_ = 0;
  export_message_.clear();
  export_error_ = false;
  names_.clear();
  clear_pins();
}

void ExplorerCompare::clear_pins() {
  pins_.clear();
  pinned_.clear();
  pooled_ = {};
  pin_problem_.clear();
}

void ExplorerCompare::refresh(const ExplorerSession& session) {
  if (session.rows != rows_ || session.selected != selection_) reselect(session);
  // A scene's pins once every row is read (a run it names may be among the last read): not on the
  // empty snapshot a view holds before its first load, nor on a DB that did not open.
  if (!scene_pins.empty() && rows_ && rows_->open && !rows_->partial) apply_scene_pins(session);
}

void ExplorerCompare::reselect(const ExplorerSession& session) {
  const std::string a_key = a_ < static_cast<int>(pools_.size()) ? pools_[a_].key : "";
  const std::string b_key = b_ < static_cast<int>(pools_.size()) ? pools_[b_].key : "";
  rows_ = session.rows;
  selection_ = session.selected;
  // The selected runs in the table's order (then any the filter hides, by id): A and B default to
  // the first two configurations there.
  std::vector<const explorer::RunRow*> chosen;
  std::set<std::int64_t> placed;
  for (const explorer::RunRow* r : session.shown)
    if (selection_.count(r->id) && placed.insert(r->id).second) chosen.push_back(r);
  for (std::int64_t id : selection_)
    if (!placed.count(id))
      if (const explorer::RunRow* r = session.find_row(id)) chosen.push_back(r);
  pools_ = rows_ ? explorer::seed_pools(chosen, rows_->rows) : std::vector<explorer::SeedPool>{};

  // Labels: the selected run's name without its suite and seed (a pool may hold runs named
  // otherwise in other suites), the suite in front where two read alike, then how many runs (and
  // suites) the pool holds.
  std::vector<std::string> names, suites;
  for (const auto& pool : pools_) {
    names.push_back(explorer::without_seed(session.short_name(*pool.chosen)));
    suites.push_back(pool.chosen->suite);
  }
  names = explorer::with_suites_where_alike(std::move(names), suites);
  names_ = names;
  labels_.clear();
  for (std::size_t i = 0; i < pools_.size(); ++i) {
    std::string label = explorer::runs_counted(names[i], pools_[i].runs.size());
    if (pools_[i].suites.size() > 1)
      label.insert(label.size() - 1, ", " + std::to_string(pools_[i].suites.size()) + " suites");
    // Still alike (one suite, configs differing beyond the name): number them.
    for (std::size_t j = 0; j < i; ++j)
      if (labels_[j] == label) label += " #" + std::to_string(i + 1);
    labels_.push_back(label);
  }
  // Keep A and B where their configurations are still selected.
  auto index_of = [&](const std::string& key, int fallback) {
    for (std::size_t i = 0; i < pools_.size(); ++i)
      if (!key.empty() && pools_[i].key == key) return static_cast<int>(i);
    return fallback;
  };
  a_ = index_of(a_key, 0);
  b_ = index_of(b_key, a_ == 1 ? 0 : 1);
  if (b_ == a_) b_ = a_ == 0 ? 1 : 0;
  pair_pools();
  repin(session);
}

void ExplorerCompare::apply_scene_pins(const ExplorerSession& session) {
  auto named = [&](const std::string& name) -> const explorer::RunRow* {
    for (const auto& r : rows_->rows)
      if (r.name == name) return &r;
    if (pin_problem_.empty()) pin_problem_ = "The scene pins a run this DB does not hold: " + name + ".";
    return nullptr;
  };
  for (const auto& [a_name, b_name] : scene_pins) {
    const explorer::RunRow* a = named(a_name);
    const explorer::RunRow* b = named(b_name);
    if (a && b)
      pin(*a, *b,
          explorer::without_seed(session.short_name(*a)) + " - " + explorer::without_seed(session.short_name(*b)));
  }
  scene_pins.clear();
  repin(session);
}

void ExplorerCompare::pin(const explorer::RunRow& a, const explorer::RunRow& b, const std::string& names) {
  if (!a.config.valid() || !b.config.valid()) return;
  // The names leave out what the suite fixed (the context, say): the suite in front, the shapes in
  // the tooltip, so pins from several suites read apart.
  auto shape = [](const explorer::RunRow& r) {
    return r.name + "  (n " + std::to_string(r.n) + ", d " + std::to_string(r.d) + ", h " + std::to_string(r.h) +
           ", d_k " + std::to_string(r.d_p) + ", L " + std::to_string(r.L) + ", " + r.kind + ")";
  };
  Pin p{explorer::seed_pool_key(a.config),
        explorer::seed_pool_key(b.config),
        a.id,
        b.id,
        a.suite + ": " + names,
        "A: " + shape(a) + "\nB: " + shape(b) + "\n(each with every run of its configuration, any seed or suite)"};
  for (const Pin& q : pins_)
    if (q.a_key == p.a_key && q.b_key == p.b_key) return;  // pinned already
  pins_.push_back(std::move(p));
}

void ExplorerCompare::repin(const ExplorerSession& session) {
  pinned_.clear();
  pooled_ = {};
  if (!rows_ || pins_.empty()) return;
  // One pass over the rows for every pin's A and B (a live DB reloads its rows each second).
  std::vector<const explorer::RunRow*> chosen;
  std::vector<bool> found;  // per pin: both its runs are in the rows now
  for (const Pin& p : pins_) {
    const explorer::RunRow* a = session.find_row(p.a_run);  // rows_ is session.rows here
    const explorer::RunRow* b = session.find_row(p.b_run);
    found.push_back(a && b);
    if (a && b) chosen.insert(chosen.end(), {a, b});
  }
  const auto pools = explorer::seed_pools(chosen, rows_->rows);
  auto pool_of = [&](const std::string& key) -> const explorer::SeedPool* {
    for (const auto& pool : pools)
      if (pool.key == key) return &pool;
    return nullptr;
  };
  for (std::size_t i = 0; i < pins_.size(); ++i) {
    const explorer::SeedPool* a = found[i] ? pool_of(pins_[i].a_key) : nullptr;
    const explorer::SeedPool* b = found[i] ? pool_of(pins_[i].b_key) : nullptr;
    pinned_.push_back(a && b && a != b ? explorer::compare_final_val_loss(*a, *b) : explorer::PairedComparison{});
  }
  pooled_ = explorer::pool_comparisons(pinned_);
}

void ExplorerCompare::pair_pools() {
  paired_ = {};
  units_warning_.clear();
  parameters_.clear();
  if (pools_.size() < 2) return;
  paired_ = explorer::compare_final_val_loss(pools_[a_], pools_[b_]);
  std::vector<const explorer::RunRow*> both = pools_[a_].runs;
  both.insert(both.end(), pools_[b_].runs.begin(), pools_[b_].runs.end());
  units_warning_ = explorer::loss_units_warning(both, kMetric);
  parameters_ = explorer::parameter_difference(pools_[a_], pools_[b_]);
}

std::vector<explorer::CurveKey> ExplorerCompare::wanted() const {
  std::vector<explorer::CurveKey> keys;
  for (const auto& p : paired_.pairs)
    for (const explorer::RunRow* r : {p.a, p.b})
      keys.push_back({r->id, kMetric, explorer::XAxis::Step, std::nullopt, kBuckets});
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

bool ExplorerCompare::settled(const ExplorerSession& session) const {
  // The plot lays out its y tick labels by the last frame's: one more frame on the same curves.
  // A scene's export waits for two configurations; with fewer the tab says what to select.
  return session.rows == rows_ && session.curves_ready() &&
         (pools_.size() < 2 || (stable_frames_ >= 1 && scene_export.empty()));
}

void ExplorerCompare::draw(ExplorerSession& session) {
  refresh(session);
  const float ui_scale = session.context.ui_scale;
  if (pools_.size() < 2) {
    curves_drawn_ = 0;
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text_disabled(
        "Select runs of two configurations in the table (ctrl-click) to compare them seed by seed. Runs whose "
        "configs differ only in train.seed pool into one configuration, across suites (a suite and its seed check "
        "together); each pair is one seed trained both ways.");
    if (pools_.size() == 1) wrapped_text_disabled("The selection holds one configuration: %s.", labels_[0].c_str());
    ImGui::PopTextWrapPos();
    draw_pins(session, ui_scale);
    return;
  }
  // A and B, the two combos sharing the line's width.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float fixed = ImGui::CalcTextSize("A").x + ImGui::CalcTextSize("minus B").x + ImGui::CalcTextSize("Swap").x +
                      ImGui::CalcTextSize("Pin").x + 4 * style.FramePadding.x + 5 * style.ItemSpacing.x;
  const float combo_w = std::max(160.0f * ui_scale, (ImGui::GetContentRegionAvail().x - fixed) / 2);
  auto pool_combo = [&](const char* id, int* index) {
    ImGui::SetNextItemWidth(combo_w);
    bool changed = false;
    // Where the combo is narrow, the preview drops the run count and cuts the configuration in its
    // middle (configurations differ at their ends); the tooltip and the list give them whole.
    const float preview_w = combo_w - ImGui::GetFrameHeight() - 2.0f * style.FramePadding.x;
    const std::string& whole = labels_[*index];
    const std::string preview = ImGui::CalcTextSize(whole.c_str()).x <= preview_w
                                    ? whole
                                    : elide_middle(names_[static_cast<std::size_t>(*index)], preview_w);
    if (ImGui::BeginCombo(id, preview.c_str())) {
      for (int i = 0; i < static_cast<int>(pools_.size()); ++i)
        if (ImGui::Selectable(labels_[i].c_str(), i == *index) && i != *index) *index = i, changed = true;
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", labels_[*index].c_str());
    return changed;
  };
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("A");
  ImGui::SameLine();
  bool changed = pool_combo("##pool_a", &a_);
  ImGui::SameLine();
  ImGui::TextUnformatted("minus B");
  ImGui::SameLine();
  changed |= pool_combo("##pool_b", &b_);
  ImGui::SameLine();
  if (ImGui::Button("Swap")) std::swap(a_, b_), changed = true;
  tooltip("A - B: negative where A's loss is lower.");
  ImGui::SameLine();
  const bool pinned = std::any_of(pins_.begin(), pins_.end(),
                                  [&](const Pin& p) { return p.a_key == pools_[a_].key && p.b_key == pools_[b_].key; });
  ImGui::BeginDisabled(pinned);
  if (ImGui::Button("Pin")) {
    pin(*pools_[a_].chosen, *pools_[b_].chosen, names_[a_] + " - " + names_[b_]);
    repin(session);
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", pinned ? "A - B is pinned below."
                                   : "Keep A - B in a pinned table, to set it beside other comparisons (the same "
                                     "change at other contexts, say) and pool them: one effect, or do they differ "
                                     "by more than their seeds' noise?");
  if (changed) {
    if (a_ == b_) b_ = (a_ + 1) % static_cast<int>(pools_.size());
    pair_pools();
  }
  if (!units_warning_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text_colored(kProblem, "%s", units_warning_.c_str());
    ImGui::PopTextWrapPos();
  }

  if (!scene_export.empty()) {  // a scene's "export": as the button does, the stem shown in its box
    std::snprintf(export_path_, sizeof export_path_, "%s", scene_export.c_str());
    export_csv(scene_export);
    scene_export.clear();
  }

  // The verdict, in the write-ups' words.
  const auto& p = paired_;
  ImGui::PushTextWrapPos(0.0f);
  if (p.pairs.empty()) {
    wrapped_text_colored(kProblem, "No seed has finished in both A and B: nothing to pair yet.");
  } else {
    char line[320];
    if (p.pairs.size() == 1)
      std::snprintf(line, sizeof line,
                    "A - B, final validation loss: %s on one seed (no spread from one pair). A lower in %zu of 1.",
                    explorer::signed_loss(p.mean).c_str(), p.a_lower);
    else
      std::snprintf(line, sizeof line,
                    "A - B, final validation loss: mean %s over %zu seeds (%s .. %s, sd %.4f, standard error "
                    "%.4f). A lower in %zu of %zu.",
                    explorer::signed_loss(p.mean).c_str(), p.pairs.size(), explorer::signed_loss(p.min).c_str(),
                    explorer::signed_loss(p.max).c_str(), p.sd, p.se, p.a_lower, p.pairs.size());
    wrapped_unformatted(line);
    tooltip(
        "sd: how far the seeds' differences spread. Standard error = sd / sqrt(seeds): how far their mean would "
        "move with other seeds. A mean within about two standard errors of zero is not told apart from a tie by "
        "these seeds; more seeds shrink the standard error.");
  }
  std::string left_out;
  if (!p.only_a.empty()) left_out += "seeds finished only in A: " + seed_list(p.only_a) + "; ";
  if (!p.only_b.empty()) left_out += "seeds finished only in B: " + seed_list(p.only_b) + "; ";
  if (p.unfinished)
    left_out += std::to_string(p.unfinished) + (p.unfinished == 1 ? " run" : " runs") +
                " not finished (or without a val_loss); ";
  if (p.repeated)
    left_out += std::to_string(p.repeated) + (p.repeated == 1 ? " repeated seed" : " repeated seeds") +
                " (the lowest run id pairs); ";
  if (!left_out.empty()) wrapped_text_disabled("Not paired: %s", left_out.substr(0, left_out.size() - 2).c_str());
  if (!parameters_.empty()) wrapped_text_disabled("%s.", parameters_.c_str());
  ImGui::PopTextWrapPos();
  draw_pins(session, ui_scale);

  // The footer: its controls, and under them what the last export did (a line of its own: a path
  // and an error are long).
  const float footer =
      ImGui::GetFrameHeightWithSpacing() + (export_message_.empty() ? 0.0f : ImGui::GetTextLineHeightWithSpacing());
  // At least a readable plot: in a short window the panel scrolls rather than squeeze it to a strip.
  const float height = std::max(170.0f * ui_scale, ImGui::GetContentRegionAvail().y - footer);
  // The table as wide as its numbers need (at most half the row), the plot the rest.
  const float table_w = std::min(pair_table_width(), ImGui::GetContentRegionAvail().x * 0.5f);
  draw_pair_table(table_w, height);
  ImGui::SameLine();
  draw_difference_plot(session, height);
  draw_footer(ui_scale);
}

void ExplorerCompare::draw_pins(const ExplorerSession& session, float ui_scale) {
  if (!pin_problem_.empty()) ImGui::TextColored(kProblem, "%s", pin_problem_.c_str());
  if (pins_.empty()) return;
  // One row per pinned comparison, the pooled row under them; at most six rows high (it scrolls).
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
  const float rows = static_cast<float>(std::min<std::size_t>(pins_.size() + (pooled_.problem.empty() ? 2 : 1), 7));
  const float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  int unpin = -1;
  if (ImGui::BeginTable("##pins", 9, flags, ImVec2(-1, rows * row_h + 2.0f * ui_scale))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("00").x);
    // The header in full where the column had room for it last frame, else its first word (the
    // column's ID is its index: the label may change).
    const char* pinned_header = "pinned (A - B, final val loss)";
    ImGui::TableSetupColumn(ImGui::CalcTextSize(pinned_header).x <= pinned_column_w_ ? pinned_header : "pinned",
                            ImGuiTableColumnFlags_WidthStretch);
    // The numbers keep their width on a narrow window (a projector); the label gives way, cut in
    // the middle so that both ends (suite, arm's context or size) stay (its tooltip has it whole).
    const std::pair<const char*, const char*> numbers[] = {{"seeds", "000"},   {"mean", "+0.0000"},
                                                           {"sd", "0.0000"},   {"std err", "0.0000"},
                                                           {"weight", "0.00"}, {"farthest", "#00: +00.0 se"}};
    for (const auto& [header, widest] : numbers)
      ImGui::TableSetupColumn(header, ImGuiTableColumnFlags_WidthFixed,
                              std::max(ImGui::CalcTextSize(header).x, ImGui::CalcTextSize(widest).x));
    ImGui::TableSetupColumn("##unpin", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFrameHeight());
    ImGui::TableHeadersRow();
    auto cells = [](std::size_t seeds, double mean, double sd, double se, double weight) {
      ImGui::TableNextColumn();
      ImGui::Text("%zu", seeds);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::isfinite(mean) ? explorer::signed_loss(mean).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_number(sd, "%.4f").c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_number(se, "%.4f").c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_number(weight, "%.2f").c_str());
    };
    for (std::size_t i = 0; i < pins_.size(); ++i) {
      const auto& c = pinned_[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%zu", i + 1);
      ImGui::TableNextColumn();
      pinned_column_w_ = ImGui::GetContentRegionAvail().x;
      ImGui::TextUnformatted(elide_middle(pins_[i].label, pinned_column_w_).c_str());
      tooltip(pins_[i].detail);
      cells(c.pairs.size(), c.mean, c.sd, c.se, i < pooled_.weights.size() ? pooled_.weights[i] : explorer::kNaN);
      ImGui::TableNextColumn();
      draw_farthest(i);
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::SmallButton("x")) unpin = static_cast<int>(i);
      ImGui::PopID();
      tooltip("Unpin this comparison");
    }
    if (pooled_.problem.empty()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      const char* pooled_label = "pooled (inverse-variance)";
      ImGui::TextUnformatted(ImGui::CalcTextSize(pooled_label).x <= ImGui::GetContentRegionAvail().x ? pooled_label
                                                                                                     : "pooled");
      tooltip(
          "Each comparison weighs 1 / standard error^2: the better measured, the more it counts. The pooled standard "
          "error is 1 / sqrt(sum of the weights). It reads the comparisons as one effect; the line below says "
          "whether they look like one.");
      cells(pooled_.seeds, pooled_.mean, explorer::kNaN, pooled_.se, 1.0);
    }
    ImGui::EndTable();
  }
  if (unpin >= 0) {
    pins_.erase(pins_.begin() + unpin);
    repin(session);
  }
  if (pins_.empty()) return;
  ImGui::PushTextWrapPos(0.0f);
  if (!pooled_.problem.empty()) {
    wrapped_text_disabled("Pooled: nothing yet, %s.", pooled_.problem.c_str());
  } else {
    char line[320];
    const std::string p = explorer::p_value_text(pooled_.p);
    std::snprintf(line, sizeof line, "Do they differ? Cochran's Q = %.2f on %d degrees of freedom, p %s%s: %s",
                  pooled_.q, pooled_.df, p[0] == '<' ? "" : "= ", p.c_str(),
                  pooled_.p < 0.05 ? "they differ by more than their seeds' noise (p < 0.05)."
                                   : "not told apart from one effect by these seeds.");
    wrapped_unformatted(line);
    tooltip(
        "Q sums each comparison's distance from the pooled mean in its own standard errors, squared. If they all "
        "measured one effect, Q would be chi-square with one degree of freedom fewer than the comparisons; p is how "
        "often a Q this large would come by chance then. The standard errors come from each comparison's own few "
        "seeds, so p is approximate; p above 0.05 is no proof that the comparisons are equal.");
  }
  ImGui::PopTextWrapPos();
}

void ExplorerCompare::draw_farthest(std::size_t pin) const {
  const explorer::CellDifference* far = explorer::farthest_from(pooled_, pin);
  if (!far) {
    ImGui::TextDisabled("-");
    return;
  }
  // Read from this row's side: this comparison minus the other.
  auto gap = [&](const explorer::CellDifference& d, std::size_t* other) {
    *other = d.i == pin ? d.j : d.i;
    return d.i == pin ? d.difference : -d.difference;
  };
  std::size_t other = 0;
  const double difference = gap(*far, &other);
  // Beyond 2 standard errors in the widgets' accent: the comparison that stands apart shows.
  const double z = difference / far->se;
  if (std::abs(z) >= 2.0)
    ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "#%zu: %+.1f se", other + 1, z);
  else ImGui::Text("#%zu: %+.1f se", other + 1, z);
  if (!ImGui::IsItemHovered()) return;
  std::string text = "#" + std::to_string(pin + 1) +
                     " minus each other comparison, over the standard error of the difference "
                     "(sqrt(se^2 + se^2)):";
  char line[160];
  for (const auto& d : pooled_.between) {
    if (d.i != pin && d.j != pin) continue;
    const double g = gap(d, &other);
    std::snprintf(line, sizeof line, "\n  #%zu: %s (standard error %.4f): %+.1f", other + 1,
                  explorer::signed_loss(g).c_str(), d.se, g / d.se);
    text += line;
  }
  text +=
      "\nBeyond about 2 (the cell in colour) the two differ by more than their seeds' noise (roughly: each standard "
      "error comes from its own few seeds). Several pairs looked at together: expect one beyond 2 now and then by "
      "chance.";
  show_tooltip(text.c_str());
}

void ExplorerCompare::draw_footer(float ui_scale) {
  ImGui::Checkbox("y fits from 10% of the run", &fit_late_);
  tooltip(
      "The first evaluations differ far more than the last (the models start apart): with this on, the plot's y "
      "axis fits what the lines do from a tenth of the steps on, so the end is readable. Nothing is cut from the "
      "lines; turn it off to fit them whole.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(220.0f * ui_scale);
  ImGui::InputText("##compare_export", export_path_, sizeof export_path_);
  tooltip("File name without extension for the CSV of the pairs (and, with comparisons pinned, NAME_pinned.csv)");
  ImGui::SameLine();
  if (ImGui::Button("CSV")) export_csv(export_path_);
  tooltip(
      "The pairs: seed, both runs' names, their final val losses and A - B, one line per seed. With comparisons "
      "pinned, also NAME_pinned.csv: the pinned table, its pooled line with Cochran's Q, degrees of freedom and p");
  if (!export_message_.empty()) {
    if (export_error_) ImGui::TextColored(kProblem, "%s", export_message_.c_str());
    else ImGui::TextDisabled("%s", export_message_.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", export_message_.c_str());
  }
}

void ExplorerCompare::export_csv(const std::string& stem) {
  const std::string path = stem + ".csv";
  std::ostringstream csv;
  explorer::write_pairs_csv(csv, paired_);
  std::string error;
  export_error_ = !core::write_file_atomically(path, csv.str(), &error);
  if (export_error_) {
    export_message_ = error;
    return;
  }
  export_message_ = "wrote " + path + " (" + std::to_string(paired_.pairs.size()) + " pairs)";
  if (pins_.empty()) return;
  // The pinned table beside it: STEM_pinned.csv.
  std::vector<std::string> labels;
  for (const Pin& p : pins_) labels.push_back(p.label);
  std::ostringstream pinned;
  explorer::write_pinned_csv(pinned, labels, pinned_, pooled_);
  const std::string pinned_path = stem + "_pinned.csv";
  export_error_ = !core::write_file_atomically(pinned_path, pinned.str(), &error);
  export_message_ = export_error_
                        ? error
                        : export_message_ + " and " + pinned_path + " (" + std::to_string(pins_.size()) + " pinned)";
}

namespace {
constexpr std::size_t kSeedsInLegend = 6;
// The pair table's columns: a header and the widest text its cells hold.
constexpr std::pair<const char*, const char*> kPairColumns[] = {
    {"seed", "0000"}, {"A", "0.0000"}, {"B", "0.0000"}, {"A - B", "+0.0000"}};
}  // namespace

float ExplorerCompare::pair_table_width() {
  const ImGuiStyle& style = ImGui::GetStyle();
  float w = style.ScrollbarSize + 2.0f;  // its scrollbar and outer borders
  for (const auto& [header, widest] : kPairColumns)
    w += std::max(ImGui::CalcTextSize(header).x, ImGui::CalcTextSize(widest).x) + 2.0f * style.CellPadding.x + 1.0f;
  return w;
}

void ExplorerCompare::draw_pair_table(float width, float height) const {
  // Numbers keep their width: where the table is narrower than they need it scrolls sideways
  // rather than cut "-0.0120" to a different-looking "-0.012".
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersV |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##pairs", 4, flags, ImVec2(width, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const auto& [header, widest] : kPairColumns)
    ImGui::TableSetupColumn(header, ImGuiTableColumnFlags_WidthFixed,
                            std::max(ImGui::CalcTextSize(header).x, ImGui::CalcTextSize(widest).x));
  ImGui::TableHeadersRow();
  for (const auto& pair : paired_.pairs) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%lld", static_cast<long long>(pair.seed));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_number(pair.a_loss, "%.4f").c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", pair.a->name.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_number(pair.b_loss, "%.4f").c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", pair.b->name.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(explorer::signed_loss(pair.difference).c_str());
  }
  ImGui::EndTable();
}

void ExplorerCompare::draw_difference_plot(const ExplorerSession& session, float height) {
  // Each seed's A - B over training (B interpolated on A's steps), their mean and min..max band.
  std::vector<PlotSeries> series;
  std::vector<explorer::Curve> differences;
  const bool many_seeds = paired_.pairs.size() > kSeedsInLegend;
  auto whole = [&](std::int64_t id) -> const explorer::Curve* {
    if (!session.curves) return nullptr;
    const auto it = session.curves->curves.find({id, kMetric, explorer::XAxis::Step, std::nullopt, kBuckets});
    return it == session.curves->curves.end() || it->second.x.empty() ? nullptr : &it->second;
  };
  for (const auto& pair : paired_.pairs) {
    const explorer::Curve* a = whole(pair.a->id);
    const explorer::Curve* b = whole(pair.b->id);
    if (!a || !b) continue;
    explorer::Curve d = explorer::difference_curve(*a, *b);
    if (d.x.empty()) continue;
    // Up to 6 seeds each have a legend entry (and a line in the hover tooltip); more would crowd
    // the legend out of its room: a caption says what the lines are instead.
    series.push_back({(many_seeds ? "##seed " : "seed ") + std::to_string(pair.seed),
                      "",
                      with_alpha(widgets::detail::palette_color(static_cast<int>(pair.seed)), 150),
                      1.0f,
                      to_float(d.x),
                      to_float(d.y),
                      {},
                      {}});
    differences.push_back(std::move(d));
  }
  if (differences.size() >= 2) {
    const auto groups = explorer::group_curves(differences, std::vector<std::string>(differences.size(), "mean"),
                                               explorer::BandKind::MinMax);
    if (!groups.empty() && !groups[0].x.empty()) {
      const auto& g = groups[0];
      series.push_back({"mean of " + std::to_string(differences.size()) + " seeds", "##band",
                        IM_COL32(235, 235, 235, 255), 2.5f, to_float(g.x), to_float(g.mean), to_float(g.lo),
                        to_float(g.hi)});
    }
  }
  if (!differences.empty()) {  // the zero line under the whole x range
    double lo = differences[0].x.front(), hi = differences[0].x.back();
    for (const auto& d : differences) lo = std::min(lo, d.x.front()), hi = std::max(hi, d.x.back());
    if (hi > lo)
      series.push_back(
          {"##zero", "", IM_COL32(150, 150, 150, 200), 1.0f, {float(lo), float(hi)}, {0.0f, 0.0f}, {}, {}});
  }
  const int drawn = static_cast<int>(differences.size());
  stable_frames_ = drawn == curves_drawn_ ? stable_frames_ + 1 : 0;
  curves_drawn_ = drawn;
  // The y range from a tenth of the steps on (0 always inside), padded: see the checkbox.
  double y_lo = 0, y_hi = 0, x_max = 0;
  for (const auto& d : differences) x_max = std::max(x_max, d.x.back());
  for (const PlotSeries& ps : series)
    for (std::size_t i = 0; i < ps.x.size(); ++i) {
      if (ps.x[i] < 0.1 * x_max) continue;
      y_lo = std::min<double>(y_lo, ps.lo.empty() ? ps.y[i] : ps.lo[i]);
      y_hi = std::max<double>(y_hi, ps.hi.empty() ? ps.y[i] : ps.hi[i]);
    }
  ImGui::BeginGroup();
  if (many_seeds) {
    ImGui::PushTextWrapPos(0.0f);
    wrapped_text_disabled("White: the mean of %zu seeds, its band their min..max; thin: each seed's A - B.",
                          paired_.pairs.size());
    ImGui::PopTextWrapPos();
    height = std::max(60.0f, height - (ImGui::GetCursorScreenPos().y - ImGui::GetItemRectMin().y));
  }
  if (widgets::BeginPlot("##paired", ImVec2(-1, height))) {
    widgets::SetupAxes("step", "val_loss A - B", many_seeds ? widgets::PlotFlags_NoLegend : widgets::PlotFlags_None);
    if (fit_late_ && y_hi > y_lo) {
      const double pad = 0.08 * (y_hi - y_lo);
      widgets::SetupAxisLimitsY(y_lo - pad, y_hi + pad);
    }
    plot_all(series);
    widgets::EndPlot();
  }
  ImGui::EndGroup();
}

nlohmann::json ExplorerCompare::state() const {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : paired_.pairs)
    pairs.push_back({{"seed", p.seed}, {"a", p.a->name}, {"b", p.b->name}, {"difference", p.difference}});
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  const bool two = pools_.size() >= 2;
  nlohmann::json pins = nlohmann::json::array();
  for (std::size_t i = 0; i < pins_.size(); ++i)
    pins.push_back({{"label", pins_[i].label},
                    {"seeds", pinned_[i].pairs.size()},
                    {"mean", number(pinned_[i].mean)},
                    {"sd", number(pinned_[i].sd)},
                    {"se", number(pinned_[i].se)},
                    {"weight", number(i < pooled_.weights.size() ? pooled_.weights[i] : explorer::kNaN)}});
  nlohmann::json between = nlohmann::json::array();
  for (const auto& d : pooled_.between)
    between.push_back({{"i", d.i}, {"j", d.j}, {"difference", number(d.difference)}, {"se", number(d.se)}});
  const nlohmann::json pooled = {
      {"seeds", pooled_.seeds}, {"mean", number(pooled_.mean)}, {"se", number(pooled_.se)},   {"q", number(pooled_.q)},
      {"df", pooled_.df},       {"p", number(pooled_.p)},       {"problem", pooled_.problem}, {"between", between}};
  return {{"pools", pools_.size()},
          {"a", two ? labels_[a_] : ""},
          {"b", two ? labels_[b_] : ""},
          {"pairs", pairs},
          {"mean", number(paired_.mean)},
          {"sd", number(paired_.sd)},
          {"se", number(paired_.se)},
          {"a_lower", paired_.a_lower},
          {"only_a", paired_.only_a},
          {"only_b", paired_.only_b},
          {"unfinished", paired_.unfinished},
          {"parameters", parameters_},
          {"curves_drawn", curves_drawn_},
          {"export", export_message_},
          {"export_error", export_error_},
          {"pins", pins},
          {"pooled", pooled},
          {"pin_problem", pin_problem_}};
}

}  // namespace headroom::gui
