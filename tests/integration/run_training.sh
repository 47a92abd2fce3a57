#!/usr/bin/env bash
# `gradwall run` with the moe, pipeline and hybrid workload kinds and background traffic: a
# small pipeline job with a microburst beside it runs, result.json carries the point-to-point
# transfers and the background per class, the reports are written and valid; a bad moe
# scenario exits 2 naming the file, the JSON path and the reason; the shipped hybrid scenario
# runs its three kinds of traffic and prices the simulated GPUs.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

cat > pipe.json <<'JSON'
{
  "gradwall": "scenario/v1",
  "name": "pipeline-small",
  "topology": {
    "regions": [ {"name": "a", "hosts": 2, "nic_rate": "100Gbit"},
                 {"name": "b", "hosts": 2, "nic_rate": "100Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay 1ms rate 10Gbit", "limit_bytes": 10000000} ]
  },
  "workload": {
    "kind": "pipeline", "iterations": 2, "micro_batches": 4, "schedule": "gpipe",
    "model": {"parameters": 1000000000, "layers": 8, "hidden": 1024, "tokens_per_iteration": 2048},
    "compute": {"forward": "8ms", "backward": "16ms"}
  },
  "background": [ {"class": "microburst", "from": "a", "to": "b", "size_bytes": 131072, "period": "1ms"} ],
  "transport": { "cc": "dctcp" }
}
JSON
run "$GW" run pipe.json --out out
[[ $rc == 0 ]] || fail "exit $rc: $err"
for f in result.json report.json summary.md; do
  [[ -s out/$f ]] || fail "no out/$f"
done
"$PY" - out "$SRC" <<'PY' || fail "result contents"
import json, sys
import jsonschema
out, src = sys.argv[1], sys.argv[2]
result = json.load(open(f"{out}/result.json"))
report = json.load(open(f"{out}/report.json"))
jsonschema.Draft202012Validator(json.load(open(f"{src}/reports/report.schema.json"))).validate(report)
assert result["completed"]
# 3 stage boundaries x 4 micro-batches x (activations + gradients) x 2 iterations
t = result["transfers"]
assert len(t) == 48, len(t)
assert all(x["end_ns"] > x["start_ns"] and x["bytes"] == 2048 // 4 * 1024 * 2 for x in t)
for i in result["iterations"]:
    # each stage computes 4 micro-batches x (8 + 16 ms) / 16 = 6 ms
    assert i["compute_ns"] == 6_000_000, i
    # (M + S - 1)(f + b) = 7 x 1.5 ms, plus the transfers on the critical path
    assert i["end_ns"] - i["start_ns"] >= 10_500_000, i
bg = result["background"]
assert [b["class"] for b in bg] == ["microburst"] and bg[0]["bytes_delivered"] > 0, bg
# The microburst flow, then the pipeline's queue pairs between the regions.
classes = [f.get("class") for f in result["flows"]]
assert classes[0] == "microburst" and len(classes) > 1 and set(classes[1:]) == {"collective"}, classes
PY

# A bad moe scenario: exit 2 with file, JSON path and reason.
"$PY" - <<'PY'
import json
s = json.load(open("pipe.json"))
s["workload"] = {"kind": "moe", "model": {"parameters": 1e9, "hidden": 1024, "tokens_per_iteration": 1024},
                 "compute": {"forward": "1ms", "backward": "2ms"}, "algorithm": "ring"}
json.dump(s, open("bad.json", "w"))
PY
run "$GW" run bad.json --out bad
[[ $rc == 2 ]] || fail "bad moe scenario: exit $rc, want 2"
[[ $err == *'bad.json: $.workload.algorithm: moe sends all-to-all'* ]] || fail "message: $err"

# The shipped hybrid scenario (TP x PP x DP with stragglers): TP all-reduces on GPU pairs inside
# a region, pipeline transfers between stages, DP all-reduces across; priced for the 8 simulated
# GPUs, which the report says.
run "$GW" run "$SRC/profiles/scenarios/hybrid-3d-cross-region.json" --out hybrid
[[ $rc == 0 || $rc == 1 ]] || fail "hybrid scenario: exit $rc: $err"
"$PY" - hybrid "$SRC" <<'PY' || fail "hybrid result contents"
import json, sys
import jsonschema
out, src = sys.argv[1], sys.argv[2]
result = json.load(open(f"{out}/result.json"))
report = json.load(open(f"{out}/report.json"))
jsonschema.Draft202012Validator(json.load(open(f"{src}/reports/report.schema.json"))).validate(report)
assert result["completed"]
c = result["collectives"]
tp = [x for x in c if x["name"].startswith("tp_ar")]
dp = [x for x in c if x["name"].startswith("dp_ar")]
assert len(tp) + len(dp) == len(c) and tp and dp, len(c)
assert all(x["ranks"] == 2 for x in c)
# 2 iterations x 2 replicas x 1 stage boundary x 4 micro-batches x 2 tensor ranks x 2 ways
assert len(result["transfers"]) == 2 * 2 * 4 * 2 * 2, len(result["transfers"])
cost = report["gpu"]["cost"]
assert cost["gpus"] == 8 and cost["simulated_ranks"] == 8 and cost["basis"] == "simulated", cost
PY
grep -q "idle cost (8 simulated GPUs" hybrid/summary.md || fail "summary cost line: $(grep 'idle cost' hybrid/summary.md)"
finish
