#!/usr/bin/env bash
# cli.emu_ping: `gradwall emu` on the namespace bench (ci/bench-netns) with a 20 ms one-way
# constant delay. Checks: ping from gw-a to gw-b averages an RTT in [40, 45] ms with 0 % loss,
# emu exits 0 by itself after --duration, and its --stats-json balances in each direction
# (received + duplicates = sent + dropped + held) with every mbuf back in the pool.
# RTT tolerance: 2 x 20 ms is the configured floor; through a bare DPDK forwarder the bench
# adds ~0.1 ms (MACHINE.md: kernel, af_packet, polling), so 45 ms leaves 5 ms for a loaded
# 2-vCPU machine while still catching a delay applied twice or not at all.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_ping.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: $NAME needs root (network namespaces, af_packet); CI runs it as root"
  exit 0
fi

PREFIX=gw-test-$$
EMU_PID=
cleanup() {
  if [[ -n $EMU_PID ]] && kill -0 "$EMU_PID" 2>/dev/null; then
    kill -TERM "$EMU_PID" 2>/dev/null || true
    wait "$EMU_PID" 2>/dev/null || true
  fi
  "$SRC/ci/bench-netns" down || true
  rm -rf "/var/run/dpdk/$PREFIX"
  rmdir /var/run/dpdk 2>/dev/null || true # EAL made it if it was missing; leave others' folders
  rm -rf "$TMP"
}
trap cleanup EXIT

"$SRC/ci/bench-netns" up

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "d20", "a_to_b": {"delay": {"delay_ms": 20}}}
JSON

"$GW" emu --profile p.json --duration 15 --stats-json s.json -- \
  --no-huge -m 512 --no-pci --file-prefix="$PREFIX" -l 0 \
  --vdev=net_af_packet0,iface=gw-a-emu,framecnt=4096 \
  --vdev=net_af_packet1,iface=gw-b-emu,framecnt=4096 >emu.out 2>emu.err &
EMU_PID=$!

# Wait until it forwards (EAL start, ARP through the emulator): one ping answered.
forwarding=0
for _ in $(seq 1 40); do
  if ip netns exec gw-a ping -c 1 -W 1 198.18.0.2 >/dev/null 2>&1; then
    forwarding=1
    break
  fi
  kill -0 "$EMU_PID" 2>/dev/null || break
  sleep 0.2
done
if ((forwarding == 0)); then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

run ip netns exec gw-a ping -c 20 -i 0.2 198.18.0.2
echo "$out" | tail -2
loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
avg=$(sed -n 's|^rtt min/avg/max/mdev = [0-9.]*/\([0-9.]*\)/.*|\1|p' <<<"$out")
[[ $loss == 0 ]] || fail "ping lost ${loss:-?} % (want 0): $out"
if [[ -z $avg ]] || ! "$PY" -c "import sys; sys.exit(0 if 40 <= $avg <= 45 else 1)"; then
  fail "average RTT ${avg:-?} ms, want [40, 45] (2 x 20 ms + bench overhead)"
fi

set +e
wait "$EMU_PID"
emu_rc=$?
set -e
EMU_PID=
((emu_rc == 0)) || fail "gradwall emu exited $emu_rc (want 0); stdout: $(<emu.out) stderr: $(<emu.err)"

if [[ -s s.json ]]; then
  run "$PY" - s.json <<'EOF_PY'
import json, sys
s = json.load(open(sys.argv[1]))
bad = []
for d in ("a_to_b", "b_to_a"):
    x = s[d]
    if x["received"] + x["duplicates"] != x["sent"] + x["dropped_total"] + x["held"]:
        bad.append("%s: received %d + duplicates %d != sent %d + dropped %d + held %d"
                   % (d, x["received"], x["duplicates"], x["sent"], x["dropped_total"], x["held"]))
    if x["dropped_total"] != sum(x["dropped"].values()):
        bad.append("%s: dropped_total is not the sum of its causes" % d)
    if x["received"] < 20:
        bad.append("%s: received only %d (20 pings went through)" % (d, x["received"]))
if s["mempool"]["available"] != s["mempool"]["size"]:
    bad.append("mbufs not back in the pool: %s" % s["mempool"])
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
  ((rc == 0)) || fail "stats JSON: $out"
else
  fail "gradwall emu wrote no --stats-json"
fi

finish
