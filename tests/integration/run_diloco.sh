#!/usr/bin/env bash
# `kind: "diloco"` against DDP on the same job and a 1 Gbit/s WAN (issue 17's goal): over whole
# outer steps the outer all-reduces carry exactly 1/H of DDP's gradient bytes per step, the WAN
# carries 1/H of its packets within 1 % (segmentation and ACKs differ with the bucket sizes),
# and GPU idle is at least 5x lower at H = 16. The simulator is deterministic for a seed, so the
# factor is a property of the model, not of a noisy sample.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

write() {  # write FILE KIND ITERATIONS EXTRA_WORKLOAD_KEYS
  cat > "$1" <<JSON
{
  "gradwall": "scenario/v1", "name": "$2", "seed": 1,
  "topology": {
    "regions": [ {"name": "a", "hosts": 2, "nic_rate": "25Gbit"},
                 {"name": "b", "hosts": 2, "nic_rate": "25Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay 10ms rate 1Gbit", "limit_bytes": 20000000} ]
  },
  "workload": {
    "kind": "$2", "iterations": $3, $4
    "model": {"parameters": 5000000, "bytes_per_param": 2, "layers": 4},
    "compute": {"forward": "20ms", "backward": "40ms"}
  },
  "results": {"warmup_iterations": 16},
  "transport": { "cc": "cubic", "mtu": 4096 }
}
JSON
}
write ddp.json ddp 32 ""
write diloco.json diloco 32 '"inner_steps": 16,'
write int4.json diloco 32 '"inner_steps": 16, "compression": "int4",'
for s in ddp diloco int4; do
  run "$GW" run $s.json --out out-$s --quiet
  [[ $rc == 0 ]] || fail "$s: exit $rc: $err"
done
"$PY" - "$SRC" <<'PY' || fail "diloco against ddp"
import json, sys
import jsonschema
schema = json.load(open(f"{sys.argv[1]}/reports/report.schema.json"))
res = {s: json.load(open(f"out-{s}/result.json")) for s in ("ddp", "diloco", "int4")}
rep = {s: json.load(open(f"out-{s}/report.json")) for s in res}
for r in rep.values():
    jsonschema.Draft202012Validator(schema).validate(r)
payload = {s: sum(c["bytes"] for c in r["collectives"]) for s, r in res.items()}
assert payload["ddp"] == 16 * payload["diloco"], payload
assert payload["diloco"] == 4 * payload["int4"], payload   # 16-bit parameters sent in 4 bits
wan = {s: sum(p["packets_in"] for p in r["paths"] if p["wan"]) for s, r in res.items()}
assert abs(wan["ddp"] / wan["diloco"] / 16 - 1) < 0.01, wan
idle = {s: r["gpu"]["totals"]["gpu_idle_fraction"] for s, r in rep.items()}
assert idle["ddp"] >= 5 * idle["diloco"], idle
assert idle["int4"] < idle["diloco"], idle
print("payload", payload, "wan packets", wan, "idle", idle)
PY
echo "ok"
