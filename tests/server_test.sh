#!/usr/bin/env bash
# server_test.sh — `tessera serve` end to end, through the official `openai` Node client and plain
# fetch (tests/server/*.mjs):
#
#   api.mjs        chat (plain and streamed), an image by data: URL, completions, logprobs, the
#                  models list, the API key, errors surfaced by the client; every text and token
#                  count against `tessera run --json` for the same prompt (the oracles below)
#   isolation.mjs  8 requests (text, one image, two images) alone, then together on 4 slots: the
#                  same texts; a stream cancelled mid-way frees its slot for the next request;
#                  4 long prompts alone, then together: the same texts, and (engine servers, short
#                  chunks) steps that prefilled several of them at once, from /metrics
#                  (Qwen2-VL, Qwen3-VL and Gemma3, through the engine and through bundles)
#   malformed.mjs  broken, wrong-typed, oversized and refused requests: status, error object,
#                  and /health still 200 after each; malformed input_audio clips (and well-formed
#                  ones, refused: qwen2_vl takes no audio), a text request answered after each
#   audio.mjs      Phi-4-multimodal's input_audio and image_url: the references' tokens (audio, image,
#                  both in one request), audio, image and text in one batch (speech, vision and no
#                  adapter), a cancel during an audio and during an image encode
#   speculative.mjs  speculative decoding (--draft 4; also through a bundle's decode_k.main):
#                  requests alone and mixed give the tokens
#                  of their "speculative_decoding": false runs; /metrics shows drafts accepted
#   load.mjs       300 requests at concurrency 16, every one against its oracle; RSS growth small
#   shutdown.mjs   SIGTERM with requests running and queued: every one ends, the server exits 0
#   longrope.mjs   Phi-4's longrope past original_max_position_embeddings: a prompt whose generation
#                  passes it, a prompt over it, in 8-token chunks, alone and batched together, with
#                  and without the prefix cache and drafts: the reference's tokens
#   prefix.mjs     the prefix cache: repeated requests and a 5-turn chat with an image restore the
#                  exact token counts the block rule gives, every text equal to a server without the
#                  cache; media keying; eviction under a 1 MiB budget (Qwen2-VL and Qwen3-VL)
#
# Each server runs on port 0 (the port is read from its stderr), under ASAN_OPTIONS with leak
# detection when the binary is a sanitizer build; it is stopped with SIGTERM and must exit 0 with
# no AddressSanitizer, LeakSanitizer or UBSan report on stderr. Skips (77) without node or the
# openai package under .oracles (scripts/install-deps, or ln -s /work/main/.oracles .oracles).
set -u
BIN=${TS_BIN:?TS_BIN must name the tessera binary}
ROOT=$(cd "${TS_ROOT:-.}" && pwd) || exit 1
cd "$ROOT" || exit 1
OPENAI=$ROOT/.oracles/node_modules/openai/index.mjs
if ! command -v node >/dev/null; then
    echo "SKIP: node is not installed"
    exit 77
fi
if [ ! -f "$OPENAI" ]; then
    echo "SKIP: $OPENAI is missing (run scripts/install-deps, or ln -s /work/main/.oracles .oracles)"
    exit 77
fi

VL=tests/fixtures/qwen2_vl/model
TXT=tests/fixtures/qwen2/model
Q3=tests/fixtures/qwen3_vl/model
G3=tests/fixtures/gemma3/model
CHELSEA=tests/fixtures/qwen2_vl/chelsea.png
COFFEE=tests/fixtures/qwen2_vl-two-images/coffee.png
PHI4A=tests/fixtures/phi4_mm-audio/model
PHI4A_WAV=tests/fixtures/phi4_mm-audio/speech_16k_s16_1s.wav
LR=tests/fixtures/phi4_mm-longrope-cross/model # the -long case's model is the same file
PHI4I=tests/fixtures/phi4_mm-image/chelsea.png # phi4_mm-audio's model is every phi4 fixture's (same weights, processor)
API_KEY=tessera-test-key-1234

TMP=$(mktemp -d)
SERVERS=()   # names of the servers still running
declare -A PORT SPID # by server name
failed=0

