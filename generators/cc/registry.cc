// The congestion-control registry (congestion_control.h): one line per algorithm.
#include <array>

#include "generators/cc/acc.h"
#include "generators/cc/acc2.h"
#include "generators/cc/bbr.h"
#include "generators/cc/congestion_control.h"
#include "generators/cc/cubic.h"
#include "generators/cc/dcqcn.h"
#include "generators/cc/dctcp.h"
#include "generators/cc/fixed.h"
#include "generators/cc/hpcc.h"
#include "generators/cc/learned.h"
#include "generators/cc/prague.h"
#include "generators/cc/reno.h"
#include "generators/cc/swift.h"
#include "generators/cc/timely.h"

namespace gw::cc {
namespace {

using Factory = std::unique_ptr<CongestionControl> (*)(const CcContext&, const CcParams&);

struct Entry {
  std::string_view name;
  Factory make;
};

constexpr std::array kRegistry{
    Entry{"acc", make_acc},       Entry{"acc2", make_acc2},   Entry{"bbr", make_bbr},
    Entry{"cubic", make_cubic},   Entry{"dcqcn", make_dcqcn}, Entry{"dctcp", make_dctcp},
    Entry{"fixed", make_fixed},   Entry{"hpcc", make_hpcc},   Entry{"learned", make_learned},
    Entry{"prague", make_prague}, Entry{"reno", make_reno},   Entry{"swift", make_swift},
    Entry{"timely", make_timely},
};

}  // namespace

std::vector<std::string> congestion_control_names() {
  std::vector<std::string> names;
  for (const Entry& e : kRegistry) {
    names.emplace_back(e.name);
  }
  return names;
}

std::unique_ptr<CongestionControl> make_congestion_control(std::string_view name, const CcContext& ctx,
                                                           const CcParams& params) {
  for (const Entry& e : kRegistry) {
    if (e.name == name) {
      return e.make(ctx, params);
    }
  }
  std::string known;
  for (const Entry& e : kRegistry) {
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  throw CcConfigError{"unknown congestion control '" + std::string(name) + "'; known: " + known};
}

}  // namespace gw::cc
