// `gradwall emu --capture DIR`: pcap files (nanosecond timestamps, Ethernet) of what enters and
// what leaves each port: port0-in.pcap, port0-out.pcap, port1-in.pcap, port1-out.pcap.
//
// The forwarding lcore never writes a file: it copies each frame's bytes (up to kCaptureSnap)
// into a bounded single-producer/single-consumer ring (CaptureRing), and a writer thread
// (Capture) empties the rings into the files with pcap_dump. Cost on the data plane: one
// memcpy of the frame per captured frame and direction. Two bounds, each counted, never waited
// on:
//   - ring full (the writer fell behind): the frame is not captured (`ring_full`);
//   - file size limit reached (`--capture-max-mb` per file): the writer stops writing that
//     file and counts every later frame (`size_limit`).
// So for each file: frames the port received (or sent) = captured + ring_full + size_limit.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace gw {

inline constexpr std::uint32_t kCaptureSnap = 2048;  // bytes kept per frame (a 1500-byte MTU fits)

class CaptureRing {
 public:
  explicit CaptureRing(std::uint32_t slots);

  // Producer (one lcore). stage() copies a frame into the next free slot without showing it
  // to the writer; commit(n) shows the first n frames staged since the last commit and
  // forgets the others (e.g. the tail of a tx burst the queue refused). A frame that found
  // no free slot is counted as ring_full when it is committed.
  void stage(const std::uint8_t* data, std::uint32_t caplen, std::uint32_t wire_len, std::int64_t unix_ns);
  void commit(std::uint32_t n);

  // Consumer (the writer thread): the oldest committed frame, or false when none.
  struct Frame {
    std::int64_t unix_ns;
    std::uint32_t caplen;
    std::uint32_t wire_len;
    const std::uint8_t* data;
  };
  bool front(Frame* f) const;
  void pop();

  std::uint64_t ring_full() const { return ring_full_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    std::int64_t unix_ns = 0;
    std::uint32_t caplen = 0;
    std::uint32_t wire_len = 0;
  };
  std::uint32_t mask_;
  std::vector<Slot> slots_;
  std::vector<std::uint8_t> bytes_;                 // slots x kCaptureSnap
  alignas(64) std::atomic<std::uint64_t> head_{0};  // committed (producer)
  std::uint64_t staged_ = 0;                        // staged since the last commit (producer)
  bool staging_full_ = false;
  alignas(64) std::atomic<std::uint64_t> tail_{0};  // consumed (consumer)
  std::atomic<std::uint64_t> ring_full_{0};
};

class Capture {
 public:
  // Opens DIR/port{0,1}-{in,out}.pcap (DIR is created). Throws EnvironmentError when a file
  // cannot be opened. `ring_slots` is rounded up to a power of two.
  Capture(const std::string& dir, std::uint64_t max_file_bytes, std::uint32_t ring_slots = 8192);
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  CaptureRing* port_in(int port);
  CaptureRing* port_out(int port);

  // After the data plane stopped: writes what the rings still hold, closes the files and
  // returns per file {"file", "captured", "ring_full", "size_limit", "bytes"}.
  nlohmann::json finish();

 private:
  struct File;
  void writer_loop();
  bool write_some();

  std::vector<std::unique_ptr<File>> files_;
  std::uint64_t max_file_bytes_;
  std::atomic<bool> stop_{false};
  std::thread writer_;
  bool finished_ = false;
};

}  // namespace gw
