#!/usr/bin/env bash
# cli.live_tcp_baselines: `gradwall run --mode live --baselines cubic,bbr` on the namespace
# bench: the 4-rank ring all-reduce of cli.live_ring (1 MiB, 3 iterations, 10 ms one-way,
# 200 Mbit/s) with the user-space stack, then once per kernel TCP congestion control through
# the same emulator. Checks:
#  - bad values exit 2 naming the reason, before any bench is touched: an unknown congestion
#    control, one this kernel does not have (dctcp), --max-pacing-rate without --baselines;
#  - exit 0; result.json's tcp_baselines has the user-space row and one row per baseline, whose
#    congestion control is what TCP_INFO (TCP_CONGESTION) reported for every sending socket
#    ("cubic", "bbr": a socket left on the namespace default would say so and fail);
#  - every baseline completed every op (3 of 3) and every op's CCT >= the α-β lower bound of
#    cli.live_ring (physics, whatever the transport): max(3 (d + c β), d + 6 c β) = 72.9 ms;
#  - every byte accounted for as far as TCP lets one: bytes written = bytes read, and at least
#    the collective's message bytes (3 iterations x 4 ranks x 6 steps x 256 KiB);
#  - summary.md and report.html show the comparison table; each baseline's series has a flow
#    per connection (4), the two to the other side with srtt >= the emulator's 20 ms RTT;
#  - SO_MAX_PACING_RATE: a reno baseline paced at 10 Mbit/s, once by the scenario's
#    transport.max_pacing_rate, once by --max-pacing-rate over a scenario's 1Gbit, reports
#    tcpi_max_pacing_rate = 10 Mbit/s on its sending sockets and a collective goodput (op bytes
#    x 8 / CCT) <= 10 Mbit/s: each WAN connection carries 6 x 256 KiB per op, >= 1.26 s at
#    10 Mbit/s, so <= 6.7 Mbit/s paced; unpaced it measured 52-66 Mbit/s, so a cap that is
#    not applied fails;
#  - nothing is left behind.
# Needs root; takes /tmp/gw-bench.lock. Labels: cli;root;live.
# Usage: live_tcp_baselines.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/live.bash
source "$SRC/tests/integration/lib/live.bash"

live_scenario "$TMP/ring.json" 10 200Mbit 0 1048576 3 cubic

run "$GW" run "$TMP/ring.json" --mode live --baselines cubic,nosuchcc --out "$TMP/bad"
((rc == 2)) || fail "--baselines cubic,nosuchcc exited $rc (want 2)"
grep -q 'nosuchcc' <<<"$err" || fail "--baselines nosuchcc: the reason does not name it: $err"
grep -q 'tcp_available_congestion_control' <<<"$err" || fail "--baselines nosuchcc: no list of what is available: $err"
run "$GW" run "$TMP/ring.json" --mode live --baselines dctcp --out "$TMP/bad"
((rc == 2)) || fail "--baselines dctcp (not in this kernel) exited $rc (want 2)"
run "$GW" run "$TMP/ring.json" --mode live --max-pacing-rate 40Mbit --out "$TMP/bad"
((rc == 2)) || fail "--max-pacing-rate without --baselines exited $rc (want 2)"
run "$GW" run "$TMP/ring.json" --mode live --baselines bbr --max-pacing-rate fast --out "$TMP/bad"
((rc == 2)) || fail "--max-pacing-rate fast exited $rc (want 2)"
[[ ! -e $TMP/bad/result.json ]] || fail "a run with bad options wrote a result"

run "$GW" run "$TMP/ring.json" --mode live --baselines cubic,bbr --out "$TMP/out"
echo "$out" | tail -12
echo "$err" | tail -8
((rc == 0)) || fail "gradwall run --mode live --baselines cubic,bbr exited $rc (want 0); stderr: $err"
grep -q 'Kernel TCP baselines' "$TMP/out/summary.md" || fail "summary.md has no baseline table"
grep -q 'Kernel TCP baselines' "$TMP/out/report.html" || fail "report.html has no baseline table"

run "$PY" - "$TMP/out" <<'EOF_PY'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "result.json")))
rows = r.get("tcp_baselines", [])
bad = []
if [x.get("endpoint_kind") for x in rows] != ["udp", "tcp", "tcp"]:
    bad.append("tcp_baselines rows: %s, want the user-space run and 2 baselines" % [x.get("stack") for x in rows])
