#!/usr/bin/env bash
# run_cli_test.sh — `tessera run`: help, usage errors (exit 2) and runtime errors (exit 1); generation
# on the qwen2 fixture: --raw --json greedy with EOS ignored gives the fixture's 16 generated_ids and
# generated_text, streaming prints the same text, --max-tokens/--stop/seeds behave, the default chat
# mode renders the fixture's prompt_text itself; images on the VLM fixtures give their tokens;
# Qwen3-VL-MoE generates text, the same through a bundle; --audio clips are checked from their
# headers, malformed ones refused with the reason, well-formed ones refused by models without audio;
# Phi-4-multimodal's audio (phi4_mm-audio: the clip decoded, encoded, <|audio|> expanded, the speech
# adapter on) gives the reference's 27 prompt tokens and 16 ids; an image beside the clip
# (phi4_mm-mixed) its 724 prompt tokens and 16 ids.
set -u
BIN=${TS_BIN:?TS_BIN must name the tessera binary}
cd "${TS_ROOT:-.}"
MODEL=tests/fixtures/qwen2/model
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0
passed=0

ok() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }

# expect_exit CODE NEEDLE ARGS...: runs `tessera ARGS`, checks the exit code and that stdout or
# stderr contains NEEDLE.
expect_exit() {
    local want=$1 needle=$2
    shift 2
    "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "tessera $* exited $rc, expected $want; stderr: $(head -c 400 "$TMP/err")"
    elif ! grep -qF -- "$needle" "$TMP/out" "$TMP/err"; then
        fail "tessera $*: output lacks '$needle'"
    else
        ok
    fi
}

# --- always: help and errors
expect_exit 0 "usage: tessera run -m DIR -p TEXT" run --help
for flag in --raw --chat --json --max-tokens --ignore-eos --temperature --top-k --top-p --min-p \
            --repeat-penalty --seed --threads --capacity --stop; do
    grep -qF -- "$flag" "$TMP/out" && ok || fail "run --help does not mention $flag"
done
expect_exit 0 "generate text" --help
expect_exit 2 "missing -m DIR" run
expect_exit 2 "missing -p TEXT" run -m "$MODEL"
expect_exit 2 "see 'tessera run --help'" run -m "$MODEL" -p hi --bogus
expect_exit 2 "--temperature needs a number" run -m "$MODEL" -p hi --temperature -1
expect_exit 2 "--temperature needs a number" run -m "$MODEL" -p hi --temperature abc
expect_exit 2 "--top-p needs a number in (0, 1]" run -m "$MODEL" -p hi --top-p 0
expect_exit 2 "--min-p needs a number in [0, 1]" run -m "$MODEL" -p hi --min-p 1.5
expect_exit 2 "--top-k needs an integer" run -m "$MODEL" -p hi --top-k -2
expect_exit 2 "--max-tokens needs an integer" run -m "$MODEL" -p hi --max-tokens 0
expect_exit 2 "--repeat-penalty needs a number > 0" run -m "$MODEL" -p hi --repeat-penalty 0
expect_exit 2 "--seed needs an integer" run -m "$MODEL" -p hi --seed x
expect_exit 2 "--stop needs a non-empty string" run -m "$MODEL" -p hi --stop ""
expect_exit 2 "exclude each other" run -m "$MODEL" -p hi --raw --chat
expect_exit 2 "needs a text" run -m "$MODEL" -p
expect_exit 1 "tessera run:" run -m "$TMP/no-such-model" -p hi --raw

# --- generation on the fixture
PROMPT=$'<|im_start|>user\nWrite a short poem about the sea.<|im_end|>\n<|im_start|>assistant\n'
IDS='[9,14,891,452,1088,406,36,1217,269,763,392,758,957,1149,24,976]'
TEXT='*/ble al_PntE regorenceub Invaluelet9 em'

expect_exit 0 '"generated_ids":'"$IDS" run -m "$MODEL" -p "$PROMPT" --raw --json --ignore-eos \
    --max-tokens 16 --temperature 0
