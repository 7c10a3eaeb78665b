#!/usr/bin/env bash
# xla_oracle_test.sh — bundles compiled by XLA's CPU compiler through jaxlib (the StableHLO text
# as exported, weights as arguments) and run by tools/bundle_runner (issue 11): the text fixtures
# (qwen2, qwen3, llama: prefill.main, prefill_embeddings.main, decode.main) and one image fixture
# (qwen2_vl, and qwen2_5_vl with its windowed tower: vision.main, prefill_embeddings.main,
# decode.main; qwen2_vl also decode_k.main, its verified rows = decode.main's chain): greedy tokens = the reference's,
# every entry's logits within the fixture tolerance of the reference's (alone from the reference's
# inputs and through the chain), batched decode of 3 ragged slots = each alone; qwen2 again with
# its BF16 weights; quantized bundles (q8, q4 of qwen2 and llama, a GPTQ 4-bit act-order qwen2 checkpoint,
# qwen3_vl q4 with its quantized vision.main, qwen2_vl q8 with its per-channel one): the quantized
# engine's greedy ids under --compute f32.
# Needs .venv (scripts/install-deps; `make test` installs it): without it the test fails.
ORACLE_IMPORTS="jax, jaxlib, ml_dtypes" ORACLE_NAME=xla-oracle
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/compiler_oracle_prologue.sh"

xla_case() { # case, model folder, export flags…
    local case=$1 model=$2; shift 2
    "$bin" export -m "$model" -o "$work/$case" --batch 3 "$@" >/dev/null 2>"$work/$case.export.err"
    check "$case: tessera export exits 0" test $? -eq 0
    "$py" "$root/tools/bundle_runner" check "$work/$case" -m "$model" --fixture "$fix/${case%-bf16}" --backend xla \
        --batched >"$work/$case.log" 2>&1
    local rc=$?
    cat "$work/$case.log"
    check "$case: XLA generation and entries match (bundle_runner check exit $rc)" test $rc -eq 0
}

xla_case qwen2 "$fix/qwen2/model" --capacity 64 --prefill-capacity 32
xla_case qwen3 "$fix/qwen3/model" --capacity 64 --prefill-capacity 32
xla_case llama "$fix/llama/model" --capacity 64 --prefill-capacity 32
# qwen2_vl with decode_k.main (--draft-width 4: M-RoPE positions [3, B, K], the image's rope delta).
xla_case qwen2_vl "$fix/qwen2_vl/model" --capacity 192 --prefill-capacity 160 --vision-patches 256 --draft-width 4
xla_case qwen2_5_vl "$fix/qwen2_5_vl/model" --capacity 192 --prefill-capacity 160 --vision-patches 256
# BF16 weights (the fixture's model-bf16 file, the same values): the modules take them as stored.
mkdir -p "$work/qwen2-bf16-model"
for f in "$fix"/qwen2/model/*; do [ "${f##*/}" = model.safetensors ] || ln -s "$f" "$work/qwen2-bf16-model/"; done
ln -s "$fix/qwen2/model-bf16/model.safetensors" "$work/qwen2-bf16-model/model.safetensors"
xla_case qwen2-bf16 "$work/qwen2-bf16-model" --capacity 64 --prefill-capacity 32
grep -q '"dtype":	"BF16"' "$work/qwen2-bf16/manifest.json"
check "qwen2-bf16: the bundle declares BF16 weights" test $? -eq 0

# Quantized bundles (integer weights + scales [+ zero points], dequantized in the modules):
# XLA's greedy ids = the quantized engine's, q8 and q4 for qwen2 and llama, and a GPTQ checkpoint.
for c in qwen2 llama; do
    for q in q8 q4; do quant_case xla "$c-$q" "$fix/$c/model" "$c" --quantize "$q"; done
done
quant_case xla qwen2-gptq4 "$fix/qwen2-gptq4-act_order/model" qwen2
# An image model quantized: vision.main's matrices too (the engine's tower rule, bound from
# quantized.safetensors by the runner), DeepStack's entry, XLA's ids = the quantized engine's.
QUANT_SHAPE="--capacity 128 --prefill-capacity 96 --vision-patches 256" \
    quant_case xla qwen3_vl-q4 "$fix/qwen3_vl/model" qwen3_vl --quantize q4
grep -q '"weight":	"model.visual.blocks.0.mlp.linear_fc2.weight"' "$work/qwen3_vl-q4/manifest.json"
check "qwen3_vl-q4: the manifest's quantization holds the tower's matrices" test $? -eq 0
# The tower at q8 is per channel (one scale a weight row: block = the row's width): Qwen2-VL's
# vision.main with those scales, XLA's ids = the quantized engine's.
QUANT_SHAPE="--capacity 192 --prefill-capacity 160 --vision-patches 256" \
    quant_case xla qwen2_vl-q8 "$fix/qwen2_vl/model" qwen2_vl --quantize q8
per_channel_tower "$work/qwen2_vl-q8"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
