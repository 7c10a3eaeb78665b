/* jinja_test.c — the Jinja engine on small templates with exact expected output, and on
 * broken or hostile templates whose errors must say where (origin:line:column).
 *
 * The expected strings of `cases` were produced by Python jinja2 configured as transformers
 * configures it (tests/oracle/render_jinja2.py), so each case is an oracle check; edit and
 * regenerate them with tools/jinja_unit_cases.py.
 */
#include "check.h"
#include "tessera.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *template, *context, *expected;
} cases[] = {
    {"ws_dash", "a  {{- 'b' -}}  c", "{}", "abc"},
    {"ws_block_dash", "x\n  {%- if true -%}\n  y\n  {%- endif -%}\n z", "{}", "xyz"},
    {"trim_blocks", "{% if true %}\nyes\n{% endif %}\nend", "{}", "yes\nend"},
    {"lstrip_blocks", "line\n    {% if true %}\n    body\n    {% endif %}\ndone", "{}",
     "line\n    body\ndone"},
    {"lstrip_plus", "a\n  {%+ if true %}b{% endif %}", "{}", "a\n  b"},
    {"var_no_trim", "{{ 'a' }}\nb", "{}", "a\nb"},
    {"comment", "a {# note #}\nb\n  {# indented #}\nc", "{}", "a b\nc"},
    {"comment_dash", "a {#- note -#}   b", "{}", "ab"},
    {"trailing_newline", "x\n", "{}", "x"},
    {"crlf", "a\r\n{% if true %}\r\nb\r\n{% endif %}\r\n", "{}", "a\nb\n"},
    {"literals",
     "{{ 1 }} {{ 1.5 }} {{ 'a' ~ \"b\" }} {{ true }} {{ True }} {{ none }} {{ None }} {{ [1, 'x'] "
     "}} {{ {'k': 'v'} }} {{ (1, 2) }} {{ (1,) }}",
     "{}", "1 1.5 ab True True None None [1, 'x'] {'k': 'v'} (1, 2) (1,)"},
    {"string_escapes", "{{ 'a\\nb\\t\\'q\\' \\u00e9 \\x41 \\\\ \\d' }}", "{}",
     "a\nb\t'q' \303\251 A \\ \\d"},
    {"arith",
     "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }} {{ 1 + 2 * 3 "
     "}} {{ (1 + 2) * 3 }} {{ 10 - 2 - 3 }}",
     "{}", "3 -4 1 2 3.5 1024 7 9 5"},
    {"float_str",
     "{{ 1.0 }} {{ 0.1 }} {{ 1e20 }} {{ 1.5e-7 }} {{ 3 / 1 }} {{ 0.1 + 0.2 }} {{ 2.5 * 2 }}", "{}",
     "1.0 0.1 1e+20 1.5e-07 3.0 0.30000000000000004 5.0"},
    {"str_ops", "{{ 'ab' * 3 }} {{ 'a' + 'b' }} {{ 1 ~ 2 }} {{ [1] + [2] }}", "{}",
     "ababab ab 12 [1, 2]"},
    {"compare",
     "{{ 1 < 2 }} {{ 2 <= 1 }} {{ 'a' < 'b' }} {{ 1 == 1.0 }} {{ 1 != 2 }} {{ 1 < 2 < 3 }} {{ 3 > "
     "2 > 2 }}",
     "{}", "True False True True True True False"},
    {"logic",
     "{{ true and 'x' }} {{ false or 'y' }} {{ not 0 }} {{ 0 or '' or 'z' }} {{ none and 1 }}",
     "{}", "x y True z None"},
    {"in_ops",
     "{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'z' not in 'cat' }} {{ 3 not "
     "in [1] }}",
     "{}", "True True True True True"},
    {"ternary", "{{ 'y' if x else 'n' }} {{ 'y' if not x else 'n' }}[{{ 'only' if x }}]",
     "{\"x\": false}", "n y[]"},
    {"neg_unary", "{{ -x }} {{ -(1 + 2) }} {{ +3 }}", "{\"x\": 4}", "-4 -3 3"},
    {"attr_item",
     "{{ m.role }} {{ m['content'] }} {{ m.get('role') }} {{ m.get('nope', 'dflt') }} {{ l[0] }} "
     "{{ l[-1] }} {{ l.1 }}",
     "{\"m\": {\"role\": \"user\", \"content\": \"hi\"}, \"l\": [\"a\", \"b\", \"c\"]}",
     "user hi user dflt a c b"},
    {"undefined",
     "[{{ nope }}][{{ m.missing }}][{{ l[10] }}]{{ nope is defined }} {{ nope is undefined }} {% "
     "if nope %}t{% else %}f{% endif %}",
     "{\"m\": {}, \"l\": []}", "[][][]False True f"},
    {"undefined_ops",
     "{{ nope | default('d') }} {{ nope | length }} {{ '' ~ nope ~ 'x' }} {{ nope | string }}|{% "
     "for x in nope %}{{ x }}{% endfor %}|{{ 'a' in nope }}",
     "{}", "d 0 x ||False"},
    {"none_value", "{{ v }} {{ v is none }} {{ v | default('d') }} {{ v | default('d', true) }}",
     "{\"v\": null}", "None True None d"},
    {"dict_method_vs_key", "{{ d['items'] }} {{ d.keys() | list }}",
     "{\"d\": {\"items\": 5, \"a\": 1}}", "5 ['items', 'a']"},
    {"slicing",
     "{{ l[1:] }} {{ l[:2] }} {{ l[::-1] }} {{ l[-2:] }} {{ l[1:-1] }} {{ l[::2] }} {{ s[1:4] }} "
     "{{ s[::-1] }} {{ s[-3:] }}",
     "{\"l\": [1, 2, 3, 4, 5], \"s\": \"h\303\251llo w\303\266rld\"}",
     "[2, 3, 4, 5] [1, 2] [5, 4, 3, 2, 1] [4, 5] [2, 3, 4] [1, 3, 5] \303\251ll dlr\303\266w "
     "oll\303\251h rld"},
    {"unicode_len", "{{ s | length }} {{ s[0] }} {{ s[-1] }} {{ s | upper }} {{ s | reverse }}",
     "{\"s\": \"\303\251t\303\251 \346\227\245\346\234\254\"}",
     "6 \303\251 \346\234\254 \303\211T\303\211 \346\227\245\346\234\254 \346\234\254\346\227\245 "
     "\303\251t\303\251"},
    {"loop_vars",
     "{% for x in l %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ "
     "loop.first }}{{ loop.last }}{{ loop.length }}|{% endfor %}",
     "{\"l\": [\"a\", \"b\", \"c\"]}", "1032TrueFalse3|2121FalseFalse3|3210FalseTrue3|"},
    {"loop_prev_next",
     "{% for x in l %}{{ loop.previtem | default('-') }}{{ x }}{{ loop.nextitem | default('-') }} "
     "{% endfor %}",
     "{\"l\": [1, 2, 3]}", "-12 123 23- "},
    {"loop_else", "{% for x in [] %}{{ x }}{% else %}empty{% endfor %}", "{}", "empty"},
    {"loop_filter", "{% for x in l if x is odd %}{{ x }}{{ loop.length }}{% endfor %}",
     "{\"l\": [1, 2, 3, 4, 5]}", "133353"},
    {"loop_unpack",
     "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{% for a, b in [[1, 2], [3, 4]] %}{{ "
     "a + b }}{% endfor %}",
     "{\"d\": {\"x\": 1, \"y\": 2}}", "x=1;y=2;37"},
    {"loop_dict", "{% for k in d %}{{ k }}{% endfor %}", "{\"d\": {\"x\": 1, \"y\": 2}}", "xy"},
    {"loop_string", "{% for c in 'h\303\251' %}[{{ c }}]{% endfor %}", "{}", "[h][\303\251]"},
    {"loop_break_continue",
     "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x > 4 %}{% break %}{% "
     "endif %}{{ x }}{% endfor %}",
     "{}", "0134"},
    {"loop_scope",
     "{% set y = 0 %}{% for x in [1, 2] %}{% set y = y + x %}{{ y }}{% endfor %}|{{ y }}", "{}",
     "12|0"},
    {"loop_nested",
     "{% for a in [1, 2] %}{% for b in [3, 4] %}{{ loop.index }}{{ a }}{{ b }} {% endfor %}{% "
     "endfor %}",
     "{}", "113 214 123 224 "},
    {"loop_cycle", "{% for x in range(4) %}{{ loop.cycle('a', 'b') }}{% endfor %}", "{}", "abab"},
    {"range", "{{ range(3) | list }} {{ range(1, 7, 2) | list }} {{ range(5, 0, -2) | list }}",
     "{}", "[0, 1, 2] [1, 3, 5] [5, 3, 1]"},
    {"set_basic", "{% set a = 1 %}{% set b, c = 2, 3 %}{{ a }}{{ b }}{{ c }}", "{}", "123"},
    {"namespace",
     "{% set ns = namespace(count=0, found=false) %}{% for x in [1, 2, 3] %}{% set ns.count = "
     "ns.count + x %}{% if x == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.count }} "
     "{{ ns.found }}",
     "{}", "6 True"},
    {"set_block", "{% set body %}Hello {{ name }}!{% endset %}[{{ body }}]", "{\"name\": \"W\"}",
     "[Hello W!]"},
    {"set_block_filter", "{% set body | upper %}abc{% endset %}{{ body }}", "{}", "ABC"},
    {"filter_block", "{% filter upper %}hello {{ 'x' }}{% endfilter %}", "{}", "HELLO X"},
    {"if_elif",
     "{% for x in [1, 2, 3] %}{% if x == 1 %}one{% elif x == 2 %}two{% else %}many{% endif %} {% "
     "endfor %}",
     "{}", "one two many "},
    {"macro",
     "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('A') }} {{ "
     "greet('B', '?') }} {{ greet(punct='.', name='C') }}",
     "{}", "Hi A! Hi B? Hi C."},
    {"macro_caller",
     "{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}{% call wrap('b') "
     "%}bold{% endcall %}",
     "{}", "<b>bold</b>"},
    {"macro_varargs",
     "{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, 3, k=4) }}", "{}",
     "1(2, 3){'k': 4}"},
    {"macro_missing_arg", "{% macro m(a, b) %}[{{ a }}][{{ b }}]{% endmacro %}{{ m(1) }}", "{}",
     "[1][]"},
    {"tests",
     "{{ 'a' is string }} {{ 1 is number }} {{ 1 is integer }} {{ 1.5 is float }} {{ {} is mapping "
     "}} {{ [] is iterable }} {{ 'x' is iterable }} {{ [] is sequence }} {{ true is boolean }} {{ "
     "true is true }} {{ 0 is false }} {{ 4 is even }} {{ 3 is odd }} {{ 9 is divisibleby 3 }} {{ "
     "2 is in [1, 2] }} {{ 1 is eq 1 }} {{ 'a' is equalto 'a' }} {{ 3 is gt 2 }} {{ 'abc' is lower "
     "}} {{ none is none }} {{ x is not defined }}",
     "{}",
     "True True True True True True True True True True False True True True True True True True "
     "True True True"},
    {"test_boolean_number",
     "{{ true is number }} {{ true is integer }} {{ 1 is sameas 1 }} {{ none is sameas none }}",
     "{}", "True False True True"},
    {"filters_str",
     "{{ '  x  ' | trim }}|{{ 'xxhixx' | trim('x') }}|{{ 'abc' | upper }}|{{ 'ABC' | lower }}|{{ "
     "'hello world-foo (bar)' | title }}|{{ 'hELLO' | capitalize }}|{{ 'aaa' | replace('a', 'b', "
     "2) }}|{{ 'a b  c' | wordcount }}",
     "{}", "x|hi|ABC|abc|Hello World-Foo (Bar)|Hello|bba|3"},
    {"filters_list",
     "{{ [3, 1, 2] | sort }} {{ [3, 1, 2] | sort(reverse=true) }} {{ ['b', 'A', 'c'] | sort }} {{ "
     "['b', 'A', 'c'] | sort(case_sensitive=true) }} {{ [1, 2, 3] | first }} {{ [1, 2, 3] | last "
     "}} {{ [1, 2, 3] | reverse | list }} {{ [1, 2, 2, 3, 1] | unique | list }} {{ ['a', 'A', 'b'] "
     "| unique | list }}",
     "{}",
     "[1, 2, 3] [3, 2, 1] ['A', 'b', 'c'] ['A', 'b', 'c'] 1 3 [3, 2, 1] [1, 2, 3] ['a', 'b']"},
    {"filters_join",
     "{{ [1, 2, 3] | join(', ') }} {{ ['a', 'b'] | join }} {{ users | join('/', attribute='name') "
     "}}",
     "{\"users\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}", "1, 2, 3 ab x/y"},
    {"filters_select",
     "{{ [1, 2, 3, 4] | select('odd') | list }} {{ [1, 2, 3, 4] | reject('odd') | list }} {{ [0, "
     "1, '', 'a'] | select | list }} {{ items | selectattr('type', 'equalto', 'text') | "
     "map(attribute='text') | list }} {{ items | rejectattr('type', 'equalto', 'text') | list | "
     "length }} {{ items | selectattr('text') | list | length }}",
     "{\"items\": [{\"type\": \"image\"}, {\"type\": \"text\", \"text\": \"hi\"}, {\"type\": "
     "\"text\", \"text\": \"yo\"}]}",
     "[1, 3] [2, 4] [1, 'a'] ['hi', 'yo'] 1 2"},
    {"filters_map",
     "{{ ['a', 'b'] | map('upper') | list }} {{ users | map(attribute='age') | sum }} {{ users | "
     "map(attribute='nope', default='?') | list }} {{ ['1', '2'] | map('int') | sum }}",
     "{\"users\": [{\"age\": 3}, {\"age\": 4}]}", "['A', 'B'] 7 ['?', '?'] 3"},
    {"filters_num",
     "{{ '42' | int }} {{ '4.7' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ 3 | float }} {{ "
     "'2.5' | float }} {{ -3 | abs }} {{ 2.567 | round(2) }} {{ 2.5 | round }} {{ 3.5 | round }} "
     "{{ 2.1 | round(0, 'ceil') }} {{ [3, 1, 2] | max }} {{ [3, 1, 2] | min }} {{ [1, 2, 3] | sum "
     "}} {{ [1.5, 2] | sum }}",
     "{}", "42 4 0 7 3.0 2.5 3 2.57 2.0 4.0 3.0 3 1 6 3.5"},
    {"filters_misc",
     "{{ {'b': 1, 'a': 2} | dictsort }} {{ {'b': 1, 'a': 2} | items | list }} {{ 'x' | list }} {{ "
     "[1, 2, 3, 4, 5] | batch(2) | list }} {{ [1, 2, 3] | batch(2, 0) | list }} {{ 5 | string }} "
     "{{ [1, 2] | length }} {{ {'a': 1} | count }} {{ 'x' | safe }} {{ '<a href=\"x\">&\\'' | "
     "escape }} {{ '%s-%d' | format('a', 3) }}",
     "{}",
     "[('a', 2), ('b', 1)] [('b', 1), ('a', 2)] ['x'] [[1, 2], [3, 4], [5]] [[1, 2], [3, 0]] 5 2 1 "
     "x &lt;a href=&#34;x&#34;&gt;&amp;&#39; a-3"},
    {"filter_indent",
     "{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n\\nb' | indent('>', "
     "blank=true) }}",
     "{}", "a\n  b\n\n  c|  a\n  b|a\n>\n>b"},
    {"tojson",
     "{{ d | tojson }}|{{ d | tojson(indent=2) }}|{{ [] | tojson }}|{{ {} | tojson(indent=2) }}|{{ "
     "'caf\303\251 \"q\" \\n' | tojson }}|{{ [1, 2.5, true, none] | tojson }}|{{ d | "
     "tojson(separators=(',', ':')) }}|{{ {'b': 1, 'a': 2} | tojson(sort_keys=true) }}",
     "{\"d\": {\"name\": \"f\", \"args\": {\"x\": [1, {\"y\": null}], \"z\": \"\303\251\"}}}",
     "{\"name\": \"f\", \"args\": {\"x\": [1, {\"y\": null}], \"z\": \"\303\251\"}}|{\n  \"name\": "
     "\"f\",\n  \"args\": {\n    \"x\": [\n      1,\n      {\n        \"y\": null\n      }\n    "
     "],\n    \"z\": \"\303\251\"\n  }\n}|[]|{}|\"caf\303\251 \\\"q\\\" \\n\"|[1, 2.5, true, "
     "null]|{\"name\":\"f\",\"args\":{\"x\":[1,{\"y\":null}],\"z\":\"\303\251\"}}|{\"a\": 2, "
     "\"b\": 1}"},
    {"tojson_indent_nested", "{{ t | tojson(indent=4) }}",
     "{\"t\": {\"type\": \"function\", \"function\": {\"name\": \"get\", \"parameters\": "
     "{\"properties\": {}, \"required\": [\"a\", \"b\"]}}}}",
     "{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"get\",\n        "
     "\"parameters\": {\n            \"properties\": {},\n            \"required\": [\n            "
     "    \"a\",\n                \"b\"\n            ]\n        }\n    }\n}"},
    {"str_strip",
     "[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}][{{ 'xxaxx'.strip('x') }}][{{ "
     "'\\n\\nz\\n'.lstrip('\\n') }}][{{ 'ab--'.rstrip('-') }}]",
     "{\"s\": \"  hi \\u00a0\"}", "[hi][hi \302\240][  hi][a][z\n][ab]"},
    {"str_split",
     "{{ 'a,b,,c'.split(',') }} {{ '  a  b c '.split() }} {{ 'a b c d'.split(' ', 1) }} {{ 'a b c "
     "d'.rsplit(' ', 1) }} {{ 'x</think>y</think>z'.split('</think>')[-1] }} {{ ' a  b "
     "'.split(None, 1) }} {{ ' a  b  '.rsplit(None, 1) }}",
     "{}",
     "['a', 'b', '', 'c'] ['a', 'b', 'c'] ['a', 'b c d'] ['a b c', 'd'] z ['a', 'b '] [' a', 'b']"},
    {"str_affix",
     "{{ s.startswith('<tool') }} {{ s.endswith('>') }} {{ s.startswith(('x', '<t')) }} {{ "
     "s.endswith(('a', 'b')) }}",
     "{\"s\": \"<tool_response>\"}", "True True True False"},
    {"str_case",
     "{{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }} {{ 'ab'.upper() }} {{ 'AB'.lower() }} "
     "{{ \"they're bill's\".title() }}",
     "{}", "Hello World Hello AB ab They'Re Bill'S"},
    {"str_find",
     "{{ 'hello'.find('l') }} {{ 'hello'.rfind('l') }} {{ 'hello'.find('z') }} {{ "
     "'h\303\251llo'.find('l') }} {{ 'banana'.count('an') }} {{ 'a-b-c'.replace('-', '+') }} {{ "
     "'a-b-c'.replace('-', '+', 1) }}",
     "{}", "2 3 -1 2 2 a+b+c a+b-c"},
    {"str_misc",
     "{{ ', '.join(['a', 'b']) }} {{ 'a\\nb\\r\\nc'.splitlines() }} {{ '123'.isdigit() }} {{ "
     "'12a'.isdigit() }} {{ 'abc'.isalpha() }} {{ '  '.isspace() }} {{ 'ABC'.isupper() }} {{ '{} "
     "and {}'.format('x', 1) }} {{ '{0}{name}'.format('a', name='b') }}",
     "{}", "a, b ['a', 'b', 'c'] True False True True True x and 1 ab"},
    {"str_percent", "{{ '%s is %d' % ('x', 3) }} {{ '%05.1f' % 3.14159 }}", "{}", "x is 3 003.1"},
    {"raise_ok", "{% if false %}{{ raise_exception('no') }}{% endif %}ok", "{}", "ok"},
    {"is_string_content",
     "{% for m in messages %}{% if m.content is string %}S{% else %}{% for p in m.content %}{{ "
     "p.type[0] }}{% endfor %}{% endif %}{% endfor %}",
     "{\"messages\": [{\"content\": \"x\"}, {\"content\": [{\"type\": \"image\"}, {\"type\": "
     "\"text\"}]}]}",
     "Sit"},
    {"raw_block",
     "a\n  {% raw %}\n  {{ x }}\n  {% endraw %}\nb|{%- raw -%}  {{ y }}  {%- endraw -%} |{% raw "
     "%}{% if %}{% endraw %}",
     "{}", "a\n\n  {{ x }}\nb|{{ y }}|{% if %}"},
    {"call_with_args",
     "{% macro list(items) %}{% for i in items %}{{ caller(i) }}{% endfor %}{% endmacro %}{% "
     "call(x) list([1, 2]) %}<{{ x }}>{% endcall %}",
     "{}", "<1><2>"},
    {"macro_default_expr",
     "{% macro m(a, b=a * 2) %}{{ a }},{{ b }}{% endmacro %}{{ m(3) }} {{ m(3, 1) }}", "{}",
     "3,6 3,1"},
    {"outer_loop",
     "{% for a in 'ab' %}{% set outer = loop %}{% for b in 'xy' %}{{ outer.index }}{{ loop.index "
     "}}{% endfor %};{% endfor %}",
     "{}", "1112;2122;"},
    {"dict_global", "{{ dict(a=1, b='x') }} {{ dict(a=1).items() | list }}", "{}",
     "{'a': 1, 'b': 'x'} [('a', 1)]"},
    {"tojson_ascii_ctrl",
     "{{ 'caf\303\251\001\177\360\237\230\200' | tojson(ensure_ascii=true) }} {{ '\001\010\014' | "
     "tojson }}",
     "{}", "\"caf\\u00e9\\u0001\\u007f\\ud83d\\ude00\" \"\\u0001\\b\\f\""},
    {"strftime", "{{ strftime_now('%Y') | length }}", "{}", "4"},
    {"generation_tag",
     "{% for m in messages %}{% generation %}[{{ m }}]{% endgeneration %}{% endfor %}",
     "{\"messages\": [\"a\", \"b\"]}", "[a][b]"},
    {"none_and_bool_str",
     "{{ none | string }} {{ true | string }} {{ [none, true, 1.0, 'x\\'y'] }} {{ {'a': none} }}",
     "{}", "None True [None, True, 1.0, \"x'y\"] {'a': None}"},
    {"json_floats", "{{ x }} {{ y }} {{ z }} {{ x | tojson }} {{ [x, y, z] | tojson }}",
     "{\"x\": 20.0, \"y\": 1e-05, \"z\": 1e21}", "20.0 1e-05 1e+21 20.0 [20.0, 1e-05, 1e+21]"},
    {"str_of_float_keys", "{{ {1: 'a', 2.5: 'b', (1, 2): 'c'} }}", "{}",
     "{1: 'a', 2.5: 'b', (1, 2): 'c'}"},
    {"test_in_chained",
     "{{ 1 is in [1] and 'a' is string or false }} {{ not 'a' in 'b' }} {{ -2 ** 2 }} {{ 2 ** 3 ** "
     "2 }}",
     "{}", "True True 4 64"},
    {"with_block",
     "{% set a = 1 %}{% with a = 2, b = a %}{{ a }}{{ b }}{% set c = 3 %}{% endwith %}{{ a }}[{{ c "
     "}}]",
     "{}", "211[]"},
    {"namespace_truthy",
     "{% set ns = namespace() %}{{ 1 if ns else 0 }}{{ ns is mapping }}{% set ns2 = "
     "namespace({'a': 1}, b=2) %}{{ ns2.a }}{{ ns2.b }}",
     "{}", "1False12"},
    {"generators_and_views",
     "{{ 'T' if ([] | select('odd')) else 'F' }} {{ ([1, 2] | map('string'))[0] is defined }} {{ "
     "d.items() }} {{ d.keys() | list }} {{ d.values() | length }} {{ [1, 2] | reverse | list }} "
     "{{ [3, 1] | map('string') | sort | join }} {{ d | dictsort }}",
     "{\"d\": {\"b\": 1, \"a\": 2}}",
     "T False dict_items([('b', 1), ('a', 2)]) ['b', 'a'] 2 [2, 1] 13 [('a', 2), ('b', 1)]"},
    {"tests_on_str_of_value",
     "{{ (1, 'a') is lower }} {{ 2.5 is even }} {{ 4.0 is divisibleby 2 }} {{ true | round }}",
     "{}", "True False True 1"},
    {"lazy_generators",
     "{{ 'T' if (['a'] | select('odd')) else 'F' }} {{ (0.5 | map('upper')) is defined }} {{ '' % "
     "nope }}{{ 1 // 0.1 }}",
     "{}", "T True 9.0"},
    {"block_scopes",
     "{% set a = 1 %}{% set t %}{% set a = 2 %}{{ a }}{% endset %}{% filter upper %}{% set a = 3 "
     "%}x{{ a }}{% endfilter %}{{ t }}{{ a }}",
     "{}", "X321"},
    {"break_in_set_block",
     "{% for i in [1, 2, 3] %}{% set t %}{{ i }}{% if i == 2 %}{% break %}{% endif %}{% endset "
     "%}[{{ t }}]{% endfor %}",
     "{}", "[1]"},
    {"macro_caller_optional",
     "{% macro m() %}[{{ caller() if caller else 'none' }}]{% endmacro %}{{ m() }}{% call m() "
     "%}c{% endcall %}",
     "{}", "[none][c]"},
    {"special_casing",
     "{{ 'stra\303\237e \357\254\201ne' | upper }} {{ '\307\206emal \357\254\202ow'.title() }} {{ "
     "'\305\211' | capitalize }} {{ '\304\260'.lower() | length }} {{ '\357\254\200-x' | title }}",
     "{}", "STRASSE FINE \307\205emal Flow \312\274N 2 FF-X"},
    {"final_sigma",
     "{{ '\316\237\316\224\316\245\316\243\316\243\316\225\316\245\316\243 \316\243 "
     "\316\221\316\243. \316\221\316\243\\'\316\222 a\316\243' | lower }}|{{ "
     "'\316\237\316\224\316\245\316\243\316\243\316\225\316\245\316\243 \316\221\316\243' | title "
     "}}|{{ '\316\243\316\221\316\243' | capitalize }}|{{ "
     "'\316\237\316\224\316\245\316\243\316\243\316\225\316\245\316\243-\316\221\316\243'.title() "
     "}}",
     "{}",
     "\316\277\316\264\317\205\317\203\317\203\316\265\317\205\317\202 \317\203 \316\261\317\202. "
     "\316\261\317\203'\316\262 "
     "a\317\202|\316\237\316\264\317\205\317\203\317\203\316\265\317\205\317\202 "
     "\316\221\317\203|\316\243\316\261\317\202|"
     "\316\237\316\264\317\205\317\203\317\203\316\265\317\205\317\202-\316\221\317\202"},
};

