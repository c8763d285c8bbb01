#include "app/gui/lesson/lesson.h"
#include "app/gui/lesson/lesson_player.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace headroom::gui {
namespace {

using nlohmann::json;

constexpr const char* kPath = "lessons/x.toml";

// Line numbers matter below: each line of the file is one line of this literal.
constexpr const char* kComplete = R"(title = "One head"
summary = "What one attention head computes."
[lab]
d = 32
layers = 1

[[step]]
title = "Queries meet keys"
text = """
A head compares each **query** with every *key*: `J = Q K^T / sqrt(d_k)`.
- one row per query
- the softmax makes each row sum to 1
"""
notes = "Ask the class which token..."
view = "Lab"
focus = "maps"
highlight = ["heads", "head_size"]
try_it = true
[step.lab]
heads = 4
d = 64
[step.explorer]
suite = "lrb_heads"
[[step.animate]]
kind = "sweep"
control = "theorem_dp"
from = 2
to = 8.5
seconds = 6
delay = 0.5
[[step.animate]]
kind = "train"
steps = 200
[[step.animate]]
kind = "head_off"
layer = 0
head = 3
delay = 2

[[step]]
title = "Runs"
text = "The explorer shows runs."
view = "Explorer"
focus = "curves"
[step.explorer]
suite = "lrb_heads"

[[step]]
title = "Defaults"
text = "Only the base."
)";

Lesson parse_ok(const std::string& text) {
  Lesson lesson;
  std::string error;
  EXPECT_TRUE(parse_lesson_text(text, kPath, &lesson, &error)) << error;
  EXPECT_EQ(error, "");
  return lesson;
}

std::string parse_error(const std::string& text) {
  Lesson lesson;
  std::string error;
  EXPECT_FALSE(parse_lesson_text(text, kPath, &lesson, &error));
  EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
  return error;
}

// A valid one-step lesson with `step_keys` added to its step (the step header is line 2, title line 3).
std::string one_step(const std::string& step_keys) {
  return "title = \"T\"\n[[step]]\ntitle = \"A\"\ntext = \"t\"\n" + step_keys;
}

TEST(LessonFile, ParsesEveryKey) {
  const Lesson lesson = parse_ok(kComplete);
  EXPECT_EQ(lesson.path, kPath);
  EXPECT_EQ(lesson.title, "One head");
  EXPECT_EQ(lesson.summary, "What one attention head computes.");
  ASSERT_EQ(lesson.steps.size(), 3u);

  const LessonStep& s = lesson.steps[0];
  EXPECT_EQ(s.title, "Queries meet keys");
  EXPECT_EQ(s.text,
            "A head compares each **query** with every *key*: `J = Q K^T / sqrt(d_k)`.\n- one row per query\n"
            "- the softmax makes each row sum to 1\n");
  EXPECT_EQ(s.notes, "Ask the class which token...");
  EXPECT_EQ(s.view, "Lab");
  EXPECT_EQ(s.focus, "maps");
  EXPECT_EQ(s.highlight, (std::vector<std::string>{"heads", "head_size"}));
  EXPECT_TRUE(s.try_it);
  EXPECT_EQ(s.line, 7);
  EXPECT_EQ(s.text_line, 9);
  EXPECT_EQ(s.notes_line, 14);
  // The step's lab keys over the base's: d from the step, layers from the base.
  EXPECT_EQ(s.scene, json::parse(R"({"view": "Lab", "lab": {"d": 64, "layers": 1, "heads": 4},
                                     "explorer": {"suite": "lrb_heads"}})"));
  EXPECT_TRUE(s.scene["lab"]["d"].is_number_integer());
  EXPECT_EQ(s.key_lines.at("lab.d"), 21);
  EXPECT_EQ(s.key_lines.at("lab.layers"), 5);
  EXPECT_EQ(s.key_lines.at("lab.heads"), 20);
  EXPECT_EQ(s.key_lines.at("explorer.suite"), 23);
  EXPECT_EQ(s.key_lines.at("focus"), 16);

  ASSERT_EQ(s.animations.size(), 3u);
  const LessonAnimation& sweep = s.animations[0];
  EXPECT_EQ(sweep.kind, LessonAnimation::Kind::Sweep);
  EXPECT_EQ(sweep.control, "theorem_dp");
  EXPECT_EQ(sweep.from, 2);
  EXPECT_EQ(sweep.to, 8.5);
  EXPECT_EQ(sweep.seconds, 6);
  EXPECT_EQ(sweep.delay, 0.5);
  EXPECT_EQ(sweep.line, 24);
  EXPECT_EQ(s.animations[1].kind, LessonAnimation::Kind::Train);
  EXPECT_EQ(s.animations[1].steps, 200);
  EXPECT_EQ(s.animations[1].delay, 0);
  EXPECT_EQ(s.animations[1].line, 31);
  EXPECT_EQ(s.animations[2].kind, LessonAnimation::Kind::HeadOff);
  EXPECT_EQ(s.animations[2].layer, 0);
  EXPECT_EQ(s.animations[2].head, 3);
  EXPECT_EQ(s.animations[2].delay, 2);
  EXPECT_EQ(s.animations[2].line, 34);

  const LessonStep& runs = lesson.steps[1];
  EXPECT_EQ(runs.view, "Explorer");
  EXPECT_EQ(runs.focus, "curves");
  EXPECT_EQ(runs.scene, json::parse(R"({"view": "Explorer", "lab": {"d": 32, "layers": 1},
                                        "explorer": {"suite": "lrb_heads"}})"));
}

