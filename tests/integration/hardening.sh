#!/usr/bin/env bash
# cli.hardening: inputs that crashed or hung gradwall (issue 14) are refused with exit 2 and a
# line naming the file, the JSON path and the reason, within a few seconds each:
#  - JSON nested 100,000 levels deep (overflowed the stack: SIGSEGV), in a profile, a scenario
#    and `profile probe`;
#  - a number a double cannot hold (1e400, a 400-digit integer): was exit 3, "internal error";
#  - a distribution table, a rate trace, a Mahimahi trace or a scenario's WAN profile naming
#    /dev/zero or /dev/urandom, and `from-netem ... distribution /dev/zero`: never ended,
#    2-4 GB read;
#  - a unit-bearing key given a bare number ("delay": 5, "compute": 50, "duration": 60,
#    "results": {"interval": 5}): validated "ok" and was silently 0 or "missing";
#  - limits that cannot mean what they say: uplink_rate "0bit" (read as unlimited), a
#    threshold fraction of 150, a slowdown limit below 1, a seed above 2^63 (--seed takes
#    2^64-1);
#  - a 1 MB bad value: was echoed whole; now capped at 1,000 characters;
#  - replay: two records 1,000 s apart through a profile with microbursts never ended (the
#    gap's 500,000 bursts were simulated); records from 2038 on came out with a nanosecond
#    field >= 1e9 (libpcap's sign-extended seconds);
#  - scenarios accepted, then out of memory or time (all-to-all on 4,096 ranks, 1 TiB per
#    rank, DDP buckets of 1 B, 100,000 iterations): refused within a second with the estimate
#    and the limit (run_cost.h); --estimate prints it; --force is taken.
# Usage: hardening.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# refused 'DESCRIPTION' 'EXPECTED STDERR (a glob: [ is a bracket expression)' CMD...: exit 2
# within 20 s, that stderr line.
refused() {
  local what=$1 expected=$2
  shift 2
  run timeout 20 "$@"
  if [[ $rc -ne 2 ]]; then
    fail "$what: expected exit 2, got $rc (stderr [${err:0:300}])"
  elif [[ $err != $expected ]]; then
    fail "$what: wrong error line
     expected: $expected
     actual:   ${err:0:300}"
  fi
}

"$PY" - <<'PY'
depth = 100000
open("deep-profile.json", "w").write(
    '{"gradwall":"profile/v1","name":"x","description":' + "[" * depth + "]" * depth + "}")
open("deep-scenario.json", "w").write(
    '{"gradwall":"scenario/v1","name":"x","description":' + '{"a":' * depth + "1" + "}" * depth + "}")
open("overflow.json", "w").write('{"gradwall":"profile/v1","name":"x","seed":1e400}')
open("overflow-int.json", "w").write(
    '{"gradwall":"profile/v1","name":"x","a_to_b":{"loss":{"model":"random","p":' + "9" * 400 + "}}}")
PY
refused "deep profile" 'deep-profile.json: $.description*...: nested deeper than 256 levels*' \
  "$GW" profile validate deep-profile.json
refused "deep profile, probe" '*deep-profile.json: $.description*...: nested deeper than 256 levels*' \
  "$GW" profile probe deep-profile.json
refused "deep scenario" '*deep-scenario.json: $.description.a.a.a*: nested deeper than 256 levels*' \
  "$GW" run deep-scenario.json --out out
refused "1e400" 'overflow.json: $.seed: number out of range*' "$GW" profile validate overflow.json
refused "400 digits" 'overflow-int.json: $.a_to_b.loss.p: number out of range*' \
  "$GW" profile validate overflow-int.json

