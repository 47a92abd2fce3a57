#!/usr/bin/env bash
# cli.emu_memory: the mbuf pool is sized from the profile (docs/guide/emu.md "Memory").
# A 100 ms delay each way on two net_null vdevs (10 Gbit/s links):
#   1. with -m 128 it stops with exit 3 and a message stating the MiB the pool needs and the
#      -m to use; the pool size printed on stderr is 2 x (10e9/8 x 0.1 / 1538 + 1) + ports and
#      caches (4544 on one lcore) = 167,094;
#   2. with exactly the -m the message gave, it starts, forwards for 1 s and exits 0 with every
#      mbuf back (so the advice is enough);
#   3. --mbufs 8191 overrides the sizing: runs with -m 128, mempool size 8191;
#   4. --copy-slots past its bound (2^26) exits 2 naming the option, before DPDK starts.
# No namespaces; needs root for DPDK's runtime folder; skipped with exit 0 otherwise.
# Usage: emu_memory.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: $NAME needs root (DPDK)"
  exit 0
fi
prefix=gw-test-memory-$$
trap 'rm -rf "/var/run/dpdk/$prefix" "$TMP"; rmdir /var/run/dpdk 2>/dev/null || true' EXIT

echo '{"gradwall": "profile/v1", "name": "d100", "a_to_b": {"delay": {"delay_ms": 100}}}' >p.json
emu() {
  local mem=$1
  shift
  run "$GW" emu --profile p.json --duration 1 --stats-json s.json "$@" -- --no-huge -m "$mem" --no-pci \
    --file-prefix="$prefix" -l 0 --vdev=net_null0,copy=1 --vdev=net_null1,copy=1
}

emu 128
grep 'mbuf pool' <<<"$err" || true
((rc == 3)) || fail "-m 128: exit $rc, want 3 (EAL memory too small)"
grep -q 'gradwall emu: mbuf pool 167094 mbufs' <<<"$err" || fail "want a pool of 167094 mbufs: $err"
msg=$(grep 'need about [0-9]* MiB' <<<"$err" || true)
echo "$msg"
m=$(sed -n 's/.*(-m \([0-9]*\) or more).*/\1/p' <<<"$msg")
[[ -n $m ]] || fail "the error does not state the -m to use: $err"

if [[ -n $m ]]; then
  emu "$m"
  ((rc == 0)) || fail "-m $m (as advised): exit $rc; $err"
  "$PY" -c 'import json; s=json.load(open("s.json")); assert s["mempool"]["size"] == 167094 and s["all_mbufs_returned"], s["mempool"]' ||
    fail "-m $m: pool not 167094 or mbufs missing"
fi

emu 128 --mbufs 8191
((rc == 0)) || fail "--mbufs 8191 with -m 128: exit $rc; $err"
"$PY" -c 'import json; s=json.load(open("s.json")); assert s["mempool"]["size"] == 8191, s["mempool"]' ||
  fail "--mbufs 8191 not honoured"

emu 128 --copy-slots 4294967295
((rc == 2)) || fail "--copy-slots 4294967295: exit $rc, want 2"
grep -q -- '--copy-slots.*must be in \[0, 67108864\]' <<<"$err" || fail "--copy-slots: want the bound named: $err"

finish