TEST(LessonFile, AnExplorerStepReplaysProjectionsOverTraining) {
  const Lesson lesson = parse_ok(
      "title = \"T\"\n[[step]]\ntitle = \"Replay\"\ntext = \"P_l over training.\"\nview = \"Explorer\"\n"
      "focus = \"replay\"\n[step.explorer]\ndb = \"@results\"\nselect = [\"th/a\"]\n"
      "[[step.animate]]\nkind = \"sweep\"\ncontrol = \"replay\"\nfrom = 0\nto = 1\nseconds = 6\n");
  const LessonStep& s = lesson.steps.at(0);
  EXPECT_EQ(s.focus, "replay");
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].control, "replay");
  EXPECT_EQ(s.animations[0].to, 1.0);
  EXPECT_FALSE(LessonPlayer::is_integer_control("replay"));  // a fraction, never rounded
  EXPECT_EQ(s.scene["explorer"], json::parse(R"({"db": "@results", "select": ["th/a"]})"));
}

TEST(LessonFile, DefaultsAndTheBaseLab) {
  const Lesson lesson = parse_ok(kComplete);
  const LessonStep& s = lesson.steps[2];
  EXPECT_EQ(s.title, "Defaults");
  EXPECT_EQ(s.notes, "");
  EXPECT_EQ(s.view, "Lab");
  EXPECT_EQ(s.focus, "");
  EXPECT_TRUE(s.highlight.empty());
  EXPECT_FALSE(s.try_it);
  EXPECT_TRUE(s.animations.empty());
  EXPECT_EQ(s.scene, json::parse(R"({"view": "Lab", "lab": {"d": 32, "layers": 1}})"));
  EXPECT_EQ(s.key_lines.at("lab.d"), 4);
  EXPECT_EQ(s.line, 48);
  EXPECT_EQ(s.text_line, 50);
}

TEST(LessonFile, SceneHasNoLabWithoutLabKeys) {
  const Lesson lesson = parse_ok(one_step("[step.explorer]\nsuite = \"s\"\nfilter = {kind = \"multi_head\"}\n"));
  EXPECT_EQ(lesson.summary, "");
  EXPECT_EQ(lesson.steps[0].scene,
            json::parse(R"({"view": "Lab", "explorer": {"suite": "s", "filter": {"kind": "multi_head"}}})"));
  EXPECT_EQ(lesson.steps[0].key_lines.at("explorer.filter.kind"), 7);
  EXPECT_EQ(parse_ok(one_step("")).steps[0].scene, json::parse(R"({"view": "Lab"})"));
  // Dotted keys and inline tables are the same TOML.
  const Lesson dotted = parse_ok(one_step("lab.heads = 2\nanimate = [{kind = \"train\", steps = 5}]\n"));
  EXPECT_EQ(dotted.steps[0].scene, json::parse(R"({"view": "Lab", "lab": {"heads": 2}})"));
  EXPECT_EQ(dotted.steps[0].key_lines.at("lab.heads"), 5);
  ASSERT_EQ(dotted.steps[0].animations.size(), 1u);
  EXPECT_EQ(dotted.steps[0].animations[0].line, 6);
}

