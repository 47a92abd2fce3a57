// Where gradwall looks for the data it ships (distribution tables, example profiles). The
// same binary must find them in a build tree, in an installed tree and when a user points
// it elsewhere, so lookups go through one ordered list instead of ad hoc paths.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gw {

// Directories that may hold shipped data of kind `sub` (e.g. "dist"), most specific first:
//   1. $GRADWALL_DATA_DIR/<sub>                          (user override, if the variable is set)
//   2. <directory of /proc/self/exe>/../share/gradwall/<sub>  (installed layout)
//   3. GW_SOURCE_DATA_DIR/<sub>                          (the source tree's profiles/ folder)
// Directories are listed whether or not they exist; callers try them in order. An empty
// `sub` names the data roots themselves.
std::vector<std::string> data_search_dirs(std::string_view sub);

}  // namespace gw
