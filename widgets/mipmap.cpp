#include "widgets/mipmap.h"

#include <algorithm>
#include <utility>

namespace headroom::widgets {

MipLevel next_mip_level(const std::uint8_t* rgba, int width, int height) {
  MipLevel out;
  out.width = std::max(1, width / 2);
  out.height = std::max(1, height / 2);
  out.rgba.resize(static_cast<std::size_t>(out.width) * out.height * 4);
  // Source span [first, last] of destination index i along an axis of `from` texels becoming `to`.
  auto span = [](int i, int from, int to, int* first, int* last) {
    *first = std::min(2 * i, from - 1);
    *last = (i == to - 1) ? from - 1 : std::min(2 * i + 1, from - 1);
  };
  const std::size_t stride = static_cast<std::size_t>(width) * 4;
  for (int y = 0; y < out.height; ++y) {
    int y0 = 0, y1 = 0;
    span(y, height, out.height, &y0, &y1);
    const std::uint8_t* row0 = rgba + y0 * stride;
    std::uint8_t* q = &out.rgba[static_cast<std::size_t>(y) * out.width * 4];
    for (int x = 0; x < out.width; ++x, q += 4) {
      int x0 = 0, x1 = 0;
      span(x, width, out.width, &x0, &x1);
      if (y1 == y0 + 1 && x1 == x0 + 1) {  // the common case: exactly 2 x 2
        const std::uint8_t* a = row0 + x0 * 4;
        const std::uint8_t* b = a + stride;
        for (int c = 0; c < 4; ++c) q[c] = static_cast<std::uint8_t>((a[c] + a[c + 4] + b[c] + b[c + 4] + 2u) >> 2);
        continue;
      }
      unsigned sum[4] = {0, 0, 0, 0};
      for (int sy = y0; sy <= y1; ++sy)
        for (int sx = x0; sx <= x1; ++sx) {
          const std::uint8_t* p = rgba + sy * stride + static_cast<std::size_t>(sx) * 4;
          for (int c = 0; c < 4; ++c) sum[c] += p[c];
        }
      const unsigned count = static_cast<unsigned>((y1 - y0 + 1) * (x1 - x0 + 1));
      for (int c = 0; c < 4; ++c) q[c] = static_cast<std::uint8_t>((sum[c] + count / 2) / count);
    }
  }
  return out;
}

std::vector<MipLevel> mip_chain(const std::uint8_t* rgba, int width, int height) {
  std::vector<MipLevel> levels;
  if (width <= 1 && height <= 1) return levels;
  levels.push_back(next_mip_level(rgba, width, height));
  while (levels.back().width > 1 || levels.back().height > 1) {
    const MipLevel& last = levels.back();
    MipLevel next = next_mip_level(last.rgba.data(), last.width, last.height);
    levels.push_back(std::move(next));
  }
  return levels;
}

}  // namespace headroom::widgets
