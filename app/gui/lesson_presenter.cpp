#include "app/gui/lesson_presenter.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "app/gui/ui_util.h"

namespace headroom::gui {
namespace {

ImFont* or_body(ImFont* f, const LessonFonts& fonts) {
  if (f) return f;
  return fonts.body ? fonts.body : ImGui::GetFont();
}

ImFont* font_of(const TextRun& run, const LessonFonts& fonts) {
  if (run.bold) return or_body(fonts.bold, fonts);
  if (run.italic) return or_body(fonts.italic, fonts);
  return or_body(fonts.body, fonts);
}

// A formula's sub- and superscripts, against the text's size.
constexpr float kScriptScale = 0.72f;

}  // namespace

LessonLayout lesson_layout(float width, float height) {
  LessonLayout l;
  l.column = height <= 0.0f || width / height >= 1.45f;
  l.text_size = l.column ? std::clamp(width * 0.34f, 240.0f, 760.0f) : std::max(120.0f, height * 0.30f);
  return l;
}

float draw_text_blocks(const std::vector<TextBlock>& blocks, const LessonFonts& fonts, float wrap_width) {
  ImFont* body = or_body(fonts.body, fonts);
  const float line_h = body->FontSize * 1.32f;
  const float gap = body->FontSize * 0.55f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 formula_col = ImGui::GetColorU32(ImGuiCol_CheckMark);  // the theme's accent
  // A run's size, and where its top sits below the line's top: the baseline of a larger or smaller
  // font on the body's line; a subscript's 0.2 em below it, a superscript's 0.35 em above.
  auto size_of = [](const TextRun& run, const ImFont* font) {
    return run.script != 0 ? font->FontSize * kScriptScale : font->FontSize;
  };
  auto top_of = [&](const TextRun& run, const ImFont* font) {
    const float base = (body->FontSize - font->FontSize) * 0.8f, em = font->FontSize;
    if (run.script == 0) return base;
    return base + em * (run.script < 0 ? 1.0f : 0.45f) - 0.8f * size_of(run, font);
  };
  auto width_of = [&](const TextRun& run, const char* begin, const char* end) {
    const ImFont* font = font_of(run, fonts);
    return font->CalcTextSizeA(size_of(run, font), FLT_MAX, 0.0f, begin, end).x;
  };
  float x = 0.0f, y = 0.0f;
  // [begin, end) of `run` at (x, y), in its font, size, place on the line and colour.
  auto draw_part = [&](const TextRun& run, const char* begin, const char* end) {
    ImFont* font = font_of(run, fonts);
    draw->AddText(font, size_of(run, font), ImVec2(origin.x + x, origin.y + y + top_of(run, font)),
                  run.formula ? formula_col : text_col, begin, end);
  };
  for (size_t b = 0; b < blocks.size(); ++b) {
    const TextBlock& block = blocks[b];
    float indent = 0.0f;
    if (block.kind != TextBlock::Kind::Paragraph) {
      char marker[16];
      if (block.kind == TextBlock::Kind::Bullet) std::snprintf(marker, sizeof marker, "\xE2\x80\xA2");
      else std::snprintf(marker, sizeof marker, "%d.", block.number);
      indent = body->FontSize * 1.4f;
      draw->AddText(body, body->FontSize, ImVec2(origin.x + body->FontSize * 0.3f, origin.y + y), text_col, marker);
    }
    x = indent;
    bool break_allowed = false;  // only after a space: "**query**," keeps its comma
    const std::vector<TextRun>& runs = block.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
      const TextRun& run = runs[r];
      const char* p = run.text.c_str();
      const char* end = p + run.text.size();
      // A formula (its runs: the text between scripts and the scripts) stays on one line ("d = 64"
      // never splits after "d ="), unless it is wider than one.
      if (run.formula && (r == 0 || !runs[r - 1].formula)) {
        size_t last = r;
        float formula_w = 0.0f;
        for (; last < runs.size() && runs[last].formula; ++last)
          formula_w += width_of(runs[last], runs[last].text.c_str(), runs[last].text.c_str() + runs[last].text.size());
        if (formula_w <= wrap_width - indent) {
          if (x + formula_w > wrap_width && x > indent && break_allowed) {
            x = indent;
            y += line_h;
          }
          for (size_t k = r; k < last; ++k) {
            const char* q = runs[k].text.c_str();
            const char* q_end = q + runs[k].text.size();
            draw_part(runs[k], q, q_end);
            x += width_of(runs[k], q, q_end);
          }
          const std::string& tail = runs[last - 1].text;
          break_allowed = !tail.empty() && tail.back() == ' ';
          r = last - 1;
          continue;
        }
      }
      if (run.script != 0) {  // a script of a formula wider than a line: never split, never first on a line
        draw_part(run, p, end);
        x += width_of(run, p, end);
        break_allowed = false;
        continue;
      }
      while (p < end) {
        const char* word_end = p;
        while (word_end < end && *word_end != ' ') ++word_end;
        const char* space_end = word_end;
        while (space_end < end && *space_end == ' ') ++space_end;
        const float word_w = width_of(run, p, word_end);
        if (x + word_w > wrap_width && x > indent && break_allowed) {
          x = indent;
          y += line_h;
        }
        if (x > indent || p != word_end) {
          draw_part(run, p, word_end);
          x += word_w;
        }
        if (space_end > word_end) {
          if (x > indent) x += width_of(run, word_end, space_end);  // no leading spaces on a line
          break_allowed = true;
        } else {
          break_allowed = false;
        }
        p = space_end;
      }
    }
    y += line_h;
    if (b + 1 < blocks.size()) {
      const bool list_continues = block.kind != TextBlock::Kind::Paragraph && blocks[b + 1].kind == block.kind;
      y += list_continues ? gap * 0.3f : gap;
    }
  }
  ImGui::Dummy(ImVec2(wrap_width, y));
  return y;
}

