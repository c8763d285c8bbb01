#include "app/gui/gui_options.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <ostream>

#ifndef HEADROOM_VERSION
#define HEADROOM_VERSION "0.0.0"
#endif

namespace headroom::gui {

int GuiOptions::frames_to_run() const {
  if (bench_frames > 0) return bench_frames;
  if (frames > 0) return frames;
  if (!screenshot_path.empty()) return kDefaultScreenshotFrames;
  return 0;
}

bool parse_window_size(const std::string& text, int* width, int* height, std::string* error) {
  const auto fail = [&](const std::string& why) {
    if (error) *error = "--size '" + text + "' " + why;
    return false;
  };
  const size_t x = text.find_first_of("xX");
  if (x == std::string::npos || x == 0 || x + 1 == text.size())
    return fail("is not WIDTHxHEIGHT; expected two integers joined by 'x', e.g. --size 1280x800");
  const std::string ws = text.substr(0, x), hs = text.substr(x + 1);
  for (const std::string* s : {&ws, &hs})
    for (char c : *s)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return fail("is not WIDTHxHEIGHT; expected two integers joined by 'x', e.g. --size 1280x800");
  if (ws.size() > 6 || hs.size() > 6)
    return fail("is too large; each side must be between " + std::to_string(kMinWindowSide) + " and " +
                std::to_string(kMaxWindowSide) + " pixels");
  const int w = std::stoi(ws), h = std::stoi(hs);
  if (w < kMinWindowSide || h < kMinWindowSide || w > kMaxWindowSide || h > kMaxWindowSide)
    return fail("is out of range; each side must be between " + std::to_string(kMinWindowSide) + " and " +
                std::to_string(kMaxWindowSide) + " pixels, e.g. --size 1280x800");
  *width = w;
  *height = h;
  return true;
}

namespace {

// Every option of the `headroom` command line, bound to *o (and the --size text): what
// parse_gui_options parses and what gui_options_help lists, from one place.
void describe_options(CLI::App& app, GuiOptions& o, std::string& size_text) {
  app.add_option("--scene", o.scene_path, "JSON scene file to open (its \"view\" selects the tab)");
  app.add_option("--screenshot", o.screenshot_path, "render --frames frames, save the whole window as this PNG, exit");
  app.add_option("--frames", o.frames,
                 "frames to render before --screenshot/--state-out exit (default 5 with --screenshot)");
  app.add_option("--size", size_text, "window size WIDTHxHEIGHT (default 1280x800)");
  app.add_option("--state-out", o.state_out, "write the app state as JSON to this file on exit");
  app.add_option("--bench-frames", o.bench_frames,
                 "render N frames with vsync off, print frame-time stats as one JSON line, exit");
  app.add_option("--db", o.db_path, "experiments database file");
  app.add_option("--view", o.view, "initial view (tab) by name, e.g. \"Widgets demo\"");
  app.add_option("--model", o.model_dir,
                 "open a Hugging Face GPT-2, BERT or Llama-style model directory in the lab (config.json, "
                 "*.safetensors, tokenizer files)");
  app.add_flag("--presentation", o.presentation, "large fonts and a high-contrast theme for projectors");
  app.add_option("--lesson", o.lesson_path, "play a lesson (assets/lessons/*.toml) in presentation mode");
  app.add_option("--lesson-step", o.lesson_step, "with --lesson: open at this step (1-based, default 1)");
  app.add_option("--handout", o.handout_dir,
                 "with --lesson: write every step (from --lesson-step on) as a PNG plus index.html with the texts into "
                 "this folder, exit");
  app.set_version_flag("--version", std::string("headroom ") + HEADROOM_VERSION);
}

constexpr const char* kDescription = "Headroom: a desktop lab for multi-head attention and its rank bottlenecks.";

}  // namespace

std::string gui_options_help() {
  GuiOptions o;
  std::string size_text;
  CLI::App app{kDescription, "headroom"};
  describe_options(app, o, size_text);
  return app.help();
}

ParseResult parse_gui_options(int argc, const char* const* argv, GuiOptions* options, std::ostream& out,
                              std::ostream& err) {
  GuiOptions o;
  std::string size_text;
  CLI::App app{kDescription, "headroom"};
  describe_options(app, o, size_text);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return {false, kExitOk};
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return {false, kExitOk};
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return {false, kExitOk};
  } catch (const CLI::ParseError& e) {
    err << "headroom: " << e.what() << "\nRun 'headroom --help' for the options.\n";
    return {false, kExitUsage};
  }

  const auto usage = [&](const std::string& msg) {
    err << "headroom: " << msg << "\nRun 'headroom --help' for the options.\n";
    return ParseResult{false, kExitUsage};
  };
  if (!size_text.empty()) {
    std::string error;
    if (!parse_window_size(size_text, &o.width, &o.height, &error)) return usage(error);
    o.size_given = true;
  }
  if (app.count("--frames") && o.frames < 1)
    return usage("--frames " + std::to_string(o.frames) + " must be at least 1, e.g. --frames 5");
  if (app.count("--bench-frames") && o.bench_frames < 1)
    return usage("--bench-frames " + std::to_string(o.bench_frames) + " must be at least 1, e.g. --bench-frames 300");
  if (app.count("--screenshot") && o.screenshot_path.empty())
    return usage("--screenshot needs a file name, e.g. --screenshot out.png");
  if (app.count("--state-out") && o.state_out.empty())
    return usage("--state-out needs a file name, e.g. --state-out state.json");
  if (app.count("--view") && o.view.empty()) return usage("--view needs a view name, e.g. --view \"Widgets demo\"");
  if (app.count("--model") && o.model_dir.empty())
    return usage("--model needs a model directory, e.g. --model ~/models/gpt2");
  if (app.count("--lesson") && o.lesson_path.empty())
    return usage("--lesson needs a lesson file, e.g. --lesson assets/lessons/01_one_head.toml");
  if (app.count("--handout") && o.handout_dir.empty())
    return usage("--handout needs a folder, e.g. --handout handout/");
  if (!o.handout_dir.empty() && o.lesson_path.empty())
    return usage(
        "--handout writes a lesson's steps: give the lesson too, e.g. --lesson assets/lessons/01_one_head.toml "
        "--handout out/");
  if (app.count("--lesson-step") && o.lesson_path.empty())
    return usage("--lesson-step opens a step of a lesson: give the lesson too (--lesson FILE)");
  if (o.lesson_step < 1) return usage("--lesson-step " + std::to_string(o.lesson_step) + " must be 1 or more");
  if (!o.handout_dir.empty() && (o.frames > 0 || o.bench_frames > 0 || !o.screenshot_path.empty()))
    return usage("--handout takes its own screenshots: leave out --screenshot, --frames and --bench-frames");
  if (!o.lesson_path.empty()) o.presentation = true;  // a lecture: large type, high contrast
  *options = o;
  return {true, kExitOk};
}

}  // namespace headroom::gui
