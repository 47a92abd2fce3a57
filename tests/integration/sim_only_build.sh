#!/usr/bin/env bash
# The sim-only build (issue 19, CMake GW_SIM_ONLY, docs/install.md): configured and built from
# this source tree into a scratch folder, the binary links none of DPDK, libibverbs or
# prometheus-cpp; `emu`, `endpoint` and live runs exit 3 saying it is the sim-only build; the
# package (cpack, as dist/Containerfile makes it) depends on none of them and has a man page per
# command but emu; the default scenario gives the same exit code and a byte-identical report.json as the full
# build under test (the same code, and reports do not depend on the optimisation level).
# Skipped in the ASan preset: it compiles the same sources as the dev preset's run of it.
# Usage: sim_only_build.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

if ldd "$GW" | grep -q libasan; then
  echo "SKIP: $NAME runs in the unsanitised presets (the sim-only build compiles the same sources)"
  exit 0
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# A unity build (CMake batches a target's sources into one file each): about 1 minute on two
# cores against 3 file by file, and CI runs this test serially. So the sources must also compile
# batched: a helper in an anonymous namespace needs a name no other file of its library uses.
cmake -S "$SRC" -B b "${generator[@]}" -DGW_SIM_ONLY=ON -DGW_BUILD_TESTS=OFF -DGW_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DCMAKE_UNITY_BUILD=ON >configure.log 2>&1 ||
  { fail "configure: $(tail -5 configure.log)"; finish; }
cmake --build b -j "$(nproc)" >build.log 2>&1 || { fail "build: $(tail -20 build.log)"; finish; }
sim=$TMP/b/gradwall

libs=$(ldd "$sim")
for lib in librte_ libibverbs libprometheus libbpf; do
  grep -q "$lib" <<<"$libs" && fail "the sim-only binary links $lib: $(grep "$lib" <<<"$libs" | head -3)"
done

# The package dist/Containerfile installs: no DPDK, verbs or Prometheus among its dependencies;
# one man page per command.
(cd b && cpack -G DEB -B "$TMP/pkg") >cpack.log 2>&1 || fail "cpack: $(tail -5 cpack.log)"
deb=$(ls "$TMP"/pkg/gradwall_*.deb 2>/dev/null | head -1)
if [[ -n $deb ]]; then
  depends=$(dpkg-deb -f "$deb" Depends)
  grep -q libboost-program-options <<<"$depends" || fail "Depends lacks Boost.Program_options: $depends"
  grep -Eq 'dpdk|librte|ibverbs|prometheus|libbpf' <<<"$depends" && fail "the sim-only package depends on: $depends"
  pages=$(dpkg-deb -c "$deb" | grep -c 'man1/gradwall-.*\.1' || true)
  ((pages == 10)) || fail "want a man page per command but emu (10) in the package, found $pages"
else
  fail "cpack made no .deb"
fi

run "$sim" emu --profile "$SRC/profiles/wan/cross-continent.json"
((rc == 3)) || fail "emu: exit $rc, want 3"
grep -q "sim-only build" <<<"$err" || fail "emu does not say it is the sim-only build: $err"
run "$sim" endpoint
((rc == 3)) || fail "endpoint: exit $rc, want 3"
scenario=$SRC/profiles/scenarios/default-ddp-cross-continent.json
run "$sim" run "$scenario" --mode live --out live
((rc == 3)) || fail "run --mode live: exit $rc, want 3"
grep -q "sim-only build" <<<"$err" || fail "run --mode live does not say it is the sim-only build: $err"

# The same --out in two folders: report.json names its result file by that path.
mkdir sim full
run bash -c "cd sim && '$sim' run '$scenario' --out out --quiet"
sim_rc=$rc
run bash -c "cd full && '$GW' run '$scenario' --out out --quiet"
((sim_rc == rc)) || fail "default scenario: exit $sim_rc in the sim-only build, $rc in the full one"
[[ -s sim/out/report.json ]] || fail "the sim-only build wrote no report.json: $err"
cmp -s sim/out/report.json full/out/report.json || fail "report.json differs between the sim-only and the full build"
echo "sim-only binary: $(du -h "$sim" | cut -f1), full: $(du -h "$GW" | cut -f1); default scenario exit $rc"
finish
