#include "app/gui/lesson/lesson.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "app/gui/lesson/lesson_text.h"
#include "core/io/toml_shield.h"

namespace headroom::gui {
namespace {

using nlohmann::json;
using Names = std::vector<std::string>;

const Names kLessonKeys = {"title", "summary", "lab", "step"};
const Names kStepKeys = {"title",  "text", "notes",    "view",    "focus",       "highlight",
                         "try_it", "lab",  "explorer", "animate", "keep_weights"};
const Names kLabFocus = {"maps", "rank", "projections", "theorem", "separation", "summary", "training"};
const Names kExplorerFocus = {"curves", "compare", "figures", "table", "run", "replay"};
// The lab's controls by their scene keys (app/gui/lab/lab_controls.cpp), less the view-only ones.
const Names kLabControls = {
    "kind",      "d",          "heads",       "heads_k",        "heads_v",  "standard_head_size",
    "head_size", "embed_rank", "pos_rank",    "positions",      "pos_init", "pos_init_scale",
    "vocab",     "layers",     "context",     "causal",         "seed",     "input",
    "text",      "task",       "synthetic_n", "training",       "lr",       "layer",
    "stage",     "theorem_n",  "theorem_dp",  "theorem_causal", "pattern",  "importance",
    "map_view"};
const Names kSweepControls = {
    "d",       "heads",       "heads_k",   "heads_v",    "head_size",    "embed_rank", "pos_rank",      "layers",
    "context", "synthetic_n", "theorem_n", "theorem_dp", "theorem_head", "layer",      "enlarged_head", "lr"};
// The explorer's one animated control: the P_l / P_w replay, as a fraction of the run's training.
const Names kExplorerSweepControls = {"replay"};
const Names kAnimateKinds = {"sweep", "train", "head_off"};
const Names kAnimateKeys = {"kind", "control", "from", "to", "seconds", "delay", "steps", "layer", "head"};
const Names kSweepKeys = {"kind", "control", "from", "to", "seconds", "delay"};
const Names kTrainKeys = {"kind", "steps", "delay"};
const Names kHeadOffKeys = {"kind", "layer", "head", "delay"};

// Bounds that keep a lesson's numbers meaningful (and inside an int when the GUI rounds them).
constexpr double kMaxSweepSeconds = 600, kMaxDelay = 3600, kMaxIntegerControl = 100000;
constexpr int64_t kMaxTrainSteps = 100000, kMaxLayerOrHead = 100000;
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

bool contains(const Names& names, const std::string& s) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

std::string join(const Names& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A string for a message: quoted and escaped (one line), cut when long.
std::string quote(const std::string& s) {
  const std::string shown = s.size() > 60 ? s.substr(0, 57) + "..." : s;
  return json(shown).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Debian's toml++ 3.3 reaches __builtin_unreachable() on some non-ASCII code points outside strings:
// lesson text goes through io::shield_toml_text first (core/io/toml_shield.h).
std::string restore(std::string_view s) { return io::unshield_toml_string(s); }

std::string text_of(const toml::node& v) { return restore(v.as_string()->get()); }

std::string describe(const toml::node& v) {
  if (auto s = v.as_string()) return quote(restore(s->get()));
  if (auto i = v.as_integer()) return std::to_string(i->get());
  if (auto f = v.as_floating_point()) {
    const double d = f->get();
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    std::ostringstream s;
    s.precision(15);
    s << d;
    std::string out = s.str();
    if (out.find_first_of(".e") == std::string::npos) out += ".0";  // 6.0 is shown as the float it is
    return out;
  }
  if (auto b = v.as_boolean()) return b->get() ? "true" : "false";
  if (v.is_array()) return "an array";
  if (v.is_table()) return "a table";
  return "a date or time";
}

bool number_of(const toml::node& v, double* out) {
  if (auto i = v.as_integer()) {
    *out = static_cast<double>(i->get());
    return true;
  }
  if (auto f = v.as_floating_point()) {
    *out = f->get();
    return true;
  }
  return false;
}

bool nonblank(const std::string& s) { return s.find_first_not_of(" \t\r\n") != std::string::npos; }

// A message is one line whatever the file or its path hold.
std::string one_line(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return s;
}

// Byte offsets of toml++'s positions (1-based lines; columns count code points), to read a value's raw text.
class SourceText {
 public:
  explicit SourceText(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }
  std::string_view between(const toml::source_position& begin, const toml::source_position& end) const {
    const size_t b = offset(begin), e = offset(end);
    return e > b ? text_.substr(b, e - b) : std::string_view();
  }

 private:
  size_t offset(const toml::source_position& p) const {
    if (p.line < 1 || p.line > line_starts_.size()) return text_.size();
    size_t i = line_starts_[p.line - 1];
    for (uint32_t col = 1; col < p.column && i < text_.size() && text_[i] != '\n'; ++col) {
      ++i;
      while (i < text_.size() && (static_cast<unsigned char>(text_[i]) & 0xC0) == 0x80) ++i;
    }
    return i;
  }
  std::string_view text_;
  std::vector<size_t> line_starts_;
};

struct Entry {
  std::string key;
  const toml::node* value;
  int line, column;
};

// A table's keys in file order (toml++ keeps them sorted by name), each with its line.
std::vector<Entry> entries_of(const toml::table& t, int fallback_line) {
  std::vector<Entry> out;
  for (auto&& [k, v] : t) {
    const toml::source_region& where = k.source().begin.line > 0 ? k.source() : v.source();
    const int line = where.begin.line > 0 ? static_cast<int>(where.begin.line) : fallback_line;
    out.push_back({restore(k.str()), &v, line, static_cast<int>(where.begin.column)});
  }
  std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return out;
}

const Entry* find(const std::vector<Entry>& entries, const std::string& key) {
  for (const Entry& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

int line_of(const toml::node& v, int fallback) {
  return v.source().begin.line > 0 ? static_cast<int>(v.source().begin.line) : fallback;
}

class LessonParser {
 public:
  // `text` is the shielded text (shield()).
  LessonParser(std::string text, const std::string& path, std::string* error)
      : text_(std::move(text)), source_(text_), path_(path), error_(error) {}

  bool parse(Lesson* out) {
    toml::table root;
    try {
      root = toml::parse(std::string_view(text_), std::string_view(path_));
    } catch (const toml::parse_error& e) {
      std::ostringstream msg;
      msg << path_ << ":" << e.source().begin.line << ":" << e.source().begin.column
          << ": not valid TOML: " << restore(e.description());
      *error_ = one_line(msg.str());
      return false;
    }
    Lesson lesson;
    lesson.path = path_;
    const std::vector<Entry> top = entries_of(root, 1);
    for (const Entry& e : top)
      if (!contains(kLessonKeys, e.key)) return fail(e.line, e.key, "unknown key; valid keys: " + join(kLessonKeys));

    const Entry* title = find(top, "title");
    const char* title_right = "required: the lesson's title as a non-empty string";
    if (!title) return fail(1, "title", title_right);
    if (!title->value->is_string())
      return fail(title->line, "title",
                  "expected the lesson's title as a non-empty string, got " + describe(*title->value));
    lesson.title = text_of(*title->value);
    if (!nonblank(lesson.title)) return fail(title->line, "title", title_right);

    if (const Entry* summary = find(top, "summary")) {
      if (!summary->value->is_string())
        return fail(summary->line, "summary",
                    "expected a one-line summary as a string, got " + describe(*summary->value));
      lesson.summary = text_of(*summary->value);
    }

    json base_lab = json::object();
    std::map<std::string, int> base_lines;
    if (const Entry* lab = find(top, "lab")) {
      if (!lab->value->is_table())
        return fail(lab->line, "lab",
                    "expected a table of lab settings ([lab] with keys like d = 32), got " + describe(*lab->value));
      base_lines["lab"] = lab->line;
      if (!table_to_json(*lab->value->as_table(), "lab", lab->line, &base_lab, &base_lines)) return false;
    }

    const Entry* steps = find(top, "step");
    const std::string steps_right = "required: at least one [[step]] table with a title and text";
    if (!steps) return fail(1, "step", steps_right);
    const toml::array* array = steps->value->as_array();
    if (!array) return fail(steps->line, "step", "expected [[step]] tables, got " + describe(*steps->value));
    if (array->empty()) return fail(steps->line, "step", steps_right);
    if (array->size() > static_cast<size_t>(kMaxLessonSteps)) {
      return fail(line_of((*array)[kMaxLessonSteps], steps->line), "step",
                  "the lesson has " + std::to_string(array->size()) + " steps; at most " +
                      std::to_string(kMaxLessonSteps) + " - split it into two lessons");
    }
    for (size_t k = 0; k < array->size(); ++k) {
      const toml::node& node = (*array)[k];
      prefix_ = "step " + std::to_string(k + 1);
      if (!node.is_table())
        return fail(line_of(node, steps->line), "step", "expected a [[step]] table, got " + describe(node));
      LessonStep step;
      if (!parse_step(*node.as_table(), line_of(node, steps->line), base_lab, base_lines, &step)) return false;
      // A stored run (lab.stored_run) brings its own weights: there is nothing of the step's own to
      // keep, and a later step cannot keep them (it would train the lesson's seed instead).
      if (step.keep_weights && opens_stored_run(step))
        return fail(step.key_lines.at("keep_weights"), "keep_weights",
                    "this step opens a stored run (lab.stored_run), which brings its own weights; remove keep_weights");
      if (step.keep_weights && !lesson.steps.empty() && opens_stored_run(lesson.steps.back()))
        return fail(step.key_lines.at("keep_weights"), "keep_weights",
                    "the step before opens a stored run, whose weights this step cannot keep; open it again here "
                    "(stored_run in [step.lab]) instead of keep_weights");
      lesson.steps.push_back(std::move(step));
    }
    *out = std::move(lesson);
    return true;
  }

 private:
  static bool opens_stored_run(const LessonStep& step) {
    return step.scene.contains("lab") && step.scene["lab"].is_object() && step.scene["lab"].contains("stored_run");
  }

  bool fail(int line, const std::string& key, const std::string& what) {
    *error_ = one_line(path_ + ":" + std::to_string(std::max(line, 1)) + ": " +
                       (prefix_.empty() ? "" : prefix_ + ": ") + key + ": " + what);
    return false;
  }

  // TOML -> the scene's JSON, recording each key's line under its dotted name ("lab.d").
  bool to_json(const toml::node& v, const std::string& name, int line, json* out, std::map<std::string, int>* lines) {
    if (auto t = v.as_table()) return table_to_json(*t, name, line, out, lines);
    if (auto a = v.as_array()) {
      *out = json::array();
      for (const toml::node& e : *a) {
        json item;
        if (!to_json(e, name, line_of(e, line), &item, lines)) return false;
        out->push_back(std::move(item));
      }
      return true;
    }
    if (auto s = v.as_string()) {
      *out = restore(s->get());
    } else if (auto i = v.as_integer()) {
      *out = i->get();
    } else if (auto b = v.as_boolean()) {
      *out = b->get();
    } else if (auto f = v.as_floating_point()) {
      if (!std::isfinite(f->get())) return fail(line, name, "expected a finite number, got " + describe(v));
      *out = f->get();
    } else {
      return fail(line, name, "dates and times have no meaning in a scene; use a number or a string");
    }
    return true;
  }
  bool table_to_json(const toml::table& t, const std::string& name, int line, json* out,
                     std::map<std::string, int>* lines) {
    *out = json::object();
    for (const Entry& e : entries_of(t, line)) {
      const std::string child = name + "." + e.key;
      (*lines)[child] = e.line;
      json value;
      if (!to_json(*e.value, child, e.line, &value, lines)) return false;
      (*out)[e.key] = std::move(value);
    }
    return true;
  }

  // The file line of line `n` of a string value's text: exact for a multi-line string whose escapes add or
  // remove no newlines, else the value's own line (a one-line string is all on it anyway).
  int text_file_line(const toml::node& v, int n) const {
    const toml::source_region& r = v.source();
    const int first = static_cast<int>(r.begin.line);
    const std::string_view raw = source_.between(r.begin, r.end);
    const bool literal = raw.rfind("'''", 0) == 0, basic = raw.rfind("\"\"\"", 0) == 0;
    if (!literal && !basic) return first;
    const std::string_view body = raw.substr(3);
    if (basic) {
      for (size_t i = 0; i + 1 < body.size(); ++i) {
        if (body[i] != '\\') continue;
        const char next = body[i + 1];
        if (next == 'n' || next == 'r' || next == 'u' || next == 'U' || next == ' ' || next == '\t' || next == '\n' ||
            next == '\r')
          return first;
        ++i;  // \\ \" \t ...: one character, no newline
      }
    }
    // TOML drops a newline right after the opening quotes: the text starts on the next line.
    const bool trimmed = body.rfind("\n", 0) == 0 || body.rfind("\r\n", 0) == 0;
    return first + (trimmed ? 1 : 0) + n - 1;
  }

  // text / notes: a string of lesson markdown, parsed here so that bad markup is found with the file.
  bool markdown(const Entry& e, std::string* out, int* line) {
    if (!e.value->is_string())
      return fail(e.line, e.key, "expected a string of lesson markdown, got " + describe(*e.value));
    *out = text_of(*e.value);
    *line = line_of(*e.value, e.line);
    std::vector<TextBlock> blocks;
    std::string md_error;
    int md_line = 1;
    if (!parse_lesson_markdown(*out, &blocks, &md_error, &md_line))
      return fail(text_file_line(*e.value, md_line), e.key, md_error);
    return true;
  }

  bool parse_step(const toml::table& t, int step_line, const json& base_lab,
                  const std::map<std::string, int>& base_lines, LessonStep* out) {
    LessonStep step;
    const std::vector<Entry> keys = entries_of(t, step_line);
    step.line = step_line > 0 ? step_line : (keys.empty() ? 1 : keys.front().line);
    const Entry* title = find(keys, "title");
    if (title && title->value->is_string() && nonblank(text_of(*title->value)))
      prefix_ += " (" + quote(text_of(*title->value)) + ")";
    for (const Entry& e : keys) {
      if (!contains(kStepKeys, e.key)) return fail(e.line, e.key, "unknown key; valid keys: " + join(kStepKeys));
      step.key_lines[e.key] = e.line;
    }

    const char* title_right = "required: the step's title as a non-empty string";
    if (!title) return fail(step.line, "title", title_right);
    if (!title->value->is_string())
      return fail(title->line, "title",
                  "expected the step's title as a non-empty string, got " + describe(*title->value));
    step.title = text_of(*title->value);
    if (!nonblank(step.title)) return fail(title->line, "title", title_right);

    const Entry* text = find(keys, "text");
    const char* text_right =
        "required: the step's text as lesson markdown (paragraphs, - bullets, 1. items, **bold**, *italic*, `formula`)";
    if (!text) return fail(step.line, "text", text_right);
    if (!markdown(*text, &step.text, &step.text_line)) return false;
    if (!nonblank(step.text)) return fail(text->line, "text", text_right);
    if (const Entry* notes = find(keys, "notes"))
      if (!markdown(*notes, &step.notes, &step.notes_line)) return false;

    if (const Entry* view = find(keys, "view")) {
      const std::string got = view->value->is_string() ? text_of(*view->value) : "";
      if (got != "Lab" && got != "Explorer")
        return fail(view->line, "view", "expected \"Lab\" or \"Explorer\", got " + describe(*view->value));
      step.view = got;
    }
    const bool lab_view = step.view == "Lab";
    const Names& panels = lab_view ? kLabFocus : kExplorerFocus;
    if (const Entry* focus = find(keys, "focus")) {
      const std::string right = "use one of " + join(panels) + ", or \"\" for the whole view";
      if (!focus->value->is_string())
        return fail(focus->line, "focus", "expected a panel name, got " + describe(*focus->value) + "; " + right);
      step.focus = text_of(*focus->value);
      if (!step.focus.empty() && !contains(panels, step.focus))
        return fail(focus->line, "focus",
                    quote(step.focus) + " is not a panel of the " + step.view + " view; " + right);
    }
    if (const Entry* highlight = find(keys, "highlight")) {
      const toml::array* names = highlight->value->as_array();
      if (!names)
        return fail(highlight->line, "highlight",
                    "expected an array of control names like [\"heads\", \"d\"], got " + describe(*highlight->value));
      if (!lab_view && !names->empty())
        return fail(highlight->line, "highlight",
                    "the Explorer view has no controls to highlight; remove highlight or set view = \"Lab\"");
      for (const toml::node& n : *names) {
        const int line = line_of(n, highlight->line);
        if (!n.is_string())
          return fail(line, "highlight",
                      "expected a control name, got " + describe(n) + "; Lab controls: " + join(kLabControls));
        const std::string name = text_of(n);
        if (!contains(kLabControls, name))
          return fail(line, "highlight", "unknown control " + quote(name) + "; Lab controls: " + join(kLabControls));
        step.highlight.push_back(name);
      }
    }
    if (const Entry* try_it = find(keys, "try_it")) {
      if (!try_it->value->is_boolean())
        return fail(try_it->line, "try_it", "expected true or false, got " + describe(*try_it->value));
      step.try_it = try_it->value->as_boolean()->get();
    }

    // keep_weights: the step goes on with the model the previous step left (trained weights kept
    // when the shapes match), instead of fresh weights from the seed.
    if (const Entry* keep = find(keys, "keep_weights")) {
      if (!keep->value->is_boolean())
        return fail(keep->line, "keep_weights", "expected true or false, got " + describe(*keep->value));
      step.keep_weights = keep->value->as_boolean()->get();
    }

    // The scene: base [lab] under the step's [step.lab], key by key.
    json lab = base_lab;
    for (const auto& [k, l] : base_lines) step.key_lines.emplace(k, l);  // the step's own "lab" line wins
    if (const Entry* step_lab = find(keys, "lab")) {
      if (!step_lab->value->is_table())
        return fail(step_lab->line, "lab",
                    "expected a table of lab settings ([step.lab] with keys like heads = 4), got " +
                        describe(*step_lab->value));
      json own;
      std::map<std::string, int> own_lines;
      if (!table_to_json(*step_lab->value->as_table(), "lab", step_lab->line, &own, &own_lines)) return false;
      for (auto it = own.begin(); it != own.end(); ++it) lab[it.key()] = it.value();
      for (const auto& [k, l] : own_lines) step.key_lines[k] = l;
    }
    step.scene = json::object();
    step.scene["view"] = step.view;
    if (step.keep_weights) step.scene["keep_weights"] = true;
    if (!lab.empty()) step.scene["lab"] = std::move(lab);
    if (const Entry* explorer = find(keys, "explorer")) {
      if (!explorer->value->is_table())
        return fail(explorer->line, "explorer",
                    "expected a table for the explorer's scene ([step.explorer] with keys like suite = \"lrb_heads\"), "
                    "got " +
                        describe(*explorer->value));
      json ex;
      if (!table_to_json(*explorer->value->as_table(), "explorer", explorer->line, &ex, &step.key_lines)) return false;
      step.scene["explorer"] = std::move(ex);
    }

    if (const Entry* animate = find(keys, "animate")) {
      const toml::array* list = animate->value->as_array();
      if (!list)
        return fail(animate->line, "animate", "expected [[step.animate]] tables, got " + describe(*animate->value));
      for (const toml::node& n : *list) {
        const int line = line_of(n, animate->line);
        if (!n.is_table()) return fail(line, "animate", "expected a [[step.animate]] table, got " + describe(n));
        LessonAnimation a;
        if (!parse_animation(*n.as_table(), line, lab_view, &a)) return false;
        step.animations.push_back(std::move(a));
      }
    }
    *out = std::move(step);
    return true;
  }

  bool parse_animation(const toml::table& t, int line, bool lab_view, LessonAnimation* out) {
    LessonAnimation a;
    a.line = line;
    const std::vector<Entry> keys = entries_of(t, line);
    for (const Entry& e : keys)
      if (!contains(kAnimateKeys, e.key))
        return fail(e.line, "animate." + e.key, "unknown key; valid keys: " + join(kAnimateKeys));
    const Entry* kind = find(keys, "kind");
    if (!kind) return fail(line, "animate.kind", "required: sweep, train or head_off");
    const std::string k = kind->value->is_string() ? text_of(*kind->value) : "";
    if (!contains(kAnimateKinds, k))
      return fail(kind->line, "animate.kind", "expected sweep, train or head_off, got " + describe(*kind->value));
    if (!lab_view && k != "sweep")
      return fail(kind->line, "animate.kind",
                  k + " drives the Lab, but this step shows the Explorer; set view = \"Lab\", or sweep the "
                      "Explorer's replay");
    a.kind = k == "sweep"   ? LessonAnimation::Kind::Sweep
             : k == "train" ? LessonAnimation::Kind::Train
                            : LessonAnimation::Kind::HeadOff;
    const Names& valid = k == "sweep" ? kSweepKeys : k == "train" ? kTrainKeys : kHeadOffKeys;
    for (const Entry& e : keys)
      if (!contains(valid, e.key))
        return fail(e.line, "animate." + e.key, "not a key of a " + k + " animation; it has " + join(valid));

    if (const Entry* delay = find(keys, "delay")) {
      if (!number_of(*delay->value, &a.delay) || !(a.delay >= 0 && a.delay <= kMaxDelay))
        return fail(delay->line, "animate.delay",
                    "expected a number from 0 to 3600 (seconds after the step starts), got " + describe(*delay->value));
    }
    // An integer key of train / head_off, within [lo, hi].
    auto integer = [&](const char* key, int64_t lo, int64_t hi, const std::string& required, int* into) {
      const std::string name = std::string("animate.") + key;
      const Entry* e = find(keys, key);
      if (!e) return fail(line, name, "required for " + k + ": " + required);
      const auto* v = e->value->as_integer();
      if (v && v->get() >= lo && v->get() <= hi) {
        *into = static_cast<int>(v->get());
        return true;
      }
      const std::string range = v && v->get() > hi ? "<= " + std::to_string(hi)
                                : lo == 0          ? ">= 0"
                                                   : "from " + std::to_string(lo) + " to " + std::to_string(hi);
      return fail(e->line, name, "expected an integer " + range + ", got " + describe(*e->value));
    };
    if (a.kind == LessonAnimation::Kind::Train) {
      if (!integer("steps", 1, kMaxTrainSteps, "the number of training steps (1 to 100000)", &a.steps)) return false;
      *out = std::move(a);
      return true;
    }
    if (a.kind == LessonAnimation::Kind::HeadOff) {
      if (!integer("layer", 0, kMaxLayerOrHead, "the layer of the head (0-based)", &a.layer)) return false;
      if (!integer("head", 0, kMaxLayerOrHead, "the head to switch off (0-based)", &a.head)) return false;
      *out = std::move(a);
      return true;
    }

    const Names& controls = lab_view ? kSweepControls : kExplorerSweepControls;
    const std::string of_view = lab_view ? "" : " (the Explorer's controls)";
    const Entry* control = find(keys, "control");
    if (!control)
      return fail(line, "animate.control",
                  "required for sweep: the control to sweep, one of " + join(controls) + of_view);
    a.control = control->value->is_string() ? text_of(*control->value) : "";
    if (!contains(controls, a.control))
      return fail(control->line, "animate.control",
                  "expected one of " + join(controls) + of_view + ", got " + describe(*control->value));
    const bool lr = a.control == "lr", replay = a.control == "replay";
    for (const char* key : {"from", "to"}) {
      const Entry* e = find(keys, key);
      const std::string what = std::string("the ") + (key[0] == 'f' ? "first" : "last") + " value of " + a.control;
      if (!e) return fail(line, std::string("animate.") + key, "required for sweep: " + what);
      double v = 0;
      const bool ok = number_of(*e->value, &v) && (lr       ? v > 0 && v <= 1
                                                   : replay ? v >= 0 && v <= 1
                                                            : v >= 0 && v <= kMaxIntegerControl);
      const char* expected = lr       ? "a learning rate > 0 and <= 1"
                             : replay ? "a fraction of the run's training from 0 to 1"
                                      : "a number from 0 to 100000";
      if (!ok)
        return fail(e->line, std::string("animate.") + key,
                    std::string("expected ") + expected + " as " + what + ", got " + describe(*e->value));
      (key[0] == 'f' ? a.from : a.to) = v;
    }
    const Entry* seconds = find(keys, "seconds");
    if (!seconds) return fail(line, "animate.seconds", "required for sweep: its duration in seconds (> 0 and <= 600)");
    if (!number_of(*seconds->value, &a.seconds) || !(a.seconds > 0))
      return fail(seconds->line, "animate.seconds", "expected a number > 0, got " + describe(*seconds->value));
    if (a.seconds > kMaxSweepSeconds)
      return fail(seconds->line, "animate.seconds",
                  "expected a number <= 600 (ten minutes), got " + describe(*seconds->value));
    *out = std::move(a);
    return true;
  }

  const std::string text_;
  SourceText source_;
  const std::string& path_;
  std::string* error_;
  std::string prefix_;  // "step 2 (\"Heads\")" while a step is read
};

}  // namespace

const std::vector<std::string>& lesson_sweep_controls() { return kSweepControls; }

bool parse_lesson_text(const std::string& toml_text, const std::string& path, Lesson* lesson, std::string* error) {
  std::string shielded;
  int line = 0;
  uint32_t cp = 0;
  if (!io::shield_toml_text(toml_text, &shielded, &line, &cp)) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "U+%05X", static_cast<unsigned>(cp));
    *error = one_line(path + ":" + std::to_string(line) + ": character " + hex +
                      " (Supplementary Private Use Area-A) cannot be in a lesson file; remove it");
    return false;
  }
  return LessonParser(std::move(shielded), path, error).parse(lesson);
}

bool load_lesson_file(const std::string& path, Lesson* lesson, std::string* error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    *error = one_line("cannot read lesson file '" + path + "': " + std::strerror(EISDIR));
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = one_line("cannot read lesson file '" + path + "': " + std::strerror(errno));
    return false;
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxFileBytes) {
    *error = one_line("cannot read lesson file '" + path + "': " + std::to_string(size) +
                      " bytes; a lesson file is at most 1 MiB");
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    *error = one_line("cannot read lesson file '" + path + "': read error");
    return false;
  }
  return parse_lesson_text(ss.str(), path, lesson, error);
}

bool validate_lesson_scenes(const Lesson& lesson, const SceneValidator& validate, std::string* error) {
  for (size_t k = 0; k < lesson.steps.size(); ++k) {
    const LessonStep& step = lesson.steps[k];
    std::string why;
    if (validate(step.scene, &why)) continue;
    if (why.empty()) why = "the GUI cannot load this step's scene";
    // The key the message starts with ("lab.d: ..."), tried shorter dot by dot until one has a line.
    int line = step.line;
    const size_t colon = why.find(':');
    for (std::string name = colon == std::string::npos ? "" : why.substr(0, colon); !name.empty();) {
      const auto it = step.key_lines.find(name);
      if (it != step.key_lines.end()) {
        line = it->second;
        break;
      }
      const size_t dot = name.rfind('.');
      name = dot == std::string::npos ? "" : name.substr(0, dot);
    }
    *error = one_line(lesson.path + ":" + std::to_string(std::max(line, 1)) + ": step " + std::to_string(k + 1) + " (" +
                      quote(step.title) + "): " + why);
    return false;
  }
  return true;
}

std::vector<LessonEntry> list_lessons(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code file_ec;
    if (it->path().extension() == ".toml" && it->is_regular_file(file_ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  std::vector<LessonEntry> out;
  for (const fs::path& f : files) {
    LessonEntry entry;
    entry.path = f.string();
    Lesson lesson;
    if (load_lesson_file(entry.path, &lesson, &entry.error)) entry.title = lesson.title;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace headroom::gui
