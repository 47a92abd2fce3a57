#!/usr/bin/env bash
# cli.probe: `gradwall profile probe` (table and --json), its accounting and determinism, its
# option errors, and the CLI's --help / unknown-command contract for every command.
# Usage: probe.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# check_json FILE DESCRIPTION: the probe JSON has every documented field with the right type
# and its accounting balances: packets_in + duplicated == delivered + dropped_total + held_at_end,
# and dropped_total is the sum of the per-cause drops. Prints the problems, exits 1 on any.
check_json() {
  "$PY" - "$1" "$2" <<'EOF'
import json, sys
path, what = sys.argv[1], sys.argv[2]
try:
    j = json.load(open(path))
except ValueError as e:
    sys.exit(f"{what}: --json output does not parse: {e}")
problems = []
counters = ["packets_in", "delivered", "dropped_total", "marked_ce", "duplicated", "corrupted",
            "reordered", "held_at_end"]
for k in counters:
    if not isinstance(j.get(k), int) or j[k] < 0:
        problems.append(f"{k} missing or not a count: {j.get(k)!r}")
if not isinstance(j.get("goodput_bps"), (int, float)) or j["goodput_bps"] < 0:
    problems.append(f"goodput_bps missing or not a number: {j.get('goodput_bps')!r}")
if not isinstance(j.get("dropped"), dict) or not all(isinstance(v, int) for v in j["dropped"].values()):
    problems.append(f"dropped is not an object of counts: {j.get('dropped')!r}")
for k in ["delay_ns", "queue_bytes"]:
    d = j.get(k)
    if not isinstance(d, dict):
        problems.append(f"{k} is not an object: {d!r}")
        continue
    for q in ["mean", "p50", "p90", "p99", "p999", "max"]:
        if not isinstance(d.get(q), (int, float)):
            problems.append(f"{k}.{q} missing: {d!r}")
    if all(isinstance(d.get(q), (int, float)) for q in ["p50", "p90", "p99", "p999", "max"]):
        if not d["p50"] <= d["p90"] <= d["p99"] <= d["p999"] <= d["max"]:
            problems.append(f"{k} percentiles out of order: {d!r}")
if not problems:
    if sum(j["dropped"].values()) != j["dropped_total"]:
        problems.append(f"dropped_total {j['dropped_total']} != sum of dropped {j['dropped']}")
    lhs = j["packets_in"] + j["duplicated"]
    rhs = j["delivered"] + j["dropped_total"] + j["held_at_end"]
    if lhs != rhs:
        problems.append(f"accounting: packets_in + duplicated = {lhs} but delivered + dropped_total"
                        f" + held_at_end = {rhs}")
    if j["delay_ns"].get("count") != j["delivered"]:
        problems.append(f"delay_ns.count {j['delay_ns'].get('count')} != delivered {j['delivered']}")
if problems:
    sys.exit(f"{what}: " + "; ".join(problems))
EOF
}

# json_field FILE EXPR: prints a value from a JSON file (EXPR indexes `j`, e.g. j["delay_ns"]["p50"]),
# or -1 (which fails every check below) when the file is not that JSON.
json_field() {
  "$PY" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null ||
    echo -1
}

# --- the default profile, table form -------------------------------------------------------
run "$GW" profile probe --packets 2000
if [[ $rc -ne 0 ]]; then
  fail "probe (default profile): expected exit 0, got $rc, stderr [$err]"
else
  for line in "profile cross-continent (" "offered 2000 x 1500 B at 100Mbit" "delivered" "one-way delay (ms)" \
    "p50" "goodput" "accounting"; do
    [[ $out == *"$line"* ]] || fail "probe table: no \"$line\" in [$out]"
  done
fi

# --- --json: fields, types and accounting, on every shipped profile and a lossy netem one ---
"$GW" profile from-netem 'delay 10ms 5ms loss 5% duplicate 3% corrupt 1% reorder 5% rate 50mbit limit 100' \
  >netem.json
