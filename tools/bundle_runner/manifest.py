"""manifest.py — a bundle's manifest.json, its identity, its entries' contracts and their checks.

What the runner may call is what the manifest declares: every entry's arguments (after the
weights, which are the weight schema in argument order) and results, with dtype and shape. This
module
  - reads the manifest and the module texts and recomputes the identity exactly as
    src/bundle/manifest.c does (SHA-256 over the canonical manifest JSON rebuilt from the fields
    the C reader reads, then a 0 byte and each module text, in manifest order), so a bundle whose
    identity does not match is refused before anything is compiled;
  - reads a module's `func.func public @main` signature (from the StableHLO text, or from the
    `iree.abi.declaration` of a compiled function) and holds it to the manifest's descriptors:
    a dropped argument or a wrong result shape is named before a call is made;
  - validates a call's values as src/bundle/bundle.c does (token ids within the vocabulary,
    lengths, positions, cache_len and rope_delta within the bucket, no NaN, the DeepStack payload
    and vision.main's rows and taps to their documented filler).
Errors are ContractError with the entry and argument named.
"""
import hashlib
import json
import os
import re

import numpy as np

ENTRY_NAMES = ["prefill.main", "prefill_embeddings.main", "decode.main", "prefill_embeddings_deepstack.main", "decode_k.main"]
NUMPY = {"F32": np.float32, "F16": np.float16, "I32": np.int32, "I64": np.int64}
MLIR_TO_DTYPE = {"f32": "F32", "f16": "F16", "bf16": "BF16", "i64": "I64", "i32": "I32", "i16": "I16", "i8": "I8",
                 "ui8": "U8", "i1": "BOOL"}

class ContractError(Exception):
    """An argument, result, module or manifest that breaks the bundle's contract."""


def type_string(dtype, shape):
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


class Descriptor:
    def __init__(self, name, role, dtype, shape):
        self.name, self.role, self.dtype, self.shape = name, role, dtype, tuple(shape)

    def __repr__(self):
        return f"{self.name} {type_string(self.dtype, self.shape)}"


def _descriptors(items, where):
    if not isinstance(items, list):
        raise ContractError(f"manifest.json: {where}: expected an array")
    out = []
    for i, d in enumerate(items):
        try:
            out.append(Descriptor(d["name"], d["role"], d["dtype"], [int(x) for x in d["shape"]]))
        except (KeyError, TypeError, ValueError):
            raise ContractError(f"manifest.json: {where}[{i}]: expected name, role, dtype and shape") from None
    return out


class Entry:
    """One module: its file, arguments (after the weights) and results."""

    def __init__(self, name, obj, where):
        self.name = name
        self.file = obj["module"]
        if ".." in self.file or self.file.startswith("/"):
            raise ContractError(f"manifest.json: {where}.module: the module path must stay inside the bundle")
        self.inputs = _descriptors(obj.get("arguments"), f"{where}.arguments")
        self.results = _descriptors(obj.get("results"), f"{where}.results")


