#!/usr/bin/env bash
# `gradwall sweep`: a 2 x 2 grid (congestion control x WAN delay) runs every point as its own
# `gradwall run`, writes sweep.json with one entry per point and the comparison HTML; a bad key
# exits 2 before anything runs.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

"$PY" - s.json <<'PY'
import json, sys
json.dump({"gradwall": "scenario/v1", "name": "sweep-test", "seed": 1,
           "topology": {"regions": [{"name": "a", "hosts": 2, "nic_rate": "10Gbit"},
                                    {"name": "b", "hosts": 2, "nic_rate": "10Gbit"}],
                        "wan": [{"between": ["a", "b"], "netem": "delay 5ms rate 10Gbit",
                                 "limit_bytes": 67108864}]},
           "workload": {"kind": "collective", "iterations": 2,
                        "collective": {"op": "all_reduce", "algorithm": "ring", "size_bytes": 1048576}},
           "transport": {"cc": "cubic"},
           "thresholds": {"cct_p99_ms_max": 60}}, open(sys.argv[1], "w"))
PY
run "$GW" sweep s.json --set transport.cc=cubic,dctcp --set 'topology.wan.0.netem=delay 5ms rate 10Gbit,delay 40ms rate 10Gbit' --out sw --jobs 2
# The 40 ms points exceed the 60 ms p99 CCT limit (a 1 MiB ring all-reduce over 4 ranks
# crosses the WAN at least twice), so the sweep reports a failed check: exit 1.
[[ $rc == 1 ]] || fail "sweep exited $rc: $out $err"
"$PY" - sw/sweep.json <<'PY' || fail "sweep.json"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert len(pts) == 4, pts
assert sorted(p["verdict"] for p in pts) == ["fail", "fail", "pass", "pass"], pts
assert all(p["exit_code"] in (0, 1) for p in pts)
assert any("transport.cc=dctcp" in p["label"] and "40ms" in p["label"] for p in pts)
PY
grep -q "<svg" sw/sweep.html || fail "sweep.html has no charts"
[[ -s sw/point-3/report.json ]] || fail "point-3 has no report"

run "$GW" sweep s.json --set transport.nope.cc=a,b --out bad
[[ $rc == 2 && $err == *"no \"nope\""* ]] || fail "bad key: exit $rc: $err"
run "$GW" sweep s.json --set transport.cc=cubic,renoo --out bad2
[[ $rc == 2 && $err == *"unknown congestion control 'renoo'"* ]] || fail "bad value: exit $rc: $err"
finish
