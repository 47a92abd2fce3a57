#include "reports/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reports/text.h"

namespace gw::reports {
namespace {

constexpr double kWidth = 840;
constexpr double kHeight = 300;
constexpr double kLeft = 76;
constexpr double kRight = 250;  // legend: names up to kLegendChars at 11 px
constexpr std::size_t kLegendChars = 34;
constexpr double kTop = 28;
constexpr double kBottom = 44;
constexpr double kPlotW = kWidth - kLeft - kRight;
constexpr double kPlotH = kHeight - kTop - kBottom;

const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"};

const char* colour(std::size_t i) {
  return kColours[i % (sizeof kColours / sizeof kColours[0])];
}

// A "nice" step (1, 2 or 5 times a power of ten) giving about `n` ticks over [0, span].
double nice_step(double span, int n) {
  if (span <= 0) {
    return 1;
  }
  const double raw = span / n;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  const double f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

struct Scale {
  double lo;
  double hi;
  double to_px(double v, double px_lo, double px_len) const {
    return hi == lo ? px_lo : px_lo + (v - lo) / (hi - lo) * px_len;
  }
};

void frame(std::ostringstream& os, const ChartAxes& a, const Scale& x, const Scale& y, bool x_ticks) {
  os << "<svg class=\"chart\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" width=\"" << kWidth
     << "\" height=\"" << kHeight << "\" role=\"img\"><title>" << xml_escape(a.title) << "</title>"
     << "<text x=\"" << kLeft << "\" y=\"18\" class=\"ct\">" << xml_escape(a.title) << "</text>";
  const double ystep = nice_step(y.hi - y.lo, 5);
  for (double v = y.lo; v <= y.hi + ystep * 1e-9; v += ystep) {
    const double py = kTop + kPlotH - y.to_px(v, 0, kPlotH);
    os << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + kPlotW << "\" y1=\"" << svg_number(py) << "\" y2=\""
       << svg_number(py) << "\" class=\"grid\"/><text x=\"" << kLeft - 6 << "\" y=\"" << svg_number(py + 4)
       << "\" class=\"yt\">" << xml_escape(a.y_format(v)) << "</text>";
  }
  if (x_ticks) {
    const double xstep = nice_step(x.hi - x.lo, 6);
    for (double v = std::ceil(x.lo / xstep) * xstep; v <= x.hi + xstep * 1e-9; v += xstep) {
      const double px = x.to_px(v, kLeft, kPlotW);
      os << "<text x=\"" << svg_number(px) << "\" y=\"" << kTop + kPlotH + 16 << "\" class=\"xt\">"
         << xml_escape(a.x_format(v)) << "</text>";
    }
  }
  os << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kPlotW << "\" height=\"" << kPlotH
     << "\" class=\"plot\"/><text x=\"" << kLeft + kPlotW / 2 << "\" y=\"" << kHeight - 6
     << "\" class=\"xl\">" << xml_escape(a.x_label) << "</text><text x=\"14\" y=\"" << kTop + kPlotH / 2
     << "\" class=\"yl\" transform=\"rotate(-90 14 " << kTop + kPlotH / 2 << ")\">" << xml_escape(a.y_label)
     << "</text>";
}

void legend(std::ostringstream& os, const std::vector<std::string>& names, std::size_t total) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double y = kTop + 8 + static_cast<double>(i) * 18;
    os << "<rect x=\"" << kLeft + kPlotW + 10 << "\" y=\"" << svg_number(y - 9)
       << "\" width=\"10\" height=\"10\" fill=\"" << colour(i) << "\"/><text x=\"" << kLeft + kPlotW + 26
       << "\" y=\"" << svg_number(y) << "\" class=\"lg\">";
    // A longer name is cut with an ellipsis (it would run past the SVG's edge); the full name
    // is the tooltip.
    if (names[i].size() > kLegendChars) {
      os << xml_escape(names[i].substr(0, kLegendChars - 1)) << "&#8230;<title>" << xml_escape(names[i])
         << "</title>";
    } else {
      os << xml_escape(names[i]);
    }
    os << "</text>";
  }
  if (total > names.size()) {
    os << "<text x=\"" << kLeft + kPlotW + 10 << "\" y=\""
       << svg_number(kTop + 12 + static_cast<double>(names.size()) * 18) << "\" class=\"lg\">(+"
       << total - names.size() << " more)</text>";
  }
}

}  // namespace

