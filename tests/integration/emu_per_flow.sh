#!/usr/bin/env bash
# cli.emu_per_flow: per-flow random streams ("streams": "per_flow", flow_streams.h) in the real
# data plane. The same UDP traffic goes through `gradwall emu` twice with one seed: once on one
# queue and one lcore, once on two queues (af_packet qpairs=2: the kernel spreads flows over the
# rings by hash) and two lcores. Profile a_to_b: 10 % loss and 5 % duplication, drawn per flow.
# Traffic: 16 UDP flows (source ports 41000-41015) of 400 numbered datagrams each, interleaved,
# ~8,000 datagrams/s; a receiver in gw-b counts each (flow, number).
# Checks: the two runs deliver exactly the same datagrams of every flow, each as many times
# (per-queue streams would not: each queue draws from its own stream); loss and duplication
# are there (5-15 % lost, some duplicated); the second run spread the flows over both queues;
# the stats balance and count 16+ flows with no table misses.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_per_flow.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "per-flow-loss", "seed": 5, "streams": "per_flow",
 "a_to_b": {"loss": {"p": 0.1}, "duplicate": {"p": 0.05}}, "b_to_a": {}}
JSON

cat >receive.py <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("198.18.0.2", 9000))
open(sys.argv[2], "w").close()  # listening
got = {}
s.settimeout(20.0)  # until the first datagram
while True:
    try:
        data, (_, port) = s.recvfrom(2048)
    except socket.timeout:
        break
    s.settimeout(2.0)  # then until the traffic stops
    key = f"{port}/{int(data[:8])}"
    got[key] = got.get(key, 0) + 1
json.dump(got, open(sys.argv[1], "w"), sort_keys=True)
PY

cat >send.py <<'PY'
import socket, time
flows = []
for f in range(16):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("198.18.0.1", 41000 + f))
    flows.append(s)
for n in range(400):
    for s in flows:
        s.sendto(b"%08d" % n + b"x" * 56, ("198.18.0.2", 9000))
    time.sleep(0.002)
PY

# One run: emulator, receiver, sender; the receiver's counts in $1.
one_run() {
  local counts=$1
  shift
  emu_start p.json 30 "$@"
  if ! emu_wait_forwarding; then
    fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
    finish
  fi
  emu_quiet_bench
  rm -f ready
  ip netns exec gw-b "$PY" receive.py "$counts" ready &
  local receiver=$!
  for _ in $(seq 1 50); do
    [[ -e ready ]] && break
    sleep 0.1
  done
  ip netns exec gw-a "$PY" send.py
  wait "$receiver" || fail "the receiver failed"
  emu_stop
  emu_check_stats s.json 1
}

one_run one.json --queues 1
cp s.json s1.json
EMU_LCORES=0,1
EMU_AF_PACKET=framecnt=4096,qpairs=2
one_run two.json --queues 2

run "$PY" - one.json two.json s1.json s.json <<'EOF'
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
s1, s2 = (json.load(open(f)) for f in sys.argv[3:5])
bad = []
sent = 16 * 400
lost = sent - len(one)
copies = sum(c - 1 for c in one.values())
print(f"one queue: {len(one)} of {sent} datagrams arrived ({lost} lost), {copies} duplicated")
print(f"two queues: {len(two)} arrived, {sum(c - 1 for c in two.values())} duplicated")
if one != two:
    differ = sorted(k for k in set(one) | set(two) if one.get(k) != two.get(k))
    bad.append(f"{len(differ)} datagrams fared differently on two queues, e.g. {differ[:5]}")
if not 0.05 * sent <= lost <= 0.15 * sent:
    bad.append(f"lost {lost} of {sent}, want 5-15 % at p = 0.1")
if copies == 0:
    bad.append("no datagram duplicated at p = 0.05")
qs = s2["a_to_b"]["queues"]
print("two queues, a_to_b received per queue:", [q["received"] for q in qs])
if len(qs) != 2 or any(q["received"] < 100 for q in qs):
    bad.append(f"want both queues to carry flows, got {[q['received'] for q in qs]}")
for name, s in (("one queue", s1), ("two queues", s2)):
    c = s["a_to_b"]["classes"]["default"]
    print(f"{name}: flows {c['flows']}, flow_table_misses {c['flow_table_misses']}")
    if c["flows"] < 16 or c["flow_table_misses"] != 0:
        bad.append(f"{name}: {c['flows']} flows with {c['flow_table_misses']} misses, want >= 16 and 0")
print("\n".join(bad) if bad else "ok")
EOF
echo "$out"
[[ $(tail -n 1 <<<"$out") == ok ]] || fail "per-flow streams: $out"
finish
