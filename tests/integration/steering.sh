#!/usr/bin/env bash
# cli.steering: a scenario with two paths between its regions and the te controller, run end
# to end (docs/steering.md). Checks: exit 0; result.json's steering section splits the two
# flows' queue pairs over both paths by capacity (1 : 1 here, equal links) and counts bytes
# on each; report.json validates against reports/report.schema.json with its steering
# section; summary.md and report.html show it (the per-path table, the weight and rate plots);
# a route giving both `via` and `paths` is exit 2 naming the JSON path.
# controller.compare (docs/steering.md "Comparing policies"): rows te (the run), static, ecmp
# in that order, each static / ecmp row equal to a run of its own with that policy (same seed:
# same bytes, resends and timeouts), the table in summary.md and report.html, report.json
# valid; an unknown policy or the run's own is exit 2 naming $.controller.compare[i].
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

# Policies side by side.
"$PY" - "$TMP/two-paths.json" "$TMP" <<'EOF_PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["controller"]["compare"] = ["static", "ecmp"]
json.dump(d, open(sys.argv[2] + "/compare.json", "w"))
for policy in ("static", "ecmp"):
    d["controller"] = {"policy": policy, "interval": "20ms"}
    json.dump(d, open(sys.argv[2] + "/alone-%s.json" % policy, "w"))
d["controller"] = {"policy": "te", "compare": ["te"]}
json.dump(d, open(sys.argv[2] + "/compare-own.json", "w"))
d["controller"] = {"policy": "te", "compare": ["fastest"]}
json.dump(d, open(sys.argv[2] + "/compare-unknown.json", "w"))
EOF_PY
run "$GW" run "$TMP/compare.json" --out "$TMP/cmp"
((rc == 0)) || fail "gradwall run (compare) exited $rc; stderr: $err"
for policy in static ecmp; do
  run "$GW" run "$TMP/alone-$policy.json" --out "$TMP/alone-$policy"
  ((rc == 0)) || fail "gradwall run ($policy alone) exited $rc; stderr: $err"
done
run "$PY" - "$TMP" "$SRC/reports/report.schema.json" <<'EOF_PY'
import json, sys
import jsonschema
tmp, schema_file = sys.argv[1], sys.argv[2]
report = json.load(open(f"{tmp}/cmp/report.json"))
rows = report["steering"].get("comparison", [])
bad = []
print("rows:", [(r["policy"], r["mode"], r["wan_bytes"], r["retransmits"]) for r in rows])
if [r["policy"] for r in rows] != ["te", "static", "ecmp"] or any(r["mode"] != "sim" for r in rows):
    bad.append("rows %s, want te, static, ecmp, all sim" % [(r["policy"], r["mode"]) for r in rows])
else:
    for r in rows[1:]:
        alone = json.load(open(f"{tmp}/alone-{r['policy']}/report.json"))["steering"]
        res = json.load(open(f"{tmp}/alone-{r['policy']}/result.json"))
        want = (sum(p["bytes"] for p in alone["paths"]), res["packets"]["retransmits"], res["packets"]["timeouts"])
        got = (r["wan_bytes"], r["retransmits"], r["timeouts"])
        if got != want:
            bad.append("%s row %s, its own run %s" % (r["policy"], got, want))
errors = [e.message for e in jsonschema.Draft202012Validator(json.load(open(schema_file))).iter_errors(report)]
if errors:
    bad.append("report.json schema errors: %s" % errors[:3])
if "### Policies side by side" not in open(f"{tmp}/cmp/summary.md").read():
    bad.append("summary.md has no comparison table")
if 'id="policy-comparison"' not in open(f"{tmp}/cmp/report.html").read():
    bad.append("report.html has no comparison table")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "comparison: $err"
for bad in own unknown; do
  run "$GW" run "$TMP/compare-$bad.json" --out "$TMP/cmp-$bad"
  ((rc == 2)) || fail "controller.compare ($bad): exit $rc, want 2"
  [[ $err == *'$.controller.compare[0]'* ]] || fail "controller.compare ($bad): error does not name the path: $err"
done

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