for f in "$SRC"/profiles/wan/*.json netem.json; do
  run "$GW" profile probe "$f" --json --packets 2000 --ecn ect0 --flows 4
  printf '%s\n' "$out" >probe.json
  if [[ $rc -ne 0 ]]; then
    fail "probe $f --json: expected exit 0, got $rc, stderr [$err]"
  elif ! msg=$(check_json probe.json "probe $(basename "$f")" 2>&1); then
    fail "$msg"
  fi
done
# The lossy one must exercise the counters the accounting is about.
run "$GW" profile probe netem.json --json --packets 2000
printf '%s\n' "$out" >lossy.json
for k in dropped_total duplicated reordered corrupted; do
  v=$(json_field lossy.json "j['$k']")
  [[ $v -gt 0 ]] || fail "lossy netem profile: expected some $k, got $v"
done

# --- determinism: the same seed gives byte-identical JSON, another seed other draws ---------
"$GW" profile probe netem.json --json --seed 11 >seed11a.json
"$GW" profile probe netem.json --json --seed 11 >seed11b.json
"$GW" profile probe netem.json --json --seed 12 >seed12.json
cmp -s seed11a.json seed11b.json || fail "--seed 11 twice: the JSON differs ($(diff seed11a.json seed11b.json | head -5))"
# Compare without the "seed" field itself, so that the difference is in what happened.
same=$("$PY" -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
a.pop("seed"); b.pop("seed")
print(a == b)' seed11a.json seed12.json 2>&1) || true
[[ $same == False ]] || fail "--seed 11 and --seed 12: expected different results, got [$same]"
# The profile's own seed is used when --seed is not given.
"$GW" profile probe netem.json --json >seed-profile.json
[[ $(json_field seed-profile.json 'j["seed"]') == 1 ]] || fail "without --seed, the profile's seed (1) is not used"

# --- a 20 ms constant delay: p50 = 20 ms + one serialization at the bottleneck --------------
cat >d20.json <<'EOF'
{"gradwall": "profile/v1", "name": "d20", "a_to_b": {"delay": {"delay_ms": 20}, "rate": {"rate_gbps": 1}}}
EOF
# 1500 B at 1 Gbit/s serialize in 12 us; offered at 100 Mbit/s, no queue builds.
"$GW" profile probe d20.json --json --packets 1000 --size 1500 --rate 100Mbit >d20-out.json
p50=$(json_field d20-out.json 'j["delay_ns"]["p50"]')
max_q=$(json_field d20-out.json 'j["queue_bytes"]["max"]')
if ((p50 < 20000000 || p50 > 20000000 + 12000)); then
  fail "20 ms profile: delay p50 ${p50} ns not within [20 ms, 20 ms + 12 us]"
fi
[[ $max_q -le 1500 ]] || fail "20 ms profile at 1/10 of the bottleneck: queue max ${max_q} B, expected at most one packet"

# --- bad options: exit 2, a message naming the option ---------------------------------------
bad_option() {
  local opt=$1
  shift
  run "$GW" profile probe "$@"
  if [[ $rc -ne 2 ]]; then
    fail "probe $*: expected exit 2, got $rc"
  elif [[ $err != *"$opt"* ]]; then
    fail "probe $*: the message does not name $opt: [$err]"
  fi
}
bad_option --rate --rate banana
bad_option --rate --rate 0
bad_option --ecn --ecn foo
bad_option --direction --direction up
bad_option --size --size 63
bad_option --packets --packets many
bad_option --packets --packets -5  # not 2^64 - 5 packets
bad_option --packets --packets 0
bad_option --flows --flows 0
bad_option --seed --seed -1  # not 2^64 - 1
bad_option --seed --seed 18446744073709551616
bad_option --no-such-option --no-such-option
run "$GW" profile probe missing.json
[[ $rc -eq 2 && $err == *"missing.json: no such file"* ]] || fail "probe missing.json: exit $rc, stderr [$err]"

# --- --help for every command, exit 0; unknown commands, exit 2 -----------------------------
for cmd in "profile validate" "profile probe" "profile from-netem" "profile to-netem" "replay"; do
  # shellcheck disable=SC2086  # the command words are meant to split
  run "$GW" $cmd --help
  [[ $rc -eq 0 && $out == *"gradwall $cmd"* && $out == *"--help"* ]] ||
    fail "gradwall $cmd --help: expected exit 0 and its usage on stdout, got exit $rc, stdout [$out]"
done
run "$GW" --help
[[ $rc -eq 0 && $out == *"commands:"* ]] || fail "gradwall --help: exit $rc, stdout [$out]"
run "$GW" frobnicate
[[ $rc -eq 2 && $err == *'unknown command "frobnicate"'* ]] || fail "gradwall frobnicate: exit $rc, stderr [$err]"
run "$GW" profile frobnicate
[[ $rc -eq 2 && $err == *'unknown profile command "frobnicate"'* ]] ||
  fail "gradwall profile frobnicate: exit $rc, stderr [$err]"
run "$GW"
[[ $rc -eq 2 && $err == *"usage: gradwall"* ]] || fail "gradwall without a command: exit $rc, stderr [$err]"

finish
