#!/usr/bin/env bash
# cli.emu_cubic_vs_sim: issue 13's reordering goal, the simulator against the kernel. netem
# "delay 25ms 1ms rate 500Mbit" (1 ms of jitter at 25 ms: netem's jitter reorders packets):
# - kernel CUBIC (iperf3 -C cubic, 10 s) from gw-a to gw-b through `gradwall emu` with that
#   netem string as its profile (`gradwall profile from-netem`), on the namespace bench;
# - `gradwall run` of one cubic flow with selective repeat over a WAN of the same netem string,
#   10 Gbit/s NICs, 10 s.
# Check: the simulator's goodput is within [0.5, 2] x the kernel's (the issue's bound: both
# must tolerate the reordering; before RACK-TLP the simulator's cubic reached 2.5 Mbit/s of
# 5 Gbit/s). The simulator must report reordering (`reordered` > 0 on its WAN hops), so the check
# is not passed on an in-order path; the emulator runs the same engine on the same profile.
# Needs root and iperf3. Labels: cli;root.
# Usage: emu_cubic_vs_sim.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

command -v iperf3 >/dev/null || {
  fail "iperf3 is not installed (ci/setup-deps installs it)"
  finish
}
NETEM="delay 25ms 1ms rate 500Mbit"

run "$GW" profile from-netem "$NETEM"
((rc == 0)) || fail "from-netem exited $rc: $err"
echo "$out" >p.json

emu_start p.json 60
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
emu_iperf_server
run ip netns exec gw-a iperf3 -c 198.18.0.2 -p 5201 -t 10 -C cubic -J
((rc == 0)) || fail "iperf3 -C cubic exited $rc: $(tail -c 2000 <<<"$out") $err"
echo "$out" >iperf.json
emu_stop
emu_check_stats s.json 1000

cat >scenario.json <<JSON
{"gradwall": "scenario/v1", "name": "cubic-reordering", "seed": 1,
 "topology": {"regions": [{"name": "a", "hosts": 1, "nic_rate": "10Gbit"},
                          {"name": "b", "hosts": 1, "nic_rate": "10Gbit"}],
              "wan": [{"between": ["a", "b"], "netem": "$NETEM"}]},
 "workload": {"kind": "flows", "duration": "10s", "flows": [{"from": "a", "to": "b"}]},
 "transport": {"cc": "cubic", "recovery": "selective_repeat", "mtu": 1500}}
JSON
run "$GW" run scenario.json --out sim --quiet
((rc == 0 || rc == 1)) || fail "gradwall run exited $rc: $err"

run "$PY" - iperf.json sim/result.json <<'EOF_PY'
import json, sys
k = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
kernel = k["end"]["sum_received"]["bits_per_second"]
sim = r["flows"][0]["goodput_bps"]
sim_reordered = sum(p["reordered"] for p in r["paths"])
ratio = sim / kernel if kernel > 0 else float("inf")
print("kernel cubic %.1f Mbit/s (%d retransmits), sim cubic %.1f Mbit/s (%d retransmits, %d spurious): "
      "sim/kernel %.2f; reordered in the simulator: %d"
      % (kernel / 1e6, k["end"]["sum_sent"]["retransmits"], sim / 1e6, r["flows"][0]["retransmits"],
         r["flows"][0]["spurious_retransmits"], ratio, sim_reordered))
bad = []
if k["end"].get("sender_tcp_congestion") != "cubic":
    bad.append("the kernel ran %s, not cubic" % k["end"].get("sender_tcp_congestion"))
if not 0.5 <= ratio <= 2:
    bad.append("sim/kernel goodput %.2f outside [0.5, 2]" % ratio)
if sim_reordered == 0:
    bad.append("the simulator saw no reordering: the comparison needs it")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "sim vs kernel: $err"
finish
