# Shared by the `gradwall emu` tests on the namespace bench (tests/integration/emu_*.sh;
# sourced, not run). Source it after lib/common.bash:
#   source "$(dirname "$0")/lib/common.bash" "$@"
#   source "$SRC/tests/integration/lib/emu.bash"   # common.bash has cd-ed to $TMP
# On load it skips the test (exit 0) when not root, takes /tmp/gw-bench.lock (the namespace
# bench is shared with other tests and tools: held until the test's process exits, waiting up
# to 10 minutes for it), and replaces common.bash's EXIT trap with
# one that ALWAYS stops the emulator, runs `ci/bench-netns down`, removes the EAL runtime
# folder /var/run/dpdk/$EMU_PREFIX and the scratch folder, and kills the pids a test put in
# EMU_EXTRA_PIDS.
# Defines:
#   emu_start PROFILE DURATION [EMU-OPTION...]  bench up, `gradwall emu` in the background
#                      (stats to s.json, output to emu.out/emu.err); sets EMU_PID. EAL lcores
#                      from EMU_LCORES (default 0; "0,1" gives each direction its own), EAL
#                      memory from EMU_MEM_MB (512), af_packet options from EMU_AF_PACKET
#                      (framecnt=4096)
#   emu_quiet_bench    permanent ARP entries and IPv6 off in both namespaces, so nothing but
#                      the test's own traffic crosses the emulator (no ARP probes, no RS/MLD)
#   emu_stderr_port WHAT  waits (~10 s) for emu.err to name the port of WHAT ("metrics",
#                      "control endpoint") and prints it
#   emu_iperf_server   an iperf3 server in gw-b on 198.18.0.2:5201 (output to server.out, its
#                      pid in EMU_EXTRA_PIDS), waiting (~5 s) until it listens
#   emu_iperf ARG...   `run`s an iperf3 client in gw-a against that server (-c 198.18.0.2
#                      -p 5201 ARG...), trying again (up to 20 times, 0.25 s apart) while the
#                      server refuses the connection or says it is busy: after each test the
#                      iperf3 server closes its listening socket (cleanup_server in its
#                      src/iperf_server_api.c) and only then opens a new one
#   emu_wait_forwarding  polls one ping gw-a -> gw-b until answered (~10 s); 1 if never
#   emu_wait_exit        waits for the emulator (it ends by --duration); sets emu_rc, fails
#                        unless it exited 0
#   emu_stop             SIGTERM, then emu_wait_exit
#   emu_check_stats FILE MIN_RECEIVED  balance per direction, dropped_total = sum of causes,
#                      received >= MIN_RECEIVED per direction, every mbuf back; calls fail

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: $NAME needs root (network namespaces, af_packet); CI runs it as root"
  exit 0
fi

exec {EMU_LOCK_FD}>/tmp/gw-bench.lock
if ! flock -w 600 "$EMU_LOCK_FD"; then
  echo "FAIL: $NAME: /tmp/gw-bench.lock still held after 10 minutes" >&2
  exit 1
fi

EMU_PREFIX=gw-test-${NAME%.sh}-$$
EMU_LCORES=${EMU_LCORES:-0}
EMU_AF_PACKET=${EMU_AF_PACKET:-framecnt=4096} # net_af_packet options (jumbo: framesz=,blocksz=)
EMU_MEM_MB=${EMU_MEM_MB:-512}
EMU_PID=
EMU_EXTRA_PIDS=() # helpers a test started (iperf3 servers, ...): killed by the EXIT trap
emu_cleanup() {
  local pid
  for pid in "${EMU_EXTRA_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ -n $EMU_PID ]] && kill -0 "$EMU_PID" 2>/dev/null; then
    kill -TERM "$EMU_PID" 2>/dev/null || true
    # Give it its drain time, then insist.
    for _ in $(seq 1 30); do
      kill -0 "$EMU_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$EMU_PID" 2>/dev/null || true
    wait "$EMU_PID" 2>/dev/null || true
  fi
  "$SRC/ci/bench-netns" down || true
  rm -rf "/var/run/dpdk/$EMU_PREFIX"
  rmdir /var/run/dpdk 2>/dev/null || true # EAL made it if it was missing; leave others' folders
  rm -rf "$TMP"
}
trap emu_cleanup EXIT

