#!/usr/bin/env bash
# iree_oracle_image_test.sh — the image families through IREE: Qwen2-VL (one bundle, two vision
# buckets, for its chelsea, two-images and text-only cases), Qwen3-VL and Qwen3-VL-MoE (DeepStack),
# LLaVA with its CLIP and SigLIP towers, Gemma3 (SigLIP + pool, the bias with its bidirectional
# image block, token rows × √hidden from the manifest) (see tests/oracle/iree_oracle_lib.sh for
# what each case asserts).
set -u
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/iree_oracle_lib.sh"

bundle qwen2_vl qwen2_vl --capacity 192 --prefill-capacity 160 --vision-patches 256,512
bundle qwen3_vl qwen3_vl --capacity 96 --prefill-capacity 80 --vision-patches 256
bundle qwen3_vl_moe qwen3_vl_moe --capacity 96 --prefill-capacity 80 --vision-patches 256
bundle llava llava --capacity 64 --prefill-capacity 48 --vision-patches 16
bundle llava_siglip llava_siglip --capacity 64 --prefill-capacity 48 --vision-patches 16
bundle gemma3 gemma3 --capacity 64 --prefill-capacity 48 --vision-patches 16
for c in qwen3_vl qwen3_vl_moe llava llava_siglip gemma3; do run_case "$c" "$c"; done
# The two images take the 512-patch bucket, the one image the 256.
for c in qwen2_vl qwen2_vl-two-images qwen2_vl-text-only; do run_case "$c" qwen2_vl; done
finish
