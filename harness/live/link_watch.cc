#include "harness/live/link_watch.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace gw {
namespace {

constexpr Duration kPollEvery{50'000'000};

std::string seconds_text(Duration d) {
  std::ostringstream os;
  os.precision(3);
  os << std::fixed << static_cast<double>(d.count()) / 1e9 << " s";
  return os.str();
}

}  // namespace

bool link_is_up(const std::string& name) {
  std::ifstream in("/sys/class/net/" + name + "/operstate");
  std::string state;
  if (!(in >> state)) {
    return false;
  }
  return state == "up" || state == "unknown";
}

LinkWatch::LinkWatch(std::array<std::string, 2> ports) {
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    ports_[i].name = std::move(ports[i]);
  }
}

void LinkWatch::poll(Instant now) {
  if (now < next_poll_) {
    return;
  }
  next_poll_ = now + kPollEvery;
  for (Port& p : ports_) {
    const bool up = link_is_up(p.name);
    if (p.up && !up) {
      p.down_since = now;
    } else if (!p.up && up) {
      p.outages.emplace_back(p.down_since, now);
    }
    p.up = up;
  }
}

std::vector<std::string> LinkWatch::faults(Instant end) const {
  std::vector<std::pair<Instant, std::string>> lines;
  for (const Port& p : ports_) {
    for (const auto& [down, up] : p.outages) {
      lines.emplace_back(down, "port " + p.name + " went down " + seconds_text(down - kEpoch) +
                                   " into the run and came back up " + seconds_text(up - down) + " later");
    }
    if (!p.up) {
      lines.emplace_back(p.down_since, "port " + p.name + " went down " +
                                           seconds_text(p.down_since - kEpoch) +
                                           " into the run and was still down at the end (" +
                                           seconds_text(end - kEpoch) + ")");
    }
  }
  std::sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [at, line] : lines) {
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace gw
