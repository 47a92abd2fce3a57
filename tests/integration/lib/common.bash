# Shared by the CLI tests in tests/integration/*.sh (sourced, not run; CMake registers only
# the *.sh files one level up). Usage at the top of a test, after `set -euo pipefail`:
#   source "$(dirname "$0")/lib/common.bash" "$@"
# Sets GW (the gradwall binary), SRC (the source tree), TMP (a scratch folder, removed on
# exit unless GW_KEEP_TMP=1, also the working directory) and PY (the python3 interpreter itself); defines fail,
# run and finish.

NAME=$(basename "$0")
GW=$(realpath "${1:?usage: $NAME GRADWALL SOURCE_DIR}")
SRC=$(realpath "${2:?usage: $NAME GRADWALL SOURCE_DIR}")
TMP=$(mktemp -d)
if [[ ${GW_KEEP_TMP:-0} == 1 ]]; then
  echo "$NAME: scratch folder $TMP kept (GW_KEEP_TMP=1)" >&2
else
  trap 'rm -rf "$TMP"' EXIT
fi
cd "$TMP"
# The interpreter itself, not a version-manager shim: a shim costs ~0.3 s per call.
PY=$(python3 -c 'import sys; print(sys.executable)') || {
  echo "FAIL: $NAME needs python3" >&2
  exit 1
}
export GW SRC TMP PY

failures=0
# fail MESSAGE: records a failed check and goes on, so one run reports every problem.
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run CMD...: runs it without stopping the script; sets rc, out (stdout), err (stderr).
run() {
  set +e
  "$@" >"$TMP/.out" 2>"$TMP/.err"
  rc=$?
  set -e
  out=$(<"$TMP/.out")
  err=$(<"$TMP/.err")
}

# finish: the test's verdict, from the checks that failed.
finish() {
  if ((failures > 0)); then
    echo "$NAME: $failures check(s) failed" >&2
    exit 1
  fi
  echo "$NAME: all checks passed"
}
