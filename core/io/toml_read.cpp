#include "core/io/toml_read.h"

#include <cstdio>
#include <sstream>

#include "core/io/toml_shield.h"

namespace headroom::io {

std::optional<toml::table> parse_toml_shielded(const std::string& text, const std::string& source,
                                               const std::string& kind, std::string* error) {
  std::string shielded;
  int bad_line = 0;
  uint32_t bad_cp = 0;
  if (!shield_toml_text(text, &shielded, &bad_line, &bad_cp)) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "U+%05X", static_cast<unsigned>(bad_cp));
    *error = source + ":" + std::to_string(bad_line) + ": character " + hex +
             " (Supplementary Private Use Area-A) cannot be in a " + kind + "; remove it";
    return std::nullopt;
  }
  try {
    return toml::parse(shielded, source);
  } catch (const toml::parse_error& e) {
    std::ostringstream msg;
    msg << source << ":" << e.source().begin.line << ":" << e.source().begin.column
        << ": not valid TOML: " << unshield_toml_string(e.description());
    *error = msg.str();
    return std::nullopt;
  }
}

std::string toml_string(toml::node_view<const toml::node> node, const std::string& fallback) {
  if (const auto* s = node.as_string()) return unshield_toml_string(s->get());
  return fallback;
}

}  // namespace headroom::io
