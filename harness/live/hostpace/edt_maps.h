/* The maps shared by the EDT host pacer's tc-BPF program (edt.bpf.c) and its loader
 * (edt_pacer.h). Plain C with <linux/types.h> so that both clang -target bpf and the C++
 * build read the same layout. docs/guide/host-pacing.md describes what each field does. */
#ifndef GW_HARNESS_LIVE_HOSTPACE_EDT_MAPS_H
#define GW_HARNESS_LIVE_HOSTPACE_EDT_MAPS_H

#include <linux/types.h>

/* A flow as the program sees it on a frame leaving the interface. TCP and other UDP: the
 * 5-tuple, qp 0. RoCEv2 (UDP to port 4791): the addresses, the protocol, dport 4791 and the
 * BTH destination QP, source port 0, so that a queue pair keeps its rate when it moves to
 * another path (another source port, docs/steering.md). Addresses are in network order; an
 * IPv4 address fills saddr[0] / daddr[0] and leaves the rest 0. */
struct gw_edt_key {
  __u32 saddr[4];
  __u32 daddr[4];
  __u32 qp;
  __u16 sport; /* network order */
  __u16 dport; /* network order */
  __u8 family; /* 4 or 6 */
  __u8 proto;  /* IPPROTO_TCP, IPPROTO_UDP */
  __u8 pad[2];
};

/* gw_edt_rates: what the controller or the congestion control writes, per flow. */
struct gw_edt_rate {
  __u64 bytes_per_sec; /* 0: the flow is not paced */
};

/* gw_edt_flows: the program's own state per flow (an LRU map: a flow that stops sending
 * ages out). */
struct gw_edt_flow {
  __u64 t_next_ns; /* CLOCK_MONOTONIC: the earliest the flow's next frame may leave */
};

/* gw_edt_config[0]: the same for every flow. */
struct gw_edt_config {
  __u64 default_bytes_per_sec; /* flows with no entry in gw_edt_rates; 0: not paced */
  __u64 ce_threshold_ns;       /* a frame departing this far ahead of now is marked CE; 0: never */
  __u64 horizon_ns;            /* a frame that would depart this far ahead is dropped; 0: never */
};

/* gw_edt_stats: per-CPU counters, summed by the loader. */
enum gw_edt_counter {
  GW_EDT_PACKETS = 0,     /* every frame the program saw */
  GW_EDT_BYTES,           /* their skb->len */
  GW_EDT_PACED,           /* frames of a flow with a rate, given a departure time */
  GW_EDT_DELAYED,         /* of those, frames whose departure time was later than now */
  GW_EDT_CE_MARKED,       /* ECT frames past the CE threshold, now CE */
  GW_EDT_PAST_THRESHOLD,  /* frames past the CE threshold that were not ECT (left alone) */
  GW_EDT_DROPPED_HORIZON, /* frames past the horizon, dropped (TC_ACT_SHOT) */
  GW_EDT_NOT_PACED,       /* IP frames of flows with no rate */
  GW_EDT_NOT_IP,          /* frames that are not IPv4 or IPv6, or too short to read */
  GW_EDT_COUNTERS
};

#endif
