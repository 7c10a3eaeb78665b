#!/usr/bin/env bash
# quantize_cli_test.sh — `--quantize q8|q4` on the command line: inspect prints the weight error
# (q8 ≈ 0.53%, q4 ≈ 8.6% on the random fixtures; a VLM's tower apart), run generates and names the format, compare
# prints the quantization and then the stage differences (non-zero: exit 1, with q8 Llama's greedy
# tokens still equal; --compute int8 gives the W8A8 path's error), an unknown format is a runtime
# error naming it, and --quantize with --bundle a usage error; run's and serve's startup lines name
# the compute choice (auto by default: W8A8, and bf16 products where the CPU has them).
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
check "a text model's summary names no tower" bash -c "! grep -q 'vision tower' '$out'"
# A VLM: the tower's matrices are quantized too and reported apart, with the ones left in floats.
"$bin" inspect -m "$root/tests/fixtures/qwen2_vl/model" --quantize q8 >"$out" 2>&1
# (the tower's q8 is per channel, one scale a row: 0.6x% here, the language model's Q8_0 blocks 0.5x%)
check "inspect reports the tower's q8 error apart" grep -Eq "^quantized: +q8: 22 matrices, .*; vision tower q8: 5 matrices, .* weight error \|W - Wq\|/\|W\| 0\.6[0-9]+% overall.*, 10 matrices kept in floats \(width not a multiple of 32: visual.patch_embed.proj.weight" "$out"
# A language model 32 does not divide (Phi-4-multimodal's tiny fixture: hidden 48, no LoRA): its
# matrices stay in floats, counted and named (a gated MLP whole, for its 48-wide gate and up).
"$bin" inspect -m "$root/tests/fixtures/phi4_mm-audio-nolora/model" --quantize q8 >"$out" 2>&1
check "inspect names the language model's matrices kept in floats" grep -Eq "^quantized: +q8: 0 matrices, .*, 22 matrices kept in floats \(width not a multiple of 32: model.layers.0.self_attn.q_proj.weight, ...\); vision tower q8" "$out"
"$bin" inspect -m "$m" --quantize q8 --json >"$out" 2>&1
check "inspect --quantize --json is a usage error" test $? -eq 2

"$bin" run -m "$m" --quantize q4 -p "Hello" --raw --max-tokens 4 --json >"$out" 2>&1
check "run --quantize q4 exits 0" test $? -eq 0
check "run names the weights" grep -q "tessera run: weights q4: 22 matrices" "$out"
check "run generates 4 tokens" grep -q '"generated_tokens":4' "$out"
# auto takes bf16 products where the CPU has AVX512_BF16 or AMX (as /proc/cpuinfo lists them), else f32.
# $TESSERA_CPU (a kernel level for the whole process) may withhold them: then either.
products=f32
grep -qwE "avx512_bf16|amx_bf16" /proc/cpuinfo && products=bf16
[ -n "${TESSERA_CPU:-}" ] && [ "$TESSERA_CPU" != auto ] && products='[bf0-9]*'
check "run's startup line says the default compute ($products products, W8A8 for quantized weights)" \
    grep -q "tessera run: compute auto: $products products for bf16 weights.*, int8 (W8A8) activations for quantized weights" "$out"
# --compute f32 keeps f32 activations for quantized weights, and says so.
"$bin" run -m "$m" --quantize q8 --compute f32 -p "Hello" --raw --max-tokens 4 --json >"$out" 2>&1
check "run --compute f32 says f32 activations" grep -q "tessera run: compute f32: f32 products for bf16 weights, f32 activations" "$out"
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
# --compute int8: the error of the W8A8 path run and serve take by default (f32 unless told).
check "compare says its compute (f32 by default)" grep -q "^compute f32: " "$out"
"$bin" compare -m "$root/tests/fixtures/llama/model" --reference "$root/tests/fixtures/llama/reference.safetensors" --quantize q8 \
    --compute int8 >"$out" 2>&1
check "compare --compute int8 says W8A8" grep -q "^compute int8: .*int8 (W8A8) activations for quantized weights" "$out"
check "compare --compute int8 prints the W8A8 logit error" grep -Eq "^prefill_logits +FAIL max \|diff\| [0-9]+\.[0-9]+ " "$out"
"$bin" compare -m "$m" --reference "$root/tests/fixtures/qwen2/reference.safetensors" --compute f16 >"$out" 2>&1
check "compare --compute f16 is refused, naming it" grep -q "unknown compute precision 'f16'" "$out"

# serve --quantize: the server answers with the quantized model, as run does with it.
port=$((20000 + RANDOM % 20000))
"$bin" serve -m "$m" --quantize q8 --port $port --slots 1 --threads 1 2>"$out.serve" &
srv=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
served=$(curl -s "http://127.0.0.1:$port/v1/completions" -H 'Content-Type: application/json' \
    -d '{"prompt":"Hello","max_tokens":4,"temperature":0,"ignore_eos":true}' | grep -o '"text":"[^"]*"')
kill $srv; wait $srv 2>/dev/null
check "serve's startup line says the default compute" \
    grep -q "tessera serve: compute auto: $products products for bf16 weights.*, int8 (W8A8) activations for quantized weights" "$out.serve"
ran=$("$bin" run -m "$m" --quantize q8 -p "Hello" --raw --max-tokens 4 --temperature 0 --ignore-eos --json 2>/dev/null | grep -o '"text":"[^"]*"')
check "serve --quantize q8 answers as run --quantize q8 does" test -n "$served" -a "$served" = "$ran"
"$bin" serve -m "$m" --quantize q8 --bundle /nonexistent --port $port >"$out" 2>&1
check "serve --quantize with --bundle is refused" grep -q "does not apply to a bundle" "$out"
rm -f "$out.serve"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