grep -qF '"prompt_tokens":23' "$TMP/out" && ok || fail "--raw prompt is not the fixture's 23 tokens"
grep -qF '"text":"'"$TEXT"'"' "$TMP/out" && ok || fail "--json text differs from generated_text"
grep -qF '"finish_reason":"length"' "$TMP/out" && ok || fail "16 tokens should end with length"
[ "$(wc -l <"$TMP/out")" -eq 1 ] && ok || fail "--json should print exactly one line"
grep -qE 'prompt 23 tokens .* tok/s.* generated 16 tokens .*tok/s.*peak RSS [0-9.]+ MiB' "$TMP/err" \
    && ok || fail "timing line missing: $(cat "$TMP/err")"

# Streaming prints the same text (plus a final newline).
"$BIN" run -m "$MODEL" -p "$PROMPT" --raw --ignore-eos --max-tokens 16 --temperature 0 \
    >"$TMP/stream" 2>"$TMP/err" && ok || fail "streaming run failed: $(cat "$TMP/err")"
[ "$(cat "$TMP/stream")" = "$TEXT" ] && ok || fail "streamed text '$(cat "$TMP/stream")' != '$TEXT'"

expect_exit 0 '"generated_ids":[9,14,891]' run -m "$MODEL" -p "$PROMPT" --raw --json --ignore-eos \
    --max-tokens 3 --temperature 0
grep -qF '"finish_reason":"length"' "$TMP/out" && ok || fail "--max-tokens 3 should end with length"

# Every kernel level, down to the portable C kernels, gives the fixture's tokens; so do the bf16 KV
# cache and the hi+lo bf16 compute (a wrong level is an error, never a quiet downgrade).
for level in portable avx2 avx512 avx512_bf16; do
    grep -q "$level" <("$BIN" --version) || [ "$level" = portable ] || continue
    expect_exit 0 '"generated_ids":'"$IDS" run -m "$MODEL" -p "$PROMPT" --raw --json --ignore-eos \
        --max-tokens 16 --temperature 0 --cpu "$level"
done
if grep -qE "avx512_bf16|amx" <("$BIN" --version); then
    expect_exit 0 '"generated_ids":'"$IDS" run -m "$MODEL" -p "$PROMPT" --raw --json --ignore-eos \
        --max-tokens 16 --temperature 0 --kv-cache bf16 --compute bf16x2
else # no bf16 units: refused by name, never run another way
    expect_exit 1 "" run -m "$MODEL" -p "$PROMPT" --kv-cache bf16 --compute bf16x2
    grep -qF "needs AVX512_BF16 or AMX" "$TMP/err" && ok || fail "--compute bf16x2 without bf16 units should be refused"
fi
expect_exit 1 "" run -m "$MODEL" -p "$PROMPT" --cpu avx9
grep -qF "unknown cpu level 'avx9'" "$TMP/err" && ok || fail "--cpu avx9 should be refused by name"

# A stop string: the text ends before it, the reason is "stop".
expect_exit 0 '"text":"*/ble "' run -m "$MODEL" -p "$PROMPT" --raw --json --ignore-eos \
    --max-tokens 16 --temperature 0 --stop "al_P"
grep -qF '"finish_reason":"stop"' "$TMP/out" && ok || fail "--stop should end with stop"

# Seeded sampling repeats itself.
"$BIN" run -m "$MODEL" -p "$PROMPT" --raw --json --ignore-eos --max-tokens 16 --temperature 1 \
    --seed 5 >"$TMP/a" 2>/dev/null
"$BIN" run -m "$MODEL" -p "$PROMPT" --raw --json --ignore-eos --max-tokens 16 --temperature 1 \
    --seed 5 >"$TMP/b" 2>/dev/null
ids_of() { grep -o '"generated_ids":\[[0-9,]*\]' "$1"; }
[ -n "$(ids_of "$TMP/a")" ] && [ "$(ids_of "$TMP/a")" = "$(ids_of "$TMP/b")" ] && ok \
    || fail "--seed 5 twice gave different ids"

