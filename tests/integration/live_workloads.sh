#!/usr/bin/env bash
# cli.live_workloads: live mode runs the workloads that are not collectives (harness/live/live_flows.h),
# on the namespace bench with a lossless 10 ms / 200 Mbit/s WAN in `gradwall emu`:
#  - "flows", --mode both: two bulk flows a -> b and a 4 MiB flow b -> a from 1 s, 5 s. The live
#    flows table has the three, with the transport's cc; the bulk flows share the bottleneck
#    (together >= 0.6 x 200 Mbit/s of payload: cubic with a 4 MiB buffer keeps the link busy;
#    measured 0.92; and no more than the link); the finite flow completes no sooner than its
#    bytes at 200 Mbit/s after one one-way delay; the agreement report compares the flows'
#    goodput, live / sim within [0.7, 1.3] (lossless, both fill the link: measured 0.99; the
#    margin is for a bench shared with a build);
#  - one bulk flow with --baselines cubic: the kernel TCP connection carries the flow (goodput
#    >= 0.5 x the link) and its check passes though bytes are in flight when the run ends;
#  - "pipeline" (4 stages over 2 x 2 ranks, 4 micro-batches, 3 iterations) with a microburst
#    beside it: every point-to-point transfer arrives (72 = 3 boundaries x 4 micro-batches x 2
#    directions x 3 iterations), every iteration ends, and the microburst's goodput is its
#    64 KiB per 10 ms (52.4 Mbit/s) within 10 %;
#  - two bulk flows, one with a congestion control of its own (bbr beside the transport's
#    cubic): the endpoint opens each QP with its flow's controller and the result says so (the
#    controller's name as the endpoint reports it); each delivers >= 1 MB (how they share the
#    link is not the point: cubic fills the 4 MiB buffer, and bbr got 7 Mbit/s beside cubic's
#    170 in one 2 s run).
# Needs root; takes /tmp/gw-bench.lock. Labels: cli;root;live.
# Usage: live_workloads.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/live.bash
source "$SRC/tests/integration/lib/live.bash"

topology='"topology": {
    "regions": [ {"name": "a", "hosts": 2, "nic_rate": "1Gbit"},
                 {"name": "b", "hosts": 2, "nic_rate": "1Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay 10ms rate 200Mbit", "limit_bytes": 4194304} ]
  },
  "transport": { "cc": "cubic", "mtu": 1400, "rto_min": "50ms" }'

cat >"$TMP/flows.json" <<JSON
{ "gradwall": "scenario/v1", "name": "live-flows", "seed": 1, $topology,
  "workload": { "kind": "flows", "duration": "5s",
                "flows": [ {"from": "a", "to": "b", "count": 2},
                           {"from": "b", "to": "a", "size": "4MiB", "start": "1s"} ] } }
JSON
run "$GW" run "$TMP/flows.json" --mode both --out "$TMP/flows"
echo "$out" | head -5
((rc == 0)) || fail "flows --mode both exited $rc (want 0); stderr: $(echo "$err" | tail -5)"
run "$PY" - "$TMP/flows" <<'EOF_PY'
import json, sys
out = sys.argv[1]
live = json.load(open(out + "/live/result.json"))
agreement = json.load(open(out + "/agreement.json"))
bad = []
flows = live["flows"]
if live.get("mode") != "live" or len(flows) != 3:
    bad.append("mode %r with %d flows, want live with 3" % (live.get("mode"), len(flows)))
else:
    link = 200e6
    bulk = flows[0]["goodput_bps"] + flows[1]["goodput_bps"]
    print("bulk %.1f + %.1f Mbit/s; finite %.1f Mbit/s in %s ns; agreement goodput %s" % (
        flows[0]["goodput_bps"] / 1e6, flows[1]["goodput_bps"] / 1e6, flows[2]["goodput_bps"] / 1e6,
        flows[2]["completion_ns"], agreement["ratio"]["goodput"]))
    if not 0.6 * link <= bulk <= 1.01 * link:
        bad.append("bulk flows together %.1f Mbit/s, want 120-202" % (bulk / 1e6))
    if any(f["cc"] != "cubic" for f in flows):
        bad.append("cc %s, want cubic" % [f["cc"] for f in flows])
    lower = 4 * 2**20 * 8 / link * 1e9 + 10e6
    c = flows[2]["completion_ns"]
    if c is None or c < lower:
        bad.append("the 4 MiB flow's completion %s ns, want >= %.0f" % (c, lower))
    if flows[2]["bytes_delivered"] != 4 * 2**20:
        bad.append("the 4 MiB flow delivered %d bytes" % flows[2]["bytes_delivered"])
ratio = agreement["ratio"]["goodput"]
if ratio is None or not 0.7 <= ratio <= 1.3:
    bad.append("agreement goodput live/sim %s, want [0.7, 1.3]" % ratio)
