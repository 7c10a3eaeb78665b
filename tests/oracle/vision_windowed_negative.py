"""vision_windowed_negative.py BUNDLE — the runner's value checks of a patch_rows_windowed
vision.main (tools/bundle_runner/manifest.py, as the layout's in src/models/qwen2_vl/qwen_vl_entry.c)
on the 256-patch bucket: the host's own arguments for 216 rows pass; a unit twice in the window
order, a padding unit moved, a window_index past the units, a padding row in an image window, an
image row marked padding are each refused naming what is wrong. Prints ok/FAIL, exit 1 on a FAIL."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
from bundle_runner import host  # noqa: E402
from bundle_runner.manifest import ContractError, Manifest, check_vision_values  # noqa: E402

man = Manifest(sys.argv[1])
v = man.vision
n, merge = v["buckets"][0]["patches"], v["merge_size"]
grids = [(1, 12, 18)]
rows = 216
p, s, w, u = host.window_layout(grids, merge, v["window"])
positions, segments, windows = np.zeros((n, 2), np.int32), np.full(n, -1, np.int32), np.full(n, -1, np.int32)
index = np.arange(n // (merge * merge), dtype=np.int32)
positions[:rows], segments[:rows], windows[:rows], index[:len(u)] = p, s, w, u
pixels, count = np.zeros((n, v["buckets"][0]["entry"].inputs[0].shape[1]), np.float32), np.array(rows, np.int32)
failed = 0


def case(what, edit, needle):
    global failed
    args = [pixels, positions.copy(), segments.copy(), windows.copy(), index.copy(), count]
    edit(args)
    try:
        check_vision_values(man, 0, args)
        ok, msg = needle is None, "accepted"
    except ContractError as e:
        ok, msg = needle is not None and needle in str(e), str(e)
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {msg}")


def dup(a):
    a[4][3] = a[4][4]


def move(a):
    a[4][60], a[4][61] = 61, 60


def past(a):
    a[4][0] = 64


def pad_window(a):
    a[3][230] = 3


def image_pad(a):
    a[2][5] = -1


case("the host's arguments", lambda a: None, None)
case("a unit twice", dup, "must be a permutation of the image units")
case("a padding unit moved", move, "padding units (at or past 54) stay in place")
case("window_index past the units", past, "window_index")
case("a padding row in an image window", pad_window, "are padding (segment and window -1)")
case("an image row marked padding", image_pad, "are padding (segment and window -1)")
print(f"vision_windowed_negative: {failed} failed")
sys.exit(1 if failed else 0)
