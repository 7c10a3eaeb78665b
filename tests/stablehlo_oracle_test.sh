#!/usr/bin/env bash
# stablehlo_oracle_test.sh — every module Tessera writes, checked by the official StableHLO
# implementation (the bindings jaxlib ships, .venv from scripts/install-deps): each golden module
# and each module `tessera export --portable` writes for every fixture family that exports (all
# entries, DeepStack, every tower's vision.main) parses, verifies, and round-trips through a
# portable artifact (quantized bundles too: --quantize q8 and q4); the artifacts written by the
# exporter deserialize to their modules; a
# bundle whose artifacts were changed or removed is refused, and so is --portable without jaxlib.
set -u
bin=${TS_BIN:?TS_BIN not set}
root=${TS_ROOT:?TS_ROOT not set}
py=$root/.venv/bin/python
if [ ! -x "$py" ]; then
    echo "FAIL: $py is missing: run scripts/install-deps (the compiler oracles are required, not optional)"
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
check() { # description, condition…
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}
fx=$root/tests/fixtures

# fixture family → the vision.main buckets its tower exports (none: text, or no tower entry yet)
declare -A patches=([qwen2]="" [qwen3]="" [llama]="" [qwen2_5_vl]="16,64" [qwen2_vl]="16,64" [qwen3_vl]="16,64"
    [qwen3_vl_moe]="16" [llava]="16" [llava_siglip]="16" [gemma3]="16")
modules=0
for family in "${!patches[@]}"; do
    vp=${patches[$family]}
    "$bin" export -m "$fx/$family/model" -o "$work/$family" --capacity 32,64 --prefill-capacity 32 --batch 3 \
        ${vp:+--vision-patches $vp} --portable --python "$py" 2>"$work/$family.err"
    check "$family exports with --portable" test $? -eq 0
    n=$(find "$work/$family" -name '*.mlir' | wc -l)
    nb=$(find "$work/$family" -name '*.mlirbc' | wc -l)
    check "$family: one portable artifact per module ($n modules, $nb artifacts)" test "$n" -gt 0 -a "$n" -eq "$nb"
    modules=$((modules + n))
done
# Quantized bundles: i8 weights (8-bit) and ui8 bytes of two 4-bit values (4-bit) with f16 scales
# as arguments, dequantized in tessera.qlinear's decomposition.
for q in q8 q4; do
    "$bin" export -m "$fx/qwen2/model" -o "$work/qwen2-$q" --capacity 32 --batch 2 --quantize "$q" --portable --python "$py" \
        2>"$work/qwen2-$q.err"
    check "qwen2 --quantize $q exports with --portable" test $? -eq 0
    n=$(find "$work/qwen2-$q" -name '*.mlir' | wc -l)
    check "qwen2 $q: one portable artifact per module" test "$n" -eq 3 -a "$(find "$work/qwen2-$q" -name '*.mlirbc' | wc -l)" -eq 3
    modules=$((modules + n))
done
# decode_k.main (--draft-width 4: K rows per slot, speculative decoding), M-RoPE's [3, B, K] positions.
"$bin" export -m "$fx/qwen2_vl/model" -o "$work/qwen2_vl-dk" --capacity 32 --prefill-capacity 32 --batch 3 --draft-width 4 \
    --portable --python "$py" 2>"$work/qwen2_vl-dk.err"
check "qwen2_vl --draft-width 4 exports with --portable" test $? -eq 0
check "… decode_k.main and its portable artifact" test -s "$work/qwen2_vl-dk/c32/decode_k.mlir" -a -s "$work/qwen2_vl-dk/c32/decode_k.mlirbc"
check "… taking tokens [3, 4] and positions [3, 3, 4]" grep -q "tensor<3x4xi32> {tessera.name = \"tokens\", tessera.role = \"input\"}, %arg[0-9]*: tensor<3x3x4xi32> {tessera.name = \"positions\"" \
    "$work/qwen2_vl-dk/c32/decode_k.mlir"
modules=$((modules + $(find "$work/qwen2_vl-dk" -name '*.mlir' | wc -l)))
check "the 8-bit modules take i8 weights into tessera.qlinear" grep -q 'tensor<64x64xi8> {tessera.name = "model.layers.0.self_attn.q_proj.weight:q8"' \
    "$work/qwen2-q8/c32/decode.mlir"
check "the 4-bit modules take ui8 bytes" grep -q 'tensor<64x32xui8> {tessera.name = "model.layers.0.self_attn.q_proj.weight:q4"' \
    "$work/qwen2-q4/c32/prefill.mlir"
