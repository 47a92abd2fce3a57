// Builds the AQM a queue's settings ask for. Each AQM that draws randomness owns a stream
// Rng(seed, stream + "/aqm"), so its draws depend only on the profile seed and the queue's
// stream name. Settings are fixed for an AQM's life: the queue stage's AqmHost (aqm_host.h)
// builds a new one when they change.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "emulator/engine/aqm/aqm.h"
#include "emulator/engine/spec.h"

namespace gw {

std::unique_ptr<Aqm> make_aqm(const AqmSettings& s, std::uint64_t seed, const std::string& stream);

}  // namespace gw
