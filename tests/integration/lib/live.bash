# Shared by the live-mode tests (tests/integration/live_*.sh; sourced, not run). Source it
# after lib/common.bash:
#   source "$(dirname "$0")/lib/common.bash" "$@"
#   source "$SRC/tests/integration/lib/live.bash"
# On load it skips the test (exit 0) when not root, and takes /tmp/gw-bench.lock for the whole
# test (the namespace bench is one per machine: every user of it takes that lock). Its EXIT
# trap checks nothing is left behind (no gw-a/gw-b namespaces unless they were there before,
# no gradwall processes of this run) and removes the scratch folder.
# Defines:
#   live_scenario FILE DELAY_MS RATE LOSS SIZE_BYTES ITERATIONS CC   writes a 2x2-rank ring
#                       all-reduce scenario (regions a, b; 1 Gbit/s NICs; MTU 1400; rto_min
#                       50 ms: above the scheduling stalls of a shared 2-vCPU host, which
#                       would otherwise fire spurious retransmission timeouts)
#   live_check_no_leaks  fails if namespaces, gradwall processes or EAL folders of the run remain

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: $NAME needs root (network namespaces, af_packet); CI runs it as root"
  exit 0
fi

exec 9>/tmp/gw-bench.lock
if ! flock -w 1200 9; then
  echo "FAIL: $NAME: /tmp/gw-bench.lock still held after 20 minutes (another user of the bench)" >&2
  exit 1
fi

LIVE_BENCH_WAS_UP=0
[[ -e /run/netns/gw-a ]] && LIVE_BENCH_WAS_UP=1

live_cleanup() {
  [[ ${GW_KEEP_TMP:-0} == 1 ]] || rm -rf "$TMP"
}
trap live_cleanup EXIT

live_scenario() {
  local file=$1 delay=$2 rate=$3 loss=$4 size=$5 iterations=$6 cc=$7
  cat >"$file" <<JSON
{
  "gradwall": "scenario/v1",
  "name": "live-ring-2x2",
  "seed": 1,
  "topology": {
    "regions": [ {"name": "a", "hosts": 2, "nic_rate": "1Gbit"},
                 {"name": "b", "hosts": 2, "nic_rate": "1Gbit"} ],
    "wan": [ {"between": ["a", "b"], "netem": "delay ${delay}ms rate ${rate} loss ${loss}%", "limit_bytes": 16777216} ]
  },
  "workload": { "kind": "collective", "iterations": $iterations, "compute": "1ms", "duration": "120s",
                "collective": {"op": "all_reduce", "algorithm": "ring", "size_bytes": $size} },
  "transport": { "cc": "$cc", "mtu": 1400, "rto_min": "50ms" }
}
JSON
}

live_check_no_leaks() {
  local scenario=$1
  if ((LIVE_BENCH_WAS_UP == 0)) && { [[ -e /run/netns/gw-a ]] || [[ -e /run/netns/gw-b ]]; }; then
    fail "the bench's namespaces are still there after the run"
  fi
  if ip link show gw-a-emu >/dev/null 2>&1 && ((LIVE_BENCH_WAS_UP == 0)); then
    fail "veth gw-a-emu is still there after the run"
  fi
  local pids
  pids=$(pgrep -f -- "--scenario $scenario" || true)
  [[ -z $pids ]] || fail "endpoint processes left behind: $pids"
  if compgen -G "/var/run/dpdk/gw-live-*" >/dev/null; then
    fail "EAL runtime folders left behind: $(ls -d /var/run/dpdk/gw-live-*)"
  fi
  if compgen -G "/tmp/gw-live-*" >/dev/null; then
    fail "control socket folders left behind: $(ls -d /tmp/gw-live-*)"
  fi
}