for dev in /dev/zero /dev/urandom; do
  printf '{"gradwall":"profile/v1","name":"x","a_to_b":{"delay":{"delay_ms":10,"jitter_ms":1,"distribution":"%s"}}}\n' \
    "$dev" >dist.json
  refused "distribution $dev" "dist.json: \$.a_to_b.delay.distribution: not a regular file*" \
    "$GW" profile validate dist.json
  printf '{"gradwall":"profile/v1","name":"x","a_to_b":{"rate":{"trace_file":"%s"}}}\n' "$dev" >trace.json
  refused "trace_file $dev" "trace.json: \$.a_to_b.rate.trace_file: $dev: not a regular file*" \
    "$GW" profile validate trace.json
  printf '{"gradwall":"profile/v1","name":"x","a_to_b":{"rate":{"mahimahi_file":"%s"}}}\n' "$dev" >mm.json
  refused "mahimahi_file $dev" "mm.json: \$.a_to_b.rate.mahimahi_file: $dev: not a regular file*" \
    "$GW" profile validate mm.json
  refused "from-netem distribution $dev" "*$dev: not a regular file*" \
    "$GW" profile from-netem "delay 10ms 5ms distribution $dev"
  "$PY" - "$dev" <<'PY'
import json, sys
json.dump({"gradwall": "scenario/v1", "name": "x", "seed": 1,
           "topology": {"regions": [{"name": "a", "hosts": 1, "nic_rate": "10Gbit"},
                                    {"name": "b", "hosts": 1, "nic_rate": "10Gbit"}],
                        "wan": [{"between": ["a", "b"], "profile": sys.argv[1]}]},
           "workload": {"kind": "flows", "duration": "200ms", "flows": [{"from": "a", "to": "b", "count": 1}]}},
          open("scenario-dev.json", "w"))
PY
  refused "scenario profile $dev" "*$dev: not a regular file*" "$GW" run scenario-dev.json --out out
done

# A small valid scenario, then one mutation per case: refused with the key and the form.
scenario() {
  "$PY" - "$@" <<'PY'
import json, sys
s = {"gradwall": "scenario/v1", "name": "x", "seed": 1,
     "topology": {"regions": [{"name": "a", "hosts": 1, "nic_rate": "10Gbit"},
                              {"name": "b", "hosts": 1, "nic_rate": "10Gbit"}],
                  "wan": [{"between": ["a", "b"], "netem": "delay 5ms"}]},
     "workload": {"kind": "flows", "duration": "100ms", "flows": [{"from": "a", "to": "b", "count": 1}]}}
for change in sys.argv[2:]:
    where, value = change.split("=", 1)
    node = s
    keys = where.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node.setdefault(k, {})
    node[keys[-1]] = json.loads(value)
json.dump(s, open(sys.argv[1], "w"))
PY
}
scenario ok.json
run "$GW" run ok.json --out out -q
[[ $rc -eq 0 ]] || fail "the unmutated scenario should pass (rc $rc: ${err:0:300})"

printf '{"gradwall":"profile/v1","name":"x","a_to_b":{"delay":{"delay":-5}}}' >bare-delay.json
refused "bare delay" 'bare-delay.json: $.a_to_b.delay.delay: must be text with its unit (e.g. "25ms"), or a number under delay_<unit>, got -5' \
  "$GW" profile validate bare-delay.json
printf '{"gradwall":"profile/v1","name":"x","a_to_b":{"delay":{"delay":"10ms","jitter":5}}}' >bare-jitter.json
refused "bare jitter" 'bare-jitter.json: $.a_to_b.delay.jitter: must be text with its unit (e.g. "25ms")*got 5' \
  "$GW" profile validate bare-jitter.json
scenario duration.json 'workload.duration=60'
refused "bare duration" 'gradwall: duration.json: $.workload.duration: must be text with its unit*got 60' \
  "$GW" run duration.json --out out
scenario interval.json 'results.interval=5'
refused "bare interval" 'gradwall: interval.json: $.results.interval: must be text with its unit*got 5' \
  "$GW" run interval.json --out out
scenario uplink.json 'topology.regions.0.uplink_rate="0bit"'
refused "uplink 0bit" 'gradwall: uplink.json: $.topology.regions[[]0].uplink_rate: must be above 0 (omit*' \
  "$GW" run uplink.json --out out
