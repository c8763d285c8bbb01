#include "widgets/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "widgets/decimate.h"
#include "widgets/plot_math.h"

namespace headroom::widgets {
namespace {

constexpr double kFont = 12.0;          // font-size of every text
constexpr double kCharW = 0.6 * kFont;  // estimated average glyph width (sans-serif)
constexpr const char* kTextColor = "#222222";

void appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0 && n < static_cast<int>(sizeof buf)) {
    out->append(buf, static_cast<size_t>(n));
  } else if (n > 0) {  // long labels: format again into the string itself
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>(n) + 1);
    std::vsnprintf(&(*out)[at], static_cast<size_t>(n) + 1, fmt, ap2);
    out->resize(at + static_cast<size_t>(n));
  }
  va_end(ap2);
}

// "#rrggbb" of an IM_COL32 and its alpha in [0, 1].
std::string hex_rgb(ImU32 c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", (c >> IM_COL32_R_SHIFT) & 0xFF, (c >> IM_COL32_G_SHIFT) & 0xFF,
                (c >> IM_COL32_B_SHIFT) & 0xFF);
  return buf;
}
double alpha01(ImU32 c) { return static_cast<double>((c >> IM_COL32_A_SHIFT) & 0xFF) / 255.0; }

// A displayable range: finite, lo < hi, positive on log axes.
AxisRange sane_range(double lo, double hi, bool log) {
  if (log) {
    if (!(hi > 0.0) || !std::isfinite(hi)) hi = 10.0;
    if (!(lo > 0.0) || !std::isfinite(lo)) lo = hi / 1000.0;
  }
  if (std::isfinite(lo) && std::isfinite(hi) && lo < hi) return {lo, hi};
  return fit_range(lo, hi, log, 0.0);
}

int text_chars(const std::string& s) {  // UTF-8 code points
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

struct Pt {
  double x, y;
};

// Clips segment a-b to the plot rectangle; false when nothing is inside.
bool clip_segment(Pt a, Pt b, const SvgLayout& L, Pt* ca, Pt* cb) {
  double t0, t1;
  if (!widgets::clip_segment(a.x, a.y, b.x, b.y, L.left, L.top, L.right, L.bottom, &t0, &t1)) return false;
  const double dx = b.x - a.x, dy = b.y - a.y;
  *ca = {a.x + t0 * dx, a.y + t0 * dy};
  *cb = {a.x + t1 * dx, a.y + t1 * dy};
  return true;
}

bool inside(Pt p, const SvgLayout& L) { return p.x >= L.left && p.x <= L.right && p.y >= L.top && p.y <= L.bottom; }

// Writes one contiguous run of pixel points as polylines clipped to the plot rectangle.
void emit_run(std::string* out, const std::vector<Pt>& run, const SvgLayout& L, const std::string& style) {
  if (run.size() == 1) {
    if (inside(run[0], L))
      appendf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"1.5\" %s/>\n", run[0].x, run[0].y, style.c_str());
    return;
  }
  std::vector<Pt> cur;
  auto flush = [&]() {
    if (cur.size() >= 2) {
      out->append("<polyline points=\"");
      for (size_t i = 0; i < cur.size(); ++i) appendf(out, i ? " %.2f,%.2f" : "%.2f,%.2f", cur[i].x, cur[i].y);
      out->append("\" fill=\"none\" ").append(style).append("/>\n");
    }
    cur.clear();
  };
  for (size_t i = 1; i < run.size(); ++i) {
    Pt c, d;
    if (!clip_segment(run[i - 1], run[i], L, &c, &d)) {
      flush();
      continue;
    }
    if (cur.empty() || std::fabs(cur.back().x - c.x) > 1e-9 || std::fabs(cur.back().y - c.y) > 1e-9) {
      flush();
      cur.push_back(c);
    }
    cur.push_back(d);
    if (std::fabs(d.x - run[i].x) > 1e-9 || std::fabs(d.y - run[i].y) > 1e-9) flush();  // left the rectangle
  }
  flush();
}

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') break;  // not allowed in XML 1.0
        out += ch;
    }
  }
  return out;
}

