#!/usr/bin/env bash
# cli.validate: `gradwall profile validate` accepts every shipped profile and rejects bad ones
# with exit 2 and exactly one stderr line per bad file: "FILE: JSON-PATH: REASON".
# Usage: validate.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# --- every shipped profile validates --------------------------------------------------------
shipped=("$SRC"/profiles/wan/*.json)
[[ -e ${shipped[0]} ]] || fail "no profiles found in $SRC/profiles/wan"
for f in "${shipped[@]}"; do
  run "$GW" profile validate "$f"
  if [[ $rc -ne 0 || $out != "$f: ok (profile "* || -n $err ]]; then
    fail "shipped profile $f: expected exit 0 and \"$f: ok ...\", got exit $rc, stdout [$out], stderr [$err]"
  fi
done
# All at once too: one "ok" line per file.
run "$GW" profile validate "${shipped[@]}"
oks=$(grep -c ': ok (profile ' <<<"$out" || true)
[[ $rc -eq 0 && $oks -eq ${#shipped[@]} ]] ||
  fail "all shipped profiles at once: expected exit 0 and ${#shipped[@]} ok lines, got exit $rc and $oks"

# --- bad profiles: exit 2 and the exact error line ------------------------------------------
# bad NAME 'FILE CONTENT' 'EXPECTED STDERR LINE': writes NAME.json, validates it alone.
bad() {
  local name=$1 content=$2 expected=$3
  printf '%s\n' "$content" >"$name.json"
  run "$GW" profile validate "$name.json"
  if [[ $rc -ne 2 ]]; then
    fail "$name.json: expected exit 2, got $rc (stdout [$out], stderr [$err])"
  elif [[ $err != "$expected" ]]; then
    fail "$name.json: wrong error line
     expected: $expected
     actual:   $err"
  elif [[ -n $out ]]; then
    fail "$name.json: nothing expected on stdout for a bad file, got [$out]"
  fi
}

V='"gradwall": "profile/v1", "name": "t"'
bad loss-range "{$V, \"a_to_b\": {\"loss\": {\"p\": 1.5}}}" \
  'loss-range.json: $.a_to_b.loss.p: must be in [0, 1], got 1.5'
bad corr-range "{$V, \"a_to_b\": {\"delay\": {\"delay_ms\": 5, \"jitter_ms\": 1, \"correlation\": 1.2}}}" \
  'corr-range.json: $.a_to_b.delay.correlation: must be in [0, 1], got 1.2'
bad negative-delay "{$V, \"a_to_b\": {\"delay\": {\"delay_ms\": -5}}}" \
  'negative-delay.json: $.a_to_b.delay.delay_ms: must be in [0, 3600000], got -5'
bad typo-stage "{$V, \"a_to_b\": {\"dealy\": {\"delay_ms\": 5}}}" \
  'typo-stage.json: $.a_to_b.dealy: unknown key (did you mean "delay"?)'
bad typo-field "{$V, \"a_to_b\": {\"delay\": {\"delay_ms\": 5, \"jiter_ms\": 1}}}" \
  'typo-field.json: $.a_to_b.delay.jiter_ms: unknown key (did you mean "jitter_ms"?)'
bad typo-top '{"gradwall": "profile/v1", "nmae": "t"}' \
  'typo-top.json: $.nmae: unknown key (did you mean "name"?)'
bad unknown-far "{$V, \"a_to_b\": {\"zzzzzz\": {}}}" \
  'unknown-far.json: $.a_to_b.zzzzzz: unknown key'
bad two-spellings "{$V, \"a_to_b\": {\"delay\": {\"delay_ms\": 5, \"delay_us\": 5}}}" \
  'two-spellings.json: $.a_to_b.delay.delay_ms: gives delay twice (also as delay_us)'
bad version '{"gradwall": "profile/v2", "name": "t"}' \
  'version.json: $.gradwall: must be "profile/v1", got "profile/v2"'
bad no-version '{"name": "t"}' \
  'no-version.json: $.gradwall: is required ("profile/v1")'
bad wrong-type "{$V, \"seed\": \"one\"}" \
  'wrong-type.json: $.seed: must be an integer in [0, 2^64-1], got "one"'
bad not-object "{$V, \"a_to_b\": {\"delay\": 5}}" \
  'not-object.json: $.a_to_b.delay: must be an object, got 5'
bad top-array '[1]' \
  'top-array.json: $: must be an object, got [1]'
bad aqm-kind "{$V, \"a_to_b\": {\"queue\": {\"aqm\": {\"kind\": \"blue\"}}}}" \
  'aqm-kind.json: $.a_to_b.queue.aqm.kind: must be one of droptail, red, codel, pie, dualpi2, threshold, got "blue"'
bad red-thresholds "{$V, \"a_to_b\": {\"rate\": {\"rate_gbps\": 1}, \"queue\": {\"aqm\": {\"kind\": \"red\", \"min_bytes\": 1000, \"max_bytes\": 500}}}}" \
  'red-thresholds.json: $.a_to_b.queue.aqm.max_bytes: must be greater than min_bytes'
bad reorder-no-delay "{$V, \"a_to_b\": {\"reorder\": {\"p\": 0.1}}}" \
  'reorder-no-delay.json: $.a_to_b.reorder: needs a delay (reordering is not possible without some delay)'
bad class-match "{$V, \"classes\": [{\"name\": \"c\", \"match\": {\"protocol\": \"sctpx\"}, \"a_to_b\": {}}]}" \
  'class-match.json: $.classes[0].match.protocol: must be one of tcp, udp, icmp, icmpv6, got "sctpx"'
bad phase-patch "{$V, \"a_to_b\": {\"delay\": {\"delay_ms\": 5}}, \"phases\": [{\"at_s\": 1, \"a_to_b\": {\"loss\": {\"p\": 2}}}]}" \
  'phase-patch.json: $.phases[0].a_to_b.loss.p: must be in [0, 1], got 2'

# Invalid JSON: line and column of the first bad character (the '}' after a trailing comma).
bad syntax $'{"gradwall": "profile/v1",\n  "name": "t",\n  "a_to_b": {"delay": {"delay_ms": 5,}}}' \
  'syntax.json: line 3, column 38: invalid JSON'
bad trailing-garbage "{$V} {}" \
  'trailing-garbage.json: line 1, column 41: invalid JSON'
: >empty.json
run "$GW" profile validate empty.json
[[ $rc -eq 2 && $err == 'empty.json: line 1, column 1: invalid JSON' ]] ||
  fail "empty file: expected exit 2 and 'empty.json: line 1, column 1: invalid JSON', got exit $rc, stderr [$err]"

# A missing file.
run "$GW" profile validate missing.json
[[ $rc -eq 2 && $err == 'missing.json: no such file' ]] ||
  fail "missing file: expected exit 2 and 'missing.json: no such file', got exit $rc, stderr [$err]"

# A directory, and a key given twice (the JSON reader would otherwise keep the last one).
mkdir -p adir
run "$GW" profile validate adir
[[ $rc -eq 2 && $err == 'adir: is a directory, not a JSON file' ]] ||
  fail "directory: expected exit 2 and 'adir: is a directory, not a JSON file', got exit $rc, stderr [$err]"
printf '%s' '{"gradwall": "profile/v1", "a_to_b": {"loss": {"p": 0.1, "p": 0.2}}}' >dup.json
run "$GW" profile validate dup.json
[[ $rc -eq 2 && $err == "dup.json: \$.a_to_b.loss.p: key given twice (a JSON object's keys must be unique)" ]] ||
  fail "duplicate key: expected exit 2 and the key's path, got exit $rc, stderr [$err]"

# --- several files, one bad: exit 2, the bad one on stderr, every good one still "ok" --------
cp "${shipped[0]}" good1.json
cp "${shipped[-1]}" good2.json
run "$GW" profile validate good1.json loss-range.json good2.json missing.json
[[ $rc -eq 2 ]] || fail "several files with bad ones: expected exit 2, got $rc"
for g in good1.json good2.json; do
  grep -q "^$g: ok (profile " <<<"$out" || fail "several files: $g not reported ok (stdout [$out])"
done
expected_err=$'loss-range.json: $.a_to_b.loss.p: must be in [0, 1], got 1.5\nmissing.json: no such file'
[[ $err == "$expected_err" ]] || fail "several files: expected stderr [$expected_err], got [$err]"

# --- usage -----------------------------------------------------------------------------------
run "$GW" profile validate --help
[[ $rc -eq 0 && $out == *"gradwall profile validate FILE..."* ]] || fail "validate --help: exit $rc, stdout [$out]"
run "$GW" profile validate
[[ $rc -eq 2 ]] || fail "validate without a file: expected exit 2, got $rc"

finish
