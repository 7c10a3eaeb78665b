# compiler_oracle_prologue.sh — the common start of the tests that run bundles through the compiler
# oracles (IREE, XLA) in .venv. Set ORACLE_IMPORTS (Python modules the test needs) and ORACLE_NAME
# (its scratch folder's prefix), then source this. Provides $bin, $root, $build, $py, $work (in
# the build folder, removed at exit), $fix, pass/fail counters and check. Without .venv the test
# fails: the oracles are required, never skipped.
set -u
bin=${TS_BIN:?TS_BIN not set}
root=${TS_ROOT:?TS_ROOT not set}
build=${TS_BUILD:?TS_BUILD not set}
py=$root/.venv/bin/python
if ! "$py" -c "import $ORACLE_IMPORTS" 2>/dev/null; then
    echo "FAIL: the compiler oracles are not installed in $root/.venv (run scripts/install-deps; make test does)"
    exit 1
fi
work=$(mktemp -d "$build/$ORACLE_NAME.XXXXXX")
trap 'rm -rf "$work"' EXIT
fix=$root/tests/fixtures
pass=0 fail=0
check() { # description, condition…
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}
