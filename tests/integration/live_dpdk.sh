#!/usr/bin/env bash
# cli.live_dpdk: `gradwall run --mode live --endpoints dpdk`: the endpoints send and receive
# their RoCEv2 frames on DPDK ports (an af_packet vdev on each namespace's veth, gw-a0 and
# gw-b0), building Ethernet/IPv4/UDP themselves. A 4-rank ring all-reduce (regions a and b of
# 2 ranks, 1 MiB, 3 iterations) over 10 ms one-way, 200 Mbit/s and "loss 0.5% ecn" (the
# emulator marks CE instead of dropping ECN-capable packets: cubic's data is ECT(0)). Checks:
#  - exit 0, every op completed, both endpoints ran with "io": "dpdk";
#  - every frame of each endpoint's port is accounted for (exact identities, dpdk_endpoint.h):
#      rx_frames = datagrams_received - local_received + arp + not_for_us + dropped_by_endpoint
#      tx_frames = datagrams_sent - local_sent - send_dropped + arp_requests_sent
#    and the port lost nothing before the endpoint read it (imissed + rx_nombuf = 0, and no
#    af_packet ring overflow: gw-X0's rx_packets - the port's rx frames = 0);
#  - the run's accounting balances with at most 64 datagrams "in flight at the end" (ACKs and
#    the last packets when the endpoints stopped; measured 0-10), and nothing vanished at the
#    sending host (no "not_transmitted": DPDK frames bypass the kernel's UDP counters);
#  - ECN round trip: the receivers counted CE on data packets (> 0), never more than the
#    emulator marked, and at least 90 % of them (the rest: marked ACKs, which the transport
#    does not count, and packets in flight at the end);
#  - the kernel did not answer the DPDK endpoints' frames: at most 64 ICMP port unreachable in
#    each capture (frames that arrived after an endpoint exited and closed the UDP socket it
#    holds). Without that socket the kernel answers them with ICMP port unreachable (rate
#    limited) and counts each in UdpNoPorts, which the runner books as dropped
#    ("after_endpoint_closed"): the accounting check above would fail too;
#  - captures on gw-a0 and gw-b0 (each sees the frames arriving from the emulator; a tap does
#    not see af_packet's own transmissions) decode as RoCEv2, every frame's IPv4 and UDP
#    checksums verified "Good" by tshark;
#  - nothing is left behind (EAL folders of the endpoints included).
# Needs root; takes /tmp/gw-bench.lock. Labels: cli;root;live.
# Usage: live_dpdk.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/live.bash
source "$SRC/tests/integration/lib/live.bash"

command -v tshark >/dev/null || {
  fail "tshark is missing (ci/setup-deps installs it)"
  finish
}
cat >"$TMP/ring.json" <<'JSON'
{
  "gradwall": "scenario/v1",
  "name": "live-dpdk-ring-2x2",
  "seed": 1,
  "topology": {
    "regions": [ {"name": "a", "hosts": 2, "nic_rate": "1Gbit"},
                 {"name": "b", "hosts": 2, "nic_rate": "1Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay 10ms rate 200Mbit loss 0.5% ecn", "limit_bytes": 16777216} ]
  },
  "workload": { "kind": "collective", "iterations": 3, "compute": "1ms", "duration": "120s",
                "collective": {"op": "all_reduce", "algorithm": "ring", "size_bytes": 1048576} },
  "transport": { "cc": "cubic", "mtu": 1400, "rto_min": "50ms" }
}
JSON

"$SRC/ci/bench-netns" up
for side in a b; do
  ip netns exec "gw-$side" tshark -i "gw-${side}0" -B 64 -w "$TMP/cap-$side.pcapng" \
    >"$TMP/tshark-$side.out" 2>"$TMP/tshark-$side.err" &
  eval "tshark_$side=$!"
done
for _ in $(seq 1 100); do
  grep -q "Capturing on" "$TMP/tshark-a.err" 2>/dev/null && grep -q "Capturing on" "$TMP/tshark-b.err" 2>/dev/null && break
  sleep 0.1
done
run "$GW" run "$TMP/ring.json" --mode live --endpoints dpdk --out "$TMP/out"
echo "$out" | tail -20
echo "$err" | tail -10
((rc == 0)) || fail "gradwall run --mode live --endpoints dpdk exited $rc (want 0); stderr: $err"
sleep 0.5
# shellcheck disable=SC2154
kill -INT "$tshark_a" "$tshark_b"
wait "$tshark_a" "$tshark_b" || true
"$SRC/ci/bench-netns" down
if compgen -G "/var/run/dpdk/gw-ep-*" >/dev/null; then
  fail "EAL runtime folders of the endpoints left behind: $(ls -d /var/run/dpdk/gw-ep-*)"