goldens=$(find "$root/tests/golden" -name '*.mlir' | wc -l)
"$py" "$root/tools/stablehlo_check.py" "$root/tests/golden" "$work" >"$work/check.out" 2>&1
rc=$?
tail -1 "$work/check.out"
check "the official StableHLO parses, verifies and round-trips all $((goldens + modules)) modules (0 failed)" \
    grep -qx "stablehlo: $((goldens + modules)) passed, 0 failed" "$work/check.out"
check "stablehlo_check exits 0" test $rc -eq 0
grep -q "DeepStack\|deepstack" "$work/qwen3_vl/manifest.json"
check "qwen3_vl's export includes the DeepStack entry" test -s "$work/qwen3_vl/c64/prefill_embeddings_deepstack.mlirbc"
check "the manifest names the portable target" grep -q '"stablehlo_target":	"1.0.0"' "$work/qwen2/manifest.json"

# A portable bundle runs as the plain one does.
prompt="Write a short poem about the sea."
plain=$("$bin" run --bundle "$work/qwen2" -m "$fx/qwen2/model" -p "$prompt" --max-tokens 8 --temperature 0 --json 2>"$work/run.err")
check "a portable bundle opens and generates" test -n "$plain"
engine=$("$bin" run -m "$fx/qwen2/model" -p "$prompt" --max-tokens 8 --temperature 0 --json 2>/dev/null)
check "… the engine's text" test "$(echo "$plain" | grep -o '"text":"[^"]*"')" = "$(echo "$engine" | grep -o '"text":"[^"]*"')"

# A changed artifact: refused at open (its digest), and by the checker (not its module).
cp -r "$work/qwen2" "$work/tampered"
cp "$work/qwen2/c32/prefill.mlirbc" "$work/tampered/c32/decode.mlirbc"
"$bin" run --bundle "$work/tampered" -m "$fx/qwen2/model" -p "$prompt" --max-tokens 2 >/dev/null 2>"$work/tampered.err"
check "a swapped artifact is refused at open" test $? -ne 0
check "… naming it" grep -q "portable artifact c32/decode.mlirbc" "$work/tampered.err"
"$py" "$root/tools/stablehlo_check.py" "$work/tampered/c32/decode.mlir" >"$work/tampered.out" 2>&1
check "the checker says the artifact is not its module" grep -q "decode.mlirbc is not this module" "$work/tampered.out"
rm "$work/tampered/c32/decode.mlirbc"
"$bin" run --bundle "$work/tampered" -m "$fx/qwen2/model" -p "$prompt" --max-tokens 2 >/dev/null 2>"$work/missing.err"
check "a missing artifact is refused at open" grep -q "portable artifact c32/decode.mlirbc: missing" "$work/missing.err"
# The manifest's portable object is covered by the identity.
sed 's/"stablehlo_target":	"1.0.0"/"stablehlo_target":	"0.9.0"/' "$work/qwen2/manifest.json" >"$work/m.json"
cp -r "$work/qwen2" "$work/retarget" && cp "$work/m.json" "$work/retarget/manifest.json"
"$bin" run --bundle "$work/retarget" -m "$fx/qwen2/model" -p "$prompt" --max-tokens 2 >/dev/null 2>"$work/retarget.err"
check "an edited portable target breaks the identity" grep -q "identity differs" "$work/retarget.err"

# A module the official verifier rejects (a result type that is not the op's) is named.
sed '0,/stablehlo.add \(%[0-9a-z_]*\), \(%[0-9a-z_]*\) : tensor<\([0-9x]*\)xi32>/s//stablehlo.add \1, \2 : (tensor<\3xi32>, tensor<\3xi32>) -> tensor<\3xf32>/' \
    "$work/qwen2/c32/decode.mlir" >"$work/bad.mlir"
check "the edit took" test "$(cmp -s "$work/bad.mlir" "$work/qwen2/c32/decode.mlir"; echo $?)" = 1
"$py" "$root/tools/stablehlo_check.py" "$work/bad.mlir" >"$work/bad.out" 2>&1
check "an ill-typed module fails the official check" grep -q "bad.mlir: does not" "$work/bad.out"

# Without jaxlib, --portable is an error that says what to do (never a bundle without artifacts).
"$bin" export -m "$fx/qwen2/model" -o "$work/nojax" --capacity 32 --portable --python /bin/false >/dev/null 2>"$work/nojax.err"
check "--portable with a Python lacking jaxlib fails" test $? -ne 0
check "… saying how to fix it" grep -q "TESSERA_PYTHON" "$work/nojax.err"
check "… and writes no manifest" test ! -e "$work/nojax/manifest.json"

echo "stablehlo_oracle_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
