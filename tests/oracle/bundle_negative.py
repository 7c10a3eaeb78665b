"""bundle_negative.py — the bad days of a compiled bundle (issue 11): each must be refused with a
message naming what is wrong.

  python tests/oracle/bundle_negative.py BUNDLE MODEL WORK [QUANTIZED_BUNDLE]

BUNDLE is a text bundle (Qwen2 fixture) already compiled by tools/iree_compile.py; WORK a
scratch folder. Checks, printed ok/FAIL, exit 1 on any FAIL:
  - a module edited without a new identity: the runner and iree_compile.py refuse it before
    compiling ("identity differs"), no .vmfb is written;
  - decode.main with a wrong result shape (logits [B, V-1]), identity re-stamped so only the
    contract check can see it: the runner names "result 0 (logits)", iree_compile.py refuses it,
    and iree-compile itself rejects the module (return type ≠ function result type);
  - decode.main with its rope_delta argument dropped (identity re-stamped): the runner names the
    missing argument, iree-compile rejects the module;
  - .vmfb files compiled from another bundle identity are refused;
  - calls that break the manifest's descriptors or ranges are refused before the call, naming
    the argument: wrong dtype, wrong shape, token id past the vocabulary, cache_len past the
    capacity, a NaN embedding, a prompt longer than the prefill capacity;
  - with QUANTIZED_BUNDLE (`tessera export --quantize q8` of MODEL): a manifest claiming another
    block size or bit width (re-stamped), and a weight file cut short, refused naming the matrix.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "tools"))

import numpy as np  # noqa: E402

from bundle_runner import backends  # noqa: E402
from bundle_runner.manifest import ContractError, Manifest  # noqa: E402
from bundle_runner.runner import Runner, Slots  # noqa: E402

bundle, model, work = sys.argv[1:4]
failed = 0


def check(ok, what):
    global failed
    failed += not ok
    print(("ok   " if ok else "FAIL ") + what)


def refusal(fn):
    try:
        fn()
    except ContractError as e:
        return str(e)
    return None


def copy(name):
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(bundle, d, ignore=shutil.ignore_patterns("*.vmfb", "iree_compile.json"))
    return d


def restamp(d):
    """A new identity over the edited content, as a consistent (but wrong) exporter would write."""
    m = Manifest(d)
    h = hashlib.sha256(m.canonical().encode())
    for t in m.module_texts():
        h.update(b"\0")
        h.update(t.split(b"\0", 1)[0])
    path = os.path.join(d, "manifest.json")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace(m.identity, h.hexdigest()))


def edit_decode(d, fn):
    man = Manifest(d)
    path = os.path.join(d, man.buckets[0]["entries"]["decode.main"].file)
    with open(path) as f:
        lines = f.read().split("\n")
    at = next(i for i, l in enumerate(lines) if "func.func public @main(" in l)
    lines[at] = fn(lines[at])
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def compile_tool(d):
    return subprocess.run([sys.executable, os.path.join(root, "tools", "iree_compile.py"), d], capture_output=True, text=True)


def raw_compile(src):
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), "iree-compile"), *backends.iree_flags(), src,
                           "-o", os.path.join(work, "x.vmfb")], capture_output=True, text=True)


def runner(d):
    return Runner(d, model, backends.make("iree"), work_dir=work)


# 1. identity
d = copy("edited")
with open(os.path.join(d, Manifest(d).buckets[0]["entries"]["decode.main"].file), "a") as f:
    f.write("// an edit after export\n")
msg = refusal(lambda: runner(d))
check(msg is not None and "identity differs" in msg and "before compiling" in msg, f"edited module, runner: {msg}")
p = compile_tool(d)
check(p.returncode == 1 and "identity differs" in p.stderr, f"edited module, iree_compile.py exits {p.returncode}: {p.stderr.strip()}")
vmfbs = [f for _, _, fs in os.walk(d) for f in fs if f.endswith(".vmfb")]
check(not vmfbs, f"nothing compiled for a bundle with the wrong identity ({len(vmfbs)} .vmfb)")

# 2. wrong result shape
d = copy("result")
man = Manifest(d)
B, V = man.buckets[0]["slots"], man.vocab
src = edit_decode(d, lambda l: re.sub(r"\) -> \(tensor<%dx%dxf32>" % (B, V), ") -> (tensor<%dx%dxf32>" % (B, V - 1), l, count=1))
restamp(d)
msg = refusal(lambda: runner(d))
check(msg is not None and "decode.main result 0 (logits)" in msg and f"F32[{B}, {V - 1}]" in msg, f"wrong result shape, runner: {msg}")
p = compile_tool(d)
check(p.returncode == 1 and "result 0 (logits)" in p.stderr, f"wrong result shape, iree_compile.py exits {p.returncode}: {p.stderr.strip()}")
p = raw_compile(src)
err = [l for l in p.stderr.splitlines() if "error" in l][:1]
check(p.returncode != 0 and "result type" in p.stderr, f"wrong result shape, iree-compile exits {p.returncode}: {err}")

# 3. a dropped argument
d = copy("dropped")
src = edit_decode(d, lambda l: re.sub(r', %arg\d+: tensor<[^>]*> \{tessera\.name = "rope_delta"[^}]*\}', "", l, count=1))
restamp(d)
msg = refusal(lambda: runner(d))
check(msg is not None and "missing: rope_delta" in msg, f"dropped argument, runner: {msg}")
p = raw_compile(src)
err = [l for l in p.stderr.splitlines() if "error" in l][:1]
check(p.returncode != 0 and "error" in p.stderr, f"dropped argument, iree-compile exits {p.returncode}: {err}")

# 4. .vmfb files of another identity
record = os.path.join(bundle, "iree_compile.json")
d = copy("stale")
for dirpath, _, files in os.walk(bundle):
    for f in files:
        if f.endswith(".vmfb"):
            rel = os.path.relpath(os.path.join(dirpath, f), bundle)
            shutil.copy(os.path.join(dirpath, f), os.path.join(d, rel))
with open(record) as f:
    r = json.load(f)
r["identity"] = "0" * 64
with open(os.path.join(d, "iree_compile.json"), "w") as f:
    json.dump(r, f)
msg = refusal(lambda: runner(d))
check(msg is not None and "compiled from bundle identity 0000000000000000" in msg, f"stale .vmfb files: {msg}")

# 5. calls against the descriptors and ranges
r = runner(bundle)
b = r.man.buckets[0]
lp, C, B = b["prefill_capacity"], b["capacity"], b["slots"]
tokens = np.zeros(lp, np.int32)
kv = np.zeros((B, r.man.layers, C, r.man.kv_heads, r.man.head_dim), np.float32)
i32 = lambda *v: np.array(v, np.int32)  # noqa: E731
cases = [
    ("tokens as int64", "prefill.main", [tokens.astype(np.int64), np.array(3, np.int32)], "tokens has dtype int64, expected I32"),
    ("tokens of the wrong shape", "prefill.main", [tokens[:-1], np.array(3, np.int32)], f"tokens has shape [{lp - 1}], expected [{lp}]"),
    ("a token past the vocabulary", "prefill.main", [np.full(lp, r.man.vocab, np.int32), np.array(3, np.int32)],
     f"tokens[0] = {r.man.vocab} is outside 0..{r.man.vocab - 1}"),
    ("length 0", "prefill.main", [tokens, np.array(0, np.int32)], f"length[0] = 0 is outside 1..{lp}"),
    ("cache_len past the capacity", "decode.main", [i32(*[1] * B), i32(*[1] * B), i32(*[0] * B), i32(*([C] + [0] * (B - 1))), kv, kv],
     f"cache_len[0] = {C} is outside 0..{C - 1}"),
    ("a missing argument", "decode.main", [i32(*[1] * B)], "1 arguments given, 6 expected"),
    ("a NaN embedding", "prefill_embeddings.main",
     [np.full((lp, r.man.hidden), np.nan, np.float32), np.zeros(lp, np.int32), np.zeros((lp, lp), np.float32), np.array(2, np.int32)],
     "embeddings[0] is NaN"),
]
for what, entry, args, want in cases:
    msg = refusal(lambda: r.run(entry, 0, args))
    check(msg is not None and want in msg and entry in msg, f"{what}: {msg}")
msg = refusal(lambda: Slots(r, 0).prefill(0, {"ids": [1] * (lp + 1)}))
check(msg is not None and f"prefill capacity is {lp}" in msg, f"a prompt past the prefill capacity: {msg}")
msg = refusal(lambda: r.man.bucket_for(C, 1))
check(msg is not None and "do not fit the largest bucket" in msg, f"admission: {msg}")

# 6. a quantized bundle (the fifth argument: `tessera export --quantize q8` of the same model)
# whose manifest claims another block or bits, or whose weight file is cut short: refused at
# open, before compiling, naming the matrix and its tensor.
if len(sys.argv) > 4:
    quantized = sys.argv[4]
    q_proj = "model.layers.0.self_attn.q_proj.weight"
    for name, edit, want in [
        ("qblock", ('"block":\t32', '"block":\t64'), f"quantization: {q_proj}: {q_proj}:q8.scale must be F16[64, 1], the weight "
                                                     "schema declares F16[64, 2]"),
        ("qbits", ('"bits":\t8', '"bits":\t4'), f"quantization: {q_proj}: {q_proj}:q4 must be U8[64, 32], the weight schema declares nothing"),
        ("qshort", None, f"quantization: quantized.safetensors: {q_proj.replace('0.self_attn.q_proj', '2.self_attn.v_proj')}:q8.scale: "
                         "data_offsets"),
    ]:
        d = os.path.join(work, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(quantized, d, ignore=shutil.ignore_patterns("*.vmfb", "iree_compile.json"))
        if edit:
            path = os.path.join(d, "manifest.json")
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace(edit[0], edit[1], 1))
            restamp(d)
        else:
            path = os.path.join(d, "quantized.safetensors")
            os.truncate(path, os.path.getsize(path) - 100)
        msg = refusal(lambda: runner(d))
        check(msg is not None and want in msg, f"quantized bundle, {name}: {msg}")

print(f"bundle_negative: {'FAILED' if failed else 'all passed'} ({failed} failed)")
sys.exit(1 if failed else 0)
