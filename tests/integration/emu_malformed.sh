#!/usr/bin/env bash
# cli.emu_malformed: malformed frames through `gradwall emu` on the namespace bench
# (ci/bench-netns), 5 ms one-way delay each way. From gw-a a raw AF_PACKET socket (python3,
# no scapy) sends, REPS times each, frames whose source MAC is a marker (02:00:00:00:ba:d1):
# truncated Ethernet (< 14 B if the kernel sends it, else a bare 14 B header), IPv4 with
# IHL 15 in a 20-byte packet, IPv4 with IHL 1, IPv4 total length beyond the frame, IPv6
# header cut at 20 of 40 bytes, IPv6 with an SRH cut mid-way, UDP 4791 with a 3-byte BTH,
# TCP with data offset 15 and no options, 802.1Q with an IPv4 type and 2 bytes after the tag,
# QinQ with nothing after the inner tag, an IPv4 type with a 1-byte garbage payload. (The
# kernel refuses to send < 14 B, EINVAL, and drops on the veth's rx a tagged frame with fewer
# than 2 bytes after the tag's type, before any packet socket sees it: such frames cannot
# reach the emulator on this bench.) A raw socket in gw-b counts the marker frames that arrive.
# Checks: the emulator survives and a normal ping then answers with RTT in [10, 15] ms
# (2 x 5 ms; same tolerance reasoning as emu_ping); every marker frame is either delivered
# to gw-b or counted as dropped by the emulator (delivered + dropped(a_to_b) = sent; with a
# delay-only profile nothing else is dropped), never lost; a_to_b received includes them
# (>= sent + the pings); emu exits 0 on SIGTERM with balanced accounting and every mbuf back.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_malformed.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

REPS=20
PINGS=10

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "d5",
 "a_to_b": {"delay": {"delay_ms": 5}}, "b_to_a": {"delay": {"delay_ms": 5}}}
JSON

emu_start p.json 60
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

cat >frames.py <<'EOF_PY'
# python3 frames.py send|recv ...: the malformed frames (send) and their counter (recv).
import json, socket, struct, sys, time

MARK = bytes.fromhex("02000000bad1")  # source MAC of every malformed frame


def ipv4(payload_len, proto=17, ver_ihl=0x45, total=None, opts=b""):
    total = 20 + len(opts) + payload_len if total is None else total
    h = struct.pack("!BBHHHBBH4s4s", ver_ihl, 0, total, 1, 0, 64, proto, 0,
                    socket.inet_aton("198.18.0.1"), socket.inet_aton("198.18.0.2"))
    return h + opts


def frames(dst):
    eth = lambda t: dst + MARK + struct.pack("!H", t)
    udp = lambda dport, n: struct.pack("!HHHH", 4791, dport, 8 + n, 0)
    v6 = (struct.pack("!IHBB", 0x60000000, 64, 43, 64) + socket.inet_pton(socket.AF_INET6, "2001:db8::1")
          + socket.inet_pton(socket.AF_INET6, "2001:db8::2"))
    return [
        ("ipv4_ihl15_in_20B", eth(0x0800) + ipv4(0, ver_ihl=0x4F, total=20)),
        ("ipv4_ihl1", eth(0x0800) + ipv4(8, ver_ihl=0x41) + udp(9, 0)),
        ("ipv4_total_length_beyond_frame", eth(0x0800) + ipv4(8, total=1500) + udp(9, 0)),
        ("ipv6_cut_at_20B", eth(0x86DD) + struct.pack("!IHBB", 0x60000000, 8, 17, 64) + bytes(12)),
        ("ipv6_srh_cut", eth(0x86DD) + v6 + bytes([17, 6, 4, 2])),
        ("udp4791_bth_3B", eth(0x0800) + ipv4(11) + udp(4791, 3) + b"\x04\x00\xff"),
        ("tcp_doff15_no_options", eth(0x0800) + ipv4(20, proto=6)
         + struct.pack("!HHIIBBHHH", 1234, 80, 1, 0, 0xF0, 0x02, 1024, 0, 0)),
        # The kernel drops a tagged frame without 2 bytes after the tag's type (skb_vlan_untag
        # on the veth's rx, before any packet socket), so these are the shortest that get through.
        ("vlan_ipv4_2B_after_tag", dst + MARK + struct.pack("!HHHH", 0x8100, 7, 0x0800, 0x4500)),
        ("qinq_nothing_after_inner_tag", dst + MARK + struct.pack("!HHHH", 0x88A8, 7, 0x8100, 8)),
        ("ipv4_type_1B_garbage", eth(0x0800) + b"\xff"),
    ]


