#!/usr/bin/env python3
"""stablehlo_check.py — Tessera's modules checked by the official StableHLO implementation.

usage: stablehlo_check.py [--target VERSION] PATH...

PATH is a module (.mlir) or a folder searched recursively for them (a bundle, tests/golden).
Each module is
  1. parsed by the official StableHLO dialects (the MLIR Python bindings that jaxlib ships),
  2. verified (every op's own verifier: shapes, types, composite decompositions),
  3. serialized to a portable artifact (VHLO bytecode) at the target version, deserialized, and
     required to print exactly as the parsed module does (the round trip loses nothing);
  4. if a portable artifact written by `tessera export --portable` lies beside it (X.mlirbc next
     to X.mlir), that artifact is deserialized and required to equal the module as well, and the
     bundle's manifest.json must name the artifact's target version.
One line per failure names the file and what failed; the last line is
"stablehlo: N passed, M failed". Exit status 0 only when nothing failed and something was checked.

Run it with the Python of .venv (scripts/install-deps); the versions are pinned in
tests/oracle/requirements.txt. The target version is the one `tessera export --portable` writes
(TS_PORTABLE_TARGET in src/bundle/portable.c).
"""
import argparse
import json
import os
import sys

DEFAULT_TARGET = "1.0.0"


def official():
    try:
        from jax._src.interpreters.mlir import make_ir_context  # every dialect jax registers
        from jaxlib.mlir import ir
        from jaxlib.mlir.dialects import stablehlo
    except ImportError as e:  # the oracle is required, never skipped
        sys.exit(f"stablehlo_check: the official StableHLO bindings (jaxlib) are not importable: {e}\n"
                 "  run scripts/install-deps and use .venv/bin/python")
    return make_ir_context, ir, stablehlo


def modules_under(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in sorted(os.walk(p)):
                for f in sorted(files):
                    if f.endswith(".mlir"):
                        yield os.path.join(root, f)
        else:
            yield p


def manifest_target(module_path):
    """The portable target a bundle's manifest declares, looking up from the module's folder."""
    d = os.path.dirname(os.path.abspath(module_path))
    for _ in range(3):
        m = os.path.join(d, "manifest.json")
        if os.path.exists(m):
            with open(m) as f:
                return (json.load(f).get("portable") or {}).get("stablehlo_target")
        d = os.path.dirname(d)
    return None


def check(path, target, make_ir_context, ir, stablehlo):
    with open(path) as f:
        text = f.read()
    with make_ir_context() as ctx:
        try:
            module = ir.Module.parse(text)
        except Exception as e:
            return f"does not parse: {e}"
        if not module.operation.verify():
            return "does not verify"
        printed = str(module)
        # serialize_portable_artifact rewrites the module it is given into VHLO: give it a copy.
        try:
            artifact = stablehlo.serialize_portable_artifact(ir.Module.parse(text), target)
        except Exception as e:
            return f"cannot be serialized at StableHLO {target}: {e}"
        back = stablehlo.deserialize_portable_artifact(ctx, artifact)
        if str(back) != printed:
            return f"the portable round trip at {target} changes the module"
        beside = path[: -len(".mlir")] + ".mlirbc"
        if os.path.exists(beside):
            declared = manifest_target(path)
            if declared is None:
                return f"{os.path.basename(beside)} lies beside it but no manifest declares a portable target"
            with open(beside, "rb") as f:
                written = f.read()
            try:
                back = stablehlo.deserialize_portable_artifact(ctx, written)
            except Exception as e:
                return f"{os.path.basename(beside)} does not deserialize: {e}"
            if str(back) != printed:
                return f"{os.path.basename(beside)} is not this module"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--target", default=DEFAULT_TARGET, help="portable artifact version (default %(default)s)")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    make_ir_context, ir, stablehlo = official()
    passed = failed = 0
    for path in modules_under(args.paths):
        problem = check(path, args.target, make_ir_context, ir, stablehlo)
        if problem:
            failed += 1
            print(f"{path}: {problem}")
        else:
            passed += 1
    print(f"stablehlo: {passed} passed, {failed} failed")
    return 0 if passed and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