TEST(LessonFile, KeepWeights) {
  const Lesson lesson = parse_ok(one_step("keep_weights = true\n"));
  EXPECT_TRUE(lesson.steps[0].keep_weights);
  EXPECT_EQ(lesson.steps[0].scene, json::parse(R"({"view": "Lab", "keep_weights": true})"));
  EXPECT_FALSE(parse_ok(kComplete).steps[0].keep_weights);
  EXPECT_EQ(parse_error(one_step("keep_weights = 1\n")),
            "lessons/x.toml:5: step 1 (\"A\"): keep_weights: expected true or false, got 1");
}

TEST(LessonFile, AStoredRunComesThroughToTheLabsSceneAndCannotBeKept) {
  const std::string stored = "[step.lab]\nstored_run = { name = \"th/1\", step = 40 }\n";
  const Lesson lesson = parse_ok(one_step(stored));
  EXPECT_EQ(lesson.steps[0].scene,
            json::parse(R"({"view": "Lab", "lab": {"stored_run": {"name": "th/1", "step": 40}}})"));
  // Its weights are the run's: a step that opens one has nothing of its own to keep...
  EXPECT_EQ(parse_error(one_step("keep_weights = true\n" + stored)),
            "lessons/x.toml:5: step 1 (\"A\"): keep_weights: this step opens a stored run (lab.stored_run), "
            "which brings its own weights; remove keep_weights");
  // ... and the step after it would train the lesson's seed instead of going on with them.
  EXPECT_EQ(parse_error(one_step(stored) + "[[step]]\ntitle = \"B\"\ntext = \"u\"\nkeep_weights = true\n"),
            "lessons/x.toml:10: step 2 (\"B\"): keep_weights: the step before opens a stored run, whose weights "
            "this step cannot keep; open it again here (stored_run in [step.lab]) instead of keep_weights");
  // Opened again, it is fine; and a step after one that opens none keeps weights as before.
  parse_ok(one_step(stored) + "[[step]]\ntitle = \"B\"\ntext = \"u\"\n" + stored);
  parse_ok(one_step("") + "[[step]]\ntitle = \"B\"\ntext = \"u\"\nkeep_weights = true\n");
}

TEST(LessonErrors, MissingTitle) {
  EXPECT_EQ(parse_error("summary = \"s\"\n[[step]]\ntitle = \"A\"\ntext = \"t\"\n"),
            "lessons/x.toml:1: title: required: the lesson's title as a non-empty string");
  EXPECT_EQ(parse_error("# A lesson\n\ntitle = \"  \"\n[[step]]\ntitle = \"A\"\ntext = \"t\"\n"),
            "lessons/x.toml:3: title: required: the lesson's title as a non-empty string");
  EXPECT_EQ(parse_error("title = 5\n[[step]]\ntitle = \"A\"\ntext = \"t\"\n"),
            "lessons/x.toml:1: title: expected the lesson's title as a non-empty string, got 5");
  EXPECT_EQ(parse_error("title = \"T\"\n\n[[step]]\ntext = \"t\"\n"),
            "lessons/x.toml:3: step 1: title: required: the step's title as a non-empty string");
}

TEST(LessonErrors, NoSteps) {
  EXPECT_EQ(parse_error("title = \"T\"\n"),
            "lessons/x.toml:1: step: required: at least one [[step]] table with a title and text");
  EXPECT_EQ(parse_error("title = \"T\"\nstep = []\n"),
            "lessons/x.toml:2: step: required: at least one [[step]] table with a title and text");
  EXPECT_EQ(parse_error("title = \"T\"\nstep = 3\n"), "lessons/x.toml:2: step: expected [[step]] tables, got 3");
  EXPECT_EQ(parse_error("title = \"T\"\n[step]\ntitle = \"A\"\n"),
            "lessons/x.toml:2: step: expected [[step]] tables, got a table");
}

