// Command line of the `headroom` GUI. This is an automation contract that tests and
// scripts check from outside, so names, defaults and exit codes are fixed:
//
//   headroom [--scene FILE] [--screenshot OUT.png] [--frames N] [--size WxH]
//            [--state-out FILE.json] [--bench-frames N] [--db FILE] [--view NAME] [--model DIR]
//            [--presentation] [--lesson FILE [--lesson-step K] [--handout DIR]]
//
// Exit codes: 0 success (and --help/--version), 1 runtime failure (no display,
// cannot write a file), 2 usage error (bad option value, unknown view, bad scene).
#pragma once

#include <iosfwd>
#include <string>

namespace headroom::gui {

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

constexpr int kDefaultWidth = 1280;
constexpr int kDefaultHeight = 800;
constexpr int kDefaultScreenshotFrames = 5;  // enough for tabs, textures and auto-sized windows to settle
constexpr int kMinWindowSide = 64;
constexpr int kMaxWindowSide = 16384;

struct GuiOptions {
  std::string scene_path;       // --scene: JSON scene ("view" + per-view state)
  std::string screenshot_path;  // --screenshot: render, save the window as PNG, exit
  int frames = 0;               // --frames: frames to render before exiting (0: not given)
  int width = kDefaultWidth;    // --size
  int height = kDefaultHeight;
  bool size_given = false;
  std::string state_out;      // --state-out: app state JSON written on exit
  int bench_frames = 0;       // --bench-frames: measured frames (vsync off), prints one JSON line
  std::string db_path;        // --db: experiments database (used by the lab views)
  std::string view;           // --view: initial tab, by name
  std::string model_dir;      // --model: a Hugging Face model directory the lab opens (the Lab view)
  bool presentation = false;  // --presentation: large fonts, high-contrast theme
  std::string lesson_path;    // --lesson: a lesson TOML file to play (presentation mode on)
  int lesson_step = 1;        // --lesson-step: the step to open at (1-based)
  std::string handout_dir;    // --handout: write every step as PNG + index.html into this folder, exit

  // Runs a fixed number of frames and exits; no settings are read or written.
  bool automation() const { return !screenshot_path.empty() || bench_frames > 0 || frames > 0 || !handout_dir.empty(); }
  // Frames to render before exiting in automation mode (0 = run until the user quits).
  int frames_to_run() const;
};

struct ParseResult {
  bool run = false;  // false: exit now with exit_code (help, version or an error)
  int exit_code = kExitOk;
};

// Parses argv. Help/version text goes to `out`, errors (one clear line saying what is
// wrong and what would be right, then a hint to --help) go to `err`.
ParseResult parse_gui_options(int argc, const char* const* argv, GuiOptions* options, std::ostream& out,
                              std::ostream& err);

// `headroom --help`'s text: every option with its description (the About view shows it).
std::string gui_options_help();

// "1280x800" -> 1280, 800. Sides must be integers in [kMinWindowSide, kMaxWindowSide].
// On failure returns false and sets *error to a message naming the bad value.
bool parse_window_size(const std::string& text, int* width, int* height, std::string* error);

}  // namespace headroom::gui
