#!/usr/bin/env bash
# bundle_cli_test.sh — `tessera export` and `tessera run --bundle` from the command line: the
# bundle generates the same text as the engine, admission refuses with the numbers, usage errors
# exit 2. Quantized bundles (--quantize q8|q4, qwen2 and llama; qwen3_vl q4 with its image) = the
# quantized engine's tokens under --compute f32; short weight bytes refused. Qwen2.5-VL's windowed vision.main: its fixture's 16 reference ids, and two different
# images (chelsea and coffee: no two-image Qwen2.5-VL reference exists) = the engine's ids.
# --draft-width: decode_k.main verifies drafts (run's default 3, --no-draft), the same ids.
# Phi-4-multimodal's audio through audio.main and its speech adapter: the fixture's ids; an image
# and a clip in one prompt (phi4_mm-mixed): vision.main, audio.main's vision_speech projector, the
# vision adapter = the fixture's ids.
set -u
bin=${TS_BIN:?TS_BIN not set}
root=${TS_ROOT:?TS_ROOT not set}
model=$root/tests/fixtures/qwen2/model
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
check() { # description, condition…
    local what=$1; shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}

"$bin" export -m "$model" -o "$work/b" --capacity 64,256 --prefill-capacity 48 2>"$work/export.err"
check "export exits 0" test $? -eq 0
check "manifest written" test -s "$work/b/manifest.json"
check "one module per entry and bucket" test "$(ls "$work"/b/c64/*.mlir "$work"/b/c256/*.mlir | wc -l)" -eq 6
grep -q '"abi_version":	1' "$work/b/manifest.json"
check "manifest has the ABI version" test $? -eq 0

engine=$("$bin" run -m "$model" -p "Write a short poem about the sea." --max-tokens 16 --temperature 0 --json 2>/dev/null)
bundle=$("$bin" run --bundle "$work/b" -m "$model" -p "Write a short poem about the sea." --max-tokens 16 --temperature 0 --json 2>/dev/null)
ids() { sed -n 's/.*"generated_ids":\[\([0-9,]*\)\].*/\1/p'; }
check "bundle and engine generate the same ids" test "$(echo "$engine" | ids)" = "$(echo "$bundle" | ids)"
check "the ids are the fixture's" test "$(echo "$bundle" | ids)" = "9,14,891,452,1088,406,36,1217,269,763,392,758,957,1149,24,976"

"$bin" run --bundle "$work/b" -m "$model" -p "Write a short poem about the sea." --max-tokens 300 --temperature 0 >/dev/null 2>"$work/admit.err"
check "admission failure exits 1" test $? -eq 1
grep -q "23 prompt tokens + 300 new tokens = 323 do not fit the largest bucket (capacity 256, prefill 48)" "$work/admit.err"
check "admission message has the numbers" test $? -eq 0

"$bin" run --bundle "$work/b" -m "$root/tests/fixtures/qwen3/model" -p "hi" --max-tokens 4 >/dev/null 2>"$work/wrong.err"
check "a bundle for another model is refused" test $? -eq 1
grep -q "config_digest differs" "$work/wrong.err"
check "the refusal names the config digest" test $? -eq 0

"$bin" export -m "$model" >/dev/null 2>&1
check "export without -o is a usage error" test $? -eq 2
"$bin" export -m "$model" -o "$work/c" --capacity 64,32 >/dev/null 2>"$work/order.err"
check "descending capacities are refused" test $? -eq 1
"$bin" export --help | grep -q "usage: tessera export"
check "export --help" test $? -eq 0

