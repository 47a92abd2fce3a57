#!/usr/bin/env python3
"""Golden scenario tests: scenario in, report.json out, compared to a stored reference.

Usage:
  golden.py --gradwall BIN SCENARIO.json...        run each scenario, compare with its reference
  golden.py --gradwall BIN --update SCENARIO.json  (or GW_UPDATE_GOLDEN=1) rewrite the references
  golden.py --self-test                            check that the comparison catches changes

The reference of tests/golden/scenarios/NAME.json is tests/golden/reference/NAME.report.json:
the whole report.json, pretty-printed with sorted keys, so a changed reference reads as a
diff in review. Two fields depend on where the test ran and are normalised before comparing
and storing: run.result_file -> "result.json", run.scenario_file -> its file name.

Comparison, field by field (docs/reports.md "Golden scenarios"):
  - the report follows reports/report.schema.json;
  - structure exact: the same keys, the same array lengths, the same JSON types;
  - strings, booleans, nulls and integer counts exact;
  - timings (any number under a key ending in "_ns") and non-integer numbers within a
    relative tolerance RTOL = 1e-9 (--rtol). A run is deterministic (the same scenario and
    seed give a byte-identical result.json), so any change of the simulation is a real change:
    one nanosecond in a 10 ms collective is 1e-7, a hundred times the tolerance. The tolerance
    only absorbs the last bits of floating-point arithmetic that may differ between platforms
    or libm versions (a double has 2.2e-16 relative precision; the report's derived values take
    a few dozen operations). GW_GOLDEN_EXACT=1 (--exact) demands bit-identical numbers, which
    holds on the same build.

Exit codes: 0 all match, 1 a report differs from its reference, 2 bad usage or missing
reference, 3 gradwall failed to run (an exit code other than 0/1, or no report.json).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "reports", "report.schema.json")
REFERENCE_DIR = os.path.join(HERE, "reference")
RTOL = 1e-9
MAX_SHOWN = 40


def reference_path(scenario):
    name = os.path.splitext(os.path.basename(scenario))[0]
    return os.path.join(REFERENCE_DIR, name + ".report.json")


def normalise(report):
    run = report.get("run", {})
    if "result_file" in run:
        run["result_file"] = "result.json"
    if isinstance(run.get("scenario_file"), str):
        run["scenario_file"] = os.path.basename(run["scenario_file"])
    return report


def dump(report):
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def compare(ref, got, rtol, exact, path="$", timing=False, out=None):
    """Appends one line per difference to `out` and returns it."""
    out = [] if out is None else out
    if kind(ref) != kind(got):
        out.append(f"{path}: type {kind(ref)} in the reference, {kind(got)} now ({json.dumps(got)[:60]})")
        return out
    if isinstance(ref, dict):
        for k in sorted(set(ref) - set(got)):
            out.append(f"{path}.{k}: in the reference, missing now")
        for k in sorted(set(got) - set(ref)):
            out.append(f"{path}.{k}: new field (not in the reference): {json.dumps(got[k])[:60]}")
        for k in sorted(set(ref) & set(got)):
            compare(ref[k], got[k], rtol, exact, f"{path}.{k}", timing or k.endswith("_ns"), out)
    elif isinstance(ref, list):
        if len(ref) != len(got):
            out.append(f"{path}: {len(ref)} entries in the reference, {len(got)} now")
        for i, (a, b) in enumerate(zip(ref, got)):
            compare(a, b, rtol, exact, f"{path}[{i}]", timing, out)
    elif isinstance(ref, float) or (isinstance(ref, int) and not isinstance(ref, bool) and timing):
        if exact or not (math.isfinite(ref) and math.isfinite(got)):
            same = ref == got
        else:
            same = abs(got - ref) <= rtol * max(abs(ref), abs(got))
        if not same:
            rel = (got - ref) / abs(ref) if ref else math.inf
            out.append(f"{path}: reference {ref!r}, now {got!r} ({rel:+.3g} relative)")
    elif ref != got:
        out.append(f"{path}: reference {json.dumps(ref)}, now {json.dumps(got)}")
    return out


def run_scenario(gradwall, scenario, tmp):
    out = os.path.join(tmp, "out")
    p = subprocess.run([gradwall, "run", scenario, "--out", out, "--quiet"], capture_output=True, text=True)
    report_file = os.path.join(out, "report.json")
    if p.returncode not in (0, 1) or not os.path.exists(report_file):
        sys.stderr.write(f"{scenario}: gradwall run exited {p.returncode}\n{p.stderr}")
        return None, p.returncode
    with open(report_file) as f:
        return normalise(json.load(f)), p.returncode


def check(gradwall, scenario, update, rtol, exact):
    ref_file = reference_path(scenario)
    with tempfile.TemporaryDirectory(prefix="gw-golden-") as tmp:
        report, rc = run_scenario(gradwall, scenario, tmp)
    if report is None:
        return 3
    # The exit code is the verdict's (docs/guide/run.md): a mismatch is a bug whatever the reference.
    want_rc = 0 if report.get("verdict") == "pass" else 1
    if rc != want_rc:
        print(f"FAIL {scenario}: exit code {rc} but verdict {report.get('verdict')!r}")
        return 1
    # The report must follow its schema before it may become (or be compared with) a reference.
    import jsonschema  # Debian's python3-jsonschema (ci/setup-deps)
    with open(SCHEMA) as f:
        errors = list(jsonschema.Draft202012Validator(json.load(f)).iter_errors(report))
    if errors:
        print(f"FAIL {scenario}: report.json does not follow reports/report.schema.json: {errors[0].message}")
        return 1
    if update:
        os.makedirs(REFERENCE_DIR, exist_ok=True)
        with open(ref_file, "w") as f:
            f.write(dump(report))
        print(f"updated {os.path.relpath(ref_file)}")
        return 0
    if not os.path.exists(ref_file):
        print(f"FAIL {scenario}: no reference {ref_file}; create it with GW_UPDATE_GOLDEN=1 (tests/golden/update)")
        return 2
    with open(ref_file) as f:
        ref = json.load(f)
    diffs = compare(ref, report, rtol, exact)
    if diffs:
        print(f"FAIL {os.path.basename(scenario)}: {len(diffs)} field(s) differ from {os.path.relpath(ref_file)}")
        for d in diffs[:MAX_SHOWN]:
            print("  " + d)
        if len(diffs) > MAX_SHOWN:
            print(f"  ... and {len(diffs) - MAX_SHOWN} more")
        print("If the change is intended: tests/golden/update BUILD_DIR (or GW_UPDATE_GOLDEN=1 ctest -L golden),")
        print("then review and commit the diff of tests/golden/reference/.")
        return 1
    print(f"ok {os.path.basename(scenario)}: report.json matches {os.path.relpath(ref_file)} "
          f"({'exact' if exact else f'rtol {rtol:g} on timings and fractions'}, verdict {report['verdict']})")
    return 0


def self_test():
    """The comparison must catch each kind of change and accept formatting-level noise."""
    ref = {"collectives": {"count": 5, "ops": [{"cct_ns": {"p50": 10_000_000, "p99": 12_000_000},
                                                "busbw_GBps": 1.25, "key": "all_reduce/ring/4/4"}]},
           "run": {"duration_ns": 60_000_000, "seed": 7}, "verdict": "pass", "cost": None}

    def changed(fn):
        got = json.loads(json.dumps(ref))
        fn(got)
        return got

    ops = lambda g: g["collectives"]["ops"][0]  # noqa: E731
    must_differ = {
        "count +1": lambda g: g["collectives"].update(count=6),
        "seed": lambda g: g["run"].update(seed=8),
        "timing +1 ns": lambda g: ops(g)["cct_ns"].update(p99=12_000_001),
        "float +1e-7": lambda g: ops(g).update(busbw_GBps=1.25 * (1 + 1e-7)),
        "verdict": lambda g: g.update(verdict="fail"),
        "new field": lambda g: g.update(extra=1),
        "missing field": lambda g: g["run"].pop("seed"),
        "array length": lambda g: g["collectives"]["ops"].append({}),
        "null -> number": lambda g: g.update(cost=0.0),
        "int -> float": lambda g: g["collectives"].update(count=5.0),
    }
    failures = 0
    for name, fn in must_differ.items():
        if not compare(ref, changed(fn), RTOL, False):
            print(f"self-test FAIL: '{name}' was not detected")
            failures += 1
    if compare(ref, changed(lambda g: ops(g).update(busbw_GBps=1.25 * (1 + 1e-13))), RTOL, False):
        print("self-test FAIL: a 1e-13 relative change of a float was reported")
        failures += 1
    if not compare(ref, changed(lambda g: ops(g).update(busbw_GBps=1.25 * (1 + 1e-13))), RTOL, True):
        print("self-test FAIL: --exact accepted a 1e-13 relative change")
        failures += 1
    if compare(ref, changed(lambda g: None), RTOL, True):
        print("self-test FAIL: an identical report differs")
        failures += 1
    print("self-test: " + ("ok" if failures == 0 else f"{failures} failure(s)"))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gradwall", help="the gradwall binary")
    ap.add_argument("--update", action="store_true", default=os.environ.get("GW_UPDATE_GOLDEN") == "1",
                    help="rewrite the references instead of comparing (also GW_UPDATE_GOLDEN=1)")
    ap.add_argument("--exact", action="store_true", default=os.environ.get("GW_GOLDEN_EXACT") == "1",
                    help="bit-identical numbers (also GW_GOLDEN_EXACT=1)")
    ap.add_argument("--rtol", type=float, default=RTOL, help=f"relative tolerance (default {RTOL:g})")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.gradwall or not a.scenarios:
        ap.print_usage(sys.stderr)
        return 2
    return max(check(a.gradwall, s, a.update, a.rtol, a.exact) for s in a.scenarios)


if __name__ == "__main__":
    sys.exit(main())
