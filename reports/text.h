// Number and text formatting shared by the report writers (Markdown, JUnit, HTML, tables).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gw::reports {

// `v` with `digits` after the point ("12.35"); "-" for null or a non-number.
std::string fixed(const nlohmann::json& v, int digits);
// Up to 4 significant digits with a readable unit: "1.5 ms", "820 us", "12 ns".
std::string duration_text(double ns);
// "25 MiB", "4 KiB", "100 B".
std::string bytes_text(double bytes);
// "9.41 Gbit/s".
std::string rate_text(double bps);
// A threshold value or measurement: true/false, a number with 4 significant digits, or "-".
std::string value_text(const nlohmann::json& v);

// XML/HTML text and attribute escaping (&, <, >, ", ').
std::string xml_escape(std::string_view s);
// A Markdown table cell: "|" escaped and newlines folded.
std::string md_cell(std::string_view s);

}  // namespace gw::reports
