#!/usr/bin/env bash
# cli.emu_loss: `gradwall emu` on the namespace bench (ci/bench-netns) with random loss
# p = 0.02 in both directions. 1000 pings gw-a -> gw-b; request and reply each cross the
# emulator once, so a ping is lost with probability q = 1 - (1 - p)^2 = 0.0396.
# Checks:
#  - the pings lost lie inside the two-sided exact binomial bound (n = 1000, q) whose tails
#    together hold less than 1e-6 of the probability (each < 5e-7): [13, 73] here. That is
#    the "5 sigma" bound (mean 39.6, sigma 6.17, 5 sigma = [8.8, 70.4]) made exact: the
#    binomial is skewed right, so beyond +5 sigma lies 2.6e-6, not the normal 2.9e-7, and
#    below -5 sigma only 7e-10. A false failure is then rarer than 1 run in a million, while
#    no loss, p = 0.05 (q = 0.0975, mean 97.5) or a loss far off p fails; a loss applied in one
#    direction only (mean 20) is caught by the per-direction check below.
#  - the emulator's stats JSON: dropped.loss per direction is inside the same kind of bound
#    for p over that direction's received count, and the two together explain the ping loss:
#    lost <= loss(a_to_b) + loss(b_to_a) <= lost + the packets that were not measured pings
#    (the wait-for-forwarding pings and ARP);
#  - emu exits 0 on SIGTERM and its accounting balances with every mbuf back in the pool.
# The profile sets no seed, so the engine's default seed makes the emulator's draws nearly
# the same run to run (measured 16 + 18 drops of ~1000 each way, 33-34 pings lost); the
# bound is what makes the test valid for any seed.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_loss.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"
# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

N=1000
P=0.02

cat >p.json <<JSON
{"gradwall": "profile/v1", "name": "loss2",
 "a_to_b": {"loss": {"model": "random", "p": $P}},
 "b_to_a": {"loss": {"model": "random", "p": $P}}}
JSON

emu_start p.json 60
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

# -W 1: wait at most 1 s for the last replies (a lost one would otherwise cost 10 s).
run ip netns exec gw-a ping -c "$N" -i 0.002 -W 1 -q 198.18.0.2
echo "$out" | tail -2
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$out")
got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$out")
if [[ $sent != "$N" || -z $got ]]; then
  fail "ping did not report $N transmitted and a received count: $out $err"
  finish
fi
lost=$((sent - got))

emu_stop
emu_check_stats s.json "$((N - 100))"

# binomial bound: smallest lo, largest hi with P(X < lo) < 5e-7 and P(X > hi) < 5e-7.
run "$PY" - s.json "$N" "$P" "$lost" <<'EOF_PY'
import json, math, sys

def bound(n, q, tail=5e-7):
    pmf = [math.comb(n, k) * q**k * (1 - q)**(n - k) for k in range(n + 1)]
    lo, acc = 0, 0.0
    while acc + pmf[lo] < tail:
        acc += pmf[lo]
        lo += 1
    hi, acc = n, 0.0
    while acc + pmf[hi] < tail:
        acc += pmf[hi]
        hi -= 1
    return lo, hi

s = json.load(open(sys.argv[1]))
n, p, lost = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
q = 1 - (1 - p) ** 2
bad = []
lo, hi = bound(n, q)
print("ping: %d of %d lost (%.2f %%), expected %.1f, bound [%d, %d]"
      % (lost, n, 100.0 * lost / n, n * q, lo, hi))
if not lo <= lost <= hi:
    bad.append("ping lost %d of %d, outside the binomial bound [%d, %d] for q = %.4f"
               % (lost, n, lo, hi, q))
drops = {}
for d in ("a_to_b", "b_to_a"):
    x = s[d]
    drops[d] = x["dropped"]["loss"]
    dlo, dhi = bound(x["received"], p)
    print("%s: received %d, dropped.loss %d (%.2f %%), bound [%d, %d]; other drops %d"
          % (d, x["received"], drops[d], 100.0 * drops[d] / max(x["received"], 1), dlo, dhi,
             x["dropped_total"] - drops[d]))
    if not dlo <= drops[d] <= dhi:
        bad.append("%s: dropped.loss %d of %d received, outside the binomial bound [%d, %d] "
                   "for p = %g" % (d, drops[d], x["received"], dlo, dhi, p))
    if x["dropped_total"] != drops[d]:
        bad.append("%s: drops other than loss: %s" % (d, x["dropped"]))
# Packets that were not measured pings: a -> b, all beyond the N requests; b -> a, all beyond
# the replies to the requests that got through, of which there were at least N - loss(a_to_b).
extra = (s["a_to_b"]["received"] - n) + (s["b_to_a"]["received"] - n + drops["a_to_b"])
total = drops["a_to_b"] + drops["b_to_a"]
if not lost <= total <= lost + max(extra, 0):
    bad.append("emulator dropped %d by loss, ping lost %d (allowed up to %d more for the %d "
               "unmeasured packets)" % (total, lost, max(extra, 0), extra))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
echo "$out"
((rc == 0)) || fail "loss: $err"

finish
