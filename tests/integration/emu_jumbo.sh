#!/usr/bin/env bash
# cli.emu_jumbo: jumbo frames through `gradwall emu` on the namespace bench. MTU 9000 on the
# four veth ends; af_packet with framesz=10240 (docs/bench-machine.md) and `--max-frame-bytes 10240`
# (mbuf data room 10368: a whole frame per mbuf, as af_packet needs); 5 ms one-way delay;
# `--rt-priority 10` so that the lcore's naps end on time on a loaded machine (without it the
# median RTT here was 13-17 ms: wakeups waiting for a CPU, not the frames' size).
# Checks: `ping -M do -s 8000` (8028-byte IP packets, never fragmented) from gw-a to gw-b:
# 10 of 10 answered, median RTT in [10, 15] ms (2 x 5 ms; tolerance as in emu_ping; the
# median, as emu_control does, because a loaded 2-vCPU machine delays a few pings); the
# emulator received >= 10 frames of 8042 bytes each way (received_bytes / received > 8000 in
# a_to_b, whose only traffic are the pings on this quiet bench); a 1472-byte ping still works;
# accounting balanced and every mbuf back. Needs root; skipped with exit 0 otherwise.
# Labels: cli;root.
# Usage: emu_jumbo.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "d5", "a_to_b": {"delay": {"delay_ms": 5}}}
JSON

"$SRC/ci/bench-netns" up
ip link set gw-a-emu mtu 9000
ip link set gw-b-emu mtu 9000
ip -n gw-a link set gw-a0 mtu 9000
ip -n gw-b link set gw-b0 mtu 9000
EMU_AF_PACKET=framecnt=1024,framesz=10240,blocksz=20480
EMU_MEM_MB=400
emu_start p.json 30 --max-frame-bytes 10240 --mbufs 8192 --rt-priority 10
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi
emu_quiet_bench
sleep 0.5
run ip netns exec gw-a ping -M do -s 8000 -c 10 -i 0.2 198.18.0.2
echo "$out" | tail -2
loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
median=$("$PY" -c 'import re, statistics, sys; t = [float(x) for x in re.findall(r"time=([0-9.]+) ms", sys.stdin.read())]; print(statistics.median(t) if t else "")' <<<"$out")
[[ $loss == 0 ]] || fail "8000-byte ping lost ${loss:-?} % (want 0): $out $err"
if [[ -z $median ]] || ! "$PY" -c "import sys; sys.exit(0 if 10 <= $median <= 15 else 1)"; then
  fail "median RTT ${median:-?} ms, want [10, 15] (2 x 5 ms + bench overhead)"
fi
run ip netns exec gw-a ping -M do -s 1472 -c 3 -i 0.2 198.18.0.2
[[ $rc == 0 ]] || fail "1472-byte ping failed: $out $err"

emu_stop
emu_check_stats s.json 13
run "$PY" - s.json <<'EOF_PY'
import json, sys
s = json.load(open(sys.argv[1]))
bad = []
for d in ("a_to_b", "b_to_a"):
    x = s[d]
    print("%s: received %d frames, %d bytes" % (d, x["received"], x["received_bytes"]))
    if x["received"] < 13 or x["received_bytes"] < 10 * 8042:
        bad.append("%s: received %d frames / %d bytes, want >= 10 of 8042 bytes" % (d, x["received"], x["received_bytes"]))
    if x["sent_bytes"] != x["received_bytes"]:
        bad.append("%s: sent %d bytes of %d received" % (d, x["sent_bytes"], x["received_bytes"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "stats: $out"

finish
