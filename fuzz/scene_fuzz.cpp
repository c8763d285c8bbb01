// Scene files (--scene, File > Open scene): any text is either a scene or one message saying why
// not, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/gui/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  headroom::gui::Scene scene;
  std::string error;
  const bool ok = headroom::gui::parse_scene_text(text, "fuzz.json", &scene, &error);
  if (ok != error.empty()) __builtin_trap();                                  // a refusal always says why
  if (!ok && error.find("fuzz.json") == std::string::npos) __builtin_trap();  // and names the file
  if (ok && !scene.data.is_object()) __builtin_trap();
  return 0;
}