if not live["accounting"]["balanced"]:
    bad.append("accounting not balanced: %s" % live["accounting"])
if bad:
    print("\n".join(bad))
    sys.exit(1)
EOF_PY
((rc == 0)) || fail "flows: $out"
echo "$out"

cat >"$TMP/bulk.json" <<JSON
{ "gradwall": "scenario/v1", "name": "live-bulk", "seed": 1, $topology,
  "workload": { "kind": "flows", "duration": "3s", "flows": [ {"from": "a", "to": "b"} ] } }
JSON
run "$GW" run "$TMP/bulk.json" --mode live --baselines cubic --out "$TMP/bulk"
((rc == 0)) || fail "bulk --baselines cubic exited $rc (want 0); stdout: $(echo "$out" | tail -12)"
run "$PY" - "$TMP/bulk" <<'EOF_PY'
import json, sys
out = sys.argv[1]
tcp = json.load(open(out + "/baseline-tcp-cubic/result.json"))
f = tcp["flows"]
print("kernel cubic: %s" % [(x["cc"], round(x["goodput_bps"] / 1e6, 1)) for x in f])
if len(f) != 1 or f[0]["cc"] != "cubic" or f[0]["goodput_bps"] < 0.5 * 200e6:
    print("want one kernel cubic flow of >= 100 Mbit/s")
    sys.exit(1)
EOF_PY
((rc == 0)) || fail "bulk baseline: $out"
echo "$out"

cat >"$TMP/pipe.json" <<JSON
{ "gradwall": "scenario/v1", "name": "live-pipeline", "seed": 1, $topology,
  "workload": { "kind": "pipeline", "iterations": 3, "micro_batches": 4, "duration": "60s",
                "model": {"parameters": 100000000, "layers": 8, "hidden": 1024, "tokens_per_iteration": 2048},
                "compute": {"forward": "8ms", "backward": "16ms"} },
  "background": [ {"class": "microburst", "from": "a", "to": "b", "size_bytes": 65536, "period": "10ms"} ] }
JSON
run "$GW" run "$TMP/pipe.json" --mode live --out "$TMP/pipe"
((rc == 0)) || fail "pipeline live exited $rc (want 0); stderr: $(echo "$err" | tail -5)"
run "$PY" - "$TMP/pipe" <<'EOF_PY'
import json, sys
r = json.load(open(sys.argv[1] + "/result.json"))
bad = []
t = r.get("transfers", [])
if not r["completed"] or len(t) != 72 or any(x["end_ns"] <= x["start_ns"] for x in t):
    bad.append("completed %s, %d transfers (want 72, all arrived)" % (r["completed"], len(t)))
if len(r["iterations"]) != 3 or any(i["end_ns"] < i["start_ns"] for i in r["iterations"]):
    bad.append("iterations: %s" % r["iterations"])
burst = [f for f in r["flows"] if f.get("class") == "microburst"]
want = 65536 * 8 / 10e-3
if len(burst) != 1 or abs(burst[0]["goodput_bps"] - want) > 0.1 * want:
    bad.append("microburst flow %s, want one of %.1f Mbit/s +- 10 %%" % (burst, want / 1e6))
else:
    print("microburst %.1f Mbit/s; iterations %s ms" % (burst[0]["goodput_bps"] / 1e6,
          [(i["end_ns"] - i["start_ns"]) // 10**6 for i in r["iterations"]]))
if bad:
    print("\n".join(bad))
    sys.exit(1)
EOF_PY
((rc == 0)) || fail "pipeline: $out"
echo "$out"

cat >"$TMP/own-cc.json" <<JSON
{ "gradwall": "scenario/v1", "name": "live-own-cc", "seed": 1, $topology,
  "workload": { "kind": "flows", "duration": "2s",
                "flows": [ {"from": "a", "to": "b"}, {"from": "a", "to": "b", "cc": "bbr"} ] } }
JSON
run "$GW" run "$TMP/own-cc.json" --mode live --out "$TMP/own-cc"
((rc == 0)) || fail "flows with their own cc: exit $rc, want 0; stderr: $(echo "$err" | tail -5)"
run "$PY" - "$TMP/own-cc" <<'EOF_PY'
import json, sys
r = json.load(open(sys.argv[1] + "/result.json"))
f = r["flows"]
print("own cc: %s" % [(x["cc"], round(x["goodput_bps"] / 1e6, 1)) for x in f])
if [x["cc"] for x in f] != ["cubic", "bbr"] or any(x["bytes_delivered"] < 1e6 for x in f):
    print("want a cubic and a bbr flow (as the endpoint ran them), each >= 1 MB delivered")
    sys.exit(1)
EOF_PY
((rc == 0)) || fail "own cc: $out"
echo "$out"

live_check_no_leaks "$TMP/flows.json"
echo "PASS: $NAME"