/* Renders; returns the owned text or NULL with err filled. */
static char *render(const char *template, const char *context, ts_error *err)
{
    ts_chat_template *t = NULL;
    if (ts_chat_template_compile(template, strlen(template), "t.jinja", &t, err) != TS_OK)
        return NULL;
    char *out = NULL;
    ts_status st = ts_chat_template_render(t, context, &out, err);
    ts_chat_template_destroy(t);
    return st == TS_OK ? out : NULL;
}

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ts_error err = {0};
        char *out = render(cases[i].template, cases[i].context, &err);
        if (!out || strcmp(out, cases[i].expected) != 0)
            fprintf(stderr, "case %s: %s\n", cases[i].name, out ? "wrong output" : err.message);
        CHECK_STR_EQ(out, cases[i].expected);
        free(out);
    }
}

/* The error must be reported, with the given status, and mention `where` (line:col) and `what`. */
static void expect_compile_error(const char *template, const char *where, const char *what)
{
    ts_chat_template *t = NULL;
    ts_error err = {0};
    ts_status st = ts_chat_template_compile(template, strlen(template), "t.jinja", &t, &err);
    CHECK(st != TS_OK);
    CHECK(t == NULL);
    CHECK_CONTAINS(err.message, where);
    CHECK_CONTAINS(err.message, what);
    ts_chat_template_destroy(t);
}

