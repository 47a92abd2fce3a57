#!/usr/bin/env bash
# The container file (issue 19, dist/Containerfile, docs/install.md "Container"): built with
# the first container tool that can build here (docker with a reachable daemon, podman,
# buildah), the image runs the default scenario from its installed data and writes the same
# report.json as the build under test (but for the scenario's path); `emu` in it says it is the sim-only build. Skipped, saying
# why, where no tool can build (this machine: a docker client without a daemon); the build
# steps themselves (sim-only configure, build, cpack) are run by cli.sim_only_build.
# Usage: container.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

tool=
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  tool=docker
elif command -v podman >/dev/null && podman info >/dev/null 2>&1; then
  tool=podman
fi
if [[ -z $tool ]]; then
  echo "SKIP: $NAME needs docker with a running daemon, or podman (found: $(command -v docker podman | tr '\n' ' '))"
  exit 0
fi
image=gradwall-test-$$
trap '$tool rmi -f "$image" >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
"$tool" build -f "$SRC/dist/Containerfile" -t "$image" "$SRC" >build.log 2>&1 || { fail "$tool build: $(tail -20 build.log)"; finish; }
mkdir -p c h
scenario=default-ddp-cross-continent.json
run "$tool" run --rm -v "$TMP/c:/work/out" "$image" run "/usr/share/gradwall/scenarios/$scenario" --out out --quiet
c_rc=$rc
run bash -c "cd h && '$GW' run '$SRC/profiles/scenarios/$scenario' --out out --quiet"
((c_rc == rc)) || fail "default scenario: exit $c_rc in the container, $rc here"
# The same report but for scenario_file: the image runs the installed copy of the scenario.
run "$PY" - c/report.json h/out/report.json <<'EOF_PY'
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "scenario_file"}
    return [strip(v) for v in x] if isinstance(x, list) else x
a, b = (strip(json.load(open(f))) for f in sys.argv[1:])
sys.exit(0 if a == b else 1)
EOF_PY
((rc == 0)) || fail "report.json differs between the container and the build under test: $err"
run "$tool" run --rm "$image" emu
((rc == 3)) && grep -q "sim-only build" <<<"$err" || fail "emu in the container: exit $rc, $err"
finish
