#!/usr/bin/env bash
# fuzz_smoke_test.sh — builds the libFuzzer targets with clang (ASan + UBSan) and runs the
# safetensors header fuzzer for 20000 inputs from the committed seed corpus. Long runs are
# `make fuzz` plus a manual run; this only proves the target builds and survives a short run.
# Skips (77) where clang or its libFuzzer runtime is missing.
set -u
root=${TS_ROOT:?TS_ROOT not set}
build=${TS_BUILD:-$root/build/debug}/fuzz-smoke
command -v clang >/dev/null || { echo "clang not found: skipping"; exit 77; }
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' > /tmp/ts_fuzz_probe_$$.c
if ! clang -fsanitize=fuzzer /tmp/ts_fuzz_probe_$$.c -o /tmp/ts_fuzz_probe_$$ 2>/dev/null; then
    rm -f /tmp/ts_fuzz_probe_$$.c; echo "clang has no libFuzzer runtime: skipping"; exit 77
fi
rm -f /tmp/ts_fuzz_probe_$$.c /tmp/ts_fuzz_probe_$$

CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTS_SANITIZE=ON \
    -DTS_FUZZ=ON >/dev/null || exit 1
cmake --build "$build" --target safetensors_header_fuzz -j 2 >/dev/null || exit 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# New inputs go to the scratch folder; the committed seeds are only read.
"$build/safetensors_header_fuzz" -runs=20000 -dict="$root/fuzz/safetensors.dict" \
    -artifact_prefix="$work/" "$work" "$root/fuzz/corpus/safetensors" 2>"$work/log"
rc=$?
tail -n 3 "$work/log"
[[ $rc == 0 ]] || { echo "fuzzer exited $rc"; ls "$work"; exit 1; }
grep -q "Done 20000 runs" "$work/log" || { echo "fuzzer did not finish its runs"; exit 1; }
echo "fuzz_smoke_test: ok"
