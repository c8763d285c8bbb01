// Lesson files (assets/lessons/*.toml and the ones lecturers pass around): any bytes are either a
// lesson whose every text parses, plays and renders, or one line naming the file, never a crash. The
// bytes also go straight to the markdown parser and the formula typesetter, which a TOML wrapper
// would otherwise reach only through valid strings.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/gui/lesson/lesson.h"
#include "app/gui/lesson/lesson_player.h"
#include "app/gui/lesson/lesson_text.h"

namespace {

using namespace headroom::gui;

void render(const std::string& text, bool must_parse) {
  std::vector<TextBlock> blocks;
  std::string error;
  const bool ok = parse_lesson_markdown(text, &blocks, &error);
  if (ok != error.empty()) __builtin_trap();
  if (must_parse && !ok) __builtin_trap();  // a lesson's texts were validated with the file
  if (ok) {
    (void)plain_text(blocks);
    (void)blocks_to_html(blocks);
  }
  (void)typeset_formula(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  render(text, false);

  Lesson lesson;
  std::string error;
  const bool ok = parse_lesson_text(text, "fuzz.toml", &lesson, &error);
  if (ok != error.empty()) __builtin_trap();  // a refusal always says why
  if (!ok) {
    if (error.rfind("fuzz.toml:", 0) != 0) __builtin_trap();      // and names the file
    if (error.find('\n') != std::string::npos) __builtin_trap();  // in one line
    return 0;
  }
  if (lesson.steps.empty() || lesson.steps.size() > static_cast<size_t>(kMaxLessonSteps)) __builtin_trap();
  for (const LessonStep& step : lesson.steps) {
    render(step.text, true);
    render(step.notes, true);
    if (!step.scene.is_object()) __builtin_trap();
    (void)step.scene.dump();  // what the GUI hands its views
  }
  // A validator that names a key of every scene, so that each lookup of its line runs.
  (void)validate_lesson_scenes(
      lesson,
      [](const nlohmann::json& scene, std::string* why) {
        *why = scene.contains("lab") && !scene["lab"].empty() ? "lab." + scene["lab"].begin().key() + ".x: bad"
                                                              : "explorer.y: bad";
        return false;
      },
      &error);
  LessonPlayer player(lesson);
  player.start(0);
  for (int k = 0; k < player.count(); ++k) {
    player.go_to(k, k);
    for (double t : {0.0, 0.5, 1e9}) {
      (void)player.sweep_values(k + t);
      (void)player.due_actions(k + t);
      (void)player.animations_done(k + t);
    }
    (void)format_clock(player.elapsed(k + 1e9));
  }
  return 0;
}