# Quantized bundles (--quantize q8|q4): the integer weights and scales beside the modules, the
# manifest's versioned quantization object; with f32 activations on both sides (--compute f32),
# the quantized engine's 16 greedy tokens, for the qwen2 and llama fixtures.
for fx in qwen2 llama; do
    for q in q8 q4; do
        qm=$root/tests/fixtures/$fx/model
        "$bin" export -m "$qm" -o "$work/$fx-$q" --capacity 64 --prefill-capacity 32 --quantize "$q" 2>"$work/$fx-$q.err"
        check "$fx --quantize $q: export exits 0" test $? -eq 0
        check "$fx $q: the integer weights are in the bundle" test -s "$work/$fx-$q/quantized.safetensors"
        grep -q "\"method\":	\"$q\"" "$work/$fx-$q/manifest.json" && grep -q '"scale_dtype":	"F16"' "$work/$fx-$q/manifest.json"
        check "$fx $q: the manifest says how each matrix is quantized" test $? -eq 0
        qrun=(-p "Write a short poem about the sea." --json --ignore-eos --max-tokens 16 --temperature 0 --compute f32)
        q_engine=$("$bin" run -m "$qm" --quantize "$q" "${qrun[@]}" 2>/dev/null | ids)
        q_bundle=$("$bin" run --bundle "$work/$fx-$q" -m "$qm" "${qrun[@]}" 2>"$work/$fx-$q.run.err" | ids)
        check "$fx $q: run --bundle gives the quantized engine's 16 ids ($q_bundle)" \
            test "$(echo "$q_engine" | tr ',' '\n' | grep -c .)" -eq 16 -a "$q_bundle" = "$q_engine"
    done
done
# An image model quantized: its language model's matrices (all four entries, DeepStack's too, one
# weight schema) and vision.main's as the engine quantizes its tower (every matrix whose width is a
# multiple of 32, in the same quantization object and file): the quantized engine's tokens for the
# fixture's image.
q3=$root/tests/fixtures/qwen3_vl
"$bin" export -m "$q3/model" -o "$work/q3-q4" --capacity 128 --prefill-capacity 96 --vision-patches 256 --quantize q4 2>/dev/null
check "qwen3_vl --quantize q4 exports with its tower" test -s "$work/q3-q4/c128/prefill_embeddings_deepstack.mlir" -a -s "$work/q3-q4/vision/p256.mlir"
grep -q '"weight":	"model.visual.blocks.0.mlp.linear_fc2.weight"' "$work/q3-q4/manifest.json" &&
    grep -q 'model.visual.blocks.0.mlp.linear_fc2.weight:q4' "$work/q3-q4/vision/p256.mlir"
check "qwen3_vl q4: vision.main takes the tower's quantized matrices, the manifest describes them" test $? -eq 0
q3run=(--image "$q3/chelsea.png" -p "Describe this image." --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 --compute f32)
q3_engine=$("$bin" run -m "$q3/model" --quantize q4 "${q3run[@]}" 2>/dev/null | ids)
q3_bundle=$("$bin" run --bundle "$work/q3-q4" -m "$q3/model" "${q3run[@]}" 2>/dev/null | ids)
check "qwen3_vl q4: run --bundle --image gives the quantized engine's 16 ids ($q3_bundle)" \
    test "$(echo "$q3_engine" | tr ',' '\n' | grep -c .)" -eq 16 -a "$q3_bundle" = "$q3_engine"
"$bin" export -m "$model" -o "$work/q2" --quantize q2 >/dev/null 2>&1
check "--quantize q2 is a usage error" test $? -eq 2
truncate -s -64 "$work/qwen2-q8/quantized.safetensors"
"$bin" run --bundle "$work/qwen2-q8" -m "$model" -p "hi" --max-tokens 2 >/dev/null 2>"$work/short.err"
check "a quantized bundle with short weight bytes is refused" test $? -eq 1
grep -q "quantization: .*quantized.safetensors: tensor 'model.layers.2.self_attn.v_proj.weight:q8.scale': data_offsets end" "$work/short.err"
check "… naming the tensor" test $? -eq 0

