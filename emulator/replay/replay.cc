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
  AtomicPcapWriter(std::string path, int snaplen) : path_(std::move(path)) {
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

  // `ts_ns`: nanoseconds since the Unix epoch.
  void write(std::int64_t ts_ns, std::span<const std::uint8_t> bytes, std::uint32_t wire_len) {
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
  std::string tmp_;
  PcapHandle dead_;
  pcap_dumper_t* dumper_ = nullptr;
};

// A record released by the engine, waiting for its turn in OUT.
struct OutRecord {
  std::int64_t release_ns = 0;  // run time
  std::uint64_t seq = 0;        // delivery order, for ties
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
    OutRecord r{ns_of(p.time), seq_++, f.wire_len, f.refs == 1 ? std::move(f.bytes) : f.bytes};
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
      out.write(base_ns + r.release_ns, r.bytes, r.wire_len);
      pending_.pop();
    }
  }

  void flush_all(std::int64_t base_ns, AtomicPcapWriter& out) { flush_until(kNever, base_ns, out); }

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

}  // namespace

ReplaySummary replay(const ReplayOptions& o) {
  return replay(load_profile(o.profile), o);
}

ReplaySummary replay(const Profile& profile, const ReplayOptions& o) {
  PcapHandle in = open_input(o.input);
  AtomicPcapWriter out(o.output, pcap_snapshot(in.get()));
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
    const std::int64_t ts_ns = static_cast<std::int64_t>(h->ts.tv_sec) * kNsPerSecond + h->ts.tv_usec;
    if (index == 0) {
      first_ns = ts_ns;
    }
    Instant arrival = at_ns(ts_ns - first_ns);
    if (arrival < last) {
      arrival = last;
      ++s.input_time_went_back;
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
    writer.flush_until(arrival, first_ns, out);
  }
  engine.drain(sink, last);
  writer.flush_all(first_ns, out);
  out.commit();

  s.impairment = sink.finish(engine.totals(), engine.held_packets());
  return s;
}

}  // namespace gw
