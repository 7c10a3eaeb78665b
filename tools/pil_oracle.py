#!/usr/bin/python3
"""PIL as a test oracle for src/media (run with Debian's /usr/bin/python3, python3-pil).

  pil_oracle.py decode IN.png OUT.rgb       write packed RGB8, print "WIDTH HEIGHT"
  pil_oracle.py resize MANIFEST             each line "IN.rgb W H OUT_W OUT_H FILTER OUT.rgb":
                                            Image.resize((OUT_W, OUT_H), FILTER) of IN, to OUT
  pil_oracle.py smart_resize CASES          each line "H W FACTOR MIN MAX" -> "H W" or "error"
                                            (Qwen2-VL smart_resize as at transformers 130f1644)

Exit 77 when PIL is missing, so callers can skip instead of fail.
"""
import math
import sys

try:
    from PIL import Image
except ImportError:
    sys.exit(77)


def decode(src, dst):
    im = Image.open(src).convert("RGB")
    with open(dst, "wb") as f:
        f.write(im.tobytes())
    print(im.width, im.height)


def resize(manifest):
    with open(manifest) as f:
        for line in f:
            if not line.strip():
                continue
            src, w, h, ow, oh, flt, dst = line.split()
            with open(src, "rb") as g:
                im = Image.frombytes("RGB", (int(w), int(h)), g.read())
            out = im.resize((int(ow), int(oh)), resample=int(flt))
            with open(dst, "wb") as g:
                g.write(out.tobytes())


def smart_resize(height, width, factor, min_pixels, max_pixels):
    # transformers@130f1644 models/qwen2_vl/image_processing_qwen2_vl.py, verbatim arithmetic.
    if max(height, width) / min(height, width) > 200:
        raise ValueError("aspect")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def smart_resize_cases(path):
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            h, w, factor, lo, hi = map(int, line.split())
            try:
                print(*smart_resize(h, w, factor, lo, hi))
            except ValueError:
                print("error")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "decode":
        decode(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "smart_resize":
        smart_resize_cases(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "resize":
        resize(sys.argv[2])
    else:
        sys.exit(__doc__)
