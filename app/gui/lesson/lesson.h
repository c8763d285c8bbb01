// Lessons: TOML files (assets/lessons/*.toml) that a lecturer plays in the GUI, one step at a time.
// Each step has a title, text in the markdown subset of lesson_text.h, optional speaker notes, the
// view and panel it shows, the scene it loads (the GUI's scene format, app/gui/scene.h) and
// animations (a control swept over time, training for N steps, a head switched off).
//
//   title = "One head"                       # required
//   summary = "What one attention head computes."
//   [lab]                                    # optional: lab settings under every step's own
//   d = 32
//   [[step]]                                 # 1 to 40 steps
//   title = "Queries meet keys"              # required
//   text = """
//   A head compares each **query** with every *key*: `J = Q K^T / sqrt(d_k)`.
//   """                                      # required
//   notes = "Ask the class ..."              # speaker notes
//   view = "Lab"                             # Lab (default) or Explorer
//   focus = "maps"                           # the panel the step is about ("" or absent: the view as it is)
//   highlight = ["heads", "head_size"]       # Lab controls drawn highlighted
//   try_it = false                           # the lecturer gets the controls
//   keep_weights = false                     # go on with the weights the previous step trained
//   [step.lab]                               # this step's lab settings, over [lab]
//   heads = 4
//   stored_run = { name = "th-head-dims/6-24-6/seed=0" }   # trained weights from a DB (db = "@results",
//                                            # step = last by default); not with keep_weights
//   [step.explorer]                          # the explorer's scene object, passed through
//   suite = "lrb_heads"
//   [[step.animate]]                         # kind = sweep (control, from, to, seconds), train (steps),
//   kind = "sweep"                           # head_off (layer, head); all may have a delay
//   control = "theorem_dp"
//   from = 2
//   to = 8
//   seconds = 6
//
// Everything is checked when the file is read, so a lecturer finds a typo before class: unknown keys
// are errors (never silently ignored), types are checked, and each message names the file, the line,
// the step and the key, what is wrong and what would be right. What only a view can check (a lab
// setting's range, an explorer key) is checked through validate_lesson_scenes with the GUI's loader.
//
// Limits, so that a shared file cannot ask for the absurd: at most 40 steps and 1 MiB; a sweep's
// from / to within 0..100000 (lr: > 0 and <= 1), its seconds > 0 and <= 600; a delay 0..3600 s;
// train steps 1..100000; head_off layer / head 0..100000. Animations need view = "Lab", and only the
// Lab has controls to highlight.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace headroom::gui {

struct LessonAnimation {
  enum class Kind { Sweep, Train, HeadOff };
  Kind kind = Kind::Sweep;
  std::string control;  // Sweep: a lab control (LessonPlayer::is_integer_control says which are integers)
  double from = 0, to = 0, seconds = 0;
  double delay = 0;         // seconds after the step starts (every kind)
  int steps = 0;            // Train: optimizer steps, 1..100000
  int layer = 0, head = 0;  // HeadOff
  int line = 0;             // 1-based line of its [[step.animate]] table
};

struct LessonStep {
  std::string title, text, notes, view = "Lab", focus;
  std::vector<std::string> highlight;
  bool try_it = false;
  bool keep_weights = false;  // go on with the previous step's weights (shapes permitting); scene["keep_weights"]
  // The scene this step loads, in the GUI's scene format: {"view": "Lab", "lab": {...}} with the base
  // [lab] and the step's [step.lab] merged (the step's keys win), plus "explorer": {...} when given.
  // "lab" is present only when the base or the step has lab keys.
  nlohmann::json scene = nlohmann::json::object();
  std::vector<LessonAnimation> animations;
  int line = 0;  // line of the step's [[step]] header (or its first key)
  // Where each key is, for messages: "lab.d" (the step's key, else the base [lab]'s), "explorer.suite",
  // and the step's own keys ("focus", "text", ...).
  std::map<std::string, int> key_lines;
  int text_line = 0, notes_line = 0;  // line where the text / notes value starts (its opening quotes)
};

struct Lesson {
  std::string path, title, summary;
  std::vector<LessonStep> steps;
};

// A lesson has at most this many steps: a longer one is two lessons.
constexpr int kMaxLessonSteps = 40;

// The lab controls a sweep may animate, in the order messages list them. All are integers but lr.
const std::vector<std::string>& lesson_sweep_controls();

// Reads and validates a lesson file. On failure returns false and sets *error to one line:
//   "<path>:<line>: step <k> (\"<title>\"): <key>: <what is wrong>; <what would be right>"
// ("step k" only for a problem inside step k, 1-based; the line is the offending key's when known).
// A TOML syntax error is toml++'s description at "<path>:<line>:<column>:"; an unreadable file is
// "cannot read lesson file '<path>': <strerror>". The text and notes are parsed as markdown here too,
// and a markup error points at its line in the file.
bool load_lesson_file(const std::string& path, Lesson* lesson, std::string* error);
// Same for text already in memory (`path` is only used in messages).
bool parse_lesson_text(const std::string& toml_text, const std::string& path, Lesson* lesson, std::string* error);

// What only the GUI can check: called once per step with the step's scene (the GUI loads it into a
// scratch copy of each view); on false its *error (e.g. "lab.d: expected integer, got \"x\"") is
// reported like the errors above, at the line of the key it names before its first ':' ("lab.d",
// "explorer.suite"; a deeper name is tried shorter dot by dot), else at the step's line.
using SceneValidator = std::function<bool(const nlohmann::json& scene, std::string* error)>;
bool validate_lesson_scenes(const Lesson& lesson, const SceneValidator& validate, std::string* error);

// The lessons in a directory (assets/lessons): every *.toml file, sorted by file name, each read
// whole: its title, or the error that makes it unplayable (title then empty). A missing directory
// lists nothing.
struct LessonEntry {
  std::string path, title, error;
};
std::vector<LessonEntry> list_lessons(const std::string& dir);

}  // namespace headroom::gui