static void expect_render_error(const char *template, const char *context, const char *where,
                                const char *what)
{
    ts_error err = {0};
    char *out = render(template, context, &err);
    CHECK(out == NULL);
    CHECK(err.status != TS_OK);
    CHECK_CONTAINS(err.message, where);
    CHECK_CONTAINS(err.message, what);
    free(out);
}

static void test_compile_errors(void)
{
    expect_compile_error("{{ x | nosuchfilter }}", "t.jinja:1:8:", "unknown filter 'nosuchfilter'");
    expect_compile_error("a\n{% frobnicate %}", "t.jinja:2:4:", "unknown tag 'frobnicate'");
    expect_compile_error("{% if x is nosuchtest %}{% endif %}",
                         "t.jinja:1:12:", "unknown test 'nosuchtest'");
    expect_compile_error("line\n\n  {% for x in y %}", "t.jinja:3:6:", "unclosed 'for' block");
    expect_compile_error("{{ 'abc }}", "t.jinja:1:4:", "unterminated string");
    expect_compile_error("{{ x ", "t.jinja:1:6:", "unclosed expression");
    expect_compile_error("{# never closed", "t.jinja:1:1:", "unclosed comment");
    expect_compile_error("{% endif %}", "t.jinja:1:4:", "unexpected 'endif'");
    expect_compile_error("{{ 1 + }}", "t.jinja:1:8:", "unexpected end of expression");
    expect_compile_error("{{ a $ b }}", "t.jinja:1:6:", "unexpected character");
    expect_compile_error("{% for x in y recursive %}{% endfor %}",
                         "t.jinja:1:15:", "recursive loops are not supported");
}

