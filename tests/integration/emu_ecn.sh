#!/usr/bin/env bash
# cli.emu_ecn: an `ecn` loss profile on the namespace bench: a_to_b random loss p = 0.05 with
# "ecn": true (docs/profiles.md: the loss stage marks ECN-capable packets CE instead of
# dropping them; it still drops not-ECT ones: SYNs and pure ACKs), 5 ms each way.
# net.ipv4.tcp_ecn=1 in both namespaces, iperf3 TCP (cubic) gw-a -> gw-b for 3 s, with the
# emulator capturing (--capture) and dumpcap capturing inside gw-b. Checks:
#   - the receiver sees CE: frames with ECN = CE (3) in the capture taken on gw-b0 (> 0);
#   - the emulator counted CE marks a_to_b (> 0), and exactly as many CE frames left port 1
#     (port1-out.pcap) as it says it marked;
#   - no ECN-capable frame was dropped by that stage: ECT frames into port 0 (port0-in.pcap)
#     = frames with ECN != 0 out of port 1 (and nothing else drops: no queue in the profile);
#   - the sender saw the echo: TCP segments with ECE from gw-b (> 0); stats balance.
# Needs root (namespaces, af_packet), iperf3 and tshark; skipped with exit 0 otherwise.
# Usage: emu_ecn.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

for tool in iperf3 tshark dumpcap; do
  command -v "$tool" >/dev/null || {
    echo "SKIP: $NAME needs $tool"
    exit 0
  }
done

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "ecn-5pct", "seed": 11,
 "a_to_b": {"delay": {"delay_ms": 5}, "loss": {"model": "random", "p": 0.05, "ecn": true}},
 "b_to_a": {"delay": {"delay_ms": 5}}}
JSON

emu_start p.json 40 --capture cap
emu_quiet_bench
for side in a b; do
  ip netns exec "gw-$side" sysctl -qw net.ipv4.tcp_ecn=1
done
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

ip netns exec gw-b iperf3 -s -B 198.18.0.2 -p 5201 >server.out 2>&1 &
EMU_EXTRA_PIDS+=("$!")
ip netns exec gw-b dumpcap -q -i gw-b0 -f "tcp port 5201" -w "$TMP/rx.pcapng" >dumpcap.out 2>&1 &
EMU_EXTRA_PIDS+=("$!")
for _ in $(seq 1 100); do
  ip netns exec gw-b ss -Hltn 'sport = :5201' | grep -q LISTEN && grep -q "File:" dumpcap.out && break
  sleep 0.1
done

run ip netns exec gw-a iperf3 -c 198.18.0.2 -p 5201 -t 3 -C cubic -J
((rc == 0)) || fail "iperf3 exited $rc: $(tail -c 1000 <<<"$out") $err"
sleep 1
kill -INT "${EMU_EXTRA_PIDS[1]}" 2>/dev/null || true
wait "${EMU_EXTRA_PIDS[1]}" 2>/dev/null || true
emu_stop
emu_check_stats s.json 100

count() { tshark -r "$1" -Y "$2" -T fields -e frame.number 2>/dev/null | wc -l; }
rx_ce=$(count rx.pcapng 'ip.dst == 198.18.0.2 && ip.dsfield.ecn == 3')
ece=$(count rx.pcapng 'ip.src == 198.18.0.2 && tcp.flags.ece == 1')
in_ect=$(count cap/port0-in.pcap 'ip.dsfield.ecn != 0')
out_ect=$(count cap/port1-out.pcap 'ip.dsfield.ecn != 0')
out_ce=$(count cap/port1-out.pcap 'ip.dsfield.ecn == 3')
read -r marked loss < <("$PY" -c 'import json; s=json.load(open("s.json"))["a_to_b"]; print(s["marked_ce"], s["dropped"]["loss"])')
echo "receiver saw $rx_ce CE frames, sent $ece ECE segments; emu marked $marked, dropped $loss (not-ECT);"
echo "ECN-capable frames into port 0: $in_ect, out of port 1: $out_ect (CE: $out_ce)"
((rx_ce > 0)) || fail "the receiver saw no CE frame"
((marked > 0)) || fail "the emulator marked nothing"
((out_ce == marked)) || fail "port1-out.pcap has $out_ce CE frames, the emulator says it marked $marked"
((in_ect > 100 && in_ect == out_ect)) || fail "ECT frames in $in_ect != out $out_ect: an ECN-capable frame was dropped"
((ece > 0)) || fail "the receiver never echoed ECE"

finish