def send(iface, peer, reps):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    dst = bytes.fromhex(peer.replace(":", ""))
    sent, kinds = 0, {}
    trunc = (dst + MARK)[:10]
    try:
        s.send(trunc)
        first = ("ethernet_10B", trunc)
        sent += 1
        reps_first = reps - 1
    except OSError as e:
        first = ("ethernet_header_only_14B", dst + MARK + b"\x08\x00")
        kinds["ethernet_10B"] = "refused by the kernel: %s" % e
        reps_first = reps
    for _ in range(reps_first):
        s.send(first[1])
        sent += 1
    kinds[first[0]] = len(first[1])
    for name, f in frames(dst):
        for _ in range(reps):
            s.send(f)
            sent += 1
        kinds[name] = len(f)
    print(json.dumps({"sent": sent, "frames": kinds}))


def recv(iface, seconds, want, ready):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.bind((iface, 0))
    s.settimeout(0.2)
    open(ready, "w").close()
    got, lengths, end = 0, {}, time.time() + seconds
    while time.time() < end and got < want:
        try:
            f, addr = s.recvfrom(65536)
        except socket.timeout:
            continue
        if addr[2] != socket.PACKET_OUTGOING and f[6:12] == MARK:
            got += 1
            lengths[len(f)] = lengths.get(len(f), 0) + 1
    print(json.dumps({"received": got, "lengths": lengths}))


if sys.argv[1] == "send":
    send(sys.argv[2], sys.argv[3], int(sys.argv[4]))
else:
    recv(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
EOF_PY

kinds=11 # frame kinds sent (the truncated Ethernet one included)
peer=$(ip netns exec gw-b cat /sys/class/net/gw-b0/address)
ip netns exec gw-b "$PY" frames.py recv gw-b0 5 "$((kinds * REPS))" ready >recv.json 2>recv.err &
RECV_PID=$!
EMU_EXTRA_PIDS+=("$RECV_PID")
for _ in $(seq 1 50); do
  [[ -e ready ]] && break
  sleep 0.1
done

run ip netns exec gw-a "$PY" frames.py send gw-a0 "$peer" "$REPS"
((rc == 0)) || fail "sending the malformed frames: $out $err"
echo "$out"
sent=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["sent"])' "$out" 2>/dev/null || echo 0)
((sent == kinds * REPS)) || fail "sent $sent malformed frames, want $((kinds * REPS))"

set +e
wait "$RECV_PID"
set -e
delivered=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["received"])' recv.json 2>/dev/null || echo -1)
echo "gw-b saw $delivered of $sent marker frames: $(<recv.json)"

kill -0 "$EMU_PID" 2>/dev/null || fail "gradwall emu died after the malformed frames: $(<emu.err)"
run ip netns exec gw-a ping -c "$PINGS" -i 0.1 -W 1 198.18.0.2
echo "$out" | tail -2
loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' <<<"$out")
# The minimum RTT: the delay the emulator applied (2 x 5 ms) plus the bench's own overhead.
# Waiting for a CPU on a loaded machine only adds to single replies, so the average measures
# the machine, not the emulator (it reached 15.2 ms at load, with the minimum at 10.14 ms).
min_rtt=$(sed -n 's|^rtt min/avg/max/mdev = \([0-9.]*\)/.*|\1|p' <<<"$out")
[[ $loss == 0 ]] || fail "ping after the malformed frames lost ${loss:-?} % (want 0): $out"
if [[ -z $min_rtt ]] || ! "$PY" -c "import sys; sys.exit(0 if 10 <= $min_rtt <= 15 else 1)"; then
  fail "minimum RTT ${min_rtt:-?} ms, want [10, 15] (2 x 5 ms + bench overhead)"
fi

emu_stop
emu_check_stats s.json "$PINGS"
run "$PY" - s.json "$sent" "$delivered" "$PINGS" <<'EOF_PY'
import json, sys
s = json.load(open(sys.argv[1]))
sent, delivered, pings = (int(a) for a in sys.argv[2:5])
x = s["a_to_b"]
print("a_to_b: received %d, sent %d, dropped %s; port a ipackets %d"
      % (x["received"], x["sent"], {k: v for k, v in x["dropped"].items() if v},
         s["ports"]["a"]["ipackets"]))
bad = []
if delivered + x["dropped_total"] != sent:
    bad.append("marker frames: %d delivered to gw-b + %d dropped by the emulator != %d sent"
               % (delivered, x["dropped_total"], sent))
if x["received"] < sent + pings:
    bad.append("a_to_b received %d < %d malformed + %d pings" % (x["received"], sent, pings))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "malformed accounting: $err"

finish
