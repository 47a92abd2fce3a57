#!/usr/bin/env bash
# cli.replay: `gradwall replay` on a capture written here, read back with tshark.
#
# IN: 300 Ethernet/IPv4/UDP frames 1 ms apart, IP ID = frame index, ECT(0) except every tenth
# (Not-ECT). Profile: 10 ms constant delay and 20 % loss with `ecn`, so ECT packets are marked
# CE instead of dropped and Not-ECT packets are dropped. Checks: every record of OUT is its IN
# record + 10 ms (within 1 us); CE-marked records carry a good IPv4 header checksum; the record
# count is `delivered` of the --json summary, the CE count `marked_ce`, the missing records
# exactly the `dropped` Not-ECT ones. Then the errors: a truncated IN (exit 2, file and record
# named, no OUT left), a non-Ethernet IN (exit 2).
# Usage: replay.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# fields PCAP: one line per record: epoch time, IP ID, ECN, IPv4 checksum status (1 = Good).
fields() {
  tshark -r "$1" -T fields -e frame.time_epoch -e ip.id -e ip.dsfield.ecn -e ip.checksum.status \
    -o ip.check_checksum:TRUE 2>"$TMP/tshark.err" || {
    echo "tshark could not read $1: $(<"$TMP/tshark.err")" >&2
    return 1
  }
}

# --- IN: a microsecond pcap (magic a1b2c3d4), link type Ethernet ----------------------------
"$PY" - in.pcap 300 <<'EOF'
import struct, sys
path, count = sys.argv[1], int(sys.argv[2])

