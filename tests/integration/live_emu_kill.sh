#!/usr/bin/env bash
# cli.live_emu_kill: faults of the bench itself during a live run (issue 14), each in its own run:
#  1. the emulator killed (SIGKILL) mid-run and restarted by the runner (--emu-restarts 1, the
#     default): the run goes on and finishes its ops, exits 1 (the fault fails the
#     live_processes check) and the fault names the dead emulator, signal 9, its successor and
#     when that one forwarded again; ops complete after the restart; the accounting balances
#     with the datagrams lost with the dead emulator as their own cause
#     (emu/lost_when_emulator_died, more than 0); the emulator's stats sum two lifetimes;
#  2. the emulator killed with --emu-restarts 0: gradwall run exits non-zero, still writes
#     result.json and every report; report.json's failed `live_processes` check and
#     result.json's live.faults name "emu", its pid and signal 9; the ops completed before are
#     kept with their CCTs and the run is marked not completed;
#  3. the emulator's port gw-b-emu taken down (ip link set down) for 2 s mid-run, then up: the
#     run goes on and finishes its ops (the transport retransmits once the port is back), and
#     the fault names the port, when it went down and for how long ("port gw-b-emu went down
#     ... came back up X s later", X in [1.5, 3]: the 2 s, read every 50 ms on a loaded host),
#     so its figures are not taken for a clean run;
#  the accounting balances in each (a killed emulator's datagrams as their own cause), and
#  after each, nothing is left behind (namespaces, processes, EAL folders, sockets).
# Needs root; takes /tmp/gw-bench.lock. Labels: cli;root;live.
# Usage: live_emu_kill.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/live.bash
source "$SRC/tests/integration/lib/live.bash"

# start_run OUT ITERATIONS [ARGS...]: a live run in the background (gw_pid), once its emulator
# is up (emu_pid, from the runner's own log line) and a few ops have completed.
start_run() {
  local out=$1 iterations=$2
  shift 2
  live_scenario "$TMP/$out.json" 5 200Mbit 0 262144 "$iterations" cubic
  : >"$TMP/$out.out"
  : >"$TMP/$out.err"
  "$GW" run "$TMP/$out.json" --mode live --out "$TMP/$out" "$@" >>"$TMP/$out.out" 2>>"$TMP/$out.err" &
  gw_pid=$!
  emu_pid=
  for _ in $(seq 1 300); do
    grep -q '^live: endpoint b started' "$TMP/$out.err" && emu_pid=$(sed -n 's/^live: emu started (pid \([0-9]*\)).*/\1/p' "$TMP/$out.err")
    [[ -n $emu_pid ]] && break
    sleep 0.1
  done
  if [[ -z $emu_pid ]]; then
    kill -TERM "$gw_pid" 2>/dev/null || true
    wait "$gw_pid" || true
    fail "$out: the run did not start; stderr: $(<"$TMP/$out.err")"
    return 1
  fi
  sleep 4
}

# wait_run OUT: waits for the run started by start_run; its exit code in rc.
wait_run() {
  set +e
  wait "$gw_pid"
  rc=$?
  set -e
  tail -3 "$TMP/$1.err"
}

# check_result OUT WANT_COMPLETED PY-EXPRESSION DESCRIPTION: EXPRESSION on `faults` (the
# run's live.faults), `r` (result.json) and `re` must hold.
check_result() {
  local out=$1 completed=$2 expr=$3 what=$4
  for f in result.json report.json report.html junit.xml summary.md; do
    [[ -s $TMP/$out/$f ]] || fail "$out: $f was not written"
  done
  run "$PY" - "$TMP/$out" "$completed" "$expr" <<'EOF_PY'
import json, sys
out, completed, expr = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
r = json.load(open(out + "/result.json"))
rep = json.load(open(out + "/report.json"))
bad = []
faults = r.get("live", {}).get("faults", [])
print("faults:", faults)
import re
if not eval(expr, {"faults": faults, "r": r, "re": re}):
    bad.append("live.faults %s / result.json do not satisfy %s" % (faults, expr))
checks = [c for c in rep["checks"] if c["name"] == "live_processes"]
if not checks or checks[0]["passed"]:
    bad.append("no failed live_processes check: %s" % checks)
if rep.get("verdict") != "fail":
    bad.append("verdict %r, want fail" % rep.get("verdict"))
done = [op for op in r["collectives"] if op["end_ns"] >= 0]
print("%d ops completed" % len(done))
if not done:
    bad.append("no completed op kept")
if r.get("completed", True) != completed:
    bad.append("completed is %s, want %s" % (r.get("completed"), completed))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
  echo "$out"
  ((rc == 0)) || fail "$what: $err"
}

# 1. The emulator killed and restarted: the rest of the 200 iterations finish after it.
if start_run emu-restart 200; then
  kill -KILL "$emu_pid"
  wait_run emu-restart
  ((rc == 1)) || fail "gradwall run exited $rc after the emulator was killed and restarted, want 1"
  # shellcheck disable=SC2016 # python, not shell
  check_result emu-restart 1 "$(
    cat <<EOF_EXPR
([m for m in (re.search(r'^emu \(pid $emu_pid\) was killed by signal 9 .* ([0-9.]+) s into the run; restarted \(pid [0-9]+\), forwarding again ([0-9.]+) s after it died', f) for f in faults) if m and float(m.group(2)) < 20
 and any(op["start_ns"] > float(m.group(1)) * 1e9 + float(m.group(2)) * 1e9 and op["end_ns"] >= 0 for op in r["collectives"])]
and r["accounting"]["balanced"]
and r["accounting"]["dropped"].get("emu/lost_when_emulator_died", 0) > 0
and r["accounting"]["packets_sent"] + r["accounting"]["duplicates_made"] == r["accounting"]["packets_received"] + sum(r["accounting"]["dropped"].values()) + r["accounting"]["in_flight_at_end"]
and len(r["live"]["emulator"]["stats"]["lifetimes"]) == 2
and r["live"]["emulator"]["stats"]["a_to_b"]["received"] == sum(l["a_to_b"]["received"] for l in r["live"]["emulator"]["stats"]["lifetimes"])
and [p["name"] for p in r["live"]["processes"]].count("emu") == 2)
EOF_EXPR
  )" "emulator killed and restarted"
  live_check_no_leaks "$TMP/emu-restart.json"
fi

# 2. The emulator killed, no restart: 200 iterations of ~0.1 s, far longer than the wait
# before the kill.
if start_run emu-kill 200 --emu-restarts 0; then
  kill -KILL "$emu_pid"
  wait_run emu-kill
  ((rc != 0)) || fail "gradwall run exited 0 after the emulator was killed"
  check_result emu-kill 0 "r['accounting']['balanced'] and any('emu (pid $emu_pid)' in f and 'signal 9' in f for f in faults)" "emulator killed"
  live_check_no_leaks "$TMP/emu-kill.json"
fi

# 3. A port down for 2 s, then up: the rest of the 200 iterations finish after it.
if start_run link-flap 200; then
  ip link set gw-b-emu down
  sleep 2
  ip link set gw-b-emu up
  wait_run link-flap
  ((rc == 1)) || fail "gradwall run exited $rc after a port flap, want 1 (a check failed: the fault)"
  check_result link-flap 1 \
    "r['accounting']['balanced'] and any(m and 1.5 <= float(m.group(1)) <= 3 for m in (re.search(r'^port gw-b-emu went down .* came back up ([0-9.]+) s later', f) for f in faults))" \
    "port flap"
  live_check_no_leaks "$TMP/link-flap.json"
fi
finish
