#include "emulator/replay/replay.h"

#include <fcntl.h>
#include <pcap/pcap.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <queue>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "emulator/engine/headers.h"
#include "emulator/engine/profile.h"

namespace gw {
namespace {

constexpr std::int64_t kNsPerSecond = 1'000'000'000;

struct PcapCloser {
  void operator()(pcap_t* p) const { pcap_close(p); }
};
using PcapHandle = std::unique_ptr<pcap_t, PcapCloser>;

// IN, read with nanosecond timestamps (libpcap scales a microsecond file's).
PcapHandle open_input(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    throw InputError(file, "", "no such file");
  }
  if (std::filesystem::is_directory(file, ec)) {
    throw InputError(file, "", "is a directory, not a capture");
  }
  char err[PCAP_ERRBUF_SIZE] = {};
  PcapHandle in(pcap_open_offline_with_tstamp_precision(file.c_str(), PCAP_TSTAMP_PRECISION_NANO, err));
  if (!in) {
    throw InputError(file, "", err);
  }
  const int link = pcap_datalink(in.get());
  if (link != DLT_EN10MB) {
    const char* name = pcap_datalink_val_to_name(link);
    throw InputError(file, "",
                     "link type " + (name != nullptr ? std::string(name) : std::to_string(link)) +
                         " is not Ethernet (DLT_EN10MB)");
  }
  return in;
}

// A pcap written to `<path>.partial.<pid>.<n>` and renamed to `path` by commit(); destroyed
// without commit, it removes the temporary file.
class AtomicPcapWriter {
 public:
  AtomicPcapWriter(std::string path, int snaplen, std::string input)
      : path_(std::move(path)), input_(std::move(input)) {
    dead_.reset(pcap_open_dead_with_tstamp_precision(DLT_EN10MB, snaplen, PCAP_TSTAMP_PRECISION_NANO));
    if (!dead_) {
      throw EnvironmentError("cannot write " + path_ + ": libpcap could not make a writer");
    }
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
      tmp_ = path_ + ".partial." + std::to_string(getpid()) + "." + std::to_string(attempt);
      // 0666 and the umask: the same mode a plain fopen() of OUT would give.
      fd = open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && (errno != EEXIST || attempt >= 100)) {
        throw EnvironmentError("cannot write " + path_ + ": " + std::strerror(errno));
      }
    }
    FILE* f = fdopen(fd, "wb");
    if (f == nullptr) {
      const int e = errno;
      close(fd);
      unlink(tmp_.c_str());
      throw EnvironmentError("cannot write " + path_ + ": " + std::strerror(e));
    }
    dumper_ = pcap_dump_fopen(dead_.get(), f);
    if (dumper_ == nullptr) {
      std::fclose(f);
      unlink(tmp_.c_str());
      throw EnvironmentError("cannot write " + path_ + ": " + pcap_geterr(dead_.get()));
    }
  }

  ~AtomicPcapWriter() {
    if (dumper_ != nullptr) {
      pcap_dump_close(dumper_);
      unlink(tmp_.c_str());
    }
  }
  AtomicPcapWriter(const AtomicPcapWriter&) = delete;
  AtomicPcapWriter& operator=(const AtomicPcapWriter&) = delete;

  // `ts_ns`: nanoseconds since the Unix epoch; `record`: the input record it came from.
  void write(std::int64_t ts_ns, std::span<const std::uint8_t> bytes, std::uint32_t wire_len,
             std::uint64_t record) {
    // A pcap record holds unsigned 32-bit seconds: 2106-02-07 06:28:15 UTC is the last.
    if (ts_ns < 0 || ts_ns / kNsPerSecond > std::int64_t{UINT32_MAX}) {
      throw InputError(
          input_, "record " + std::to_string(record + 1),
          "released at " + std::to_string(ts_ns / kNsPerSecond) +
              " s since 1970, past the last second a pcap timestamp holds (2^32-1 s, 2106-02-07)");
    }
    pcap_pkthdr h{};
    h.ts.tv_sec = static_cast<time_t>(ts_ns / kNsPerSecond);
    h.ts.tv_usec = static_cast<suseconds_t>(ts_ns % kNsPerSecond);  // ns: the file is nanosecond
    h.caplen = static_cast<bpf_u_int32>(bytes.size());
    h.len = std::max<bpf_u_int32>(wire_len, h.caplen);
    pcap_dump(reinterpret_cast<u_char*>(dumper_), &h, bytes.data());
  }

  void commit() {
    errno = 0;
    const bool flushed = pcap_dump_flush(dumper_) == 0 && std::ferror(pcap_dump_file(dumper_)) == 0;
    const int flush_errno = errno != 0 ? errno : EIO;
    pcap_dump_close(dumper_);
    dumper_ = nullptr;
    if (!flushed) {
      unlink(tmp_.c_str());
      throw EnvironmentError("cannot write " + path_ + ": " + std::strerror(flush_errno));
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      const int e = errno;
      unlink(tmp_.c_str());
      throw EnvironmentError("cannot write " + path_ + ": " + std::strerror(e));
    }
  }

 private:
  std::string path_;
  std::string input_;  // IN, named when a record's time cannot be written
  std::string tmp_;
  PcapHandle dead_;
  pcap_dumper_t* dumper_ = nullptr;
};

