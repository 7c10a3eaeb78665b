#!/usr/bin/python3
"""PIL as a test oracle for src/media (run with Debian's /usr/bin/python3, python3-pil).

  pil_oracle.py decode IN.png OUT.rgb       write packed RGB8, print "WIDTH HEIGHT"
  pil_oracle.py resize MANIFEST             each line "IN.rgb W H OUT_W OUT_H FILTER OUT.rgb":
                                            Image.resize((OUT_W, OUT_H), FILTER) of IN, to OUT
  pil_oracle.py smart_resize CASES          each line "H W FACTOR MIN MAX" -> "H W" or "error"
                                            (Qwen2-VL smart_resize as at transformers 130f1644)
  pil_oracle.py process MANIFEST            each line "IN.rgb W H OUT.f32 KIND ARGS…": the slow
                                            image processor's numpy pipeline, float32 out
      KIND qwen: P T MERGE MIN_PIXELS MAX_PIXELS RESCALE MEAN×3 STD×3
      KIND clip: SHORTEST H W CROP_H CROP_W RESAMPLE RESCALE MEAN×3 STD×3
                 (SHORTEST 0: resize to H×W; CROP_H 0: no crop)
      KIND pas:  H W RESAMPLE MIN_CROP MAX_CROPS MIN_RATIO RESCALE MEAN×3 STD×3: Gemma3's
                 pan-and-scan (image_processing_gemma3.py at transformers 130f1644), the original
                 then its crops, each resized to H×W: [1 + crops, 3, H, W]

Exit 77 when PIL is missing, so callers can skip instead of fail.
"""
import math
import sys

try:
    import numpy as np
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


def rescale_normalize(x, rescale, mean, std):
    # image_transforms.rescale: float64 multiply, then float32; normalize: float32 (x - m) / s.
    x = (x.astype(np.float64) * rescale).astype(np.float32)
    return (x - np.array(mean, dtype=np.float32)) / np.array(std, dtype=np.float32)


def qwen(img, p, t, merge, lo, hi, rescale, mean, std):
    # Qwen2VLImageProcessor._preprocess (slow) for one image.
    h, w = smart_resize(img.shape[0], img.shape[1], p * merge, lo, hi)
    x = np.array(Image.fromarray(img).resize((w, h), resample=Image.BICUBIC))
    x = rescale_normalize(x, rescale, mean, std).transpose(2, 0, 1)
    patches = np.array([x])
    if patches.shape[0] % t != 0:
        repeats = np.repeat(patches[-1][np.newaxis], t - patches.shape[0] % t, axis=0)
        patches = np.concatenate([patches, repeats], axis=0)
    gt, gh, gw = patches.shape[0] // t, h // p, w // p
    patches = patches.reshape(gt, t, 3, gh // merge, merge, p, gw // merge, merge, p)
    patches = patches.transpose(0, 3, 6, 4, 7, 2, 1, 5, 8)
    return patches.reshape(gt * gh * gw, 3 * t * p * p)


def center_crop(x, ch, cw):
    # image_transforms.center_crop on (H, W, C), padding branch included.
    oh, ow = x.shape[:2]
    top = (oh - ch) // 2
    bottom = top + ch
    left = (ow - cw) // 2
    right = left + cw
    if top >= 0 and bottom <= oh and left >= 0 and right <= ow:
        return x[top:bottom, left:right]
    nh, nw = max(ch, oh), max(cw, ow)
    padded = np.zeros_like(x, shape=(nh, nw) + x.shape[2:])
    tp, lp = math.ceil((nh - oh) / 2), math.ceil((nw - ow) / 2)
    padded[tp:tp + oh, lp:lp + ow] = x
    top, bottom, left, right = top + tp, bottom + tp, left + lp, right + lp
    return padded[max(0, top):min(nh, bottom), max(0, left):min(nw, right)]


def clip(img, shortest, h, w, crop_h, crop_w, resample, rescale, mean, std):
    if shortest:
        # get_resize_output_image_size(default_to_square=False)
        ih, iw = img.shape[:2]
        short, long = (iw, ih) if iw <= ih else (ih, iw)
        new_long = int(shortest * long / short)
        h, w = (new_long, shortest) if iw <= ih else (shortest, new_long)
    x = np.array(Image.fromarray(img).resize((w, h), resample=resample))
    if crop_h:
        x = center_crop(x, crop_h, crop_w)
    return rescale_normalize(x, rescale, mean, std).transpose(2, 0, 1)


def pan_and_scan(image, min_crop, max_crops, min_ratio):
    """Gemma3ImageProcessor.pan_and_scan on a channels-last uint8 array, as the reference writes it."""
    height, width = image.shape[:2]
    if width >= height:
        if width / height < min_ratio:
            return []
        num_crops_w = int(math.floor(width / height + 0.5))
        num_crops_w = min(int(math.floor(width / min_crop)), num_crops_w)
        num_crops_w = max(2, num_crops_w)
        num_crops_w = min(max_crops, num_crops_w)
        num_crops_h = 1
    else:
        if height / width < min_ratio:
            return []
        num_crops_h = int(math.floor(height / width + 0.5))
        num_crops_h = min(int(math.floor(height / min_crop)), num_crops_h)
        num_crops_h = max(2, num_crops_h)
        num_crops_h = min(max_crops, num_crops_h)
        num_crops_w = 1
    crop_size_w = int(math.ceil(width / num_crops_w))
    crop_size_h = int(math.ceil(height / num_crops_h))
    if min(crop_size_w, crop_size_h) < min_crop:
        return []
    crop_positions_w = [crop_size_w * i for i in range(num_crops_w)]
    crop_positions_h = [crop_size_h * i for i in range(num_crops_h)]
    return [image[pos_h:pos_h + crop_size_h, pos_w:pos_w + crop_size_w]
            for pos_h in crop_positions_h for pos_w in crop_positions_w]


def pas(img, h, w, resample, min_crop, max_crops, min_ratio, rescale, mean, std):
    views = [img] + pan_and_scan(img, min_crop, max_crops, min_ratio)
    return np.stack([clip(np.ascontiguousarray(v), 0, h, w, 0, 0, resample, rescale, mean, std) for v in views])


def process(manifest):
    with open(manifest) as f:
        for line in f:
            if not line.strip():
                continue
            src, w, h, dst, kind, *args = line.split()
            with open(src, "rb") as g:
                img = np.frombuffer(g.read(), dtype=np.uint8).reshape(int(h), int(w), 3)
            nums = [float(a) for a in args[-7:]]
            rescale, mean, std = nums[0], nums[1:4], nums[4:]
            if kind == "pas":
                out = pas(img, *(int(a) for a in args[:5]), float(args[5]), rescale, mean, std)
            else:
                ints = [int(a) for a in args[:-7]]
                out = (qwen if kind == "qwen" else clip)(img, *ints, rescale, mean, std)
            with open(dst, "wb") as g:
                g.write(np.ascontiguousarray(out, dtype=np.float32).tobytes())


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "decode":
        decode(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "process":
        process(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "smart_resize":
        smart_resize_cases(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "resize":
        resize(sys.argv[2])
    else:
        sys.exit(__doc__)
