#!/usr/bin/env bash
# advise when no change in its space passes (issue 17's --capacity): a small DDP job at
# 1 Gbit/s with a GPU idle limit of 0.4, searched over congestion controls only, exits 1 and
# bisects the WAN capacity. The answer is checked against the simulator, not trusted: the scenario
# scaled to the least passing factor passes when run on its own, and the factor below it in the
# ladder fails. Costs: the ranking is on $ per month (idle GPUs at the scenario's price).
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

cat > cap.json <<'JSON'
{
  "gradwall": "scenario/v1", "name": "capacity", "seed": 1,
  "topology": {
    "regions": [ {"name": "a", "hosts": 2, "nic_rate": "25Gbit"},
                 {"name": "b", "hosts": 2, "nic_rate": "25Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay 10ms rate 1Gbit", "limit_bytes": 20000000} ]
  },
  "workload": {
    "kind": "ddp", "iterations": 3, "nccl": false,
    "model": {"parameters": 5000000, "bytes_per_param": 2, "layers": 4},
    "compute": {"forward": "20ms", "backward": "40ms"}
  },
  "transport": { "cc": "cubic", "mtu": 4096 },
  "thresholds": { "gpu_idle_fraction_max": 0.4, "accounting_balanced": true },
  "cost": { "gpus": 64, "usd_per_gpu_hour": 2.5, "usd_per_gbps_month": 300 }
}
JSON
run "$GW" advise cap.json --out adv --jobs 2 --axes cc
[[ $rc == 1 ]] || fail "no change passes, yet exit $rc: $err"
[[ $out == *"Capacity (as the scenario says): passes from x"* ]] || fail "no capacity answer: $out"
"$PY" - adv "$SRC" <<'PY' || fail "capacity answer"
import json, sys
import jsonschema
out, src = sys.argv[1], sys.argv[2]
a = json.load(open(f"{out}/advice.json"))
jsonschema.Draft202012Validator(json.load(open(f"{src}/reports/advice.schema.json"))).validate(a)
assert not a["a_change_passes"]
assert a["ranked_on"] == "usd_per_month"
for e in a["ranking"]:   # 64 GPUs x $2.5 x 730 h x idle fraction
    assert abs(e["usd_per_month"]["idle_gpus"] - 64 * 2.5 * 730 * e["measured"]["gpu_idle_fraction"]) < 1e-6
c = a["capacity"][0]
f = c["least_factor"]
assert f is not None and f > 1, c
verdicts = dict((s["factor"], s["verdict"]) for s in c["steps"])
assert verdicts[f] == "pass", c
ladder = [1, 1.5, 2, 3, 4, 6, 8, 12, 16]
below = ladder[ladder.index(f) - 1]
assert verdicts.get(below) == "fail", f"the factor below {f} was not shown to fail: {c}"
assert abs(c["wan_gbps"] - f) < 1e-9, c   # one 1 Gbit/s link
print("least factor", f, "steps", c["steps"])
PY
# Run the passing capacity on its own: the netem rate is the factor's.
f=$("$PY" -c "import json; print('x%g' % json.load(open('adv/advice.json'))['capacity'][0]['least_factor'])")
grep -q "rate $("$PY" -c "import json; print('%.0f' % (json.load(open('adv/advice.json'))['capacity'][0]['least_factor'] * 1e9))")bit" \
  "adv/capacity/original/$f/scenario.json" || fail "the scaled scenario's rate is not the factor's"
run "$GW" run "adv/capacity/original/$f/scenario.json" --out again --quiet
[[ $rc == 0 ]] || fail "the least passing capacity does not pass when run again: exit $rc"
finish