d, c, beta = 10e6, 1048576 / 4, 8e9 / 200e6  # ns, bytes, ns per byte
lb = max(3 * (d + c * beta), d + 6 * c * beta)
want_bytes = 3 * 4 * 6 * 1048576 // 4
for row, cc in zip(rows[1:], ["cubic", "bbr"]):
    name = row.get("stack")
    print("%s: TCP_INFO cc %s, ops %s/%s, CCT p50 %.1f ms p99 %.1f ms, goodput %.1f Mbit/s, retransmits %s, "
          "bytes written %s read %s" % (name, row.get("congestion_control"), row.get("ops_completed"), row.get("ops"),
          row.get("cct_p50_ns", 0) / 1e6, row.get("cct_p99_ns", 0) / 1e6, row.get("goodput_bps", 0) / 1e6,
          row.get("retransmits"), row.get("bytes_written"), row.get("bytes_read")))
    if row.get("congestion_control") != [cc]:
        bad.append("%s: TCP_INFO congestion control %s, want [%r]" % (name, row.get("congestion_control"), cc))
    if row.get("ops_completed") != 3 or row.get("ops") != 3 or not row.get("completed"):
        bad.append("%s: %s of %s ops completed, want 3 of 3" % (name, row.get("ops_completed"), row.get("ops")))
    if row.get("faults"):
        bad.append("%s: faults %s" % (name, row["faults"]))
    w, rd = row.get("bytes_written", -1), row.get("bytes_read", -2)
    if w != rd or w < want_bytes:
        bad.append("%s: bytes written %s, read %s (want equal and >= %d)" % (name, w, rd, want_bytes))
    b = json.load(open(row["result_file"]))
    if b["live"]["endpoint_kind"] != "tcp":
        bad.append("%s: its result.json says endpoint_kind %s" % (name, b["live"]["endpoint_kind"]))
    # Time series from TCP_INFO: a connection per sending queue pair (4 for data, 4 for
    # NCCL's slot-free messages, marked "control"); the data ones to the other side see the
    # emulator's 2 x 10 ms in their srtt.
    sides = [e["address"] for e in b["live"]["endpoints"]]
    data = [f for f in b["series"]["flows"] if not f.get("control")]
    remote = [f for f in data if f["peer"].split(":")[0] != sides[f["side"]]]
    if len(data) != 4 or len(b["series"]["flows"]) != 8 or len(remote) != 2 or \
            any(max(f["srtt_ns"] or [0]) < 20e6 for f in remote):
        bad.append("%s: series flows %s" % (name, [(f["qp"], f["peer"], max(f["srtt_ns"] or [0])) for f in b["series"]["flows"]]))
    for op in b["collectives"]:
        cct = op["end_ns"] - op["start_ns"]
        if cct < lb:
            bad.append("%s op %d: CCT %.1f ms < the lower bound %.1f ms" % (name, op["iteration"], cct / 1e6, lb / 1e6))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "tcp_baselines: $err"

# The same cap from the scenario (transport.max_pacing_rate) and from the command line, which
# overrides the scenario's (1Gbit there: no cap at this bench's rates).
"$PY" - "$TMP/ring.json" "$TMP/ring-paced.json" 10Mbit "$TMP/ring-1g.json" 1Gbit <<'EOF_PY'
import json, sys
s = json.load(open(sys.argv[1]))
for out, rate in ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])):
    s["transport"]["max_pacing_rate"] = rate
    json.dump(s, open(out, "w"))
EOF_PY
# check_paced LABEL: the paced run in $TMP/paced.
check_paced() {
  run "$PY" - "$TMP/paced" <<'EOF_PY'
import json, os, sys
out = sys.argv[1]
row = json.load(open(os.path.join(out, "result.json")))["tcp_baselines"][1]
b = json.load(open(row["result_file"]))
bad = []
caps = [q["stats"]["tcpi_max_pacing_rate_bps"] for e in b["live"]["endpoints"]
        for q in e["last_stats"]["qps"] if q["sending"]]
print("reno paced at 10 Mbit/s: goodput %.1f Mbit/s, tcpi_max_pacing_rate %s" % (row["goodput_bps"] / 1e6, caps))
if not caps or any(c != 10000000 for c in caps):
    bad.append("tcpi_max_pacing_rate of the sending sockets %s, want 10000000 each" % caps)
if not 0 < row["goodput_bps"] <= 10e6:
    bad.append("goodput %.1f Mbit/s, want (0, 10]" % (row["goodput_bps"] / 1e6))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
  echo "$1: $out"
  ((rc == 0)) || fail "paced baseline ($1): $err"
}
run "$GW" run "$TMP/ring-paced.json" --mode live --baselines reno --out "$TMP/paced" --quiet
((rc == 0)) || fail "reno baseline paced by the scenario exited $rc (want 0); stderr: $err"
check_paced scenario
rm -rf "$TMP/paced"
run "$GW" run "$TMP/ring-1g.json" --mode live --baselines reno --max-pacing-rate 10Mbit --out "$TMP/paced" --quiet
((rc == 0)) || fail "reno baseline paced by --max-pacing-rate exited $rc (want 0); stderr: $err"
check_paced cli

live_check_no_leaks "$TMP/ring.json"
finish