static void test_render_errors(void)
{
    expect_render_error("ok\n  {{ raise_exception('Roles must alternate') }}", "{}",
                        "t.jinja:2:6:", "Roles must alternate");
    expect_render_error("{{ 'a' + 1 }}", "{}",
                        "t.jinja:1:8:", "unsupported operand type(s) for +: 'str' and 'int'");
    expect_render_error("{{ x.y.z }}", "{}", "t.jinja:1:5:", "'x' is undefined");
    expect_render_error("{{ 1 // 0 }}", "{}", "t.jinja:1:6:", "division or modulo by zero");
    expect_render_error("{{ nope() }}", "{}", "t.jinja:1:4:", "'nope' is undefined");
    expect_render_error("{% set x = 1 %}{% set x.a = 2 %}", "{}", "t.jinja:1:19:", "non-namespace");
    expect_render_error("{{ [1] < 'a' }}", "{}", "t.jinja:1:8:", "not supported between");
    /* Filters that are generators in jinja2 have no length and cannot be sliced. */
    expect_render_error("{{ [1] | map('string') | length }}", "{}", "t.jinja:1:", "has no len()");
    expect_render_error("{{ ([1] | select)[1:] }}", "{}", "t.jinja:1:", "not subscriptable");
    expect_render_error("{{ nope | int }}", "{}", "t.jinja:1:", "'nope' is undefined");
    /* Macros take extra arguments or a caller only when their body names varargs/kwargs/caller. */
    expect_render_error("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}", "{}",
                        "t.jinja:1:41:", "macro 'm' takes not more than 1 argument(s)");
    expect_render_error("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, b=2) }}", "{}",
                        "t.jinja:1:41:", "macro 'm' takes no keyword argument 'b'");
    expect_render_error("{% macro m() %}x{% endmacro %}{% call m() %}y{% endcall %}", "{}",
                        "t.jinja:1:", "special caller argument");
    /* A generator filter's error waits until the generator is consumed, and keeps its place. */
    expect_render_error("{% set g = ['a'] | select('odd') %}\n{{ g | list }}", "{}",
                        "t.jinja:1:20:", "unsupported operand type(s) for %");
}

