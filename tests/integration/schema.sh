#!/usr/bin/env bash
# Every shipped profile validates against profiles/schema/profile.schema.json (the schema an
# editor uses), and the schema rejects what the loader rejects for the common mistakes.
set -euo pipefail
gradwall="$1"
src="$2"
py=/usr/bin/python3   # Debian's, with python3-jsonschema (ci/setup-deps)
"$py" - "$src" <<'PY'
import glob, json, sys
import jsonschema
src = sys.argv[1]
schema = json.load(open(f"{src}/profiles/schema/profile.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
files = sorted(glob.glob(f"{src}/profiles/wan/*.json"))
assert len(files) >= 7, files
for f in files:
    errors = list(v.iter_errors(json.load(open(f))))
    if errors:
        sys.exit(f"{f}: schema errors: {[e.message for e in errors]}")
bad = [
    {"gradwall": "profile/v1", "a_to_b": {"loss": {"p": 1.5}}},
    {"gradwall": "profile/v1", "a_to_b": {"dealy": {}}},
    {"gradwall": "profile/v2"},
    {"gradwall": "profile/v1", "a_to_b": {"queue": {"aqm": {"kind": "blue"}}}},
]
for doc in bad:
    if v.is_valid(doc):
        sys.exit(f"schema accepted a bad profile: {doc}")
print(f"{len(files)} profiles valid against the schema; {len(bad)} bad ones rejected")
PY
# The loader agrees with the schema on the shipped files.
"$gradwall" profile validate "$src"/profiles/wan/*.json