# The default chat mode renders the fixture's prompt itself.
expect_exit 0 '"generated_ids":'"$IDS" run -m "$MODEL" -p "Write a short poem about the sea." \
    --json --ignore-eos --max-tokens 16 --temperature 0
grep -qF '"prompt_tokens":23' "$TMP/out" && ok || fail "chat prompt is not the fixture's 23 tokens"
# Llama's fixture template does not write BOS: the rendered chat is encoded as the processors do
# (BOS added unless the template wrote it), 25 tokens and the reference's ids.
LLAMA_IDS=$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$(dirname "$MODEL")/../llama/reference.json")
expect_exit 0 '"generated_ids":'"$LLAMA_IDS" run -m "$(dirname "$MODEL")/../llama/model" -p "Write a short poem about the sea." \
    --json --ignore-eos --max-tokens 16 --temperature 0
grep -qF '"prompt_tokens":25' "$TMP/out" && ok || fail "llama chat prompt is not the fixture's 25 tokens (BOS once)"
# Phi-4-multimodal's language model through the whole CLI: its chat template, 16 prompt tokens,
# the reference's ids.
PHI4_IDS=$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$(dirname "$MODEL")/../phi4_mm-text/reference.json")
expect_exit 0 '"generated_ids":'"$PHI4_IDS" run -m "$(dirname "$MODEL")/../phi4_mm-text/model" -p "Write a short poem about the sea." \
    --json --ignore-eos --max-tokens 16 --temperature 0
grep -qF '"prompt_tokens":16' "$TMP/out" && ok || fail "phi4 chat prompt is not the fixture's 16 tokens"
# longrope past original_max_position_embeddings (32 in these fixtures): a prompt under it whose
# generation passes it, and one over it; plain and speculative decoding give the reference's ids.
for lr in longrope-cross longrope-long; do
    LR_DIR="$(dirname "$MODEL")/../phi4_mm-$lr"
    LR_IDS=$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$LR_DIR/reference.json")
    LR_PROMPT=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['messages'][0]['content'])" "$LR_DIR/reference.json")
    for draft in --no-draft "--draft 4"; do
        # shellcheck disable=SC2086
        expect_exit 0 '"generated_ids":'"$LR_IDS" run -m "$LR_DIR/model" -p "$LR_PROMPT" \
            --json --ignore-eos --max-tokens 16 --temperature 0 $draft
    done
done

# --- images: decoded, preprocessed, encoded and generated from, as the fixtures were made
FIX="$(dirname "$MODEL")/.."
# The fixtures decoded greedily without generation_config's repetition penalty: --repeat-penalty 1.
image_case() { # case, ids, text, images…
    local case=$1 want=$2 text=$3; shift 3
    local args=()
    for img in "$@"; do args+=(--image "$FIX/$case/$img"); done
    expect_exit 0 '"generated_ids":'"$want" run -m "$FIX/$case/model" -p "$text" "${args[@]}" --json \
        --ignore-eos --max-tokens 16 --temperature 0 --repeat-penalty 1
}
image_case qwen2_vl '[1028,214,467,968,1252,1195,443,240,1127,902,798,594,791,1268,158,202]' \
    "Describe this image." chelsea.png
image_case qwen2_vl-two-images "$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$FIX/qwen2_vl-two-images/reference.json")" \
    "Compare these two images." chelsea.png coffee.png
image_case qwen2_5_vl "$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$FIX/qwen2_5_vl/reference.json")" \
    "Describe this image." chelsea.png
image_case llava "$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$FIX/llava/reference.json")" \
    "Describe this image." chelsea.png
# Phi-4-multimodal: the HD processor (dynamic_hd 2: 2 crops + the global view), the SigLIP tower
# per view, the HD layout and projector, <|image|> × 339 (348 prompt tokens), the vision adapter.
image_case phi4_mm-image-small "$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$FIX/phi4_mm-image-small/reference.json")" \
    "Describe." chelsea_strip_1200x60.png
