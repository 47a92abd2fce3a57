#!/usr/bin/env bash
# cli.hardening: inputs that crashed or hung gradwall (issue 14) are refused with exit 2 and a
# line naming the file, the JSON path and the reason, within a few seconds each:
#  - JSON nested 100,000 levels deep (overflowed the stack: SIGSEGV), in a profile, a scenario
#    and `profile probe`;
#  - a number a double cannot hold (1e400, a 400-digit integer): was exit 3, "internal error";
#  - a distribution table, a rate trace, a Mahimahi trace or a scenario's WAN profile naming
#    /dev/zero or /dev/urandom, and `from-netem ... distribution /dev/zero`: never ended,
#    2-4 GB read.
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

finish
