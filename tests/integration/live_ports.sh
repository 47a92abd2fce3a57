#!/usr/bin/env bash
# cli.live_ports: `gradwall run --mode live --ports IF_A,IF_B --endpoint-netns NS_A,NS_B`: the
# emulator on two interfaces the user gives instead of the namespace bench. The test builds its
# own two-namespace bench (gwp-a, gwp-b; veths gwp-a0/gwp-a-emu, gwp-b0/gwp-b-emu;
# 198.19.0.1/2: other names and addresses than ci/bench-netns) and runs the 4-rank ring of
# cli.live_ring (1 MiB, 2 iterations, 10 ms one-way, 200 Mbit/s) through it. Checks:
#  - bad values exit 2 naming the reason: an interface that does not exist, the same one twice,
#    --ports without --endpoint-netns, a namespace that does not exist; a namespace without an
#    IPv4 address exits 3;
#  - exit 0; result.json says bench "ports" with the two ports; every op completed; the
#    emulator's two directions carried the run's datagrams (packets_in >= the datagrams the
#    sides sent each other, one way delay p50 >= the 10 ms the emulator adds), so the traffic
#    went through these ports and not around them;
#  - result.json's series has a flow per sending queue pair (4), and the two to the other side
#    show an srtt >= the 20 ms RTT the emulator adds and a rate > 0; report.html charts srtt;
#  - the namespace bench (gw-a, gw-b) was not brought up; nothing of the run is left behind.
# Needs root; takes /tmp/gw-bench.lock (the emulator's CPU, as the other live tests).
# Labels: cli;root;live.
# Usage: live_ports.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/live.bash
source "$SRC/tests/integration/lib/live.bash"

ports_down() {
  ip netns del gwp-a 2>/dev/null || true
  ip netns del gwp-b 2>/dev/null || true
  ip netns del gwp-empty 2>/dev/null || true
  ip link del gwp-a-emu 2>/dev/null || true
  ip link del gwp-b-emu 2>/dev/null || true
}
trap 'ports_down; live_cleanup' EXIT
ports_down
for side in a b; do
  [[ $side == a ]] && addr=198.19.0.1/24 || addr=198.19.0.2/24
  ip netns add "gwp-$side"
  ip link add "gwp-${side}0" type veth peer name "gwp-$side-emu"
  ip link set "gwp-${side}0" netns "gwp-$side"
  sysctl -qw "net.ipv6.conf.gwp-$side-emu.disable_ipv6=1"
  ip link set "gwp-$side-emu" up
  ip -n "gwp-$side" addr add "$addr" dev "gwp-${side}0"
  ip -n "gwp-$side" link set "gwp-${side}0" up
  ip -n "gwp-$side" link set lo up
  ip netns exec "gwp-$side" ethtool -K "gwp-${side}0" tx off >/dev/null # docs/bench-machine.md: TCP needs it
done
ip netns add gwp-empty

live_scenario "$TMP/ring.json" 10 200Mbit 0 1048576 2 cubic

expect() { # expect RC WORD ARGS...: exit code RC and WORD in stderr
  local want=$1 word=$2
  shift 2
  run "$GW" run "$TMP/ring.json" --mode live "$@" --out "$TMP/bad"
  ((rc == want)) || fail "$* exited $rc (want $want); stderr: $err"
  grep -q -- "$word" <<<"$err" || fail "$*: stderr does not say \"$word\": $err"
}
expect 2 'no interface "nosuch0"' --ports nosuch0,gwp-b-emu --endpoint-netns gwp-a,gwp-b
expect 2 'twice' --ports gwp-a-emu,gwp-a-emu --endpoint-netns gwp-a,gwp-b
expect 2 'endpoint-netns' --ports gwp-a-emu,gwp-b-emu
expect 2 'no network namespace "nosuchns"' --ports gwp-a-emu,gwp-b-emu --endpoint-netns gwp-a,nosuchns
expect 3 'gwp-empty' --ports gwp-a-emu,gwp-b-emu --endpoint-netns gwp-a,gwp-empty
[[ ! -e $TMP/bad/result.json ]] || fail "a run with bad ports wrote a result"

