// TOML parsed through the shield of toml_shield.h, for every TOML Headroom reads: suite files, and
// the suite sources an experiments DB stores (which may come from anywhere: a foreign or damaged DB
// must not reach toml++'s undefined behaviour either). Torch-free, in headroom_io.
#pragma once

#include <toml++/toml.h>

#include <optional>
#include <string>

namespace headroom::io {

// The table, or nullopt with one message in *error: "<source>:<line>:<column>: not valid TOML:
// <what>", or "<source>:<line>: character U+XXXXX (Supplementary Private Use Area-A) cannot be in a
// <kind>; remove it" (such a code point cannot be told apart from the shield's stand-ins). Strings
// in the table (keys included) are still shielded: read them through toml_string (or
// unshield_toml_string).
std::optional<toml::table> parse_toml_shielded(const std::string& text, const std::string& source,
                                               const std::string& kind, std::string* error);

// A string value of a parsed table with the shield's stand-ins mapped back; `fallback` where the
// node is missing or not a string.
std::string toml_string(toml::node_view<const toml::node> node, const std::string& fallback = {});

}  // namespace headroom::io
