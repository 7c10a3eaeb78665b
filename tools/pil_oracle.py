#!/usr/bin/python3
"""PIL as a test oracle for src/media (run with Debian's /usr/bin/python3, python3-pil).

  pil_oracle.py decode IN.png OUT.rgb       write packed RGB8, print "WIDTH HEIGHT"
  pil_oracle.py resize MANIFEST             each line "IN.rgb W H OUT_W OUT_H FILTER OUT.rgb":
                                            Image.resize((OUT_W, OUT_H), FILTER) of IN, to OUT

Exit 77 when PIL is missing, so callers can skip instead of fail.
"""
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


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "decode":
        decode(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "resize":
        resize(sys.argv[2])
    else:
        sys.exit(__doc__)
