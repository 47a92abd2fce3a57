#!/usr/bin/env bash
# cli.emu_lcores: `gradwall emu` with two lcores (EAL -l 0,1): a_to_b on the main lcore, b_to_a
# on lcore 1, each lane's engine touched by its lcore only, both taking duplicates' copies from
# the one mempool. Profile: 2 ms each way, 20 % duplicates each way. Traffic: iperf3 TCP both
# ways at once (-P 2 forward and a reverse run), and pings.
# Checks: stderr says b_to_a runs on lcore 1; both lanes received and duplicated (> 0); both
# held small frames (ACKs, pings) as copies (held_as_copies > 0: emulator/dpdk/frame_store.h,
# duplicates sharing a copy) and full-size ones in their mbufs; each lane balances (received +
# duplicates = sent + dropped + held) and every mbuf is back in the pool after both lcores
# stopped.
# Needs root (namespaces, af_packet), iperf3; skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_lcores.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

command -v iperf3 >/dev/null || {
  echo "SKIP: $NAME needs iperf3"
  exit 0
}

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "dup-2lcores", "seed": 5,
 "a_to_b": {"delay": {"delay_ms": 2}, "duplicate": {"p": 0.2}}}
JSON

EMU_LCORES=0,1
emu_start p.json 20
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
grep -q 'b_to_a/q0 on lcore 1' emu.err || fail "stderr does not say b_to_a runs on lcore 1: $(<emu.err)"

emu_iperf_server
ip netns exec gw-a ping -q -c 200 -i 0.01 198.18.0.2 >ping.txt 2>&1 &
ping_pid=$!
emu_iperf -t 2 -P 2
((rc == 0)) || fail "iperf3 forward: exit $rc: $err"
grep receiver <<<"$out" | tail -n 1
emu_iperf -t 2 -R
((rc == 0)) || fail "iperf3 reverse: exit $rc: $err"
grep receiver <<<"$out" | tail -n 1
wait "$ping_pid" || true
tail -n 2 ping.txt

emu_stop
emu_check_stats s.json 1000
run "$PY" -c 'import json; s=json.load(open("s.json")); print(*(s[d][k] for d in ("a_to_b", "b_to_a") for k in ("received", "duplicates")))'
echo "a_to_b received, duplicates; b_to_a received, duplicates: $out"
read -r _ ab_dup _ ba_dup <<<"$out"
((ab_dup > 0 && ba_dup > 0)) || fail "want duplicates in both lanes, got $ab_dup and $ba_dup"
run "$PY" -c 'import json; s=json.load(open("s.json")); print(*(s[d]["held_as_copies"] for d in ("a_to_b", "b_to_a")))'
echo "held as copies a_to_b, b_to_a: $out"
read -r ab_copies ba_copies <<<"$out"
((ab_copies > 0 && ba_copies > 0)) || fail "want small frames held as copies in both lanes, got $out"

finish
