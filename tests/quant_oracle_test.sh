#!/usr/bin/env bash
# quant_oracle_test.sh — the quantized linear as exported: stablehlo_test prints its qlinear
# module (TS_STABLEHLO_DUMP), which tests/oracle/qlinear_oracle.py parses with jaxlib's StableHLO
# bindings, compiles with iree-compile (llvm-cpu) and runs against numpy's dequantize-then-matmul.
# Skipped (77) when the compiler oracles (.venv, scripts/install-deps) are not installed.
set -u
root=${TS_ROOT:?TS_ROOT not set}
build=${TS_BUILD:?TS_BUILD not set}
py=$root/.venv/bin/python
if [ ! -x "$py" ] || ! "$py" -c "import jax, iree.runtime" 2>/dev/null; then
    echo "skipped: the compiler oracles are not installed (scripts/install-deps)"
    exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
TS_STABLEHLO_DUMP=$dir "$build/stablehlo_test" >/dev/null || { echo "FAIL: stablehlo_test"; exit 1; }
[ -s "$dir/qlinear.mlir" ] || { echo "FAIL: stablehlo_test wrote no qlinear.mlir"; exit 1; }
"$py" "$root/tests/oracle/qlinear_oracle.py" "$dir/qlinear.mlir"
