#!/usr/bin/env bash
# iree_oracle_test.sh — every fixture family that exports, compiled by IREE (iree-compile, llvm-cpu,
# tools/iree_compile.py) and run by tools/bundle_runner on IREE's runtime (issue 11):
#   greedy tokens = the fixture's reference ids = `tessera run --bundle … --json`'s; each entry's
#   logits (and vision.main's rows, the prefill K/V) within the fixture tolerance of the
#   reference's, each entry alone from the reference's inputs and the whole chain; the host's
#   M-RoPE positions and rope delta = the reference's; batched decode of 3 slots at different
#   lengths = each slot alone. Then the bad days (tests/oracle/bundle_negative.py): edited modules
#   and identities, broken contracts and arguments, each refused with a message naming it.
# Needs .venv (scripts/install-deps; `make test` installs it): without it the test fails, it does
# not skip. Bundles and .vmfb files live in the build folder and are removed at the end.
set -u
bin=${TS_BIN:?TS_BIN not set}
root=${TS_ROOT:?TS_ROOT not set}
build=${TS_BUILD:?TS_BUILD not set}
py=$root/.venv/bin/python
if ! "$py" -c "import iree.runtime, iree.compiler, ml_dtypes" 2>/dev/null; then
    echo "FAIL: the compiler oracles are not installed in $root/.venv (run scripts/install-deps; make test does)"
    exit 1
fi
work=$(mktemp -d "$build/iree-oracle.XXXXXX")
trap 'rm -rf "$work"' EXIT
fix=$root/tests/fixtures
pass=0 fail=0
check() { # description, condition…
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}
ids() { sed -n 's/.*"generated_ids":\[\([0-9,]*\)\].*/\1/p'; }

# bundle name, model case, export flags…: exported with the freshly built tessera, compiled once.
bundle() {
    local name=$1 model=$2; shift 2
    "$bin" export -m "$fix/$model/model" -o "$work/$name" --batch 3 "$@" >/dev/null 2>"$work/$name.export.err"
    check "$name: tessera export exits 0" test $? -eq 0
    "$py" "$root/tools/iree_compile.py" "$work/$name" >"$work/$name.compile.log" 2>&1
    local rc=$?
    check "$name: tools/iree_compile.py compiles every module (exit $rc)" test $rc -eq 0
    [ $rc -eq 0 ] || cat "$work/$name.compile.log"
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

bundle qwen2 qwen2 --capacity 64 --prefill-capacity 32
bundle qwen3 qwen3 --capacity 64 --prefill-capacity 32
bundle llama llama --capacity 64 --prefill-capacity 32
bundle qwen2_vl qwen2_vl --capacity 192 --prefill-capacity 160 --vision-patches 256,512
bundle qwen3_vl qwen3_vl --capacity 96 --prefill-capacity 80 --vision-patches 256
bundle qwen3_vl_moe qwen3_vl_moe --capacity 96 --prefill-capacity 80 --vision-patches 256
bundle llava llava --capacity 64 --prefill-capacity 48 --vision-patches 16
bundle llava_siglip llava_siglip --capacity 64 --prefill-capacity 48 --vision-patches 16

for c in qwen2 qwen3 llama qwen3_vl qwen3_vl_moe llava llava_siglip; do run_case "$c" "$c"; done
# One Qwen2-VL bundle (two vision buckets) for its three cases: the two images take the 512 bucket.
for c in qwen2_vl qwen2_vl-two-images qwen2_vl-text-only; do run_case "$c" qwen2_vl; done

"$py" "$root/tests/oracle/bundle_negative.py" "$work/qwen2" "$fix/qwen2/model" "$work/negative" >"$work/negative.log" 2>&1
rc=$?
cat "$work/negative.log"
check "negative cases refused with messages naming them (exit $rc)" test $rc -eq 0

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