TEST(LessonErrors, TooManySteps) {
  std::string text = "title = \"T\"\n";  // step k's header is on line 3k - 1
  for (int k = 1; k <= 41; ++k) text += "[[step]]\ntitle = \"S" + std::to_string(k) + "\"\ntext = \"t\"\n";
  EXPECT_EQ(parse_error(text),
            "lessons/x.toml:122: step: the lesson has 41 steps; at most 40 - split it into two lessons");
}

TEST(LessonErrors, UnknownTopLevelKey) {
  EXPECT_EQ(parse_error("title = \"T\"\ntitel = \"T\"\n[[step]]\ntitle = \"A\"\ntext = \"t\"\n"),
            "lessons/x.toml:2: titel: unknown key; valid keys: title, summary, lab, step");
}

TEST(LessonErrors, UnknownStepKey) {
  EXPECT_EQ(parse_error("title = \"T\"\n\n\n\n\n\n[[step]]\ntitle = \"A\"\nfokus = \"maps\"\ntext = \"t\"\n"),
            "lessons/x.toml:9: step 1 (\"A\"): fokus: unknown key; valid keys: title, text, notes, view, focus, "
            "highlight, try_it, lab, explorer, animate, keep_weights");
}

TEST(LessonErrors, WrongType) {
  EXPECT_EQ(parse_error(one_step("try_it = \"yes\"\n")),
            "lessons/x.toml:5: step 1 (\"A\"): try_it: expected true or false, got \"yes\"");
  EXPECT_EQ(parse_error(one_step("notes = 3.0\n")),
            "lessons/x.toml:5: step 1 (\"A\"): notes: expected a string of lesson markdown, got 3.0");
  EXPECT_EQ(parse_error("title = \"T\"\nlab = 3\n[[step]]\ntitle = \"A\"\ntext = \"t\"\n"),
            "lessons/x.toml:2: lab: expected a table of lab settings ([lab] with keys like d = 32), got 3");
  EXPECT_EQ(
      parse_error(one_step("lab = [1]\n")),
      "lessons/x.toml:5: step 1 (\"A\"): lab: expected a table of lab settings ([step.lab] with keys like heads = "
      "4), got an array");
  // Values a scene cannot hold.
  EXPECT_EQ(parse_error(one_step("[step.lab]\nd = 1979-05-27\n")),
            "lessons/x.toml:6: step 1 (\"A\"): lab.d: dates and times have no meaning in a scene; use a number or a "
            "string");
  EXPECT_EQ(parse_error(one_step("[step.lab]\nlr = nan\n")),
            "lessons/x.toml:6: step 1 (\"A\"): lab.lr: expected a finite number, got nan");
  // The example of the documentation: step 2's sweep with its seconds as a string, on line 14.
  EXPECT_EQ(parse_error("title = \"T\"\n[[step]]\ntitle = \"A\"\ntext = \"t\"\n\n[[step]]\ntitle = \"Heads\"\n"
                        "text = \"t\"\n[[step.animate]]\nkind = \"sweep\"\ncontrol = \"heads\"\nfrom = 1\nto = 8\n"
                        "seconds = \"6\"\n"),
            "lessons/x.toml:14: step 2 (\"Heads\"): animate.seconds: expected a number > 0, got \"6\"");
}

TEST(LessonErrors, BadView) {
  EXPECT_EQ(parse_error(one_step("view = \"lab\"\n")),
            "lessons/x.toml:5: step 1 (\"A\"): view: expected \"Lab\" or \"Explorer\", got \"lab\"");
}

