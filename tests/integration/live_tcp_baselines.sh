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
#  - --host-pacer: bad values exit 2, fq on a kernel without fq exits 3; edt-bpf at 10 Mbit/s
#    keeps the goodput within the cap and accounts for every frame its program saw;
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

# --host-pacer (docs/guide/host-pacing.md). Bad values exit 2 before any bench is touched; fq
# where the kernel has none exits 3 naming the reason.
run "$GW" run "$TMP/ring.json" --mode live --host-pacer edt-bpf --max-pacing-rate 10Mbit --out "$TMP/bad"
((rc == 2)) || fail "--host-pacer without --baselines exited $rc (want 2)"
run "$GW" run "$TMP/ring.json" --mode live --baselines reno --host-pacer edt --out "$TMP/bad"
((rc == 2)) && grep -q 'user, fq or edt-bpf' <<<"$err" || fail "--host-pacer edt exited $rc (want 2): $err"
run "$GW" run "$TMP/ring.json" --mode live --baselines reno --host-pacer edt-bpf --out "$TMP/bad"
((rc == 2)) && grep -q 'max-pacing-rate' <<<"$err" || fail "edt-bpf without a rate exited $rc (want 2): $err"
run "$GW" run "$TMP/ring.json" --mode live --baselines reno --edt-horizon 5ms --out "$TMP/bad"
((rc == 2)) || fail "--edt-horizon without --host-pacer edt-bpf exited $rc (want 2)"
run "$GW" run "$TMP/ring.json" --mode live --baselines reno --host-pacer edt-bpf --edt-horizon soon \
  --max-pacing-rate 10Mbit --out "$TMP/bad"
((rc == 2)) || fail "--edt-horizon soon exited $rc (want 2)"
if ! unshare --net tc qdisc add dev lo root fq 2>/dev/null; then
  run "$GW" run "$TMP/ring.json" --mode live --baselines reno --host-pacer fq --out "$TMP/bad"
  ((rc == 3)) && grep -q 'fq' <<<"$err" || fail "--host-pacer fq on a kernel without fq exited $rc (want 3): $err"
  echo "this kernel has no fq qdisc: --host-pacer fq is refused (exit 3); edt-bpf's departure times are not enforced"
fi
[[ ! -e $TMP/bad/result.json ]] || fail "a run with a bad --host-pacer wrote a result"

# edt-bpf: the EDT program on each side's interface gives each sending connection the 10 Mbit/s
# rate. Where fq enforces the departure times, TCP is paced; where it does not (this machine),
# frames past the 50 ms horizon are dropped at the sender, which TCP takes as local congestion
# and retries; either way the goodput stays within the cap (bytes admitted in T <= R (T +
# horizon)). Every frame the program saw is accounted for: paced + not paced (the receivers'
# ACK flows) + not IP + dropped.
rm -rf "$TMP/paced"
run "$GW" run "$TMP/ring-1g.json" --mode live --baselines reno --host-pacer edt-bpf --max-pacing-rate 10Mbit \
  --out "$TMP/paced" --quiet
((rc == 0)) || fail "reno baseline paced by edt-bpf exited $rc (want 0); stderr: $err"
run "$PY" - "$TMP/paced" <<'EOF_PY'
import json, os, sys
row = json.load(open(os.path.join(sys.argv[1], "result.json")))["tcp_baselines"][1]
b = json.load(open(row["result_file"]))
hp = b["live"]["tcp"]["host_pacer"]
bad = []
print("reno paced by edt-bpf at 10 Mbit/s: goodput %.1f Mbit/s, ops %s/%s" % (row["goodput_bps"] / 1e6,
      row.get("ops_completed"), row.get("ops")))
if hp.get("mode") != "edt-bpf" or len(hp.get("sides", [])) != 2:
    bad.append("host_pacer %s" % hp)
for side in hp.get("sides", []):
    c = side.get("counters", {})
    print("  %s: fq %s, flows %s, %s" % (side.get("interface"), side.get("fq"), side.get("flows"), c))
    if side.get("rate_bps") != 10000000 or side.get("flows", 0) < 2:
        bad.append("%s: rate %s, flows %s (want 10000000, >= 2)" % (side.get("interface"), side.get("rate_bps"), side.get("flows")))
    if c.get("paced", 0) == 0:
        bad.append("%s: no frame was paced" % side.get("interface"))
    if c.get("packets") != c.get("paced", 0) + c.get("not_paced", 0) + c.get("not_ip", 0) + c.get("dropped_horizon", 0):
        bad.append("%s: frames not accounted for: %s" % (side.get("interface"), c))
    if not side.get("fq") and "fq" not in side.get("no_fq_reason", ""):
        bad.append("%s: no fq and no reason" % side.get("interface"))
if row.get("ops_completed") != 3 or not row.get("bytes_balanced"):
    bad.append("ops %s of 3, bytes balanced %s" % (row.get("ops_completed"), row.get("bytes_balanced")))
if not 0 < row["goodput_bps"] <= 10e6:
    bad.append("goodput %.1f Mbit/s, want (0, 10]" % (row["goodput_bps"] / 1e6))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "edt-bpf baseline: $err"

live_check_no_leaks "$TMP/ring.json"
finish
