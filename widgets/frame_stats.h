// Per-frame bookkeeping of headroom_widgets: counters the app reports (how many
// attention maps were drawn, how many textures were re-uploaded) and the
// lifetime of the GL textures behind heatmaps.
#pragma once

namespace headroom::widgets {

struct FrameStats {
  int heatmaps_drawn = 0;         // Heatmap() calls that were visible (not clipped) this frame
  int heatmap_uploads = 0;        // textures (re)uploaded this frame: data pointer/version/range changed
  int plots_drawn = 0;            // line plots and spectra drawn
  int plot_points = 0;            // points left after decimation, summed over all series
  int attention_lines_drawn = 0;  // AttentionLines() segments drawn this frame
  int neuron_cells_drawn = 0;     // NeuronView() cells (the query's row and every product) this frame
  int textures_alive = 0;         // heatmap textures currently cached
};

// Call once per frame after ImGui::NewFrame(): resets the counters and frees the
// textures of heatmaps that have not been drawn for a while.
void NewFrame();

// Frees every GL texture the widgets own. Call while the GL context is still current.
void Shutdown();

// Counters accumulated since the last NewFrame(), i.e. for the frame being built
// (or, after ImGui::Render(), the frame just finished).
const FrameStats& frame_stats();

namespace detail {
FrameStats& mutable_frame_stats();
}  // namespace detail

}  // namespace headroom::widgets