run "$GW" run "$TMP/ring.json" --mode live --ports gwp-a-emu,gwp-b-emu --endpoint-netns gwp-a,gwp-b --out "$TMP/out"
echo "$out" | tail -14
echo "$err" | tail -6
((rc == 0)) || fail "gradwall run --mode live --ports exited $rc (want 0); stderr: $err"
if ((LIVE_BENCH_WAS_UP == 0)) && [[ -e /run/netns/gw-a ]]; then
  fail "--ports brought the namespace bench up"
fi

run "$PY" - "$TMP/out/result.json" <<'EOF_PY'
import json, sys
r = json.load(open(sys.argv[1]))
live = r["live"]
bad = []
if live.get("bench") != "ports" or live.get("ports") != ["gwp-a-emu", "gwp-b-emu"]:
    bad.append("live.bench %r ports %r, want ports [gwp-a-emu, gwp-b-emu]" % (live.get("bench"), live.get("ports")))
if [e["netns"] for e in live["endpoints"]] != ["gwp-a", "gwp-b"] or \
        [e["address"] for e in live["endpoints"]] != ["198.19.0.1", "198.19.0.2"]:
    bad.append("endpoints %s" % [(e["netns"], e["address"]) for e in live["endpoints"]])
ops = r["collectives"]
if len(ops) != 2 or any(op["end_ns"] < op["start_ns"] for op in ops):
    bad.append("%d ops completed, want 2" % len(ops))
# Datagrams from one side to the other: every remote data packet and ACK crossed the emulator.
remote = live["one_way_delay_between_sides_ns"]
hops = {h["name"]: h for h in r["paths"]}
crossing = sum(h["packets_in"] for h in hops.values())
print("emulator: %s; remote data packets %d, one-way delay p50 %.2f ms"
      % ({k: v["packets_in"] for k, v in hops.items()}, remote["count"], remote["p50"] / 1e6))
if set(hops) != {"emu a->b", "emu b->a"} or crossing < remote["count"] or remote["count"] < 1000:
    bad.append("the emulator saw %d packets, the sides exchanged %d data packets" % (crossing, remote["count"]))
if remote["p50"] < 10e6:
    bad.append("one-way delay p50 %.2f ms < the emulator's 10 ms" % (remote["p50"] / 1e6))
# Time series (docs/guide/live.md "Time series"): a flow per sending queue pair (4 in the 2x2
# ring), each with its srtt; the ones to the other side cross the emulator's 2 x 10 ms.
# NCCL's slot-free messages have queue pairs of their own, marked "control" (4 more).
flows = [f for f in r["series"]["flows"] if not f.get("control")]
if len(r["series"]["flows"]) - len(flows) != 4:
    bad.append("series: %d control flows, want 4 (one per data connection)"
               % (len(r["series"]["flows"]) - len(flows)))
sides = [e["address"] for e in live["endpoints"]]
remote = [f for f in flows if f["peer"].split(":")[0] != sides[f["side"]]]
print("series: %d points, flows %s" % (len(r["series"]["t_ns"]),
      [(f["qp"], f["peer"], round(max(f["srtt_ns"] or [0]) / 1e6, 1)) for f in flows]))
if len(flows) != 4 or len(remote) != 2 or not r["series"]["t_ns"]:
    bad.append("series: %d flows (%d to the other side), %d points; want 4 (2), >= 1"
               % (len(flows), len(remote), len(r["series"]["t_ns"])))
for f in remote:
    if max(f["srtt_ns"] or [0]) < 20e6 or max(f["rate_bps"] or [0]) <= 0:
        bad.append("series flow %s: max srtt %.1f ms (want >= 20), max rate %s"
                   % (f["qp"], max(f["srtt_ns"] or [0]) / 1e6, max(f["rate_bps"] or [0])))
if live.get("faults"):
    bad.append("faults %s" % live["faults"])
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "result.json: $err"
grep -q 'plot-srtt' "$TMP/out/report.html" || fail "report.html has no srtt chart"

live_check_no_leaks "$TMP/ring.json"
finish
