#include "emulator/dpdk/capture.h"

#include <pcap/pcap.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "core/errors.h"

namespace gw {

CaptureRing::CaptureRing(std::uint32_t slots)
    : mask_(std::bit_ceil(std::max<std::uint32_t>(slots, 64)) - 1),
      slots_(mask_ + 1),
      bytes_(static_cast<std::size_t>(mask_ + 1) * kCaptureSnap) {}

void CaptureRing::stage(const std::uint8_t* data, std::uint32_t caplen, std::uint32_t wire_len,
                        std::int64_t unix_ns) {
  const std::uint64_t head = head_.load(std::memory_order_relaxed) + staged_;
  // Once a frame of this batch found no slot, the rest of the batch does not either: the
  // committed prefix stays in order.
  if (staging_full_ || head - tail_.load(std::memory_order_acquire) > mask_) {
    staging_full_ = true;
    return;
  }
  Slot& s = slots_[head & mask_];
  s.unix_ns = unix_ns;
  s.wire_len = wire_len;
  s.caplen = std::min(caplen, kCaptureSnap);
  std::memcpy(&bytes_[(head & mask_) * kCaptureSnap], data, s.caplen);
  ++staged_;
}

void CaptureRing::commit(std::uint32_t n) {
  const std::uint64_t shown = std::min<std::uint64_t>(n, staged_);
  if (n > shown) {
    ring_full_.store(ring_full_.load(std::memory_order_relaxed) + (n - shown), std::memory_order_relaxed);
  }
  head_.store(head_.load(std::memory_order_relaxed) + shown, std::memory_order_release);
  staged_ = 0;
  staging_full_ = false;
}

bool CaptureRing::front(Frame* f) const {
  const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
  if (tail == head_.load(std::memory_order_acquire)) {
    return false;
  }
  const Slot& s = slots_[tail & mask_];
  *f = {s.unix_ns, s.caplen, s.wire_len, &bytes_[(tail & mask_) * kCaptureSnap]};
  return true;
}

void CaptureRing::pop() {
  tail_.store(tail_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

struct Capture::File {
  std::string path;
  std::unique_ptr<CaptureRing> ring;
  pcap_t* dead = nullptr;
  pcap_dumper_t* dumper = nullptr;
  std::uint64_t bytes = 24;  // the pcap file header
  std::uint64_t captured = 0;
  std::uint64_t size_limit = 0;
};

Capture::Capture(const std::string& dir, std::uint64_t max_file_bytes, std::uint32_t ring_slots)
    : max_file_bytes_(max_file_bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const char* name : {"port0-in.pcap", "port0-out.pcap", "port1-in.pcap", "port1-out.pcap"}) {
    auto f = std::make_unique<File>();
    f->path = (std::filesystem::path(dir) / name).string();
    f->ring = std::make_unique<CaptureRing>(ring_slots);
    f->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
    f->dumper = f->dead == nullptr ? nullptr : pcap_dump_open(f->dead, f->path.c_str());
    if (f->dumper == nullptr) {
      const std::string why = f->dead == nullptr ? "pcap_open_dead failed" : pcap_geterr(f->dead);
      if (f->dead != nullptr) {
        pcap_close(f->dead);
      }
      for (auto& g : files_) {
        pcap_dump_close(g->dumper);
        pcap_close(g->dead);
      }
      throw EnvironmentError("--capture: cannot open " + f->path + ": " + why);
    }
    files_.push_back(std::move(f));
  }
  writer_ = std::thread([this] { writer_loop(); });
}

CaptureRing* Capture::port_in(int port) {
  return files_[static_cast<std::size_t>(port * 2)]->ring.get();
}

CaptureRing* Capture::port_out(int port) {
  return files_[static_cast<std::size_t>(port * 2 + 1)]->ring.get();
}

Capture::~Capture() {
  (void)finish();
}

bool Capture::write_some() {
  bool any = false;
  for (auto& f : files_) {
    CaptureRing::Frame fr{};
    // At most a ring's worth per file per round, so one busy port does not starve the others.
    for (int i = 0; i < 4096 && f->ring->front(&fr); ++i) {
      const std::uint64_t record = 16 + fr.caplen;
      if (f->size_limit > 0 || f->bytes + record > max_file_bytes_) {
        ++f->size_limit;
      } else {
        pcap_pkthdr h{};
        h.ts.tv_sec = static_cast<time_t>(fr.unix_ns / 1'000'000'000);
        // With PCAP_TSTAMP_PRECISION_NANO, pcap_dump writes tv_usec as nanoseconds.
        h.ts.tv_usec = static_cast<suseconds_t>(fr.unix_ns % 1'000'000'000);
        h.caplen = fr.caplen;
        h.len = fr.wire_len;
        pcap_dump(reinterpret_cast<u_char*>(f->dumper), &h, fr.data);
        f->bytes += record;
        ++f->captured;
      }
      f->ring->pop();
      any = true;
    }
  }
  return any;
}

void Capture::writer_loop() {
  while (!stop_.load(std::memory_order_acquire)) {
    if (!write_some()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  while (write_some()) {
  }
}

nlohmann::json Capture::finish() {
  nlohmann::json out = nlohmann::json::array();
  if (finished_) {
    return out;
  }
  finished_ = true;
  stop_.store(true, std::memory_order_release);
  writer_.join();
  for (auto& f : files_) {
    pcap_dump_close(f->dumper);
    pcap_close(f->dead);
    out.push_back({{"file", f->path},
                   {"captured", f->captured},
                   {"ring_full", f->ring->ring_full()},
                   {"size_limit", f->size_limit},
                   {"bytes", f->bytes}});
  }
  return out;
}

}  // namespace gw
