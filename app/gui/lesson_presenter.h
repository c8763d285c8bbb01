// The lesson presenter: plays a lesson (app/gui/lesson: the file format, the markdown subset and the
// player's clock) over the views. It draws the lesson bar (step indicator, previous / next, the
// elapsed time, speaker notes on N) and the step's text in large type, and gives the rest of the
// window to the step's view, which shows only the panel the step is about.
//
// Keys (what presentation clickers send): Right, Page Down, Space -> next; Left, Page Up ->
// previous; N -> speaker notes. They arrive from the window's key callback (key()) and act in the
// next frame, unless a text field has the keyboard (a "try it" step's sentence box).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/gui/lesson/lesson.h"
#include "app/gui/lesson/lesson_player.h"
#include "app/gui/lesson/lesson_text.h"

struct ImFont;

namespace headroom::gui {

struct LessonFonts {
  ImFont* body = nullptr;  // the step's text
  ImFont* bold = nullptr;
  ImFont* italic = nullptr;
  ImFont* title = nullptr;  // the step's title (bold, larger)
};

// The step's text column (wide windows) or band (4:3 projectors) and the view's region.
struct LessonLayout {
  bool column = true;      // text left of the view; false: text above it
  float text_size = 0.0f;  // the column's width or the band's height, in pixels
};
// Wide windows (1920x1080, 1280x800) get a column of about a third of the width; 4:3 and narrower
// (1024x768) a band of at most 30% of the height above the view, so the maps keep their size.
LessonLayout lesson_layout(float width, float height);

class LessonPresenter {
 public:
  // Reads and validates the lesson (each step's scene through `validate`) and opens it at
  // `start_step` (0-based, clamped). On failure keeps the lesson it had and sets *error.
  bool open(const std::string& path, const SceneValidator& validate, int start_step, double now, std::string* error);
  void close();
  bool active() const { return player_.active(); }
  LessonPlayer& player() { return player_; }
  const LessonPlayer& player() const { return player_; }

  // A key press from the window's key callback; handled by handle_keys in the next frame.
  void key(int glfw_key);
  // Acts on the keys pressed since the last frame; `typing`: a text field has the keyboard.
  void handle_keys(double now, bool typing);

  // Draws the bar and the step's text into the current window, then `draw_view` in the region
  // left for the step's view. `show_clock` is off for handouts (a page has no time).
  void draw(const LessonFonts& fonts, double now, bool show_clock, const std::function<void()>& draw_view);

  // The current step's text and notes, parsed (validated when the lesson was opened).
  const std::vector<TextBlock>& text_blocks() const { return text_; }
  // The last bar drawn had to cut the step's title (even in the smaller face).
  bool title_cut() const { return title_cut_; }
  const std::vector<TextBlock>& note_blocks() const { return notes_; }

 private:
  void parse_current();  // text_ / notes_ for the current step
  void draw_bar(const LessonFonts& fonts, double now, bool show_clock);
  void draw_text(const LessonFonts& fonts, float width);
  void draw_notes();  // the speaker notes panel (N), in the UI font

  LessonPlayer player_;
  uint64_t parsed_version_ = ~0ull;
  std::vector<TextBlock> text_, notes_;
  bool title_cut_ = false;
  std::vector<int> keys_;
};

// Draws paragraphs and lists in the given fonts, wrapped at `wrap_width`, at the cursor; advances
// the cursor past them. Bold and italic runs use their fonts (body when null); formulas are drawn
// in the accent colour. Returns the height drawn.
float draw_text_blocks(const std::vector<TextBlock>& blocks, const LessonFonts& fonts, float wrap_width);

}  // namespace headroom::gui
