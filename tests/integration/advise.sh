#!/usr/bin/env bash
# `gradwall advise` (docs/guide/advise.md) on the 3-region ring-vs-hierarchical scenario over
# congestion controls and algorithms (18 points): advice.json is valid against its schema and
# byte-identical on a second run (same seed, same advice); every ranked change ran at the
# scenario's length and its figures are its report's; the first choice is the best ranked and
# no worse than the scenario as it is; the settings to paste (nccl.env, hints.json, k8s.yaml,
# ray_placement.py) equal the golden files in tests/golden/advise (GW_UPDATE_GOLDEN=1 rewrites
# them), the YAML parses as Indexed Jobs and the Python compiles; applied.md compares the two
# reports. Bad input exits 2 naming the option or the JSON path.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

S=$SRC/profiles/scenarios/ring-vs-hierarchical-3-regions.json
for out in a b; do
  run "$GW" advise "$S" --out $out --jobs 2 --axes cc,algorithm
  [[ $rc == 0 ]] || fail "advise ($out) exited $rc: $err"
done
cmp -s a/advice.json b/advice.json || fail "advice.json differs between two runs of the same seed"
[[ $out == *"First choice: **"* ]] || fail "no first choice on stdout: $out"
for f in advice.json summary.md advice.html nccl.env hints.json k8s.yaml ray_placement.py applied.md; do
  [[ -s a/$f ]] || fail "no a/$f"
done

"$PY" - a "$SRC" <<'PY' || fail "advice contents"
import json, sys, yaml, py_compile
import jsonschema
out, src = sys.argv[1], sys.argv[2]
a = json.load(open(f"{out}/advice.json"))
jsonschema.Draft202012Validator(json.load(open(f"{src}/reports/advice.schema.json"))).validate(a)
assert a["points_in_space"] == 18, a["points_in_space"]   # 6 controllers x 3 algorithms
assert [x["axis"] for x in a["space"]] == ["cc", "algorithm"]
assert a["simulated_runs"] <= 18 / 3, a["simulated_runs"]  # the goal: a third of the sweep or less
ranked = a["ranking"]
for e in ranked:   # each ranked change ran at full length; its figures are its report's
    m = e["measured"]
    r = json.load(open(f"{out}/{m['run']}/report.json"))
    t = r["gpu"]["totals"]
    assert abs(m["idle_ns_per_iteration"] - t["exposed_comm_ns"] / t["iterations"]) < 1, e["change"]
    assert m["verdict"] == r["verdict"]
    s = json.load(open(f"{out}/{m['run']}/scenario.json"))
    assert s["workload"]["iterations"] == 2, "a ranked run is not at the scenario's length"
idle = [e["measured"]["idle_ns_per_iteration"] for e in ranked]
assert idle == sorted(idle), idle   # all pass: ranked on idle time
assert a["first_choice"] == ranked[0]
orig = a["original"]["measured"]["idle_ns_per_iteration"]
assert idle[0] <= orig, (idle[0], orig)
# hierarchical is what the α-β model and the simulator agree on here
assert a["first_choice"]["settings"]["algorithm"] == "as the scenario says"
assert a["applied"]["original_run"] == a["original"]["measured"]["run"]
docs = list(yaml.safe_load_all(open(f"{out}/k8s.yaml")))
assert [d["kind"] for d in docs] == ["Job"] * 3, docs
assert all(d["spec"]["completionMode"] == "Indexed" and d["spec"]["completions"] == 4 for d in docs)
py_compile.compile(f"{out}/ray_placement.py", doraise=True)
h = json.load(open(f"{out}/hints.json"))
pairs = {(p["from"], p["to"]): p for p in h["region_pairs"]}
assert abs(pairs[("us-west", "eu-west")]["rtt_ms"] - 140) < 1, pairs   # 70 ms one way
assert pairs[("us-west", "eu-west")]["bandwidth_gbps"] == 10
PY

golden=$SRC/tests/golden/advise
for f in nccl.env hints.json k8s.yaml ray_placement.py; do
  if [[ ${GW_UPDATE_GOLDEN:-0} == 1 ]]; then
    mkdir -p "$golden" && cp "a/$f" "$golden/$f"
  elif ! diff -u "$golden/$f" "a/$f" >diff.txt; then
    fail "$f differs from tests/golden/advise/$f: $(head -20 diff.txt)"
  fi
done
grep -q "Applied in sim" a/applied.md || fail "applied.md has no comparison"

# k8s.yaml against the Kubernetes API's own model (python3-kubernetes, offline): each document
# deserializes as a batch/v1 Job with its required fields, Indexed, with the NCCL environment.
# Debian's interpreter: the Debian package is installed for it (ci/setup-deps).
K8SPY=/usr/bin/python3
[[ -x $K8SPY ]] || K8SPY=$PY
"$K8SPY" - a/k8s.yaml <<'PY' || fail "k8s.yaml is not a valid batch/v1 Job list"
import json, sys, yaml
from kubernetes import client
class Response:
    def __init__(self, doc):
        self.data = json.dumps(doc)
api = client.ApiClient()
for doc in yaml.safe_load_all(open(sys.argv[1])):
    job = api.deserialize(Response(doc), "V1Job")
    assert job.api_version == "batch/v1" and job.kind == "Job"
    assert job.spec.completion_mode == "Indexed" and job.spec.completions == job.spec.parallelism
    pod = job.spec.template
    assert "kueue.x-k8s.io/podset-required-topology" in pod.metadata.annotations
    env = {e.name: e.value for e in pod.spec.containers[0].env}
    assert set(env) == {"NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE"}, env
    assert job.metadata.labels["kueue.x-k8s.io/queue-name"]
PY

# Bad input: an unknown axis, a budget below one run, a workload with no iterations.
run "$GW" advise "$S" --out bad --axes cc,colour
[[ $rc == 2 && $err == *"--axes"*"colour"* ]] || fail "unknown axis: exit $rc: $err"
run "$GW" advise "$S" --out bad --budget 0.5
[[ $rc == 2 && $err == *"--budget"* ]] || fail "budget 0.5: exit $rc: $err"
cat > flows.json <<'JSON'
{"gradwall": "scenario/v1", "name": "f",
 "topology": {"regions": [{"name": "a", "hosts": 1, "nic_rate": "10Gbit"}, {"name": "b", "hosts": 1, "nic_rate": "10Gbit"}],
              "wan": [{"between": ["a", "b"], "netem": "delay 5ms rate 1Gbit"}]},
 "workload": {"kind": "flows", "duration": "1s", "flows": [{"from": "a", "to": "b"}]}}
JSON
run "$GW" advise flows.json --out bad
[[ $rc == 2 && $err == *"flows.json"*'$.workload.kind'* ]] || fail "flows scenario: exit $rc: $err"
finish
