#!/usr/bin/env bash
# phi4_bundle_oracle_test.sh — Phi-4-multimodal through its bundle on the compiler oracles (issue 16):
# the fused q/k/v and gate/up parts and the stacked LoRA adapters held in the bundle's
# weights.safetensors, the adapter an argument of every entry. For phi4_mm-text (adapter none) and
# phi4_mm-audio (the speech adapter, its audio rows at the <|audio|> tokens through
# prefill_embeddings.main): IREE (llvm-cpu, compiled by tools/iree_compile.py) and XLA (CPU) give the
# reference's 16 greedy ids = `tessera run --bundle`'s, each entry's logits and K/V within the
# fixture tolerance (tools/bundle_runner check). phi4_mm-image-small's and phi4_mm-image's vision.main
# (hd_views) and the vision adapter the same way; phi4_mm-mixed's clip through audio.main's `projector` 1 on XLA. Then the bad days on the runner: an adapter index
# past the manifest's names, a held weight missing from the bundle's file, each refused naming it.
ORACLE_IMPORTS="iree.runtime, iree.compiler, jax, ml_dtypes" ORACLE_NAME=phi4-bundle-oracle
. "${TS_ROOT:?TS_ROOT not set}/tests/oracle/iree_oracle_lib.sh"

for c in phi4_mm-text phi4_mm-audio; do
    extra=()
    [ "$c" = phi4_mm-audio ] && extra=(--audio-frames 104,200)
    bundle "$c" "$c" --capacity 64 --prefill-capacity 48 "${extra[@]}"
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
# Images (vision.main, layout hd_views: one module per view-count bucket, the engine's image graph):
# phi4_mm-image-small (3 views, 339 image tokens) in buckets of 3 and 5 views. Tessera's pixel values
# (tests/oracle/phi4_pixels.c; the runner checks them against the reference's sha256) and the crop
# masks of the reference; the vision adapter. IREE and XLA: the reference's 16 ids = tessera run
# --bundle's, vision.main's rows and the prefill within the fixture tolerance.
cmake --build "${TS_BUILD:?TS_BUILD not set}" --target phi4_pixels >"$work/pixels.build.log" 2>&1
check "tests/oracle/phi4_pixels builds" test $? -eq 0
# Fixture $c's image bundle: `tessera run --bundle` gives the reference's ids, and IREE and XLA run
# vision.main, the generation and every entry within the fixture's tolerance (bundle_runner check).
image_bundle_checks() {
    mapfile -d "" -t args < <(/usr/bin/python3 "$root/tests/oracle/bundle_fixture_args.py" "$fix/$c")
    ours=$("$bin" run --bundle "$work/$c" -m "$fix/$c/model" "${args[@]}" --json --ignore-eos --max-tokens 16 \
        --temperature 0 --repeat-penalty 1 2>"$work/$c.run.err" | ids)
    check "$c: tessera run --bundle --image gives the reference's ids ($ours)" \
        test "$ours" = "$(/usr/bin/python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["generated_ids"])))' "$fix/$c/reference.json")"
    for backend in iree xla; do
        "$py" "$root/tools/bundle_runner" check "$work/$c" -m "$fix/$c/model" --fixture "$fix/$c" --backend $backend \
            --pixel-values "$work/$c.f32" --tessera-ids "$ours" >"$work/$c.$backend.log" 2>&1
        rc=$?
        cat "$work/$c.$backend.log"
        check "$c: $backend vision.main, generation and entries match (bundle_runner check exit $rc)" test $rc -eq 0
    done
}
c=phi4_mm-image-small
"$TS_BUILD/phi4_pixels" "$fix/$c/chelsea_strip_1200x60.png" "$fix/$c/model" "$work/$c.f32"
check "$c: Tessera's pixel values written" test $? -eq 0
bundle "$c" "$c" --capacity 400 --prefill-capacity 384 --vision-patches 3072,5120
grep -q '"layout":	"hd_views"' "$work/$c/manifest.json" && grep -q '"view_patches":	1024' "$work/$c/manifest.json"
check "$c: the manifest's vision section is hd_views with 1024 patches a view" test $? -eq 0
image_bundle_checks
# phi4_mm-image: chelsea at dynamic_hd 36 (3 views, padded below; 689 image tokens, 701 prompt
# tokens) in one 3-view bucket, the same checks.
c=phi4_mm-image
"$TS_BUILD/phi4_pixels" "$fix/$c/chelsea.png" "$fix/$c/model" "$work/$c.f32"
check "$c: Tessera's pixel values written" test $? -eq 0
bundle "$c" "$c" --capacity 720 --prefill-capacity 704 --vision-patches 3072
image_bundle_checks
c=phi4_mm-image-small
# Pixel values that are not the reference's are refused before any module runs.
head -c 4096 "$work/$c.f32" >"$work/short.f32"
"$py" "$root/tools/bundle_runner" check "$work/$c" -m "$fix/$c/model" --fixture "$fix/$c" --backend xla \
    --pixel-values "$work/short.f32" >"$work/short.log" 2>&1