fi

run "$PY" - "$TMP/out/result.json" <<'EOF_PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
ops = r["collectives"]
if len(ops) != 3 or any(op["end_ns"] < 0 for op in ops):
    bad.append("want 3 completed ops, got %d (%s)" % (len(ops), [op["end_ns"] for op in ops]))
print("CCT ms:", " ".join("%.1f" % ((op["end_ns"] - op["start_ns"]) / 1e6) for op in ops))
ce_received = 0
for e in r["live"]["endpoints"]:
    c = e["last_stats"]["counters"]
    p = c.get("port", {})
    print("endpoint %s: %s" % (e["region"], json.dumps(c, sort_keys=True)))
    if c.get("io") != "dpdk":
        bad.append("endpoint %s ran with io %r, want dpdk" % (e["region"], c.get("io")))
        continue
    rx = c["datagrams_received"] - c["local_datagrams_received"] + p["arp_frames"] + p["frames_not_for_us"] + p["frames_dropped_by_endpoint"]
    tx = c["datagrams_sent"] - c["local_datagrams_sent"] - c["send_dropped"] + p["arp_requests_sent"]
    if rx != p["rx_frames"]:
        bad.append("endpoint %s: port rx %d frames, accounted %d" % (e["region"], p["rx_frames"], rx))
    if tx != p["tx_frames"]:
        bad.append("endpoint %s: port tx %d frames, accounted %d" % (e["region"], p["tx_frames"], tx))
    lost = p["imissed_plus_rx_nombuf"] + p["rx_ring_overflow"]
    if lost != 0:
        bad.append("endpoint %s: the port lost %d frames before the endpoint read them" % (e["region"], lost))
    for q in e["last_stats"]["qps"]:
        if not q["sending"]:
            ce_received += q["stats"]["ce_packets_received"]
a = r["accounting"]
print("accounting:", json.dumps(a))
if not a["balanced"]:
    bad.append("accounting does not balance")
if a["in_flight_at_end"] > 64:
    bad.append("%d datagrams in flight at the end (want <= 64)" % a["in_flight_at_end"])
for cause in a["dropped"]:
    if "not_transmitted" in cause:
        bad.append("dropped[%s] = %d: DPDK frames booked as lost in the kernel" % (cause, a["dropped"][cause]))
marked = sum(h["marked_ce"] for h in r["hops"]) if r.get("hops") and "marked_ce" in r["hops"][0] else None
if marked is None:
    marked = sum(d.get("marked_ce", 0) for k, d in r["live"]["emulator"]["stats"].items() if k in ("a_to_b", "b_to_a"))
print("CE: emulator marked %d, receivers counted %d" % (marked, ce_received))
if not (0 < ce_received <= marked and ce_received >= 0.9 * marked):
    bad.append("CE counted by the receivers %d vs marked by the emulator %d (want 0.9x..1x, > 0)" % (ce_received, marked))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "result.json: $err"

for side in a b; do
  cap=$TMP/cap-$side.pcapng
  total=$(tshark -r "$cap" -Y "udp.dstport == 4791 && !icmp" 2>/dev/null | wc -l)
  ib=$(tshark -r "$cap" -Y "infiniband && !icmp" 2>/dev/null | wc -l)
  goodsum=$(tshark -r "$cap" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
    -Y 'udp.dstport == 4791 && !icmp && ip.checksum.status == "Good" && udp.checksum.status == "Good"' 2>/dev/null | wc -l)
  unreach=$(tshark -r "$cap" -Y "icmp.type == 3" 2>/dev/null | wc -l)
  ce=$(tshark -r "$cap" -Y "udp.dstport == 4791 && ip.dsfield.ecn == 3" 2>/dev/null | wc -l)
  echo "capture gw-${side}0: $total datagrams to UDP 4791, $ib decoded as infiniband, $goodsum with good IPv4+UDP checksums, $ce CE-marked, $unreach ICMP unreachable"
  ((total >= 500)) || fail "capture gw-${side}0: only $total RoCEv2 datagrams (want >= 500)"
  ((ib == total)) || fail "capture gw-${side}0: $((total - ib)) datagrams did not decode as infiniband"
  ((goodsum == total)) || fail "capture gw-${side}0: $((total - goodsum)) frames without good IPv4 and UDP checksums"
  ((unreach <= 64)) || fail "capture gw-${side}0: $unreach ICMP unreachable (the kernel answered the DPDK endpoint's frames)"
done

live_check_no_leaks "$TMP/ring.json"
finish
