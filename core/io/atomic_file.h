// Files written whole or not at all: settings, scenes, lessons, exports and checkpoints.
#pragma once

#include <string>
#include <string_view>

namespace headroom::core {

// Writes `bytes` to `path` so that a reader (or a crash, or a full disk) sees either the old file
// or the whole new one, never part of one: a temporary file beside it, flushed to disk, then
// renamed over it. On failure the old file is untouched, the temporary is removed and *error
// (when given) names the file, what went wrong and what would fix it.
bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error);

}  // namespace headroom::core
