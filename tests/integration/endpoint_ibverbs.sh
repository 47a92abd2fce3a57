#!/usr/bin/env bash
# cli.endpoint_ibverbs: ibverbs endpoints detect RDMA devices and say clearly when there are
# none (issue 6). On a host without RDMA devices (every machine this project runs on so far:
# no RDMA NIC, no rdma_rxe/siw) each of these exits 3 naming what it looked for:
#   gradwall endpoint --io ibverbs
#   gradwall endpoint --io ibverbs --list-devices
#   gradwall run SCENARIO --mode live --endpoints ibverbs     (before any of the bench starts)
# On a host with devices, --list-devices exits 0 and prints each device's ports with their
# link layer and GID table. Also: --endpoints with an unknown value is bad input (exit 2), and
# --list-devices without --io ibverbs too. No root needed.
# Usage: endpoint_ibverbs.sh GRADWALL SOURCE_DIR
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

msg='no RDMA devices: ibv_get_device_list found 0 (load rdma_rxe or siw, or use a host with an RDMA NIC)'
scenario=$SRC/profiles/scenarios/reno-under-loss.json

run "$GW" endpoint --io ibverbs --list-devices
echo "list-devices: exit $rc; stdout: ${out:0:400}; stderr: $err"
if ((rc == 0)); then
  # A host with RDMA devices: the probe shows their ports and GIDs.
  grep -q "port 1: .*link layer" <<<"$out" || fail "--list-devices printed no port with its link layer: $out"
  grep -q "GID 0: " <<<"$out" || fail "--list-devices printed no GID table: $out"
  have_devices=1
else
  have_devices=0
  ((rc == 3)) || fail "--list-devices without devices exited $rc (want 3)"
  [[ $err == *"$msg"* ]] || fail "--list-devices: stderr does not say '$msg': $err"
fi

run "$GW" endpoint --io ibverbs
((rc == 3)) || fail "endpoint --io ibverbs exited $rc (want 3)"
if ((have_devices == 0)); then
  [[ $err == *"$msg"* ]] || fail "endpoint --io ibverbs: stderr does not say '$msg': $err"
else
  [[ $err == *"not implemented"* ]] || fail "endpoint --io ibverbs with devices: want 'not implemented', got: $err"
fi

run "$GW" run "$scenario" --mode live --endpoints ibverbs --out "$TMP/out"
((rc == 3)) || fail "run --mode live --endpoints ibverbs exited $rc (want 3)"
if ((have_devices == 0)); then
  [[ $err == *"$msg"* ]] || fail "run --endpoints ibverbs: stderr does not say '$msg': $err"
fi
[[ ! -e $TMP/out/result.json ]] || fail "run --endpoints ibverbs wrote a result.json"

run "$GW" run "$scenario" --mode live --endpoints rdma --out "$TMP/out"
((rc == 2)) || fail "run --endpoints rdma exited $rc (want 2 = bad input)"
[[ $err == *"--endpoints"* ]] || fail "run --endpoints rdma: stderr does not name --endpoints: $err"

run "$GW" endpoint --io udp --list-devices
((rc == 2)) || fail "endpoint --io udp --list-devices exited $rc (want 2)"

finish
