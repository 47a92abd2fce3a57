// How advise orders points (docs/guide/advise.md "Ranking"): a point that passes the
// scenario's checks before one that fails; then, when the scenario prices GPUs and WAN
// capacity, the lower monthly cost of idle GPUs plus added capacity, else the lower GPU idle
// time per iteration.
#pragma once

#include <utility>

#include "harness/advise/search.h"
#include "harness/run/scenario.h"

namespace gw::advise {

constexpr double kHoursPerMonth = 730;  // 8,760 h / 12

struct MonthlyCost {
  double idle_gpus = 0;  // idle fraction x GPUs x $/GPU-hour x hours per month
  double wan = 0;        // added Gbit/s x $/Gbit/s-month
  double total() const { return idle_gpus + wan; }
};

// False when the scenario lacks GPU prices (then points are ranked on idle time).
bool priced(const CostSpec& cost);
MonthlyCost monthly_cost(double gpu_idle_fraction, double added_gbps, const CostSpec& cost, double ranks);

// Predicted: idle time per iteration, or the monthly cost of the predicted idle fraction.
double predicted_score(const Point& p, const CostSpec& cost);
// (fails its checks, score): smaller is better.
std::pair<bool, double> measured_rank(const Point& p, const Measured& m, const CostSpec& cost);

}  // namespace gw::advise
