#!/usr/bin/env bash
# Every shipped profile and scenario validates against its schema in profiles/schema/ (the
# schemas an editor uses), and the schemas reject what the loaders reject for common mistakes.
set -euo pipefail
gradwall="$1"
src="$2"
py=/usr/bin/python3   # Debian's, with python3-jsonschema (ci/setup-deps)
"$py" - "$src" <<'PY'
import glob, json, sys
import jsonschema
src = sys.argv[1]
schema = json.load(open(f"{src}/profiles/schema/profile.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
files = sorted(glob.glob(f"{src}/profiles/wan/*.json"))
assert len(files) >= 7, files
for f in files:
    errors = list(v.iter_errors(json.load(open(f))))
    if errors:
        sys.exit(f"{f}: schema errors: {[e.message for e in errors]}")
bad = [
    {"gradwall": "profile/v1", "a_to_b": {"loss": {"p": 1.5}}},
    {"gradwall": "profile/v1", "a_to_b": {"dealy": {}}},
    {"gradwall": "profile/v2"},
    {"gradwall": "profile/v1", "a_to_b": {"queue": {"aqm": {"kind": "blue"}}}},
    {"gradwall": "profile/v1", "streams": "per_packet"},
]
for doc in bad:
    if v.is_valid(doc):
        sys.exit(f"schema accepted a bad profile: {doc}")
good = [
    {"gradwall": "profile/v1", "streams": "per_flow"},
    {"gradwall": "profile/v1", "seed_b_to_a": 3, "streams": {"per": "flow", "max_flows": 1000, "idle_s": 5}},
]
for doc in good:
    errors = list(v.iter_errors(doc))
    if errors:
        sys.exit(f"schema refused a good profile {doc}: {[e.message for e in errors]}")
print(f"{len(files)} profiles valid against the schema; {len(bad)} bad ones rejected")

scenario_schema = json.load(open(f"{src}/profiles/schema/scenario.schema.json"))
jsonschema.Draft202012Validator.check_schema(scenario_schema)
sv = jsonschema.Draft202012Validator(scenario_schema)
scenarios = sorted(glob.glob(f"{src}/profiles/scenarios/*.json"))
assert len(scenarios) >= 4, scenarios
for f in scenarios:
    errors = list(sv.iter_errors(json.load(open(f))))
    if errors:
        sys.exit(f"{f}: schema errors: {[e.message for e in errors]}")
base = json.load(open(f"{src}/profiles/scenarios/reno-under-loss.json"))
bad_scenarios = []
for patch in [{"gradwall": "scenario/v2"}, {"transport": {"cc": "cubci"}},
              {"workload": {"kind": "flows", "flows": []}}, {"topology": {"regions": []}},
              {"transport": {"mtu": 512}}, {"workload": {"kind": "flows", "duration": 5,
               "flows": [{"from": "a", "to": "b"}]}}]:
    doc = json.loads(json.dumps(base))
    doc.update(patch)
    bad_scenarios.append(doc)
for doc in bad_scenarios:
    if sv.is_valid(doc):
        sys.exit(f"schema accepted a bad scenario: {doc}")
print(f"{len(scenarios)} scenarios valid against the schema; {len(bad_scenarios)} bad ones rejected")
PY
# The loader agrees with the schema on the shipped files.
"$gradwall" profile validate "$src"/profiles/wan/*.json
