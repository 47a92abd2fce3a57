// Running scenario files as `gradwall run` processes, several at once (sweep and advise), and
// making a scenario's relative profile paths absolute before it is written elsewhere.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gw {

// Runs `gradwall run SCENARIO --out OUT --quiet [EXTRA...]` for each pair, at most `jobs` at
// once; returns the exit codes (128 + signal for a run that was killed). With stderr_to_file,
// each run's standard error goes to OUT/stderr.log (OUT must exist).
std::vector<int> run_points(const std::vector<std::filesystem::path>& scenarios,
                            const std::vector<std::filesystem::path>& outs, unsigned jobs,
                            const std::vector<std::string>& extra = {}, bool stderr_to_file = false);
// The same with each run's own extra arguments (extra[i] for scenarios[i]).
std::vector<int> run_points_each(const std::vector<std::filesystem::path>& scenarios,
                                 const std::vector<std::filesystem::path>& outs, unsigned jobs,
                                 const std::vector<std::vector<std::string>>& extra, bool stderr_to_file);

// Profiles named relative to the scenario file `file` become absolute paths.
void absolute_profiles(nlohmann::json& doc, const std::string& file);

}  // namespace gw