TEST(LessonErrors, FocusMustBeAPanelOfTheView) {
  EXPECT_EQ(parse_error(one_step("view = \"Explorer\"\nfocus = \"maps\"\n")),
            "lessons/x.toml:6: step 1 (\"A\"): focus: \"maps\" is not a panel of the Explorer view; use one of curves, "
            "compare, figures, table, run, replay, or \"\" for the whole view");
  EXPECT_EQ(
      parse_error(one_step("focus = \"curves\"\n")),
      "lessons/x.toml:5: step 1 (\"A\"): focus: \"curves\" is not a panel of the Lab view; use one of maps, rank, "
      "projections, theorem, separation, summary, training, or \"\" for the whole view");
  EXPECT_EQ(parse_ok(one_step("focus = \"\"\n")).steps[0].focus, "");
}

TEST(LessonErrors, UnknownHighlightControl) {
  // The element's own line in a multi-line array.
  EXPECT_EQ(parse_error(one_step("highlight = [\n  \"heads\",\n  \"hedas\",\n]\n")),
            "lessons/x.toml:7: step 1 (\"A\"): highlight: unknown control \"hedas\"; Lab controls: kind, d, heads, "
            "heads_k, heads_v, standard_head_size, head_size, embed_rank, pos_rank, positions, pos_init, "
            "pos_init_scale, vocab, "
            "layers, context, "
            "causal, seed, input, "
            "text, task, synthetic_n, training, lr, layer, stage, theorem_n, theorem_dp, theorem_causal, pattern, "
            "importance, map_view");
  EXPECT_EQ(parse_error(one_step("view = \"Explorer\"\nhighlight = [\"d\"]\n")),
            "lessons/x.toml:6: step 1 (\"A\"): highlight: the Explorer view has no controls to highlight; remove "
            "highlight or set view = \"Lab\"");
}

TEST(LessonErrors, Animations) {
  auto animate = [](const std::string& keys) { return parse_error(one_step("[[step.animate]]\n" + keys)); };
  const std::string at = "lessons/x.toml:";
  const std::string step = ": step 1 (\"A\"): ";
  EXPECT_EQ(animate("kind = \"spin\"\n"),
            at + "6" + step + "animate.kind: expected sweep, train or head_off, got \"spin\"");
  EXPECT_EQ(animate("steps = 3\n"), at + "5" + step + "animate.kind: required: sweep, train or head_off");
  EXPECT_EQ(animate("kind = \"train\"\nstep = 3\n"),
            at + "7" + step +
                "animate.step: unknown key; valid keys: kind, control, from, to, seconds, delay, steps, "
                "layer, head");
  EXPECT_EQ(animate("kind = \"train\"\nsteps = 3\ncontrol = \"d\"\n"),
            at + "8" + step + "animate.control: not a key of a train animation; it has kind, steps, delay");
  EXPECT_EQ(animate("kind = \"sweep\"\ncontrol = \"vocab\"\nfrom = 1\nto = 2\nseconds = 1\n"),
            at + "7" + step +
                "animate.control: expected one of d, heads, heads_k, heads_v, head_size, embed_rank, pos_rank, layers, "
                "context, "
                "synthetic_n, theorem_n, theorem_dp, theorem_head, layer, enlarged_head, lr, got \"vocab\"");
  EXPECT_EQ(animate("kind = \"sweep\"\ncontrol = \"d\"\nfrom = 1\nto = 2\n"),
            at + "5" + step + "animate.seconds: required for sweep: its duration in seconds (> 0 and <= 600)");
  EXPECT_EQ(animate("kind = \"sweep\"\ncontrol = \"d\"\nfrom = 1\nto = 2\nseconds = 0\n"),
            at + "10" + step + "animate.seconds: expected a number > 0, got 0");
  EXPECT_EQ(animate("kind = \"sweep\"\ncontrol = \"d\"\nfrom = 1\nto = 2\nseconds = 601\n"),
            at + "10" + step + "animate.seconds: expected a number <= 600 (ten minutes), got 601");
  EXPECT_EQ(animate("kind = \"sweep\"\ncontrol = \"d\"\nfrom = -1\nto = 2\nseconds = 1\n"),
            at + "8" + step + "animate.from: expected a number from 0 to 100000 as the first value of d, got -1");
  EXPECT_EQ(animate("kind = \"sweep\"\ncontrol = \"lr\"\nfrom = 0.01\nto = inf\nseconds = 1\n"),
            at + "9" + step + "animate.to: expected a learning rate > 0 and <= 1 as the last value of lr, got inf");
  EXPECT_EQ(animate("kind = \"train\"\nsteps = 0\n"),
            at + "7" + step + "animate.steps: expected an integer from 1 to 100000, got 0");
  EXPECT_EQ(animate("kind = \"train\"\nsteps = 200.0\n"),
            at + "7" + step + "animate.steps: expected an integer from 1 to 100000, got 200.0");
  EXPECT_EQ(animate("kind = \"train\"\n"),
            at + "5" + step + "animate.steps: required for train: the number of training steps (1 to 100000)");
  EXPECT_EQ(animate("kind = \"head_off\"\nlayer = 0\nhead = -1\n"),
            at + "8" + step + "animate.head: expected an integer >= 0, got -1");
  EXPECT_EQ(
      animate("kind = \"train\"\nsteps = 5\ndelay = -1\n"),
      at + "8" + step + "animate.delay: expected a number from 0 to 3600 (seconds after the step starts), got -1");
  EXPECT_EQ(parse_error(one_step("view = \"Explorer\"\n[[step.animate]]\nkind = \"train\"\nsteps = 5\n")),
            at + "7" + step +
                "animate.kind: train drives the Lab, but this step shows the Explorer; set view = \"Lab\", or sweep "
                "the Explorer's replay");
  const std::string explorer_sweep = "view = \"Explorer\"\n[[step.animate]]\nkind = \"sweep\"\nseconds = 2\n";
  EXPECT_EQ(parse_error(one_step(explorer_sweep + "control = \"d\"\nfrom = 1\nto = 2\n")),
            at + "9" + step + "animate.control: expected one of replay (the Explorer's controls), got \"d\"");
  EXPECT_EQ(parse_error(one_step(explorer_sweep + "control = \"replay\"\nfrom = 0\nto = 2\n")),
            at + "11" + step +
                "animate.to: expected a fraction of the run's training from 0 to 1 as the last value of replay, got 2");
}