// A record released by the engine, waiting for its turn in OUT.
struct OutRecord {
  std::int64_t release_ns = 0;  // run time
  std::uint64_t seq = 0;        // delivery order, for ties
  std::uint64_t record = 0;     // IN's record it came from (0-based)
  std::uint32_t wire_len = 0;
  std::vector<std::uint8_t> bytes;

  // For a min-heap on (release, seq).
  friend bool operator>(const OutRecord& a, const OutRecord& b) {
    return a.release_ns != b.release_ns ? a.release_ns > b.release_ns : a.seq > b.seq;
  }
};

// Takes what the engine releases: keeps each input frame while a packet made from it (the
// original or a duplicate copy) is in flight, applies the recorded modifications to a copy of
// its bytes, and orders the results by release time.
class ReplaySink final : public PacketSink {
 public:
  explicit ReplaySink(ReplaySummary& s) : s_(s) {}

  // Frame `handle` enters the engine; pinned until unpin() so that a copy made while the
  // original is dropped in the same push still finds its bytes.
  void store(std::uint64_t handle, std::span<const std::uint8_t> frame, std::uint32_t wire_len) {
    frames_.emplace(handle, Frame{std::vector<std::uint8_t>(frame.begin(), frame.end()), wire_len, 2});
  }

  // The push of `handle` is over; it made `copies` duplicate copies. The engine's duplicate
  // stage copies on entry (it follows the loss stage, which holds nothing: pipeline.h), so no
  // copy of `handle` is made after its push.
  void unpin(std::uint64_t handle, std::uint64_t copies) {
    const auto it = frames_.find(handle);
    if (it != frames_.end()) {
      it->second.refs += copies;
      release(it);
    }
  }

  void deliver(Packet&& p) override {
    const auto it = frames_.find(p.handle);
    if (it == frames_.end()) {
      throw std::logic_error("replay: record " + std::to_string(p.handle + 1) +
                             " delivered after its frame was released (a duplicate made after its push?)");
    }
    if (ns_of(p.time) < watermark_ns_) {
      throw std::logic_error("replay: a packet was released at " + std::to_string(ns_of(p.time)) +
                             " ns, before the engine's time " + std::to_string(watermark_ns_) + " ns");
    }
    Frame& f = it->second;
    // The last packet made from this frame takes its bytes; earlier ones (an original whose
    // copy is still in flight, or the reverse) take a copy.
    OutRecord r{ns_of(p.time), seq_++, p.handle, f.wire_len, f.refs == 1 ? std::move(f.bytes) : f.bytes};
    // Marks before bit errors: the output is the marked frame with one bit flipped, as a bit
    // error on the wire after the last hop would leave it.
    if (p.ce_marked) {
      apply_ce(r.bytes);
    }
    if (p.corrupt_bit != kNoCorruption) {
      s_.corrupt_beyond_capture += flip_bit(r.bytes, p.corrupt_bit) ? 0 : 1;
    }
    pending_.push(std::move(r));
    release(it);
  }