cleanup() {
    local name pid
    for name in "${SERVERS[@]}"; do
        pid=$(cat "$TMP/$name.pid" 2>/dev/null) && kill -KILL "$pid" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }

export ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16
export UBSAN_OPTIONS=print_stacktrace=1

# start_server NAME ARGS...: starts `tessera serve --port 0 ARGS`; sets PORT[NAME] and SPID[NAME].
source "$ROOT/tests/server/launch.sh"
start_server() {
    local name=$1
    shift
    SERVERS+=("$name")
    launch_server "$TMP/$name.err" "$@"
    echo "$LAUNCHED_PID" >"$TMP/$name.pid"
    PORT[$name]=$LAUNCHED_PORT
    SPID[$name]=$LAUNCHED_PID
    echo "server $name: pid $LAUNCHED_PID, port $LAUNCHED_PORT ($*)"
}

# stop_server NAME: SIGTERM, then the exit status (0) and stderr (no sanitizer report).
stop_server() {
    local name=$1 pid state rc
    pid=$(cat "$TMP/$name.pid")
    kill -TERM "$pid" 2>/dev/null # shutdown.mjs has sent it already
    # Poll until it is gone (reaped by bash) or a zombie, so that `wait` cannot block.
    for _ in $(seq 1200); do
        state=$(sed 's/^.*) \(.\).*/\1/' "/proc/$pid/stat" 2>/dev/null)
        [ -z "$state" ] || [ "$state" = Z ] && break
        sleep 0.1
    done
    if [ -n "$state" ] && [ "$state" != Z ]; then
        fail "server $name did not stop within 120 s of SIGTERM"
        kill -KILL "$pid"
    fi
    wait "$pid"
    rc=$?
    local left=() n
    for n in "${SERVERS[@]}"; do [ "$n" = "$name" ] || left+=("$n"); done
    SERVERS=("${left[@]}")
    [ "$rc" -eq 0 ] || fail "server $name exited $rc after SIGTERM"
    if grep -qE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' "$TMP/$name.err"; then
        fail "server $name: sanitizer report on stderr:"
        head -c 8000 "$TMP/$name.err" >&2
    fi
    grep -qF 'tessera serve: stopped' "$TMP/$name.err" || fail "server $name did not say it stopped"
}

# run_node FILE: tests/server/FILE, with a time limit; its failures count as one here. The limit
# is a hang guard only, far above any run's time (each file takes seconds), so that a loaded
# machine running the sanitizer build never trips it.
run_node() {
    local file=$1 t0=$SECONDS
    echo "--- $file"
    timeout 900 node "tests/server/$file" || fail "$file failed (exit $?)"
    echo "--- $file: $((SECONDS - t0)) s"
}

# --- oracles: `tessera run --json`, greedy with EOS ignored and no repetition penalty (the
# server's OpenAI defaults have none; run takes generation_config.json's otherwise).
ORACLE_ITEMS=()
oracle() {
    local key=$1
    shift
    local out
    out=$("$BIN" run --json --temperature 0 --repeat-penalty 1 --ignore-eos --no-draft "$@" 2>"$TMP/oracle.err") || {
        echo "FAIL: oracle $key: tessera run $*: $(cat "$TMP/oracle.err")" >&2
        exit 1
    }
    ORACLE_ITEMS+=("\"$key\":$out")
}
oracle vl_chat -m "$VL" -p "Write a haiku about the sea." --max-tokens 16
oracle vl_image -m "$VL" --image "$CHELSEA" -p "Describe this image." --max-tokens 16
oracle vl_two -m "$VL" --image "$CHELSEA" --image "$COFFEE" -p "Compare these two images." --max-tokens 16
oracle vl_raw -m "$VL" --raw -p "Once upon a time, in a small village" --max-tokens 12
oracle txt_chat -m "$TXT" -p "Hello there" --max-tokens 16
oracle q3_image -m "$Q3" --image "$CHELSEA" -p "Describe this image." --max-tokens 16
oracle q3_two -m "$Q3" --image "$CHELSEA" --image "$COFFEE" -p "Compare these two images." --max-tokens 16
oracle g3_image -m "$G3" --image "$CHELSEA" -p "Describe this image." --max-tokens 16
oracle g3_two -m "$G3" --image "$CHELSEA" --image "$COFFEE" -p "Compare these two images." --max-tokens 16
oracle load_chat -m "$VL" -p "Tell me a story." --max-tokens 6
oracle load_raw -m "$VL" --raw -p "The quick brown fox" --max-tokens 8
oracle load_image -m "$VL" --image "$CHELSEA" -p "What is this?" --max-tokens 4
oracle phi4_audio -m "$PHI4A" --audio "$PHI4A_WAV" -p "Transcribe the audio." --max-tokens 16
oracle phi4_text -m "$PHI4A" -p "Write a short poem about the sea." --max-tokens 16
oracle lr_cross -m "$LR" -p "Write a short poem about the blue sea and the white waves." --max-tokens 16
oracle lr_long -m "$LR" -p "Write a short poem about the blue sea, the white waves and the quiet harbour at night." \
    --max-tokens 16