static void test_limits(void)
{
    /* Unbounded macro recursion ends in an error, not a crash. */
    expect_render_error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "{}",
                        "t.jinja:1:", "nested deeper");
    /* Output blow-up is capped. */
    expect_render_error("{% set s = 'x' * 1000000 %}{% for i in range(100) %}{{ s }}{% endfor %}",
                        "{}", "t.jinja:1:56:", "rendered text exceeds");
    /* So is memory, and looping forever in nested ranges. */
    expect_render_error("{% for i in range(100000) %}{% for j in range(100000) %}{% set x = [i, j] "
                        "%}{% endfor %}{% endfor %}",
                        "{}", "t.jinja:1:", "more than");
    /* The sandbox's range cap. */
    expect_render_error("{{ range(1000000000) | length }}", "{}", "t.jinja:1:4:", "range too big");
    /* Deeply nested syntax is refused at compile time. */
    char deep[4096];
    size_t n = 0;
    n += (size_t)snprintf(deep + n, sizeof(deep) - n, "{{ ");
    for (int i = 0; i < 1000; i++)
        deep[n++] = '(';
    deep[n++] = '1';
    for (int i = 0; i < 1000; i++)
        deep[n++] = ')';
    n += (size_t)snprintf(deep + n, sizeof(deep) - n, " }}");
    expect_compile_error(deep, "t.jinja:1:", "nested too deeply");
}

