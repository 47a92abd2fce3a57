#include "reports/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

namespace gw::reports {
namespace {

std::string significant(double v, int digits) {
  std::ostringstream os;
  os.precision(digits);
  os << v;
  return os.str();
}

}  // namespace

std::string fixed(const nlohmann::json& v, int digits) {
  if (!v.is_number()) {
    return "-";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v.get<double>());
  return buf;
}

std::string duration_text(double ns) {
  const double a = std::fabs(ns);
  if (a >= 1e9) {
    return significant(ns / 1e9, 4) + " s";
  }
  if (a >= 1e6) {
    return significant(ns / 1e6, 4) + " ms";
  }
  if (a >= 1e3) {
    return significant(ns / 1e3, 4) + " us";
  }
  return significant(ns, 4) + " ns";
}

std::string percentile_text(const nlohmann::json& p, const char* key) {
  return p.value("count", std::uint64_t{1}) == 0 ? "n/a" : duration_text(p.at(key).get<double>());
}

std::string bytes_text(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return significant(bytes, 4) + " " + kUnits[u];
}

std::string rate_text(double bps) {
  const double a = std::fabs(bps);
  if (a >= 1e9) {
    return significant(bps / 1e9, 4) + " Gbit/s";
  }
  if (a >= 1e6) {
    return significant(bps / 1e6, 4) + " Mbit/s";
  }
  if (a >= 1e3) {
    return significant(bps / 1e3, 4) + " kbit/s";
  }
  return significant(bps, 4) + " bit/s";
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_boolean()) {
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_number()) {
    return significant(v.get<double>(), 4);
  }
  return "-";
}

std::string time_part_label(std::string_view part) {
  if (part == "nccl_window") {
    return "NCCL window";
  }
  if (part == "cc_cuts") {
    return "CC cuts";
  }
  std::string out(part);
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string attribution_text(const nlohmann::json& attribution) {
  if (!attribution.is_object()) {
    return "-";
  }
  std::vector<std::pair<double, std::string>> shares;
  for (const auto& [part, share] : attribution.at("shares").items()) {
    if (share.get<double>() >= 0.01) {
      shares.emplace_back(share.get<double>(), part);
    }
  }
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [share, part] : shares) {
    out += (out.empty() ? "" : ", ") + time_part_label(part) + " " +
           std::to_string(std::lround(share * 100)) + "%";
  }
  return out.empty() ? "-" : out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even as references.
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') ? ' ' : c;
    }
  }
  return out;
}

std::string md_cell(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string via_text(const nlohmann::json& via) {
  std::string text = via.empty() ? "direct" : "via";
  for (const nlohmann::json& v : via) {
    text += " " + v.get<std::string>();
  }
  return text;
}

const std::vector<std::string>& comparison_headers() {
  static const std::vector<std::string> kHeaders{
      "policy",  "run",         "completed", "iterations",         "mean iteration", "CCT p50",
      "CCT p99", "WAN goodput", "moves",     "resends (spurious)", "timeouts"};
  return kHeaders;
}

std::vector<std::string> comparison_cells(const nlohmann::json& row) {
  const auto time = [&](const char* key) {
    const nlohmann::json& v = row.at(key);
    return v.is_null() ? std::string("-") : duration_text(v.get<double>());
  };
  const nlohmann::json& goodput = row.at("wan_goodput_bps");
  const auto count = [&](const char* key) { return std::to_string(row.at(key).get<std::uint64_t>()); };
  return {row.at("policy").get<std::string>(),
          row.at("mode").get<std::string>(),
          row.at("completed").get<bool>() ? "yes" : "no",
          count("iterations"),
          time("mean_iteration_ns"),
          time("cct_p50_ns"),
          time("cct_p99_ns"),
          goodput.is_null() ? std::string("-") : rate_text(goodput.get<double>()),
          count("moves"),
          count("retransmits") + " (" + count("spurious_retransmits") + ")",
          count("timeouts")};
}

}  // namespace gw::reports