grep -qF '"prompt_tokens":348' "$TMP/out" && ok || fail "phi4 image prompt is not the fixture's 348 tokens"
# LoRA off: the same weights without adapter folders take no adapter (the reference ran none).
image_case phi4_mm-image-small-nolora "$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$FIX/phi4_mm-image-small-nolora/reference.json")" \
    "Describe." chelsea_strip_1200x60.png
# chelsea at the default dynamic_hd 36: 2 crops padded below, 689 image tokens (701 prompt tokens).
image_case phi4_mm-image "$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$FIX/phi4_mm-image/reference.json")" \
    "Describe this image." chelsea.png
grep -qF '"prompt_tokens":701' "$TMP/out" && ok || fail "phi4 image prompt is not the fixture's 701 tokens"
# Gemma3: SigLIP + average pool, the image's 4 tokens attending to each other both ways.
image_case gemma3 "$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$FIX/gemma3/reference.json")" \
    "Describe this image." chelsea.png
# Gemma3 with pan-and-scan asked for by its preprocessor_config (20-pixel crops): chelsea is the
# original and 2 crops, 3 image blocks of 4 tokens (27 → 71 prompt tokens); another processor
# class asking for pan-and-scan is refused.
mkdir -p "$TMP/g3pas" "$TMP/llpas"
for f in "$FIX"/gemma3/model/*; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$TMP/g3pas/"; done
rm "$TMP/g3pas/preprocessor_config.json"
/usr/bin/python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c.update(do_pan_and_scan=True, pan_and_scan_min_crop_size=20); json.dump(c, open(sys.argv[2], 'w'))" \
    "$FIX/gemma3/model/preprocessor_config.json" "$TMP/g3pas/preprocessor_config.json"
expect_exit 0 '"prompt_tokens":71' run -m "$TMP/g3pas" --image "$FIX/gemma3/chelsea.png" -p "Describe this image." --json --max-tokens 2
for f in "$FIX"/llava/model/*; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$TMP/llpas/"; done
rm "$TMP/llpas/preprocessor_config.json"
/usr/bin/python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c.update(do_pan_and_scan=True); json.dump(c, open(sys.argv[2], 'w'))" \
    "$FIX/llava/model/preprocessor_config.json" "$TMP/llpas/preprocessor_config.json"
expect_exit 1 'its processor has no pan-and-scan' run -m "$TMP/llpas" --image "$FIX/llava/chelsea.png" -p "Describe this image." --max-tokens 2
# A per-request image budget: fewer pixels, fewer image tokens (92 → 62 prompt tokens).
expect_exit 0 '"prompt_tokens":62' run -m "$FIX/qwen2_vl/model" --image "$FIX/qwen2_vl/chelsea.png" \
    -p "Describe this image." --json --max-tokens 1 --max-pixels 20000
# A token cap per image: 54 image tokens by default (92 prompt tokens); at most 16 and 4 give 12 and 2.
expect_exit 0 '"prompt_tokens":50' run -m "$FIX/qwen2_vl/model" --image "$FIX/qwen2_vl/chelsea.png" \
    -p "Describe this image." --json --max-tokens 1 --image-max-tokens 16
expect_exit 0 '"prompt_tokens":40' run -m "$FIX/qwen2_vl/model" --image "$FIX/qwen2_vl/chelsea.png" \
    -p "Describe this image." --json --max-tokens 1 --image-max-tokens 4
expect_exit 1 "has no Qwen-VL patching" run -m "$FIX/llava/model" --image "$FIX/qwen2_vl/chelsea.png" \
    -p "x" --image-max-tokens 4
expect_exit 2 "--image-max-tokens needs a positive number" run -m "$FIX/qwen2_vl/model" -p x --image-max-tokens 0
expect_exit 1 "need 0 < min <= max" run -m "$FIX/qwen2_vl/model" --image "$FIX/qwen2_vl/chelsea.png" -p "x" \
    --min-pixels 9000 --max-pixels 100
expect_exit 1 "images are not supported for this model" run -m "$MODEL" -p "hi" --image "$FIX/qwen2_vl/chelsea.png"
expect_exit 1 "nope.png" run -m "$FIX/qwen2_vl/model" -p "hi" --image "$TMP/nope.png"
printf 'GIF89a-not-really' >"$TMP/fake.png"
expect_exit 1 "GIF images are not supported" run -m "$FIX/qwen2_vl/model" -p "hi" --image "$TMP/fake.png"

# --- audio: each clip's header probed before any model loads (the server's input_audio checks),
# then refused for a model without audio. The WAV headers are built here.
AUD=tests/fixtures/media/audio
mkwav() { # file channels rate declared-bytes present-bytes
    /usr/bin/python3 - "$@" <<'PY'
import struct, sys
path, ch, rate, declared, present = sys.argv[1], *map(int, sys.argv[2:])
align = max(ch, 1) * 2
fmt = struct.pack('<HHIIHH', 1, ch, rate, (rate * align) & 0xFFFFFFFF, align, 16)
body = b'WAVEfmt ' + struct.pack('<I', 16) + fmt + b'data' + struct.pack('<I', declared) + bytes(present)
open(path, 'wb').write(b'RIFF' + struct.pack('<I', 4 + len(body) - 4) + body)
PY
}
mkwav "$TMP/zero_channels.wav" 0 16000 3200 3200
mkwav "$TMP/ten_hours.wav" 1 16000 1152000000 3200
mkwav "$TMP/absurd_rate.wav" 1 4294967295 3200 3200
head -c 12 "$AUD/speech_8k_s16.wav" >"$TMP/truncated.wav"
: >"$TMP/empty.wav"
expect_exit 0 "--audio FILE" run --help
expect_exit 2 "--audio needs a file" run -m "$MODEL" -p hi --audio
expect_exit 2 "at most 8 --audio files" run -m "$MODEL" -p hi $(for i in $(seq 9); do echo --audio "$AUD/speech_8k_s16.wav"; done)
expect_exit 1 "nope.wav" run -m "$MODEL" -p hi --audio "$TMP/nope.wav"
expect_exit 1 "--audio $TMP/zero_channels.wav: WAV: header declares 0 channels" run -m "$MODEL" -p hi --audio "$TMP/zero_channels.wav"
expect_exit 1 "WAV: header declares 36000.0 s of audio (576000000 frames at 16000 Hz), over the limit of 1800.0 s" \
    run -m "$MODEL" -p hi --audio "$TMP/ten_hours.wav"
expect_exit 1 "WAV: sample rate 4294967295 Hz is outside the supported 4000..768000 Hz" run -m "$MODEL" -p hi --audio "$TMP/absurd_rate.wav"
expect_exit 1 "--audio $TMP/truncated.wav: WAV: no fmt chunk" run -m "$MODEL" -p hi --audio "$TMP/truncated.wav"
expect_exit 1 "not a WAV, FLAC, MP3 or Ogg file (first bytes 89 50 4e 47)" run -m "$MODEL" -p hi --audio "$FIX/media/tiny.png"
expect_exit 1 "--audio $TMP/empty.wav: audio: empty input (0 bytes)" run -m "$MODEL" -p hi --audio "$TMP/empty.wav"
# Well-formed clips: a malformed one beside them is reported first; alone, the model's refusal.
expect_exit 1 "zero_channels.wav: WAV: header declares 0 channels" run -m "$MODEL" -p hi --audio "$AUD/speech_8k_s16.wav" \
    --audio "$TMP/zero_channels.wav"
expect_exit 1 "qwen2: this model does not accept audio input (input modalities: text)" run -m "$MODEL" -p hi --audio "$AUD/speech_8k_s16.wav"
for clip in silence_16k.flac speech_16k.mp3 speech_48k.ogg tone_48k_f32.wav; do
    expect_exit 1 "qwen2_vl: this model does not accept audio input (input modalities: text, image)" \
        run -m "$FIX/qwen2_vl/model" -p hi --audio "$AUD/$clip"
done
# Phi-4-multimodal through the whole CLI with audio: the fixture's messages (the clip, then
# "Transcribe the audio.") through its chat template, 27 prompt tokens (13 audio), its 16 greedy ids.
PHI4A=$FIX/phi4_mm-audio
PHI4A_IDS=$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$PHI4A/reference.json")
expect_exit 0 '"generated_ids":'"$PHI4A_IDS" run -m "$PHI4A/model" -p "Transcribe the audio." \
    --audio "$PHI4A/speech_16k_s16_1s.wav" --json --ignore-eos --max-tokens 16 --temperature 0
grep -qF '"prompt_tokens":27' "$TMP/out" && ok || fail "phi4 audio prompt is not the fixture's 27 tokens"
# LoRA off (phi4_mm-audio-nolora: no speech-lora/ in the checkpoint, none in the reference): its own ids.
PHI4N=$FIX/phi4_mm-audio-nolora
PHI4N_IDS=$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$PHI4N/reference.json")
expect_exit 0 '"generated_ids":'"$PHI4N_IDS" run -m "$PHI4N/model" -p "Transcribe the audio." \
    --audio "$PHI4N/speech_16k_s16_1s.wav" --json --ignore-eos --max-tokens 16 --temperature 0
# A 48 kHz Ogg clip is resampled to 16 kHz and generates; two clips take two placeholders.
expect_exit 0 '"generated_tokens":2' run -m "$PHI4A/model" -p "Transcribe." --audio "$AUD/speech_48k.ogg" \
    --json --max-tokens 2 --temperature 0
expect_exit 0 '"generated_tokens":2' run -m "$PHI4A/model" -p "Transcribe the audio." --audio "$PHI4A/speech_16k_s16_1s.wav" \
    --audio "$PHI4A/speech_16k_s16_1s.wav" --json --max-tokens 2 --temperature 0
grep -qF '"prompt_tokens":40' "$TMP/out" && ok || fail "phi4 two clips: not 27 + 13 prompt tokens"
# Image and audio in one prompt (phi4_mm-mixed): <|image|> × 689 and <|audio|> × 13 (724 prompt
# tokens), the clip through the audio projector's vision_speech pair, the vision adapter; its 16 ids.
PHI4M=$FIX/phi4_mm-mixed
PHI4M_IDS=$(/usr/bin/python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['generated_ids']).replace(' ',''))" "$PHI4M/reference.json")
expect_exit 0 '"generated_ids":'"$PHI4M_IDS" run -m "$PHI4M/model" -p "Describe the image and transcribe the audio." \
    --image "$PHI4M/chelsea.png" --audio "$PHI4M/speech_16k_s16_1s.wav" --json --ignore-eos --max-tokens 16 --temperature 0 \
    --repeat-penalty 1
grep -qF '"prompt_tokens":724' "$TMP/out" && ok || fail "phi4 mixed prompt is not the fixture's 724 tokens"

# --- Qwen3-VL-MoE, text only (MoE layers; its image path is not built): 8 greedy tokens, the same
# through an exported bundle; an image is refused by name.
MOE=$FIX/qwen3_vl_moe/model
expect_exit 0 '"generated_tokens":8' run -m "$MOE" -p "Hello" --max-tokens 8 --json --temperature 0
moe_ids=$(grep -o '"generated_ids":\[[0-9,]*\]' "$TMP/out")
[ -n "$moe_ids" ] && ok || fail "qwen3_vl_moe: no generated_ids"
"$BIN" export -m "$MOE" -o "$TMP/moe-bundle" --capacity 64 --prefill-capacity 32 2>/dev/null && ok || fail "qwen3_vl_moe: export failed"
expect_exit 0 "$moe_ids" run --bundle "$TMP/moe-bundle" -m "$MOE" -p "Hello" --max-tokens 8 --json --temperature 0
# With the image: the fixture's 16 greedy tokens (its DeepStack rows reach the MoE layers), the
# same through a bundle with room for the 75-token prompt: prefill_embeddings_deepstack.main,
# the images encoded by the model's tower (Qwen3-VL bundles have no vision.main yet). A bundle
# too small for the prompt says so.
MOE_IDS='"generated_ids":[81,211,74,1088,270,841,92,704,287,770,867,660,430,664,718,112]'
expect_exit 0 "$MOE_IDS" run -m "$MOE" \
    -p "Describe this image." --image "$FIX/qwen3_vl_moe/chelsea.png" --max-tokens 16 --ignore-eos --temperature 0 \
    --repeat-penalty 1 --json
expect_exit 1 "do not fit the largest bucket" run --bundle "$TMP/moe-bundle" -m "$MOE" -p "Describe this image." \
    --image "$FIX/qwen3_vl_moe/chelsea.png" --max-tokens 4
"$BIN" export -m "$MOE" -o "$TMP/moe-image-bundle" --capacity 128 --prefill-capacity 96 2>/dev/null && ok || fail "qwen3_vl_moe: export failed"
expect_exit 0 "$MOE_IDS" run --bundle "$TMP/moe-image-bundle" -m "$MOE" \
    -p "Describe this image." --image "$FIX/qwen3_vl_moe/chelsea.png" --max-tokens 16 --ignore-eos --temperature 0 \
    --repeat-penalty 1 --json
# Qwen3-VL dense: the same through its bundle, against the engine's tokens for the same request.
Q3VL=$FIX/qwen3_vl/model
expect_exit 0 '"generated_tokens":16' run -m "$Q3VL" -p "Describe this image." --image "$FIX/qwen3_vl/chelsea.png" \
    --max-tokens 16 --ignore-eos --temperature 0 --repeat-penalty 1 --json
q3vl_ids=$(grep -o '"generated_ids":\[[0-9,]*\]' "$TMP/out")
[ -n "$q3vl_ids" ] && ok || fail "qwen3_vl: no generated_ids"
"$BIN" export -m "$Q3VL" -o "$TMP/q3vl-bundle" --capacity 128 --prefill-capacity 96 2>/dev/null && ok || fail "qwen3_vl: export failed"
expect_exit 0 "$q3vl_ids" run --bundle "$TMP/q3vl-bundle" -m "$Q3VL" -p "Describe this image." \
    --image "$FIX/qwen3_vl/chelsea.png" --max-tokens 16 --ignore-eos --temperature 0 --repeat-penalty 1 --json

# Speculative decoding (on by default): the same greedy ids as --no-draft, and the choice is said.
expect_exit 2 "--draft needs an integer in 1..16" run -m "$MODEL" -p hi --draft 17
spec_prompt="the cat sat on the mat. the cat sat on the mat. the cat sat on the"
expect_exit 0 "speculative decoding, drafts of up to 3 tokens" run -m "$MODEL" -p "$spec_prompt" --raw \
    --max-tokens 24 --ignore-eos --temperature 0 --draft 3 --json
spec_ids=$(grep -o '"generated_ids":\[[0-9,]*\]' "$TMP/out")
expect_exit 0 "speculative decoding off (--no-draft)" run -m "$MODEL" -p "$spec_prompt" --raw \
    --max-tokens 24 --ignore-eos --temperature 0 --no-draft --json
[ -n "$spec_ids" ] && grep -qF -- "$spec_ids" "$TMP/out" && ok || fail "--draft 3 and --no-draft differ: $spec_ids"

# `tessera bench -m DIR`: a checkpoint timed as run loads it (the weight bytes from its files)
if [ -f "$MODEL/model.safetensors" ]; then
    bytes=$(stat -c %s "$MODEL"/*.safetensors | awk '{s += $1} END {printf "%.1f", s / 1e6}')
    expect_exit 0 "(checkpoint, $bytes MB" bench -m "$MODEL" -p 8 -n 4 --threads 2
    expect_exit 0 "decode         4 tokens" bench -m "$MODEL" -p 8 -n 4 --threads 2 --quantize q8 --batch 3
    # how much of it is mapped in 2 MB pages (0 where the kernel grants none), before the probe
    expect_exit 0 "MB of memory mapped in them" bench -m "$MODEL" -p 8 -n 4 --threads 2
    expect_exit 2 "-m DIR times a checkpoint" bench -m "$MODEL" --image-patches 64
    expect_exit 2 "usage: tessera bench" bench -m "$MODEL" --synthetic qwen2.5-0.5b
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
