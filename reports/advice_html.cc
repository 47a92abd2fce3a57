#include "reports/advice_html.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include "reports/html.h"
#include "reports/svg.h"
#include "reports/text.h"

namespace gw::reports {
namespace {

using nlohmann::json;

struct Dot {
  double x = 0;
  double y = 0;
  bool front = false;
  std::size_t rank = 0;
};

// One square per ranked change at (cost, slowdown), labelled with its rank; the Pareto front
// joined by a line and its squares filled.
std::string scatter(const std::vector<Dot>& dots, const std::string& x_label, const std::string& y_label) {
  constexpr double kW = 640, kH = 360, kL = 70, kB = 40, kT = 20, kR = 20;
  double xmax = 0, ymax = 0;
  for (const Dot& d : dots) {
    xmax = std::max(xmax, d.x);
    ymax = std::max(ymax, d.y);
  }
  xmax = xmax > 0 ? xmax * 1.05 : 1;
  ymax = ymax > 0 ? ymax * 1.05 : 1;
  auto px = [&](double x) { return kL + x / xmax * (kW - kL - kR); };
  auto py = [&](double y) { return kH - kB - y / ymax * (kH - kB - kT); };
  std::ostringstream os;
  os << "<figure id=\"plot-advice\"><svg class=\"chart\" viewBox=\"0 0 " << kW << " " << kH << "\" width=\""
     << kW << "\" height=\"" << kH << "\" role=\"img\"><title>" << xml_escape(y_label + " against " + x_label)
     << "</title>\n";
  os << "<line x1=\"" << kL << "\" y1=\"" << kH - kB << "\" x2=\"" << kW - kR << "\" y2=\"" << kH - kB
     << "\" stroke=\"#444\"/><line x1=\"" << kL << "\" y1=\"" << kT << "\" x2=\"" << kL << "\" y2=\""
     << kH - kB << "\" stroke=\"#444\"/>\n";
  os << "<text x=\"" << (kL + kW - kR) / 2 << "\" y=\"" << kH - 8 << "\" text-anchor=\"middle\">"
     << xml_escape(x_label) << " (0 to " << value_text(xmax) << ")</text>\n";
  os << "<text x=\"14\" y=\"" << (kT + kH - kB) / 2 << "\" transform=\"rotate(-90 14 " << (kT + kH - kB) / 2
     << ")\" text-anchor=\"middle\">" << xml_escape(y_label) << " (0 to " << value_text(ymax) << ")</text>\n";
  std::vector<Dot> front;
  std::copy_if(dots.begin(), dots.end(), std::back_inserter(front), [](const Dot& d) { return d.front; });
  std::sort(front.begin(), front.end(), [](const Dot& a, const Dot& b) { return a.x < b.x; });
  if (front.size() > 1) {
    os << "<polyline class=\"pareto\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
    for (const Dot& d : front) {
      os << svg_number(px(d.x)) << "," << svg_number(py(d.y)) << " ";
    }
    os << "\"/>\n";
  }
  for (const Dot& d : dots) {  // a square per change, filled on the front
    os << "<rect x=\"" << svg_number(px(d.x) - 6) << "\" y=\"" << svg_number(py(d.y) - 6)
       << "\" width=\"12\" height=\"12\" "
       << (d.front ? "class=\"front\" fill=\"#1f77b4\"" : "fill=\"#ffffff\"") << " stroke=\"#1f77b4\"/>";
    os << "<text x=\"" << svg_number(px(d.x) + 8) << "\" y=\"" << svg_number(py(d.y) - 8) << "\">" << d.rank
       << "</text>\n";
  }
  os << "</svg></figure>\n";
  return os.str();
}

}  // namespace

std::string write_advice_html(const json& a) {
  const bool priced = a["ranked_on"] == "usd_per_month";
  std::ostringstream os;
  os << html_page_head("gradwall: advice for " + a["name"].get<std::string>());
  os << "<h1>gradwall: advice for " << xml_escape(a["name"].get<std::string>()) << "</h1>\n";
  const json& first = a["first_choice"];
  os << "<p id=\"first-choice\">First choice: <b>"
     << xml_escape(first.is_null() ? "none" : first["change"].get<std::string>()) << "</b> — "
     << (a["a_change_passes"].get<bool>() ? "passes the scenario's checks" : "no change in the space passes")
     << ". " << a["simulated_runs"].get<double>() << " simulator runs over " << a["points_in_space"]
     << " points.</p>\n";
  // Priced: slowdown against monthly cost (the trade a user makes); else idle time against
  // added capacity.
  const bool slowdowns =
      priced && !a["ranking"].empty() && a["ranking"][0]["measured"]["slowdown_vs_ideal"].is_number();
  std::vector<Dot> dots;
  os << "<h2>Ranked changes</h2><table id=\"ranking\"><tr><th>#</th><th "
        "class=\"l\">change</th><th>verdict</th>"
        "<th>GPU idle</th><th>slowdown</th><th>CCT p99</th><th>$ / month</th><th>Pareto</th></tr>\n";
  std::size_t rank = 0;
  for (const json& e : a["ranking"]) {
    ++rank;
    const json& m = e["measured"];
    const double x = priced ? e["usd_per_month"]["total"].get<double>() : e["added_wan_gbps"].get<double>();
    const double y = slowdowns ? m["slowdown_vs_ideal"].is_number() ? m["slowdown_vs_ideal"].get<double>() : 0
                               : m["idle_ns_per_iteration"].get<double>() / 1e6;
    if (m["verdict"] != "error") {
      dots.push_back({x, y, e["pareto"].get<bool>(), rank});
    }
    os << "<tr><td>" << rank << "</td><td class=\"l\">" << xml_escape(e["change"].get<std::string>())
       << "</td><td>"
       << (m["verdict"] == "pass"
               ? "<span class=\"pass\">PASS</span>"
               : "<span class=\"fail\">" + std::string(m["verdict"] == "fail" ? "FAIL" : "ERROR") + "</span>")
       << "</td><td>" << fixed(m["gpu_idle_fraction"], 3) << "</td><td>" << fixed(m["slowdown_vs_ideal"], 2)
       << "</td><td>" << duration_text(m["cct_p99_ns"].get<double>()) << "</td><td>"
       << (priced ? fixed(e["usd_per_month"]["total"], 0) : "-") << "</td><td>"
       << (e["pareto"].get<bool>() ? "yes" : "") << "</td></tr>\n";
  }
  os << "</table>\n";
  os << "<h2>Cost against speed</h2>\n"
     << scatter(dots, priced ? "$ per month (idle GPUs + added WAN)" : "added WAN Gbit/s",
                slowdowns ? "slowdown vs unimpaired" : "GPU idle ms per iteration");
  os << "<p>Filled circles and the line: the Pareto front (no other change is both cheaper and "
        "faster).</p>\n";
  os << "</body></html>\n";
  return os.str();
}

}  // namespace gw::reports
