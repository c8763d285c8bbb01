// Everything headroom_widgets offers, for callers that use several widgets.
// The library takes plain data (pointers + sizes) and never includes core/, torch or SQL.
#pragma once

#include "widgets/attention_lines.h"
#include "widgets/axis_ticks.h"
#include "widgets/colormap.h"
#include "widgets/decimate.h"
#include "widgets/frame_stats.h"
#include "widgets/heatmap.h"
#include "widgets/heatmap_layout.h"
#include "widgets/line_plot.h"
#include "widgets/plot_math.h"
#include "widgets/png_export.h"
#include "widgets/spectrum.h"
#include "widgets/svg_plot.h"
#include "widgets/widgets_demo.h"