oracle phi4_image -m "$PHI4A" --image "$PHI4I" -p "Describe this image." --max-tokens 16
oracle phi4_mixed -m "$PHI4A" --image "$PHI4I" --audio "$PHI4A_WAV" -p "Describe the image and transcribe the audio." --max-tokens 16
(IFS=,; echo "{${ORACLE_ITEMS[*]}}") >"$TMP/oracles.json"

export TS_ROOT=$ROOT TS_OPENAI=$OPENAI TS_ORACLES=$TMP/oracles.json TS_API_KEY=$API_KEY

# TS_SERVER_TESTS="api load" runs only those parts (all by default).
want() { case " ${TS_SERVER_TESTS:-api isolation qwen3_vl gemma3 bundle qwen3_vl_bundle qwen3_vl_vision_bundle gemma3_bundle speculative bundle_speculative malformed audio longrope load shutdown prefix} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# --- api: the default server, and the text-only model behind an API key
if want api; then
    start_server vl -m "$VL"
    start_server txt -m "$TXT" --api-key "$API_KEY"
    TS_PORT=${PORT[vl]} TS_TXT_PORT=${PORT[txt]} run_node api.mjs
    stop_server vl
    stop_server txt
fi

# --- isolation: 4 slots; 32-row chunks in steps of 80 rows, so prompts share steps and the
# budget turns some chunks away to a later step
if want isolation; then
    start_server iso -m "$VL" --slots 4 --prefill-chunk 32 --batch-tokens 80
    TS_PORT=${PORT[iso]} TS_SHARED_PREFILL=1 run_node isolation.mjs
    stop_server iso
fi

# --- qwen3_vl: the same isolation run on Qwen3-VL (DeepStack rows at the image tokens of every
# prefill chunk: 16-token chunks split the images across chunks)
if want qwen3_vl; then
    start_server q3 -m "$Q3" --slots 4 --prefill-chunk 16
    TS_PORT=${PORT[q3]} TS_ORACLE_PREFIX=q3 TS_SHARED_PREFILL=1 run_node isolation.mjs
    stop_server q3
fi

# --- gemma3: the isolation run on Gemma3 (one model per server: its image requests batched with
# its text requests), each image's tokens attending to each other both ways; 8-token prefill
# chunks, so a chunk edge would fall inside an image (rows 6 … 9 of "Describe this image."): the
# scheduler moves it to the image's first row (ts_mm_inputs_chunk)
if want gemma3; then
    start_server g3 -m "$G3" --slots 4 --prefill-chunk 8
    TS_PORT=${PORT[g3]} TS_ORACLE_PREFIX=g3 TS_SHARED_PREFILL=1 run_node isolation.mjs
    stop_server g3
fi

# --- bundle: the same isolation run through an exported bundle (prefill.main,
# prefill_embeddings.main, decode.main over 4 slots, vision.main on the media stage). The vision
# buckets fit the fixtures' images (the largest request, chelsea + coffee, is under 512 patches):
# vision.main attends over its whole bucket, so a bucket 4× too large costs 16× under ASan.
if want bundle; then
    "$BIN" export -m "$VL" -o "$TMP/bundle" --capacity 3584 --prefill-capacity 256 --batch 4 --vision-patches 256,512 \
        >"$TMP/export.log" 2>&1 || fail "export for the bundle server: $(cat "$TMP/export.log")"
    start_server bun -m "$VL" --bundle "$TMP/bundle"
    TS_PORT=${PORT[bun]} run_node isolation.mjs
    stop_server bun
fi

# --- qwen3_vl_bundle: the Qwen3-VL isolation run through its bundle (prefill_embeddings_deepstack.main
# with each request's DeepStack rows; images through the model's tower, this bundle has no vision.main)
if want qwen3_vl_bundle; then
    "$BIN" export -m "$Q3" -o "$TMP/q3bundle" --capacity 3584 --prefill-capacity 256 --batch 4 \
        >"$TMP/export.log" 2>&1 || fail "export for the Qwen3-VL bundle server: $(cat "$TMP/export.log")"
    start_server q3b -m "$Q3" --bundle "$TMP/q3bundle"
    TS_PORT=${PORT[q3b]} TS_ORACLE_PREFIX=q3 run_node isolation.mjs
    stop_server q3b
fi

# --- qwen3_vl_vision_bundle: the same run with the tower in the bundle too: images (main and
# DeepStack rows) through its vision.main, then prefill_embeddings_deepstack.main
if want qwen3_vl_vision_bundle; then
    "$BIN" export -m "$Q3" -o "$TMP/q3vbundle" --capacity 3584 --prefill-capacity 256 --batch 4 --vision-patches 256,512 \
        >"$TMP/export.log" 2>&1 || fail "export for the Qwen3-VL vision bundle server: $(cat "$TMP/export.log")"
    start_server q3v -m "$Q3" --bundle "$TMP/q3vbundle"
    TS_PORT=${PORT[q3v]} TS_ORACLE_PREFIX=q3 run_node isolation.mjs
    stop_server q3v
fi

# --- gemma3_bundle: the Gemma3 run through its bundle: vision.main (fixed image), then
# prefill_embeddings.main with each request's bias (its images' bidirectional blocks)
if want gemma3_bundle; then
    "$BIN" export -m "$G3" -o "$TMP/g3bundle" --capacity 3584 --prefill-capacity 96 --batch 4 --vision-patches 16 \
        >"$TMP/export.log" 2>&1 || fail "export for the Gemma3 bundle server: $(cat "$TMP/export.log")"
    start_server g3b -m "$G3" --bundle "$TMP/g3bundle"
    TS_PORT=${PORT[g3b]} TS_ORACLE_PREFIX=g3 run_node isolation.mjs
    stop_server g3b
fi

# --- speculative: drafts verified in the decode step, against the same requests opted out
if want speculative; then
    start_server spec -m "$VL" --slots 4 --draft 4
    TS_PORT=${PORT[spec]} run_node speculative.mjs
    stop_server spec
fi

# --- bundle_speculative: the same speculative run through a bundle with decode_k.main (K = 4: the
# pending token and 3 drafts a slot per call; --draft 4 is held to 3 by the bundle). Capacity 124:
# the image request ends within K rows of it, so in the mixed case its last steps (no room for K
# rows) decode through decode.main in the same step as a verifying slot.
if want bundle_speculative; then
    "$BIN" export -m "$VL" -o "$TMP/bspec" --capacity 124 --prefill-capacity 124 --batch 4 --draft-width 4 \
        --vision-patches 256,512 >"$TMP/export.log" 2>&1 || fail "export for the speculative bundle server: $(cat "$TMP/export.log")"
    start_server bspec -m "$VL" --bundle "$TMP/bspec" --draft 4
    TS_PORT=${PORT[bspec]} run_node speculative.mjs
    stop_server bspec
fi

# --- malformed: small limits, a media root with an image inside and a link out of it, audio limits
if want malformed; then
    mkdir -p "$TMP/media/sub" "$TMP/outside"
    cp "$CHELSEA" "$TMP/media/sub/cat.png"
    cp tests/fixtures/media/tiny.png "$TMP/media/tiny.png"
    cp "$CHELSEA" "$TMP/outside/secret.png"
    ln -s "$TMP/outside/secret.png" "$TMP/media/escape.png"
    ln -s "$TMP/outside" "$TMP/media/outdir"
    printf 'not an image at all\n' >"$TMP/media/notes.png"
    start_server bad -m "$VL" --slots 2 --max-request-bytes 65536 --media-root "$TMP/media" --max-images 2 \
        --image-max-tokens 64 --capacity 256 --max-audio 3 --max-audio-seconds 2 --max-request-audio-seconds 2
    TS_PORT=${PORT[bad]} TS_MEDIA_ROOT=$TMP/media TS_OUTSIDE=$TMP/outside run_node malformed.mjs
    stop_server bad
fi

# --- audio: Phi-4-multimodal's input_audio end to end (media stage encode, speech adapter per slot)
if want audio; then
    start_server audio -m "$PHI4A" --slots 3
    TS_PORT=${PORT[audio]} run_node audio.mjs
    stop_server audio
fi

# --- longrope: Phi-4's switch to the long factors past 32 positions, prompts in 8-token chunks
if want longrope; then
    start_server lr -m "$LR" --slots 2 --prefill-chunk 8 --draft 4
    start_server lrn -m "$LR" --slots 2 --prefill-chunk 8 --prefix-cache-mb 0 --no-draft
    TS_PORT=${PORT[lr]} TS_NOCACHE_PORT=${PORT[lrn]} run_node longrope.mjs
    stop_server lr
    stop_server lrn
fi

# --- load: 4 slots, a queue that holds every waiting request
if want load; then
    start_server load -m "$VL" --slots 4 --queue 64
    TS_PORT=${PORT[load]} TS_SERVER_PID=${SPID[load]} run_node load.mjs
    stop_server load
fi

# --- shutdown: SIGTERM, sent by shutdown.mjs, with requests running and queued
if want shutdown; then
    start_server down -m "$VL" --slots 2
    TS_PORT=${PORT[down]} TS_SERVER_PID=${SPID[down]} run_node shutdown.mjs
    stop_server down
fi

# --- prefix: the prefix cache on Qwen2-VL (M-RoPE) and Qwen3-VL (DeepStack), each against the same
# model without a cache and with a 1 MiB one. The first image token's row of a one-image chat:
# 21 (Qwen2-VL's default system prompt), 4 (Qwen3-VL's template has none).
wait_line() { # NAME REGEX: the scheduler thread logs it soon after the server listens
    for _ in $(seq 100); do grep -qE "$2" "$TMP/$1.err" && return 0; sleep 0.1; done
    fail "server $1: no line matching '$2' on stderr: $(cat "$TMP/$1.err")"
}
if want prefix; then
    for spec in "vl $VL 21" "q3 $Q3 4"; do
        set -- $spec
        start_server pc_$1 -m "$2"
        start_server pn_$1 -m "$2" --prefix-cache-mb 0
        start_server pt_$1 -m "$2" --prefix-cache-mb 1
        wait_line pc_$1 'prefix cache of 1024 MiB \(blocks of 16 tokens\)'
        TS_PORT=${PORT[pc_$1]} TS_NOCACHE_PORT=${PORT[pn_$1]} TS_TINY_PORT=${PORT[pt_$1]} TS_ORACLE_PREFIX=$1 \
            TS_FIRST_IMAGE_ROW=$3 run_node prefix.mjs
        stop_server pc_$1
        stop_server pn_$1
        stop_server pt_$1
    done
    # Gemma3 keeps its sliding-window layers in rings: the cache is refused, with the reason.
    start_server pg -m "$G3"
    wait_line pg 'prefix cache off: .*sliding window'
    stop_server pg
fi

if [ "$failed" -ne 0 ]; then
    echo "server_test: $failed failure(s)"
    exit 1
fi
echo "server_test: all passed"