def checksum(header):
    s = sum(struct.unpack("!%dH" % (len(header) // 2), header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF

with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))  # LINKTYPE_ETHERNET
    for i in range(count):
        payload = struct.pack("!I", i) + bytes(60)
        udp = struct.pack("!HHHH", 10000, 5201, 8 + len(payload), 0) + payload
        tos = 0x00 if i % 10 == 9 else 0x02  # Not-ECT every tenth, else ECT(0)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(udp), i, 0, 64, 17, 0,
                         bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2]))
        ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
        frame = bytes.fromhex("020000000002" "020000000001" "0800") + ip + udp
        t_us = 1_700_000_000_000_000 + i * 1000
        f.write(struct.pack("<IIII", t_us // 1_000_000, t_us % 1_000_000, len(frame), len(frame)))
        f.write(frame)
EOF

cat >ecn10.json <<'EOF'
{"gradwall": "profile/v1", "name": "ecn-10ms", "seed": 7,
 "a_to_b": {"delay": {"delay_ms": 10}, "loss": {"p": 0.2, "ecn": true}}}
EOF

run "$GW" replay in.pcap out.pcap --profile ecn10.json --json
printf '%s\n' "$out" >summary.json
if [[ $rc -ne 0 ]]; then
  fail "replay: expected exit 0, got $rc, stderr [$err]"
elif ! fields in.pcap >in.txt || ! fields out.pcap >out.txt; then
  fail "replay: tshark could not read IN or OUT"
elif ! msg=$("$PY" - summary.json in.txt out.txt 2>&1 <<'EOF'
import json, sys
summary = json.load(open(sys.argv[1]))

def read(path):
    rows = []
    for line in open(path):
        t, ip_id, ecn, status = line.rstrip("\n").split("\t")
        sec, _, frac = t.partition(".")
        ns = int(sec) * 10**9 + int((frac + "000000000")[:9])  # exact: no float rounding
        rows.append((ns, int(ip_id, 0), int(ecn, 0), status))
    return rows

inp, out = read(sys.argv[2]), read(sys.argv[3])
problems = []
sent = {ip_id: (ns, ecn) for ns, ip_id, ecn, _ in inp}
if len(inp) != 300 or summary["packets_in"] != 300:
    problems.append(f"IN has {len(inp)} records, summary packets_in {summary['packets_in']}, expected 300")
if len(out) != summary["delivered"]:
    problems.append(f"OUT has {len(out)} records but the summary says delivered {summary['delivered']}")
ce = [r for r in out if r[2] == 3]
if len(ce) != summary["marked_ce"] or not ce:
    problems.append(f"OUT has {len(ce)} CE records, summary marked_ce {summary['marked_ce']} (expected > 0)")
for ns, ip_id, ecn, status in out:
    t_in, ecn_in = sent[ip_id]
    if abs(ns - (t_in + 10_000_000)) > 1000:
        problems.append(f"IP ID {ip_id}: written at {ns} ns, IN at {t_in} ns: not IN + 10 ms (+-1 us)")
    if ecn not in (ecn_in, 3) or (ecn == 3 and ecn_in == 0):
        problems.append(f"IP ID {ip_id}: ECN {ecn_in} in IN became {ecn}")
    if status != "1":
        problems.append(f"IP ID {ip_id} (ECN {ecn}): IPv4 header checksum status {status}, expected 1 (Good)")
if [r[0] for r in out] != sorted(r[0] for r in out):
    problems.append("OUT records are not in time order")
missing = set(sent) - {r[1] for r in out}
if any(sent[i][1] != 0 for i in missing):
    problems.append(f"ECN-capable packets were dropped instead of marked: {sorted(i for i in missing if sent[i][1])}")
if len(missing) != summary["dropped"]["loss"] or len(missing) != summary["dropped_total"]:
    problems.append(f"{len(missing)} records missing from OUT, summary dropped {summary['dropped']}")
if summary["held_at_end"] != 0 or summary["duplicated"] != 0:
    problems.append(f"held_at_end {summary['held_at_end']}, duplicated {summary['duplicated']}: expected 0")
d = summary["delay_ns"]
if not (d["min"] == d["p50"] == d["max"] == 10_000_000):
    problems.append(f"delay_ns {d}: expected exactly 10 ms everywhere")
if problems:
    sys.exit("; ".join(problems[:10]) + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""))
EOF
); then
  fail "replay: $msg"
fi

# OUT is a nanosecond pcap (magic a1b23c4d, written little-endian), whatever IN's precision.
magic=$(od -A n -t x1 -N 4 out.pcap 2>/dev/null | tr -d ' ') || true
[[ $magic == 4d3cb2a1 ]] || fail "OUT: expected a nanosecond pcap (magic bytes 4d3cb2a1), got $magic"

# The same seed gives the same bytes; the table form reports the same counts.
run "$GW" replay in.pcap again.pcap --profile ecn10.json
cmp -s out.pcap again.pcap || fail "replay twice with the same seed: OUT differs"
[[ $rc -eq 0 && $out == "replayed in.pcap -> again.pcap through profile ecn-10ms"* && $out == *"marked CE"* ]] ||
  fail "replay table: exit $rc, [$out]"

# --- a truncated IN: exit 2, the file and the record named, no OUT ---------------------------
# Records are 16 + 106 bytes after the 24-byte file header: cut record 101 in its middle.
head -c $((24 + 100 * 122 + 50)) in.pcap >cut.pcap
run "$GW" replay cut.pcap cut-out.pcap --profile ecn10.json
[[ $rc -eq 2 ]] || fail "truncated IN: expected exit 2, got $rc"
[[ $err == "gradwall: cut.pcap: record 101: "* ]] ||
  fail "truncated IN: expected 'gradwall: cut.pcap: record 101: ...', got [$err]"
[[ ! -e cut-out.pcap ]] || fail "truncated IN: OUT was left behind"
# An OUT that already exists stays as it was.
echo "keep me" >existing.pcap
run "$GW" replay cut.pcap existing.pcap --profile ecn10.json
[[ $rc -eq 2 && $(<existing.pcap) == "keep me" ]] || fail "truncated IN: an existing OUT was changed (exit $rc)"
leftovers=$(find . -name '*.partial.*')
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"

# --- a capture that is not Ethernet (raw IPv4, LINKTYPE_RAW 101): exit 2 ---------------------
echo '0000  45 00 00 1c 00 01 00 00 40 11 00 00 c6 12 00 01 c6 12 00 02 27 10 14 51 00 08 00 00' >raw.txt
text2pcap -q -F pcap -l 101 raw.txt raw.pcap >text2pcap.log 2>&1 || {
  echo "FAIL: text2pcap could not write raw.pcap: $(<text2pcap.log)" >&2
  exit 1
}
run "$GW" replay raw.pcap raw-out.pcap --profile ecn10.json
[[ $rc -eq 2 && $err == *"raw.pcap: link type RAW is not Ethernet"* ]] ||
  fail "raw IP capture: expected exit 2 and 'raw.pcap: link type RAW is not Ethernet', got exit $rc, [$err]"
[[ ! -e raw-out.pcap ]] || fail "raw IP capture: OUT was written"

# --- usage errors -----------------------------------------------------------------------------
run "$GW" replay in.pcap noprofile.pcap
[[ $rc -eq 2 && $err == *"--profile"* ]] || fail "replay without --profile: exit $rc, [$err]"
run "$GW" replay in.pcap s-out.pcap --profile ecn10.json --seed -1
[[ $rc -eq 2 && $err == *"--seed"* && ! -e s-out.pcap ]] || fail "replay --seed -1: exit $rc, [$err]"
run "$GW" replay missing.pcap m-out.pcap --profile ecn10.json
[[ $rc -eq 2 && $err == *"missing.pcap"* ]] || fail "replay missing.pcap: exit $rc, [$err]"
run "$GW" replay in.pcap "$TMP/no/such/dir/out.pcap" --profile ecn10.json
[[ $rc -eq 3 ]] || fail "replay into a missing folder: expected exit 3 (environment), got $rc, [$err]"

finish
