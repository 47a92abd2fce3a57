#!/usr/bin/env bash
# The default scenario end to end (what ci/demo runs): a DDP job over the cross-continent WAN.
# It completes, writes every report, the reports agree with their schemas (report.json with
# reports/report.schema.json, junit.xml with tests/junit.xsd via xmllint), the GPU-idle figures
# are consistent with the iterations, a baseline (unimpaired network) is attached, and the exit
# code is the verdict's (0 pass, 1 fail).
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

scenario="$SRC/profiles/scenarios/default-ddp-cross-continent.json"
run "$GW" run "$scenario" --out out
[[ $rc == 0 || $rc == 1 ]] || fail "exit $rc: $err"
for f in result.json report.json report.html junit.xml summary.md nccl.txt; do
  [[ -s out/$f ]] || fail "no out/$f"
done
[[ $out == *"all_reduce"*"ring"* ]] || fail "no collective table on stdout: $out"
xmllint --noout --schema "$SRC/tests/junit.xsd" out/junit.xml 2>"$TMP/xml.err" || fail "junit.xml: $(<"$TMP/xml.err")"

"$PY" - out "$SRC" "$rc" <<'PY' || fail "report contents"
import json, sys
import jsonschema
out, src, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
result = json.load(open(f"{out}/result.json"))
report = json.load(open(f"{out}/report.json"))
jsonschema.Draft202012Validator(json.load(open(f"{src}/reports/report.schema.json"))).validate(report)
its = result["iterations"]
assert len(its) == 3 and result["completed"], its
for i in its:
    assert i["end_ns"] > i["start_ns"] and i["exposed_comm_ns"] >= 0
    # forward 40 ms + backward 80 ms of compute per iteration
    assert i["compute_ns"] == 120_000_000, i
    assert i["end_ns"] - i["start_ns"] == i["compute_ns"] + i["exposed_comm_ns"]
# 125M parameters x 2 B = 250 MB of gradients per iteration, all-reduced in buckets.
per_iter = sum(c["bytes"] for c in result["collectives"] if c["iteration"] == 0)
assert per_iter == 250_000_000, per_iter
assert result["baseline"] and len(result["baseline"]["iterations"]) == 3
mean = lambda xs: sum(xs) / len(xs)
t = mean([i["end_ns"] - i["start_ns"] for i in its])
t0 = mean([i["end_ns"] - i["start_ns"] for i in result["baseline"]["iterations"]])
assert t >= t0 * 0.999, (t, t0)  # impairments never make the job faster
assert (report["verdict"] == "pass") == (rc == 0), (report["verdict"], rc)
assert all("name" in c and "passed" in c and "reason" in c for c in report["checks"])
PY
grep -q "<svg" out/report.html || fail "report.html has no plots"
finish
