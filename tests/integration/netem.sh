#!/usr/bin/env bash
# cli.netem: `gradwall profile from-netem` and `profile to-netem` against iproute2.
#
# For each netem argument string, from-netem writes a profile and to-netem must print what
# `tc qdisc show` prints for `tc qdisc add ... netem ARGS` (the part after "qdisc netem 1: root
# refcnt 2 "). The expected strings were checked against iproute2's tc/q_netem.c
# (netem_parse_opt, netem_print_opt) and lib/utils.c (print_time: "%.3g" + unit; print_rate:
# 1000-based, whole units), and where they exist against the kernel's tc-testing expectations
# (tools/testing/selftests/tc-testing/tc-tests/qdiscs/netem.json: cb28, a089, 3782, e01a, ba29,
# 0492, 7862, 7235, 5439). Delays are whole milliseconds or otherwise exact in netem's 64 ns
# ticks, so iproute2 before and after 6.9 (32-bit ticks vs 64-bit ns) print the same. Kernels
# 6.6 and later also show a random `seed N`, which is not part of these strings.
#
# Where this runs as root with tc and unshare, every string is also given to the real tc in a
# private network namespace (its own loopback; nothing outside it changes): iproute2 must
# accept what from-netem accepts (and to-netem --command prints), and reject what it rejects.
# Where the kernel has sch_netem, `tc qdisc show` there must print the expected string too.
# Usage: netem.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
# The error messages quote netem arguments in backticks, which single quotes keep literal:
# shellcheck disable=SC2016
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# tc_netem 'ARGS': iproute2's own reading: `tc qdisc add dev lo root netem ARGS` then `tc qdisc
# show dev lo`, in a network namespace of its own. Prints what tc printed; tc's exit status.
tc_netem() {
  local -a words=()
  read -ra words <<<"$1"
  unshare -n sh -c 'tc qdisc add dev lo root netem "$@" && tc qdisc show dev lo' sh "${words[@]}" 2>&1
}
# tc_mode: live (the kernel runs netem), parse (tc parses, the kernel has no netem: the request
# fails only after tc accepted the arguments) or none (no root, tc or unshare: not checked).
tc_mode=none
if command -v tc >/dev/null && command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
  probe=$(tc_netem 'delay 1ms' || true)
  if [[ $probe == *"qdisc netem "* ]]; then
    tc_mode=live
  elif [[ $probe == *"Specified qdisc kind is unknown"* ]]; then
    tc_mode=parse
  fi
fi
echo "iproute2 cross-check: $tc_mode"
kernel_refused='Specified qdisc kind is unknown'