TEST(LessonErrors, UnclosedMarkupInTextPointsAtItsLine) {
  // """ drops the newline after the quotes: the text's line 2 is the file's line 6.
  EXPECT_EQ(parse_error("title = \"T\"\n[[step]]\ntitle = \"A\"\ntext = \"\"\"\nFirst line.\nA **bold start\n"
                        "and no end.\n\"\"\"\n"),
            "lessons/x.toml:6: step 1 (\"A\"): text: unclosed '**' (bold) opened on line 2 of the text; close it with "
            "another '**', or write \\* for a literal asterisk");
  // Text right after the quotes starts on their line.
  EXPECT_EQ(parse_error("title = \"T\"\n[[step]]\ntitle = \"A\"\ntext = '''One.\n\nTwo `f.'''\n"),
            "lessons/x.toml:6: step 1 (\"A\"): text: unclosed '`' (formula) opened on line 3 of the text; close it "
            "with another '`', or write \\` for a literal backquote");
  // An escape that makes a newline breaks the count: the message points at the value.
  EXPECT_EQ(parse_error("title = \"T\"\n[[step]]\ntitle = \"A\"\ntext = \"\"\"\nOne.\\nTwo *x\n\"\"\"\n"),
            "lessons/x.toml:4: step 1 (\"A\"): text: unclosed '*' (italic) opened on line 2 of the text; close it with "
            "another '*', or write \\* for a literal asterisk");
}

TEST(LessonErrors, UnclosedMarkupInNotes) {
  EXPECT_EQ(parse_error(one_step("notes = \"Ask *why\"\n")),
            "lessons/x.toml:5: step 1 (\"A\"): notes: unclosed '*' (italic) opened on line 1 of the text; close it "
            "with another '*', or write \\* for a literal asterisk");
  EXPECT_EQ(parse_error(one_step("notes = '''\n- fine\n- `bad\n'''\n")),
            "lessons/x.toml:7: step 1 (\"A\"): notes: unclosed '`' (formula) opened on line 2 of the text; close it "
            "with another '`', or write \\` for a literal backquote");
}

