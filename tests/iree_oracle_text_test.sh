#!/usr/bin/env bash
# iree_oracle_text_test.sh — the text families (qwen2 with decode_k.main, qwen3, llama) through IREE (see
# tests/oracle/iree_oracle_lib.sh for what each case asserts), quantized bundles (qwen2 q8,
# llama q4, a GPTQ checkpoint: the quantized engine's greedy ids), then the bad days
# (tests/oracle/bundle_negative.py): edited modules and identities, broken contracts and
# arguments, each refused with a message naming it.
set -u
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/iree_oracle_lib.sh"

# qwen2 also has decode_k.main (--draft-width 4): `tessera run --bundle` verifies drafts through it,
# and the runner holds its rows to decode.main's chain (after a rollback over stale rows).
bundle qwen2 qwen2 --capacity 64 --prefill-capacity 32 --draft-width 4
bundle qwen3 qwen3 --capacity 64 --prefill-capacity 32
bundle llama llama --capacity 64 --prefill-capacity 32
for c in qwen2 qwen3 llama; do run_case "$c" "$c"; done

# Quantized bundles (integer weights + scales [+ zero points], dequantized in the modules) compiled
# by IREE: the quantized engine's greedy ids (qwen2 q8, llama q4, a GPTQ 4-bit act-order qwen2 checkpoint).
quant_case iree qwen2-q8 "$fix/qwen2/model" qwen2 --quantize q8
quant_case iree llama-q4 "$fix/llama/model" llama --quantize q4
quant_case iree qwen2-gptq4 "$fix/qwen2-gptq4-act_order/model" qwen2

"$py" "$root/tests/oracle/bundle_negative.py" "$work/qwen2" "$fix/qwen2/model" "$work/negative" "$work/qwen2-q8" >"$work/negative.log" 2>&1
rc=$?
cat "$work/negative.log"
check "negative cases refused with messages naming them (exit $rc)" test $rc -eq 0
finish