SvgLayout svg_layout(const SvgPlot& plot, int width, int height) {
  SvgLayout L;
  const double w = std::max(width, 64), h = std::max(height, 64);
  const AxisRange xr = sane_range(plot.x_min, plot.x_max, plot.log_x);
  const AxisRange yr = sane_range(plot.y_min, plot.y_max, plot.log_y);
  L.top = plot.title.empty() ? 10.0 : kFont + 14.0;
  L.bottom = h - (kFont + 12.0 + (plot.x_label.empty() ? 0.0 : kFont + 6.0));
  L.y_tick_target = std::max(2, static_cast<int>((L.bottom - L.top) / (kFont * 2.5)));
  L.y_ticks = plot.log_y ? log_ticks(yr.lo, yr.hi, L.y_tick_target) : nice_ticks(yr.lo, yr.hi, L.y_tick_target);
  int label_chars = 3;
  for (const AxisTick& t : L.y_ticks) label_chars = std::max(label_chars, text_chars(t.label));
  L.left = 8.0 + (plot.y_label.empty() ? 0.0 : kFont + 6.0) + label_chars * kCharW + 8.0;
  L.right = w - 16.0;
  if (L.right - L.left < 16.0) L.left = std::max(0.0, L.right - 16.0);
  if (L.bottom - L.top < 16.0) L.top = std::max(0.0, L.bottom - 16.0);
  L.x_tick_target = std::max(2, static_cast<int>((L.right - L.left) / (kFont * 5.5)));
  if (plot.log_x) {
    L.x_ticks = log_ticks(xr.lo, xr.hi, L.x_tick_target);
  } else if (!plot.x_categories.empty()) {
    int name_chars = 1;
    for (const std::string& name : plot.x_categories) name_chars = std::max(name_chars, text_chars(name));
    L.x_ticks = category_ticks(xr.lo, xr.hi, plot.x_categories,
                               std::max(1, static_cast<int>((L.right - L.left) / ((name_chars + 2) * kCharW))));
  } else {
    L.x_ticks = nice_ticks(xr.lo, xr.hi, L.x_tick_target);
  }
  return L;
}

