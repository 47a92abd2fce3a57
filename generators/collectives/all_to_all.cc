// All-to-all: rank i's send buffer holds the pieces for ranks 0..p-1 end to end (even: the
// array cut into p blocks; uneven: send_matrix[i][j] bytes for j). The piece to oneself is not
// sent. Each piece is split across the channels.
//   pairwise: p-1 rounds; in round k rank r sends to r+k and receives from r-k, and starts
//     round k once round k-1's send and receive are done (MPI_Sendrecv rounds);
//   direct: every piece at once (an incast of p-1 senders at every receiver).
#include "generators/collectives/schedule_builder.h"

namespace gw::coll::detail {
namespace {

// pieces[i][j]: the range of i's send buffer destined to j.
std::vector<std::vector<ByteRange>> pieces(const CollectiveSpec& spec, std::uint32_t p) {
  std::vector<std::vector<ByteRange>> out(p);
  for (std::uint32_t i = 0; i < p; ++i) {
    if (spec.send_matrix.empty()) {
      out[i] = split(ByteRange{0, spec.bytes}, p);
      continue;
    }
    std::uint64_t offset = 0;
    for (std::uint32_t j = 0; j < p; ++j) {
      out[i].push_back(ByteRange{offset, spec.send_matrix[i][j]});
      offset += spec.send_matrix[i][j];
    }
  }
  return out;
}

void require_all_to_all(const CollectiveSpec& spec) {
  if (spec.op != Op::kAllToAll) {
    fail(spec, std::string(algorithm_name(spec.algorithm)) + " supports all_to_all only");
  }
}

}  // namespace

Schedule build_pairwise(const CollectiveSpec& spec, const Placement& placement) {
  require_all_to_all(spec);
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  const auto piece = pieces(spec, p);
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < spec.channels; ++c) {
    std::vector<std::uint32_t> sent(p);
    std::vector<std::uint32_t> received(p);
    for (std::uint32_t k = 1; k < p; ++k) {
      std::vector<std::uint32_t> sent_now(p);
      for (std::uint32_t r = 0; r < p; ++r) {
        const std::uint32_t to = (r + k) % p;
        StepIds after;
        if (k > 1) {
          after = {sent[r], received[r]};
        }
        sent_now[r] = b.send(r, to, split(piece[r][to], spec.channels)[c], Combine::kCopy, c, after);
      }
      for (std::uint32_t r = 0; r < p; ++r) {
        received[(r + k) % p] = sent_now[r];
      }
      sent = sent_now;
    }
  }
  return b.take();
}

Schedule build_direct(const CollectiveSpec& spec, const Placement& placement) {
  require_all_to_all(spec);
  const auto p = static_cast<std::uint32_t>(placement.region.size());
  const auto piece = pieces(spec, p);
  ScheduleBuilder b(p);
  for (std::uint32_t c = 0; c < spec.channels; ++c) {
    for (std::uint32_t r = 0; r < p; ++r) {
      for (std::uint32_t k = 1; k < p; ++k) {
        const std::uint32_t to = (r + k) % p;
        b.send(r, to, split(piece[r][to], spec.channels)[c], Combine::kCopy, c, {});
      }
    }
  }
  return b.take();
}

}  // namespace gw::coll::detail
