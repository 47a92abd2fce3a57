#include "reports/evaluation_html.h"

#include <sstream>
#include <vector>

#include "reports/html.h"
#include "reports/svg.h"
#include "reports/text.h"

namespace gw::reports {

namespace {

using nlohmann::json;

std::string ratio_text(double r) {
  return fixed(json(r), 2) + "x";
}

std::string cell(bool pass, const std::string& text) {
  return "<span class=\"" + std::string(pass ? "pass" : "fail") + "\">" + text + "</span>";
}

// Rows grouped by path, in the order they first appear.
std::vector<std::pair<std::string, std::vector<json>>> by_path(const json& rows) {
  std::vector<std::pair<std::string, std::vector<json>>> paths;
  for (const json& r : rows) {
    const std::string name = r.at("path").get<std::string>();
    if (paths.empty() || paths.back().first != name) {
      paths.emplace_back(name, std::vector<json>{});
    }
    paths.back().second.push_back(r);
  }
  return paths;
}

}  // namespace

std::string write_evaluation_html(const json& e) {
  std::ostringstream os;
  os << html_page_head("gradwall: learned policy on held-out paths");
  os << "<h1>gradwall: learned policy on held-out paths</h1>\n";
  os << "<p>Policy <code>" << xml_escape(e.value("policy", "")) << "</code>, weights FNV-1a <code>"
     << xml_escape(e.value("weights_fnv1a64", ""))
     << "</code>. Paths the training never draws, each run with "
     << "the policy and acc, acc2, bbr and cubic in the simulator. Goals against acc2 on the same path: "
     << "utilization &ge; " << ratio_text(kLearnedMinUtilization) << ", p99 queueing delay &le; "
     << ratio_text(kLearnedMaxQueue) << ", and Jain &ge; " << kLearnedMinJain
     << " where two flows share it.</p>\n";
  int met = 0;
  int goals = 0;
  std::ostringstream tables;
  for (const auto& [name, rows] : by_path(e.at("rows"))) {
    std::vector<Bar> bars;
    const json* learned = nullptr;
    const json* acc2 = nullptr;
    for (const json& r : rows) {
      learned = r.at("cc") == "learned" ? &r : learned;
      acc2 = r.at("cc") == "acc2" ? &r : acc2;
    }
    tables << "<h2>" << xml_escape(name) << "</h2>\n<table class=\"evaluation\"><tr><th class=\"l\">cc</th>"
           << "<th>utilization</th><th>vs acc2</th><th>queue p99</th><th>vs acc2</th><th>congestion loss</th>"
           << "<th>Jain</th><th>reward</th></tr>\n";
    for (const json& r : rows) {
      const double util = r.at("utilization").get<double>();
      const double queue = r.at("queue_p99_ns").get<double>();
      const double jain = r.at("jain").get<double>();
      const bool is_learned = &r == learned;
      std::string util_vs = "-";
      std::string queue_vs = "-";
      std::string jain_text = fixed(r.at("jain"), 3);
      if (acc2 != nullptr) {
        const double u2 = acc2->at("utilization").get<double>();
        const double q2 = acc2->at("queue_p99_ns").get<double>();
        const double ur = u2 > 0 ? util / u2 : 0;
        util_vs = ratio_text(ur);
        // Both queues empty: equal, so the goal holds.
        const bool queue_ok = queue <= kLearnedMaxQueue * q2;
        queue_vs = q2 > 0 ? ratio_text(queue / q2) : (queue > 0 ? "above 0" : "both 0");
        if (is_learned) {
          const bool util_ok = ur >= kLearnedMinUtilization;
          util_vs = cell(util_ok, util_vs);
          queue_vs = cell(queue_ok, queue_vs);
          met += static_cast<int>(util_ok) + static_cast<int>(queue_ok);
          goals += 2;
        }
      }
      if (is_learned && r.value("flows", 1) > 1) {
        const bool jain_ok = jain >= kLearnedMinJain;
        jain_text = cell(jain_ok, jain_text);
        met += static_cast<int>(jain_ok);
        ++goals;
      }
      tables << "<tr" << (is_learned ? " class=\"learned\"" : "") << "><td class=\"l\">"
             << xml_escape(r.at("cc").get<std::string>()) << "</td><td>" << fixed(r.at("utilization"), 3)
             << "</td><td>" << util_vs << "</td><td>" << duration_text(queue) << "</td><td>" << queue_vs
             << "</td><td>" << fixed(r.at("congestion_loss"), 4) << "</td><td>" << jain_text << "</td><td>"
             << fixed(r.at("reward"), 3) << "</td></tr>\n";
      bars.push_back({r.at("cc").get<std::string>(), {util}});
    }
    tables << "</table>\n"
           << svg_stacked_bars({"Utilization: " + name, "controller", "utilization", nullptr,
                                [](double v) { return fixed(json(v), 2); }},
                               {"utilization"}, bars);
  }
  os << "<p id=\"goals\">Goals met: <b>" << met << " of " << goals << "</b>.</p>\n";
  os << tables.str();
  os << "<p>Utilization: bytes delivered over the bottleneck's capacity during the run. Queue p99: the "
        "bottleneck's 99th percentile queueing delay, without its propagation delay. Congestion loss: its "
        "queue drops over packets in. Reward: utilization - 0.5 x queue p99 / RTT - 5 x congestion loss - "
        "(1 - Jain) with two flows.</p>\n";
  os << "</body></html>\n";
  return os.str();
}

}  // namespace gw::reports
