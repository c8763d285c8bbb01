// Scene files (--scene, File > Open scene, a lesson step's scene): any text is either a scene or
// one message saying why not, never a crash; and so are the views' own keys in it, as the GUI
// checks them before it opens a window (the explorer's "explorer" object, the lab's "lab" object
// and the model those controls make).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/gui/explorer/explorer_scene.h"
#include "app/gui/lab/lab_controls.h"
#include "app/gui/scene.h"

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

void check_explorer_keys(const nlohmann::json& j) {
  headroom::gui::ExplorerScene parsed;
  std::string error;
  const bool ok = headroom::gui::parse_explorer_scene(j, &parsed, &error);
  if (!ok && !starts_with(error, "explorer")) __builtin_trap();  // a refusal names the key it is about
}

void check_lab_keys(const nlohmann::json& j) {
  using headroom::gui::LabControls;
  LabControls c;
  std::string error;
  if (!headroom::gui::controls_from_json(j, &c, &error)) {
    if (!starts_with(error, "lab")) __builtin_trap();
    return;
  }
  // What the lab saves (File > Save scene) it reads back as the same controls.
  const nlohmann::json saved = headroom::gui::to_json(c);
  // An accepted number is the number the lab uses: nothing wrapped into range or cut to a float's.
  for (auto it = j.begin(); it != j.end(); ++it) {
    const nlohmann::json& kept = saved[it.key()];
    if (kept.is_number_integer() && kept != it.value()) __builtin_trap();
    if (kept.is_number_float() && !std::isfinite(kept.get<double>())) __builtin_trap();
  }
  LabControls again;
  std::string again_error;
  if (!headroom::gui::controls_from_json(saved, &again, &again_error)) __builtin_trap();
  if (headroom::gui::to_json(again) != saved) __builtin_trap();
  // Accepted controls make a model or say why not.
  headroom::core::ModelSpec spec;
  std::vector<headroom::core::SpecProblem> problems;
  if (!headroom::gui::model_spec_of(c, &spec, &problems) && problems.empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  headroom::gui::Scene scene;
  std::string error;
  const bool ok = headroom::gui::parse_scene_text(text, "fuzz.json", &scene, &error);
  if (ok != error.empty()) __builtin_trap();                                  // a refusal always says why
  if (!ok && error.find("fuzz.json") == std::string::npos) __builtin_trap();  // and names the file
  if (!ok) return 0;
  if (!scene.data.is_object()) __builtin_trap();
  if (scene.data.contains("explorer")) check_explorer_keys(scene.data["explorer"]);
  if (scene.data.contains("lab")) check_lab_keys(scene.data["lab"]);
  return 0;
}
