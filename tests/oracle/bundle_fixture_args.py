"""bundle_fixture_args.py CASE_DIR — the `tessera run` arguments that give a fixture's prompt:
-p TEXT and one --image per image of its message, one per line (for the compiler oracle tests)."""
import json
import os
import sys

case = sys.argv[1]
with open(os.path.join(case, "reference.json")) as f:
    ref = json.load(f)
content = ref["messages"][0]["content"]
text = "".join(part.get("text", "") for part in content if part["type"] == "text")
print("-p")
print(text)
for image in ref.get("images", []):
    print("--image")
    print(os.path.join(case, image["name"]))
