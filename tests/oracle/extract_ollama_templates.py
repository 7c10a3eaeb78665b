#!/usr/bin/python3
"""Extracts the Hugging Face chat templates ("gguf" fields) of @huggingface/ollama-utils'
chat-template-automap.ts into OUT/<nnn>_<model>/chat_template.jinja, one folder per distinct
template. With --model NAME, writes only that model's template into OUT/chat_template.jinja.
Usage: extract_ollama_templates.py AUTOMAP.ts OUT [--model library/qwen2.5vl:latest]"""
import json
import os
import re
import sys

DEC = json.JSONDecoder()


def js_string(s):
    """Decodes the JS string literal at the start of s (double or single quoted)."""
    if s[0] == '"':
        return DEC.raw_decode(s)[0]
    if s[0] != "'":
        return None
    out, i = [], 1
    while s[i] != "'":
        if s[i] == "\\":
            e = s[i + 1]
            if e == "'":
                out.append("'")
                i += 2
            elif e == "u":
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
            else:
                out.append(json.loads('"\\' + e + '"'))
                i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def main():
    src = open(sys.argv[1], encoding="utf-8").read()
    out_dir = sys.argv[2]
    only = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--model" else None
    seen = {}
    for m in re.finditer(r'model: "([^"]+)",\s*gguf:\s*', src):
        t = js_string(src[m.end():])
        if t and t not in seen:
            seen[t] = m.group(1)
        if only and m.group(1) == only:
            os.makedirs(out_dir, exist_ok=True)
            with open(os.path.join(out_dir, "chat_template.jinja"), "w", encoding="utf-8", newline="") as f:
                f.write(t)
            return
    if only:
        sys.exit("no template for model %s" % only)
    for n, (t, name) in enumerate(seen.items()):
        d = os.path.join(out_dir, "%03d_%s" % (n, re.sub(r"[^a-zA-Z0-9]+", "_", name).strip("_")))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "chat_template.jinja"), "w", encoding="utf-8", newline="") as f:
            f.write(t)
    print(len(seen))


if __name__ == "__main__":
    main()
