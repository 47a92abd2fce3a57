#!/usr/bin/env bash
# A planned sweep run on a real single-node Slurm cluster (issue 19): munged with a fresh key,
# slurmctld and slurmd (Debian's slurm-wlm 22.05) on loopback ports of their own, all in this
# test's scratch folder and stopped at exit. The plan's emitted sbatch array script runs every
# point as an array task (`sbatch --wait`), and the collected sweep.json is byte-identical to a
# local sweep of the same grid. Needs root (slurmd runs jobs as their user): label root.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || { echo "FAIL: $NAME needs $tool (slurm-wlm, munge; ci/setup-deps)" >&2; exit 1; }
done
host=$(hostname -s)
mkdir -p slurm/state slurm/spool
dd if=/dev/urandom of=slurm/munge.key bs=1024 count=1 2>/dev/null
chmod 400 slurm/munge.key
# Stops the daemons and waits for them (slurmctld takes a moment), SIGKILL after 10 s.
stop() {
  local pids=()
  for p in d ctld munged; do
    [[ -s $TMP/slurm/$p.pid ]] && pids+=("$(cat "$TMP/slurm/$p.pid")")
  done
  if ((${#pids[@]})); then
    kill "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "${pids[@]}" 2>/dev/null || break
      sleep 0.2
    done
    kill -9 "${pids[@]}" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap stop EXIT
munged --key-file="$TMP/slurm/munge.key" --socket="$TMP/slurm/munge.socket" --pid-file="$TMP/slurm/munged.pid" \
  --log-file="$TMP/slurm/munged.log" --seed-file="$TMP/slurm/munged.seed" -f
# Ports of our own, so that a Slurm already on the machine is left alone.
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > slurm/slurm.conf <<CONF
ClusterName=gradwall-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$TMP/slurm/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$TMP/slurm/state
SlurmdSpoolDir=$TMP/slurm/spool
SlurmctldPidFile=$TMP/slurm/ctld.pid
SlurmdPidFile=$TMP/slurm/d.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile=$TMP/slurm/ctld.log
SlurmdLogFile=$TMP/slurm/d.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$TMP/slurm/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 50); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %T | grep -q idle || fail "the Slurm node did not come up: $(tail -5 slurm/ctld.log slurm/d.log)"

S=$SRC/tests/golden/scenarios/ring-allreduce-2x2.json
run "$GW" sweep "$S" --set transport.cc=cubic,dctcp,bbr --out local --jobs 2
[[ $rc == 0 || $rc == 1 ]] || fail "local sweep exited $rc: $err"
run "$GW" sweep "$S" --set transport.cc=cubic,dctcp,bbr --plan plan --emit slurm
[[ $rc == 0 ]] || fail "plan: $err"
(cd plan && PATH=$(dirname "$GW"):$PATH timeout 240 sbatch --wait sweep.sbatch) >sbatch.out 2>&1 ||
  fail "sbatch --wait failed: $(cat sbatch.out) $(tail -5 slurm/d.log)"
ls plan/slurm-*_{0,1,2}.out >/dev/null 2>&1 || fail "not every array task ran: $(ls plan)"
run "$GW" sweep --collect plan
[[ $rc == 0 || $rc == 1 ]] || fail "collect exited $rc: $out"
cmp local/sweep.json plan/sweep.json || fail "Slurm's sweep.json differs from the local sweep's"
finish
