#!/usr/bin/env bash
# cli.emu_iperf: TCP through `gradwall emu` on the namespace bench (ci/bench-netns) with a
# 25 ms one-way delay and 1 % random loss in each direction (RTT 50 ms). iperf3 server in
# gw-b, client in gw-a, 5 s with the kernel's cubic, then 5 s with bbr (per socket, -C).
# Checks, for each: iperf3 exits 0, its JSON names the congestion control asked for, the
# sender moved data (bits_per_second > 0) and retransmitted (retransmits > 0: with 1 % loss
# each way, cubic moved ~3,700 segments in 5 s here and bbr ~100,000, so not one lost has a
# probability < e^-30 even for cubic);
# the smoothed RTT is >= 50 ms (the delay is applied); and the emulator, stopped by SIGTERM,
# exits 0 with its accounting balanced and every mbuf back in the pool.
# Needs root (namespaces, af_packet) and iperf3; skipped with exit 0 when not root.
# Labels: cli;root.
# Usage: emu_iperf.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

command -v iperf3 >/dev/null || {
  fail "iperf3 is not installed (ci/setup-deps installs it)"
  finish
}

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "d25-l1",
 "a_to_b": {"delay": {"delay_ms": 25}, "loss": {"model": "random", "p": 0.01}},
 "b_to_a": {"delay": {"delay_ms": 25}, "loss": {"model": "random", "p": 0.01}}}
JSON

emu_start p.json 60
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

emu_iperf_server

for cc in cubic bbr; do
  emu_iperf -t 5 -C "$cc" -J
  if ((rc != 0)); then
    fail "iperf3 -C $cc exited $rc: $(tail -c 2000 <<<"$out") $err"
    continue
  fi
  echo "$out" >"iperf-$cc.json"
  run "$PY" - "iperf-$cc.json" "$cc" <<'EOF_PY'
import json, sys
j = json.load(open(sys.argv[1]))
cc = sys.argv[2]
s = j["end"]["sum_sent"]
r = j["end"]["sum_received"]
rtt = j["end"]["streams"][0]["sender"].get("mean_rtt", 0) / 1000.0
print("%s: sent %.2f Mbit/s, received %.2f Mbit/s, %d retransmits, mean RTT %.1f ms"
      % (cc, s["bits_per_second"] / 1e6, r["bits_per_second"] / 1e6, s["retransmits"], rtt))
bad = []
if j["end"].get("sender_tcp_congestion") != cc:
    bad.append("sender congestion control %s, want %s" % (j["end"].get("sender_tcp_congestion"), cc))
if not s["bits_per_second"] > 0 or not r["bits_per_second"] > 0:
    bad.append("no data moved")
if not s["retransmits"] > 0:
    bad.append("no retransmits through 1 % loss")
if not rtt >= 50:
    bad.append("mean RTT %.1f ms, want >= 50 (2 x 25 ms)" % rtt)
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
  echo "$out"
  ((rc == 0)) || fail "iperf3 -C $cc: $err"
done

emu_stop
emu_check_stats s.json 1000
"$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))
for d in ("a_to_b", "b_to_a"):
    x = s[d]
    print("%s: received %d, sent %d, dropped %s, held %d" % (d, x["received"], x["sent"],
          {k: v for k, v in x["dropped"].items() if v}, x["held"]))
' s.json || true

finish
