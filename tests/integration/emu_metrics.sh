#!/usr/bin/env bash
# cli.emu_metrics: `gradwall emu --metrics 0` (a port alone: 127.0.0.1, any free port) on
# the namespace bench. A profile with
# 5 ms each way and 20 % loss a_to_b, and a traffic class `ect` (match ecn = ect0) whose a_to_b
# loss marks CE instead of dropping (`"ecn": true`). Two ping streams gw-a -> gw-b: one ECT(0)
# (`ping -Q 2`: class ect, marked, never lost) and one not-ECT (default class, lost). Checks:
#   - a scrape over HTTP during the traffic answers, with gradwall_emu_* counters > 0;
#   - after the traffic stopped (1 s later: > the 100 ms publish interval + 5 ms delay), a
#     scrape's counters EQUAL the exit --stats-json: per port in/out packets and bytes, per lane
#     received, sent, duplicates, drops by every cause, CE marks, the delay-error histogram's
#     count (= sent) and every class's in/delivered/CE/drops by cause, flows and flow-table misses
#     (the loss is drawn per flow, "streams": "per_flow"). Exact equality holds because the
#     bench is kept quiet (permanent ARP entries, IPv6 off: nothing else crosses it) and the
#     emulator is stopped right after the scrape;
#   - drops (cause loss) and CE marks both happened (so the equality is not 0 = 0), the marks
#     all in class ect (>= 100 packets in: the 100 ECT pings), the drops all in the default
#     class, and the ECT(0) stream lost nothing.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_metrics.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

cat >p.json <<'JSON'
{"gradwall": "profile/v1", "name": "metrics-test", "seed": 7, "streams": "per_flow",
 "a_to_b": {"delay": {"delay_ms": 5}, "loss": {"p": 0.2}},
 "b_to_a": {"delay": {"delay_ms": 5}},
 "classes": [{"name": "ect", "match": {"ecn": "ect0"},
              "a_to_b": {"delay": {"delay_ms": 5}, "loss": {"p": 0.2, "ecn": true}},
              "b_to_a": {"delay": {"delay_ms": 5}}}]}
JSON

emu_start p.json 60 --metrics 0 # a port alone: loopback (127.0.0.1)
emu_quiet_bench
if ! port=$(emu_stderr_port metrics); then
  fail "gradwall emu did not report its metrics port; stderr: $(<emu.err)"
  finish
fi
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

ip netns exec gw-a ping -q -c 100 -i 0.02 -Q 2 198.18.0.2 >ping-ect.txt 2>&1 &
ect_pid=$!
ip netns exec gw-a ping -q -c 100 -i 0.02 198.18.0.2 >ping-plain.txt 2>&1 || true
sleep 0.3
run curl -sf "http://127.0.0.1:$port/metrics"
((rc == 0)) || fail "scrape during the run failed (curl rc $rc)"
grep -q '^gradwall_emu_received_packets_total{lane="a_to_b"} [1-9]' <<<"$out" ||
  fail "scrape during the run: no a_to_b packets counted: $(grep received_packets <<<"$out")"
wait "$ect_pid" || true

sleep 1
curl -sf "http://127.0.0.1:$port/metrics" >scrape.txt || fail "scrape after the traffic failed"
emu_stop
emu_check_stats s.json 100
tail -n 2 ping-ect.txt ping-plain.txt

run "$PY" - s.json scrape.txt <<'EOF_PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
m = {}
for line in open(sys.argv[2]):
    if line.startswith("#") or not line.strip():
        continue
    key, value = line.rsplit(" ", 1)
    m[key] = float(value)
bad = []
def want(key, expected):
    got = m.get(key)
    if got is None or got != expected:
        bad.append("%s = %s, exit stats say %s" % (key, got, expected))
