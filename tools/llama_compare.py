#!/usr/bin/env python3
"""llama_compare.py — Tessera and llama.cpp's llama-bench on the same model shape, in one run.

For each weight format (bf16, q8, q4) it runs `tessera bench --synthetic PRESET` and
`llama-bench` on a GGUF of the same shape, alternating (Tessera, llama.cpp, Tessera, …) for
--rounds rounds so that both see the same machine load, and prints prefill (pp) and decode (tg)
tok/s, Tessera's peak RSS, and the ratios Tessera / llama.cpp: of the best round of each (the
highest pp and tg each side reached), and the median of the rounds' own ratios. Both sides decode
after a prompt of -p tokens (llama-bench -d: its tg alone would start from an empty cache).

Formats and what they are compared with:
  bf16: tessera --dtype bf16 (default compute: bf16 products)  vs  GGUF BF16
  q8:   tessera --quantize q8 (Q8_0's rule, W8A8)              vs  Q8_0
  q4:   tessera --quantize q4 (Q4_0's rule, W8A8)              vs  Q4_K_M and Q4_0
With bf16 and q8 both run, one more line: Tessera's q8 prefill (int8 W8A8 products) over
llama.cpp's BF16 prefill (best round of each, and the medians' quotient).

llama.cpp is neither vendored nor built here: pass its binaries (--llama-bench, and
--llama-quantize to make the quantized GGUFs). The GGUFs: give them (--gguf FORMAT=FILE, repeatable),
or let this script write the BF16 one from the preset's own random weights
(`tessera bench --write-checkpoint`: the same values Tessera runs) with the `gguf` Python package
(pip install gguf; numpy), then llama-quantize it. The tokenizer in that GGUF is a placeholder of
the right vocabulary size (benchmarks feed token ids; no text is decoded).

  tools/llama_compare.py --tessera build/release/tessera --llama-bench ~/llama.cpp/build/bin/llama-bench \\
      --llama-quantize ~/llama.cpp/build/bin/llama-quantize --work /tmp/cmp --threads 2 -p 512 -n 64

--checkpoint: Tessera reads the same weights from that checkpoint file (`bench -m`), as run and
serve load a model, instead of building them in anonymous memory: both sides' weights then come
from the page cache (which may back a mapping with 2 MB pages).

Each round also says how many MB each side had mapped in 2 MB pages (Linux: Tessera's from its
bench, before its bandwidth probe; llama.cpp's sampled during its decode run). A file the page
cache holds in 4 KB folios stays in 4 KB pages, which costs decode a few percent: compare like
with like (evict a file, e.g. with `dd if=FILE iflag=nocache count=0`, and read it back through
a 2 MB mapping or `cat`, to move it to 2 MB folios).

--model DIR: Tessera benchmarks that model folder (`bench -m DIR`, any family it loads) instead of a
preset; give llama.cpp's GGUF of the same model for each type compared (--gguf TYPE=FILE).

--write-gguf FILE [--tokenizer DIR] only writes the preset's BF16 GGUF (with DIR's real vocabulary,
for llama-server: tools/bench_server.mjs) and exits.
"""
import argparse
import json
import os
import re
from statistics import median
import struct
import subprocess
import sys
import tempfile
import time

LLAMA_TYPES = {"bf16": ["BF16"], "q8": ["Q8_0"], "q4": ["Q4_K_M", "Q4_0"]}


