#!/usr/bin/env bash
# cli.emu_queues: `gradwall emu --queues 2` on two lcores (EAL -l 0,1) with af_packet ports of
# two queue pairs each (qpairs=2: the kernel spreads frames over the two rx rings by flow hash).
# Each lcore runs both directions of one queue (lane_layout, forwarder.h), each lane its own
# engine. Profile: 2 ms each way, 1 % loss each way (per-packet stages only), drawn per flow
# ("streams": "per_flow", flow_streams.h): the stats count the flows' entries summed over queues;
# a netem-style limit of 1000 packets a_to_b, counted over both queues (SharedHeld).
# Traffic: iperf3 TCP with 16 parallel streams (16 source ports: all on one queue by chance is
# 2 x 2^-16), a reverse run, and pings.
# Checks: stderr says which lcore runs which lane; each direction has two queues in s.json, each
# queue received frames (> 100), dropped some to loss and balances on its own; the direction's
# counters are the sum of its queues'; two lcores ran two lanes each; every mbuf is back.
# Then a shared bottleneck: 200 Mbit/s a_to_b, the two queues' engines taking turns on one link
# (emulator/engine/shared_wire.h): iperf3 -P 16 gets at most 200 Mbit/s in all (x 1.03 for
# iperf3's own interval edges), not 200 per queue, and at least half of it; both queues carried
# some of it; 25 kB microbursts every 10 ms take 20 Mbit/s of it, made by queue 0's engine only
# (~1,700 burst packets a second, not twice that). Then the refusals, exit 2 before DPDK starts: a CoDel queue (it decides at dequeue,
# which a shared link cannot) names $.a_to_b.queue.aqm; --capture with --queues 2; --queues 17;
# --layout diagonal.
# Needs root (namespaces, af_packet), iperf3; skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_queues.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

command -v iperf3 >/dev/null || {
  echo "SKIP: $NAME needs iperf3"
  exit 0
}

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "loss-2queues", "seed": 3, "streams": "per_flow",
 "a_to_b": {"delay": {"delay_ms": 2}, "loss": {"p": 0.01}, "limit_packets": 1000}}
JSON

EMU_LCORES=0,1
EMU_AF_PACKET=framecnt=4096,qpairs=2
emu_start p.json 20 --queues 2
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
want='2 queues per port; a_to_b/q0 on lcore 0, b_to_a/q0 on lcore 0, a_to_b/q1 on lcore 1, b_to_a/q1 on lcore 1'
grep -qF "$want" emu.err || fail "stderr does not say '$want': $(<emu.err)"

emu_iperf_server
ip netns exec gw-a ping -q -c 100 -i 0.01 198.18.0.2 >ping.txt 2>&1 &
ping_pid=$!
emu_iperf -t 2 -P 16
((rc == 0)) || fail "iperf3 forward: exit $rc: $err"
grep SUM <<<"$out" | tail -n 1
emu_iperf -t 2 -P 16 -R
((rc == 0)) || fail "iperf3 reverse: exit $rc: $err"
grep SUM <<<"$out" | tail -n 1
wait "$ping_pid" || true
tail -n 2 ping.txt

emu_stop
emu_check_stats s.json 1000
run "$PY" - s.json <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
bad = []
for d in ("a_to_b", "b_to_a"):
    qs = s[d]["queues"]
    print(d, [(q["queue"], q["lcore"], q["received"], q["sent"], q["dropped"]) for q in qs])
    if [q["queue"] for q in qs] != [0, 1]:
        bad.append(f"{d}: queues {[q['queue'] for q in qs]}, want [0, 1]")
        continue
    if [q["lcore"] for q in qs] != [0, 1]:
        bad.append(f"{d}: lcores {[q['lcore'] for q in qs]}, want [0, 1]")
    for q in qs:
        if q["received"] <= 100:
            bad.append(f"{d} queue {q['queue']}: received {q['received']}, want > 100 (flows on both queues)")
        if not q["balanced"]:
            bad.append(f"{d} queue {q['queue']}: not balanced")
    for k in ("received", "sent", "dropped", "held", "duplicates"):
        total = s[d]["dropped_total"] if k == "dropped" else s[d][k]
        if sum(q[k] for q in qs) != total:
            bad.append(f"{d}: {k} summed over queues {sum(q[k] for q in qs)} != direction's {total}")
    if d == "a_to_b" and any(q["dropped"] == 0 for q in qs):
        bad.append(f"a_to_b: a queue dropped nothing at 1 % loss")
    c = s[d]["classes"]["default"]
    print(d, "flows", c["flows"], "flow_table_misses", c["flow_table_misses"])
    if c["flows"] < 17 or c["flow_table_misses"] != 0:
        bad.append(f"{d}: per-flow streams kept {c['flows']} flows (want >= 17: 16 iperf3 streams and "
                   f"its control connection) with {c['flow_table_misses']} misses (want 0)")
lanes = [(l["lcore"], l["lanes"]) for l in s["lcores"]]
print("lcores", lanes)
if lanes != [(0, "a_to_b/q0 b_to_a/q0"), (1, "a_to_b/q1 b_to_a/q1")]:
    bad.append(f"lcores ran {lanes}")
print("\n".join(bad) if bad else "ok")
EOF
echo "$out"
[[ $(tail -n 1 <<<"$out") == ok ]] || fail "per-queue counters: $out"

