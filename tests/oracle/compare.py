#!/usr/bin/python3
"""Compares renderings line by line: ours against Python jinja2 (must match exactly, and a line
must fail in both or neither), and optionally @huggingface/jinja against Python jinja2 (counted
only). Usage: compare.py LABEL CORPUS OURS PY [JS]; prints one summary line, details of every
mismatch, and exits 1 on any ours/py mismatch."""
import json
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    label, corpus, ours, py = sys.argv[1:5]
    ids = [json.loads(l)["id"] if l.strip().startswith("{") else str(i) for i, l in enumerate(open(corpus, encoding="utf-8")) if l.strip()]
    a, b = read(ours), read(py)
    js = read(sys.argv[5]) if len(sys.argv) > 5 else None
    if len(a) != len(ids) or len(b) != len(ids):
        print("%s: line count mismatch: corpus %d, ours %d, python %d" % (label, len(ids), len(a), len(b)))
        sys.exit(1)
    match = mismatch = both_error = 0
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            match += 1
            both_error += x is None
        else:
            mismatch += 1
            print("  MISMATCH %s [%s]\n    ours:   %s\n    python: %s" % (label, ids[i], json.dumps(x, ensure_ascii=False)[:400], json.dumps(y, ensure_ascii=False)[:400]))
    js_diff = sum(1 for x, y in zip(js, b) if x != y) if js is not None else None
    print("%s: %d conversations, %d match (%d both raise), %d mismatch%s" % (
        label, len(ids), match, both_error, mismatch,
        "" if js_diff is None else "; @huggingface/jinja differs from python on %d" % js_diff))
    sys.exit(1 if mismatch else 0)


if __name__ == "__main__":
    main()