class Manifest:
    def __init__(self, bundle_dir):
        self.dir = bundle_dir
        path = os.path.join(bundle_dir, "manifest.json")
        with open(path, "rb") as f:
            try:
                self.json = json.loads(f.read())
            except ValueError as e:
                raise ContractError(f"manifest.json: not valid JSON ({e})") from None
        j = self.json
        try:
            if j["abi_version"] != 1:
                raise ContractError(f"manifest.json: abi_version {j['abi_version']} (this runner reads version 1)")
            self.family = j["family"]
            self.identity = j["identity"]
            self.position_mode = j["positions"]["mode"]
            self.deepstack_layers = list(j.get("deepstack", {}).get("layers", []))
            # prefill_embeddings.main's bias then carries bidirectional image blocks (Gemma3).
            self.image_blocks = "image_blocks" in j.get("mask", {})
            # The host's token rows are embed_tokens × scale (Gemma3: √hidden), 0 = unscaled.
            self.embed_scale = float(j.get("embeddings", {}).get("scale", 0))
            self.weights = _descriptors(j["weights"], "weights")
            # A quantized bundle: its integer weights, scales and zero points are in its own file.
            self.quant = j.get("quantization")
            if self.quant is not None and self.quant.get("version") != 1:
                raise ContractError(f"manifest.json: quantization.version {self.quant.get('version')} (this runner reads version 1)")
            # decode_k.main (speculative decoding): K rows per slot, fixed at export; optional.
            dk = j.get("decode_k")
            if dk is not None and dk.get("version") != 1:
                raise ContractError(f"manifest.json: decode_k.version {dk.get('version')} (this runner reads version 1)")
            self.draft_width = int(dk["k"]) if dk is not None else 0
            # Weights no checkpoint holds by name (a family's derived parts, LoRA stacks): in the
            # bundle's own file (src/bundle/bundle_tensors.h).
            self.held = j.get("bundle_weights")
            if self.held is not None and self.held.get("version") != 1:
                raise ContractError(f"manifest.json: bundle_weights.version {self.held.get('version')} (this runner reads version 1)")
            # LoRA adapters served per row: every language entry takes `adapters` (index into names).
            ad = j.get("adapters")
            if ad is not None and ad.get("version") != 1:
                raise ContractError(f"manifest.json: adapters.version {ad.get('version')} (this runner reads version 1)")
            self.adapters = list(ad["names"]) if ad is not None else []
            if ad is not None and (len(self.adapters) < 2 or self.adapters[0] != "none"):
                raise ContractError("manifest.json: adapters.names: expected 2 to 16 names, the first \"none\"")
            self.buckets = []
            for b, bo in enumerate(j["buckets"]):
                entries = {}
                for e in self.entry_names():
                    if e not in bo["entries"]:
                        raise ContractError(f"manifest.json: buckets[{b}].entries.{e}: missing entry")
                    entries[e] = Entry(e, bo["entries"][e], f"buckets[{b}].entries.{e}")
                self.buckets.append({"capacity": int(bo["capacity"]), "prefill_capacity": int(bo["prefill_capacity"]),
                                     "slots": int(bo["slots"]), "visual_capacity": int(bo.get("visual_capacity", 0)),
                                     "entries": entries})
            v = j.get("vision")
            self.vision = None
            if v:
                self.vision = {k: v.get(k) for k in ("layout", "patch_size", "temporal_patch_size", "merge_size", "width",
                                                     "depth", "out_hidden", "deepstack_levels", "position_embeddings", "window",
                                                     "view_patches")}
                self.vision["weights"] = _descriptors(v["weights"], "vision.weights")
                self.vision["buckets"] = [{"patches": int(vb["patches"]),
                                           "entry": Entry("vision.main", vb["vision.main"], f"vision.buckets[{i}].vision.main")}
                                          for i, vb in enumerate(v["buckets"])]
            # audio.main per duration bucket (Phi-4-multimodal's encoder and both projectors, the
            # `projector` input an index into projectors).
            au = j.get("audio")
            self.audio = None
            if au is not None:
                if au.get("version") != 2:
                    raise ContractError(f"manifest.json: audio.version {au.get('version')} (this runner reads version 2)")
                projectors = au["projectors"]
                if not isinstance(projectors, list) or not 1 <= len(projectors) <= 4 or \
                        not all(isinstance(p, str) and p for p in projectors):
                    raise ContractError("manifest.json: audio.projectors: expected 1 to 4 names")
                self.audio = {"weights": _descriptors(au["weights"], "audio.weights"), "projectors": projectors,
                              "buckets": [{"frames": int(ab["frames"]),
                                           "entry": Entry("audio.main", ab["audio.main"], f"audio.buckets[{i}].audio.main")}
                                          for i, ab in enumerate(au["buckets"])]}
        except (KeyError, TypeError) as e:
            raise ContractError(f"manifest.json: missing or malformed field {e}") from None
        self.rows = 1 if self.position_mode == "1d" else 3
        pre = self.buckets[0]["entries"]["prefill.main"]
        self.vocab = pre.results[0].shape[0]
        self.layers, _, self.kv_heads, self.head_dim = pre.results[1].shape
        self.hidden = self.buckets[0]["entries"]["prefill_embeddings.main"].inputs[0].shape[1]

    def entry_names(self):
        """Every bucket's entries in module order (ts_manifest_entries): the ordinary three, then
        the optional ones the manifest declares."""
        return (ENTRY_NAMES[:3] + ([ENTRY_NAMES[3]] if self.deepstack_layers else [])
                + ([ENTRY_NAMES[4]] if self.draft_width else []))

    # ------------------------------------------------------------ identity (manifest.c)

    def modules(self):
        """(entry, weights, file) of every module, in manifest order: each bucket's entries, then
        the vision buckets."""
        out = []
        for b in self.buckets:
            for e in b["entries"].values():
                out.append((e, self.weights, e.file))
        for vb in (self.vision or {}).get("buckets", []):
            out.append((vb["entry"], self.vision["weights"], vb["entry"].file))
        for ab in (self.audio or {}).get("buckets", []):
            out.append((ab["entry"], self.audio["weights"], ab["entry"].file))
        return out

    def canonical(self):
        """manifest_json() of manifest.c: everything but the identity, in its key order, from the
        fields its reader reads (argument indices recomputed). The descriptive texts (dtype_policy's
        weights, mask, kv_layout, deepstack's visual_capacity and payload) are taken as written:
        manifest.c prints its own constants there, which are what its writer wrote, so the two
        agree for any bundle it exported, across versions that reword them; an edited text is
        refused here (the C reader would not see it)."""
        j = self.json

        def desc(d, argument=None):
            o = {"dtype": d["dtype"], "shape": d["shape"], "name": d["name"], "role": d["role"]}
            if argument is not None:
                o["argument"] = argument
            return o

        root = {"abi_version": j["abi_version"], "family": j["family"], "config_digest": j["config_digest"],
                "dtype_policy": {"weights": j["dtype_policy"]["weights"], "compute": j["dtype_policy"]["compute"],
                                 "kv": j["dtype_policy"]["kv"]}}
        pos = {"mode": j["positions"]["mode"]}
        if pos["mode"] != "1d":
            pos["mrope_section"] = j["positions"].get("mrope_section", [0, 0, 0])
        root["positions"] = pos
        if "embeddings" in j:
            root["embeddings"] = {"scale": j["embeddings"]["scale"]}
        root["mask"] = {k: str(v) for k, v in j["mask"].items()}
        root["kv_layout"] = {k: str(v) for k, v in j["kv_layout"].items()}
        if self.deepstack_layers:
            ds = j["deepstack"]
            root["deepstack"] = {"layers": self.deepstack_layers, "visual_capacity": ds["visual_capacity"], "payload": ds["payload"]}
        if self.draft_width:
            dk = j["decode_k"]
            root["decode_k"] = {"version": dk["version"], "k": self.draft_width, "optional": dk["optional"], "use": dk["use"]}
        n_weights = len(j["weights"])
        root["weights"] = [desc(w, i) for i, w in enumerate(j["weights"])]
        if self.quant is not None:
            q = self.quant
            root["quantization"] = {"version": q["version"], "method": q["method"], "file": q["file"],
                                    "dequantization": q["dequantization"],
                                    "weights": [dict({"weight": w["weight"], "bits": w["bits"], "block": w["block"],
                                                      "scale_dtype": w["scale_dtype"], "zero_points": bool(w["zero_points"])},
                                                     **({"act_order": True} if w.get("act_order") else {}),
                                                     shape=w["shape"]) for w in q["weights"]]}
        if self.held is not None:
            h = self.held
            root["bundle_weights"] = {"version": h["version"], "file": h["file"], "rule": h["rule"], "tensors": list(h["tensors"])}
        if self.adapters:
            ad = j["adapters"]
            root["adapters"] = {"version": ad["version"], "names": self.adapters, "input": ad["input"]}
        buckets = []
        for bo in j["buckets"]:
            o = {"capacity": bo["capacity"], "prefill_capacity": bo["prefill_capacity"], "slots": bo["slots"]}
            if self.deepstack_layers:
                o["visual_capacity"] = bo["visual_capacity"]
            entries = {}
            for e in self.entry_names():
                eo = bo["entries"][e]
                entries[e] = {"module": eo["module"],
                              "arguments": [desc(a, n_weights + i) for i, a in enumerate(eo["arguments"])],
                              "results": [desc(r) for r in eo["results"]]}
            o["entries"] = entries
            buckets.append(o)
        root["buckets"] = buckets
        v = j.get("vision")
        if v and v.get("buckets"):
            vo = {"layout": v["layout"]}
            for k in ("patch_size", "temporal_patch_size", "merge_size", "width", "depth", "out_hidden"):
                vo[k] = v[k]
            if v["layout"] == "patch_rows_deepstack":
                vo["deepstack_levels"] = v["deepstack_levels"]
                vo["position_embeddings"] = v["position_embeddings"]
            if v["layout"] == "patch_rows_windowed":
                vo["window"] = v["window"]
            if v["layout"] == "hd_views":
                vo["view_patches"] = v["view_patches"]
            nvw = len(v["weights"])
            vo["weights"] = [desc(w, i) for i, w in enumerate(v["weights"])]
            vo["buckets"] = [{"patches": vb["patches"],
                              "vision.main": {"module": vb["vision.main"]["module"],
                                              "arguments": [desc(a, nvw + i) for i, a in enumerate(vb["vision.main"]["arguments"])],
                                              "results": [desc(r) for r in vb["vision.main"]["results"]]}}
                             for vb in v["buckets"]]
            root["vision"] = vo
        au = j.get("audio")
        if au and au.get("buckets"):
            naw = len(au["weights"])
            root["audio"] = {"version": au["version"], "padding": au["padding"], "projectors": au["projectors"],
                             "projector": au["projector"],
                             "weights": [desc(w, i) for i, w in enumerate(au["weights"])],
                             "buckets": [{"frames": ab["frames"],
                                          "audio.main": {"module": ab["audio.main"]["module"],
                                                         "arguments": [desc(a, naw + i) for i, a in enumerate(ab["audio.main"]["arguments"])],
                                                         "results": [desc(r) for r in ab["audio.main"]["results"]]}}
                                         for ab in au["buckets"]]}
        return _cjson(root)

    def module_texts(self):
        texts = []
        for _, _, f in self.modules():
            with open(os.path.join(self.dir, f), "rb") as fh:
                texts.append(fh.read())
        return texts

    def check_identity(self, texts=None):
        """Refuses a bundle whose content does not hash to its identity (before any compile)."""
        texts = self.module_texts() if texts is None else texts
        h = hashlib.sha256(self.canonical().encode("utf-8"))
        for t in texts:
            h.update(b"\0")
            h.update(t.split(b"\0", 1)[0])  # strlen(): the C side hashes up to the first NUL
        actual = h.hexdigest()
        if actual != self.identity:
            raise ContractError(f"identity differs: the manifest says {self.identity[:16]}\u2026, its content and modules "
                                f"hash to {actual[:16]}\u2026 (refused before compiling)")
        return texts

    def quantized_tensors(self):
        """{tensor name: (dtype, shape)} of the quantized tensors the manifest's quantization
        describes (src/bundle/bundle_quant.c): per matrix W [out, in] of `bits` and `block`,
        W:q<bits> (I8 [out, in] or U8 [out, in/2]), W:q<bits>.scale [out, in/block], with
        zero points W:q<bits>.zero I8 [out, in/block], and in act order W:q<bits>.perm I32 [in]
        (the module gathers the input's channels by it; runner.py checks it is a permutation). A matrix the runtimes cannot run (bits not
        8 or 4, a block not dividing the width or odd for 4-bit) is refused, named."""
        out = {}
        for i, w in enumerate(self.quant["weights"] if self.quant else []):
            bits, block, (o, n) = w["bits"], w["block"], w["shape"]
            if bits not in (8, 4) or block < 1 or n % block or (bits == 4 and block % 2):
                raise ContractError(f"quantization: {w['weight']} [{o}, {n}]: {bits}-bit blocks of {block} "
                                    "(8 or 4 bits, a block dividing the input width, even for 4-bit)")
            name = f"{w['weight']}:q{bits}"
            out[name] = ("I8" if bits == 8 else "U8", (o, n if bits == 8 else n // 2))
            out[name + ".scale"] = (w["scale_dtype"], (o, n // block))
            if w["zero_points"]:
                out[name + ".zero"] = ("I8", (o, n // block))
            if w.get("act_order"):
                out[name + ".perm"] = ("I32", (n,))
        return out

    # ------------------------------------------------------------ lookup

    def bucket_for(self, prompt, max_new):
        """The smallest bucket holding prompt + max_new (bundle.c's admission)."""
        for i, b in enumerate(self.buckets):
            if prompt <= b["prefill_capacity"] and prompt + max_new <= b["capacity"]:
                return i
        big = self.buckets[-1]
        raise ContractError(f"admission: {prompt} prompt tokens + {max_new} new tokens = {prompt + max_new} do not fit "
                            f"the largest bucket (capacity {big['capacity']}, prefill {big['prefill_capacity']})")


def _cjson_number(v):
    """cJSON's print_number: an int when the double equals its (saturated) valueint, else %1.15g."""
    d = float(v)
    iv = int(max(min(d, 2**31 - 1), -(2**31)))
    if d == iv:
        return str(iv)
    s = "%1.15g" % d
    return s if float(s) == d else "%1.17g" % d


def _cjson(o):
    """cJSON_PrintUnformatted: no whitespace, strings escaped as cJSON does, UTF-8 kept."""
    if isinstance(o, dict):
        return "{" + ",".join(_cjson(str(k)) + ":" + _cjson(v) for k, v in o.items()) + "}"
    if isinstance(o, list):
        return "[" + ",".join(_cjson(v) for v in o) + "]"
    if isinstance(o, bool):
        return "true" if o else "false"
    if isinstance(o, (int, float)):
        return _cjson_number(o)
    if o is None:
        return "null"
    return json.dumps(o, ensure_ascii=False)


# ---------------------------------------------------------------- module signatures

def _split_top(s):
    """Splits at commas outside <>, (), [], {} and quotes."""
    parts, depth, start, quote = [], 0, 0, False
    for i, c in enumerate(s):
        if quote:
            quote = c != '"' or s[i - 1] == "\\"
        elif c == '"':
            quote = True
        elif c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    if s[start:].strip():
        parts.append(s[start:])
    return parts


def _tensor(text):
    m = re.search(r"tensor<([^>]*)>", text)
    if not m:
        return None
    *dims, elem = m.group(1).split("x") if m.group(1) else [""]
    return MLIR_TO_DTYPE.get(elem, elem), tuple(int(d) for d in dims)


def _balanced(s, at):
    """Index past the bracket group opening at s[at]."""
    depth, quote = 0, False
    for i in range(at, len(s)):
        c = s[i]
        if quote:
            quote = c != '"' or s[i - 1] == "\\"
        elif c == '"':
            quote = True
        elif c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ContractError("unbalanced signature")


def parse_signature(text, func="@main"):
    """[(name or None, dtype, shape)] of the arguments and [(dtype, shape)] of the results of
    `func.func public @main` in a module text, or of an iree.abi.declaration ('sync func @main')."""
    at = text.find(f"func {func}(") if "func.func" not in text else text.find(f"func.func public {func}(")
    if at < 0:
        at = text.find(f"{func}(")
    if at < 0:
        raise ContractError(f"no {func} function")
    open_at = text.index("(", at)
    close = _balanced(text, open_at)
    args = []
    for part in _split_top(text[open_at + 1:close - 1]):
        t = _tensor(part)
        name = re.search(r'tessera\.name = "([^"]*)"', part)
        args.append((name.group(1) if name else None, t[0] if t else "?", t[1] if t else ()))
    rest = text[close:].lstrip()
    results = []
    if rest.startswith("->"):
        rest = rest[2:].lstrip()
        if rest.startswith("("):
            group = rest[:_balanced(rest, 0)][1:-1]
            results = [_tensor(p) for p in _split_top(group)]
        else:
            results = [_tensor(rest.split("{", 1)[0] if not rest.startswith("tensor") else rest[:rest.index(">") + 1])]
    return args, results


def check_signature(entry, weights, args, results, where, signless=False):
    """The module's own signature against the manifest: argument count, names, types; results.
    signless: IREE's compiled declaration, whose integer types carry no signedness (a module's
    ui8 is i8 there)."""
    want = [(d.name, "I8" if signless and d.dtype == "U8" else d.dtype, d.shape) for d in list(weights) + entry.inputs]
    if len(args) != len(want):
        names = {a[0] for a in args}
        missing = [w[0] for w in want if w[0] not in names]
        raise ContractError(f"{where}: {entry.name} has {len(args)} arguments, the manifest {len(want)}"
                            + (f" (missing: {', '.join(missing[:4])})" if missing else ""))
    for i, (a, w) in enumerate(zip(args, want)):
        if (a[0] is not None and a[0] != w[0]) or a[1] != w[1] or tuple(a[2]) != tuple(w[2]):
            raise ContractError(f"{where}: {entry.name} argument {i} is {a[0]} {type_string(a[1], a[2])}, "
                                f"the manifest's {w[0]} {type_string(w[1], w[2])}")
    if len(results) != len(entry.results):
        raise ContractError(f"{where}: {entry.name} returns {len(results)} results, the manifest {len(entry.results)}")
    for k, (r, d) in enumerate(zip(results, entry.results)):
        if r is None or r[0] != d.dtype or tuple(r[1]) != d.shape:
            got = type_string(*r) if r else "?"
            raise ContractError(f"{where}: {entry.name} result {k} ({d.name}) is {got}, the manifest declares "
                                f"{type_string(d.dtype, d.shape)}")


# ---------------------------------------------------------------- call values (bundle.c)

def check_arguments(entry, values):
    """Dtype and shape of every argument against the entry's descriptors, in order."""
    if len(values) != len(entry.inputs):
        raise ContractError(f"{entry.name}: {len(values)} arguments given, {len(entry.inputs)} expected")
    for d, v in zip(entry.inputs, values):
        want = NUMPY[d.dtype]
        if v.dtype != want:
            raise ContractError(f"{entry.name}: {d.name} has dtype {v.dtype}, expected {d.dtype}")
        if tuple(v.shape) != d.shape:
            raise ContractError(f"{entry.name}: {d.name} has shape {list(v.shape)}, expected {list(d.shape)}")


def _range(entry, name, v, lo, hi):
    bad = np.flatnonzero((v < lo) | (v > hi))
    if bad.size:
        i = int(bad[0])
        raise ContractError(f"{entry}: {name}[{i}] = {int(v.reshape(-1)[i])} is outside {lo}..{hi}")


def check_values(man, bucket, entry, values):
    """bundle.c's check_values (+ check_deepstack_values) for a language-model entry."""
    b = man.buckets[bucket]
    by = {d.name: v for d, v in zip(entry.inputs, values)}
    for d, v in zip(entry.inputs, values):
        if d.name == "tokens":
            _range(entry.name, d.name, v, 0, man.vocab - 1)
        elif d.name == "length":
            _range(entry.name, d.name, v, 1, b["prefill_capacity"])
        elif d.name == "positions":
            _range(entry.name, d.name, v, 0, b["capacity"] - 1)
        elif d.name == "cache_len":  # decode_k.main writes K rows from cache_len
            _range(entry.name, d.name, v, 0, b["capacity"] - (man.draft_width if entry.name == "decode_k.main" else 1))
        elif d.name == "rope_delta":
            _range(entry.name, d.name, v, -b["capacity"], b["capacity"])
        elif d.name == "adapters":
            _range(entry.name, d.name, v, 0, len(man.adapters) - 1)
        elif d.dtype == "F32" and d.role == "input":
            bad = np.isnan(v) | (np.isinf(v) if d.name == "embeddings" else False)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ContractError(f"{entry.name}: {d.name}[{i}] is {'NaN' if np.isnan(v.reshape(-1)[i]) else 'infinite'}")
    if entry.name == "prefill_embeddings_deepstack.main":
        nv, count, length = b["visual_capacity"], int(by["visual_count"]), int(by["length"])
        pos, feat = by["visual_positions"], by["layer_features"]
        if not 0 <= count <= nv:
            raise ContractError(f"{entry.name}: visual_count = {count} is outside 0..{nv} (the bucket's static maximum Nv_max)")
        if count > length:
            raise ContractError(f"{entry.name}: visual_count = {count} exceeds length = {length}")
        real = pos[:count]
        if count and (real.min() < 0 or real.max() >= length or (np.diff(real) <= 0).any()):
            raise ContractError(f"{entry.name}: visual_positions[0..{count}) must be sorted, unique and within 0..{length - 1}")
        if (pos[count:] != 0).any() or (feat[:, count:] != 0).any():
            raise ContractError(f"{entry.name}: entries at or past visual_count = {count} are padding: position 0, zero features")
        if not np.isfinite(feat[:, :count]).all():
            raise ContractError(f"{entry.name}: layer_features has a non-finite value")


def _check_hd_views(v, n, values):
    """hd_views (src/models/phi4_mm/phi4_vision_entry.c): key_bias 0 or -inf with a real key in
    every view, positions within a view's table, layout within the pooled table + 2."""
    per = v["view_patches"]
    views, half = n // per, int(round(per ** 0.5)) // 2
    pixels, positions, key_bias, layout = values
    kb = np.asarray(key_bias)
    if not ((kb == 0) | np.isneginf(kb)).all():
        raise ContractError("vision.main: key_bias holds a value other than 0 and -inf")
    empty = np.flatnonzero(~(kb == 0).any(axis=1))
    if len(empty):
        raise ContractError(f"vision.main: key_bias masks every patch of view {int(empty[0])}")
    _range("vision.main", "positions", positions, 0, per - 1)
    _range("vision.main", "layout", layout, 0, views * half * half + 1)
    if np.isnan(pixels).any():
        raise ContractError("vision.main: pixel_values has a NaN")


def check_vision_values(man, bucket, values):
    """The value checks of the layout's ts_vision_layout (src/models/vision_entry.c and beside the
    towers) for a patch-row vision.main."""
    v = man.vision
    n = v["buckets"][bucket]["patches"]
    layout = v["layout"]
    if layout == "hd_views":
        return _check_hd_views(v, n, values)
    taps, windowed = layout == "patch_rows_deepstack", layout == "patch_rows_windowed"
    count = int(values[5 if taps or windowed else 3])
    unit = v["merge_size"] ** 2
    if count < unit or count > n or count % unit:
        raise ContractError(f"vision.main: count = {count} is not a multiple of {unit} in {unit}..{n}")
    _range("vision.main", "positions", values[1], 0, n - 1)
    _range("vision.main", "segments", values[2], -1, n - 1)
    if np.isnan(values[0]).any():
        raise ContractError("vision.main: pixel_values has a NaN")
    if windowed:
        segments, windows, index = values[2], values[3], values[4]
        _range("vision.main", "windows", windows, -1, n - 1)
        pad = np.arange(n) >= count
        if ((segments < 0) != pad).any() or ((windows < 0) != pad).any():
            raise ContractError(f"vision.main: rows at or past count = {count} are padding (segment and window -1), "
                                "the rows before it image rows (both non-negative)")
        units, real = n // unit, count // unit
        _range("vision.main", "window_index", index, 0, units - 1)
        if (index[real:] != np.arange(real, units)).any():
            raise ContractError(f"vision.main: window_index: padding units (at or past {real}) stay in place")
        if not np.array_equal(np.sort(index[:real]), np.arange(real)):
            raise ContractError(f"vision.main: window_index: the first {real} slots must be a permutation of the image units")
    if taps:
        index, weight = values[3], values[4]
        if (index[:, count:] != 0).any() or (weight[:, count:] != 0).any():
            raise ContractError(f"vision.main: rows at or past count = {count} are padding: their taps must be the filler "
                                "pos_index 0, pos_weight 0")
        _range("vision.main", "pos_index", index[:, :count], 0, v["position_embeddings"] - 1)
        if not np.isfinite(weight[:, :count]).all():
            raise ContractError("vision.main: pos_weight has a non-finite value")
