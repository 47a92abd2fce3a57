/* gradwall's earliest-departure-time host pacer: a tc egress program (cls_bpf, direct action)
 * that gives each frame of a paced flow a departure time, skb->tstamp, from the flow's rate in
 * a map the controller writes. With the fq qdisc on the interface the kernel holds each frame
 * until then (the "EDT" model: Jacobson, Dumazet et al., "Evolving from AFD to EDT", netdev
 * 0x12, 2018; Fomichev et al., "Replacing HTB with EDT and BPF", netdev 0x14, 2020). A flow
 * whose backlog of departure times passes a threshold gets its ECT frames marked CE (RFC 3168
 * section 5), and a frame past the horizon is dropped and counted rather than joining an
 * ever deeper queue. docs/guide/host-pacing.md.
 *
 * Built with clang -target bpf (CMakeLists.txt) and embedded in gradwall; loaded by
 * edt_pacer.cc. The per-flow state is updated without a lock: frames of one flow that leave
 * on two CPUs at once may both take the same departure slot (as in the netdev 0x14 design). */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "edt_maps.h"

#define GW_NSEC_PER_SEC 1000000000ULL
#define GW_ROCE_PORT 4791 /* RoCEv2's UDP destination port (IBTA, Annex A17) */
#define GW_IP_FRAG_MASK 0x3fff /* MF and the fragment offset */

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, struct gw_edt_key);
  __type(value, struct gw_edt_rate);
} gw_edt_rates SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, struct gw_edt_key);
  __type(value, struct gw_edt_flow);
} gw_edt_flows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gw_edt_config);
} gw_edt_config SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, GW_EDT_COUNTERS);
  __type(key, __u32);
  __type(value, __u64);
} gw_edt_stats SEC(".maps");

static __always_inline void count(__u32 counter, __u64 n) {
  __u64 *c = bpf_map_lookup_elem(&gw_edt_stats, &counter);
  if (c) *c += n;
}

/* RFC 1624 equation 3: the header checksum after one 16-bit word changed from old to new
 * (all three in host order). */
static __always_inline __u16 csum_update(__u16 check, __u16 old, __u16 new) {
  __u32 sum = (__u16)~check + (__u16)~old + (__u32) new;
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return (__u16)~sum;
}

/* The frame's transport ports and, for RoCEv2, the BTH destination QP, read at l4. */
static __always_inline int read_ports(struct gw_edt_key *key, void *l4, void *end) {
  if (key->proto != IPPROTO_TCP && key->proto != IPPROTO_UDP) return 0;
  __be16 *ports = l4;
  if ((void *)(ports + 2) > end) return -1;
  key->sport = ports[0];
  key->dport = ports[1];
  if (key->proto == IPPROTO_UDP && key->dport == bpf_htons(GW_ROCE_PORT)) {
    /* UDP header (8 bytes), then the BTH: opcode, flags, pkey (4 bytes), then a reserved
     * byte and the 24-bit destination QP. */
    __u8 *bth = (__u8 *)l4 + 8;
    if ((void *)(bth + 8) > end) return -1;
    key->qp = ((__u32)bth[5] << 16) | ((__u32)bth[6] << 8) | bth[7];
    key->sport = 0;
  }
  return 0;
}

SEC("tc")
int gw_edt(struct __sk_buff *skb) {
  void *data = (void *)(long)skb->data;
  void *end = (void *)(long)skb->data_end;
  count(GW_EDT_PACKETS, 1);
  count(GW_EDT_BYTES, skb->len);

  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end) goto not_ip;
  struct gw_edt_key key = {};
  struct iphdr *ip4 = 0;
  struct ipv6hdr *ip6 = 0;
  __u8 ecn = 0;
  if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    ip4 = (void *)(eth + 1);
    if ((void *)(ip4 + 1) > end || ip4->ihl < 5) goto not_ip;
    key.family = 4;
    key.proto = ip4->protocol;
    key.saddr[0] = ip4->saddr;
    key.daddr[0] = ip4->daddr;
    ecn = ip4->tos & 3;
    /* A later fragment has no transport header: its flow is the addresses' alone. */
    if ((ip4->frag_off & bpf_htons(GW_IP_FRAG_MASK)) == 0 &&
        read_ports(&key, (__u8 *)ip4 + ip4->ihl * 4, end) != 0)
      goto not_ip;
  } else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
    ip6 = (void *)(eth + 1);
    if ((void *)(ip6 + 1) > end) goto not_ip;
    key.family = 6;
    key.proto = ip6->nexthdr; /* extension headers are not walked: such flows have no ports */
    __builtin_memcpy(key.saddr, &ip6->saddr, 16);
    __builtin_memcpy(key.daddr, &ip6->daddr, 16);
    ecn = (((__u8 *)ip6)[1] >> 4) & 3;
    if (read_ports(&key, ip6 + 1, end) != 0) goto not_ip;
  } else {
    goto not_ip;
  }

  __u32 zero = 0;
  struct gw_edt_config *cfg = bpf_map_lookup_elem(&gw_edt_config, &zero);
  if (!cfg) return TC_ACT_OK;
  __u64 rate = cfg->default_bytes_per_sec;
  struct gw_edt_rate *r = bpf_map_lookup_elem(&gw_edt_rates, &key);
  if (r) rate = r->bytes_per_sec;
  if (rate == 0) {
    count(GW_EDT_NOT_PACED, 1);
    return TC_ACT_OK;
  }
  struct gw_edt_flow *flow = bpf_map_lookup_elem(&gw_edt_flows, &key);
  if (!flow) {
    struct gw_edt_flow fresh = {};
    bpf_map_update_elem(&gw_edt_flows, &key, &fresh, BPF_NOEXIST);
    flow = bpf_map_lookup_elem(&gw_edt_flows, &key);
    if (!flow) return TC_ACT_OK;
  }

  /* The frame leaves at the latest of now, the flow's next slot and any departure time the
   * socket already gave it (TCP's own pacing, SO_TXTIME). */
  __u64 now = bpf_ktime_get_ns();
  __u64 t = flow->t_next_ns;
  if (t < now) t = now;
  if (skb->tstamp > t) t = skb->tstamp;
  __u64 ahead = t - now;
  if (cfg->horizon_ns && ahead >= cfg->horizon_ns) {
    count(GW_EDT_DROPPED_HORIZON, 1);
    return TC_ACT_SHOT;
  }
  if (cfg->ce_threshold_ns && ahead >= cfg->ce_threshold_ns) {
    if (ecn == 0) {
      count(GW_EDT_PAST_THRESHOLD, 1);
    } else if (ecn != 3) {
      if (ip4) {
        __u16 *word = (__u16 *)ip4; /* version, IHL and TOS */
        __u16 old = bpf_ntohs(*word);
        ip4->tos |= 3;
        ip4->check = bpf_htons(csum_update(bpf_ntohs(ip4->check), old, bpf_ntohs(*word)));
      } else if (ip6) {
        ((__u8 *)ip6)[1] |= 0x30; /* the traffic class's low two bits */
      }
      count(GW_EDT_CE_MARKED, 1);
    }
  }
  flow->t_next_ns = t + (__u64)skb->len * GW_NSEC_PER_SEC / rate;
  skb->tstamp = t;
  count(GW_EDT_PACED, 1);
  if (ahead > 0) count(GW_EDT_DELAYED, 1);
  return TC_ACT_OK;

not_ip:
  count(GW_EDT_NOT_IP, 1);
  return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