TEST(LessonErrors, TomlSyntaxErrorHasPathAndLine) {
  const std::string error = parse_error("title = \"T\"\nsummary = \n[[step]]\n");
  EXPECT_EQ(error.rfind("lessons/x.toml:2:", 0), 0u) << error;
  EXPECT_NE(error.find("not valid TOML"), std::string::npos) << error;
}

// Found by fuzz/lesson_fuzz.cpp: toml++ 3.3 asserts on a header like "[[[step]]" in a debug build (fixed upstream
// in marzer/tomlplusplus#301); the library as Debian ships it reports a parse error, and so must a lesson.
TEST(LessonErrors, MalformedTableHeaderIsAParseError) {
  EXPECT_EQ(parse_error("title = \"T\"\n[[[step]]\n"),
            "lessons/x.toml:2:3: not valid TOML: Error while parsing key: expected bare key starting character or "
            "string delimiter, saw '['");
  EXPECT_EQ(parse_error("[[=\n").rfind("lessons/x.toml:1:3: not valid TOML: ", 0), 0u);
}

// Found by fuzz/lesson_fuzz.cpp: Debian's toml++ 3.3 reaches __builtin_unreachable() when it asks whether one of
// U+00A1..U+0499, U+2C5E..U+3057 or U+FB26..U+FEFE is whitespace (marzer/tomlplusplus#190, #295). Lessons hold such
// characters (é, σ, Greek and Cyrillic text) in strings, keys and after line-ending backslashes; they must come
// through unchanged, and elsewhere be a parse error with the right column.
TEST(LessonFile, NonAsciiTextComesThroughUnchanged) {
  const Lesson lesson = parse_ok(
      "title = \"Café σ \xEF\xBB\xBD\"\n"
      "[[step]]\n"
      "title = 'Привет'\n"
      "text = \"\"\"\nsoft \\\n  \xC2\xA7 wrapped, `sigma_1` é\n\"\"\"\n"
      "[step.explorer.\"clé σ\"]\n"
      "\"ключ\" = \"значение \xE3\x80\x81\"\n");
  EXPECT_EQ(lesson.title, "Café σ \xEF\xBB\xBD");
  EXPECT_EQ(lesson.steps[0].title, "Привет");
  EXPECT_EQ(lesson.steps[0].text, "soft \xC2\xA7 wrapped, `sigma_1` é\n");
  EXPECT_EQ(lesson.steps[0].scene["explorer"], json::parse(R"({"clé σ": {"ключ": "значение \u3001"}})"));
  EXPECT_EQ(lesson.steps[0].key_lines.at("explorer.clé σ.ключ"), 9);
}

TEST(LessonErrors, NonAsciiOutsideStringsIsAParseError) {
  EXPECT_EQ(
      parse_error("title = \"T\" \xEF\xBB\xBD\n"),
      "lessons/x.toml:1:13: not valid TOML: Error while parsing key-value pair: expected a comment or whitespace, "
      "saw '\xEF\xBB\xBD'");
  EXPECT_EQ(parse_error("title = \"T\"\n\xC3\xA9 = 1\n").rfind("lessons/x.toml:2:1: not valid TOML: ", 0), 0u);
  // The stand-ins' own range cannot be in a file.
  EXPECT_EQ(parse_error("title = \"\xF3\xB0\x80\x81\"\n"),
            "lessons/x.toml:1: character U+F0001 (Supplementary Private Use Area-A) cannot be in a lesson file; "
            "remove it");
}

// Every input the fuzzer found, kept in fuzz/corpus/lesson: a parse error at its position, no crash.
TEST(LessonErrors, FuzzRegressionSeeds) {
  const std::pair<const char*, const char*> seeds[] = {
      {"table_header_assert_regression", ":2:3: not valid TOML: "},
      {"unicode_whitespace_unreachable_regression", ":1:1: not valid TOML: "},
  };
  for (const auto& [name, where] : seeds) {
    const std::string path = std::string(HEADROOM_SOURCE_DIR) + "/fuzz/corpus/lesson/" + name;
    Lesson lesson;
    std::string error;
    EXPECT_FALSE(load_lesson_file(path, &lesson, &error)) << name;
    EXPECT_EQ(error.rfind(path + where, 0), 0u) << error;
  }
}

