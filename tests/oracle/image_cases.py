#!/usr/bin/python3
"""Writes image decode cases and what transformers' load_image makes of them (PIL
ImageOps.exif_transpose, then convert("RGB")). Usage: image_cases.py ROOT OUTDIR. For each case
OUTDIR gets NAME.in (the encoded file) and NAME.rgb (expected pixels), and a line
"NAME WIDTH HEIGHT" in OUTDIR/cases.txt. Needs Debian's python3-pil and numpy-free PIL only."""
import os
import struct
import sys
import warnings
import zlib

from PIL import Image, ImageOps, PngImagePlugin

# PIL warns that palette transparency would be better as RGBA; the case wants exactly that file.
warnings.simplefilter("ignore")

root, out = sys.argv[1], sys.argv[2]
cases = []


def reference(path):
    im = Image.open(path)
    im = ImageOps.exif_transpose(im)
    return im.convert("RGB")


def add(name, writer):
    path = os.path.join(out, name + ".in")
    writer(path)
    ref = reference(path)
    with open(os.path.join(out, name + ".rgb"), "wb") as f:
        f.write(ref.tobytes())
    cases.append(f"{name} {ref.width} {ref.height}")


def saver(im, fmt, **kw):
    return lambda path: im.save(path, format=fmt, **kw)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def adam7(w, h):
    for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
                           (1, 0, 2, 2), (0, 1, 1, 2)):
        yield range(x0, w, dx), range(y0, h, dy)


def raw_png(w, h, depth, color, sample, interlace=False, extra=b""):
    """A PNG PIL cannot write (16-bit colour, Adam7). sample(x, y) gives the pixel's samples."""
    nbytes = depth // 8

    def row(xs, y):
        return b"\0" + b"".join(v.to_bytes(nbytes, "big") for x in xs for v in sample(x, y))

    if interlace:
        rows = b"".join(row(xs, y) for xs, ys in adam7(w, h) if len(xs) for y in ys)
    else:
        rows = b"".join(row(range(w), y) for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 1 if interlace else 0)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(rows)) +
            chunk(b"IEND", b""))
    return lambda path: open(path, "wb").write(data)


def exif(orientation):
    e = Image.Exif()
    e[0x0112] = orientation
    return e.tobytes()


chelsea = Image.open(os.path.join(root, "tests/fixtures/qwen2_vl/chelsea.png"))
coffee = Image.open(os.path.join(root, "tests/fixtures/qwen2_vl-two-images/coffee.png"))
rgb = chelsea.convert("RGB")
rgba = rgb.copy()
rgba.putalpha(Image.linear_gradient("L").resize(rgb.size))
small = rgb.resize((61, 37))

add("png_chelsea", lambda p: open(p, "wb").write(open(chelsea.filename, "rb").read()))
add("png_coffee", lambda p: open(p, "wb").write(open(coffee.filename, "rb").read()))
add("png_rgba", saver(rgba, "PNG"))
add("png_palette", saver(rgb.convert("P", palette=Image.ADAPTIVE, colors=200), "PNG"))
add("png_palette_4bit", saver(small.convert("P", palette=Image.ADAPTIVE, colors=16), "PNG", bits=4))
pal_t = small.convert("P", palette=Image.ADAPTIVE, colors=32)
add("png_palette_trns", saver(pal_t, "PNG", transparency=bytes(range(0, 256, 8))))
add("png_gray", saver(rgb.convert("L"), "PNG"))
add("png_gray_1bit", saver(small.convert("1"), "PNG"))
add("png_gray_alpha", saver(rgba.convert("LA"), "PNG"))
add("png_gray_trns", saver(small.convert("L"), "PNG", transparency=77))
add("png_gray16", raw_png(23, 17, 16, 0, lambda x, y: ((x * 37 + y * 11) % 300,)))
add("png_gray16_trns", raw_png(23, 17, 16, 0, lambda x, y: ((x * 3000 + y) % 65536,),
                               extra=chunk(b"tRNS", struct.pack(">H", 3000))))
add("png_rgb16", raw_png(23, 17, 16, 2, lambda x, y: (x * 2801, y * 3851, (x * y * 97) % 65536)))
add("png_rgba16", raw_png(23, 17, 16, 6, lambda x, y: (x * 2801, y * 3851, 40000, (x * 999) % 65536)))
add("png_gray_alpha16", raw_png(23, 17, 16, 4, lambda x, y: (x * 2801 + y, 1234)))
add("png_interlaced_rgb", raw_png(29, 19, 8, 2, lambda x, y: (x * 8, y * 13, (x ^ y) * 7), interlace=True))
add("png_interlaced_rgba16", raw_png(13, 11, 16, 6, lambda x, y: (x * 5000, y * 5000, 123, 999),
                                     interlace=True))
add("png_interlaced_gray", raw_png(9, 1, 8, 0, lambda x, y: (x * 28,), interlace=True))

