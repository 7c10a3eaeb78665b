#!/usr/bin/env bash
# quantize_cli_test.sh — `--quantize q8|q4` on the command line: inspect prints the weight error
# (q8 ≈ 0.53%, q4 ≈ 8.6% on the random fixtures), run generates and names the format, compare
# prints the quantization and then the stage differences (non-zero: exit 1, with q8 Llama's greedy
# tokens still equal), an unknown format is a runtime error naming it, and --quantize with
# --bundle a usage error.
set -u
bin=${TS_BIN:?TS_BIN not set}
root=${TS_ROOT:?TS_ROOT not set}
pass=0 fail=0
check() { local what=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
m=$root/tests/fixtures/qwen2/model

"$bin" inspect -m "$m" --quantize q8 >"$out" 2>&1
check "inspect --quantize q8 exits 0" test $? -eq 0
check "inspect prints the q8 weight error" grep -Eq "^quantized: +q8: 22 matrices, 0.22 M weights, 0.23 MB; weight error \|W - Wq\|/\|W\| 0\.5[0-9]+% overall" "$out"
"$bin" inspect -m "$m" --quantize q4 >"$out" 2>&1
check "inspect prints the q4 weight error" grep -Eq "^quantized: +q4: 22 matrices, .* 0.12 MB; weight error \|W - Wq\|/\|W\| 8\.[0-9]+% overall" "$out"
"$bin" inspect -m "$m" --quantize q8 --json >"$out" 2>&1
check "inspect --quantize --json is a usage error" test $? -eq 2

"$bin" run -m "$m" --quantize q4 -p "Hello" --raw --max-tokens 4 --json >"$out" 2>&1
check "run --quantize q4 exits 0" test $? -eq 0
check "run names the weights" grep -q "tessera run: weights q4: 22 matrices" "$out"
check "run generates 4 tokens" grep -q '"generated_tokens":4' "$out"
"$bin" run -m "$m" --quantize q5 -p "Hello" --max-tokens 4 >"$out" 2>&1
check "an unknown format exits 1" test $? -eq 1
check "an unknown format is named" grep -q "quantization format 'q5' (expected q8 or q4)" "$out"
"$bin" run -m "$m" --quantize q8 --bundle /nonexistent -p "Hello" >"$out" 2>&1
check "--quantize with --bundle is a usage error" test $? -eq 2

"$bin" compare -m "$root/tests/fixtures/llama/model" --reference "$root/tests/fixtures/llama/reference.safetensors" --quantize q8 >"$out" 2>&1
check "compare --quantize reports a divergence (exit 1)" test $? -eq 1
check "compare prints the quantization" grep -q "^quantized q8: 22 matrices" "$out"
check "compare prints the logit error" grep -Eq "^prefill_logits +FAIL max \|diff\| 0\.[0-9]+" "$out"
check "q8 keeps Llama's greedy tokens" grep -Eq "^generated_ids +ok" "$out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
