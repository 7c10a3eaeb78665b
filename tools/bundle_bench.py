#!/usr/bin/env python3
"""bundle_bench.py — IREE llvm-cpu against Tessera's own runtime on a published shape (issue 11's
figures; a benchmark, not a test: it prints figures and asserts nothing about them).

  .venv/bin/python tools/bundle_bench.py [--tessera build/release/tessera] [--preset qwen2.5-0.5b]
      [-p 512] [-n 128] [--capacity 4096] [--threads 2] [--vision-preset qwen2-vl-2b]
      [--vision-patches 1024] [--work DIR] [--skip-vision]

1. `tessera bench --synthetic PRESET --dtype bf16 --write-checkpoint DIR` (the preset as a checkpoint
   folder), `tessera export` of it (one bucket: capacity, prefill capacity = -p, 1 slot).
2. iree-compile of prefill.main, prefill_embeddings.main and decode.main under /usr/bin/time -v:
   wall time and peak RSS of each.
3. tools/bundle_runner on IREE (--backend xla: XLA's CPU backend) (weights uploaded once, timed): a -p token prefill, then -n decode
   steps (greedy), tok/s; one warm-up prefill first.
4. In the same run, `tessera bench --synthetic PRESET --dtype bf16 -p N -n N --threads T`: the
   engine's prefill and decode tok/s.
5. The vision tower: `tessera export --synthetic VISION_PRESET --vision-patches N` and
   iree-compile of its vision.main under /usr/bin/time -v.
IREE runs on the local-task driver with --threads workers. Without --work, everything is written to a
temporary folder that is removed at the end.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from bundle_runner import backends  # noqa: E402
from bundle_runner.manifest import Manifest  # noqa: E402


def timed_compile(src, out, flags):
    """(seconds, peak RSS MiB) of iree-compile on one module, from /usr/bin/time -v."""
    tool = os.path.join(backends.VENV_BIN, "iree-compile")
    p = subprocess.run(["/usr/bin/time", "-v", tool, *flags, src, "-o", out], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"iree-compile {src} failed:\n{p.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    seconds = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))) if wall else float("nan")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    return seconds, rss


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return p.stdout + p.stderr


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera", default="build/release/tessera")
    ap.add_argument("--preset", default="qwen2.5-0.5b")
    ap.add_argument("-p", type=int, default=512)
    ap.add_argument("-n", type=int, default=128)
    ap.add_argument("--capacity", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--vision-preset", default="qwen2-vl-2b")
    ap.add_argument("--vision-patches", type=int, default=1024)
    ap.add_argument("--skip-vision", action="store_true")
    ap.add_argument("--skip-lm", action="store_true")
    ap.add_argument("--backend", default="iree", choices=["iree", "xla"], help="the runtime measured against Tessera")
    ap.add_argument("--work")
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="bundle-bench-")
    os.makedirs(work, exist_ok=True)
    flags = backends.iree_flags()
    figures = {"preset": a.preset, "dtype": "bf16", "prompt": a.p, "new": a.n, "capacity": a.capacity, "threads": a.threads,
               "iree_flags": flags}
    if not a.skip_lm:
        ckpt, bundle = os.path.join(work, "checkpoint"), os.path.join(work, "bundle")
        shutil.rmtree(bundle, ignore_errors=True)
        if not os.path.exists(os.path.join(ckpt, "config.json")):
            run([a.tessera, "bench", "--synthetic", a.preset, "--dtype", "bf16", "--write-checkpoint", ckpt])
        run([a.tessera, "export", "-m", ckpt, "-o", bundle, "--capacity", str(a.capacity), "--prefill-capacity", str(a.p)])
        man = Manifest(bundle)
        man.check_identity()
        record = {"compiler": "iree-compile", "target_backend": "llvm-cpu", "target_cpu": "host", "flags": flags,
                  "identity": man.identity, "modules": []}
        for entry, _, file in man.modules():
            src = os.path.join(bundle, file)
            seconds, rss = timed_compile(src, src[:-5] + ".vmfb", flags)
            figures[f"compile {entry.name}"] = {"seconds": round(seconds, 2), "peak_rss_mib": round(rss, 1)}
            record["modules"].append({"module": file, "vmfb": file[:-5] + ".vmfb"})
            print(f"iree-compile {entry.name}: {seconds:.2f} s, peak RSS {rss:.0f} MiB", flush=True)
        with open(os.path.join(bundle, "iree_compile.json"), "w") as f:
            json.dump(record, f)

        import iree.runtime as rt
        rt.flags.parse_flags(f"--task_topology_max_group_count={a.threads}")
        from bundle_runner.runner import Runner, Slots
        t = time.perf_counter()
        r = Runner(bundle, ckpt, backends.make(a.backend))
        name = "IREE llvm-cpu" if a.backend == "iree" else "XLA CPU"
        figures[f"{a.backend} open_s"] = round(time.perf_counter() - t, 2)
        figures[f"{a.backend} weights_upload_s"] = round(r.timings["upload_s"], 2)
        rng = np.random.default_rng(0)
        prompt = [int(x) for x in rng.integers(0, min(r.man.vocab, 150000), a.p)]
        Slots(r, 0).prefill(0, {"ids": prompt})  # warm-up
        slots = Slots(r, 0)
        t = time.perf_counter()
        logits = slots.prefill(0, {"ids": prompt})
        prefill_s = time.perf_counter() - t
        tok = int(np.argmax(logits))
        t = time.perf_counter()
        for _ in range(a.n):
            tok = int(np.argmax(slots.decode({0: tok})[0]))
        decode_s = time.perf_counter() - t
        figures[f"{a.backend} prefill tok/s"] = round(a.p / prefill_s, 1)
        figures[f"{a.backend} decode tok/s"] = round(a.n / decode_s, 2)
        print(f"{name}: prefill {a.p} tokens {a.p / prefill_s:.1f} tok/s, decode {a.n} tokens {a.n / decode_s:.2f} tok/s "
              f"(capacity {a.capacity}; weights uploaded once in {r.timings['upload_s']:.2f} s)", flush=True)
        del r, slots
        out = run([a.tessera, "bench", "--synthetic", a.preset, "--dtype", "bf16", "-p", str(a.p), "-n", str(a.n),
                   "--threads", str(a.threads)])
        figures["tessera bench"] = out.strip().splitlines()[-6:]
        print("tessera bench (engine, same run):\n  " + "\n  ".join(out.strip().splitlines()[-6:]), flush=True)
    if not a.skip_vision:
        vb = os.path.join(work, "vision-bundle")
        shutil.rmtree(vb, ignore_errors=True)
        try:
            run([a.tessera, "export", "--synthetic", a.vision_preset, "-o", vb, "--capacity", "64",
                 "--vision-patches", str(a.vision_patches)])
            vm = Manifest(vb)
            src = os.path.join(vb, vm.vision["buckets"][0]["entry"].file)
            seconds, rss = timed_compile(src, src[:-5] + ".vmfb", flags)
            figures[f"compile vision.main p{a.vision_patches}"] = {"seconds": round(seconds, 2), "peak_rss_mib": round(rss, 1)}
            print(f"iree-compile {a.vision_preset} vision.main at {a.vision_patches} patches: {seconds:.2f} s, peak RSS {rss:.0f} MiB")
        except SystemExit as e:
            figures["vision"] = f"not measured: {e}"
            print(f"vision tower not measured: {e}")
    print(json.dumps(figures, indent=1))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)  # the 1 GB checkpoint and the bundles
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
