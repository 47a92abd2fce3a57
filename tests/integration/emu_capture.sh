#!/usr/bin/env bash
# cli.emu_capture: `gradwall emu --capture DIR` on the namespace bench (quiet: permanent ARP
# entries, IPv6 off, so only the test's pings cross).
# Run 1 (default bound, 100 MiB per file): tshark reads back port{0,1}-{in,out}.pcap and each
#   file's packet count EQUALS the exit stats (port0-in = a_to_b received, port1-out = a_to_b
#   sent, port1-in = b_to_a received, port0-out = b_to_a sent); the lost pings (10 % loss
#   a_to_b) show as port0-in > port1-out; nothing counted as not captured.
# Run 2 (--capture-max-mb 0.002 = 2097 bytes per file): every file stays within the bound,
#   tshark's count = "captured", and captured + size_limit = the stats' count: what was not
#   written is counted, not lost.
# Needs root (namespaces, af_packet) and tshark; skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_capture.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

command -v tshark >/dev/null || {
  echo "SKIP: $NAME needs tshark"
  exit 0
}

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "capture-test", "seed": 3,
 "a_to_b": {"delay": {"delay_ms": 2}, "loss": {"p": 0.1}}}
JSON

check_capture() {
  run "$PY" - s.json "$1" <<'EOF_PY'
import json, os, subprocess, sys
s = json.load(open(sys.argv[1]))
bound = float(sys.argv[2]) * 1024 * 1024
want = {"port0-in.pcap": s["a_to_b"]["received"], "port1-out.pcap": s["a_to_b"]["sent"],
        "port1-in.pcap": s["b_to_a"]["received"], "port0-out.pcap": s["b_to_a"]["sent"]}
bad = []
for f in s["capture"]:
    name = os.path.basename(f["file"])
    n = int(subprocess.run(["tshark", "-r", f["file"], "-T", "fields", "-e", "frame.number"],
                           capture_output=True, text=True, check=True).stdout.split().__len__())
    size = os.path.getsize(f["file"])
    print("%s: tshark %d frames, %d bytes; stats %d; captured %d, ring_full %d, size_limit %d"
          % (name, n, size, want[name], f["captured"], f["ring_full"], f["size_limit"]))
    if n != f["captured"]:
        bad.append("%s: tshark reads %d frames, emu says it wrote %d" % (name, n, f["captured"]))
    if f["captured"] + f["ring_full"] + f["size_limit"] != want[name]:
        bad.append("%s: captured + not captured != %d (stats)" % (name, want[name]))
    if size > bound:
        bad.append("%s: %d bytes, over the bound %d" % (name, size, bound))
    if bound >= 1e6 and (n != want[name] or f["ring_full"] or f["size_limit"]):
        bad.append("%s: unbounded run should capture all %d frames" % (name, want[name]))
    if bound < 1e6 and f["size_limit"] == 0:
        bad.append("%s: the small bound was never reached" % name)
if want["port0-in.pcap"] <= want["port1-out.pcap"]:
    bad.append("the 10 %% loss a_to_b should show as port0-in > port1-out")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
  echo "$out"
  ((rc == 0)) || fail "capture check (bound $1 MiB): $out $err"
}

emu_start p.json 5 --capture cap
emu_quiet_bench
emu_wait_forwarding || fail "gradwall emu did not forward; stderr: $(<emu.err)"
ip netns exec gw-a ping -q -c 50 -i 0.02 198.18.0.2 >/dev/null || true
emu_wait_exit
emu_check_stats s.json 25 # 50 pings, 10 % lost one way: fewer than 25 replies has p < 1e-9
check_capture 100

rm -rf cap
emu_start p.json 4 --capture cap --capture-max-mb 0.002
emu_quiet_bench
emu_wait_forwarding || fail "gradwall emu did not forward; stderr: $(<emu.err)"
ip netns exec gw-a ping -q -c 50 -i 0.02 198.18.0.2 >/dev/null || true
emu_wait_exit
emu_check_stats s.json 25
check_capture 0.002

finish
