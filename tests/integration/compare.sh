#!/usr/bin/env bash
# `gradwall compare`: a run against itself has no regression (exit 0); a run over a WAN with
# 3x the delay is flagged as a CCT regression at 10 % (exit 1) and the table names the metric;
# results and reports are both accepted; bad input exits 2.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

write_scenario() {  # write_scenario FILE DELAY
  "$PY" - "$1" "$2" <<'PY'
import json, sys
json.dump({"gradwall": "scenario/v1", "name": "compare-test", "seed": 1,
           "topology": {"regions": [{"name": "a", "hosts": 2, "nic_rate": "10Gbit"},
                                    {"name": "b", "hosts": 2, "nic_rate": "10Gbit"}],
                        "wan": [{"between": ["a", "b"], "netem": f"delay {sys.argv[2]} rate 10Gbit",
                                 "limit_bytes": 67108864}]},
           "workload": {"kind": "collective", "iterations": 2,
                        "collective": {"op": "all_reduce", "algorithm": "ring", "size_bytes": 4194304}},
           "transport": {"cc": "cubic"}}, open(sys.argv[1], "w"))
PY
}
write_scenario base.json 5ms
write_scenario slow.json 15ms
run "$GW" run base.json --out base --quiet
[[ $rc == 0 ]] || fail "base run exited $rc: $err"
run "$GW" run slow.json --out slow --quiet
[[ $rc == 0 ]] || fail "slow run exited $rc: $err"

run "$GW" compare base/report.json base/result.json
[[ $rc == 0 ]] || fail "a run against itself: exit $rc: $out $err"
[[ $out == *"no regression"* ]] || fail "self comparison: $out"

run "$GW" compare base/report.json slow/report.json --tolerance 10
[[ $rc == 1 ]] || fail "3x delay not flagged: exit $rc: $out"
[[ $out == *"cct_p50_ns[all_reduce/ring/4194304/4]"* ]] || fail "table lacks the CCT metric: $out"

run "$GW" compare base/report.json slow/report.json --json
"$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["any_regression"] is True' "$out" ||
  fail "--json: $out"

run "$GW" compare base/report.json
[[ $rc == 2 ]] || fail "one file: exit $rc, want 2"
echo '{"gradwall": "profile/v1"}' >p.json
run "$GW" compare p.json base/report.json
[[ $rc == 2 && $err == *"p.json: \$.gradwall: expected a report"* ]] || fail "a profile: exit $rc: $err"
# A gate that cannot be fooled (issue 14): an op kind missing in NEW is a regression; wrongly
# typed or impossible fields and a report with nothing to compare are bad input (exit 2,
# file and JSON path), never an internal error.
# edit IN OUT PYTHON-STATEMENT: OUT is IN's report with the statement applied to `d`.
edit() {
  "$PY" - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
edit base/report.json no-ops.json 'd["collectives"]["ops"] = []'
run "$GW" compare base/report.json no-ops.json
[[ $rc == 1 && $out == *"missing in new"* ]] || fail "ops removed in NEW passed the gate: exit $rc: $out"
run "$GW" compare no-ops.json base/report.json
[[ $rc == 0 ]] || fail "ops added in NEW: exit $rc: $out"
# bad NAME 'STATEMENT' 'EXPECTED STDERR (glob)'
bad() {
  edit base/report.json "$1.json" "$2"
  run "$GW" compare base/report.json "$1.json"
  [[ $rc == 2 && $err == $3 ]] || fail "$1: expected exit 2 and [$3], got exit $rc, stderr [$err]"
}
bad key-number 'd["collectives"]["ops"][0]["key"] = 5' '*$.collectives.ops?0?.key: must be a string, got 5'
bad cct-negative 'd["collectives"]["ops"][0]["cct_ns"]["p99"] = -1' '*$.collectives.ops?0?.cct_ns.p99: must be in *'
bad idle-150 'd["gpu"]["totals"]["gpu_idle_fraction"] = 1.5' '*$.gpu.totals.gpu_idle_fraction: must be in [[]0, 1], got 1.5'
bad slowdown-negative 'd["gpu"]["slowdown_vs_ideal"] = -7' '*$.gpu.slowdown_vs_ideal: must be in *'
bad minimal 'd = {"gradwall": "report/v1"}' '*: $: no collectives, gpu or flows section*'
bad flow-from-number 'd["flows"]["flows"] = [{"id": 0, "from": 5, "to": "b", "goodput_bps": 1}]' '*$.flows.flows?0?.from: must be a string, got 5'
bad flow-id-null 'd["flows"]["flows"] = [{"id": None, "from": "a", "to": "b", "goodput_bps": 1}]' '*$.flows.flows?0?.id: must be *'

finish