add("jpeg_q90", saver(rgb, "JPEG", quality=90))
add("jpeg_q90_coffee", saver(coffee.convert("RGB"), "JPEG", quality=90))
add("jpeg_444", saver(rgb, "JPEG", quality=95, subsampling=0))
add("jpeg_422", saver(rgb, "JPEG", quality=75, subsampling=1))
add("jpeg_progressive", saver(rgb, "JPEG", quality=85, progressive=True))
add("jpeg_gray", saver(rgb.convert("L"), "JPEG", quality=90))
add("jpeg_cmyk", saver(small.convert("CMYK"), "JPEG", quality=90))
add("jpeg_odd_size", saver(rgb.resize((37, 23)), "JPEG", quality=90))


def damaged_jpeg(path):
    """Scrambled entropy-coded bytes: libjpeg warns and goes on; PIL shows the damage, no error."""
    rgb.save(path, format="JPEG", quality=90)
    data = bytearray(open(path, "rb").read())
    for i in range(len(data) // 2, len(data) // 2 + 200):
        v = (data[i] * 7 + 1) & 0xFF
        data[i] = 0 if v == 0xFF else v  # no new markers
    open(path, "wb").write(data)


add("jpeg_damaged", damaged_jpeg)

add("webp_lossless", saver(rgb, "WEBP", lossless=True))
add("webp_lossy", saver(rgb, "WEBP", quality=80))
add("webp_lossless_alpha", saver(rgba, "WEBP", lossless=True))
add("webp_lossy_alpha", saver(rgba, "WEBP", quality=80))
frames = [small, small.transpose(Image.Transpose.FLIP_LEFT_RIGHT)]
add("webp_animated", saver(frames[0], "WEBP", save_all=True, append_images=frames[1:], duration=100,
                           lossless=True))

# An asymmetric picture, so every orientation gives a different result.
asym = Image.new("RGB", (7, 5))
for y in range(5):
    for x in range(7):
        asym.putpixel((x, y), (x * 36, y * 60, 200 if (x, y) == (0, 0) else 20))
asym = asym.resize((28, 20), Image.Resampling.NEAREST)
for o in range(1, 9):
    add(f"jpeg_exif_orientation{o}", saver(asym, "JPEG", quality=95, exif=exif(o)))
add("png_exif_orientation6", saver(asym, "PNG", exif=exif(6)))
add("png_exif_orientation8", saver(asym, "PNG", exif=exif(8)))


def png_with_text(*texts, exif_bytes=None):
    """asym as a PNG with text chunks: (keyword, value, "tEXt"|"zTXt"|"iTXt"|"iTXt-zip")."""
    info = PngImagePlugin.PngInfo()
    for key, value, kind in texts:
        if kind.startswith("iTXt"):
            info.add_itxt(key, value, zip=kind.endswith("zip"))
        else:
            info.add_text(key, value, zip=kind == "zTXt")
    kw = {"exif": exif_bytes} if exif_bytes is not None else {}
    return saver(asym, "PNG", pnginfo=info, **kw)


def raw_profile(data):
    hexed = data.hex()
    lines = "\n".join(hexed[i:i + 72] for i in range(0, len(hexed), 72))
    return f"\nexif\n{len(data):8d}\n{lines}\n"


xmp6 = '<x:xmpmeta><rdf:Description tiff:Orientation="6"/></x:xmpmeta>'
xmp8 = "<x:xmpmeta><tiff:Orientation>8</tiff:Orientation></x:xmpmeta>"
add("png_xmp_itxt_orientation6", png_with_text(("XML:com.adobe.xmp", xmp6, "iTXt")))
add("png_xmp_itxt_zip_orientation8", png_with_text(("XML:com.adobe.xmp", xmp8, "iTXt-zip")))
add("png_xmp_text_orientation6", png_with_text(("XML:com.adobe.xmp", xmp6, "tEXt")))
add("png_raw_profile_ztxt_orientation3",
    png_with_text(("Raw profile type exif", raw_profile(exif(3)), "zTXt")))
add("png_raw_profile_text_orientation7",
    png_with_text(("Raw profile type exif", raw_profile(exif(7)), "tEXt")))
# EXIF orientation 1 is present, so XMP is not consulted; an EXIF without the tag defers to XMP.
add("png_exif1_beats_xmp", png_with_text(("XML:com.adobe.xmp", xmp6, "iTXt"), exif_bytes=exif(1)))
no_orientation = Image.Exif()
no_orientation[0x010F] = "maker"
add("png_exif_without_tag_xmp", png_with_text(("XML:com.adobe.xmp", xmp8, "iTXt"),
                                              exif_bytes=no_orientation.tobytes()))
# Found by png_decode_fuzz: an eXIf before the image data (orientation 3), a broken eXIf after it,
# and an XMP orientation 9 (no such orientation). PIL reads the first eXIf and never loads the rest.
add("png_fuzz_two_exif_xmp9", lambda path: open(path, "wb").write(
    open(os.path.join(root, "tests/fixtures/media/xmp_orientation_9.png"), "rb").read()))
add("webp_exif_orientation6", saver(asym, "WEBP", lossless=True, exif=exif(6)))
add("webp_exif_orientation5", saver(asym, "WEBP", quality=90, exif=exif(5)))

with open(os.path.join(out, "cases.txt"), "w") as f:
    f.write("\n".join(cases) + "\n")