TEST(LessonErrors, MissingFile) {
  Lesson lesson;
  std::string error;
  EXPECT_FALSE(load_lesson_file("/nonexistent/lesson.toml", &lesson, &error));
  EXPECT_EQ(error, "cannot read lesson file '/nonexistent/lesson.toml': No such file or directory");
  EXPECT_FALSE(load_lesson_file("/tmp", &lesson, &error));
  EXPECT_EQ(error, "cannot read lesson file '/tmp': Is a directory");
}

TEST(LessonScenes, ValidatorErrorPointsAtTheKey) {
  const Lesson lesson = parse_ok(kComplete);
  // Rejects d = 32, which only the base [lab] gives (step 3), then d = 64 (step 1's own key).
  auto reject_d = [](int bad) {
    return [bad](const json& scene, std::string* error) {
      if (scene.contains("lab") && scene["lab"].value("d", 0) == bad) {
        *error = "lab.d: expected a multiple of the heads, got " + std::to_string(bad);
        return false;
      }
      return true;
    };
  };
  std::string error;
  EXPECT_FALSE(validate_lesson_scenes(lesson, reject_d(32), &error));
  EXPECT_EQ(error, "lessons/x.toml:4: step 2 (\"Runs\"): lab.d: expected a multiple of the heads, got 32");
  EXPECT_FALSE(validate_lesson_scenes(lesson, reject_d(64), &error));
  EXPECT_EQ(error,
            "lessons/x.toml:21: step 1 (\"Queries meet keys\"): lab.d: expected a multiple of the heads, got 64");
  // A key it does not know by line: the nearest shorter name ("lab" has the [step.lab] line), else the step's line.
  EXPECT_FALSE(validate_lesson_scenes(
      lesson, [](const json&, std::string* e) { return *e = "lab.nope.deeper: unknown key", false; }, &error));
  EXPECT_EQ(error, "lessons/x.toml:19: step 1 (\"Queries meet keys\"): lab.nope.deeper: unknown key");
  EXPECT_FALSE(validate_lesson_scenes(
      lesson, [](const json&, std::string* e) { return *e = "the scene is odd", false; }, &error));
  EXPECT_EQ(error, "lessons/x.toml:7: step 1 (\"Queries meet keys\"): the scene is odd");
  EXPECT_TRUE(validate_lesson_scenes(
      lesson, [](const json&, std::string*) { return true; }, &error));
}

class LessonDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("headroom_lessons_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
};

TEST_F(LessonDir, ListsTomlFilesByNameWithTitlesOrErrors) {
  write("b_good.toml", one_step(""));
  write("a_bad.toml", "title = \"Bad\"\n");
  write("readme.txt", "not a lesson");
  std::filesystem::create_directories(dir_ / "c_dir.toml");
  const std::vector<LessonEntry> entries = list_lessons(dir_.string());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, (dir_ / "a_bad.toml").string());
  EXPECT_EQ(entries[0].title, "");
  EXPECT_EQ(entries[0].error,
            (dir_ / "a_bad.toml").string() + ":1: step: required: at least one [[step]] table with a title and text");
  EXPECT_EQ(entries[1].path, (dir_ / "b_good.toml").string());
  EXPECT_EQ(entries[1].title, "T");
  EXPECT_EQ(entries[1].error, "");
  EXPECT_TRUE(list_lessons((dir_ / "missing").string()).empty());
}

TEST_F(LessonDir, LoadsAFile) {
  write("one.toml", kComplete);
  Lesson lesson;
  std::string error;
  ASSERT_TRUE(load_lesson_file((dir_ / "one.toml").string(), &lesson, &error)) << error;
  EXPECT_EQ(lesson.path, (dir_ / "one.toml").string());
  EXPECT_EQ(lesson.steps.size(), 3u);
}

}  // namespace
}  // namespace headroom::gui
