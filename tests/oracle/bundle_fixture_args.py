"""bundle_fixture_args.py CASE_DIR — the `tessera run` arguments that give a fixture's prompt,
NUL-separated (for the compiler oracle tests): a text case as its exact prompt_text with --raw
(the chat path of `tessera run` renders the Llama fixture's prompt as 24 tokens, not the
reference's 25: the final "\\n\\n" is lost; --raw keeps these tests about the bundle), an image
case as its message text with one --image per image, an audio case as its message text with one
--audio per clip."""
import json
import os
import sys

case = sys.argv[1]
with open(os.path.join(case, "reference.json")) as f:
    ref = json.load(f)
images = ref.get("images", [])
audio = ref.get("audio", [])
if audio:  # Phi-4-multimodal: the message text, then one --audio per clip
    text = "".join(part.get("text", "") for part in ref["messages"][0]["content"] if part["type"] == "text")
    args = ["-p", text]
    for clip in audio:
        args += ["--audio", os.path.join(case, clip["name"])]
elif images:
    text = "".join(part.get("text", "") for part in ref["messages"][0]["content"] if part["type"] == "text")
    args = ["-p", text]
    for image in images:
        args += ["--image", os.path.join(case, image["name"])]
else:
    args = ["--raw", "-p", ref["prompt_text"]]
sys.stdout.write("".join(a + "\0" for a in args))