scenario pacing.json 'transport.max_pacing_rate="0bit"'
refused "max_pacing_rate 0bit" 'gradwall: pacing.json: $.transport.max_pacing_rate: must be above 0 (omit*' \
  "$GW" run pacing.json --out out
scenario idle.json 'thresholds.gpu_idle_fraction_max=150'
refused "idle 150" 'gradwall: idle.json: $.thresholds.gpu_idle_fraction_max: must be in [[]0, 1], got 150' \
  "$GW" run idle.json --out out
scenario slowdown.json 'thresholds.slowdown_max=-1'
refused "slowdown -1" 'gradwall: slowdown.json: $.thresholds.slowdown_max: must be in [[]1, *], got -1' \
  "$GW" run slowdown.json --out out
scenario seed.json 'seed=-1'
refused "seed -1" 'gradwall: seed.json: $.seed: must be an integer in [[]0, 2^64-1], got -1' \
  "$GW" run seed.json --out out

# The seed range is the same in JSON and on the command line: 2^64-1 is taken by both and
# gives the same run.
scenario seed-max.json 'seed=18446744073709551615'
run "$GW" run seed-max.json --out out-json -q
[[ $rc -eq 0 ]] || fail "seed 2^64-1 in JSON should be taken (rc $rc: ${err:0:300})"
run "$GW" run ok.json --out out-cli -q --seed 18446744073709551615
[[ $rc -eq 0 ]] || fail "--seed 2^64-1 should be taken (rc $rc: ${err:0:300})"
"$PY" - <<'PY' || fail "seed 2^64-1 from JSON and from --seed should give the same run"
import json
a, b = (json.load(open(d + "/result.json")) for d in ("out-json", "out-cli"))
assert a["seed"] == b["seed"] == 2**64 - 1, (a["seed"], b["seed"])
assert a["flows"] == b["flows"]
PY