std::string svg_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string svg_line_chart(const ChartAxes& axes, const std::vector<Line>& lines, bool step) {
  const std::size_t shown = std::min(lines.size(), kMaxLines);
  Scale x{0, 0};
  Scale y{0, 0};
  bool first = true;
  for (std::size_t i = 0; i < shown; ++i) {
    for (std::size_t k = 0; k < lines[i].x.size() && k < lines[i].y.size(); ++k) {
      x.lo = first ? lines[i].x[k] : std::min(x.lo, lines[i].x[k]);
      x.hi = first ? lines[i].x[k] : std::max(x.hi, lines[i].x[k]);
      y.hi = std::max(y.hi, lines[i].y[k]);
      first = false;
    }
  }
  y.hi = y.hi > 0 ? nice_step(y.hi, 5) * std::ceil(y.hi / nice_step(y.hi, 5)) : 1;
  std::ostringstream os;
  frame(os, axes, x, y, !first);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < shown; ++i) {
    const Line& l = lines[i];
    const std::size_t n = std::min(l.x.size(), l.y.size());
    const std::size_t stride = std::max<std::size_t>(1, (n + kMaxPoints - 1) / kMaxPoints);
    os << "<polyline fill=\"none\" stroke=\"" << colour(i) << "\" stroke-width=\"1.5\" points=\"";
    double prev_y = kTop + kPlotH;
    for (std::size_t k = 0; k < n; k += stride) {
      const std::size_t at = (k + stride >= n) ? n - 1 : k;
      const double px = x.to_px(l.x[at], kLeft, kPlotW);
      const double py = kTop + kPlotH - y.to_px(l.y[at], 0, kPlotH);
      if (step) {
        os << svg_number(px) << "," << svg_number(prev_y) << " ";
      }
      os << svg_number(px) << "," << svg_number(py) << " ";
      prev_y = py;
    }
    os << "\"/>";
    names.push_back(l.name);
  }
  legend(os, names, lines.size());
  os << "</svg>\n";
  return os.str();
}

std::string svg_stacked_bars(const ChartAxes& axes, const std::vector<std::string>& part_names,
                             const std::vector<Bar>& bars) {
  Scale y{0, 0};
  for (const Bar& b : bars) {
    double sum = 0;
    for (const double p : b.parts) {
      sum += std::max(0.0, p);
    }
    y.hi = std::max(y.hi, sum);
  }
  y.hi = y.hi > 0 ? nice_step(y.hi, 5) * std::ceil(y.hi / nice_step(y.hi, 5)) : 1;
  std::ostringstream os;
  frame(os, axes, Scale{0, 1}, y, false);
  const double slot = bars.empty() ? kPlotW : kPlotW / static_cast<double>(bars.size());
  const double width = std::max(1.0, slot * 0.8);
  const std::size_t label_every = std::max<std::size_t>(1, bars.size() / 12);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double px = kLeft + slot * static_cast<double>(i) + (slot - width) / 2;
    double base = 0;
    for (std::size_t p = 0; p < bars[i].parts.size(); ++p) {
      const double v = std::max(0.0, bars[i].parts[p]);
      const double top = kTop + kPlotH - y.to_px(base + v, 0, kPlotH);
      const double h = y.to_px(base + v, 0, kPlotH) - y.to_px(base, 0, kPlotH);
      os << "<rect x=\"" << svg_number(px) << "\" y=\"" << svg_number(top) << "\" width=\""
         << svg_number(width) << "\" height=\"" << svg_number(h) << "\" fill=\"" << colour(p) << "\"><title>"
         << xml_escape(bars[i].label) << " " << xml_escape(p < part_names.size() ? part_names[p] : "") << ": "
         << xml_escape(axes.y_format(v)) << "</title></rect>";
      base += v;
    }
    if (i % label_every == 0) {
      os << "<text x=\"" << svg_number(px + width / 2) << "\" y=\"" << kTop + kPlotH + 16
         << "\" class=\"xt\">" << xml_escape(bars[i].label) << "</text>";
    }
  }
  legend(os, part_names, part_names.size());
  os << "</svg>\n";
  return os.str();
}

}  // namespace gw::reports
