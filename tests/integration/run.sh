#!/usr/bin/env bash
# `gradwall run` in sim mode: the issue-4 example scenario runs, writes result.json with the
# documented fields and a balanced packet account; the same seed gives byte-identical files
# and another seed does not; bad scenarios exit 2 naming file, JSON path and reason; every
# shipped scenario validates.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

scenario="$SRC/profiles/scenarios/reno-under-loss.json"
run "$GW" run "$scenario" --out out1
[[ $rc == 0 ]] || fail "run exited $rc: $err"
[[ $out == *"reno"*"balanced"* ]] || fail "summary lacks the flow table or the account: $out"
[[ -s out1/result.json ]] || fail "no out1/result.json"

"$PY" - out1/result.json <<'PY' || fail "result.json fields"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gradwall"] == "result/v1" and r["mode"] == "sim", r["gradwall"]
assert r["scenario"] == "reno-under-loss" and r["seed"] == 1
f = r["flows"][0]
for k in ["cc", "goodput_bps", "bytes_delivered", "retransmits", "rtt_ns", "mean_cwnd_bytes", "marks_ce"]:
    assert k in f, k
for k in ["p50", "p90", "p99", "p999", "max"]:
    assert k in f["rtt_ns"], k
assert f["cc"] == "reno" and f["goodput_bps"] > 0 and f["retransmits"] > 0
# One-way 25 ms each way: no RTT below 50 ms.
assert f["rtt_ns"]["min"] >= 50_000_000, f["rtt_ns"]
wan = [p for p in r["paths"] if p["name"] == "wan a->b"][0]
assert wan["dropped"].get("loss", 0) > 0 and "queue_delay_ns" in wan
assert 0 < r["jain_fairness"] <= 1
s = r["series"]
assert s["interval_ns"] == 100_000_000 and len(s["t_ns"]) == 600, len(s["t_ns"])
assert len(s["flows"][0]["rate_bps"]) == 600 and len(s["flows"][0]["cwnd_bytes"]) == 600
assert r["accounting"]["balanced"] is True, r["accounting"]
PY

run "$GW" run "$scenario" --out out2 --quiet
[[ $rc == 0 ]] || fail "second run exited $rc"
cmp -s out1/result.json out2/result.json || fail "same seed, different result.json"
run "$GW" run "$scenario" --out out3 --quiet --seed 2
cmp -s out1/result.json out3/result.json && fail "seed 2 gave the same result.json as seed 1"

# Bad input: exit 2, "file: $.path: reason", and no result written.
"$PY" - "$scenario" bad.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["transport"]["cc"] = "cubci"
json.dump(d, open(sys.argv[2], "w"))
PY
run "$GW" run bad.json --out outbad
[[ $rc == 2 ]] || fail "bad cc: exit $rc, want 2"
[[ $err == *"bad.json: \$.transport.cc: unknown congestion control 'cubci'"* ]] || fail "bad cc message: $err"
[[ ! -e outbad/result.json ]] || fail "a result was written for a bad scenario"
run "$GW" run missing.json
[[ $rc == 2 ]] || fail "missing file: exit $rc, want 2"
run "$GW" run "$scenario" --mode live
[[ $rc == 2 ]] || fail "--mode live with a 1500-byte mtu: exit $rc, want 2 (the bench carries at most 1408)"
[[ $err == *"\$.transport.mtu: live mode on the namespace bench carries at most 1408"* ]] ||
  fail "--mode live message: $err"

run "$GW" run "$scenario" --mode both --sim-seeds 0
[[ $rc == 2 && $err == *"--sim-seeds"*"must be 1 to 100"* ]] || fail "--sim-seeds 0: exit $rc, $err"

run "$GW" profile validate "$SRC"/profiles/scenarios/*.json
[[ $rc == 0 ]] || fail "shipped scenarios do not validate: $err"
[[ $out == *"ok (scenario"* ]] || fail "validate does not recognise scenarios: $out"
finish
