#!/usr/bin/env python3
"""iree_compile.py — compiles a Tessera bundle for IREE: one .vmfb beside each module.

  .venv/bin/python tools/iree_compile.py BUNDLE [--target-cpu host|NAME] [--flag EXTRA]…

The bundle's identity is recomputed first (as src/bundle/manifest.c does) and every module's
signature held to the manifest: a bundle that does not match its identity, or a module that does
not declare what the manifest says, is refused before anything is compiled. Then each module is
compiled with iree-compile for the local llvm-cpu backend, and BUNDLE/iree_compile.json records
the compiler version, the target, the exact flags, the bundle identity and each .vmfb's SHA-256
(tools/bundle_runner loads those .vmfb files only when that identity is the bundle's).
Exit status: 0 compiled, 1 refused or a compile failed (the compiler's message is printed).
"""
import argparse
import hashlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bundle_runner.backends import CompileError, iree_compile_file, iree_flags  # noqa: E402
from bundle_runner.manifest import ContractError, Manifest, check_signature, parse_signature  # noqa: E402


def compiler_version():
    try:
        from importlib.metadata import version
        return version("iree-base-compiler")
    except Exception:
        return "unknown"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bundle")
    p.add_argument("--target-cpu", default="host", help="--iree-llvmcpu-target-cpu (default: host)")
    p.add_argument("--flag", action="append", default=[], help="an extra iree-compile flag (repeatable)")
    a = p.parse_args(argv)
    try:
        man = Manifest(a.bundle)
        texts = man.check_identity()
        for (entry, weights, file), text in zip(man.modules(), texts):
            args, results = parse_signature(text.decode("utf-8"))
            check_signature(entry, weights, args, results, file)
    except (ContractError, OSError) as e:
        print(f"iree_compile: {a.bundle}: {e}", file=sys.stderr)
        return 1
    flags = iree_flags(a.target_cpu) + a.flag
    record = {"compiler": "iree-compile", "compiler_version": compiler_version(), "target_backend": "llvm-cpu",
              "target_cpu": a.target_cpu, "flags": flags, "identity": man.identity, "modules": []}
    for _, _, file in man.modules():
        src = os.path.join(a.bundle, file)
        out = src[:-5] + ".vmfb"
        t = time.perf_counter()
        try:
            iree_compile_file(src, out, flags)
        except CompileError as e:
            print(f"iree_compile: {e}", file=sys.stderr)
            return 1
        seconds = time.perf_counter() - t
        with open(out, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        record["modules"].append({"module": file, "vmfb": file[:-5] + ".vmfb", "sha256": digest, "seconds": round(seconds, 2)})
        print(f"iree_compile: {file} -> {file[:-5]}.vmfb ({seconds:.1f} s)")
    with open(os.path.join(a.bundle, "iree_compile.json"), "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
