#!/usr/bin/env bash
# cli.steering: a scenario with two paths between its regions and the te controller, run end
# to end (docs/steering.md). Checks: exit 0; result.json's steering section splits the two
# flows' queue pairs over both paths by capacity (1 : 1 here, equal links) and counts bytes
# on each; report.json validates against reports/report.schema.json with its steering
# section; summary.md and report.html show it (the per-path table, the weight and rate plots);
# a route giving both `via` and `paths` is exit 2 naming the JSON path.
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

cat >"$TMP/two-paths.json" <<'JSON'
{
  "gradwall": "scenario/v1",
  "name": "two-paths",
  "seed": 3,
  "topology": {
    "regions": [ {"name": "west", "hosts": 2, "nic_rate": "10Gbit"},
                 {"name": "east", "hosts": 2, "nic_rate": "10Gbit"} ],
    "relays": [ {"name": "pop"} ],
    "wan": [ {"between": ["west", "east"], "netem": "delay 10ms rate 500Mbit", "limit_bytes": 4000000},
             {"between": ["west", "pop"], "netem": "delay 4ms rate 500Mbit", "limit_bytes": 4000000},
             {"between": ["pop", "east"], "netem": "delay 5ms rate 500Mbit", "limit_bytes": 4000000} ],
    "routes": [ {"from": "west", "to": "east", "paths": [ {"via": []}, {"via": ["pop"]} ]} ]
  },
  "controller": {"policy": "te", "interval": "20ms"},
  "workload": { "kind": "flows", "duration": "1s", "flows": [ {"from": "west", "to": "east", "count": 2} ] },
  "transport": { "cc": "bbr", "mtu": 4096 }
}
JSON
run "$GW" run "$TMP/two-paths.json" --out "$TMP/out"
((rc == 0)) || fail "gradwall run exited $rc; stderr: $err"
run "$PY" - "$TMP/out" "$SRC/reports/report.schema.json" <<'EOF_PY'
import json, sys
import jsonschema
out, schema_file = sys.argv[1], sys.argv[2]
result = json.load(open(f"{out}/result.json"))
report = json.load(open(f"{out}/report.json"))
bad = []
s = result.get("steering")
if not s:
    sys.exit("result.json has no steering section")
we = [p for p in s["paths"] if p["from"] == "west"]
if [p["queue_pairs"][-1] for p in we] != [1, 1]:
    bad.append("west->east queue pairs per path %s, want [1, 1]" % [p["queue_pairs"][-1] for p in we])
for p in we:
    # 1 s at up to 500 Mbit/s per path; BBR's startup takes a few RTTs, so well above 5 MB.
    if p["bytes"] < 5e6:
        bad.append("path %d carried only %d bytes" % (p["index"], p["bytes"]))
    print("path %d via %s: %.1f MB" % (p["index"], p["via"], p["bytes"] / 1e6))
errors = [e.message for e in jsonschema.Draft202012Validator(json.load(open(schema_file))).iter_errors(report)]
if errors:
    bad.append("report.json schema errors: %s" % errors[:3])
if report.get("steering", {}).get("policy") != "te":
    bad.append("report.json steering section missing or wrong: %s" % report.get("steering"))
summary = open(f"{out}/summary.md").read()
if "### Multipath steering (te" not in summary:
    bad.append("summary.md has no multipath steering table")
html = open(f"{out}/report.html").read()
for want in ("Multipath steering", "plot-path-weight", "plot-path-rate"):
    if want not in html:
        bad.append("report.html lacks %s" % want)
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "steering outputs: $err"

"$PY" - "$TMP/two-paths.json" "$TMP/both.json" <<'EOF_PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["topology"]["routes"][0]["via"] = []
json.dump(d, open(sys.argv[2], "w"))
EOF_PY
run "$GW" run "$TMP/both.json" --out "$TMP/out2"
((rc == 2)) || fail "a route with via and paths: exit $rc, want 2"
[[ $err == *'$.topology.routes[0].paths'*'either `via`'* ]] || fail "error does not name the path and reason: $err"
finish