"$PY" -c 'print("{\"gradwall\":\"profile/v1\",\"name\":\"x\",\"a_to_b\":{\"delay\":{\"delay\":\"" + "9" * 1000000 + "\"}}}")' >huge.json
run timeout 20 "$GW" profile validate huge.json
[[ $rc -eq 2 ]] || fail "1 MB value: expected exit 2, got $rc"
(( ${#err} < 1500 )) || fail "1 MB value: the error line is ${#err} characters (cap 1,000 + path)"
[[ $err == *"more bytes)"* ]] || fail "1 MB value: the error does not say it was cut: ${err:0:200}"

# Cost: refused before anything is built, naming the estimate and the limit.
scenario a2a.json 'topology.regions.0.hosts=2048' 'topology.regions.1.hosts=2048' \
  'workload={"kind":"collective","collective":{"op":"all_to_all","algorithm":"direct","size_bytes":1048576}}'
refused "all-to-all on 4,096 ranks" 'gradwall: a2a.json: $: estimated * GiB of memory and * of CPU (16,773,120 connections): above the memory limit of *--force*' \
  "$GW" run a2a.json --out out
scenario tb.json 'topology.regions.0.hosts=4' 'topology.regions.1.hosts=4' \
  'workload={"kind":"collective","collective":{"op":"all_reduce","size":"1TiB"}}'
refused "1 TiB per rank" 'gradwall: tb.json: $: estimated * h of CPU (*packets): above the time limit of 1.00 h; run with --force*' \
  "$GW" run tb.json --out out
run "$GW" run tb.json --estimate
[[ $rc -eq 0 && $out == "tb.json: estimated "*" h of CPU (limit 1.00 h)"* ]] ||
  fail "--estimate: rc $rc, [${out:0:300}]"
ddp='{"kind":"ddp","model":{"parameters":5000000,"bytes_per_param":2,"layers":12,"hidden":768},"compute":{"forward":"40ms","backward":"80ms"}'
scenario bucket.json "workload=$ddp,\"bucket_bytes\":1}"
refused "DDP bucket 1 B" 'gradwall: bucket.json: $.workload.bucket_bytes: 1 B cuts 10000000 B of gradients into 10000000 buckets per iteration, more than 65536*' \
  "$GW" run bucket.json --out out
scenario iterations.json "workload=$ddp,\"bucket\":\"512KiB\",\"iterations\":100000}"
refused "100,000 iterations" 'gradwall: iterations.json: $.workload.iterations: 100000 iterations of * work items each are more than 2000000 work items' \
  "$GW" run iterations.json --out out
scenario moe.json 'topology.regions.0.hosts=2048' 'topology.regions.1.hosts=2048' \
  'workload={"kind":"moe","model":{"parameters":5000000,"layers":2,"hidden":256,"tokens_per_iteration":128},"compute":{"forward":"6ms","backward":"12ms"},"algorithm":"direct"}'
refused "MoE on 4,096 ranks" 'gradwall: moe.json: $.workload: moe on 4096 ranks keeps * all-to-all matrix entries (8 B each), more than 125000000' \
  "$GW" run moe.json --out out
run "$GW" run ok.json --out out-force -q --force
[[ $rc -eq 0 ]] || fail "--force on a small scenario: rc $rc (${err:0:300})"

# Replay. pcap(FILE, [(sec, nsec), ...]): a nanosecond pcap of 60-byte UDP/IPv4 frames.
"$PY" - <<'PY'
import struct
def pcap(name, times):
    with open(name, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for i, (sec, nsec) in enumerate(times):
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, i, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
            frame = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + struct.pack("!HHHH", 1000, 2000, 26, 0) + bytes(18)
            f.write(struct.pack("<IIII", sec, nsec, len(frame), len(frame)) + frame)
pcap("gap.pcap", [(1700000000, 0), (1700001000, 0)])
pcap("y2038.pcap", [(2**31, 500000000), (2**31 + 1, 0)])
pcap("y2106.pcap", [(2**32 - 1, 999900000)])
PY
run timeout 20 "$GW" replay gap.pcap gap-out.pcap --profile "$SRC/profiles/wan/microburst-heavy.json" --json
[[ $rc -eq 0 ]] || fail "replay, 1,000 s gap with microbursts: rc $rc (${err:0:300})"
"$PY" - "$out" <<'PY' || fail "replay, 1,000 s gap: wrong summary or times"
import json, struct, sys
s = json.loads(sys.argv[1])
assert s["gaps_shortened"] == 1, s
assert 990e9 < s["idle_skipped_ns"] < 1000e9, s
data = open("gap-out.pcap", "rb").read()[24:]
times = []
while data:
    sec, nsec, cap, _ = struct.unpack("<IIII", data[:16])
    times.append(sec + nsec / 1e9)
    data = data[16 + cap:]
# Each record 15 ms (the profile's delay) plus at most the 2 MB queue at 10 Gbit/s (1.6 ms)
# after its own capture time: the cut time is given back in OUT.
assert len(times) == 2, times
for got, sent in zip(times, (1700000000, 1700001000)):
    assert 0.015 <= got - sent <= 0.0167, (got, sent)
PY
run timeout 20 "$GW" replay y2038.pcap y2038-out.pcap --profile "$SRC/profiles/wan/metro.json"
[[ $rc -eq 0 ]] || fail "replay, 2038: rc $rc (${err:0:300})"
"$PY" - <<'PY' || fail "replay, 2038: OUT's times are not the input's plus the delay"
import struct
data = open("y2038-out.pcap", "rb").read()[24:]
got = []
while data:
    sec, nsec, cap, _ = struct.unpack("<IIII", data[:16])
    assert nsec < 10**9, nsec
    got.append((sec, nsec))
    data = data[16 + cap:]
assert [g[0] for g in got] == [2**31, 2**31 + 1], got
PY
refused "replay past 2106" 'gradwall: y2106.pcap: record 1: released at 4294967296 s since 1970, past the last second a pcap timestamp holds*' \
  "$GW" replay y2106.pcap y2106-out.pcap --profile "$SRC/profiles/wan/metro.json"
[[ ! -e y2106-out.pcap ]] || fail "replay past 2106: OUT was left behind"

finish