check "pixel values other than the reference's refused (sha256 named)" grep -q "sha256 differs" "$work/short.log"
# The runner's value checks of hd_views on the image's own arguments (host.phi4_hd_args), each
# malformed value refused naming it, as the C runtime refuses it (phi4_bundle_test).
"$py" - "$root" "$work/$c" "$fix/$c" "$work/$c.f32" >"$work/hdneg.log" 2>&1 <<'PY'
import os, sys
import numpy as np
root, bundle, case, pixels = sys.argv[1:5]
sys.path.insert(0, os.path.join(root, "tools"))
from bundle_runner import host
from bundle_runner.fixture import Fixture
from bundle_runner.manifest import ContractError, Manifest, check_arguments, check_vision_values
m, f = Manifest(bundle), Fixture(case, pixels)
failed = 0
e = m.vision["buckets"][1]["entry"]  # 5 views
px = np.zeros((5, 3, 448, 448), np.float32)
px[:3] = f.pixel_values
pos, kb, layout, tokens = host.phi4_hd_args(f.grids[0], f.grids[1], 448, 5)
print(f"{'ok  ' if tokens == 339 else 'FAIL'} the host's HD layout has the image's 339 tokens ({tokens})")
failed += tokens != 339
def expect(what, values, words):
    global failed
    try:
        check_arguments(e, values)
        check_vision_values(m, 1, values)
        print(f"FAIL {what}: accepted"); failed += 1
    except ContractError as err:
        ok = all(w in str(err) for w in words)
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {err}"); failed += not ok
check_vision_values(m, 1, [px, pos, kb, layout])
expect("key_bias of 3 views in a 5-view bucket", [px, pos, kb[:3], layout], ["key_bias"])
bad = kb.copy(); bad[4] = -np.inf
expect("a view whose every key is masked", [px, pos, bad, layout], ["key_bias masks every patch of view 4"])
bad = layout.copy(); bad[7] = 5 * 256 + 2
expect("a layout index past the pooled table", [px, pos, kb, bad], ["layout"])
bad = pos.copy(); bad[0, 9] = 1024
expect("a position past the table", [px, bad, kb, layout], ["positions"])
sys.exit(1 if failed else 0)
PY
rc=$?
cat "$work/hdneg.log"
check "hd_views: the runner's layout has the image's tokens and refuses malformed arguments by name (exit $rc)" test $rc -eq 0

# The official StableHLO parser and verifier on every module (lora_linear composites, audio.main).
"$py" "$root/tools/stablehlo_check.py" "$work"/phi4_mm-audio/c64/*.mlir "$work"/phi4_mm-audio/audio/*.mlir \
    "$work"/phi4_mm-image-small/vision/*.mlir >"$work/shlo.log" 2>&1
rc=$?
tail -1 "$work/shlo.log"
check "the official StableHLO bindings parse, verify and round-trip the Phi-4 modules (exit $rc)" test $rc -eq 0
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
# audio.main's 200-frame bucket: the 98-frame clip padded by 102 frames gives its own 13 rows.
ref = read_file(os.path.join(os.path.dirname(model), "reference.safetensors"))
feats, want = np.asarray(ref["audio_input_features"][0]), np.asarray(ref["audio_embeds_speech"][0])
big = r.man.audio["buckets"][1]
x = np.zeros((big["frames"], feats.shape[1]), np.float32)
x[:len(feats)] = feats
rows = r.backend.host(r.backend.call(r.keys[id(big["entry"])], r.audio_weights + [x, np.array(len(feats), np.int32), np.array(0, np.int32)])[0])
d, tol = float(np.abs(rows[:len(want)] - want).max()), 1e-4 * max(1.0, float(np.abs(want).max()))
pad = float(np.abs(rows[len(want):]).max())
print(f"{'ok  ' if d <= tol and pad == 0 else 'FAIL'} audio.main 200-frame bucket (XLA): 13 rows max |diff| {d:.3g} (tolerance {tol:.3g}), "
      f"{len(rows) - len(want)} padding rows max |value| {pad}")
failed += not (d <= tol and pad == 0)
from bundle_runner.manifest import check_arguments
expect("audio.main fed the 104-frame bucket's features in the 200-frame bucket",
       lambda: check_arguments(big["entry"], [x[:104], np.array(98, np.int32), np.array(0, np.int32)]), ["audio_features"])
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

# Image + audio (phi4_mm-mixed): XLA runs audio.main with projector 1 (vision_speech) from the
# reference's features within the fixture tolerance of audio_embeds_vision_speech; projector 0 not.
"$bin" export -m "$fix/phi4_mm-mixed/model" -o "$work/mixed" --capacity 64 --prefill-capacity 48 --audio-frames 104 2>"$work/mixed.err"
check "phi4_mm-mixed: export --audio-frames exits 0" test $? -eq 0
"$py" - "$root" "$work/mixed" "$fix/phi4_mm-mixed" >"$work/mixed.log" 2>&1 <<'PY'
import os, sys
import numpy as np
root, bundle, case = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "tools"))
from bundle_runner import backends
from bundle_runner.runner import Runner
from bundle_runner.safetensors import read_file
r = Runner(bundle, os.path.join(case, "model"), backends.make("xla"))
ref = read_file(os.path.join(case, "reference.safetensors"))
feats, want = np.asarray(ref["audio_input_features"][0]), np.asarray(ref["audio_embeds_vision_speech"][0])
tol = 1e-4 * max(1.0, float(np.abs(want).max()))
vs = float(np.abs(r.encode_audio(feats, "vision_speech") - want).max())
sp = float(np.abs(r.encode_audio(feats, "speech") - want).max())
ok = r.man.audio["projectors"] == ["speech", "vision_speech"] and vs <= tol < sp
print(f"{'ok  ' if ok else 'FAIL'} audio.main (XLA) vs audio_embeds_vision_speech: projector 1 max |diff| {vs:.3g} "
      f"(tolerance {tol:.3g}), projector 0 {sp:.3g}")
sys.exit(0 if ok else 1)
PY
rc=$?
cat "$work/mixed.log"
check "phi4_mm-mixed: XLA audio.main with projector 1 is the reference's vision_speech rows, projector 0 not (exit $rc)" test $rc -eq 0
finish
