#!/usr/bin/env bash
# A sweep beyond one machine (issue 19): `--plan DIR` writes the points and a manifest with
# relative paths (a profile file the scenario names is copied in), so DIR is moved before
# anything runs; `--point DIR I` runs one point (I from the argument, JOB_COMPLETION_INDEX or
# SLURM_ARRAY_TASK_ID); `--collect DIR` merges them, and its sweep.json is byte-identical to
# a local sweep's of the same grid. A point that did not run is reported and the others are
# kept (exit 3). `--emit` writes a Kubernetes Indexed Job (checked against the API model), an
# sbatch array script and GitHub Actions matrices of at most 256 jobs.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

run "$GW" profile from-netem 'delay 5ms rate 1Gbit'
[[ $rc == 0 ]] || fail "from-netem: $err"
mkdir -p src && printf '%s\n' "$out" > src/wan.json
"$PY" - src/s.json <<'PY'
import json, sys
json.dump({"gradwall": "scenario/v1", "name": "plan-test", "seed": 1,
           "topology": {"regions": [{"name": "a", "hosts": 2, "nic_rate": "10Gbit"},
                                    {"name": "b", "hosts": 2, "nic_rate": "10Gbit"}],
                        "wan": [{"between": ["a", "b"], "profile": "wan.json"}]},
           "workload": {"kind": "collective", "iterations": 2,
                        "collective": {"op": "all_reduce", "algorithm": "ring", "size_bytes": 1048576}},
           "transport": {"cc": "cubic"},
           "thresholds": {"cct_p99_ms_max": 40}}, open(sys.argv[1], "w"))
PY
grid=(--set transport.cc=cubic,dctcp --set workload.collective.size_bytes=1048576,8388608)
run "$GW" sweep src/s.json "${grid[@]}" --out local --jobs 2
[[ $rc == 0 || $rc == 1 ]] || fail "local sweep exited $rc: $err"

run "$GW" sweep src/s.json "${grid[@]}" --plan plan --emit k8s --emit slurm --emit gha
[[ $rc == 0 && $out == *"planned 4 points"* ]] || fail "plan exited $rc: $out $err"
mv plan moved && rm -rf src   # the plan stands alone: no path back to the source folder
run "$GW" sweep --point moved 0
[[ $rc == 0 || $rc == 1 ]] || fail "point 0 exited $rc: $err"
JOB_COMPLETION_INDEX=1 run "$GW" sweep --point moved
SLURM_ARRAY_TASK_ID=2 run "$GW" sweep --point moved
run "$GW" sweep --point moved 3
run "$GW" sweep --collect moved
[[ $rc == 0 || $rc == 1 ]] || fail "collect exited $rc: $err"
cmp local/sweep.json moved/sweep.json || fail "collected sweep.json differs from the local sweep's"
[[ -s moved/sweep.html ]] || fail "no sweep.html"

# A point that has not run: reported, the others kept, exit 3.
rm moved/point-2/exit_code
run "$GW" sweep --collect moved
[[ $rc == 3 && $out == *"ERROR "* ]] || fail "a missing point: exit $rc: $out"
"$PY" - moved/sweep.json <<'PY' || fail "partial collect"
import json, sys
pts = json.load(open(sys.argv[1]))["points"]
assert [p["verdict"] == "error" for p in pts] == [False, False, True, False], pts
PY
run "$GW" sweep --point moved 4
[[ $rc == 2 && $err == *"--point"* ]] || fail "index out of range: exit $rc: $err"

# The emitted files.
grep -q -- "--array=0-3" moved/sweep.sbatch || fail "sbatch array"
K8SPY=/usr/bin/python3
[[ -x $K8SPY ]] || K8SPY=$PY
"$K8SPY" - moved/sweep-job.yaml <<'PY' || fail "sweep-job.yaml"
import json, sys, yaml
from kubernetes import client
doc = yaml.safe_load(open(sys.argv[1]))
class R:
    data = json.dumps(doc)
job = client.ApiClient().deserialize(R(), "V1Job")
assert job.spec.completion_mode == "Indexed" and job.spec.completions == 4
assert doc["spec"]["backoffLimitPerIndex"] == 1   # newer than this client's model: checked as YAML
assert job.spec.template.spec.containers[0].command[:3] == ["gradwall", "sweep", "--point"]
PY
run "$GW" sweep moved/point-0/scenario.json --set "seed=$(seq -s, 1 300)" --plan big --emit gha
[[ $rc == 0 ]] || fail "300-point plan: $err"
"$PY" - big <<'PY' || fail "gha chunks"
import json, sys
m = [json.load(open(f"{sys.argv[1]}/gha-matrix-{k}.json"))["point"] for k in (0, 1)]
assert len(m[0]) == 256 and m[1] == list(range(256, 300)), (len(m[0]), m[1][:3])
PY
finish