/* Every prefix of a real template either compiles or fails with a located message; none
 * crashes (ASan watches). The template mixes every construct the lexer and parser know. */
static void test_truncations(void)
{
    static const char src[] =
        "{%- set ns = namespace(n=0, s='') -%}\n"
        "{% macro show(m, sep=\", \") %}{{ m.role | upper }}{{ sep }}{{ caller() if caller }}{% "
        "endmacro %}\n"
        "{#- comment -#}\n"
        "{% for m in messages if m.role != 'x' %}\n"
        "  {%- set ns.n = ns.n + 1 %}{% if loop.first %}[{{ show(m) }}]{% elif m.content is string "
        "%}{{ m.content[1:-1] ~ '\\n' }}{% else %}{{ m.content | map(attribute='text') | join }}"
        "{% endif %}\n"
        "{%- endfor %}{% raw %}{{ kept }}{% endraw %}{{ {'a': [1, 2.5, none], 'b': (1,)} | "
        "tojson(indent=2) }}"
        "{% call show({'role': 'c'}) %}x{% endcall %}{% filter trim %} y {% endfilter %}"
        "{{ 'a' if ns.n > 1 else 'b' }}{{ -(2 ** 3) // 3 }}";
    size_t n = strlen(src), failed = 0;
    for (size_t len = 0; len <= n; len++) {
        ts_chat_template *t = NULL;
        ts_error err = {0};
        if (ts_chat_template_compile(src, len, "t.jinja", &t, &err) != TS_OK) {
            failed++;
            CHECK(strncmp(err.message, "t.jinja:", 8) == 0);
            continue;
        }
        char *out = NULL;
        ts_chat_template_render(t, "{\"messages\": [{\"role\": \"user\", \"content\": \"hey\"}]}",
                                &out, &err);
        free(out);
        ts_chat_template_destroy(t);
    }
    CHECK(failed > n / 2); /* most prefixes cut a tag or block open */
    ts_chat_template *t = NULL;
    ts_error err = {0};
    CHECK(ts_chat_template_compile(src, n, "t.jinja", &t, &err) == TS_OK);
    char *out = NULL;
    CHECK(ts_chat_template_render(t,
                                  "{\"messages\": [{\"role\": \"user\", \"content\": \"hey\"}, "
                                  "{\"role\": \"a\", \"content\": [{\"text\": \"t\"}]}]}",
                                  &out, &err) == TS_OK);
    CHECK_STR_EQ(out, "[USER, ]t{{ kept }}{\n  \"a\": [\n    1,\n    2.5,\n    null\n  ],\n  "
                      "\"b\": [\n    1\n  ]\n}C, xya-3");
    free(out);
    ts_chat_template_destroy(t);
}

