#!/usr/bin/env bash
# tokenizer_cli_test.sh — `tessera tokenize`, `detokenize` and `bench`: output format, --jsonl
# (file and stdin), --no-special/--skip-special, a folder holding only tokenizer files, help and
# the exit codes (0 ok, 1 runtime error, 2 usage).
set -u
root=${TS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${TS_BIN:-$root/build/debug/tessera}
fixture=$root/tests/fixtures/llama/model
fails=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

expect() { # expect NAME WANT_RC WANT_STDOUT -- command...
    local name=$1 want_rc=$2 want_out=$3
    shift 4
    local out rc
    out=$("$@" 2>"$work/err")
    rc=$?
    if [ "$rc" != "$want_rc" ] || { [ "$want_out" != "*" ] && [ "$out" != "$want_out" ]; }; then
        echo "FAIL $name: rc $rc (want $want_rc), stdout '$out' (want '$want_out'), stderr: $(head -2 "$work/err")"
        fails=$((fails + 1))
    else
        echo "ok   $name"
    fi
}

# Only the tokenizer files, nothing else of the model.
mkdir -p "$work/tok"
cp "$fixture/tokenizer.json" "$fixture/tokenizer_config.json" "$work/tok/"

expect tokenize 0 "1280 39 72 289 269 507" -- "$bin" tokenize -m "$work/tok" "Hi world"
expect tokenize-no-special 0 "39 72 289 269 507" -- "$bin" tokenize -m "$work/tok" --no-special "Hi world"
expect tokenize-model-long-flag 0 "1280 39 72 289 269 507" -- "$bin" tokenize --model="$work/tok" "Hi world"
expect detokenize-args 0 "<|begin_of_text|>Hi world" -- "$bin" detokenize -m "$work/tok" 1280 39 72 289 269 507
expect detokenize-one-string 0 "Hi world" -- "$bin" detokenize -m "$work/tok" --skip-special "1280 39 72 289 269 507"
expect detokenize-out-of-vocab 0 "Hi" -- "$bin" detokenize -m "$work/tok" 39 72 999999
printf '"Hi world"\n""\n"a\\u00e9\\ud83c\\udf89\\n"\n' >"$work/in.jsonl"
expect tokenize-jsonl 0 "$(printf '[1280,39,72,289,269,507]\n[1280]\n[1280,64,963,172,253,236,231,198]')" -- \
    "$bin" tokenize -m "$work/tok" --jsonl "$work/in.jsonl"
expect tokenize-jsonl-stdin 0 "[39,72,289,269,507]" -- bash -c "echo '\"Hi world\"' | '$bin' tokenize -m '$work/tok' --no-special --jsonl -"
expect detokenize-jsonl 0 "$(printf '"Hi world"\n"a\xc3\xa9\\n"')" -- \
    bash -c "printf '[39,72,289,269,507]\n[64,963,198]\n' | '$bin' detokenize -m '$work/tok' --jsonl -"
printf '"ok"\nnot json\n' >"$work/bad.jsonl"
expect tokenize-jsonl-bad-line 1 "$(printf '[1280,562]\nnull')" -- "$bin" tokenize -m "$work/tok" --jsonl "$work/bad.jsonl"
expect tokenize-invalid-utf8 1 "" -- "$bin" tokenize -m "$work/tok" "$(printf 'ab\xff')"
grep -q "invalid UTF-8 at byte offset 2" "$work/err" || { echo "FAIL invalid-utf8 message: $(cat "$work/err")"; fails=$((fails + 1)); }
expect tokenize-missing-folder 1 "" -- "$bin" tokenize -m "$work/nope" "x"
expect tokenize-no-model 2 "" -- "$bin" tokenize "x"
expect tokenize-no-text 2 "" -- "$bin" tokenize -m "$work/tok"
expect tokenize-unknown-flag 2 "" -- "$bin" tokenize -m "$work/tok" --bogus "x"
expect detokenize-bad-id 2 "" -- "$bin" detokenize -m "$work/tok" 12x
expect tokenize-help 0 "*" -- "$bin" tokenize --help
expect detokenize-help 0 "*" -- "$bin" detokenize --help
expect bench-help 0 "*" -- "$bin" bench --help
expect bench-no-dir 2 "" -- "$bin" bench
expect bench-bad-mb 2 "" -- "$bin" bench --tokenizer "$work/tok" --mb 0
expect bench-run 0 "*" -- "$bin" bench --tokenizer "$work/tok" --mb 1 --threads 2
grep -q "encode english" <("$bin" bench --tokenizer "$work/tok" --mb 1) || { echo "FAIL bench table"; fails=$((fails + 1)); }

if [ $fails -ne 0 ]; then
    echo "$fails failed"
    exit 1
fi
echo "all passed"
