#!/bin/bash
# `tessera template`: template lookup (tokenizer_config.json string or named list,
# chat_template.jinja, chat_template.json), special tokens ({"content": …} objects too),
# messages files as arrays or objects, --add-generation-prompt, --var, --jsonl, exact output
# bytes, error reporting and exit codes (0 ok, 1 runtime, 2 usage).
set -u
BIN=${TS_BIN:?TS_BIN must name the tessera binary}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
check() { # name, expected, actual
    if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $(printf %q "$2")"; echo "  got:  $(printf %q "$3")"; fail=1; fi
}

# A tokenizer-only folder with a list of named templates and object-form special tokens.
mkdir -p "$WORK/list"
cat > "$WORK/list/tokenizer_config.json" <<'JSON'
{"bos_token": {"content": "<s>", "lstrip": false}, "eos_token": "</s>", "pad_token": null,
 "chat_template": [{"name": "default", "template": "{{ bos_token }}{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{% if add_generation_prompt %}>{% endif %}{{ eos_token }}"},
                   {"name": "tool_use", "template": "{{ tools | length }} tools{{ pad_token is defined }}"}]}
JSON
echo '[{"role": "user", "content": "héllo"}]' > "$WORK/msgs.json"
echo '{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function"}, {"type": "function"}]}' > "$WORK/doc.json"

check "list default" "<s>[user:héllo]</s>" "$("$BIN" template -m "$WORK/list" "$WORK/msgs.json")"
check "generation prompt" "<s>[user:héllo]></s>" "$("$BIN" template -m "$WORK/list" "$WORK/msgs.json" --add-generation-prompt)"
check "named template" "2 toolsFalse" "$("$BIN" template -m "$WORK/list" --name tool_use "$WORK/doc.json")"
check "--var overrides" "<X>[user:héllo]</s>" "$("$BIN" template -m "$WORK/list" "$WORK/msgs.json" --var 'bos_token="<X>"')"
"$BIN" template -m "$WORK/list" --name nope "$WORK/msgs.json" 2> "$WORK/err" >/dev/null
check "unknown name exits 1" "1" "$?"
grep -q "no chat template named 'nope'" "$WORK/err" || { echo "FAIL unknown name message"; cat "$WORK/err"; fail=1; }

# No newline is added: the bytes are exactly the rendering.
"$BIN" template -m "$WORK/list" "$WORK/msgs.json" > "$WORK/out"
check "exact bytes" "$(printf '<s>[user:h\xc3\xa9llo]</s>' | od -c)" "$(od -c < "$WORK/out")"

# chat_template.jinja, then chat_template.json.
mkdir -p "$WORK/jinja" "$WORK/json"
printf '{%% for m in messages %%}\n  {%%- if m.role == "user" %%}\n{{ m.content }}\n  {%%- endif %%}\n{%% endfor %%}\n' > "$WORK/jinja/chat_template.jinja"
check "chat_template.jinja" "héllo" "$("$BIN" template -m "$WORK/jinja" "$WORK/msgs.json")"
echo '{"chat_template": "{{ messages[0].content | upper }}"}' > "$WORK/json/chat_template.json"
check "chat_template.json" "HÉLLO" "$("$BIN" template -m "$WORK/json" "$WORK/msgs.json")"

# --jsonl: one JSON string per line, null where a line fails (and exit 1).
mkdir -p "$WORK/strict"
echo '{"chat_template": "{% if messages[0].role != \"user\" %}{{ raise_exception(\"first must be user\") }}{% endif %}{{ messages[0].content }}\n"}' > "$WORK/strict/chat_template.json"
printf '%s\n' '[{"role": "user", "content": "a\"b\n"}]' '{"messages": [{"role": "system", "content": "s"}]}' '[{"role": "user", "content": "ok"}]' > "$WORK/batch.jsonl"
"$BIN" template -m "$WORK/strict" --jsonl "$WORK/batch.jsonl" > "$WORK/out" 2> "$WORK/err"
check "jsonl exit" "1" "$?"
check "jsonl lines" "$(printf '%s\n' '"a\"b\n"' 'null' '"ok"')" "$(cat "$WORK/out")"
grep -q "line 2: .*1:[0-9]*: first must be user" "$WORK/err" || { echo "FAIL jsonl error message"; cat "$WORK/err"; fail=1; }

# Errors: compile errors carry line:column; usage errors exit 2.
mkdir -p "$WORK/bad"
printf 'a\n{%% if x %%}\n{{ x | nosuch }}\n{%% endif %%}' > "$WORK/bad/chat_template.jinja"
"$BIN" template -m "$WORK/bad" "$WORK/msgs.json" 2> "$WORK/err"
check "compile error exit" "1" "$?"
grep -q "chat_template.jinja:3:8: unknown filter 'nosuch'" "$WORK/err" || { echo "FAIL compile error message"; cat "$WORK/err"; fail=1; }
"$BIN" template -m "$WORK/nonexistent" "$WORK/msgs.json" 2>/dev/null
check "missing folder exit" "1" "$?"
"$BIN" template -m "$WORK/list" "$WORK/missing.json" 2>/dev/null
check "missing messages exit" "1" "$?"
echo '[{"role": "user",' > "$WORK/broken.json"
"$BIN" template -m "$WORK/list" "$WORK/broken.json" 2> "$WORK/err"
check "broken JSON exit" "1" "$?"
grep -q "invalid JSON at byte" "$WORK/err" || { echo "FAIL broken JSON message"; cat "$WORK/err"; fail=1; }
"$BIN" template --help > "$WORK/out"
check "help exit" "0" "$?"
grep -q -- "--jsonl" "$WORK/out" || { echo "FAIL help text"; fail=1; }
"$BIN" template 2>/dev/null
check "no arguments exit" "2" "$?"
"$BIN" template -m "$WORK/list" --bogus "$WORK/msgs.json" 2>/dev/null
check "unknown option exit" "2" "$?"
"$BIN" template -m "$WORK/list" --var '1x' "$WORK/msgs.json" 2>/dev/null
check "bad --var exit" "2" "$?"
"$BIN" template -m "$WORK/list" "$WORK/msgs.json" --jsonl "$WORK/batch.jsonl" 2>/dev/null
check "file and --jsonl exit" "2" "$?"
exit $fail