vl=$root/tests/fixtures/qwen2_vl/model
"$bin" export -m "$vl" -o "$work/vl" --capacity 256 --vision-patches 64,256 2>/dev/null
check "export with vision buckets exits 0" test $? -eq 0
check "one vision.main module per patch bucket" test "$(ls "$work"/vl/vision/p64.mlir "$work"/vl/vision/p256.mlir | wc -l)" -eq 2
grep -q '"merge_size":	2' "$work/vl/manifest.json" && grep -q '"patches":	256' "$work/vl/manifest.json"
check "the manifest records the tower geometry and buckets" test $? -eq 0
b_novision=$work/vl-text
"$bin" export -m "$vl" -o "$b_novision" --capacity 256 2>/dev/null
# Images through the bundle: vision.main + prefill_embeddings.main + decode.main give the fixture's tokens.
vl_ids=$("$bin" run --bundle "$work/vl" -m "$vl" --image "$root/tests/fixtures/qwen2_vl/chelsea.png" -p "Describe this image." \
    --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 2>"$work/vl.err" | ids)
check "run --bundle --image gives the qwen2_vl fixture's tokens" test "$vl_ids" = "1028,214,467,968,1252,1195,443,240,1127,902,798,594,791,1268,158,202"
"$bin" run --bundle "$b_novision" -m "$vl" --image "$root/tests/fixtures/qwen2_vl/chelsea.png" -p "x" --max-tokens 2 >/dev/null 2>"$work/nov.err"
check "a bundle without vision.main refuses images" test $? -eq 1
grep -q "no vision.main entries" "$work/nov.err"
check "the refusal says why" test $? -eq 0
"$bin" export -m "$model" -o "$work/novl" --vision-patches 64 >/dev/null 2>"$work/novl.err"
check "vision buckets for a text model are refused" test $? -eq 1
grep -q "towers of qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, llava, gemma3, phi4_multimodal only" "$work/novl.err"
check "the refusal says which towers export" test $? -eq 0
"$bin" export -m "$vl" -o "$work/bad" --vision-patches 256,64 >/dev/null 2>&1
check "descending vision buckets are refused" test $? -eq 1
"$bin" export -m "$root/tests/fixtures/llava/model" -o "$work/llava" --capacity 64 --vision-patches 16 2>/dev/null
check "LLaVA exports its one fixed-image vision.main" test -s "$work/llava/vision/p16.mlir"
llava_want=$(/usr/bin/python3 -c "import json,sys; print(','.join(map(str, json.load(open(sys.argv[1]))['generated_ids'])))" "$root/tests/fixtures/llava/reference.json")
llava_ids=$("$bin" run --bundle "$work/llava" -m "$root/tests/fixtures/llava/model" --image "$root/tests/fixtures/llava/chelsea.png" \
    -p "Describe this image." --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 2>/dev/null | ids)
check "run --bundle --image gives the llava fixture's tokens" test "$llava_ids" = "$llava_want"
"$bin" export -m "$root/tests/fixtures/llava/model" -o "$work/llava2" --vision-patches 64 >/dev/null 2>"$work/llava.err"
check "another bucket for LLaVA's fixed image is refused" test $? -eq 1
grep -q "16 patches: that is its only bucket (not 64)" "$work/llava.err"
check "the refusal names the only bucket" test $? -eq 0
# Gemma3: its fixed-image vision.main, and prefill_embeddings.main with the image's bidirectional
# block in the bias (manifest mask.image_blocks) and the token rows × √hidden (embeddings.scale).
"$bin" export -m "$root/tests/fixtures/gemma3/model" -o "$work/gemma3" --capacity 64 --vision-patches 16 2>/dev/null
check "Gemma3 exports its fixed-image vision.main" test -s "$work/gemma3/vision/p16.mlir"
grep -q '"image_blocks":' "$work/gemma3/manifest.json" && grep -q '"scale":	8' "$work/gemma3/manifest.json"
check "the Gemma3 manifest states the image blocks and the embedding scale" test $? -eq 0
gemma_want=$(/usr/bin/python3 -c "import json,sys; print(','.join(map(str, json.load(open(sys.argv[1]))['generated_ids'])))" "$root/tests/fixtures/gemma3/reference.json")
gemma_ids=$("$bin" run --bundle "$work/gemma3" -m "$root/tests/fixtures/gemma3/model" --image "$root/tests/fixtures/gemma3/chelsea.png" \
    -p "Describe this image." --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 2>/dev/null | ids)
