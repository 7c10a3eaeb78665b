# iree_oracle_lib.sh — sourced by tests/iree_oracle_*_test.sh: fixture families compiled by IREE
# (iree-compile, llvm-cpu, tools/iree_compile.py) and run by tools/bundle_runner on IREE's runtime
# (issue 11):
#   greedy tokens = the fixture's reference ids = `tessera run --bundle … --json`'s; each entry's
#   logits (and vision.main's rows, the prefill K/V) within the fixture tolerance of the
#   reference's, each entry alone from the reference's inputs and the whole chain; the host's
#   M-RoPE positions and rope delta = the reference's; batched decode of 3 slots at different
#   lengths = each slot alone.
# Provides: bundle NAME CASE EXPORT_FLAGS… (export, compile once), run_case CASE BUNDLE, check,
# finish; $work, $py, $root, $fix.
# Needs .venv (scripts/install-deps; `make test` installs it): without it the test fails, it does
# not skip. Bundles and .vmfb files live in the build folder and are removed at the end.
ORACLE_IMPORTS="iree.runtime, iree.compiler, ml_dtypes" ORACLE_NAME=iree-oracle
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/compiler_oracle_prologue.sh"
ids() { sed -n 's/.*"generated_ids":\[\([0-9,]*\)\].*/\1/p'; }

# bundle name, model case, export flags…: exported with the freshly built tessera, compiled once.
bundle() {
    local name=$1 model=$2; shift 2
    "$bin" export -m "$fix/$model/model" -o "$work/$name" --batch 3 "$@" >/dev/null 2>"$work/$name.export.err"
    check "$name: tessera export exits 0" test $? -eq 0
    "$py" "$root/tools/iree_compile.py" "$work/$name" >"$work/$name.compile.log" 2>&1
    local rc=$?
    cat "$work/$name.compile.log"
    check "$name: tools/iree_compile.py compiles every module (exit $rc)" test $rc -eq 0
    check "$name: iree_compile.json records the target and flags" \
        grep -q '"--iree-llvmcpu-target-cpu=host"' "$work/$name/iree_compile.json"
    check "$name: one .vmfb beside each module" test "$(find "$work/$name" -name '*.mlir' | wc -l)" -eq "$(find "$work/$name" -name '*.vmfb' | wc -l)"
}

# fixture case, bundle name: tessera's ids through the same bundle, then the runner's checks.
run_case() {
    local case=$1 name=$2 args=()
    mapfile -d "" -t args < <(/usr/bin/python3 "$root/tests/oracle/bundle_fixture_args.py" "$fix/$case")
    local ours
    ours=$("$bin" run --bundle "$work/$name" -m "$fix/$case/model" "${args[@]}" --json --ignore-eos --max-tokens 16 \
        --temperature 0 --repeat-penalty 1 2>"$work/$case.run.err" | ids)
    check "$case: tessera run --bundle gives ids" test -n "$ours"
    "$py" "$root/tools/bundle_runner" check "$work/$name" -m "$fix/$case/model" --fixture "$fix/$case" \
        --tessera-ids "$ours" --batched >"$work/$case.check.log" 2>&1
    local rc=$?
    cat "$work/$case.check.log"
    check "$case: IREE generation and entries match (bundle_runner check exit $rc)" test $rc -eq 0
}

finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
