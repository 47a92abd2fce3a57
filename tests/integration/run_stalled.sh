#!/usr/bin/env bash
# A run whose workload never finishes keeps what it measured: swift with its datacenter
# defaults over a 60 ms RTT stalls in the first iteration (its window stays at its floor), the
# run reaches workload.duration, and the reports are written with workload_completed failed,
# the controller warning, and exit 1, not a refused result (exit 2). Before the records got an
# explicit "finished" flag, an iteration that started at t = 0 and never ended read as a
# finished iteration of length 0, and its unimpaired baseline (which stalls the same way) was
# refused by the report.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

cat > stall.json <<'JSON'
{
  "gradwall": "scenario/v1", "name": "stall", "seed": 1,
  "topology": {
    "regions": [ {"name": "a", "hosts": 2, "nic_rate": "25Gbit"},
                 {"name": "b", "hosts": 2, "nic_rate": "25Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay 30ms rate 10Gbit", "limit_bytes": 20000000} ]
  },
  "workload": {
    "kind": "collective", "iterations": 2, "duration": "5s",
    "collective": {"op": "all_reduce", "algorithm": "ring", "size_bytes": 67108864}
  },
  "transport": { "cc": "swift" }
}
JSON
run "$GW" run stall.json --out out --quiet
[[ $rc == 1 ]] || fail "a stalled run should exit 1 with its reports, got $rc: $err"
"$PY" - out <<'PY' || fail "stalled run's report"
import json, sys
r = json.load(open(f"{sys.argv[1]}/report.json"))
checks = {c["name"]: c for c in r["checks"]}
assert not checks["workload_completed"]["passed"], checks
assert any(w["kind"] == "controller" and "swift" in w["message"] for w in r["warnings"]), r["warnings"]
res = json.load(open(f"{sys.argv[1]}/result.json"))
assert all(i["end_ns"] == -1 for i in res["iterations"]), res["iterations"]   # none finished
PY
finish
