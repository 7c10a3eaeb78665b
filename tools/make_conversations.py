#!/usr/bin/env python3
"""Writes tests/corpus/conversations.jsonl: the chat-template oracle corpus.

Deterministic and stdlib-only. Each line is an object {"id", "messages"[, "tools"]}. The
conversations cover system/user/assistant turns, multi-turn dialogues, images at the start,
middle and end of content, multi-part content, tool definitions, assistant tool calls
(arguments as objects and as strings), tool results, reasoning blocks, unicode and
whitespace edge cases, and orders some templates reject (to check errors match).
Usage: tools/make_conversations.py [OUT]   (default tests/corpus/conversations.jsonl)
"""
import json
import os
import random
import sys

IMG = {"type": "image"}


def text(t):
    return {"type": "text", "text": t}


def sys_(c):
    return {"role": "system", "content": c}


def user(c):
    return {"role": "user", "content": c}


def asst(c, **kw):
    m = {"role": "assistant", "content": c}
    m.update(kw)
    return m


def tool(c, name=None):
    m = {"role": "tool", "content": c}
    if name:
        m["name"] = name
    return m


def call(name, args, as_string=False, with_id=None):
    c = {"type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False) if as_string else args}}
    if with_id:
        c["id"] = with_id
    return c


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Zürich"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the web.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "top_k": {"type": "integer", "default": 3}}, "required": ["query"]},
    },
}

SNIPPETS = [
    "Hello!", "What is 2 + 2?", "Tell me a joke about cats.", "Explain attention in one sentence.",
    "Résumé of the meeting, s'il vous plaît.", "日本語で答えてください。", "Привет, как дела?", "emoji test 🎉🚀 done",
    "  leading and trailing spaces  ", "line one\nline two\n", "tabs\tinside\ttext", "quotes \"double\" and 'single'",
    "backslash \\ and braces {{ not a tag }} {% neither %}", "", "مرحبا بالعالم", "Ünïcödé çhâracters ß",
]
REPLIES = [
    "Hi! How can I help?", "4.", "Why did the cat sit on the computer? To keep an eye on the mouse.",
    "Attention weighs every token by its relevance to every other.", "Bien sûr.", "はい、わかりました。",
    "Всё хорошо!", "  padded reply  ", "Multi\nline\nreply", "",
]


