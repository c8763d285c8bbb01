#include "widgets/frame_stats.h"

#include "widgets/heatmap.h"

namespace headroom::widgets {
namespace {
FrameStats g_stats;
constexpr int kIdleFramesBeforeFree = 120;
}  // namespace

FrameStats& detail::mutable_frame_stats() { return g_stats; }

const FrameStats& frame_stats() { return g_stats; }

void NewFrame() {
  g_stats = FrameStats{};
  detail::collect_heatmap_textures(kIdleFramesBeforeFree);
  g_stats.textures_alive = detail::heatmap_texture_count();
}

void Shutdown() { detail::release_heatmap_textures(); }

}  // namespace headroom::widgets