def huge_mapped_mb(pid):
    """MB of the process's memory mapped in 2 MB pages (file and anonymous), Linux; None elsewhere."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            kb = sum(int(line.split()[1]) for line in f if line.startswith(("FilePmdMapped:", "AnonHugePages:")))
        return kb / 1024
    except (OSError, ValueError, IndexError):
        return None


def run(cmd, pages=None):
    """cmd's stdout; with `pages` (a dict), pages["huge_mb"] = the most of its memory seen mapped in
    2 MB pages (sampled every 0.1 s): decode streams every weight, and a side whose weights sit in
    4 KB pages (a page cache in 4 KB folios) walks 512× the page-table entries."""
    # Output to files, not pipes: a pipe nobody reads while the loop polls could fill and stall it.
    with tempfile.TemporaryFile("w+") as fo, tempfile.TemporaryFile("w+") as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, text=True)
        most = None
        while p.poll() is None:
            mb = huge_mapped_mb(p.pid) if pages is not None else None
            most = mb if most is None or (mb is not None and mb > most) else most
            time.sleep(0.1)
        if pages is not None:
            pages["huge_mb"] = most
        fo.seek(0), fe.seek(0)
        out, err = fo.read(), fe.read()
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{err[-2000:]}{out[-2000:]}")
    return out


def pages_note(pages):
    return "" if pages.get("huge_mb") is None else f"; {pages['huge_mb']:.0f} MB in 2 MB pages"


def safetensors_tensors(path):
    """name -> (dtype, shape, numpy array view) of a safetensors file."""
    import numpy as np
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        out[name] = (t["dtype"], t["shape"], data[a:b])
    return out


def tokenizer_vocab(tokenizer_dir, vocab):
    """A tokenizer.json's BPE vocabulary for a GGUF: (tokens, types, merges), padded to `vocab`
    entries with unused [PADi] tokens (as llama.cpp's converter pads Qwen2's), its added special
    tokens as control tokens."""
    import gguf
    t = json.load(open(os.path.join(tokenizer_dir, "tokenizer.json")))
    by_id = {i: tok for tok, i in t["model"]["vocab"].items()}
    special = set()
    for a in t.get("added_tokens", []):
        by_id[a["id"]] = a["content"]
        if a.get("special"):
            special.add(a["id"])
    if max(by_id) >= vocab:
        sys.exit(f"tokenizer_vocab: token id {max(by_id)} beyond the model's {vocab} rows")
    tokens, types = [], []
    for i in range(vocab):
        if i in by_id:
            tokens.append(by_id[i])
            types.append(gguf.TokenType.CONTROL if i in special else gguf.TokenType.NORMAL)
        else:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
    merges = [m if isinstance(m, str) else " ".join(m) for m in t["model"]["merges"]]
    return tokens, types, merges


def write_gguf(ckpt, path, tokenizer_dir=None):
    """The checkpoint folder (a qwen2 config.json + model.safetensors in BF16) as a BF16 GGUF. With
    tokenizer_dir, that folder's tokenizer.json (Qwen's BPE) as the GGUF's vocabulary, so that
    llama-server tokenizes text as Tessera does; else a placeholder of the right size (benchmarks
    that feed token ids)."""
    import numpy as np
    import gguf
    cfg = json.load(open(os.path.join(ckpt, "config.json")))
    if cfg.get("model_type") != "qwen2":
        sys.exit(f"write_gguf: only qwen2 presets (got {cfg.get('model_type')})")
    w = gguf.GGUFWriter(path, "qwen2")
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_embedding_length(cfg["hidden_size"])
    w.add_block_count(cfg["num_hidden_layers"])
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_head_count(cfg["num_attention_heads"])
    w.add_head_count_kv(cfg["num_key_value_heads"])
    w.add_rope_freq_base(cfg["rope_theta"])
    w.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
    w.add_file_type(gguf.LlamaFileType.MOSTLY_BF16)
    vocab = cfg["vocab_size"]
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    if tokenizer_dir:
        tokens, types, merges = tokenizer_vocab(tokenizer_dir, vocab)
        w.add_token_list(tokens)
        w.add_token_types(types)
        w.add_token_merges(merges)
        w.add_add_bos_token(False)  # Qwen's tokenizer adds none
    else:
        w.add_token_list([f"<t{i}>" for i in range(vocab)])
        w.add_token_types([1] * vocab)
        w.add_token_merges(["< t"])
    w.add_bos_token_id(cfg["bos_token_id"])
    w.add_eos_token_id(cfg["eos_token_id"])
    names = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
             "lm_head.weight": "output.weight"}
    per_layer = {"input_layernorm.weight": "attn_norm.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
                 "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
                 "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
                 "mlp.down_proj": "ffn_down"}
    for name, (dtype, shape, raw) in sorted(safetensors_tensors(os.path.join(ckpt, "model.safetensors")).items()):
        if name in names:
            gname = names[name]
        else:
            m = re.fullmatch(r"model\.layers\.(\d+)\.(.+)\.(weight|bias)", name)
            if m and f"{m.group(2)}.{m.group(3)}" in per_layer:
                gname = f"blk.{m.group(1)}.{per_layer[m.group(2) + '.' + m.group(3)]}"
            elif m and m.group(2) in per_layer:
                gname = f"blk.{m.group(1)}.{per_layer[m.group(2)]}.{m.group(3)}"
            else:
                sys.exit(f"write_gguf: no GGUF name for {name}")
        if dtype != "BF16":
            sys.exit(f"write_gguf: {name} is {dtype}; write the checkpoint with --dtype bf16")
        if len(shape) == 2 and not gname.endswith("norm.weight"):
            w.add_tensor(gname, np.asarray(raw).reshape(shape[0], shape[1] * 2), raw_dtype=gguf.GGMLQuantizationType.BF16)
        else:  # norms and biases in f32, as llama.cpp's converter writes them
            f = (np.asarray(raw).view(np.uint16).astype(np.uint32) << 16).view(np.float32).reshape(shape)
            w.add_tensor(gname, f)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def preset_checkpoint(a):
    """The preset's weights as a checkpoint folder in --work (bench --write-checkpoint: deterministic,
    so an existing one is kept)."""
    ckpt = os.path.join(a.work, f"{a.preset}-checkpoint")
    if not os.path.exists(os.path.join(ckpt, "model.safetensors")):
        run([a.tessera, "bench", "--synthetic", a.preset, "--dtype", "bf16", "--write-checkpoint", ckpt])
    return ckpt


def tessera_once(a, fmt):
    source = ["-m", a.checkpoint_dir] if a.checkpoint_dir else ["--synthetic", a.preset, "--dtype", "bf16"]
    cmd = [a.tessera, "bench", *source, "-p", str(a.p), "-n", str(a.n), "--threads", str(a.threads)]
    if fmt != "bf16":
        cmd += ["--quantize", fmt]
    out = run(cmd)
    pp = float(re.search(r"^prefill +\d+ tokens: ([0-9.]+) tok/s", out, re.M).group(1))
    tg = float(re.search(r"^decode +\d+ tokens: ([0-9.]+) tok/s", out, re.M).group(1))
    rss = float(re.search(r"^peak RSS +([0-9.]+) MB", out, re.M).group(1))
    gbs = re.search(r"decode moves ([0-9.]+) GB/s of weights = (\d+)% of it", out)
    huge = re.search(r"^2 MB pages +([0-9.]+) MB", out, re.M)  # before its bandwidth probe's buffer
    return {"pp": pp, "tg": tg, "rss_mb": rss, "gbs": float(gbs.group(1)), "bw_pct": int(gbs.group(2)),
            "pages": {"huge_mb": float(huge.group(1)) if huge else None}}


def llama_once(a, gguf_path):
    # Decode at the same depth as Tessera's, which decodes after its -p prompt: llama-bench's tg
    # alone starts from an empty cache (-d puts the prompt before it, untimed).
    common = ["-m", gguf_path, "-t", str(a.threads), "-r", "1", "-o", "json"]
    res = json.loads(run([a.llama_bench, *common, "-p", str(a.p), "-n", "0"]))
    pp = next(r["avg_ts"] for r in res if r["n_prompt"] > 0 and r["n_gen"] == 0)
    pages = {}
    res = json.loads(run([a.llama_bench, *common, "-p", "0", "-n", str(a.n), "-d", str(a.p)], pages))
    tg = next(r["avg_ts"] for r in res if r["n_gen"] > 0 and r["n_prompt"] == 0)
    return {"pp": pp, "tg": tg, "pages": pages}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--llama-bench")
    ap.add_argument("--write-gguf", metavar="FILE",
                    help="only write the preset's weights as a BF16 GGUF to FILE and exit (tools/bench_server.mjs)")
    ap.add_argument("--tokenizer", metavar="DIR",
                    help="with --write-gguf: the vocabulary of DIR/tokenizer.json in the GGUF")
    ap.add_argument("--llama-quantize")
    ap.add_argument("--gguf", action="append", default=[], metavar="TYPE=FILE",
                    help="a GGUF for one llama.cpp type (BF16, Q8_0, Q4_K_M, Q4_0)")
    ap.add_argument("--work", default="/tmp/tessera-llama-compare", help="where written checkpoints and GGUFs go")
    ap.add_argument("--preset", default="qwen2.5-0.5b")
    ap.add_argument("--formats", default="bf16,q8,q4")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("-p", type=int, default=512)
    ap.add_argument("-n", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--model", metavar="DIR", help="Tessera benchmarks this model folder; --gguf gives llama.cpp's files")
    ap.add_argument("--checkpoint", action="store_true",
                    help="Tessera loads the preset's weights from a checkpoint file (bench -m, written to --work "
                         "first), as run and serve load a model: the page cache backs both sides' weights")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    a.checkpoint_dir = a.model or (preset_checkpoint(a) if a.checkpoint and not a.write_gguf else None)
    if a.write_gguf:
        write_gguf(preset_checkpoint(a), a.write_gguf, a.tokenizer)
        print(f"wrote {a.write_gguf} ({a.preset}, bf16{', vocabulary of ' + a.tokenizer if a.tokenizer else ''})")
        return
    if not a.llama_bench:
        sys.exit("--llama-bench is required (or --write-gguf FILE)")
    ggufs = dict(g.split("=", 1) for g in a.gguf)
    formats = a.formats.split(",")
    need = [t for f in formats for t in LLAMA_TYPES[f] if t not in ggufs]
    if need and a.model:
        sys.exit(f"--model: give llama.cpp's GGUF of that model for {', '.join(need)} (--gguf TYPE=FILE)")
    if need:
        bf16 = ggufs.get("BF16") or os.path.join(a.work, f"{a.preset}-bf16.gguf")
        if not os.path.exists(bf16):
            write_gguf(preset_checkpoint(a), bf16)
        ggufs["BF16"] = bf16
        for t in need:
            if t == "BF16":
                continue
            if not a.llama_quantize:
                sys.exit(f"no GGUF for {t}: give --gguf {t}=FILE or --llama-quantize")
            path = os.path.join(a.work, f"{a.preset}-{t.lower()}.gguf")
            if not os.path.exists(path):
                run([a.llama_quantize, bf16, path, t])
            ggufs[t] = path
    load = os.getloadavg()
    print(f"{a.model or a.preset}, {a.threads} threads, pp{a.p} / tg{a.n}, {a.rounds} alternating rounds; "
          f"load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    rows = []
    prefill = {}  # each side's pp per round: Tessera's per format, llama.cpp's per type
    for fmt in formats:
        best = {"tessera": None}
        for t in LLAMA_TYPES[fmt]:
            best[t] = None
        per_round = {t: {"pp": [], "tg": []} for t in LLAMA_TYPES[fmt]}
        for r in range(a.rounds):
            ours = tessera_once(a, fmt)
            print(f"  round {r + 1} tessera {fmt}: pp {ours['pp']:.1f}  tg {ours['tg']:.2f} tok/s "
                  f"({ours['gbs']:.2f} GB/s = {ours['bw_pct']}% of read bandwidth; peak RSS {ours['rss_mb']:.0f} MB"
                  f"{pages_note(ours['pages'])})")
            prefill.setdefault(fmt, []).append(ours["pp"])
            prev = best["tessera"] or ours
            best["tessera"] = dict(ours, pp=max(ours["pp"], prev["pp"]), tg=max(ours["tg"], prev["tg"]),
                                   rss_mb=max(ours["rss_mb"], prev["rss_mb"]))
            for t in LLAMA_TYPES[fmt]:
                got = llama_once(a, ggufs[t])
                print(f"  round {r + 1} llama.cpp {t}: pp {got['pp']:.1f}  tg {got['tg']:.2f} tok/s"
                      f"{' (' + pages_note(got['pages'])[2:] + ')' if pages_note(got['pages']) else ''}")
                prefill.setdefault(t, []).append(got["pp"])
                prev = best[t]
                best[t] = {"pp": max(got["pp"], prev["pp"] if prev else 0), "tg": max(got["tg"], prev["tg"] if prev else 0)}
                for k in ("pp", "tg"):
                    per_round[t][k].append(ours[k] / got[k])
        for t in LLAMA_TYPES[fmt]:
            rows.append((fmt, t, best["tessera"], best[t], per_round[t]))
    # Two readings of the same run: the best round of each side, and the median of the rounds'
    # own ratios (each round's pair ran back to back, so a machine whose bandwidth drifts between
    # rounds disturbs it less).
    print(f"\n{'tessera':>8} {'llama.cpp':>9} {'pp tessera':>11} {'pp llama':>9} {'ratio':>6} {'median':>7} "
          f"{'tg tessera':>11} {'tg llama':>9} {'ratio':>6} {'median':>7} {'RSS MB':>7}")
    print(f"{'':>8} {'':>9} {'best':>11} {'best':>9} {'':>6} {'ratio':>7} {'best':>11} {'best':>9} {'':>6} {'ratio':>7}")
    for fmt, t, ts, ll, pr in rows:
        print(f"{fmt:>8} {t:>9} {ts['pp']:11.1f} {ll['pp']:9.1f} {ts['pp'] / ll['pp']:6.2f} {median(pr['pp']):7.2f} "
              f"{ts['tg']:11.2f} {ll['tg']:9.2f} {ts['tg'] / ll['tg']:6.2f} {median(pr['tg']):7.2f} {ts['rss_mb']:7.0f}")
    # The int8 prefill target is against llama.cpp's BF16 prefill: Tessera's q8 (W8A8) rounds
    # against the BF16 rounds of the same run.
    if "q8" in prefill and "BF16" in prefill:
        print(f"int8 prefill (tessera q8, W8A8) / llama.cpp BF16: best {max(prefill['q8']) / max(prefill['BF16']):.2f}, "
              f"medians {median(prefill['q8']) / median(prefill['BF16']):.2f}")
    load = os.getloadavg()
    print(f"load average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({time.strftime('%H:%M:%S')})")


if __name__ == "__main__":
    main()