std::string render_svg(const SvgPlot& plot, int width, int height) {
  width = std::max(width, 64);
  height = std::max(height, 64);
  const SvgLayout L = svg_layout(plot, width, height);
  const AxisRange xr = sane_range(plot.x_min, plot.x_max, plot.log_x);
  const AxisRange yr = sane_range(plot.y_min, plot.y_max, plot.log_y);
  const AxisMap xm{xr.lo, xr.hi, plot.log_x, static_cast<float>(L.left), static_cast<float>(L.right)};
  const AxisMap ym{yr.lo, yr.hi, plot.log_y, static_cast<float>(L.bottom), static_cast<float>(L.top)};
  const double pw = L.right - L.left, ph = L.bottom - L.top;

  std::string s;
  s.reserve(16384);
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  appendf(&s,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"%g\">\n",
          width, height, width, height, kFont);
  appendf(&s,
          "<defs><clipPath id=\"plotarea\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
          "height=\"%.2f\"/></clipPath></defs>\n",
          L.left, L.top, pw, ph);
  appendf(&s, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height);

  // Grid, tick marks and tick labels.
  s += "<g class=\"grid\" stroke-width=\"1\">\n";
  for (const AxisTick& t : L.x_ticks) {
    const double x = xm.to_pixel(t.value);
    appendf(&s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n", x, L.top, x, L.bottom,
            t.major ? "#e0e0e0" : "#f0f0f0");
    appendf(&s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#666666\"/>\n", x, L.bottom, x,
            L.bottom + (t.major ? 4.0 : 2.0));
  }
  for (const AxisTick& t : L.y_ticks) {
    const double y = ym.to_pixel(t.value);
    if (t.major)
      appendf(&s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e0e0e0\"/>\n", L.left, y, L.right,
              y);
    appendf(&s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#666666\"/>\n",
            L.left - (t.major ? 4.0 : 2.0), y, L.left, y);
  }
  s += "</g>\n";
  appendf(&s, "<g class=\"xticks\" fill=\"%s\" text-anchor=\"middle\">\n", kTextColor);
  for (const AxisTick& t : L.x_ticks)
    if (!t.label.empty())
      appendf(&s, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", static_cast<double>(xm.to_pixel(t.value)),
              L.bottom + kFont + 4.0, xml_escape(t.label).c_str());
  s += "</g>\n";
  appendf(&s, "<g class=\"yticks\" fill=\"%s\" text-anchor=\"end\">\n", kTextColor);
  for (const AxisTick& t : L.y_ticks)
    if (!t.label.empty())
      appendf(&s, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", L.left - 6.0,
              static_cast<double>(ym.to_pixel(t.value)) + kFont * 0.35, xml_escape(t.label).c_str());
  s += "</g>\n";

  // Bands under lines, clipped by the clipPath (a polygon's clip is not a point clip).
  const int pixels = std::max(1, static_cast<int>(pw));
  s += "<g class=\"bands\" clip-path=\"url(#plotarea)\" stroke=\"none\">\n";
  for (const SvgPlot::Series& ser : plot.series) {
    const size_t n = std::min({ser.xs.size(), ser.ylo.size(), ser.yhi.size()});
    if (ser.ylo.empty() || ser.yhi.empty() || n == 0) continue;
    const std::vector<float> fx = to_float(ser.xs), flo = to_float(ser.ylo), fhi = to_float(ser.yhi);
    const std::vector<DecimatedBandPoint> band = decimate_band(fx.data(), flo.data(), fhi.data(), static_cast<int>(n),
                                                               xr.lo, xr.hi, pixels, plot.log_x, plot.log_y);
    const std::string fill = hex_rgb(ser.color);
    const double opacity = 0.25 * alpha01(ser.color);
    size_t a = 0;
    while (a < band.size()) {
      size_t b = a + 1;
      while (b < band.size() && !band[b].gap_before) ++b;
      if (b - a >= 2) {
        auto clampy = [](double v) { return std::clamp(v, -1e5, 1e5); };
        s += "<path d=\"";
        for (size_t i = a; i < b; ++i)
          appendf(&s, "%s%.2f,%.2f ", i == a ? "M" : "L", clampy(xm.to_pixel(band[i].x)),
                  clampy(ym.to_pixel(band[i].hi)));
        for (size_t i = b; i-- > a;)
          appendf(&s, "L%.2f,%.2f ", clampy(xm.to_pixel(band[i].x)), clampy(ym.to_pixel(band[i].lo)));
        appendf(&s, "Z\" fill=\"%s\" fill-opacity=\"%.3f\"/>\n", fill.c_str(), opacity);
      }
      a = b;
    }
  }
  s += "</g>\n";

  // Lines: decimated, split at gaps, clipped point by point to the plot rectangle.
  s += "<g class=\"lines\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n";
  for (const SvgPlot::Series& ser : plot.series) {
    const size_t n = std::min(ser.xs.size(), ser.ys.size());
    if (n == 0) continue;
    const std::vector<float> fx = to_float(ser.xs), fy = to_float(ser.ys);
    const std::vector<DecimatedPoint> pts =
        decimate_minmax(fx.data(), fy.data(), static_cast<int>(n), xr.lo, xr.hi, pixels, plot.log_x, plot.log_y);
    std::string style;
    appendf(&style, "stroke=\"%s\" stroke-width=\"%.2f\"", hex_rgb(ser.color).c_str(),
            static_cast<double>(ser.thickness));
    if (alpha01(ser.color) < 1.0) appendf(&style, " stroke-opacity=\"%.3f\"", alpha01(ser.color));
    std::vector<Pt> run;
    for (const DecimatedPoint& p : pts) {
      if (p.gap_before) {
        emit_run(&s, run, L, style);
        run.clear();
      }
      run.push_back({xm.to_pixel(p.x), ym.to_pixel(p.y)});
    }
    emit_run(&s, run, L, style);
  }
  s += "</g>\n";

  s += "<g class=\"vlines\" stroke-width=\"1.5\">\n";
  for (const auto& [x, color] : plot.vlines) {
    if (!(x >= xr.lo && x <= xr.hi)) continue;
    const double px = xm.to_pixel(x);
    appendf(&s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"", px, L.top, px, L.bottom,
            hex_rgb(color).c_str());
    if (alpha01(color) < 1.0) appendf(&s, " stroke-opacity=\"%.3f\"", alpha01(color));
    s += "/>\n";
  }
  s += "</g>\n";

  appendf(
      &s,
      "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#444444\"/>\n",
      L.left, L.top, pw, ph);

  // Legend: top-right inside the plot area, one row per labeled series.
  int rows = 0, chars = 0;
  for (const SvgPlot::Series& ser : plot.series)
    if (!ser.label.empty()) ++rows, chars = std::max(chars, text_chars(ser.label));
  s += "<g class=\"legend\">\n";
  if (rows > 0) {
    const double row_h = kFont * 1.4, pad = 5.0, swatch = 18.0;
    const double lw = pad * 3 + swatch + chars * kCharW, lh = pad * 2 + rows * row_h;
    const double lx = L.right - 6.0 - lw, ly = L.top + 6.0;
    appendf(&s,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#ffffff\" fill-opacity=\"0.85\" "
            "stroke=\"#bbbbbb\"/>\n",
            lx, ly, lw, lh);
    double y = ly + pad;
    for (const SvgPlot::Series& ser : plot.series) {
      if (ser.label.empty()) continue;
      const double cy = y + row_h * 0.5;
      const std::string col = hex_rgb(ser.color);
      if (!ser.ys.empty())
        appendf(&s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                lx + pad, cy, lx + pad + swatch, cy, col.c_str());
      else
        appendf(&s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"%.3f\"/>\n",
                lx + pad, cy - row_h * 0.3, swatch, row_h * 0.6, col.c_str(), 0.45 * alpha01(ser.color));
      appendf(&s, "<text x=\"%.2f\" y=\"%.2f\" fill=\"%s\">%s</text>\n", lx + pad * 2 + swatch, cy + kFont * 0.35,
              kTextColor, xml_escape(ser.label).c_str());
      y += row_h;
    }
  }
  s += "</g>\n";

  // Title and axis labels.
  if (!plot.title.empty())
    appendf(
        &s,
        "<text class=\"title\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"%g\" fill=\"%s\">%s</text>\n",
        (L.left + L.right) * 0.5, kFont + 3.0, kFont + 1.0, kTextColor, xml_escape(plot.title).c_str());
  if (!plot.x_label.empty())
    appendf(&s, "<text class=\"xlabel\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n",
            (L.left + L.right) * 0.5, height - 6.0, kTextColor, xml_escape(plot.x_label).c_str());
  if (!plot.y_label.empty()) {
    const double x = 8.0 + kFont * 0.8, y = (L.top + L.bottom) * 0.5;
    appendf(&s,
            "<text class=\"ylabel\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 %.2f %.2f)\" "
            "fill=\"%s\">%s</text>\n",
            x, y, x, y, kTextColor, xml_escape(plot.y_label).c_str());
  }
  s += "</svg>\n";
  return s;
}

}  // namespace headroom::widgets
