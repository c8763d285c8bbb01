// The mipmap levels of an RGBA8 image, made on the CPU: each texel of a level is the rounded mean
// of the 2 x 2 texels under it in the level above; where that level's width or height is odd,
// the last texel of the smaller level also takes in the extra row or column, so every texel
// counts. Heatmaps upload these instead of calling glGenerateMipmap, which a software GL
// (Mesa's llvmpipe: Xvfb, virtual machines, remote desktops) runs as a draw whose shaders it
// compiles the first time: ~80 ms before the first attention map appeared. Pure, tested.
#pragma once

#include <cstdint>
#include <vector>

namespace headroom::widgets {

struct MipLevel {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4 bytes, rows top to bottom
};

// The level below an RGBA8 image: max(1, width / 2) x max(1, height / 2), as OpenGL sizes levels.
MipLevel next_mip_level(const std::uint8_t* rgba, int width, int height);

// Every level below `rgba` (width x height) down to 1 x 1, largest first; empty for a 1 x 1 image.
std::vector<MipLevel> mip_chain(const std::uint8_t* rgba, int width, int height);

}  // namespace headroom::widgets