# A shared bottleneck, with microbursts: 25 kB every 10 ms (20 Mbit/s of cross traffic, made
# once by queue 0's engine).
cat >rate.json <<'JSON'
{"gradwall": "profile/v1", "name": "shared-200m", "seed": 3,
 "a_to_b": {"rate": {"rate_mbps": 200}, "queue": {"limit_bytes": 500000}, "delay": {"delay_ms": 2},
            "microbursts": [{"period_ms": 10, "burst_bytes": 25000}]},
 "b_to_a": {"delay": {"delay_ms": 2}}}
JSON
# iperf3 -P 16 for $1 s through rate.json's shared link, over two queues laid out $2: within the
# bound or a failure.
shared_link_iperf() {
  emu_iperf -t "$1" -P 16 -J
  ((rc == 0)) || fail "iperf3 through the shared 200 Mbit/s ($2): exit $rc: $err"
  mbps=$("$PY" -c 'import json,sys; print("%.1f" % (json.loads(sys.stdin.read())["end"]["sum_received"]["bits_per_second"] / 1e6))' <<<"$out")
  echo "16 streams over two queues ($2) through a shared 200 Mbit/s: $mbps Mbit/s"
  # The bursts take 20 of the 200 Mbit/s: at most 180 x 1.03 (iperf3's interval edges) is left.
  "$PY" -c "import sys; sys.exit(0 if 100 <= $mbps <= 186 else 1)" ||
    fail "$2: want 100-186 Mbit/s through one shared 200 Mbit/s link with 20 Mbit/s of bursts, got $mbps" \
      "(two unshared links would pass up to 400)"
}
emu_start rate.json 20 --queues 2
if ! emu_wait_forwarding; then
  fail "gradwall emu (rate.json) did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
shared_link_iperf 3 "by queue"
emu_stop
emu_check_stats s.json 1000
run "$PY" -c 'import json; s=json.load(open("s.json")); print(*(q["sent"] for q in s["a_to_b"]["queues"]))'
echo "a_to_b sent per queue: $out"
read -r q0 q1 <<<"$out"
((q0 > 100 && q1 > 100)) || fail "want both queues to carry the shared link's traffic, got $out"
run "$PY" -c 'import json; s=json.load(open("s.json")); print(s["a_to_b"]["classes"]["default"]["cross_traffic_packets"], s["seconds"])'
echo "a_to_b microburst packets, seconds: $out"
read -r cross secs <<<"$out"
# 17 packets (16 x 1500 + 1000 bytes) per 10 ms burst, made by queue 0's engine only: ~1,700 a
# second of the run (and its drain); both queues making them would be twice that.
"$PY" -c "import sys; sys.exit(0 if 0.8 * 1700 * $secs <= $cross <= 1.1 * 1700 * $secs + 17 else 1)" ||
  fail "microbursts: $cross packets in $secs s, want ~1,700 a second (made once, by queue 0)"

# By direction: lcore 0 runs a_to_b's two queues, lcore 1 b_to_a's, through the same shared link.
emu_start rate.json 20 --queues 2 --layout directions
if ! emu_wait_forwarding; then
  fail "gradwall emu --layout directions did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
want='2 queues per port; a_to_b/q0 on lcore 0, b_to_a/q0 on lcore 1, a_to_b/q1 on lcore 0, b_to_a/q1 on lcore 1'
grep -qF "$want" emu.err || fail "--layout directions: stderr does not say '$want': $(<emu.err)"
shared_link_iperf 2 "by direction"
emu_stop
emu_check_stats s.json 1000
run "$PY" -c 'import json; s=json.load(open("s.json")); print(*(l["lcore"] for l in s["lcores"]), "/", *(l["lanes"] for l in s["lcores"]))'
[[ $out == "0 1 / a_to_b/q0 a_to_b/q1 b_to_a/q0 b_to_a/q1" ]] || fail "--layout directions: lcores ran $out"

# Refusals: exit 2, before DPDK starts.
cat >codel.json <<'JSON'
{"gradwall": "profile/v1", "name": "codel", "a_to_b": {"rate": {"rate_gbps": 10}, "queue": {"aqm": {"kind": "codel"}}}}
JSON
run "$GW" emu --profile codel.json --duration 1 --queues 2 -- --no-huge -m 256 --no-pci -l 0
((rc == 2)) || fail "CoDel with --queues 2: exit $rc, want 2: $err"
grep -q 'codel.json.*\$\.a_to_b\.queue\.aqm' <<<"$err" || fail "the refusal does not name codel.json and \$.a_to_b.queue.aqm: $err"
run "$GW" emu --profile p.json --duration 1 --queues 2 --capture cap -- --no-huge -m 256 --no-pci -l 0
((rc == 2)) || fail "--capture with --queues 2: exit $rc, want 2: $err"
run "$GW" emu --profile p.json --duration 1 --queues 17 -- --no-huge -m 256 --no-pci -l 0
((rc == 2)) || fail "--queues 17: exit $rc, want 2: $err"
run "$GW" emu --profile p.json --duration 1 --queues 2 --layout diagonal -- --no-huge -m 256 --no-pci -l 0
((rc == 2)) && grep -q -- '--layout' <<<"$err" || fail "--layout diagonal: exit $rc, want 2 naming --layout: $err"

finish
