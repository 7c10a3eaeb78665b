#!/usr/bin/env bash
# The demo: what Tessera does today, on the tiny Qwen2-VL checkpoint kept in the repository.
set -euo pipefail
bin=${1:-build/release/tessera}
root=$(cd "$(dirname "$0")/.." && pwd)
model=$root/tests/fixtures/qwen2_vl/model
show() { printf '\n$ %s\n' "$*"; "$@"; }

show "$bin" --version
show "$bin" inspect -m "$model"
show "$bin" tokenize -m "$model" "Describe this image. 描述这张图片 🐈‍⬛"
ids=$("$bin" tokenize -m "$model" "Describe this image. 描述这张图片 🐈‍⬛")
show "$bin" detokenize -m "$model" "$ids"
messages=$(mktemp --suffix=.json)
trap 'rm -f "$messages"' EXIT
cat >"$messages" <<'JSON'
[{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Describe this image."}]}]
JSON
show "$bin" template -m "$model" "$messages" --add-generation-prompt
echo
# Generation: the tiny random-weight fixtures stand in for real models (their text is noise, but
# token for token what transformers produces).
show "$bin" run -m "$root/tests/fixtures/qwen2/model" -p "Write a short poem about the sea." --max-tokens 16 --temperature 0
echo
show "$bin" run -m "$model" --image "$root/tests/fixtures/qwen2_vl/chelsea.png" -p "Describe this image." \
    --max-tokens 16 --temperature 0 --repeat-penalty 1 --ignore-eos --json
echo
show "$bin" compare -m "$model" --reference "$root/tests/fixtures/qwen2_vl/reference.safetensors"
echo
bundle=$(mktemp -d)
trap 'rm -f "$messages"; rm -rf "$bundle"' EXIT
show "$bin" export -m "$root/tests/fixtures/qwen2/model" -o "$bundle/qwen2" --capacity 64,256
ls -R "$bundle/qwen2"
