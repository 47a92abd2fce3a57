#include "harness/advise/score.h"

namespace gw::advise {

bool priced(const CostSpec& cost) {
  return cost.usd_per_gpu_hour > 0;
}

MonthlyCost monthly_cost(double gpu_idle_fraction, double added_gbps, const CostSpec& cost, double ranks) {
  const double gpus = cost.gpus > 0 ? cost.gpus : ranks;
  return {gpu_idle_fraction * gpus * cost.usd_per_gpu_hour * kHoursPerMonth,
          added_gbps * cost.usd_per_gbps_month};
}

double predicted_score(const Point& p, const CostSpec& cost) {
  const double idle = static_cast<double>(p.predicted.idle().count());
  if (!priced(cost)) {
    return idle;
  }
  const double iteration = static_cast<double>(p.predicted.iteration.count());
  return monthly_cost(iteration > 0 ? idle / iteration : 1, p.added_gbps, cost, p.ranks).total();
}

std::pair<bool, double> measured_rank(const Point& p, const Measured& m, const CostSpec& cost) {
  const bool fails = m.verdict != "pass";
  if (!priced(cost)) {
    return {fails, m.verdict == "error" ? 1e300 : m.idle_ns};
  }
  return {fails, m.verdict == "error"
                     ? 1e300
                     : monthly_cost(m.gpu_idle_fraction, p.added_gbps, cost, p.ranks).total()};
}

}  // namespace gw::advise
