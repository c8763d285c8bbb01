// Byte buffers stored as SQLite BLOBs (checkpoints, P_l / P_w snapshots).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace headroom::db {

// Owned bytes, as read back from the database.
using Blob = std::vector<std::uint8_t>;

// Non-owning view of bytes to be written. Checkpoints can be tens of MB, so
// writes do not copy them; the viewed bytes must stay alive until the call that
// received the view returns.
struct BlobView {
  const void* data = nullptr;
  std::size_t size = 0;

  BlobView() = default;
  BlobView(const void* bytes, std::size_t byte_count) : data(bytes), size(byte_count) {}
  BlobView(const Blob& bytes) : data(bytes.data()), size(bytes.size()) {}  // NOLINT: implicit on purpose
  // Explicit so that text never silently becomes a blob.
  explicit BlobView(std::string_view bytes) : data(bytes.data()), size(bytes.size()) {}
};

}  // namespace headroom::db
