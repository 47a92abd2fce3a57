#!/usr/bin/env bash
# cli.live_kill: a live run whose endpoint on side b is killed (SIGKILL) mid-run. Checks:
#  - gradwall run exits non-zero (1: the run's checks failed) and still writes result.json and
#    every report;
#  - report.json has a failed check `live_processes` whose reason names the process
#    ("endpoint b"), its pid and the signal; result.json's live.faults says the same;
#  - what was measured before the kill is kept: the ops that completed are in result.json
#    with their CCTs, and the run is marked not completed;
#  - nothing is left behind (namespaces, processes, EAL folders, sockets).
# Needs root; takes /tmp/gw-bench.lock. Labels: cli;root;live.
# Usage: live_kill.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/live.bash
source "$SRC/tests/integration/lib/live.bash"

# 200 iterations of ~0.1 s each: far longer than the test waits before the kill.
live_scenario "$TMP/kill.json" 5 200Mbit 0 262144 200 cubic
# The log files exist before the runner starts: the shell opens the background job's
# redirections after the fork, so the loop below could otherwise read run.err first.
: >"$TMP/run.out"
: >"$TMP/run.err"
"$GW" run "$TMP/kill.json" --mode live --out "$TMP/out" >>"$TMP/run.out" 2>>"$TMP/run.err" &
gw_pid=$!

# The pid of endpoint b, from the runner's own log line, then a few completed ops.
victim=
for _ in $(seq 1 300); do
  victim=$(sed -n 's/^live: endpoint b started (pid \([0-9]*\),.*/\1/p' "$TMP/run.err")
  [[ -n $victim ]] && break
  sleep 0.1
done
if [[ -z $victim ]]; then
  kill -TERM "$gw_pid" 2>/dev/null || true
  wait "$gw_pid" || true
  fail "no 'endpoint b started' line; stderr: $(<"$TMP/run.err")"
  finish
fi
sleep 4
kill -KILL "$victim"
set +e
wait "$gw_pid"
rc=$?
set -e
tail -5 "$TMP/run.err"
((rc != 0)) || fail "gradwall run exited 0 after an endpoint was killed"
for f in result.json report.json report.html junit.xml summary.md; do
  [[ -s $TMP/out/$f ]] || fail "$f was not written"
done

run "$PY" - "$TMP/out" "$victim" <<'EOF_PY'
import json, sys
out, victim = sys.argv[1], sys.argv[2]
r = json.load(open(out + "/result.json"))
rep = json.load(open(out + "/report.json"))
bad = []
checks = [c for c in rep["checks"] if c["name"] == "live_processes"]
if not checks:
    bad.append("report.json has no live_processes check")
else:
    c = checks[0]
    print("live_processes:", c["passed"], c["reason"])
    if c["passed"]:
        bad.append("live_processes passed")
    for want in ("endpoint b", "pid " + victim, "signal 9"):
        if want not in c["reason"]:
            bad.append("the check's reason does not say %r: %s" % (want, c["reason"]))
if rep.get("verdict") != "fail":
    bad.append("verdict %r, want fail" % rep.get("verdict"))
faults = r.get("live", {}).get("faults", [])
if not any("endpoint b" in f and "signal 9" in f for f in faults):
    bad.append("result.json live.faults does not name the killed endpoint: %s" % faults)
done = [op for op in r["collectives"] if op["end_ns"] >= 0]
print("%d ops completed before the kill" % len(done))
if not done:
    bad.append("no completed op kept")
if r.get("completed", True):
    bad.append("the run is marked completed")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "$err"

live_check_no_leaks "$TMP/kill.json"
finish