emu_start() {
  local profile=$1 duration=$2
  shift 2
  "$SRC/ci/bench-netns" up
  "$GW" emu --profile "$profile" --duration "$duration" --stats-json s.json "$@" -- \
    --no-huge -m "$EMU_MEM_MB" --no-pci --file-prefix="$EMU_PREFIX" -l "$EMU_LCORES" \
    --vdev="net_af_packet0,iface=gw-a-emu,$EMU_AF_PACKET" \
    --vdev="net_af_packet1,iface=gw-b-emu,$EMU_AF_PACKET" >emu.out 2>emu.err &
  EMU_PID=$!
}

emu_quiet_bench() {
  local side peer mac addr
  for side in a b; do
    [[ $side == a ]] && peer=b || peer=a
    mac=$(ip -n "gw-$peer" -o link show "gw-${peer}0" | sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p')
    [[ $peer == a ]] && addr=198.18.0.1 || addr=198.18.0.2
    ip -n "gw-$side" neigh replace "$addr" lladdr "$mac" nud permanent dev "gw-${side}0"
    ip netns exec "gw-$side" sysctl -qw "net.ipv6.conf.gw-${side}0.disable_ipv6=1"
  done
}

emu_stderr_port() {
  local what=$1 port
  for _ in $(seq 1 100); do
    port=$(sed -n "s|^gradwall emu: $what on .*:\([0-9][0-9]*\)\(/.*\)\{0,1\}\$|\1|p" emu.err 2>/dev/null || true)
    if [[ -n $port ]]; then
      echo "$port"
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# Until it forwards (EAL start, ARP through the emulator): one ping answered.
emu_iperf_server() {
  # `ip netns exec` execs iperf3, so $! is the server itself.
  ip netns exec gw-b iperf3 -s -B 198.18.0.2 -p 5201 >server.out 2>&1 &
  EMU_EXTRA_PIDS+=("$!")
  local _
  for _ in $(seq 1 50); do
    ip netns exec gw-b ss -Hltn 'sport = :5201' | grep -q LISTEN && break
    sleep 0.1
  done
}

emu_iperf() {
  local _
  for _ in $(seq 1 20); do
    run ip netns exec gw-a iperf3 -c 198.18.0.2 -p 5201 "$@"
    ((rc == 0)) && return 0
    grep -qE 'Connection refused|server is busy' <<<"$out$err" || return 0
    sleep 0.25
  done
}

emu_wait_forwarding() {
  for _ in $(seq 1 40); do
    if ip netns exec gw-a ping -c 1 -W 1 198.18.0.2 >/dev/null 2>&1; then
      return 0
    fi
    kill -0 "$EMU_PID" 2>/dev/null || break
    sleep 0.2
  done
  return 1
}

emu_wait_exit() {
  set +e
  wait "$EMU_PID"
  emu_rc=$?
  set -e
  EMU_PID=
  ((emu_rc == 0)) || fail "gradwall emu exited $emu_rc (want 0); stdout: $(<emu.out) stderr: $(<emu.err)"
}

emu_check_stats() {
  local file=$1 min=$2
  if [[ ! -s $file ]]; then
    fail "gradwall emu wrote no --stats-json"
    return
  fi
  run "$PY" - "$file" "$min" <<'EOF_PY'
import json, sys
s = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
bad = []
for d in ("a_to_b", "b_to_a"):
    x = s[d]
    if x["received"] + x["duplicates"] != x["sent"] + x["dropped_total"] + x["held"]:
        bad.append("%s: received %d + duplicates %d != sent %d + dropped %d + held %d"
                   % (d, x["received"], x["duplicates"], x["sent"], x["dropped_total"], x["held"]))
    if x["dropped_total"] != sum(x["dropped"].values()):
        bad.append("%s: dropped_total is not the sum of its causes" % d)
    if x["received"] < want:
        bad.append("%s: received only %d (want >= %d)" % (d, x["received"], want))
if s["mempool"]["available"] != s["mempool"]["size"]:
    bad.append("mbufs not back in the pool: %s" % s["mempool"])
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF_PY
  # shellcheck disable=SC2154 # rc and out are set by run (common.bash)
  ((rc == 0)) || fail "stats JSON: $out"
}

# emu_stop: SIGTERM (the orderly shutdown path), then emu_wait_exit.
emu_stop() {
  kill -TERM "$EMU_PID" 2>/dev/null || true
  emu_wait_exit
}