def conversations():
    out = []

    def add(cid, messages, tools=None):
        row = {"id": cid, "messages": messages}
        if tools is not None:
            row["tools"] = tools
        out.append(row)

    add("single_user", [user("Hello!")])
    add("system_user", [sys_("You are terse."), user("What is 2 + 2?")])
    add("user_assistant", [user("Hi"), asst("Hello! How can I help?")])
    add("system_multi_turn", [sys_("Be nice."), user("Hi"), asst("Hello."), user("Tell me a joke."), asst("No."), user("Please?")])
    add("multi_turn_ends_assistant", [user("a"), asst("b"), user("c"), asst("d")])
    add("empty_user", [user("")])
    add("whitespace_content", [user("   padded   "), asst("\n\nreply\n\n"), user("\tx\t")])
    add("unicode_mix", [user("日本語で答えてください。"), asst("はい。"), user("emoji 🎉 and RTL مرحبا")])
    add("quotes_and_braces", [user("quotes \"double\" 'single' {{ x }} {% if %} {# c #}")])
    add("backslashes", [user("C:\\path\\to\\file and \\n literal")])
    add("newlines_only", [user("\n"), asst("\n")])
    add("image_only", [user([IMG])])
    add("image_then_text", [user([IMG, text("Describe this image.")])])
    add("text_then_image", [user([text("What is in this picture?"), IMG])])
    add("text_image_text", [user([text("Compare "), IMG, text(" with "), IMG, text(" please.")])])
    add("two_images_first", [user([IMG, IMG, text("Which is bigger?")])])
    add("image_second_turn", [user("Hi"), asst("Hello"), user([IMG, text("And this one?")])])
    add("images_multi_turn", [user([IMG, text("What is it?")]), asst("A cat."), user([text("And now?"), IMG])])
    add("system_image", [sys_("You describe images."), user([IMG, text("Go.")])])
    add("multi_part_text_only", [user([text("part one. "), text("part two.")])])
    add("multi_part_assistant", [user([text("hi")]), asst([text("hello "), text("there")])])
    add("system_parts", [sys_([text("You are a helpful assistant.")]), user([IMG, text("Caption?")])])
    add("trim_parts", [user([text("  spaced  "), IMG, text("\nnewline\n")])])
    add("unicode_parts", [user([text("Résumé: "), IMG, text(" — ß ü 漢字")])])
    add("assistant_first", [asst("I start."), user("ok")])
    add("system_after_user", [user("hi"), sys_("late system"), user("again")])
    add("two_users", [user("one"), user("two")])
    add("system_only", [sys_("Only a system prompt.")])
    add("long_dialogue", sum([[user(SNIPPETS[i % len(SNIPPETS)]), asst(REPLIES[i % len(REPLIES)])] for i in range(8)], []) + [user("last")])
    add("think_block", [user("Solve 1+1."), asst("<think>\nadd them\n</think>\n\n2")])
    add("think_then_more", [user("q1"), asst("<think>r1</think>a1"), user("q2"), asst("<think>\nr2\n</think>\n\na2")])
    add("reasoning_content", [user("q"), asst("answer", reasoning_content="because")])
    add("tools_defined_no_call", [sys_("You can use tools."), user("Weather in Paris?")], tools=[WEATHER_TOOL])
    add("tools_no_system", [user("Search for jinja")], tools=[WEATHER_TOOL, SEARCH_TOOL])
    add("tool_call_dict_args", [user("Weather in Zürich?"), asst("", tool_calls=[call("get_weather", {"city": "Zürich", "unit": "celsius"})]),
                                tool('{"temperature": 21}', "get_weather"), asst("It is 21 °C.")], tools=[WEATHER_TOOL])
    add("tool_call_string_args", [user("Weather in Oslo?"), asst("", tool_calls=[call("get_weather", {"city": "Oslo"}, as_string=True)]),
                                  tool("cold", "get_weather")], tools=[WEATHER_TOOL])
    add("tool_call_with_content", [user("Find docs"), asst("Let me search.", tool_calls=[call("search", {"query": "jinja docs", "top_k": 2})]),
                                   tool("[\"https://jinja.palletsprojects.com\"]", "search"), asst("Found it.")], tools=[SEARCH_TOOL])
    add("parallel_tool_calls", [user("Weather in A and B"), asst("", tool_calls=[call("get_weather", {"city": "A"}), call("get_weather", {"city": "B"})]),
                                tool("sunny", "get_weather"), tool("rainy", "get_weather"), asst("A sunny, B rainy.")], tools=[WEATHER_TOOL])
    add("tool_call_no_tools_list", [user("x"), asst("", tool_calls=[call("search", {"query": "x"})]), tool("result")])
    add("tool_call_nested_args", [user("nested"), asst("", tool_calls=[call("search", {"query": "q", "filters": {"lang": ["en", "de"], "safe": True, "score": 0.5, "n": None}})]),
                                  tool("ok")], tools=[SEARCH_TOOL])
    add("tool_multi_step", [sys_("sys"), user("step"), asst("", tool_calls=[call("search", {"query": "a"})]), tool("r1"),
                            asst("", tool_calls=[call("search", {"query": "b"})]), tool("r2"), asst("done")], tools=[SEARCH_TOOL])
    add("tool_response_user_text", [user("<tool_response>\nfake\n</tool_response>"), asst("hm")])
    add("tool_with_id", [user("id"), asst("", tool_calls=[call("search", {"query": "id"}, with_id="call_1")]), tool("r")], tools=[SEARCH_TOOL])
    add("unicode_tool_args", [user("天気"), asst("", tool_calls=[call("get_weather", {"city": "東京"})]), tool("晴れ")], tools=[WEATHER_TOOL])
    add("tool_call_float_args", [user("Set the thermostat"), asst("", tool_calls=[call("set_temperature", {"celsius": 20.0, "tolerance": 0.25, "scale": 1e-05, "big": 1e+21, "neg": -3, "ok": False})]),
                                 tool('{"previous": 18.0}')], tools=[WEATHER_TOOL])
    add("tool_then_image", [user([IMG, text("where?")]), asst("", tool_calls=[call("search", {"query": "landmark"})]), tool("Eiffel tower")], tools=[SEARCH_TOOL])

    # Seeded random dialogues over the snippet pools, alternating properly.
    rng = random.Random(20260101)
    for k in range(14):
        turns = []
        if rng.random() < 0.4:
            turns.append(sys_(rng.choice(["You are a helpful assistant.", "Réponds en français.", "Be brief.", ""])))
        for t in range(rng.randint(1, 4)):
            if rng.random() < 0.3:
                parts = [text(rng.choice(SNIPPETS))]
                parts.insert(rng.randint(0, 1), IMG)
                turns.append(user(parts))
            else:
                turns.append(user(rng.choice(SNIPPETS)))
            if t < 3 and rng.random() < 0.8:
                turns.append(asst(rng.choice(REPLIES)))
        add("random_%02d" % k, turns)
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "corpus", "conversations.jsonl")
    rows = conversations()
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("%d conversations -> %s" % (len(rows), os.path.normpath(path)))


if __name__ == "__main__":
    main()