bool LessonPresenter::open(const std::string& path, const SceneValidator& validate, int start_step, double now,
                           std::string* error) {
  Lesson lesson;
  if (!load_lesson_file(path, &lesson, error)) return false;
  if (validate && !validate_lesson_scenes(lesson, validate, error)) return false;
  LessonPlayer player(std::move(lesson));
  player.start(now);
  player.go_to(std::clamp(start_step, 0, player.count() - 1), now);
  player_ = std::move(player);
  parsed_version_ = ~0ull;
  keys_.clear();
  parse_current();
  return true;
}

void LessonPresenter::close() {
  player_ = LessonPlayer();
  text_.clear();
  notes_.clear();
  keys_.clear();
}

void LessonPresenter::parse_current() {
  if (!active() || parsed_version_ == player_.step_version()) return;
  parsed_version_ = player_.step_version();
  std::string ignored;  // the lesson was validated when it was opened, markdown included
  text_.clear();
  notes_.clear();
  parse_lesson_markdown(player_.current().text, &text_, &ignored);
  parse_lesson_markdown(player_.current().notes, &notes_, &ignored);
}

void LessonPresenter::key(int glfw_key) { keys_.push_back(glfw_key); }

void LessonPresenter::handle_keys(double now, bool typing) {
  std::vector<int> keys;
  keys.swap(keys_);
  if (!active()) return;
  for (int k : keys) {
    if (typing && k != GLFW_KEY_PAGE_DOWN && k != GLFW_KEY_PAGE_UP) continue;  // the key is a letter being typed
    if (k == GLFW_KEY_RIGHT || k == GLFW_KEY_PAGE_DOWN || k == GLFW_KEY_SPACE) player_.next(now);
    if (k == GLFW_KEY_LEFT || k == GLFW_KEY_PAGE_UP) player_.previous(now);
    if (k == GLFW_KEY_N) player_.toggle_notes();
  }
}

void LessonPresenter::draw_bar(const LessonFonts& fonts, double now, bool show_clock) {
  const ImGuiStyle& style = ImGui::GetStyle();
  ImFont* title = or_body(fonts.title, fonts);
  const float bar_h = title->FontSize + 2 * style.FramePadding.y + 2 * style.WindowPadding.y;
  ImGui::BeginChild("##lesson_bar", ImVec2(0, bar_h), false, ImGuiWindowFlags_NoScrollbar);
  const float button_h = title->FontSize + 2 * style.FramePadding.y;
  ImGui::BeginDisabled(player_.step() == 0);
  if (ImGui::Button("\xE2\x97\x80##prev", ImVec2(button_h * 1.3f, button_h))) player_.previous(now);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Previous step (Left, Page Up)");
  ImGui::SameLine();
  ImGui::BeginDisabled(player_.step() + 1 >= player_.count());
  if (ImGui::Button("\xE2\x96\xB6##next", ImVec2(button_h * 1.3f, button_h))) player_.next(now);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Next step (Right, Page Down, Space)");
  ImGui::SameLine();

  // The step indicator: "3 / 7" and one dot per step, the current one filled.
  char where[32];
  std::snprintf(where, sizeof where, "%d / %d", player_.step() + 1, player_.count());
  ImGui::AlignTextToFramePadding();
  ImGui::PushFont(title);
  ImGui::TextUnformatted(where);
  ImGui::PopFont();
  ImGui::SameLine();
  const float r = std::max(4.0f, title->FontSize * 0.16f);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 accent = ImGui::GetColorU32(ImGuiCol_CheckMark), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (int i = 0; i < player_.count(); ++i) {
    const ImVec2 c(at.x + r + i * r * 3.0f, at.y + button_h * 0.5f);
    if (i == player_.step()) draw->AddCircleFilled(c, r, accent);
    else draw->AddCircle(c, r, dim, 0, 1.5f);
  }
  ImGui::Dummy(ImVec2(player_.count() * r * 3.0f, button_h));
  ImGui::SameLine(0, style.ItemSpacing.x * 3);

  // Right side: the clock and the notes toggle; the step title takes what is between.
  char clock[32] = "";
  if (show_clock) std::snprintf(clock, sizeof clock, "%s", format_clock(player_.elapsed(now)).c_str());
  const char* notes_label = player_.notes_shown() ? "Notes (N) \xE2\x9C\x93" : "Notes (N)";
  const float right_w = ImGui::CalcTextSize(clock).x + ImGui::CalcTextSize(notes_label).x + 4 * style.FramePadding.x +
                        3 * style.ItemSpacing.x;
  const float title_w = std::max(0.0f, ImGui::GetContentRegionAvail().x - right_w);
  // A title wider than its room is set in the text's bold face (a 4:3 projector), and only if that is
  // still too wide cut with an ellipsis, rather than run under the notes button.
  const std::string& step_title = player_.current().title;
  ImFont* face = title;
  if (title->CalcTextSizeA(title->FontSize, FLT_MAX, 0.0f, step_title.c_str()).x > title_w)
    face = or_body(fonts.bold, fonts);
  ImGui::PushFont(face);
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + std::max(0.0f, (title->FontSize - face->FontSize) * 0.5f));
  ImGui::AlignTextToFramePadding();
  // Cut at the last whole word that fits with its "…" ("replayed" cut to "replay" read as another
  // word, and the ellipsis was dropped when the cut text alone fitted but not with it).
  std::string shown = step_title;
  if (ImGui::CalcTextSize(shown.c_str()).x > title_w) {
    const std::string ellipsis = "\xE2\x80\xA6";
    while (!shown.empty() && ImGui::CalcTextSize((shown + ellipsis).c_str()).x > title_w) {
      shown.pop_back();
      while (!shown.empty() && (static_cast<unsigned char>(shown.back()) & 0xC0) == 0x80) shown.pop_back();
    }
    const bool mid_word = shown.size() < step_title.size() && step_title[shown.size()] != ' ';
    if (const size_t space = shown.rfind(' '); mid_word && space != std::string::npos && space > 0) shown.resize(space);
    while (!shown.empty() && (shown.back() == ',' || shown.back() == ':' || shown.back() == ' ')) shown.pop_back();
    shown += ellipsis;
  }
  ImGui::TextUnformatted(shown.c_str());
  title_cut_ = shown != step_title;
  ImGui::PopFont();
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - right_w));
  if (show_clock) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", clock);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Time since the lesson began");
    ImGui::SameLine();
  }
  if (ImGui::Button(notes_label)) player_.toggle_notes();
  ImGui::EndChild();
  ImGui::Separator();
}