  void dropped(Packet&& p, DropCause /*cause*/) override {
    const auto it = frames_.find(p.handle);
    if (it != frames_.end()) {
      release(it);
    }
  }

  // Writes every pending record released at or before `now`: the engine releases nothing
  // earlier than the time of its latest call, so their order is final.
  void flush_until(Instant now, std::int64_t base_ns, AtomicPcapWriter& out) {
    watermark_ns_ = ns_of(now);
    while (!pending_.empty() && pending_.top().release_ns <= watermark_ns_) {
      const OutRecord& r = pending_.top();
      out.write(base_ns + r.release_ns, r.bytes, r.wire_len, r.record);
      pending_.pop();
    }
  }

  void flush_all(std::int64_t base_ns, AtomicPcapWriter& out) { flush_until(kNever, base_ns, out); }

  // Nothing of the capture is in flight or waiting to be written.
  bool idle() const { return frames_.empty() && pending_.empty(); }

 private:
  struct Frame {
    std::vector<std::uint8_t> bytes;
    std::uint32_t wire_len = 0;
    std::uint64_t refs = 0;
  };
  using FrameMap = std::unordered_map<std::uint64_t, Frame>;

  void release(FrameMap::iterator it) {
    if (--it->second.refs == 0) {
      frames_.erase(it);
    }
  }

  ReplaySummary& s_;
  FrameMap frames_;
  std::priority_queue<OutRecord, std::vector<OutRecord>, std::greater<>> pending_;
  std::uint64_t seq_ = 0;
  std::int64_t watermark_ns_ = 0;
};

// The seconds of a record's time. A classic pcap stores them as unsigned 32 bits (until 2106),
// but libpcap hands them over sign-extended from 32 bits: from 2038 on they come back
// negative, and are taken modulo 2^32 again here.
std::int64_t record_seconds(const pcap_pkthdr& h) {
  const auto sec = static_cast<std::int64_t>(h.ts.tv_sec);
  return sec < 0 ? sec & std::int64_t{0xffffffff} : sec;
}

// Cross traffic (microbursts, incast bursts) makes events whether or not the capture has
// packets in flight, so replay time would grow with the capture's span rather than its size:
// two records 1,000 s apart through profiles/wan/microburst-heavy.json would simulate 500,000
// bursts. A long idle gap is shortened instead: once nothing of the capture is in flight, the
// engine runs `settle` of the gap, then `settle` more before the next record; the rest is not
// simulated and OUT's times are shifted back by it. What the next record meets is the queue
// and AQM state that `settle` (at least 1 s and 10 periods of the slowest source) of the
// stationary cross traffic builds; what is lost is only the cross traffic's own counters for
// the time cut. Not done when time itself matters: phases, rate and Mahimahi traces, or a
// source that has not started yet (all engine times stay the capture's times then).
struct GapPolicy {
  Duration settle{0};
  Instant sources_started = kEpoch;  // every cross-traffic source has started by then
};

std::optional<GapPolicy> gap_policy(const Profile& profile, Direction dir) {
  std::vector<const DirectionSpec*> specs{dir == Direction::kAToB ? &profile.a_to_b : &profile.b_to_a};
  for (const ClassSpec& c : profile.classes) {
    specs.push_back(dir == Direction::kAToB ? &c.a_to_b : &c.b_to_a);
  }
  if (!profile.phases.empty()) {
    return std::nullopt;
  }
  bool cross = false;
  Duration slowest{0};
  Duration latest_start{0};
  const auto source = [&](Duration start, Duration period) {
    cross = true;
    slowest = std::max(slowest, period);
    latest_start = std::max(latest_start, start);
  };
  for (const DirectionSpec* d : specs) {
    if (d->rate && (!d->rate->trace.empty() || !d->rate->mahimahi.empty())) {
      return std::nullopt;
    }
    if (d->queue) {
      for (const MicroburstSettings& m : d->queue->microbursts) {
        source(m.start, m.period + m.jitter);
      }
    }
    if (d->incast) {
      for (const IncastBurstSettings& b : d->incast->bursts) {
        source(b.start, b.period);
      }
    }
  }
  if (!cross) {
    return std::nullopt;  // no events while the capture is idle: nothing to shorten
  }
  return GapPolicy{std::max(Duration{kNsPerSecond}, 10 * slowest), kEpoch + latest_start};
}

}  // namespace

