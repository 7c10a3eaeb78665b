"""runner.py — a bundle run end to end on a compiler's runtime (IREE or XLA): open, slots,
images, generation.

  Runner(bundle_dir, model_dir, backend)   refuses a bundle whose identity does not match before
        compiling anything, then the checkpoint whose config.json is not the bundle's
        (config_digest), then any weight not as the schema declares; uploads the weights once;
        holds every module's signature to the manifest (the text before compiling, and IREE's
        compiled declaration after); compiles or loads each entry.
  Runner.run(entry, bucket, values)        every argument checked against the manifest's
        descriptors (dtype, shape) and its value ranges before the call.
  Slots(runner, bucket)                    one bucket's decode slots: empty → prefill (prefill.main,
        prefill_embeddings.main, or prefill_embeddings_deepstack.main) → holds a sequence →
        decode (decode.main over every slot, ragged cache_len; an empty slot is fed token 0 at
        position 0 on cache_len 0: its row 0 is scratch, overwritten by its next prefill, which
        replaces the slot's whole cache) → release → empty. Every slot that holds a sequence
        takes part in each decode step.
  Runner.encode_images(...)                vision.main per patch bucket (the smallest that holds
        every row; padding rows in segment -1, Qwen3-VL's padding taps the filler 0, 0) or LLaVA's
        fixed-image module once per image.
  Runner.generate(ids, images, max_new)    greedy generation as `tessera run --bundle` does it:
        admission to the smallest bucket, slot 0, the prompt through the entry its inputs need.
"""
import hashlib
import json
import os
import time

import numpy as np

from . import host
from .manifest import Manifest, ContractError, check_arguments, check_signature, check_values, check_vision_values, parse_signature
from .safetensors import SafetensorsError, dtype_name, read_checkpoint, read_file


