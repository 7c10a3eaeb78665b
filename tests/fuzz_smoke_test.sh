#!/usr/bin/env bash
# fuzz_smoke_test.sh — builds the libFuzzer targets with clang (ASan + UBSan) and runs the
# safetensors header, config.json, StableHLO reader, the JPEG, PNG and WebP decoder fuzzers for
# 20000 inputs each and the WAV, FLAC, MP3 and Ogg decoder fuzzers for 3000 each (an audio input
# runs libsndfile, the resampler and the features) from the committed seeds. Long runs are
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
cmake --build "$build" --target safetensors_header_fuzz model_config_fuzz stablehlo_reader_fuzz \
    jpeg_decode_fuzz png_decode_fuzz webp_decode_fuzz request_parse_fuzz wav_decode_fuzz \
    flac_decode_fuzz mp3_decode_fuzz ogg_decode_fuzz -j 2 >/dev/null || exit 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
runs=20000
run() { # target, seed folder, extra flags…
    local target=$1 seeds=$2; shift 2
    mkdir -p "$work/$target"
    # New inputs go to the scratch folder; the committed seeds are only read.
    "$build/$target" -runs=$runs -artifact_prefix="$work/$target/" "$@" "$work/$target" "$seeds" \
        2>"$work/$target.log"
    local rc=$?
    tail -n 1 "$work/$target.log"
    if [[ $rc != 0 ]] || ! grep -q "Done $runs runs" "$work/$target.log"; then
        echo "$target: exit $rc"; tail -n 30 "$work/$target.log"; fail=1
    fi
}
run safetensors_header_fuzz "$root/fuzz/corpus/safetensors" -dict="$root/fuzz/safetensors.dict"
run model_config_fuzz "$root/fuzz/corpus/model_config"
run stablehlo_reader_fuzz "$root/fuzz/corpus/stablehlo" -dict="$root/fuzz/stablehlo.dict"
for format in jpeg png webp; do
    run ${format}_decode_fuzz "$root/fuzz/corpus/${format}_decode" -dict="$root/fuzz/image.dict"
done
run request_parse_fuzz "$root/fuzz/corpus/request_parse" -dict="$root/fuzz/request.dict"
runs=3000
# libsndfile's own leak on some broken Ogg headers (fuzz/lsan.supp) is not ours to fail on.
export LSAN_OPTIONS=suppressions=$root/fuzz/lsan.supp
for format in wav flac mp3 ogg; do
    run ${format}_decode_fuzz "$root/fuzz/corpus/${format}_decode" -dict="$root/fuzz/audio.dict"
done
[[ $fail == 0 ]] && echo "fuzz_smoke_test: ok"
exit $fail
