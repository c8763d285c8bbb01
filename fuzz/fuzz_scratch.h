// A scratch directory per fuzz process, for the targets whose code under test reads files by path
// (a checkpoint's directory, its config.json, its tokenizer files): each input is written there and
// read back by that code, as a user's download would be.
#pragma once

#include <stdlib.h>

#include <cstddef>
#include <fstream>
#include <string>

namespace headroom::fuzz {

// /tmp/headroom-fuzz-<tag>-XXXXXX, made once per process (a fuzz target has one tag).
inline const std::string& scratch_dir(const char* tag) {
  static const std::string dir = [tag] {
    std::string name = std::string("/tmp/headroom-fuzz-") + tag + "-XXXXXX";
    if (!mkdtemp(name.data())) __builtin_trap();
    return name;
  }();
  return dir;
}

// Writes `size` bytes as `dir`/`name`, replacing what was there.
inline void write_bytes(const std::string& dir, const std::string& name, const void* data, std::size_t size) {
  std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) __builtin_trap();
}

}  // namespace headroom::fuzz
