"""qlinear_oracle.py MODULE.mlir — the printed quantized-linear module (stablehlo_test's
qlinear.mlir: an 8-bit layer, blocks of 32, then a 4-bit layer, blocks of 16, with zero points and
bias) parses and verifies in the official StableHLO bindings that jaxlib ships, keeps its
stablehlo.composite ops, compiles with iree-compile for the host CPU, and computes on random
inputs what numpy computes from the format's definition (graph.h: ts_graph_qlinear), written
here independently: bytes split with & 15 and >> 4, (q − zero) · scale, then x · Wᵀ + b.
Prints one line per check; exits 1 on any failure."""
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
from jax._src.interpreters import mlir as jmlir
from jax._src.lib.mlir import ir

path = sys.argv[1]
text = open(path).read()
failures = 0


def check(what, ok):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += not ok


with jmlir.make_ir_context() as ctx:
    module = ir.Module.parse(text)
    check("jaxlib parses and verifies the module", module.operation.verify())
    names = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    if inner.operation.name == "stablehlo.composite":
                        names.append(ir.StringAttr(inner.attributes["name"]).value)
                    walk(inner.operation)

    walk(module.operation)
    check("both layers stay stablehlo.composite \"tessera.qlinear\"", names == ["tessera.qlinear"] * 2)

with tempfile.TemporaryDirectory() as tmp:
    vmfb = tmp + "/qlinear.vmfb"
    r = subprocess.run([sys.prefix + "/bin/iree-compile", "--iree-hal-target-device=local",
                        "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host",
                        path, "-o", vmfb], capture_output=True, text=True)
    check("iree-compile (llvm-cpu) compiles it", r.returncode == 0)
    if r.returncode:
        print(r.stderr[-2000:])
        sys.exit(1)
    import iree.runtime as rt

    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, (3, 64)).astype(np.float32)
    q8 = rng.integers(-128, 128, (48, 64), dtype=np.int8)
    s8 = rng.uniform(0.001, 0.02, (48, 2)).astype(np.float16)
    q4 = rng.integers(0, 256, (40, 24), dtype=np.uint8)
    s4 = rng.uniform(0.01, 0.1, (40, 3)).astype(ml_dtypes.bfloat16)
    z4 = rng.integers(0, 16, (40, 3), dtype=np.int8)
    b4 = rng.uniform(-1, 1, (40,)).astype(ml_dtypes.bfloat16)

    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, vmfb))
    got = np.asarray(ctx.modules.qlinear["main"](x, q8, s8, q4, s4, z4, b4))

    w8 = (q8.astype(np.float32) - 0.0) * np.repeat(s8.astype(np.float32), 32, axis=1)
    h = x @ w8.T
    nib = np.empty((40, 48), np.float32)
    nib[:, 0::2] = q4 & 15
    nib[:, 1::2] = q4 >> 4
    w4 = (nib - np.repeat(z4.astype(np.float32), 16, axis=1)) * np.repeat(s4.astype(np.float32), 16, axis=1)
    want = h @ w4.T + b4.astype(np.float32)
    err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    check("IREE's result equals numpy's dequantize-then-matmul (max relative error %.2e ≤ 1e-5)" % err, err <= 1e-5)

sys.exit(1 if failures else 0)
