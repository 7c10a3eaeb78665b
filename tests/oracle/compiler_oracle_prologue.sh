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

# quant_case BACKEND NAME MODEL CASE [--quantize q8|q4]: a quantized bundle (`tessera export
# --quantize`, or a GPTQ/AWQ checkpoint as it is) compiled by the backend (iree: tools/iree_compile.py;
# xla: in tools/bundle_runner) and run by tools/bundle_runner on CASE's prompt: its 16 greedy ids =
# the quantized engine's under --compute f32 (the same integer weights, f32 activations on both
# sides) = `tessera run --bundle`'s. QUANT_SHAPE: the export's bucket flags (an image case's
# capacity and vision buckets; default --capacity 64 --prefill-capacity 32).
quant_case() {
    local backend=$1 name=$2 model=$3 case=$4 shape
    shift 4
    read -r -a shape <<<"${QUANT_SHAPE:---capacity 64 --prefill-capacity 32}"
    "$bin" export -m "$model" -o "$work/$name" "${shape[@]}" "$@" >/dev/null 2>"$work/$name.export.err"
    check "$name: tessera export $* exits 0" test $? -eq 0
    if [ "$backend" = iree ]; then
        "$py" "$root/tools/iree_compile.py" "$work/$name" >"$work/$name.compile.log" 2>&1
        local rc=$?
        check "$name: tools/iree_compile.py compiles every quantized module (exit $rc)" test $rc -eq 0
    fi
    local args=() run=(--json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 --compute f32) engine ours theirs
    mapfile -d "" -t args < <(/usr/bin/python3 "$root/tests/oracle/bundle_fixture_args.py" "$fix/$case")
    engine=$("$bin" run -m "$model" "$@" "${args[@]}" "${run[@]}" 2>"$work/$name.engine.err" | sed -n 's/.*"generated_ids":\[\([0-9,]*\)\].*/\1/p')
    ours=$("$bin" run --bundle "$work/$name" -m "$model" "${args[@]}" "${run[@]}" 2>"$work/$name.run.err" |
        sed -n 's/.*"generated_ids":\[\([0-9,]*\)\].*/\1/p')
    theirs=$("$py" "$root/tools/bundle_runner" generate "$work/$name" -m "$model" --fixture "$fix/$case" --max-tokens 16 \
        --backend "$backend" 2>"$work/$name.runner.err" | sed -n 's/.*"generated_ids": \[\([0-9, ]*\)\].*/\1/p' | tr -d ' ')
    echo "$name: engine [$engine], tessera --bundle [$ours], $backend [$theirs]"
    [ -n "$theirs" ] || tail -3 "$work/$name.runner.err"
    check "$name: the quantized engine gives 16 ids" test "$(echo "$engine" | tr ',' '\n' | grep -c .)" -eq 16
    check "$name: tessera run --bundle = the quantized engine" test "$ours" = "$engine"
    check "$name: $backend's greedy ids = the quantized engine's" test "$theirs" = "$engine"
    # A GPTQ/AWQ fixture (tools/fixtures/make_packed_fixture.py) knows transformers' ids on its
    # dequantized weights, from its source case's prompt.
    if grep -qs '"format": "tessera-packed-fixture/1"' "$model/../reference.json"; then
        local want
        want=$(/usr/bin/python3 -c 'import json, sys
print(",".join(map(str, json.load(open(sys.argv[1]))["generated_ids"])))' "$model/../reference.json")
        check "$name: $backend's greedy ids = transformers' on the dequantized weights" test -n "$want" -a "$theirs" = "$want"
    fi
}

# per_channel_tower BUNDLE: the manifest quantizes tower matrices, each per channel (block = its
# width, so its scales are [out, 1]), and the language model's in blocks of 32.
per_channel_tower() {
    /usr/bin/python3 - "$1/manifest.json" <<'PY'
import json, sys
weights = json.load(open(sys.argv[1]))["quantization"]["weights"]
tower = [w for w in weights if "visual" in w["weight"]]
lm = [w for w in weights if "visual" not in w["weight"]]
assert tower and all(w["bits"] == 8 and w["block"] == w["shape"][1] for w in tower), tower
assert lm and all(w["block"] == 32 for w in lm), lm
print(f"{len(tower)} tower matrices per channel, {len(lm)} language-model ones in blocks of 32")
PY
    check "${1##*/}: the manifest's tower matrices are per channel" test $? -eq 0
}
