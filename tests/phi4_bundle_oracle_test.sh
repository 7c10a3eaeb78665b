#!/usr/bin/env bash
# phi4_bundle_oracle_test.sh — Phi-4-multimodal through its bundle on the compiler oracles (issue 16):
# the fused q/k/v and gate/up parts and the stacked LoRA adapters held in the bundle's
# weights.safetensors, the adapter an argument of every entry. For phi4_mm-text (adapter none) and
# phi4_mm-audio (the speech adapter, its audio rows at the <|audio|> tokens through
# prefill_embeddings.main): IREE (llvm-cpu, compiled by tools/iree_compile.py) and XLA (CPU) give the
# reference's 16 greedy ids = `tessera run --bundle`'s, each entry's logits and K/V within the
# fixture tolerance (tools/bundle_runner check). Then the bad days on the runner: an adapter index
# past the manifest's names, a held weight missing from the bundle's file, each refused naming it.
ORACLE_IMPORTS="iree.runtime, iree.compiler, jax, ml_dtypes" ORACLE_NAME=phi4-bundle-oracle
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/iree_oracle_lib.sh"

for c in phi4_mm-text phi4_mm-audio; do
    bundle "$c" "$c" --capacity 64 --prefill-capacity 48
    grep -q '"names":	\["none", "speech", "vision"\]' "$work/$c/manifest.json"
    check "$c: the manifest names the adapters none, speech, vision by index" test $? -eq 0
    grep -q '"model.layers.0.self_attn.q_proj.weight"' "$work/$c/manifest.json"
    check "$c: bundle_weights holds the q/k/v parts of qkv_proj" test $? -eq 0
    run_case "$c" "$c"
    "$py" "$root/tools/bundle_runner" check "$work/$c" -m "$fix/$c/model" --fixture "$fix/$c" --backend xla \
        >"$work/$c.xla.log" 2>&1
    rc=$?
    cat "$work/$c.xla.log"
    check "$c: XLA generation and entries match (bundle_runner check exit $rc)" test $rc -eq 0
done
# The audio case again with no adapter: the speech adapter is what makes it the reference (a check
# that could not fail otherwise).
"$py" "$root/tools/bundle_runner" check "$work/phi4_mm-audio" -m "$fix/phi4_mm-audio/model" --fixture "$fix/phi4_mm-audio" \
    --backend xla --adapter none >"$work/none.log" 2>&1
check "phi4_mm-audio without the speech adapter is not the reference (runner exit $?)" grep -q "FAIL" "$work/none.log"

"$py" - "$root" "$work/phi4_mm-audio" "$fix/phi4_mm-audio/model" "$work/neg" >"$work/neg.log" 2>&1 <<'PY'
import os, shutil, sys
import numpy as np
root, bundle, model, work = sys.argv[1:5]
sys.path.insert(0, os.path.join(root, "tools"))
from bundle_runner import backends
from bundle_runner.manifest import ContractError
from bundle_runner.runner import Runner, Slots
from bundle_runner.safetensors import read_file
failed = 0
def expect(what, fn, words):
    global failed
    try:
        fn()
        print(f"FAIL {what}: accepted"); failed += 1
    except ContractError as e:
        ok = all(w in str(e) for w in words)
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {e}"); failed += not ok
r = Runner(bundle, model, backends.make("xla"))
s = Slots(r, 0)
tokens, length = np.zeros(48, np.int32), np.array(3, np.int32)
expect("adapter index 3 of 3 names", lambda: r.run("prefill.main", 0, [tokens, length, np.full(48, 3, np.int32)]),
       ["prefill.main", "adapters"])
expect("an adapter the bundle lacks", lambda: s.set_adapter(0, "music"), ["music"])
# A held weight (a LoRA stack) missing from weights.safetensors, the manifest and identity untouched.
shutil.copytree(bundle, work)
held = {k: np.asarray(v) for k, v in read_file(os.path.join(bundle, "weights.safetensors")).items()}
gone = "model.layers.1.mlp.down_proj.lora_B"
del held[gone]
import json, struct
header, data = {}, b""
for k, v in sorted(held.items()):
    assert v.dtype == np.float32
    b = np.ascontiguousarray(v).tobytes()
    header[k] = {"dtype": "F32", "shape": list(v.shape), "data_offsets": [len(data), len(data) + len(b)]}
    data += b
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
with open(os.path.join(work, "weights.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + data)
expect("a held LoRA weight missing from the bundle's file", lambda: Runner(work, model, backends.make("xla")), [gone, "weights.safetensors"])
sys.exit(1 if failed else 0)
PY
rc=$?
cat "$work/neg.log"
check "bad bundles and arguments refused naming what is wrong (exit $rc)" test $rc -eq 0
# The same missing weight through tessera's own runtime: refused at open, naming it.
"$bin" run --bundle "$work/neg" -m "$fix/phi4_mm-audio/model" -p hi --max-tokens 1 >/dev/null 2>"$work/neg.err"
check "tessera run --bundle refuses the bundle missing a held weight, naming it ($(cat "$work/neg.err"))" \
    grep -q "model.layers.1.mlp.down_proj.lora_B" "$work/neg.err"
finish
