"""fixture.py — a prompt from a tests/fixtures case's reference inputs (input_ids, pixel_values,
image_grid_thw), so the runner needs no tokenizer or image decoder, and the reference outputs the
checks compare with. A Phi-4-multimodal HD image case keeps the sha256 of its pixel values, not
the values: they come from a file (raw f32 [views, 3, S, S], --pixel-values) that must hash to the
reference's image_pixel_values_sha256; its grids are then (crop masks, canvas size) from
image_attention_mask and image_sizes."""
import hashlib
import json
import os

import numpy as np

from .safetensors import read_file


class Fixture:
    def __init__(self, case_dir, pixel_file=None):
        self.dir = case_dir
        self.name = os.path.basename(os.path.normpath(case_dir))
        self.ref = read_file(os.path.join(case_dir, "reference.safetensors"))
        # The LoRA adapter the reference ran with (peft's set_adapter; Phi-4-multimodal's audio
        # case: speech), "none" when it names none.
        with open(os.path.join(case_dir, "reference.json")) as f:
            meta = json.load(f)
        self.adapter = meta.get("lora_adapter") or "none"
        self.ids = [int(x) for x in self.ref["input_ids"][0]]
        self.generated = [int(x) for x in self.ref["generated_ids"]]
        self.pixel_values = np.asarray(self.ref["pixel_values"], np.float32) if "pixel_values" in self.ref else None
        # An audio prompt (Phi-4-multimodal): the reference's audio rows for its audio tokens.
        self.audio_rows = np.asarray(self.ref["audio_embeds_speech"][0], np.float32) if "audio_embeds_speech" in self.ref else None
        grid = self.ref.get("image_grid_thw")
        self.grids = [tuple(int(v) for v in g) for g in grid] if grid is not None else None
        if "image_attention_mask" in self.ref:
            self._hd_image(meta, pixel_file)

    def _hd_image(self, meta, pixel_file):
        from .manifest import ContractError
        if pixel_file is None:
            raise ContractError(f"{self.name}: an HD image case needs --pixel-values (its reference keeps only their sha256)")
        with open(pixel_file, "rb") as f:
            raw = f.read()
        want = meta.get("image_pixel_values_sha256")
        if hashlib.sha256(raw).hexdigest() != want:
            raise ContractError(f"{self.name}: {pixel_file} is not the reference's pixel values (sha256 differs from {want})")
        mask = np.asarray(self.ref["image_attention_mask"][0])
        side = mask.shape[-1]
        crop = int(round((len(raw) // 4 // mask.shape[0] // 3) ** 0.5))
        assert crop % side == 0
        self.pixel_values = np.frombuffer(raw, np.float32).reshape(mask.shape[0], 3, crop, crop)
        self.grids = (mask, [int(v) for v in np.asarray(self.ref["image_sizes"][0])])

    def tensor(self, name):
        t = self.ref.get(name)
        if t is None:
            raise KeyError(f"{self.name}: reference has no {name}")
        return np.asarray(t)


def tolerance(ref):
    """The fixtures' tolerance: 1e-4 · max(1, max |ref|)."""
    return 1e-4 * max(1.0, float(np.abs(ref).max()))
