#!/usr/bin/env bash
# cli.emu_int: INT stamping into packet bytes by `gradwall emu` (emulator/dpdk/int_stamp.h).
# Two net_pcap ports (no namespace bench): port 0 replays in0.pcap, made here by python3 with
# struct (no scapy): 3 UDP frames carrying an INT-MD v2 header (DSCP 0x17, shim + INT-MD,
# Hop ML 5 words, bitmap node id | hop latency | queue occupancy | egress timestamp, remaining
# hop count 4; UDP checksum set), 1 TCP frame over IPv6 likewise, 1 plain UDP frame (DSCP 0)
# and 1 INT-marked frame with a version-1 INT-MD header. The profile's a_to_b queue stamps
# telemetry (`queue.int.node_id` 7, 100 Mbit/s). Port 1 writes what a_to_b sent to out1.pcap.
# Checks, byte by byte on out1.pcap: each INT frame grew by exactly one 20-byte entry placed
# right after the INT-MD header (the rest of the frame unchanged, moved), with node id 7, a
# hop latency in (0, 1 ms], occupancy < 1 MB and an egress timestamp; remaining hop count 3;
# shim length +5 words; IP and UDP lengths +20; IPv4 header, UDP and TCP checksums valid; the
# plain and the malformed frame come out unchanged; the stats count int stamped 4, malformed 1,
# and balance. Needs root (DPDK EAL); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_int.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: $NAME needs root (DPDK EAL); CI runs it as root"
  exit 0
fi
prefix=gw-test-emu-int-$$
trap 'rm -rf "$TMP" "/var/run/dpdk/$prefix"; rmdir /var/run/dpdk 2>/dev/null || true' EXIT

cat >frames.py <<'EOF_PY'
# python3 frames.py make | check OUT.pcap: writes in0.pcap/in1.pcap, or checks the output.
import json, socket, struct, sys

DSCP_INT = 0x17
BITMAP = 0xB400  # node id, hop latency, queue id + occupancy, egress timestamp
HOP_WORDS = 5


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def l4_ok(src, dst, proto, seg):
    return csum(src + dst + struct.pack("!BBH", 0, proto, len(seg)) + seg) == 0xFFFF


def int_headers(version=2):
    shim = struct.pack("!BBH", 0x10, 4, DSCP_INT << 2)
    md = struct.pack("!BBBBHHHH", version << 4, 0, HOP_WORDS, 4, BITMAP, 0xABCD, 0, 0)
    return shim + md


def ipv4_udp(dscp, body):
    src, dst = socket.inet_aton("198.18.0.1"), socket.inet_aton("198.18.0.2")
    udp = struct.pack("!HHHH", 40000, 5001, 8 + len(body), 0) + body
    c = 0xFFFF - csum(src + dst + struct.pack("!BBH", 0, 17, len(udp)) + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", c) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2, 20 + len(udp), 1, 0, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", 0xFFFF - csum(ip)) + ip[12:]
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + udp