check "run --bundle --image gives the gemma3 fixture's tokens" test "$gemma_ids" = "$gemma_want"
# Pan-and-scan (the model folder's preprocessor_config asks for 20-pixel crops): the three views
# through vision.main one by one, the three image blocks in the bias: the engine's tokens.
mkdir -p "$work/g3pas"
for f in "$root"/tests/fixtures/gemma3/model/*; do ln -s "$f" "$work/g3pas/"; done
rm "$work/g3pas/preprocessor_config.json"
/usr/bin/python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c.update(do_pan_and_scan=True, pan_and_scan_min_crop_size=20); json.dump(c, open(sys.argv[2], 'w'))" \
    "$root/tests/fixtures/gemma3/model/preprocessor_config.json" "$work/g3pas/preprocessor_config.json"
pas_args=(-m "$work/g3pas" --image "$root/tests/fixtures/gemma3/chelsea.png" -p "Describe this image." --json --ignore-eos
    --max-tokens 16 --temperature 0 --repeat-penalty 1)
pas_engine=$("$bin" run "${pas_args[@]}" 2>/dev/null | ids)
"$bin" export -m "$root/tests/fixtures/gemma3/model" -o "$work/gemma3-128" --capacity 128 --prefill-capacity 96 \
    --vision-patches 16 >/dev/null 2>&1 # 71 prompt tokens + 16
pas_bundle=$("$bin" run --bundle "$work/gemma3-128" "${pas_args[@]}" 2>/dev/null | ids)
check "gemma3 pan-and-scan: run --bundle gives the engine's tokens" test -n "$pas_engine" -a "$pas_bundle" = "$pas_engine"

q25=$root/tests/fixtures/qwen2_5_vl
"$bin" export -m "$q25/model" -o "$work/q25" --capacity 192 --prefill-capacity 160 --vision-patches 256,512 >/dev/null 2>"$work/q25.err"
check "qwen2_5_vl exports with vision buckets" test $? -eq 0
check "… its vision.main layout is patch_rows_windowed" grep -q '"layout":	"patch_rows_windowed"' "$work/q25/manifest.json"
q25_run() { "$bin" run "$@" --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 2>>"$work/q25.err" | ids; }
check "qwen2_5_vl through the bundle: the reference's 16 ids" \
    test "$(q25_run --bundle "$work/q25" -m "$q25/model" -p "Describe this image." --image "$q25/chelsea.png")" = \
    "507,829,654,294,1151,975,692,913,881,994,80,59,939,169,1139,419"
two_images=(-p "Describe these images." --image "$q25/chelsea.png" --image "$root/tests/fixtures/qwen2_vl-two-images/coffee.png")
q25_engine=$(q25_run -m "$q25/model" "${two_images[@]}")
q25_bundle=$(q25_run --bundle "$work/q25" -m "$q25/model" "${two_images[@]}")
echo "qwen2_5_vl two images: engine $q25_engine, bundle $q25_bundle"
check "qwen2_5_vl two images: 16 ids" test "$(echo "$q25_engine" | tr ',' '\n' | grep -c .)" -eq 16
check "qwen2_5_vl two images through the bundle = the engine" test "$q25_bundle" = "$q25_engine"

# Speculative decoding through decode_k.main (--draft-width 4): the same ids with drafts and with
# --no-draft, on qwen2 and on qwen2_vl with its image; a bundle without the entry says why it is off.
"$bin" export -m "$model" -o "$work/dk" --capacity 64 --prefill-capacity 48 --draft-width 4 2>/dev/null
check "export --draft-width 4 writes decode_k.main" test -s "$work/dk/c64/decode_k.mlir"
grep -q '"k":	4' "$work/dk/manifest.json" && grep -q '"decode_k.main":	{' "$work/dk/manifest.json"
check "the manifest states k and the entry" test $? -eq 0
dk_args=(-m "$model" -p "Write a short poem about the sea." --max-tokens 16 --temperature 0 --json)
dk_spec=$("$bin" run --bundle "$work/dk" "${dk_args[@]}" 2>"$work/dk.err" | ids)
dk_plain=$("$bin" run --bundle "$work/dk" "${dk_args[@]}" --no-draft 2>"$work/dk-plain.err" | ids)
check "qwen2 run --bundle with drafts gives the fixture's ids ($dk_spec)" test "$dk_spec" = "9,14,891,452,1088,406,36,1217,269,763,392,758,957,1149,24,976"
check "… and --no-draft the same" test "$dk_plain" = "$dk_spec"
grep -q "speculative decoding, drafts of up to 3 tokens" "$work/dk.err" && grep -q "speculative decoding off (--no-draft)" "$work/dk-plain.err"
check "speculation on through decode_k.main (3 drafts a step), off with --no-draft" test $? -eq 0
"$bin" run --bundle "$work/b" "${dk_args[@]}" >/dev/null 2>"$work/nodk.err"
grep -q "the bundle has no decode_k.main" "$work/nodk.err"
check "a bundle without decode_k.main says why speculation is off" test $? -eq 0
"$bin" export -m "$model" -o "$work/dk1" --draft-width 1 >/dev/null 2>&1
check "--draft-width 1 is a usage error" test $? -eq 2
"$bin" export -m "$vl" -o "$work/vldk" --capacity 256 --vision-patches 256 --draft-width 4 2>/dev/null
vl_args=(--bundle "$work/vldk" -m "$vl" --image "$root/tests/fixtures/qwen2_vl/chelsea.png" -p "Describe this image." --json --ignore-eos
    --max-tokens 16 --temperature 0 --repeat-penalty 1)
vldk_spec=$("$bin" run "${vl_args[@]}" 2>/dev/null | ids)
vldk_plain=$("$bin" run "${vl_args[@]}" --no-draft 2>/dev/null | ids)
check "qwen2_vl run --bundle --image with drafts gives the fixture's tokens" test "$vldk_spec" = "1028,214,467,968,1252,1195,443,240,1127,902,798,594,791,1268,158,202"
check "… and --no-draft the same" test "$vldk_plain" = "$vldk_spec"

# Phi-4-multimodal with audio: the WAV through the bundle's audio.main (a 200-frame bucket for the
# 98-frame clip) and the speech adapter = the fixture's 16 ids; a bundle without audio.main, and a
# clip longer than the largest bucket, refused saying so.
phi=$root/tests/fixtures/phi4_mm-audio
phi_args=(-m "$phi/model" -p "Transcribe the audio." --audio "$phi/speech_16k_s16_1s.wav" --json --ignore-eos --max-tokens 16 --temperature 0)
"$bin" export -m "$phi/model" -o "$work/phi" --capacity 64 --prefill-capacity 48 --audio-frames 200 2>/dev/null
check "phi4_mm-audio: export --audio-frames exits 0" test $? -eq 0
check "phi4_mm-audio: run --bundle --audio gives the fixture's ids" \
    test "$("$bin" run --bundle "$work/phi" "${phi_args[@]}" 2>/dev/null | ids)" = "1296,829,829,853,277,264,217,9,826,555,277,309,37,130,37,277"
# LoRA off: the checkpoint without adapter folders exports no adapters; its clip gives its own ids.
pnl=$root/tests/fixtures/phi4_mm-audio-nolora
"$bin" export -m "$pnl/model" -o "$work/phi-nolora" --capacity 64 --prefill-capacity 48 --audio-frames 104 2>/dev/null
check "phi4_mm-audio-nolora: run --bundle --audio gives the fixture's ids" \
    test "$("$bin" run --bundle "$work/phi-nolora" -m "$pnl/model" -p "Transcribe the audio." --audio "$pnl/speech_16k_s16_1s.wav" \
        --json --ignore-eos --max-tokens 16 --temperature 0 2>/dev/null | ids)" = \
        "$(/usr/bin/python3 -c "import json,sys; print(','.join(map(str, json.load(open(sys.argv[1]))['generated_ids'])))" "$pnl/reference.json")"
inl=$root/tests/fixtures/phi4_mm-image-small-nolora
"$bin" export -m "$inl/model" -o "$work/img-nolora" --capacity 380 --prefill-capacity 364 --vision-patches 3072 2>/dev/null
check "phi4_mm-image-small-nolora: run --bundle --image gives the fixture's ids" \
    test "$("$bin" run --bundle "$work/img-nolora" -m "$inl/model" -p "Describe." --image "$inl/chelsea_strip_1200x60.png" \
        --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 2>/dev/null | ids)" = \
        "$(/usr/bin/python3 -c "import json,sys; print(','.join(map(str, json.load(open(sys.argv[1]))['generated_ids'])))" "$inl/reference.json")"
"$bin" export -m "$phi/model" -o "$work/phi-noaudio" --capacity 64 --prefill-capacity 48 2>/dev/null
"$bin" run --bundle "$work/phi-noaudio" "${phi_args[@]}" >/dev/null 2>"$work/noaudio.err"
check "phi4_mm-audio: a bundle without audio.main is refused (exit 1)" test $? -eq 1
grep -q "it has no audio.main entries (export it with --audio-frames)" "$work/noaudio.err"
check "… saying so" test $? -eq 0
"$bin" export -m "$phi/model" -o "$work/phi-short" --capacity 64 --prefill-capacity 48 --audio-frames 64 2>/dev/null
"$bin" run --bundle "$work/phi-short" "${phi_args[@]}" >/dev/null 2>"$work/short.err"
grep -q "a clip of 98 feature frames exceeds the bundle's largest audio bucket (64 frames)" "$work/short.err"
check "phi4_mm-audio: a clip past the largest audio bucket is refused with both numbers" test $? -eq 0
# Image + audio (phi4_mm-mixed, 724 prompt tokens): the clip through audio.main's projector 1
# (vision_speech), the image through vision.main (3 views), the vision adapter; the reference's ids.
mix=$root/tests/fixtures/phi4_mm-mixed
mix_ids=$(/usr/bin/python3 -c "import json,sys; print(','.join(map(str, json.load(open(sys.argv[1]))['generated_ids'])))" "$mix/reference.json")
"$bin" export -m "$mix/model" -o "$work/mix" --capacity 744 --prefill-capacity 728 --vision-patches 3072 --audio-frames 104 2>/dev/null
check "phi4_mm-mixed: export --vision-patches --audio-frames exits 0" test $? -eq 0
check "phi4_mm-mixed: the manifest names audio.main's projectors" grep -q '"projectors":.*"speech",.*"vision_speech"' <(tr -d '\n\t' <"$work/mix/manifest.json")
check "phi4_mm-mixed: run --bundle --image --audio gives the fixture's ids" \
    test "$("$bin" run --bundle "$work/mix" -m "$mix/model" -p "Describe the image and transcribe the audio." --image "$mix/chelsea.png" \
        --audio "$mix/speech_16k_s16_1s.wav" --json --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1 2>/dev/null | ids)" = "$mix_ids"
"$bin" export -m "$model" -o "$work/noenc" --audio-frames 100 >/dev/null 2>"$work/noenc.err"
grep -q "qwen2 has no audio encoder entry to export (--audio-frames)" "$work/noenc.err"
check "--audio-frames for a model without an audio encoder is refused" test $? -eq 0

echo "$pass passed, $fail failed"
test "$fail" -eq 0
