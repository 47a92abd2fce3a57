// Inline SVG charts for the HTML report, drawn in C++ so the page needs no script and no
// network. Each function returns one <svg> element (no xmlns: HTML5 inline SVG needs none).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gw::reports {

using Formatter = std::function<std::string(double)>;

struct Line {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
};

struct ChartAxes {
  std::string title;
  std::string x_label;
  std::string y_label;
  Formatter x_format;
  Formatter y_format;
};

// An SVG coordinate or length: one decimal, enough for a pixel on any screen.
std::string svg_number(double v);

// Lines (at most kMaxLines drawn, each thinned to at most kMaxPoints); `step` draws a step
// function (a CDF). The y axis starts at 0.
inline constexpr std::size_t kMaxLines = 12;
inline constexpr std::size_t kMaxPoints = 600;
std::string svg_line_chart(const ChartAxes& axes, const std::vector<Line>& lines, bool step = false);

// One bar per entry, its parts stacked bottom-up in the colours of `part_names`.
struct Bar {
  std::string label;
  std::vector<double> parts;
};
std::string svg_stacked_bars(const ChartAxes& axes, const std::vector<std::string>& part_names,
                             const std::vector<Bar>& bars);

}  // namespace gw::reports
