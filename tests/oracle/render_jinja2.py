#!/usr/bin/python3
"""Reference renderer: Python jinja2 configured as transformers' chat_template_utils does.

ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols]),
a {% generation %} tag that renders its body (transformers' AssistantTracker, tracking off),
globals raise_exception and strftime_now, and the tojson filter override (json.dumps with
ensure_ascii=False). The template and special tokens are found as `tessera template -m DIR`
finds them; variables are layered like the CLI: add_generation_prompt/tools/documents
defaults, special tokens, then the line's document.
Usage: render_jinja2.py -m DIR --jsonl FILE [--add-generation-prompt]
Prints one JSON string per line, or null when rendering raised (message on stderr).
"""
import argparse
import json
import os
import sys
from datetime import datetime

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


def load(model_dir):
    cfg_path = os.path.join(model_dir, "tokenizer_config.json")
    cfg = {}
    template = None
    if os.path.exists(cfg_path):
        with open(cfg_path, encoding="utf-8") as f:
            cfg = json.load(f)
        t = cfg.get("chat_template")
        if isinstance(t, list):
            t = {e["name"]: e["template"] for e in t}["default"]
        template = t
    if template is None and os.path.exists(os.path.join(model_dir, "chat_template.jinja")):
        with open(os.path.join(model_dir, "chat_template.jinja"), encoding="utf-8", newline="") as f:
            template = f.read()
    if template is None:
        with open(os.path.join(model_dir, "chat_template.json"), encoding="utf-8") as f:
            template = json.load(f)["chat_template"]
    tokens = {}
    for k in SPECIAL:
        v = cfg.get(k)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str):
            tokens[k] = v
    return template, tokens


class GenerationTag(jinja2.ext.Extension):
    """transformers' AssistantTracker as rendering sees it when no assistant mask is requested."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def compile_template(source):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return datetime.now().strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env.from_string(source)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-m", "--model", required=True)
    ap.add_argument("--jsonl", required=True)
    ap.add_argument("--add-generation-prompt", action="store_true")
    args = ap.parse_args()
    source, tokens = load(args.model)
    tmpl = compile_template(source)
    failed = False
    with open(args.jsonl, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            doc = json.loads(line)
            ctx = {"add_generation_prompt": False, "tools": None, "documents": None}
            ctx.update(tokens)
            ctx.update({"messages": doc} if isinstance(doc, list) else doc)
            if args.add_generation_prompt:
                ctx["add_generation_prompt"] = True
            try:
                out = json.dumps(tmpl.render(**ctx), ensure_ascii=False)
            except Exception as e:  # any render failure counts as "raised"
                print("line %d: %s: %s" % (n, type(e).__name__, e), file=sys.stderr)
                out = "null"
                failed = True
            sys.stdout.write(out + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
