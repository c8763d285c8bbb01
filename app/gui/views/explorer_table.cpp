#include "app/gui/views/explorer_table.h"

#include <algorithm>
#include <vector>
#include <iterator>
#include <cmath>
#include <cstdio>

#include <imgui_internal.h>  // TableSetColumnWidth: a fixed column resized after its first frame

#include "app/gui/ui_util.h"

namespace headroom::gui {

ImVec4 status_color(db::RunStatus s) {
  switch (s) {
    case db::RunStatus::Queued: return ImVec4(0.6f, 0.6f, 0.6f, 1.0f);
    case db::RunStatus::Running: return ImVec4(0.35f, 0.65f, 1.0f, 1.0f);
    case db::RunStatus::Done: return ImVec4(0.40f, 0.80f, 0.45f, 1.0f);
    case db::RunStatus::Failed: return kProblem;
    case db::RunStatus::Cancelled: return ImVec4(0.85f, 0.70f, 0.30f, 1.0f);
  }
  return ImVec4(1, 1, 1, 1);
}

void ExplorerTable::set_filter(const std::string& text) {
  std::snprintf(filter_buffer_, sizeof filter_buffer_, "%s", text.c_str());
}

std::optional<explorer::RunFilter> ExplorerTable::filter_now() const {
  if (filter_buffer_[0] == '\0') return std::nullopt;
  return explorer::parse_run_filter(filter_buffer_, nullptr);
}

void ExplorerTable::update(ExplorerSession& session, std::shared_ptr<const explorer::RowsSnapshot> latest) {
  const std::string filter_text = filter_buffer_;
  bool dirty = sort_dirty_;
  if (filter_text != filter_text_) {
    filter_text_ = filter_text;
    filter_error_.clear();
    filter_ = explorer::parse_run_filter(filter_text_, &filter_error_);
    ++filter_generation_;
    dirty = true;
  }
  if (latest != posted_rows_ || dirty) {
    posted_ = orderer_.order({latest, filter_, sort_column_, sort_ascending_, filter_generation_});
    posted_rows_ = std::move(latest);
    sort_dirty_ = false;
  }
  // The rows and their order change together, when the order arrives: `shown` points into them.
  auto ordered = orderer_.ordered();
  if (ordered->request > applied_ && ordered->request >= first_request_) {
    applied_ = ordered->request;
    session.rows = ordered->rows;
    session.shown = ordered->shown;
    session.shown_filtered = ordered->filtered;
    session.shown_filter_generation = ordered->filter_generation;
  }
}

void ExplorerTable::reset() {
  posted_rows_.reset();
  first_request_ = posted_ + 1;  // answers for the last DB's rows are not applied
  applied_ = posted_;
}

bool ExplorerTable::scrolling() const {
  return (!scroll_to_.empty() || scroll_id_ >= 0) && drawn_frame_ >= ImGui::GetFrameCount() - 1;
}

void ExplorerTable::draw(ExplorerSession& session, float ui_scale, bool bench_scroll) {
  drawn_frame_ = ImGui::GetFrameCount();
  auto& shown = session.shown;
  auto& selected = session.selected;
  ImGui::SetNextItemWidth(std::max(200.0f, ImGui::GetContentRegionAvail().x * 0.5f));
  ImGui::InputTextWithHint("##filter",
                           "filter: h>=8 kind=talking-heads status!=failed val<2.5 (bare words match names)",
                           filter_buffer_, sizeof filter_buffer_);
  ImGui::SameLine();
  // Beside the filter, wrapped where the window is narrow; the selection hint moves to a tooltip
  // where the counts alone fill the row.
  if (!filter_error_.empty()) {
    wrapped_text_colored(kProblem, "%s", filter_error_.c_str());
  } else if (session.rows->partial) {
    wrapped_text_disabled(
        "%zu of the newest %zu runs, %zu selected; reading the other %lld", shown.size(), session.rows->rows.size(),
        selected.size(),
        static_cast<long long>(session.rows->total_runs) - static_cast<long long>(session.rows->rows.size()));
  } else {
    const char* hint = "ctrl/shift-click for more";
    char counts[96];
    std::snprintf(counts, sizeof counts, "%zu of %zu runs, %zu selected", shown.size(), session.rows->rows.size(),
                  selected.size());
    const std::string whole = std::string(counts) + " (" + hint + ")";
    if (ImGui::CalcTextSize(whole.c_str()).x <= ImGui::GetContentRegionAvail().x) {
      ImGui::TextDisabled("%s", whole.c_str());
    } else {
      wrapped_text_disabled("%s", counts);
      tooltip(hint);
    }
  }

  using explorer::RunColumn;
  struct Column {
    const char* name;
    RunColumn id;
    float width;
  };
  static const Column kColumns[] = {{"suite", RunColumn::Suite, 135},
                                    {"name", RunColumn::Name, 230},
                                    {"kind", RunColumn::Kind, 95},
                                    {"d", RunColumn::D, 36},
                                    {"h", RunColumn::H, 52},     // "24-24-24": h_k-h-h_v (TH Table 2)
                                    {"d_p", RunColumn::DP, 48},  // "128/32": d_k/d_v
                                    {"r", RunColumn::R, 36},
                                    {"L", RunColumn::L, 26},
                                    {"V", RunColumn::V, 40},
                                    {"device", RunColumn::Device, 80},
                                    {"status", RunColumn::Status, 80},  // "interrupted"
                                    {"step", RunColumn::Step, 74},
                                    {"best val", RunColumn::BestVal, 68},
                                    {"params", RunColumn::Params, 58},
                                    {"tok/s", RunColumn::TokensPerS, 56},
                                    {"weights", RunColumn::Weights, 56}};
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_Resizable | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersV |
                                ImGuiTableFlags_Hideable | ImGuiTableFlags_SizingFixedFit;
  // A narrow window (1024 px) would leave the run names two letters wide: it drops the columns that
  // say least, in this order, until the names have room. Presentation type in a window narrow for
  // it (900 x 800) needs more than the first seven: then params, step, d, status, d_p, h and kind go
  // too, and the names and their best val loss stay.
  static const RunColumn kDropOrder[] = {
      RunColumn::TokensPerS, RunColumn::Device, RunColumn::L,      RunColumn::V,    RunColumn::R,
      RunColumn::Weights,    RunColumn::Suite,  RunColumn::Params, RunColumn::Step, RunColumn::D,
      RunColumn::Status,     RunColumn::DP,     RunColumn::H,      RunColumn::Kind};
  const float cell = ImGui::GetStyle().CellPadding.x * 2.0f + 1.0f;
  // A column is at least as wide as its header and the room ImGui keeps beside it for the sort
  // arrow (0.65 of the font size and a frame padding), or "params" reads "para...".
  const float arrow = std::floor(ImGui::GetFontSize() * 0.65f + ImGui::GetStyle().FramePadding.x);
  // The suite column is as wide as the DB's widest suite name, from its 135 px up to 260 px at scale
  // 1 ("th-projections-wide-keys" no longer reads "th-projections-wide-"); a wider one shows whole
  // in a tooltip.
  if (session.rows.get() != suites_measured_for_ || suites_scale_ != ui_scale) {
    suites_measured_for_ = session.rows.get();
    suites_scale_ = ui_scale;
    float widest = 0.0f;
    const std::string* last = nullptr;  // rows of one suite lie together: measure each name once
    const size_t measured = std::min<size_t>(session.rows->rows.size(), 5000);
    for (size_t i = 0; i < measured; ++i) {
      const std::string& suite = session.rows->rows[i].suite;
      if (last && *last == suite) continue;
      last = &suite;
      widest = std::max(widest, ImGui::CalcTextSize(suite.c_str()).x);
    }
    suite_width_ = std::clamp(widest, 135.0f * ui_scale, 260.0f * ui_scale);
  }
  const auto width_of = [&](const Column& c) {
    const float wanted = c.id == RunColumn::Suite ? suite_width_ : c.width * ui_scale;
    return std::max(wanted, ImGui::CalcTextSize(c.name).x + arrow);
  };
  // The names' least width: wide enough for 9 names in 10 of those shown whole (from 150 to 280 px
  // at scale 1), so that runs that differ only at the end of their names (",seed=0", ",seed=1") do
  // not look alike, while a few very long names (shown whole in a tooltip) do not push every other
  // column out.
  if (names_measured_for_ != applied_ || names_scale_ != ui_scale) {
    names_measured_for_ = applied_;
    names_scale_ = ui_scale;
    std::vector<float> widths;
    const size_t measured = std::min<size_t>(shown.size(), 5000);  // a huge DB: its first rows are typical
    widths.reserve(measured);
    for (size_t i = 0; i < measured; ++i)
      widths.push_back(ImGui::CalcTextSize(session.short_name(*shown[i]).c_str()).x);
    names_width_ = 0.0f;
    if (!widths.empty()) {
      const auto p90 = widths.begin() + static_cast<std::ptrdiff_t>((widths.size() - 1) * 9 / 10);
      std::nth_element(widths.begin(), p90, widths.end());
      names_width_ = *p90;
    }
  }
  float need =
      std::clamp(names_width_ + cell, 150.0f * ui_scale, 280.0f * ui_scale) + ImGui::GetStyle().ScrollbarSize + 2.0f;
  for (const auto& c : kColumns)
    if (c.id != RunColumn::Name) need += width_of(c) + cell;
  const float avail = ImGui::GetContentRegionAvail().x;
  std::vector<RunColumn> dropped;
  for (RunColumn id : kDropOrder) {
    if (need <= avail) break;
    for (const auto& c : kColumns)
      if (c.id == id) need -= width_of(c) + cell;
    dropped.push_back(id);
  }
  columns_dropped_ = static_cast<int>(dropped.size());
  if (!ImGui::BeginTable("##run_table", static_cast<int>(std::size(kColumns)), flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const auto& c : kColumns) {
    ImGuiTableColumnFlags f =
        c.id == RunColumn::Name ? ImGuiTableColumnFlags_WidthStretch : ImGuiTableColumnFlags_WidthFixed;
    if (std::find(dropped.begin(), dropped.end(), c.id) != dropped.end()) f |= ImGuiTableColumnFlags_Disabled;
    ImGui::TableSetupColumn(c.name, f, c.id == RunColumn::Name ? 0.0f : width_of(c), static_cast<ImGuiID>(c.id));
  }
  // The first frame's width is TableSetupColumn's; a later DB (or font scale) with other suite names
  // resizes the column once, leaving a width the user dragged alone until then.
  const float suite_width = width_of(kColumns[0]);
  if (suite_width_applied_ > 0.0f && suite_width_applied_ != suite_width) ImGui::TableSetColumnWidth(0, suite_width);
  suite_width_applied_ = suite_width;
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    if (specs->SpecsCount > 0) {
      sort_column_ = static_cast<RunColumn>(specs->Specs[0].ColumnUserID);
      sort_ascending_ = specs->Specs[0].SortDirection != ImGuiSortDirection_Descending;
      sort_dirty_ = true;
      // The focused run stays in view through the new order (a click on a header, or a window too
      // narrow for the suite column, which moves the sort to the names once the rows are in).
      if (scroll_to_.empty() && focused_row_visible_ && session.focused >= 0) scroll_to_ = {session.focused};
    }
    specs->SpecsDirty = false;
  }
  if (bench_scroll) {  // a page and a bit per frame, wrapping: every frame draws other rows
    const float max = ImGui::GetScrollMaxY();
    if (max > 0)
      ImGui::SetScrollY(
          std::fmod(static_cast<float>(++bench_frame_) * 23.0f * ImGui::GetTextLineHeightWithSpacing(), max));
  }
  names_clipped_ = 0;
  suites_clipped_ = 0;
  const bool suites_drawn = std::find(dropped.begin(), dropped.end(), RunColumn::Suite) == dropped.end();
  focused_row_visible_ = false;
  // Only in the order that stays: a narrow window that hides the suite column moves the sort to the
  // names, and the rows change order a frame or two later.
  if (!scroll_to_.empty() && current() && !sort_dirty_) {
    const auto it = std::find_if(shown.begin(), shown.end(),
                                 [&](const explorer::RunRow* r) { return scroll_to_.count(r->id) > 0; });
    if (it != shown.end()) {
      session.focused = (*it)->id;
      scroll_id_ = (*it)->id;
      scroll_frames_left_ = 8;
    }
    scroll_to_.clear();
  }
  // The row to bring into view, drawn this frame wherever it is. The clipper places a row far
  // down by its estimate of a row's height, which the next frame may measure otherwise (in
  // presentation type a few hundred rows down, by rows): scroll again each frame until the row
  // is in view, for at most a few frames.
  int scroll_row = -1;
  if (scroll_id_ >= 0 && current() && !sort_dirty_) {
    const auto it =
        std::find_if(shown.begin(), shown.end(), [&](const explorer::RunRow* r) { return r->id == scroll_id_; });
    if (it != shown.end() && scroll_frames_left_-- > 0) scroll_row = static_cast<int>(it - shown.begin());
    else scroll_id_ = -1;
  }
  // The row's selectable goes in its first column shown: where a narrow window (or the user) hid
  // the suite column, a selectable there would be skipped and the rows could not be clicked.
  int first_shown = 0;
  while (first_shown + 1 < static_cast<int>(std::size(kColumns)) &&
         !(ImGui::TableGetColumnFlags(first_shown) & ImGuiTableColumnFlags_IsEnabled))
    ++first_shown;
  const bool suite_shown = ImGui::TableGetColumnFlags(0) & ImGuiTableColumnFlags_IsEnabled;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(shown.size()));
  if (scroll_row >= 0) clipper.ForceDisplayRangeByIndices(scroll_row, scroll_row + 1);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const explorer::RunRow& r = *shown[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(first_shown);
      ImGui::PushID(static_cast<int>(r.id));
      const bool is_selected = selected.count(r.id) > 0;
      if (ImGui::Selectable("##run", is_selected,
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
        const ImGuiIO& io = ImGui::GetIO();
        if (io.KeyShift && anchor_ >= 0) {
          auto a =
              std::find_if(shown.begin(), shown.end(), [&](const explorer::RunRow* x) { return x->id == anchor_; });
          if (a != shown.end()) {
            const int at = static_cast<int>(a - shown.begin());
            for (int k = std::min(i, at); k <= std::max(i, at); ++k) selected.insert(shown[static_cast<size_t>(k)]->id);
          }
        } else if (io.KeyCtrl) {
          if (is_selected) selected.erase(r.id);
          else selected.insert(r.id);
          anchor_ = r.id;
        } else {
          selected = {r.id};
          anchor_ = r.id;
        }
        session.focused = r.id;
      }
      if (i == scroll_row) {
        const ImRect row = GImGui->LastItemData.Rect;
        const ImRect& view = ImGui::GetCurrentWindow()->ClipRect;
        if (row.Min.y >= view.Min.y && row.Max.y <= view.Max.y) scroll_id_ = -1;  // in view: done
        else ImGui::SetScrollHereY(0.3f);
      }
      if (r.id == session.focused && ImGui::IsItemVisible()) focused_row_visible_ = true;
      if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(0)) {
        session.focused = r.id;
        session.select_tab = static_cast<int>(ExplorerTab::Run);
      }
      ImGui::PopID();
      ImGui::SameLine(0.0f, 0.0f);  // the first cell's text starts where the selectable does
      ImGui::TableSetColumnIndex(0);
      // A name or suite wider than its column is cut in its middle ("fixed-head-dk16...d_v=16,seed=3"):
      // names differ at their ends, which a cut at the column's edge would hide.
      const float suite_room = ImGui::GetContentRegionAvail().x;
      const bool suite_clipped = ImGui::CalcTextSize(r.suite.c_str()).x > suite_room;
      suites_clipped_ += suite_clipped && suites_drawn ? 1 : 0;
      ImGui::TextUnformatted(r.suite.empty() ? "-"
                             : suite_clipped ? elide_middle(r.suite, suite_room).c_str()
                                             : r.suite.c_str());
      if (suite_clipped && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenOverlapped)) show_tooltip(r.suite.c_str());
      ImGui::TableNextColumn();
      // A name wider than its column shows whole in a tooltip (the row's selectable lies over it).
      const std::string name = session.short_name(r);
      const float name_room = ImGui::GetContentRegionAvail().x;
      const bool name_clipped = ImGui::CalcTextSize(name.c_str()).x > name_room;
      names_clipped_ += name_clipped ? 1 : 0;
      ImGui::TextUnformatted(name_clipped ? elide_middle(name, name_room).c_str() : name.c_str());
      // Where the suite column is hidden, the tooltip names the suite too: runs of two suites may
      // share a name ("fixed-head/d_k=16").
      if ((name_clipped || !suite_shown) && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenOverlapped)) {
        if (suite_shown || r.suite.empty()) show_tooltip(name.c_str());
        else show_tooltip((name != r.name ? r.name : r.suite + ": " + r.name).c_str());  // r.name: "suite/name"
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.kind.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.d);
      // TH Table 2's runs split the heads (h_k-h-h_v) and the head sizes (d_k/d_v): say which is which.
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(explorer::head_counts_text(r).c_str());
      if (ImGui::IsItemHovered())
        if (const std::string t = explorer::head_counts_tooltip(r); !t.empty()) show_tooltip(t.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(explorer::head_size_text(r).c_str());
      if (ImGui::IsItemHovered())
        if (const std::string t = explorer::head_size_tooltip(r); !t.empty()) show_tooltip(t.c_str());
      ImGui::TableNextColumn();
      if (r.factorised) {
        ImGui::Text("%d", r.r);
      } else {
        ImGui::TextDisabled("full");  // VB §5.1: an unfactorised embedding, r = d
        tooltip("full rank: the embedding is not factorised, r = d = " + std::to_string(r.d));
      }
      for (int v : {r.L, r.V}) {
        ImGui::TableNextColumn();
        ImGui::Text("%d", v);
      }
      ImGui::TableNextColumn();
      if (r.device.empty()) {
        ImGui::TextDisabled("- %s", r.precision.c_str());
        tooltip("not trained yet: the worker that claims it trains it on its --device");
      } else {
        ImGui::Text("%s %s", r.device.c_str(), r.precision.c_str());
      }
      ImGui::TableNextColumn();
      if (const auto stranded = session.stranded.find(r.id); stranded != session.stranded.end()) {
        // Marked running, but no worker trains it (killed outright) or none has been heard from.
        ImGui::TextColored(status_color(db::RunStatus::Cancelled), "%s", db::running_word(stranded->second.state));
        tooltip(db::worker_problem(r.worker, stranded->second, session.loader->db_path()).c_str());
      } else {
        ImGui::TextColored(status_color(r.status), "%s", std::string(db::to_string(r.status)).c_str());
        if (r.status == db::RunStatus::Failed) tooltip("failed (see the Run tab)");
      }
      ImGui::TableNextColumn();
      ImGui::Text("%s/%s", human_count(static_cast<double>(r.step)).c_str(),
                  human_count(static_cast<double>(r.steps_total)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_number(r.best_val_loss, "%.4f").c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_count(static_cast<double>(r.params)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_number(r.tokens_per_s, "%.0f").c_str());
      tooltip(
          "mean over the run: tokens trained / seconds in training steps (the Curves tab's tokens_per_s "
          "is the rate of each logged window)");
      ImGui::TableNextColumn();
      if (r.weights > 0) {
        ImGui::Text("%lld", static_cast<long long>(r.weights));
        tooltip("weights stored at " + std::to_string(r.weights) + (r.weights == 1 ? " step" : " steps") +
                ": the Run tab opens them in the lab");
      } else {
        ImGui::TextDisabled("-");
      }
    }
  }
  ImGui::EndTable();
}

}  // namespace headroom::gui