def ipv6_tcp(dscp, body):
    src = socket.inet_pton(socket.AF_INET6, "2001:db8::1")
    dst = socket.inet_pton(socket.AF_INET6, "2001:db8::2")
    tcp = struct.pack("!HHIIBBHHH", 40000, 5001, 1, 0, 0x50, 0x18, 1000, 0, 0) + body
    c = 0xFFFF - csum(src + dst + struct.pack("!IxxxB", len(tcp), 6) + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    ip = struct.pack("!IHBB", 0x60000000 | (dscp << 22), len(tcp), 6, 64) + src + dst
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x86\xdd" + ip + tcp


def frames():
    body = lambda i: int_headers() + b"payload-%d" % i
    return ([("int", ipv4_udp(DSCP_INT, body(i))) for i in range(3)] + [("int", ipv6_tcp(DSCP_INT, body(3)))]
            + [("plain", ipv4_udp(0, b"plain payload")), ("bad", ipv4_udp(DSCP_INT, int_headers(1) + b"x"))])


def write_pcap(path, pkts):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(pkts):
            f.write(struct.pack("<IIII", 1, i, len(p), len(p)) + p)


def read_pcap(path):
    data = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


if sys.argv[1] == "make":
    write_pcap("in0.pcap", [f for _, f in frames()])
    write_pcap("in1.pcap", [])
    sys.exit(0)

out = read_pcap(sys.argv[2])
sent = frames()
bad = []
if len(out) != len(sent):
    bad.append("%d frames out, want %d" % (len(out), len(sent)))
for (kind, a), b in zip(sent, out):
    if kind != "int":
        if a != b:
            bad.append("%s frame changed: %s -> %s" % (kind, a.hex(), b.hex()))
        continue
    v6 = a[12:14] == b"\x86\xdd"
    l4 = 14 + (40 if v6 else 20)
    shim = l4 + (20 if v6 else 8)
    md_end = shim + 16
    entry = b[md_end:md_end + 20]
    want = a[:md_end] + a[md_end:]  # the original, to compare around the entry
    if len(b) != len(a) + 20:
        bad.append("INT frame %d bytes, want %d + 20" % (len(b), len(a)))
        continue
    if b[md_end + 20:] != a[md_end:]:
        bad.append("bytes after the entry changed")
    if b[:12] != a[:12] or b[shim + 2:shim + 4] != a[shim + 2:shim + 4]:
        bad.append("Ethernet or shim tail changed")
    node, latency, occupancy, egress_ts = struct.unpack("!IIIQ", entry)
    if node != 7 or not (0 < latency <= 1_000_000) or occupancy >= 1 << 20 or egress_ts == 0:
        bad.append("entry node %d latency %d occupancy %d egress_ts %d" % (node, latency, occupancy, egress_ts))
    if b[shim + 1] != 4 + HOP_WORDS or b[shim + 4 + 3] != 3 or b[shim + 4] & 0x04:
        bad.append("shim length %d, remaining hop count %d, flags %#x" % (b[shim + 1], b[shim + 7], b[shim + 4]))
    if v6:
        plen = struct.unpack("!H", b[18:20])[0]
        if plen != len(b) - l4 or not l4_ok(b[22:38], b[38:54], 6, b[l4:]):
            bad.append("IPv6 payload length %d or TCP checksum wrong" % plen)
    else:
        total, = struct.unpack("!H", b[16:18])
        ulen, = struct.unpack("!H", b[l4 + 4:l4 + 6])
        if total != len(b) - 14 or ulen != len(b) - l4 or csum(b[14:34]) != 0xFFFF:
            bad.append("IPv4 total %d / UDP length %d / header checksum wrong" % (total, ulen))
        if not l4_ok(b[26:30], b[30:34], 17, b[l4:]):
            bad.append("UDP checksum wrong")
print("\n".join(bad) if bad else "all %d frames as expected" % len(out))
sys.exit(1 if bad else 0)
EOF_PY
"$PY" frames.py make

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "int", "a_to_b": {"rate": {"rate_mbps": 100}, "queue": {"int": {"node_id": 7}}},
 "b_to_a": {}}
JSON
run "$GW" emu --profile p.json --duration 2 --stats-json s.json -- --no-huge -m 256 --no-pci \
  --file-prefix="$prefix" -l 0 --vdev=net_pcap0,rx_pcap=in0.pcap,tx_pcap=out0.pcap \
  --vdev=net_pcap1,rx_pcap=in1.pcap,tx_pcap=out1.pcap
((rc == 0)) || fail "gradwall emu exited $rc (want 0): $out $err"

run "$PY" frames.py check out1.pcap
echo "$out"
((rc == 0)) || fail "out1.pcap: $out $err"

run "$PY" - s.json <<'EOF_PY'
import json, sys
d = json.load(open(sys.argv[1]))["a_to_b"]
bad = []
if d["int"] != {"stamped": 4, "exceeded": 0, "malformed": 1, "no_room": 0}:
    bad.append("int counters %s, want stamped 4, malformed 1" % d["int"])
if not d["balanced"] or d["received"] != 6 or d["sent"] != 6:
    bad.append("received %d sent %d balanced %s" % (d["received"], d["sent"], d["balanced"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
((rc == 0)) || fail "stats: $out"

finish
