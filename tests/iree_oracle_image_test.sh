#!/usr/bin/env bash
# iree_oracle_image_test.sh — the image families through IREE: Qwen2-VL (one bundle, two vision
# buckets, for its chelsea, two-images and text-only cases), Qwen2.5-VL (windowed vision.main, its
# chelsea case, and two images: the fixture's image twice, IREE's greedy ids = tessera run
# --bundle's = the engine's, there being no two-image Qwen2.5-VL reference; the runner's window
# checks, tests/oracle/vision_windowed_negative.py), Qwen3-VL and Qwen3-VL-MoE (DeepStack), LLaVA
# with its CLIP and SigLIP towers, Gemma3 (SigLIP + pool, the bias with its bidirectional image
# block, token rows × √hidden from the manifest), Qwen2-VL quantized at q8 (its per-channel tower)
# (see tests/oracle/iree_oracle_lib.sh for what each case asserts).
set -u
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/iree_oracle_lib.sh"

bundle qwen2_vl qwen2_vl --capacity 192 --prefill-capacity 160 --vision-patches 256,512
bundle qwen2_5_vl qwen2_5_vl --capacity 192 --prefill-capacity 160 --vision-patches 256,512
bundle qwen3_vl qwen3_vl --capacity 96 --prefill-capacity 80 --vision-patches 256
bundle qwen3_vl_moe qwen3_vl_moe --capacity 96 --prefill-capacity 80 --vision-patches 256
bundle llava llava --capacity 64 --prefill-capacity 48 --vision-patches 16
bundle llava_siglip llava_siglip --capacity 64 --prefill-capacity 48 --vision-patches 16
bundle gemma3 gemma3 --capacity 64 --prefill-capacity 48 --vision-patches 16
for c in qwen2_5_vl qwen3_vl qwen3_vl_moe llava llava_siglip gemma3; do run_case "$c" "$c"; done
# Two images (432 patch rows: the 512 bucket) through IREE, the bundle in tessera, and the engine.
q25=$fix/qwen2_5_vl
two() { "$bin" run "$@" -m "$q25/model" -p "Describe this image." --image "$q25/chelsea.png" --image "$q25/chelsea.png" \
    --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 2>>"$work/q25-two.err" | ids; }
engine_two=$(two)
bundle_two=$(two --bundle "$work/qwen2_5_vl")
iree_two=$("$py" "$root/tools/bundle_runner" generate "$work/qwen2_5_vl" -m "$q25/model" --fixture "$q25" --repeat-image 2 \
    2>>"$work/q25-two.err" | sed -n 's/.*"generated_ids": \[\([0-9, ]*\)\].*/\1/p' | tr -d ' ')
echo "qwen2_5_vl two images: engine $engine_two, tessera bundle $bundle_two, IREE $iree_two"
check "qwen2_5_vl two images: the engine gives 16 ids" test "$(echo "$engine_two" | tr ',' '\n' | grep -c .)" -eq 16
check "qwen2_5_vl two images: tessera run --bundle = the engine" test "$bundle_two" = "$engine_two"
check "qwen2_5_vl two images: IREE = the engine" test "$iree_two" = "$engine_two"
"$py" "$root/tests/oracle/vision_windowed_negative.py" "$work/qwen2_5_vl" >"$work/q25-negative.log" 2>&1
rc=$?
cat "$work/q25-negative.log"
check "qwen2_5_vl: the runner refuses bad window inputs (vision_windowed_negative exit $rc)" test $rc -eq 0
# The two images take the 512-patch bucket, the one image the 256.
for c in qwen2_vl qwen2_vl-two-images qwen2_vl-text-only; do run_case "$c" qwen2_vl; done
# Quantized at q8: the tower per channel (one scale a weight row), vision.main compiled by IREE
# with those scales, IREE's greedy ids = the quantized engine's.
QUANT_SHAPE="--capacity 192 --prefill-capacity 160 --vision-patches 256" \
    quant_case iree qwen2_vl-q8 "$fix/qwen2_vl/model" qwen2_vl --quantize q8
per_channel_tower "$work/qwen2_vl-q8"
finish
