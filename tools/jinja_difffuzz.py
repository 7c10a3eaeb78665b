#!/usr/bin/python3
"""Differential fuzzing of `tessera template` against Python jinja2 (configured as transformers
does, tests/oracle/render_jinja2.py). Generates random templates — `expr` mode: expressions
over filters, tests, methods, operators and slices; `ws` mode: text, newlines and indentation
around block, comment, raw and variable tags with every whitespace-control sign — renders each
with both, and prints the ones whose output (or failing) differs.
`stmt` mode: set/for/if/macro/namespace/break/continue programs, for scoping.
Usage: tools/jinja_difffuzz.py TESSERA_BIN {expr|ws|stmt} [SEED] [COUNT]
Known, accepted gaps show up here and are not bugs to chase: generator addresses in str(),
Markup reprs, jinja2's lazy errors inside unconsumed generators, constant-folded literal slices.
"""
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "oracle"))
from render_jinja2 import compile_template  # noqa: E402

CTX = {"s": "hello world", "t": "  Tabs\tand\nnewlines  ", "u": "日本語 été", "n": 7, "f": 2.5, "l": [3, 1, 2],
       "d": {"k": 1, "j": [1, 2]}, "e": [], "msgs": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}
ATOMS = ["s", "t", "u", "n", "f", "l", "d", "e", "none", "true", "false", "0", "1", "-2", "3.5", "0.1", "'ab'",
         "'  Hé llo  '", "''", "'a,b,,c'", "[1, 2, 3]", "['b', 'A', 'c']", "{'k': 1, 'j': 'x'}", "(1, 'a')", "msgs", "nope"]
FILTERS = ["length", "trim", "upper", "lower", "title", "capitalize", "first", "last", "list", "string", "int", "float",
           "reverse", "unique", "sort", "tojson", "abs", "round", "sum", "min", "max", "items", "wordcount", "count",
           "default('D')", "join(',')", "join", "replace('a', 'X')", "indent(2)", "batch(2)", "map('string')",
           "select('odd')", "reject('none')", "selectattr('role', 'equalto', 'user')", "map(attribute='role')",
           "dictsort", "tojson(indent=2)", "sort(reverse=true)", "escape", "center(9)", "format(1)"]
METHODS = ["strip()", "lstrip()", "rstrip('o ')", "split()", "split(',')", "split(',', 1)", "rsplit(None, 1)",
           "startswith('a')", "endswith(('c', 'o'))", "upper()", "lower()", "title()", "capitalize()",
           "replace('l', 'L')", "find('l')", "count('l')", "splitlines()", "isdigit()", "isalpha()", "items()",
           "keys()", "values()", "get('k')", "get('z', 5)", "index(2)", "format(1, 2)", "zfill(6)"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">=", "in", "not in", "and", "or"]
TESTS = ["defined", "undefined", "none", "string", "number", "integer", "mapping", "iterable", "sequence",
         "odd", "even", "true", "false", "boolean", "in [1, 2]", "eq 1", "divisibleby 2", "lower", "upper"]


def expr(rng, depth=0):
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice(ATOMS)
    if r < 0.45:
        return "%s | %s" % (expr(rng, depth + 1), rng.choice(FILTERS))
    if r < 0.55:
        return "(%s).%s" % (expr(rng, depth + 1), rng.choice(METHODS))
    if r < 0.72:
        return "(%s %s %s)" % (expr(rng, depth + 1), rng.choice(BINOPS), expr(rng, depth + 1))
    if r < 0.8:
        return "(%s is %s%s)" % (expr(rng, depth + 1), rng.choice(["", "not "]), rng.choice(TESTS))
    if r < 0.88:
        return "(%s)[%s]" % (expr(rng, depth + 1), rng.choice(["0", "-1", "'k'", "5", "1"]))
    if r < 0.94:
        return "(%s if %s else %s)" % (expr(rng, depth + 1), expr(rng, depth + 1), expr(rng, depth + 1))
    return "not %s" % expr(rng, depth + 1)