ab, ba = s["a_to_b"], s["b_to_a"]
names = {"0": s["ports"]["a"]["name"], "1": s["ports"]["b"]["name"]}
for port, rx, tx in (("0", ab, ba), ("1", ba, ab)):
    lab = 'name="%s",port="%s"' % (names[port], port)
    want('gradwall_emu_port_packets_total{direction="in",%s}' % lab, rx["received"])
    want('gradwall_emu_port_packets_total{direction="out",%s}' % lab, tx["sent"])
    want('gradwall_emu_port_bytes_total{direction="in",%s}' % lab, rx["received_bytes"])
    want('gradwall_emu_port_bytes_total{direction="out",%s}' % lab, tx["sent_bytes"])
for lane, d in (("a_to_b", ab), ("b_to_a", ba)):
    want('gradwall_emu_received_packets_total{lane="%s"}' % lane, d["received"])
    want('gradwall_emu_sent_packets_total{lane="%s"}' % lane, d["sent"])
    want('gradwall_emu_duplicates_total{lane="%s"}' % lane, d["duplicates"])
    want('gradwall_emu_ce_marked_packets_total{lane="%s"}' % lane, d["marked_ce"])
    want('gradwall_emu_held_packets{lane="%s"}' % lane, d["held"])
    for cause, n in d["dropped"].items():
        want('gradwall_emu_dropped_packets_total{cause="%s",lane="%s"}' % (cause, lane), n)
    want('gradwall_emu_delay_error_seconds_count{lane="%s"}' % lane, d["sent"])
    want('gradwall_emu_delay_error_seconds_bucket{lane="%s",le="+Inf"}' % lane, d["sent"])
    for name, c in d["classes"].items():
        lab = 'class="%s",lane="%s"' % (name, lane)
        want('gradwall_emu_class_packets_total{%s,stage="in"}' % lab, c["packets_in"])
        want('gradwall_emu_class_packets_total{%s,stage="delivered"}' % lab, c["delivered"])
        want('gradwall_emu_class_ce_marked_packets_total{%s}' % lab, c["marked_ce"])
        for cause, n in c["dropped"].items():
            want('gradwall_emu_class_dropped_packets_total{cause="%s",%s}' % (cause, lab), n)
        want('gradwall_emu_class_flows{%s}' % lab, c["flows"])
        want('gradwall_emu_class_flow_table_misses_total{%s}' % lab, c["flow_table_misses"])
        if lane == "a_to_b" and c["flows"] < 1:
            bad.append("class %s a_to_b: per-flow streams kept no flow" % name)
if ab["dropped"]["loss"] == 0 or ab["marked_ce"] == 0:
    bad.append("want both loss drops and CE marks a_to_b, got %d and %d" % (ab["dropped"]["loss"], ab["marked_ce"]))
ect, default = ab["classes"].get("ect", {}), ab["classes"].get("default", {})
if not (ect.get("packets_in", 0) >= 100 and ect.get("marked_ce") == ab["marked_ce"]):
    bad.append("class ect a_to_b: want >= 100 in and all %d CE marks, got %s" % (ab["marked_ce"], ect))
if default.get("dropped", {}).get("loss") != ab["dropped"]["loss"]:
    bad.append("class default a_to_b: want all %d loss drops, got %s" % (ab["dropped"]["loss"], default))
print("classes a_to_b: ect in %d, CE %d; default in %d, lost %d"
      % (ect.get("packets_in", 0), ect.get("marked_ce", 0), default.get("packets_in", 0),
         default.get("dropped", {}).get("loss", 0)))
print("a_to_b: received %d, sent %d, loss %d, CE %d; b_to_a: received %d, sent %d"
      % (ab["received"], ab["sent"], ab["dropped"]["loss"], ab["marked_ce"], ba["received"], ba["sent"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "scraped metrics differ from the exit stats: $out"
grep -q ' 0% packet loss' ping-ect.txt || fail "the ECT(0) ping lost packets: $(tail -2 ping-ect.txt)"

finish
