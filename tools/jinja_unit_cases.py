#!/usr/bin/python3
"""Regenerates the `cases` table of src/text/jinja_test.c: each small template below is
rendered by Python jinja2 configured as transformers configures it (tests/oracle/render_jinja2.py)
and its output becomes the expected string, so every unit case is an oracle check. Edit CASES,
run this script, then `clang-format -i src/text/jinja_test.c`. A case that makes jinja2 raise
is refused here: error cases are written by hand in the test, with their line:column.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
from render_jinja2 import compile_template  # noqa: E402

# (name, template, context as JSON)
CASES = [
 # whitespace control, trim_blocks, lstrip_blocks
 ("ws_dash", "a  {{- 'b' -}}  c", "{}"),
 ("ws_block_dash", "x\n  {%- if true -%}\n  y\n  {%- endif -%}\n z", "{}"),
 ("trim_blocks", "{% if true %}\nyes\n{% endif %}\nend", "{}"),
 ("lstrip_blocks", "line\n    {% if true %}\n    body\n    {% endif %}\ndone", "{}"),
 ("lstrip_plus", "a\n  {%+ if true %}b{% endif %}", "{}"),
 ("var_no_trim", "{{ 'a' }}\nb", "{}"),
 ("comment", "a {# note #}\nb\n  {# indented #}\nc", "{}"),
 ("comment_dash", "a {#- note -#}   b", "{}"),
 ("trailing_newline", "x\n", "{}"),
 ("crlf", "a\r\n{% if true %}\r\nb\r\n{% endif %}\r\n", "{}"),
 # literals and operators
 ("literals", "{{ 1 }} {{ 1.5 }} {{ 'a' ~ \"b\" }} {{ true }} {{ True }} {{ none }} {{ None }} {{ [1, 'x'] }} {{ {'k': 'v'} }} {{ (1, 2) }} {{ (1,) }}", "{}"),
 ("string_escapes", "{{ 'a\\nb\\t\\'q\\' \\u00e9 \\x41 \\\\ \\d' }}", "{}"),
 ("arith", "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }} {{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 10 - 2 - 3 }}", "{}"),
 ("float_str", "{{ 1.0 }} {{ 0.1 }} {{ 1e20 }} {{ 1.5e-7 }} {{ 3 / 1 }} {{ 0.1 + 0.2 }} {{ 2.5 * 2 }}", "{}"),
 ("str_ops", "{{ 'ab' * 3 }} {{ 'a' + 'b' }} {{ 1 ~ 2 }} {{ [1] + [2] }}", "{}"),
 ("compare", "{{ 1 < 2 }} {{ 2 <= 1 }} {{ 'a' < 'b' }} {{ 1 == 1.0 }} {{ 1 != 2 }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}", "{}"),
 ("logic", "{{ true and 'x' }} {{ false or 'y' }} {{ not 0 }} {{ 0 or '' or 'z' }} {{ none and 1 }}", "{}"),
 ("in_ops", "{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'z' not in 'cat' }} {{ 3 not in [1] }}", "{}"),
 ("ternary", "{{ 'y' if x else 'n' }} {{ 'y' if not x else 'n' }}[{{ 'only' if x }}]", "{\"x\": false}"),
 ("neg_unary", "{{ -x }} {{ -(1 + 2) }} {{ +3 }}", "{\"x\": 4}"),
 # variables, attributes, items
 ("attr_item", "{{ m.role }} {{ m['content'] }} {{ m.get('role') }} {{ m.get('nope', 'dflt') }} {{ l[0] }} {{ l[-1] }} {{ l.1 }}", "{\"m\": {\"role\": \"user\", \"content\": \"hi\"}, \"l\": [\"a\", \"b\", \"c\"]}"),
 ("undefined", "[{{ nope }}][{{ m.missing }}][{{ l[10] }}]{{ nope is defined }} {{ nope is undefined }} {% if nope %}t{% else %}f{% endif %}", "{\"m\": {}, \"l\": []}"),
 ("undefined_ops", "{{ nope | default('d') }} {{ nope | length }} {{ '' ~ nope ~ 'x' }} {{ nope | string }}|{% for x in nope %}{{ x }}{% endfor %}|{{ 'a' in nope }}", "{}"),
 ("none_value", "{{ v }} {{ v is none }} {{ v | default('d') }} {{ v | default('d', true) }}", "{\"v\": null}"),
 ("dict_method_vs_key", "{{ d['items'] }} {{ d.keys() | list }}", "{\"d\": {\"items\": 5, \"a\": 1}}"),
 # slicing
 ("slicing", "{{ l[1:] }} {{ l[:2] }} {{ l[::-1] }} {{ l[-2:] }} {{ l[1:-1] }} {{ l[::2] }} {{ s[1:4] }} {{ s[::-1] }} {{ s[-3:] }}", "{\"l\": [1, 2, 3, 4, 5], \"s\": \"h\u00e9llo w\u00f6rld\"}"),
 ("unicode_len", "{{ s | length }} {{ s[0] }} {{ s[-1] }} {{ s | upper }} {{ s | reverse }}", "{\"s\": \"\u00e9t\u00e9 \u65e5\u672c\"}"),
 # loops
 ("loop_vars", "{% for x in l %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}|{% endfor %}", "{\"l\": [\"a\", \"b\", \"c\"]}"),
 ("loop_prev_next", "{% for x in l %}{{ loop.previtem | default('-') }}{{ x }}{{ loop.nextitem | default('-') }} {% endfor %}", "{\"l\": [1, 2, 3]}"),
 ("loop_else", "{% for x in [] %}{{ x }}{% else %}empty{% endfor %}", "{}"),
 ("loop_filter", "{% for x in l if x is odd %}{{ x }}{{ loop.length }}{% endfor %}", "{\"l\": [1, 2, 3, 4, 5]}"),
 ("loop_unpack", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{% for a, b in [[1, 2], [3, 4]] %}{{ a + b }}{% endfor %}", "{\"d\": {\"x\": 1, \"y\": 2}}"),
 ("loop_dict", "{% for k in d %}{{ k }}{% endfor %}", "{\"d\": {\"x\": 1, \"y\": 2}}"),
 ("loop_string", "{% for c in 'h\u00e9' %}[{{ c }}]{% endfor %}", "{}"),
 ("loop_break_continue", "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x > 4 %}{% break %}{% endif %}{{ x }}{% endfor %}", "{}"),
 ("loop_scope", "{% set y = 0 %}{% for x in [1, 2] %}{% set y = y + x %}{{ y }}{% endfor %}|{{ y }}", "{}"),
 ("loop_nested", "{% for a in [1, 2] %}{% for b in [3, 4] %}{{ loop.index }}{{ a }}{{ b }} {% endfor %}{% endfor %}", "{}"),
 ("loop_cycle", "{% for x in range(4) %}{{ loop.cycle('a', 'b') }}{% endfor %}", "{}"),
 ("range", "{{ range(3) | list }} {{ range(1, 7, 2) | list }} {{ range(5, 0, -2) | list }}", "{}"),
 # set / namespace / blocks
 ("set_basic", "{% set a = 1 %}{% set b, c = 2, 3 %}{{ a }}{{ b }}{{ c }}", "{}"),
 ("namespace", "{% set ns = namespace(count=0, found=false) %}{% for x in [1, 2, 3] %}{% set ns.count = ns.count + x %}{% if x == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.count }} {{ ns.found }}", "{}"),
 ("set_block", "{% set body %}Hello {{ name }}!{% endset %}[{{ body }}]", "{\"name\": \"W\"}"),
 ("set_block_filter", "{% set body | upper %}abc{% endset %}{{ body }}", "{}"),
 ("filter_block", "{% filter upper %}hello {{ 'x' }}{% endfilter %}", "{}"),
 ("if_elif", "{% for x in [1, 2, 3] %}{% if x == 1 %}one{% elif x == 2 %}two{% else %}many{% endif %} {% endfor %}", "{}"),
 # macros
 ("macro", "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('A') }} {{ greet('B', '?') }} {{ greet(punct='.', name='C') }}", "{}"),
 ("macro_caller", "{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}{% call wrap('b') %}bold{% endcall %}", "{}"),
 ("macro_varargs", "{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, 3, k=4) }}", "{}"),
 ("macro_missing_arg", "{% macro m(a, b) %}[{{ a }}][{{ b }}]{% endmacro %}{{ m(1) }}", "{}"),
 # tests
 ("tests", "{{ 'a' is string }} {{ 1 is number }} {{ 1 is integer }} {{ 1.5 is float }} {{ {} is mapping }} {{ [] is iterable }} {{ 'x' is iterable }} {{ [] is sequence }} {{ true is boolean }} {{ true is true }} {{ 0 is false }} {{ 4 is even }} {{ 3 is odd }} {{ 9 is divisibleby 3 }} {{ 2 is in [1, 2] }} {{ 1 is eq 1 }} {{ 'a' is equalto 'a' }} {{ 3 is gt 2 }} {{ 'abc' is lower }} {{ none is none }} {{ x is not defined }}", "{}"),
 ("test_boolean_number", "{{ true is number }} {{ true is integer }} {{ 1 is sameas 1 }} {{ none is sameas none }}", "{}"),
 # filters
 ("filters_str", "{{ '  x  ' | trim }}|{{ 'xxhixx' | trim('x') }}|{{ 'abc' | upper }}|{{ 'ABC' | lower }}|{{ 'hello world-foo (bar)' | title }}|{{ 'hELLO' | capitalize }}|{{ 'aaa' | replace('a', 'b', 2) }}|{{ 'a b  c' | wordcount }}", "{}"),
 ("filters_list", "{{ [3, 1, 2] | sort }} {{ [3, 1, 2] | sort(reverse=true) }} {{ ['b', 'A', 'c'] | sort }} {{ ['b', 'A', 'c'] | sort(case_sensitive=true) }} {{ [1, 2, 3] | first }} {{ [1, 2, 3] | last }} {{ [1, 2, 3] | reverse | list }} {{ [1, 2, 2, 3, 1] | unique | list }} {{ ['a', 'A', 'b'] | unique | list }}", "{}"),
 ("filters_join", "{{ [1, 2, 3] | join(', ') }} {{ ['a', 'b'] | join }} {{ users | join('/', attribute='name') }}", "{\"users\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}"),
 ("filters_select", "{{ [1, 2, 3, 4] | select('odd') | list }} {{ [1, 2, 3, 4] | reject('odd') | list }} {{ [0, 1, '', 'a'] | select | list }} {{ items | selectattr('type', 'equalto', 'text') | map(attribute='text') | list }} {{ items | rejectattr('type', 'equalto', 'text') | list | length }} {{ items | selectattr('text') | list | length }}", "{\"items\": [{\"type\": \"image\"}, {\"type\": \"text\", \"text\": \"hi\"}, {\"type\": \"text\", \"text\": \"yo\"}]}"),
 ("filters_map", "{{ ['a', 'b'] | map('upper') | list }} {{ users | map(attribute='age') | sum }} {{ users | map(attribute='nope', default='?') | list }} {{ ['1', '2'] | map('int') | sum }}", "{\"users\": [{\"age\": 3}, {\"age\": 4}]}"),
 ("filters_num", "{{ '42' | int }} {{ '4.7' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ 3 | float }} {{ '2.5' | float }} {{ -3 | abs }} {{ 2.567 | round(2) }} {{ 2.5 | round }} {{ 3.5 | round }} {{ 2.1 | round(0, 'ceil') }} {{ [3, 1, 2] | max }} {{ [3, 1, 2] | min }} {{ [1, 2, 3] | sum }} {{ [1.5, 2] | sum }}", "{}"),
 ("filters_misc", "{{ {'b': 1, 'a': 2} | dictsort }} {{ {'b': 1, 'a': 2} | items | list }} {{ 'x' | list }} {{ [1, 2, 3, 4, 5] | batch(2) | list }} {{ [1, 2, 3] | batch(2, 0) | list }} {{ 5 | string }} {{ [1, 2] | length }} {{ {'a': 1} | count }} {{ 'x' | safe }} {{ '<a href=\"x\">&\\'' | escape }} {{ '%s-%d' | format('a', 3) }}", "{}"),
 ("filter_indent", "{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n\\nb' | indent('>', blank=true) }}", "{}"),
 ("tojson", "{{ d | tojson }}|{{ d | tojson(indent=2) }}|{{ [] | tojson }}|{{ {} | tojson(indent=2) }}|{{ 'caf\u00e9 \"q\" \\n' | tojson }}|{{ [1, 2.5, true, none] | tojson }}|{{ d | tojson(separators=(',', ':')) }}|{{ {'b': 1, 'a': 2} | tojson(sort_keys=true) }}", "{\"d\": {\"name\": \"f\", \"args\": {\"x\": [1, {\"y\": null}], \"z\": \"\u00e9\"}}}"),
 ("tojson_indent_nested", "{{ t | tojson(indent=4) }}", "{\"t\": {\"type\": \"function\", \"function\": {\"name\": \"get\", \"parameters\": {\"properties\": {}, \"required\": [\"a\", \"b\"]}}}}"),
 # string methods
 ("str_strip", "[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}][{{ 'xxaxx'.strip('x') }}][{{ '\\n\\nz\\n'.lstrip('\\n') }}][{{ 'ab--'.rstrip('-') }}]", "{\"s\": \"  hi \\u00a0\"}"),
 ("str_split", "{{ 'a,b,,c'.split(',') }} {{ '  a  b c '.split() }} {{ 'a b c d'.split(' ', 1) }} {{ 'a b c d'.rsplit(' ', 1) }} {{ 'x</think>y</think>z'.split('</think>')[-1] }} {{ ' a  b '.split(None, 1) }} {{ ' a  b  '.rsplit(None, 1) }}", "{}"),
 ("str_affix", "{{ s.startswith('<tool') }} {{ s.endswith('>') }} {{ s.startswith(('x', '<t')) }} {{ s.endswith(('a', 'b')) }}", "{\"s\": \"<tool_response>\"}"),
 ("str_case", "{{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }} {{ 'ab'.upper() }} {{ 'AB'.lower() }} {{ \"they're bill's\".title() }}", "{}"),
 ("str_find", "{{ 'hello'.find('l') }} {{ 'hello'.rfind('l') }} {{ 'hello'.find('z') }} {{ 'h\u00e9llo'.find('l') }} {{ 'banana'.count('an') }} {{ 'a-b-c'.replace('-', '+') }} {{ 'a-b-c'.replace('-', '+', 1) }}", "{}"),
 ("str_misc", "{{ ', '.join(['a', 'b']) }} {{ 'a\\nb\\r\\nc'.splitlines() }} {{ '123'.isdigit() }} {{ '12a'.isdigit() }} {{ 'abc'.isalpha() }} {{ '  '.isspace() }} {{ 'ABC'.isupper() }} {{ '{} and {}'.format('x', 1) }} {{ '{0}{name}'.format('a', name='b') }}", "{}"),
 ("str_percent", "{{ '%s is %d' % ('x', 3) }} {{ '%05.1f' % 3.14159 }}", "{}"),
 ("raise_ok", "{% if false %}{{ raise_exception('no') }}{% endif %}ok", "{}"),
 ("is_string_content", "{% for m in messages %}{% if m.content is string %}S{% else %}{% for p in m.content %}{{ p.type[0] }}{% endfor %}{% endif %}{% endfor %}", "{\"messages\": [{\"content\": \"x\"}, {\"content\": [{\"type\": \"image\"}, {\"type\": \"text\"}]}]}"),

 ("raw_block", "a\n  {% raw %}\n  {{ x }}\n  {% endraw %}\nb|{%- raw -%}  {{ y }}  {%- endraw -%} |{% raw %}{% if %}{% endraw %}", "{}"),
 ("call_with_args", "{% macro list(items) %}{% for i in items %}{{ caller(i) }}{% endfor %}{% endmacro %}{% call(x) list([1, 2]) %}<{{ x }}>{% endcall %}", "{}"),
 ("macro_default_expr", "{% macro m(a, b=a * 2) %}{{ a }},{{ b }}{% endmacro %}{{ m(3) }} {{ m(3, 1) }}", "{}"),
 ("outer_loop", "{% for a in 'ab' %}{% set outer = loop %}{% for b in 'xy' %}{{ outer.index }}{{ loop.index }}{% endfor %};{% endfor %}", "{}"),
 ("dict_global", "{{ dict(a=1, b='x') }} {{ dict(a=1).items() | list }}", "{}"),
 ("tojson_ascii_ctrl", "{{ 'caf\u00e9\u0001\u007f\U0001F600' | tojson(ensure_ascii=true) }} {{ '\u0001\b\f' | tojson }}", "{}"),
 ("strftime", "{{ strftime_now('%Y') | length }}", "{}"),
 ("generation_tag", "{% for m in messages %}{% generation %}[{{ m }}]{% endgeneration %}{% endfor %}", "{\"messages\": [\"a\", \"b\"]}"),
 ("none_and_bool_str", "{{ none | string }} {{ true | string }} {{ [none, true, 1.0, 'x\\'y'] }} {{ {'a': none} }}", "{}"),
 ("json_floats", "{{ x }} {{ y }} {{ z }} {{ x | tojson }} {{ [x, y, z] | tojson }}", "{\"x\": 20.0, \"y\": 1e-05, \"z\": 1e21}"),
 ("str_of_float_keys", "{{ {1: 'a', 2.5: 'b', (1, 2): 'c'} }}", "{}"),
 ("test_in_chained", "{{ 1 is in [1] and 'a' is string or false }} {{ not 'a' in 'b' }} {{ -2 ** 2 }} {{ 2 ** 3 ** 2 }}", "{}"),
 ("with_block", "{% set a = 1 %}{% with a = 2, b = a %}{{ a }}{{ b }}{% set c = 3 %}{% endwith %}{{ a }}[{{ c }}]", "{}"),
 ("namespace_truthy", "{% set ns = namespace() %}{{ 1 if ns else 0 }}{{ ns is mapping }}{% set ns2 = namespace({'a': 1}, b=2) %}{{ ns2.a }}{{ ns2.b }}", "{}"),
 ("generators_and_views", "{{ 'T' if ([] | select('odd')) else 'F' }} {{ ([1, 2] | map('string'))[0] is defined }} {{ d.items() }} {{ d.keys() | list }} {{ d.values() | length }} {{ [1, 2] | reverse | list }} {{ [3, 1] | map('string') | sort | join }} {{ d | dictsort }}", "{\"d\": {\"b\": 1, \"a\": 2}}"),
 ("tests_on_str_of_value", "{{ (1, 'a') is lower }} {{ 2.5 is even }} {{ 4.0 is divisibleby 2 }} {{ true | round }}", "{}"),
 ("lazy_generators", "{{ 'T' if (['a'] | select('odd')) else 'F' }} {{ (0.5 | map('upper')) is defined }} {{ '' % nope }}{{ 1 // 0.1 }}", "{}"),
 ("block_scopes", "{% set a = 1 %}{% set t %}{% set a = 2 %}{{ a }}{% endset %}{% filter upper %}{% set a = 3 %}x{{ a }}{% endfilter %}{{ t }}{{ a }}", "{}"),
 ("break_in_set_block", "{% for i in [1, 2, 3] %}{% set t %}{{ i }}{% if i == 2 %}{% break %}{% endif %}{% endset %}[{{ t }}]{% endfor %}", "{}"),
 ("macro_caller_optional", "{% macro m() %}[{{ caller() if caller else 'none' }}]{% endmacro %}{{ m() }}{% call m() %}c{% endcall %}", "{}"),
 ("special_casing", "{{ 'straße ﬁne' | upper }} {{ 'ǆemal ﬂow'.title() }} {{ 'ŉ' | capitalize }} {{ 'İ'.lower() | length }} {{ 'ﬀ-x' | title }}", "{}"),
 ("final_sigma", "{{ 'ΟΔΥΣΣΕΥΣ Σ ΑΣ. ΑΣ\\'Β aΣ' | lower }}|{{ 'ΟΔΥΣΣΕΥΣ ΑΣ' | title }}|{{ 'ΣΑΣ' | capitalize }}|{{ 'ΟΔΥΣΣΕΥΣ-ΑΣ'.title() }}", "{}"),
]


def c_string(s):
    out = '"'
    for ch in s.encode("utf-8"):
        if ch == 0x22:
            out += '\\"'
        elif ch == 0x5C:
            out += "\\\\"
        elif ch == 0x0A:
            out += "\\n"
        elif ch == 0x0D:
            out += "\\r"
        elif ch == 0x09:
            out += "\\t"
        elif ch < 0x20 or ch >= 0x7F:
            out += "\\%03o" % ch
        else:
            out += chr(ch)
    return out + '"'


def main():
    rows = []
    for name, template, context in CASES:
        try:
            expected = compile_template(template).render(**json.loads(context))
        except Exception as e:
            sys.exit("case %s: jinja2 raised %s: %s" % (name, type(e).__name__, e))
        rows.append("    {%s, %s, %s, %s}," % tuple(map(c_string, (name, template, context, expected))))
    path = os.path.join(ROOT, "src", "text", "jinja_test.c")
    src = open(path, encoding="utf-8").read()
    begin = src.index("} cases[] = {\n") + len("} cases[] = {\n")
    end = src.index("\n};\n", begin)
    with open(path, "w", encoding="utf-8") as f:
        f.write(src[:begin] + "\n".join(rows) + src[end:])
    print("%d cases -> %s" % (len(rows), os.path.relpath(path)))


if __name__ == "__main__":
    main()