def ws_template(rng):
    def text():
        return "".join(rng.choice(["a", "b", " ", "  ", "\t", "\n", "\n  ", "x\n", " \n"]) for _ in range(rng.randint(0, 4)))

    def sign():
        return rng.choice(["", "", "-", "+"])

    def block(depth):
        out = []
        for _ in range(rng.randint(1, 4)):
            out.append(text())
            k = rng.random()
            if k < 0.2 or depth > 2:
                out.append("{{%s x %s}}" % (rng.choice(["", "-"]), rng.choice(["", "-"])))
            elif k < 0.4:
                out.append("{%%%s if x %s%%}%s{%%%s endif %s%%}" % (sign(), sign(), block(depth + 1), sign(), sign()))
            elif k < 0.6:
                out.append("{%%%s for i in l %s%%}%s{{ i }}{%%%s endfor %s%%}" % (sign(), sign(), block(depth + 1), sign(), sign()))
            elif k < 0.7:
                out.append("{#%s c %s#}" % (sign(), sign()))
            elif k < 0.8:
                out.append("{%%%s set y = 1 %s%%}" % (sign(), sign()))
            elif k < 0.9:
                out.append("{%%%s raw %s%%}%s{{ r }}%s{%%%s endraw %s%%}" % (sign(), sign(), text(), text(), sign(), sign()))
            else:
                out.append("{%%%s if x %s%%}%s{%%%s else %s%%}%s{%%%s endif %s%%}" % (sign(), sign(), text(), sign(), sign(), text(), sign(), sign()))
        out.append(text())
        return "".join(out)

    return block(0)


def stmt_template(rng):
    names = ["a", "b", "c"]

    def val():
        return rng.choice(["a", "b", "c", "1", "'s'", "a ~ b", "ns.v", "loop.index if loop is defined else 0", "i if i is defined else -1"])

    def block(depth):
        out = []
        for _ in range(rng.randint(1, 4)):
            k = rng.random()
            if k < 0.25:
                out.append("{%% set %s = %s %%}" % (rng.choice(names), val()))
            elif k < 0.35:
                out.append("{%% set ns.v = %s %%}" % val())
            elif k < 0.55:
                out.append("[{{ %s }}]" % val())
            elif k < 0.7 and depth < 3:
                out.append("{%% for i in [1, 2, 3] %%}%s{%% endfor %%}" % block(depth + 1))
            elif k < 0.8 and depth < 3:
                out.append("{%% if %s %%}%s{%% else %%}%s{%% endif %%}" % (rng.choice(["i == 2", "a", "loop is defined and loop.last", "true"]), block(depth + 1), block(depth + 1)))
            elif k < 0.85:
                out.append(rng.choice(["{% if i is defined and i == 2 %}{% break %}{% endif %}", "{% if i is defined and i == 1 %}{% continue %}{% endif %}"]) if depth else "")
            elif k < 0.92 and depth < 2:
                out.append("{%% macro m%d(x, y=a) %%}%s({{ x }},{{ y }}){%% endmacro %%}{{ m%d(%s) }}" % (depth, block(depth + 1), depth, val()))
            else:
                out.append("{%% set %s %%}%s{%% endset %%}" % (rng.choice(names), block(depth + 1) if depth < 3 else "t"))
        return "".join(out)

    return "{% set ns = namespace(v=0) %}{% set a = 'A' %}" + block(0) + "|{{ a }}{{ b }}{{ c }}{{ ns.v }}"


def main():
    binary, mode = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    rng = random.Random(seed)
    ctx = dict(CTX, x="X") if mode == "ws" else CTX
    work = tempfile.mkdtemp()
    with open(os.path.join(work, "ctx.jsonl"), "w") as f:
        f.write(json.dumps(ctx) + "\n")
    bad = 0
    for _ in range(count):
        if mode == "ws":
            tpl = ws_template(rng)
        elif mode == "stmt":
            tpl = stmt_template(rng)
        else:
            tpl = "{{ %s }}" % expr(rng)
        try:
            want = compile_template(tpl).render(**copy.deepcopy(ctx))
        except Exception:
            want = None
        with open(os.path.join(work, "chat_template.json"), "w") as f:
            json.dump({"chat_template": tpl}, f)
        p = subprocess.run([binary, "template", "-m", work, "--jsonl", os.path.join(work, "ctx.jsonl")], capture_output=True, text=True)
        line = p.stdout.strip()
        got = json.loads(line) if line else None
        if got != want:
            bad += 1
            print("TEMPLATE %r\n  jinja2:  %r\n  tessera: %r %s" % (tpl, want, got, p.stderr.strip()[:160]))
    print("%d of %d differ" % (bad, count))


if __name__ == "__main__":
    main()
