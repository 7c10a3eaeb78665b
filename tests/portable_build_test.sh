#!/usr/bin/env bash
# portable_build_test.sh — the library compiles for a CPU that is not x86-64 (portable kernels
# only): every source under src/ through Debian's aarch64 cross compiler (gcc-aarch64-linux-gnu,
# installed by scripts/install-deps) with the project's warnings as errors. Compile only: the
# dependencies' headers are the host's (arch-independent but for libjpeg's jconfig.h); nothing is
# linked or run. The portable kernels themselves run on this machine in every test (`--cpu
# portable`, kernels_test).
set -u
root=${TS_ROOT:?TS_ROOT not set}
cc=aarch64-linux-gnu-gcc
if ! command -v $cc >/dev/null; then
    echo "FAIL: $cc is missing: run scripts/install-deps"
    exit 1
fi
cd "$root"
pass=0 fail=0
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
while IFS= read -r f; do
    if $cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -Iinclude -Isrc \
        -idirafter /usr/include -idirafter /usr/include/cjson -idirafter "/usr/include/$multiarch" \
        -fsyntax-only "$f" 2>"/tmp/portable_build.$$"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $f"
        head -5 "/tmp/portable_build.$$"
    fi
done < <(find src -name '*.c' ! -name '*_test.c' | sort)
rm -f "/tmp/portable_build.$$"
echo "portable_build_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 100 ]