void LessonPresenter::draw_text(const LessonFonts& fonts, float width) {
  const LessonStep& step = player_.current();
  if (step.try_it) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_CheckMark));
    ImGui::PushFont(or_body(fonts.bold, fonts));
    // The step after it, or at the end the step before, sets the lesson's controls again.
    wrapped_text(player_.step() + 1 < player_.count()
                     ? "Your turn: the controls are live. Next (\xE2\x96\xB6) restores the lesson."
                     : "Your turn: the controls are live. Back (\xE2\x97\x80) restores the lesson.");
    ImGui::PopFont();
    ImGui::PopStyleColor();
    ImGui::Spacing();
  }
  draw_text_blocks(text_, fonts, width);
}

void LessonPresenter::draw_notes() {
  ImGui::BeginChild("##lesson_notes", ImVec2(0, 0), true);
  ImGui::TextDisabled("Speaker notes (N hides them)");
  const LessonFonts small;  // the UI font: notes are for the lecturer, not the room
  draw_text_blocks(note_blocks(), small, ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize);
  ImGui::EndChild();
}

void LessonPresenter::draw(const LessonFonts& fonts, double now, bool show_clock,
                           const std::function<void()>& draw_view) {
  parse_current();
  draw_bar(fonts, now, show_clock);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const LessonLayout layout = lesson_layout(avail.x, avail.y);
  const ImGuiStyle& style = ImGui::GetStyle();
  const bool notes = player_.notes_shown() && !note_blocks().empty();
  if (layout.column) {
    ImGui::BeginChild("##lesson_text", ImVec2(layout.text_size, 0), false);
    const float notes_h = notes ? ImGui::GetContentRegionAvail().y * 0.35f : 0.0f;
    ImGui::BeginChild("##lesson_step_text", ImVec2(0, notes ? -notes_h : 0), false);
    draw_text(fonts, ImGui::GetContentRegionAvail().x - style.ScrollbarSize);
    ImGui::EndChild();
    if (notes) draw_notes();
    ImGui::EndChild();
    ImGui::SameLine();
  } else {
    ImGui::BeginChild("##lesson_text", ImVec2(0, layout.text_size), false);
    const float notes_w = notes ? ImGui::GetContentRegionAvail().x * 0.35f : 0.0f;
    ImGui::BeginChild("##lesson_step_text", ImVec2(notes ? -notes_w : 0, 0), false);
    draw_text(fonts, ImGui::GetContentRegionAvail().x - style.ScrollbarSize);
    ImGui::EndChild();
    if (notes) {
      ImGui::SameLine();
      draw_notes();
    }
    ImGui::EndChild();
    ImGui::Separator();
  }
  ImGui::BeginChild("##lesson_view", ImVec2(0, 0), false);
  draw_view();
  ImGui::EndChild();
}

}  // namespace headroom::gui