class Runner:
    def __init__(self, bundle_dir, model_dir, backend, work_dir=None, use_vmfb=True, log=None):
        self.man = man = Manifest(bundle_dir)
        self.backend = backend
        self.log = log or (lambda *_: None)
        texts = man.check_identity()  # before any compile
        with open(os.path.join(model_dir, "config.json"), "rb") as f:
            raw = f.read()
        digest = hashlib.sha256(raw).hexdigest()
        if digest != man.json["config_digest"]:
            raise ContractError(f"config_digest differs: the bundle was made for {man.json['config_digest'][:16]}\u2026, "
                                f"{model_dir}/config.json is {digest[:16]}\u2026")
        self.config = json.loads(raw)
        self.image_token_id = self.config.get("image_token_id", self.config.get("image_token_index",
                                              (self.config.get("vision_config") or {}).get("image_token_id")))
        self.audio_token_id = (self.config.get("audio_config") or {}).get("audio_token_id", self.config.get("audio_token_id"))
        # Qwen2_5_VLVisionConfig.tokens_per_second (default 4) scales the temporal M-RoPE ids, as
        # the family's positions hook does (src/models/qwen2_vl/qwen2_vl.c); 0: unscaled.
        vision_config = self.config.get("vision_config") or {}
        self.tokens_per_second = (int(vision_config.get("tokens_per_second", 4))
                                  if self.config.get("model_type") == "qwen2_5_vl" else 0)
        tensors = read_checkpoint(model_dir)
        tensors.update(self._quantized(bundle_dir))
        tensors.update(self._held(bundle_dir))
        self.timings = {"upload_s": 0.0, "compile_s": 0.0}
        t = time.perf_counter()
        self.weights = self._upload(tensors, man.weights, "weights")
        self.vision_weights = self._upload(tensors, man.vision["weights"], "vision.weights") if man.vision else []
        self.audio_weights = self._upload(tensors, man.audio["weights"], "audio.weights") if man.audio else []
        self.timings["upload_s"] = time.perf_counter() - t
        self.embed_table = next(np.asarray(tensors[d.name], np.float32) for d in man.weights
                                if d.name.endswith("embed_tokens.weight"))
        if man.embed_scale:  # in f32, as ts_model_embed_tokens scales
            self.embed_table = self.embed_table * np.float32(man.embed_scale)
        compiled = self._compile_record(bundle_dir) if use_vmfb and backend.name == "iree" else None
        self.keys = {}
        for (entry, weights, file), text in zip(man.modules(), texts):
            text = text.decode("utf-8")
            args, results = parse_signature(text)
            check_signature(entry, weights, args, results, file)  # the text, before compiling
            vmfb = os.path.join(bundle_dir, file[:-5] + ".vmfb") if compiled else None
            t = time.perf_counter()
            declaration = backend.load(file, text, vmfb, work_dir)
            self.timings["compile_s"] += time.perf_counter() - t
            if declaration:  # IREE: the compiled function's own signature
                args, results = parse_signature(declaration)
                check_signature(entry, weights, args, results, file[:-5] + ".vmfb", signless=True)
            self.keys[id(entry)] = file
            self.log(f"{backend.name}: {file} ready")

    def _compile_record(self, bundle_dir):
        """The .vmfb files of tools/iree_compile.py when they were compiled from this bundle."""
        path = os.path.join(bundle_dir, "iree_compile.json")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            record = json.load(f)
        if record.get("identity") != self.man.identity:
            raise ContractError(f"{path}: compiled from bundle identity {str(record.get('identity'))[:16]}\u2026, "
                                f"this bundle is {self.man.identity[:16]}\u2026 (compile it again)")
        return record

    def _quantized(self, bundle_dir):
        """A quantized bundle's own tensors, each as the manifest's quantization says (dtype,
        shape, so byte count), the matrix named on a mismatch; the schema must declare them so."""
        want = self.man.quantized_tensors()
        if not want:
            return {}
        q = self.man.quant
        path = os.path.join(bundle_dir, q["file"])
        if "/" in q["file"] or ".." in q["file"] or not os.path.exists(path):
            raise ContractError(f"quantization: {q['file']}: missing from the bundle")
        try:
            found = read_file(path)
        except SafetensorsError as e:
            raise ContractError(f"quantization: {e}") from None
        # The language model's schema and vision.main's: a --quantize export quantizes both.
        schema = {d.name: d for d in self.man.weights + (self.man.vision["weights"] if self.man.vision else [])}
        for name, (dtype, shape) in want.items():
            matrix = name.rsplit(":", 1)[0]
            d, t = schema.get(name), found.get(name)
            if d is None or d.dtype != dtype or d.shape != shape:
                raise ContractError(f"quantization: {matrix}: {name} must be {dtype}{list(shape)}, the weight schema declares "
                                    f"{'nothing' if d is None else d.dtype + str(list(d.shape))}")
            if t is None:
                raise ContractError(f"quantization: {matrix}: {name} is not in {q['file']}")
            got = dtype_name(t.dtype)
            if got != dtype or tuple(t.shape) != shape:
                raise ContractError(f"quantization: {matrix}: {name} in {q['file']} is {got}{list(t.shape)}, "
                                    f"the manifest's matrix needs {dtype}{list(shape)}")
            # a gather clamps: a repeated or out-of-range channel would run, wrongly
            if name.endswith(".perm") and sorted(t.tolist()) != list(range(shape[0])):
                raise ContractError(f"quantization: {matrix}: {name} in {q['file']} is not a permutation of 0 … {shape[0] - 1}")
        return {k: v for k, v in found.items() if k in want}

    def _held(self, bundle_dir):
        """The weights the bundle holds itself (bundle_weights: a family's derived parts, LoRA
        stacks), each named by the schema and present in the file; dtype and shape are then held
        to the schema like the checkpoint's."""
        h = self.man.held
        if h is None:
            return {}
        path = os.path.join(bundle_dir, h["file"])
        if "/" in h["file"] or ".." in h["file"] or not os.path.exists(path):
            raise ContractError(f"bundle_weights: {h['file']}: missing from the bundle")
        try:
            found = read_file(path)
        except SafetensorsError as e:
            raise ContractError(f"bundle_weights: {e}") from None
        schema = {d.name for d in self.man.weights + (self.man.vision["weights"] if self.man.vision else [])}
        for i, name in enumerate(h["tensors"]):
            if name not in schema:
                raise ContractError(f"bundle_weights.tensors[{i}] {name}: no module takes it (not in the weight schema)")
            if name not in found:
                raise ContractError(f"bundle_weights: {name} is not in the bundle's {h['file']}")
        return {k: v for k, v in found.items() if k in h["tensors"]}

    def _upload(self, tensors, schema, where):
        out = []
        for i, d in enumerate(schema):
            t = tensors.get(d.name)
            if t is None:
                raise ContractError(f"weight schema: {where}[{i}] {d.name}: not in the checkpoint")
            dtype = dtype_name(t.dtype)
            if dtype != d.dtype or t.size != int(np.prod(d.shape, dtype=np.int64)):
                raise ContractError(f"weight schema: {where}[{i}] {d.name}: declared {d.dtype}{list(d.shape)}, "
                                    f"the checkpoint has {dtype}{list(t.shape)}")
            out.append(self.backend.upload(np.asarray(t).reshape(d.shape)))
        return out

    # ------------------------------------------------------------ calls

    def run(self, entry, bucket, values):
        """An entry of a bucket with validated arguments; device results."""
        e = self.man.buckets[bucket]["entries"][entry]
        check_arguments(e, values)  # numpy or device arrays: both carry dtype and shape
        # Value ranges of the host arguments; device-resident state (decode's K/V) has none.
        check_values(self.man, bucket, e, [v if isinstance(v, np.ndarray) else None for v in values])
        return self.backend.call(self.keys[id(e)], self.weights + list(values))

    def run_vision(self, bucket, values):
        e = self.man.vision["buckets"][bucket]["entry"]
        check_arguments(e, values)
        if self.man.vision["layout"] != "fixed_image":
            check_vision_values(self.man, bucket, values)
        elif np.isnan(values[0]).any():
            raise ContractError("vision.main: pixel_values has a NaN")
        return self.backend.call(self.keys[id(e)], self.vision_weights + list(values))

    def encode_audio(self, features, projector="speech"):
        """A clip's audio rows [tokens, hidden] from its log-mel features [frames, mels] through
        audio.main: the smallest duration bucket that holds it, zero-padded, the clip's frame count
        as `frames` and the named projector's index as `projector` (bundle_audio.c; Phi-4:
        vision_speech for a prompt with an image); the clip's rows are the first ceil(frames / reduction), the
        reduction being the bucket's frames over its rows."""
        a = self.man.audio
        if a is None:
            raise ContractError("audio: this bundle has no audio.main entries (export it with --audio-frames)")
        frames = len(features)
        bucket = next((i for i, b in enumerate(a["buckets"]) if b["frames"] >= frames), None)
        if bucket is None:
            raise ContractError(f"audio: a clip of {frames} feature frames exceeds the largest audio bucket "
                                f"({a['buckets'][-1]['frames']} frames)")
        b = a["buckets"][bucket]
        e = b["entry"]
        x = np.zeros(e.inputs[0].shape, np.float32)
        x[:frames] = features
        count = np.array(frames, np.int32)
        if projector not in a["projectors"]:
            raise ContractError(f"audio.main: projector {projector!r} is not one of {a['projectors']}")
        which = np.array(a["projectors"].index(projector), np.int32)
        check_arguments(e, [x, count, which])
        if not 1 <= frames <= b["frames"] or not np.isfinite(x).all():
            raise ContractError(f"audio.main: frames = {frames} outside 1..{b['frames']} or a non-finite feature")
        rows = self.backend.host(self.backend.call(self.keys[id(e)], self.audio_weights + [x, count, which])[0])
        reduction = -(-b["frames"] // e.results[0].shape[0])
        return rows[:-(-frames // reduction)]

    # ------------------------------------------------------------ images

    def encode_images(self, pixel_values, grids):
        """Image rows [tokens, hidden] in prompt order, and Qwen3-VL's DeepStack rows
        [K, tokens, hidden] (else None). pixel_values: Qwen-VL patch rows of every image one after
        another with grids [(t, h, w)]; LLaVA [images, C, S, S]."""
        v = self.man.vision
        if v is None:
            raise ContractError("vision: this bundle has no vision.main entries (export it with vision buckets)")
        if v["layout"] == "fixed_image":
            rows = [self.backend.host(self.run_vision(0, [np.ascontiguousarray(img, np.float32)])[0]) for img in pixel_values]
            return np.concatenate(rows), None
        if v["layout"] == "hd_views":
            return self.encode_hd_image(pixel_values, grids), None
        merge, rows = v["merge_size"], len(pixel_values)
        bucket = next((i for i, b in enumerate(v["buckets"]) if b["patches"] >= rows), None)
        if bucket is None:
            raise ContractError(f"vision: {rows} patches do not fit the bundle's vision buckets "
                                f"({', '.join(str(b['patches']) for b in v['buckets'])})")
        n = v["buckets"][bucket]["patches"]
        pixels = np.zeros((n, pixel_values.shape[1]), np.float32)
        pixels[:rows] = pixel_values
        positions, segments = np.zeros((n, 2), np.int32), np.full(n, -1, np.int32)
        p, s = host.vision_layout(grids, merge)
        positions[:rows], segments[:rows] = p, s
        count = np.array(rows, np.int32)
        layout = v["layout"]
        if layout == "patch_rows_deepstack":
            index, weight = host.qwen3_pos_taps(grids, merge, v["position_embeddings"], n)
            outs = self.run_vision(bucket, [pixels, positions, segments, index, weight, count])
        elif layout == "patch_rows_windowed":
            units = n // (merge * merge)
            windows, window_index = np.full(n, -1, np.int32), np.arange(units, dtype=np.int32)
            p, s, wi, ui = host.window_layout(grids, merge, v["window"])
            positions[:rows], segments[:rows], windows[:rows], window_index[:len(ui)] = p, s, wi, ui
            outs = self.run_vision(bucket, [pixels, positions, segments, windows, window_index, count])
        else:
            outs = self.run_vision(bucket, [pixels, positions, segments, count])
        taps = layout == "patch_rows_deepstack"
        tokens = rows // (merge * merge)
        image = self.backend.host(outs[0])[:tokens]
        deepstack = self.backend.host(outs[1])[:, :tokens] if taps else None
        return image, deepstack

    def encode_hd_image(self, pixel_values, hd):
        """hd_views: one HD image's views [v, 3, S, S] in the smallest bucket of V >= v views
        (padding views zero), hd = (crop masks [v, side, side], canvas (h, w)); its token rows."""
        v = self.man.vision
        per, views = v["view_patches"], len(pixel_values)
        bucket = next((i for i, b in enumerate(v["buckets"]) if b["patches"] >= views * per), None)
        if bucket is None:
            raise ContractError(f"vision: {views * per} patches do not fit the bundle's vision buckets "
                                f"({', '.join(str(b['patches']) for b in v['buckets'])})")
        V = v["buckets"][bucket]["patches"] // per
        pixels = np.zeros((V,) + tuple(pixel_values.shape[1:]), np.float32)
        pixels[:views] = pixel_values
        mask, canvas = hd
        positions, key_bias, layout, tokens = host.phi4_hd_args(mask, canvas, pixel_values.shape[-1], V)
        return self.backend.host(self.run_vision(bucket, [pixels, positions, key_bias, layout])[0])[:tokens]

    # ------------------------------------------------------------ generation

    def prompt_inputs(self, ids, pixel_values=None, grids=None, audio_rows=None):
        """What a prompt takes to prefill: ("tokens", None) for text through prefill.main, or the
        merged embeddings, positions, rope delta and DeepStack payload; an audio prompt its audio
        rows at the audio tokens (Phi-4-multimodal: 1-D positions, no side inputs)."""
        man = self.man
        if audio_rows is not None:
            emb = host.merge_embeddings(self.embed_table, ids, self.audio_token_id, audio_rows)
            return {"ids": list(ids), "embeddings": emb, "positions": np.arange(len(ids), dtype=np.int32)[None], "delta": 0}
        if pixel_values is None:
            return {"ids": list(ids)}
        image, deepstack = self.encode_images(pixel_values, grids)
        emb = host.merge_embeddings(self.embed_table, ids, self.image_token_id, image)
        if man.rows == 3:
            positions, delta = host.mrope_index(ids, self.image_token_id, grids, man.vision["merge_size"],
                                                self.tokens_per_second)
        else:
            positions, delta = np.arange(len(ids), dtype=np.int32)[None], 0
        visual = np.flatnonzero(np.asarray(ids) == self.image_token_id).astype(np.int32)
        return {"ids": list(ids), "embeddings": emb, "positions": positions, "delta": int(delta),
                "deepstack": deepstack, "visual": visual}

    def generate(self, ids, pixel_values=None, grids=None, max_new=16, eos=(), audio_rows=None, adapter="none"):
        """Greedy tokens and the logits each was chosen from ([max_new, V]); adapter: the LoRA
        adapter (a name of the manifest's adapters) the request runs with."""
        inputs = self.prompt_inputs(ids, pixel_values, grids, audio_rows)
        bucket = self.man.bucket_for(len(ids), max_new)
        slots = Slots(self, bucket)
        slots.set_adapter(0, adapter)
        logits = slots.prefill(0, inputs)
        tokens, rows = [], []
        for step in range(max_new):
            masked = logits.copy()
            masked[list(eos)] = -np.inf
            tok = int(np.argmax(masked))
            tokens.append(tok)
            rows.append(logits)
            if step + 1 < max_new:
                logits = slots.decode({0: tok})[0]
        return tokens, np.stack(rows)


class Slots:
    def __init__(self, runner, bucket):
        self.r, self.bucket = runner, bucket
        b = runner.man.buckets[bucket]
        m = runner.man
        self.n, self.capacity, self.lp = b["slots"], b["capacity"], b["prefill_capacity"]
        shape = (self.n, m.layers, self.capacity, m.kv_heads, m.head_dim)
        self.k, self.v = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
        self.length, self.delta = [0] * self.n, [0] * self.n
        self.adapter = [0] * self.n  # each slot's LoRA adapter index (manifest adapters)

    def set_adapter(self, slot, name):
        """The adapter slot's rows use from its next prefill (bundle_slots.c's rule)."""
        names = self.r.man.adapters
        if name not in (names or ["none"]):
            raise ContractError(f"adapter {name!r}: the bundle serves {names or ['none']}")
        if self.length[slot]:
            raise ContractError(f"slot {slot} holds a sequence; release it first")
        self.adapter[slot] = (names or ["none"]).index(name)

    def _adapters(self, slot, rows, holding=None):
        """The `adapters` argument (LoRA bundles only): a prefill's slot adapter on its Lp rows, or
        each slot's on its decode rows (rows None: decode.main [slots]; K: decode_k.main [slots, K];
        0 for slots holding nothing)."""
        if not self.r.man.adapters:
            return []
        if holding is None:
            return [np.full(rows, self.adapter[slot], np.int32)]
        per = np.array([self.adapter[i] if i in holding else 0 for i in range(self.n)], np.int32)
        return [per if rows is None else np.repeat(per[:, None], rows, axis=1)]

    def _to_host(self):
        if not isinstance(self.k, np.ndarray):
            self.k, self.v = np.array(self.r.backend.host(self.k)), np.array(self.r.backend.host(self.v))

    def prefill(self, slot, inputs):
        """A prompt into an empty slot; its last logits."""
        r, man = self.r, self.r.man
        n = len(inputs["ids"])
        if not 0 <= slot < self.n or self.length[slot]:
            raise ContractError(f"slot {slot}: outside 0..{self.n - 1} or already holding a sequence")
        if not 1 <= n <= self.lp:
            raise ContractError(f"{n} prompt tokens: the prefill capacity is {self.lp}")
        length = np.array(n, np.int32)
        if "embeddings" not in inputs:
            tokens = np.zeros(self.lp, np.int32)
            tokens[:n] = inputs["ids"]
            outs = r.run("prefill.main", self.bucket, [tokens, length] + self._adapters(slot, self.lp))
            delta = 0
        else:
            emb = np.zeros((self.lp, man.hidden), np.float32)
            emb[:n] = inputs["embeddings"]
            pos = np.zeros((man.rows, self.lp), np.int32)
            pos[:, :n] = inputs["positions"]
            bias = (host.image_block_bias(inputs["ids"], r.image_token_id, self.lp) if man.image_blocks
                    else host.causal_bias(self.lp))
            args = [emb, pos if man.rows == 3 else pos[0], bias, length] + self._adapters(slot, self.lp)
            entry = "prefill_embeddings.main"
            if man.deepstack_layers:
                nv, ds, visual = man.buckets[self.bucket]["visual_capacity"], inputs["deepstack"], inputs["visual"]
                if ds is None or len(ds) != len(man.deepstack_layers):
                    raise ContractError("prefill_embeddings_deepstack.main: the tower's DeepStack levels are not the entry's")
                vp, feats = np.zeros(nv, np.int32), np.zeros((len(ds), nv, man.hidden), np.float32)
                vp[:len(visual)], feats[:, :len(visual)] = visual, ds
                args += [vp, feats, np.array(len(visual), np.int32)]
                entry = "prefill_embeddings_deepstack.main"
            outs = r.run(entry, self.bucket, args)
            delta = inputs["delta"]
        self._to_host()
        self.k[slot], self.v[slot] = r.backend.host(outs[1]), r.backend.host(outs[2])
        self.length[slot], self.delta[slot] = n, delta
        return r.backend.host(outs[0])

    def decode(self, tokens):
        """One decode.main step: tokens {slot: id} for every slot that holds a sequence; the
        logits of those slots {slot: [V]}."""
        holding = {i for i in range(self.n) if self.length[i]}
        if set(tokens) != holding:
            raise ContractError(f"decode: slots {sorted(holding)} hold sequences, tokens given for {sorted(tokens)}")
        for i in holding:
            if self.length[i] >= self.capacity:
                raise ContractError(f"decode: slot {i} holds {self.length[i]} of {self.capacity} tokens: no room")
        man = self.r.man
        tok = np.array([tokens.get(i, 0) for i in range(self.n)], np.int32)
        cache_len = np.array(self.length, np.int32)
        positions = np.tile(cache_len, (man.rows, 1)) if man.rows == 3 else cache_len.copy()
        delta = np.array(self.delta, np.int32)
        outs = self.r.run("decode.main", self.bucket, [tok, positions, delta, cache_len] + self._adapters(None, None, holding)
                          + [self.k, self.v])
        self.k, self.v = outs[1], outs[2]  # stays on the device; the inputs may have been donated
        logits = self.r.backend.host(outs[0])
        for i in holding:
            self.length[i] += 1
        return {i: logits[i] for i in holding}

    def verify(self, tokens):
        """One decode_k.main call (speculative decoding): tokens {slot: [ids]} (1..K each, the
        pending token then drafts) for every slot that holds a sequence; each slot's rows are
        padded with its last id to K; {slot: logits [n, V]}, the slot's length advanced by n
        (truncate rolls back: the rows past the length are overwritten later)."""
        k, man = self.r.man.draft_width, self.r.man
        holding = {i for i in range(self.n) if self.length[i]}
        if set(tokens) != holding:
            raise ContractError(f"verify: slots {sorted(holding)} hold sequences, tokens given for {sorted(tokens)}")
        for i in holding:
            if not 1 <= len(tokens[i]) <= k or self.length[i] + k > self.capacity:
                raise ContractError(f"verify: slot {i}: {len(tokens[i])} rows (1..{k}), {self.length[i]} of {self.capacity} tokens")
        tok = np.zeros((self.n, k), np.int32)
        for i in holding:
            tok[i] = list(tokens[i]) + [tokens[i][-1]] * (k - len(tokens[i]))
        cache_len = np.array(self.length, np.int32)
        pos = cache_len[:, None] + np.arange(k, dtype=np.int32)[None, :]
        positions = np.tile(pos, (man.rows, 1, 1)) if man.rows == 3 else pos
        delta = np.array(self.delta, np.int32)
        outs = self.r.run("decode_k.main", self.bucket, [tok, positions, delta, cache_len] + self._adapters(None, k, holding)
                          + [self.k, self.v])
        self.k, self.v = outs[1], outs[2]
        logits = self.r.backend.host(outs[0])
        for i in holding:
            self.length[i] += len(tokens[i])
        return {i: logits[i, :len(tokens[i])] for i in holding}

    def truncate(self, slot, length):
        if not 0 <= length <= self.length[slot]:
            raise ContractError(f"truncate: slot {slot} to {length} of its {self.length[slot]} tokens")
        self.length[slot] = length

    def release(self, slot):
        self.length[slot], self.delta[slot], self.adapter[slot] = 0, 0, 0
