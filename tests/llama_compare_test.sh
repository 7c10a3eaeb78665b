#!/usr/bin/env bash
# llama_compare_test.sh — tools/llama_compare.py's own logic, with stand-ins for both programs: a
# llama-bench that answers its JSON with fixed rates (pp 100 tok/s, tg 10 tok/s) and a wrapper of
# tessera that logs each call. On the qwen2 fixture (--model, 2 rounds, bf16 and q8): the calls
# alternate (tessera, then llama-bench's prefill and its decode at depth -p, each round), every
# ratio printed is Tessera's best round over the stand-in's rate, the int8-prefill line is there,
# and --model without a GGUF for a type is refused, naming it. No llama.cpp is needed.
set -u
bin=${TS_BIN:?TS_BIN not set}
root=${TS_ROOT:?TS_ROOT not set}
pass=0 fail=0
check() { local what=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/llama-bench" <<'SH'
#!/usr/bin/env bash
# argv: -m FILE -t N -r 1 -o json -p P -n N [-d D]
p=0 n=0 d=0 m=
while [ $# -gt 0 ]; do case $1 in -p) p=$2; shift ;; -n) n=$2; shift ;; -d) d=$2; shift ;; -m) m=$2; shift ;; esac; shift; done
echo "llama ${m##*/} p=$p n=$n d=$d" >>"$LOG"
if [ "$n" = 0 ]; then echo "[{\"n_prompt\": $p, \"n_gen\": 0, \"avg_ts\": 100.0}]"
else echo "[{\"n_prompt\": 0, \"n_gen\": $n, \"avg_ts\": 10.0}]"; fi
SH
cat >"$work/tessera" <<SH
#!/usr/bin/env bash
echo "tessera \$*" | sed 's/ -m [^ ]*//' >>"\$LOG"
exec "$bin" "\$@"
SH
chmod +x "$work/llama-bench" "$work/tessera"
touch "$work/bf16.gguf" "$work/q8.gguf"
export LOG=$work/log
/usr/bin/python3 "$root/tools/llama_compare.py" --tessera "$work/tessera" --llama-bench "$work/llama-bench" --work "$work" \
    --model "$root/tests/fixtures/qwen2/model" --formats bf16,q8 --gguf BF16="$work/bf16.gguf" --gguf Q8_0="$work/q8.gguf" \
    --threads 1 -p 16 -n 4 --rounds 2 >"$work/out" 2>&1
check "llama_compare exits 0" test $? -eq 0
cat "$work/out"
want="tessera bench -p 16 -n 4 --threads 1
llama bf16.gguf p=16 n=0 d=0
llama bf16.gguf p=0 n=4 d=16
tessera bench -p 16 -n 4 --threads 1
llama bf16.gguf p=16 n=0 d=0
llama bf16.gguf p=0 n=4 d=16
tessera bench -p 16 -n 4 --threads 1 --quantize q8
llama q8.gguf p=16 n=0 d=0
llama q8.gguf p=0 n=4 d=16
tessera bench -p 16 -n 4 --threads 1 --quantize q8
llama q8.gguf p=16 n=0 d=0
llama q8.gguf p=0 n=4 d=16"
check "the calls alternate, llama-bench decoding at depth -p" test "$(cat "$LOG")" = "$want"
# Each table row: Tessera's best pp and tg (from the rounds printed) over 100 and 10.
/usr/bin/python3 - "$work/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rounds = {}
for fmt, pp, tg in re.findall(r"round \d tessera (\w+): pp ([0-9.]+)  tg ([0-9.]+)", text):
    rounds.setdefault(fmt, []).append((float(pp), float(tg)))
ok = len(rounds) == 2
for fmt, ty in (("bf16", "BF16"), ("q8", "Q8_0")):
    row = re.search(rf"^ +{fmt} +{ty} +([0-9.]+) +100\.0 +([0-9.]+) +[0-9.]+ +([0-9.]+) +10\.00 +([0-9.]+)", text, re.M)
    pp = max(r[0] for r in rounds[fmt]); tg = max(r[1] for r in rounds[fmt])
    ok = ok and row and abs(float(row.group(1)) - pp) < 0.06 and abs(float(row.group(2)) - round(pp / 100, 2)) < 0.006 \
        and abs(float(row.group(4)) - round(tg / 10, 2)) < 0.006
    print(fmt, "rounds", rounds[fmt], "row", row.groups() if row else None)
line = re.search(r"int8 prefill \(tessera q8, W8A8\) / llama.cpp BF16: best ([0-9.]+)", text)
ok = ok and line and abs(float(line.group(1)) - round(max(r[0] for r in rounds["q8"]) / 100, 2)) < 0.006
sys.exit(0 if ok else 1)
PY
check "the ratios are Tessera's best rounds over llama-bench's rates" test $? -eq 0
/usr/bin/python3 "$root/tools/llama_compare.py" --tessera "$work/tessera" --llama-bench "$work/llama-bench" --work "$work" \
    --model "$root/tests/fixtures/qwen2/model" --formats q4 >"$work/out" 2>&1
check "--model without a GGUF is refused (exit 1)" test $? -eq 1
check "the refusal names the types" grep -q "give llama.cpp's GGUF of that model for Q4_K_M, Q4_0" "$work/out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
