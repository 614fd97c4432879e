#!/usr/bin/env bash
# CI: a Python vendor's view of the adapter SDK. Makes a fresh virtual
# environment in a temporary directory, pip-installs the SDK package
# (python/scatterproof_adapter, not editable, from a copy) and NumPy into it,
# copies examples/python_adapter/my_vendor_adapter.py out of the source tree,
# and runs the built CLI with that adapter as a process backend over the
# torch gather/index_select specs at every layout. Expected: exit 0, every
# gather and index_select case passes, every other op is "n/a" (the adapter
# does not implement it), side effects are checked. Then the same adapter
# with its planted bug (MY_VENDOR_BUG=gather-off-by-one) must make the run
# exit 1 with gather failures: the check can fail.
#
# Needs the Python package index (or pip's own PIP_INDEX_URL / PIP_FIND_LINKS /
# PIP_NO_INDEX pointing at a mirror or a wheel directory) for NumPy and for
# setuptools, the package's build backend.
#   scripts/check-python-adapter-sdk.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir=${1:-build}
cli="$root/$build_dir/scatterproof"
if [ ! -x "$cli" ]; then
  echo "check-python-adapter-sdk: $cli is missing: build first (scripts/setup.sh $build_dir)" >&2
  exit 2
fi
start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset PYTHONPATH PYTHONHOME  # the adapter must find the SDK in its venv, nowhere else

# The package's version is the tool's (CMakeLists.txt's project(VERSION)).
tool_version=$(sed -n 's/^project(scatterproof VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
sdk_version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/scatterproof_adapter/src/scatterproof_adapter/__init__.py)
if [ -z "$tool_version" ] || [ "$tool_version" != "$sdk_version" ]; then
  echo "check-python-adapter-sdk: scatterproof_adapter.__version__ is '$sdk_version', CMakeLists.txt's project" \
       "VERSION '$tool_version': make them equal" >&2
  exit 1
fi

# Debian's interpreter when its venv module is installed, as scripts/setup-python.sh picks it.
base_python=python3
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null; then
  base_python=/usr/bin/python3
fi
"$base_python" -m venv "$work/venv"
py="$work/venv/bin/python"
cp -r python/scatterproof_adapter "$work/sdk"  # pip builds in the directory it is given: not in the tree
if ! "$py" -m pip install --no-input --disable-pip-version-check --progress-bar off --quiet "$work/sdk"; then
  echo "check-python-adapter-sdk: pip could not install python/scatterproof_adapter and NumPy into a fresh venv." >&2
  echo "  It fetches NumPy and setuptools from the package index: check the network, or point pip at a mirror" >&2
  echo "  or a wheel directory (PIP_INDEX_URL, or PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR)." >&2
  exit 1
fi
mkdir "$work/vendor"
cp examples/python_adapter/my_vendor_adapter.py "$work/vendor/"
# The import resolves to the installed copy, not the source tree.
(cd "$work/vendor" && "$py" - "$work/venv" <<'PY'
import sys
import scatterproof_adapter
where = scatterproof_adapter.__file__
print("check-python-adapter-sdk: scatterproof_adapter %s from %s" % (scatterproof_adapter.__version__, where),
      file=sys.stderr)
sys.exit(0 if where.startswith(sys.argv[1] + "/") and "site-packages" in where else "not the venv's copy: " + where)
PY
)
echo "check-python-adapter-sdk: venv with the SDK ready in $(($(date +%s) - start)) s"

specs=(specs/torch specs/edge/torch-gather-*.json specs/edge/torch-index-select-*.json specs/edge/torch-versioned.json)
backend="process:$py $work/vendor/my_vendor_adapter.py"

# run_suite NAME EXPECTED_EXIT [ENV=VALUE...]: the CLI's exit status must be EXPECTED_EXIT.
run_suite() {
  local name=$1 expected=$2 status=0
  shift 2
  env "$@" "$cli" run --layouts all --backend "$backend" --report-dir "$work/$name" "${specs[@]}" \
    >"$work/$name.log" 2>&1 || status=$?
  tail -n 1 "$work/$name.log"
  if [ "$status" != "$expected" ]; then
    cat "$work/$name.log" >&2
    echo "check-python-adapter-sdk: the $name run exited $status, expected $expected" >&2
    exit 1
  fi
}

# verdicts DIR MODE: per-op verdict counts of the adapter's results; MODE "clean"
# wants gather and index_select all passing and every other op n/a, "broken"
# wants gather failures.
verdicts() {
  python3 - "$1" "$2" "$backend" <<'PY'
import collections, json, sys
directory, mode, backend = sys.argv[1:]
counts = collections.defaultdict(collections.Counter)
unobserved = 0
with open(directory + "/results.jsonl") as f:
    for line in f:
        r = json.loads(line)
        if r["backend"] == backend:
            counts[r["op"]][r["verdict"]] += 1
            unobserved += "side effects not observable" in r.get("detail", "")
for op in sorted(counts):
    print("  %-22s %s" % (op, ", ".join("%s %d" % kv for kv in sorted(counts[op].items()))))
problems = []
implemented = ("torch.gather", "torch.index_select")
if mode == "clean":
    for op in implemented:
        if not counts[op]["pass"] or set(counts[op]) != {"pass"}:
            problems.append("%s: %s, expected passes only" % (op, dict(counts[op])))
    problems += ["%s: %s, expected n/a only" % (op, dict(c)) for op, c in counts.items()
                 if op not in implemented and set(c) != {"not_applicable"}]
    if unobserved:
        problems.append("%d results say side effects were not observable (operands=True is not in effect)" % unobserved)
elif not counts["torch.gather"]["fail"]:
    problems.append("the planted gather bug failed no case")
for p in problems:
    print("check-python-adapter-sdk: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
}

run_suite clean 0
verdicts "$work/clean" clean
run_suite broken 1 MY_VENDOR_BUG=gather-off-by-one
verdicts "$work/broken" broken
echo "check-python-adapter-sdk: the example adapter on the installed SDK passed the gather/index_select specs," \
     "and failed them with its planted bug ($(($(date +%s) - start)) s)"