ReplaySummary replay(const ReplayOptions& o) {
  return replay(load_profile(o.profile), o);
}

ReplaySummary replay(const Profile& profile, const ReplayOptions& o) {
  PcapHandle in = open_input(o.input);
  AtomicPcapWriter out(o.output, pcap_snapshot(in.get()), o.input);
  Profile p = profile;
  if (o.seed) {
    p.seed = *o.seed;
  }
  DirectionEngine engine(p, o.direction);
  ReplaySummary s;
  ReplaySink writer(s);
  SummarySink sink(&writer);  // counts delays and goodput, then hands packets to the writer

  std::int64_t first_ns = 0;
  Instant last = kEpoch;
  const std::optional<GapPolicy> gaps = gap_policy(p, o.direction);
  for (std::uint64_t index = 0;; ++index) {
    pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(in.get(), &h, &data);
    if (rc == PCAP_ERROR_BREAK) {
      break;  // end of file
    }
    if (rc != 1) {
      throw InputError(o.input, "record " + std::to_string(index + 1), pcap_geterr(in.get()));
    }
    const std::int64_t ts_ns = record_seconds(*h) * kNsPerSecond + h->ts.tv_usec;
    if (index == 0) {
      first_ns = ts_ns;
    }
    Instant arrival = at_ns(ts_ns - first_ns) - s.idle_skipped;
    if (arrival < last) {
      arrival = last;
      ++s.input_time_went_back;
    }
    if (gaps && arrival - last > 2 * gaps->settle && last + gaps->settle >= gaps->sources_started) {
      const Instant settled = last + gaps->settle;
      engine.advance(settled, sink);
      writer.flush_until(settled, first_ns + ns_of(s.idle_skipped), out);
      if (writer.idle()) {
        const Duration cut = arrival - settled - gaps->settle;
        s.idle_skipped += cut;
        ++s.gaps_shortened;
        arrival = arrival - cut;
      }
    }
    last = arrival;
    const std::uint32_t wire_len = std::max(h->len, h->caplen);
    s.snapshot_truncated += h->caplen < h->len ? 1 : 0;

    const std::span<const std::uint8_t> frame(data, h->caplen);
    writer.store(index, frame, wire_len);
    // Release what is due in every class pipeline before this packet joins one of them.
    engine.advance(arrival, sink);
    std::uint64_t queue = 0;
    for (const auto& c : engine.classes()) {
      queue += c.pipeline->queue_bytes();
    }
    sink.arrival(arrival, queue);
    const std::uint64_t copies_before = engine.totals().duplicated;
    engine.push(packet_from_frame(frame, index, arrival, wire_len), arrival, sink);
    writer.unpin(index, engine.totals().duplicated - copies_before);
    writer.flush_until(arrival, first_ns + ns_of(s.idle_skipped), out);
  }
  engine.drain(sink, last);
  writer.flush_all(first_ns + ns_of(s.idle_skipped), out);
  out.commit();

  s.impairment = sink.finish(engine.totals(), engine.held_packets());
  if (s.idle_skipped.count() > 0 && s.impairment.span.count() > 0) {
    // Goodput over the capture's own span, cut time included.
    const Duration span = s.impairment.span + s.idle_skipped;
    s.impairment.goodput_bps *=
        static_cast<double>(s.impairment.span.count()) / static_cast<double>(span.count());
    s.impairment.span = span;
  }
  return s;
}

}  // namespace gw