# tc_accepts 'ARGS' 'EXPECTED SHOW' WHAT: iproute2 accepts ARGS; live, it shows EXPECTED SHOW
# (after the handle, without the seed newer kernels add; trailing blanks aside).
tc_accepts() {
  local args=$1 expected=$2 what=$3 tc_out shown
  [[ $tc_mode != none ]] || return 0
  tc_out=$(tc_netem "$args") || true
  if [[ $tc_mode == parse ]]; then
    [[ $tc_out == *"$kernel_refused"* ]] || fail "$what: iproute2 does not accept 'netem $args': [$tc_out]"
    return 0
  fi
  shown=$(sed -nE 's/^qdisc netem [0-9a-f]+: root refcnt [0-9]+ //p' <<<"$tc_out" | sed -E 's/ seed [0-9]+//; s/ +$//')
  [[ $shown == "${expected%"${expected##*[! ]}"}" ]] ||
    fail "$what: tc qdisc show here prints [$shown] for 'netem $args', the test expects [$expected]"
}

# tc_rejects 'ARGS': iproute2 rejects ARGS before asking the kernel.
tc_rejects() {
  local tc_out
  [[ $tc_mode != none ]] || return 0
  if tc_out=$(tc_netem "$1") || [[ $tc_out == *"$kernel_refused"* ]]; then
    fail "iproute2 accepts 'netem $1', which the test says it rejects: [$tc_out]"
  fi
}

# same_profile A B: the two profiles hold the same settings (the description, which quotes the
# netem arguments, aside).
same_profile() {
  "$PY" -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
a.pop("description", None); b.pop("description", None)
sys.exit(0 if a == b else 1)' "$1" "$2"
}

# show 'ARGS' 'EXPECTED': from-netem ARGS > p.json; p.json validates; to-netem p.json prints
# EXPECTED exactly, exit 0, nothing on stderr (all of it is netem); and the --command form
# reads back through from-netem to the same profile.
show() {
  local args=$1 expected=$2
  run "$GW" profile from-netem "$args"
  if [[ $rc -ne 0 ]]; then
    fail "from-netem '$args': expected exit 0, got $rc, stderr [$err]"
    return
  fi
  printf '%s\n' "$out" >p.json
  run "$GW" profile validate p.json
  [[ $rc -eq 0 ]] || fail "from-netem '$args': the profile written does not validate: [$err]"
  run "$GW" profile to-netem p.json
  if [[ $rc -ne 0 ]]; then
    fail "to-netem of '$args': expected exit 0, got $rc, stderr [$err]"
  elif [[ $out != "$expected" ]]; then
    fail "to-netem of '$args':
     expected (tc qdisc show): [$expected]
     actual:                   [$out]"
  elif [[ -n $err ]]; then
    fail "to-netem of '$args': nothing should be reported unexpressible, got [$err]"
  fi
  tc_accepts "$args" "$expected" "netem '$args'"
  run "$GW" profile to-netem --command p.json
  local command=$out
  tc_accepts "$command" "$expected" "to-netem --command of '$args' ('$command')"
  run "$GW" profile from-netem "$command"
  printf '%s\n' "$out" >back.json
  if [[ $rc -ne 0 ]] || ! same_profile p.json back.json; then
    fail "'$args': to-netem --command gives '$command', which does not read back to the same profile"
  fi
}

# tc qdisc add ... netem ARGS; tc qdisc show          ->  the options part of the line
show '' 'limit 1000'
show 'limit 200' 'limit 200'
show 'delay 100ms' 'limit 1000 delay 100ms'
show 'delay 100ms 10ms' 'limit 1000 delay 100ms  10ms'
show 'delay 100ms 10ms 25%' 'limit 1000 delay 100ms  10ms 25%'
show 'delay 1.5s' 'limit 1000 delay 1.5s'
show 'delay 12345us' 'limit 1000 delay 12.3ms'
show 'delay 100ms 10ms distribution normal corrupt 1%' 'limit 1000 delay 100ms  10ms corrupt 1%'
show 'delay 100ms 10ms distribution normal duplicate 1%' 'limit 1000 delay 100ms  10ms duplicate 1%'
show 'delay 100ms 10ms distribution pareto loss 1%' 'limit 1000 delay 100ms  10ms loss 1%'
show 'delay 100ms 10ms distribution paretonormal loss state 1' \
  'limit 1000 delay 100ms  10ms loss state p13 1% p31 99% p32 0% p23 100% p14 0%'
show 'loss state 1% 30% 5% 40% 0.5%' 'limit 1000 loss state p13 1% p31 30% p32 5% p23 40% p14 0.5%'
show 'loss gemodel 1%' 'limit 1000 loss gemodel p 1% r 99% 1-h 100% 1-k 0%'
show 'loss gemodel 1% 10% 70% 0.1%' 'limit 1000 loss gemodel p 1% r 10% 1-h 70% 1-k 0.1%'
show 'loss random 0.3% 25%' 'limit 1000 loss 0.3% 25%'
show 'drop 5%' 'limit 1000 loss 5%'
show 'loss 1% ecn' 'limit 1000 loss 1% ecn '  # netem_print_opt prints " ecn " with a trailing blank
show 'delay 10ms reorder 5% loss 1% ecn' 'limit 1000 delay 10ms loss 1% reorder 5% ecn  gap 1'  # " ecn " then " gap 1"
show 'corrupt 0.1% 10%' 'limit 1000 corrupt 0.1% 10%'
show 'duplicate 1% 50% delay 10ms 1ms 20%' 'limit 1000 delay 10ms  1ms 20% duplicate 1% 50%'
show 'delay 100ms 10ms reorder 2% gap 100' 'limit 1000 delay 100ms  10ms reorder 2% gap 100'
show 'delay 10ms reorder 25% 50%' 'limit 1000 delay 10ms reorder 25% 50% gap 1'  # gap 0 becomes 1
show 'rate 20000' 'limit 1000 rate 20Kbit'  # a bare rate is bit/s
show 'rate 100kbps' 'limit 1000 rate 800Kbit'  # kbps is kilobytes per second
show 'rate 10gbit' 'limit 1000 rate 10Gbit'
show 'rate 1.5mbit 20 100 -5' 'limit 1000 rate 1500Kbit packetoverhead 20 cellsize 100 celloverhead -5'
show 'slot 10 200 packets 2000 bytes 9000' 'limit 1000 slot 10ns 200ns packets 2000 bytes 9000'
show 'slot distribution pareto 1ms 0.1ms' 'limit 1000 slot distribution 1ms 100us'
show 'lim 50 del 20ms' 'limit 50 delay 20ms'  # keywords may be abbreviated, as tc's matches()
# iproute2 sends the duplicate correlation only along with a delay or loss correlation.
show 'duplicate 1% 50%' 'limit 1000 duplicate 1%'
show 'delay 10ms 1ms 10% duplicate 1% 50%' 'limit 1000 delay 10ms  1ms 10% duplicate 1% 50%'
show 'delay 5ms 1ms 30% distribution normal loss 0.5% 20% duplicate 0.2% corrupt 0.05% rate 100mbit limit 5000' \
  'limit 5000 delay 5ms  1ms 30% loss 0.5% 20% duplicate 0.2% corrupt 0.05% rate 100Mbit'


# Words as separate arguments are the same as one quoted string.
"$GW" profile from-netem delay 10ms 1ms loss 1% >words.json
"$GW" profile from-netem 'delay 10ms 1ms loss 1%' >quoted.json
same_profile words.json quoted.json || fail "from-netem: separate words and one quoted string give different profiles"
# --name names the profile; both directions carry the impairment.
"$GW" profile from-netem --name lab-link 'delay 7ms' >named.json
[[ $("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' named.json) == lab-link ]] ||
  fail "from-netem --name lab-link: the profile is not named lab-link"
run "$GW" profile to-netem --direction b_to_a named.json
[[ $out == 'limit 1000 delay 7ms' ]] || fail "from-netem: b_to_a does not get the impairment: [$out]"

# --- what iproute2 rejects: exit 2, the argument and the reason -----------------------------
# reject 'ARGS' 'EXPECTED STDERR (a prefix of it)' [gradwall-only]: exit 2 and the message;
# iproute2 rejects ARGS too unless marked gradwall-only (a value tc takes but a profile cannot
# hold: netem.h).
reject() {
  local args=$1 expected=$2 only=${3:-}
  [[ -n $only ]] || tc_rejects "$args"
  run "$GW" profile from-netem "$args"
  if [[ $rc -ne 2 ]]; then
    fail "from-netem '$args': expected exit 2 (iproute2 rejects it), got $rc, stdout [$out]"
  elif [[ $err != "$expected"* ]]; then
    fail "from-netem '$args': wrong message
     expected: $expected...
     actual:   $err"
  elif [[ -n $out ]]; then
    fail "from-netem '$args': rejected but printed a profile"
  fi
}
reject 'reorder 10%' 'gradwall: netem: argument 1 (`reorder`): reordering not possible without specifying some delay'
reject 'delay 10ms gap 5' 'gradwall: netem: argument 3 (`gap`): gap specified without reorder probability'
reject 'ecn' 'gradwall: netem: argument 1 (`ecn`): ecn requested without loss model'
reject 'distribution normal' \
  'gradwall: netem: argument 1 (`distribution`): distribution specified but no latency and jitter values'
reject 'delay 10ms foo 1' 'gradwall: netem: argument 3 (`foo`): unknown keyword (What is "foo"?)'
reject 'loss 1% loss 2%' 'gradwall: netem: argument 3 (`loss`): duplicate loss argument'
reject 'loss 150%' 'gradwall: netem: argument 2 (`150%`): not a percentage in [0%, 100%]'
reject 'loss gilbert 1%' 'gradwall: netem: argument 2 (`gilbert`): unknown loss model'
reject 'delay soon' 'gradwall: netem: argument 2 (`soon`): not a time'
reject 'rate fast' 'gradwall: netem: argument 2 (`fast`): not a rate'
reject 'delay' 'gradwall: netem: argument 1 (`delay`): needs a value'
reject 'limit 0' 'gradwall: netem: argument 2 (`0`): must be at least 1 packet' gradwall-only

# --- to-netem lists on stderr what netem cannot express -------------------------------------
run "$GW" profile to-netem "$SRC/profiles/wan/cross-continent.json"
[[ $rc -eq 0 && $out == 'limit '* ]] || fail "to-netem cross-continent.json: exit $rc, stdout [$out]"
[[ $err == *"gradwall: not expressible in netem: aqm red ("* ]] ||
  fail "to-netem cross-continent.json: the RED AQM is not listed on stderr: [$err]"
grep -qv '^gradwall: not expressible in netem: ' <<<"$err" &&
  fail "to-netem cross-continent.json: stderr lines not of the form 'gradwall: not expressible in netem: ...': [$err]"

cat >mixed.json <<'EOF'
{"gradwall": "profile/v1", "name": "mixed", "streams": "per_flow",
 "a_to_b": {"delay": {"delay_ms": 30, "jitter_ms": 2, "distribution": "normal", "reorder_policy": "preserve"},
            "loss": {"p": 0.001},
            "rate": {"rate_mbps": 100},
            "queue": {"limit_bytes": 1000000, "aqm": {"kind": "codel"}},
            "microbursts": [{"period_ms": 10, "burst_bytes": 30000}]},
 "classes": [{"name": "acks", "match": {"protocol": "tcp"}, "a_to_b": {}}],
 "phases": [{"at_s": 5, "a_to_b": {"delay": {"delay_ms": 60}}}]}
EOF
run "$GW" profile to-netem mixed.json
[[ $rc -eq 0 && $out == 'limit 1000 delay 30ms  2ms loss 0.1% rate 100Mbit' ]] ||
  fail "to-netem mixed.json: expected 'limit 1000 delay 30ms  2ms loss 0.1% rate 100Mbit', got exit $rc, [$out]"
for what in 'no packet limit' 'reorder_policy preserve' 'queue limit_bytes 1000000' 'aqm codel' \
  '1 microburst source(s)' '1 traffic class(es)' '1 phase(s)' 'per-flow random streams'; do
  [[ $err == *"gradwall: not expressible in netem: $what"* ]] || fail "to-netem mixed.json: '$what' not listed on stderr: [$err]"
done

# --- usage errors ----------------------------------------------------------------------------
run "$GW" profile to-netem missing.json
[[ $rc -eq 2 && $err == *"missing.json: no such file"* ]] || fail "to-netem missing.json: exit $rc, stderr [$err]"
run "$GW" profile to-netem --direction sideways mixed.json
[[ $rc -eq 2 && $err == *"--direction"* ]] || fail "to-netem --direction sideways: exit $rc, stderr [$err]"
run "$GW" profile to-netem
[[ $rc -eq 2 ]] || fail "to-netem without a file: expected exit 2, got $rc"
run "$GW" profile from-netem
[[ $rc -eq 2 ]] || fail "from-netem without arguments: expected exit 2, got $rc"

finish
