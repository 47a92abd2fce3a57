#!/usr/bin/env bash
# cli.emu_queues: `gradwall emu --queues 2` on two lcores (EAL -l 0,1) with af_packet ports of
# two queue pairs each (qpairs=2: the kernel spreads frames over the two rx rings by flow hash).
# Each lcore runs both directions of one queue (lane_layout, forwarder.h), each lane its own
# engine. Profile: 2 ms each way, 1 % loss each way (per-packet stages only).
# Traffic: iperf3 TCP with 16 parallel streams (16 source ports: all on one queue by chance is
# 2 x 2^-16), a reverse run, and pings.
# Checks: stderr says which lcore runs which lane; each direction has two queues in s.json, each
# queue received frames (> 100), dropped some to loss and balances on its own; the direction's
# counters are the sum of its queues'; two lcores ran two lanes each; every mbuf is back.
# Then the refusals, exit 2 before DPDK starts: a profile with a rate (a bottleneck the queues
# would each count in full) names $.a_to_b.rate; --capture with --queues 2.
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
{"gradwall": "profile/v1", "name": "loss-2queues", "seed": 3,
 "a_to_b": {"delay": {"delay_ms": 2}, "loss": {"p": 0.01}}}
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
run ip netns exec gw-a iperf3 -c 198.18.0.2 -p 5201 -t 2 -P 16
((rc == 0)) || fail "iperf3 forward: exit $rc: $err"
grep SUM <<<"$out" | tail -n 1
run ip netns exec gw-a iperf3 -c 198.18.0.2 -p 5201 -t 2 -P 16 -R
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
lanes = [(l["lcore"], l["lanes"]) for l in s["lcores"]]
print("lcores", lanes)
if lanes != [(0, "a_to_b/q0 b_to_a/q0"), (1, "a_to_b/q1 b_to_a/q1")]:
    bad.append(f"lcores ran {lanes}")
print("\n".join(bad) if bad else "ok")
EOF
echo "$out"
[[ $(tail -n 1 <<<"$out") == ok ]] || fail "per-queue counters: $out"

# Refusals: exit 2, before DPDK starts.
cat >rate.json <<'JSON'
{"gradwall": "profile/v1", "name": "bottleneck", "a_to_b": {"rate": {"rate_gbps": 10}}}
JSON
run "$GW" emu --profile rate.json --duration 1 --queues 2 -- --no-huge -m 256 --no-pci -l 0
((rc == 2)) || fail "a rate with --queues 2: exit $rc, want 2: $err"
grep -q 'rate.json.*\$\.a_to_b\.rate' <<<"$err" || fail "the refusal does not name rate.json and \$.a_to_b.rate: $err"
run "$GW" emu --profile p.json --duration 1 --queues 2 --capture cap -- --no-huge -m 256 --no-pci -l 0
((rc == 2)) || fail "--capture with --queues 2: exit $rc, want 2: $err"
run "$GW" emu --profile p.json --duration 1 --queues 17 -- --no-huge -m 256 --no-pci -l 0
((rc == 2)) || fail "--queues 17: exit $rc, want 2: $err"

finish