static void test_context(void)
{
    {
        /* A deferred generator error that never fires leaves no trace in err. */
        ts_error e = {0};
        char *o = render("{{ 'T' if (['a'] | select('odd')) else 'F' }}", "{}", &e);
        CHECK_STR_EQ(o, "T");
        CHECK(e.status == TS_OK && e.message[0] == '\0');
        free(o);
    }
    ts_error err = {0};
    ts_chat_template *t = NULL;
    const char *src = "{{ bos_token }}{% for m in messages %}{{ m.role }}:{{ m.content }};{% "
                      "endfor %}{{ add_generation_prompt }}";
    CHECK(ts_chat_template_compile(src, strlen(src), "ctx", &t, &err) == TS_OK);
    char *out = NULL;
    const char *layers[] = {"{\"add_generation_prompt\": false, \"bos_token\": \"<s>\"}",
                            "[{\"role\": \"user\", \"content\": \"hi\"}]",
                            "{\"add_generation_prompt\": true}"};
    CHECK(ts_chat_template_render_layers(t, layers, 3, &out, &err) == TS_OK);
    CHECK_STR_EQ(out, "<s>user:hi;True");
    free(out);
    out = NULL;
    CHECK(ts_chat_template_render(t, "[1, 2", &out, &err) != TS_OK);
    CHECK_CONTAINS(err.message, "invalid JSON");
    CHECK(ts_chat_template_render(t, "\"str\"", &out, &err) != TS_OK);
    CHECK_CONTAINS(err.message, "expected a JSON object");
    /* A compiled template renders many times with different variables. */
    for (int i = 0; i < 3; i++) {
        CHECK(ts_chat_template_render(t, "{\"messages\": [{\"role\": \"a\", \"content\": 1.5}]}",
                                      &out, &err) == TS_OK);
        CHECK_STR_EQ(out, "a:1.5;");
        free(out);
    }
    ts_chat_template_destroy(t);
}

static void test_load(void)
{
    const char *root = getenv("TS_ROOT");
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/gemma3/model", root ? root : ".");
    ts_error err = {0};
    ts_chat_template *t = NULL;
    CHECK(ts_chat_template_load(dir, NULL, &t, &err) == TS_OK);
    char *out = NULL;
    CHECK(ts_chat_template_render(t,
                                  "{\"messages\": [{\"role\": \"user\", \"content\": \" hi \"}], "
                                  "\"add_generation_prompt\": true}",
                                  &out, &err) == TS_OK);
    CHECK_STR_EQ(out, "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n");
    free(out);
    ts_chat_template_destroy(t);
    t = NULL;
    CHECK(ts_chat_template_load(dir, "tool_use", &t, &err) == TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "tool_use");
    snprintf(dir, sizeof(dir), "%s/tests", root ? root : ".");
    CHECK(ts_chat_template_load(dir, NULL, &t, &err) == TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "no chat template");
}

int main(void)
{
    RUN(test_cases);
    RUN(test_compile_errors);
    RUN(test_render_errors);
    RUN(test_limits);
    RUN(test_truncations);
    RUN(test_context);
    RUN(test_load);
    return check_finish();
}
