#!/usr/bin/env bash
# cli.live_capture: what a live run puts on the wire is RoCEv2. tshark captures side a's link
# to the emulator (gw-a0, inside namespace gw-a: both directions; on gw-a-emu the emulator's
# af_packet port sends with PACKET_QDISC_BYPASS, which taps do not see) during a 4-rank ring all-reduce (10 ms one-way, 200 Mbit/s,
# no loss) and decodes it with its own dissector (UDP 4791 -> infiniband). Checks:
#  - every UDP datagram to port 4791 decodes as infiniband (BTH), and there are >= 1000 of them;
#  - both directions carry data (SEND opcodes) and ACKNOWLEDGEs;
#  - per QP (direction + BTH destination QP), the data PSNs are gap-free: each packet carries
#    either the next new PSN or one already seen (a retransmission, counted); a jump would be
#    a packet the transport never sent. With no loss configured, gaps can only come from the
#    endpoint, the emulator or the capture; a capture that reports drops fails the test with
#    that reason instead of blaming the transport.
# Needs root; takes /tmp/gw-bench.lock. Labels: cli;root;live.
# Usage: live_capture.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/live.bash
source "$SRC/tests/integration/lib/live.bash"

command -v tshark >/dev/null || {
  fail "tshark is missing (ci/setup-deps installs it)"
  finish
}
live_scenario "$TMP/cap.json" 10 200Mbit 0 1048576 3 cubic

# The bench up first, so that the capture runs before the first packet; the runner then leaves
# the bench as it found it (up), and this test takes it down.
"$SRC/ci/bench-netns" up
ip netns exec gw-a tshark -i gw-a0 -B 64 -w "$TMP/cap.pcapng" >"$TMP/tshark.out" 2>"$TMP/tshark.err" &
tshark_pid=$!
for _ in $(seq 1 100); do
  grep -q "Capturing on" "$TMP/tshark.err" 2>/dev/null && break
  sleep 0.1
done
run "$GW" run "$TMP/cap.json" --mode live --out "$TMP/out"
((rc == 0)) || fail "gradwall run --mode live exited $rc; stderr: $err"
sleep 0.5
kill -INT "$tshark_pid"
wait "$tshark_pid" || true
"$SRC/ci/bench-netns" down
cat "$TMP/tshark.err"
if grep -Eq "[1-9][0-9]* packets? dropped" "$TMP/tshark.err"; then
  fail "the capture itself dropped packets ($(grep -Eo "[0-9]+ packets? dropped" "$TMP/tshark.err")): PSNs cannot be checked"
  finish
fi

total=$(tshark -r "$TMP/cap.pcapng" -Y "udp.dstport == 4791 && !icmp" 2>/dev/null | wc -l)
icmp=$(tshark -r "$TMP/cap.pcapng" -Y "icmp" 2>/dev/null | wc -l)
echo "ICMP messages in the capture (not RoCEv2; e.g. port unreachable after an endpoint closed): $icmp"
tshark -r "$TMP/cap.pcapng" -Y "infiniband && !icmp" -T fields -E separator=, -e ip.src -e ip.dst \
  -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn >"$TMP/bth.csv"
run "$PY" - "$TMP/bth.csv" "$total" <<'EOF_PY'
import collections, sys
rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.strip()]
total = int(sys.argv[2])
bad = []
print("%d datagrams to UDP 4791, %d decoded as infiniband" % (total, len(rows)))
if len(rows) != total:
    bad.append("%d of %d RoCEv2 datagrams did not decode as infiniband" % (total - len(rows), total))
if len(rows) < 1000:
    bad.append("only %d RoCEv2 packets captured (want >= 1000)" % len(rows))
data_ops = {0, 1, 2, 4, 6, 7, 8, 10}
top = {}
retrans = collections.Counter()
kinds = collections.Counter()
for src, dst, op, qp, psn in rows:
    op, qp, psn = int(op, 0), int(qp, 0), int(psn, 0)
    kinds[(src, "data" if op in data_ops else "ack" if op == 0x11 else hex(op))] += 1
    if op not in data_ops:
        continue
    key = (src, dst, qp)
    if key not in top:
        top[key] = psn
    elif psn == top[key] + 1:
        top[key] = psn
    elif psn <= top[key]:
        retrans[key] += 1
    else:
        bad.append("QP %s %s->%s: PSN %d after %d (a gap)" % (hex(qp), src, dst, psn, top[key]))
        top[key] = psn
print("packets by sender and kind:", dict(kinds))
for key in sorted(top):
    print("QP %s %s->%s: PSNs up to %d, %d retransmitted" % (hex(key[2]), key[0], key[1], top[key], retrans[key]))
for src in ("198.18.0.1", "198.18.0.2"):
    for kind in ("data", "ack"):
        if kinds[(src, kind)] == 0:
            bad.append("no %s packets from %s" % (kind, src))
print("\n".join(bad[:20]), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "capture: $err"

live_check_no_leaks "$TMP/cap.json"
finish
