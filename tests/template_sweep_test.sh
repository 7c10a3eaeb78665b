#!/bin/bash
# Breadth check: every distinct Hugging Face chat template shipped in @huggingface/ollama-utils
# (≈100 model families: Llama 3.x with tools and strftime_now, Mistral, Phi, Granite, DeepSeek,
# Command-R, …) renders every corpus conversation, generation prompt off and on, exactly as
# Python jinja2 does — including failing where jinja2 fails. Skips (77) without .oracles or
# python3-jinja2.
set -u
ROOT=${TS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=${TS_BIN:-$ROOT/build/debug/tessera}
PY=/usr/bin/python3
AUTOMAP=$ROOT/.oracles/node_modules/@huggingface/ollama-utils/src/chat-template-automap.ts
[ -f "$AUTOMAP" ] || { echo "skip: .oracles missing"; exit 77; }
$PY -c "import jinja2" 2>/dev/null || { echo "skip: python3-jinja2 missing"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CORPUS=$ROOT/tests/corpus/conversations.jsonl
n=$($PY "$ROOT/tests/oracle/extract_ollama_templates.py" "$AUTOMAP" "$WORK/t") || exit 1
fail=0
bad=0
for dir in "$WORK"/t/*/; do
    for flag in "" --add-generation-prompt; do
        "$BIN" template -m "$dir" --jsonl "$CORPUS" $flag > "$WORK/ours" 2>/dev/null
        [ $? -gt 1 ] && { echo "$(basename "$dir"): tessera failed to run"; fail=1; }
        $PY "$ROOT/tests/oracle/render_jinja2.py" -m "$dir" --jsonl "$CORPUS" $flag > "$WORK/py" 2>/dev/null
        if ! $PY "$ROOT/tests/oracle/compare.py" "$(basename "$dir")${flag:+ gen}" "$CORPUS" "$WORK/ours" "$WORK/py" > "$WORK/cmp"; then
            cat "$WORK/cmp"
            fail=1
            bad=$((bad + 1))
        fi
    done
done
echo "ollama-utils templates: $n distinct, $((n * 2 - bad)) of $((n * 2)) runs (template x generation prompt) match python jinja2 on all $(grep -c . "$CORPUS") conversations"
exit $fail
