#!/usr/bin/env bash
# iree_oracle_text_test.sh — the text families (qwen2, qwen3, llama) through IREE (see
# tests/oracle/iree_oracle_lib.sh for what each case asserts), then the bad days
# (tests/oracle/bundle_negative.py): edited modules and identities, broken contracts and
# arguments, each refused with a message naming it.
set -u
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/iree_oracle_lib.sh"

bundle qwen2 qwen2 --capacity 64 --prefill-capacity 32
bundle qwen3 qwen3 --capacity 64 --prefill-capacity 32
bundle llama llama --capacity 64 --prefill-capacity 32
for c in qwen2 qwen3 llama; do run_case "$c" "$c"; done

"$py" "$root/tests/oracle/bundle_negative.py" "$work/qwen2" "$fix/qwen2/model" "$work/negative" >"$work/negative.log" 2>&1
rc=$?
cat "$work/negative.log"
check "negative cases refused with messages naming them (exit $rc)" test $rc -eq 0
finish
