"""fixture.py — a prompt from a tests/fixtures case's reference inputs (input_ids, pixel_values,
image_grid_thw), so the runner needs no tokenizer or image decoder, and the reference outputs the
checks compare with."""
import json
import os

import numpy as np

from .safetensors import read_file


class Fixture:
    def __init__(self, case_dir):
        self.dir = case_dir
        self.name = os.path.basename(os.path.normpath(case_dir))
        self.ref = read_file(os.path.join(case_dir, "reference.safetensors"))
        # The LoRA adapter the reference ran with (peft's set_adapter; Phi-4-multimodal's audio
        # case: speech), "none" when it names none.
        with open(os.path.join(case_dir, "reference.json")) as f:
            self.adapter = json.load(f).get("lora_adapter") or "none"
        self.ids = [int(x) for x in self.ref["input_ids"][0]]
        self.generated = [int(x) for x in self.ref["generated_ids"]]
        self.pixel_values = np.asarray(self.ref["pixel_values"], np.float32) if "pixel_values" in self.ref else None
        # An audio prompt (Phi-4-multimodal): the reference's audio rows for its audio tokens.
        self.audio_rows = np.asarray(self.ref["audio_embeds_speech"][0], np.float32) if "audio_embeds_speech" in self.ref else None
        grid = self.ref.get("image_grid_thw")
        self.grids = [tuple(int(v) for v in g) for g in grid] if grid is not None else None

    def tensor(self, name):
        t = self.ref.get(name)
        if t is None:
            raise KeyError(f"{self.name}: reference has no {name}")
        return np.asarray(t)


def tolerance(ref):
    """The fixtures' tolerance: 1e-4 · max(1, max |ref|)."""
    return 1e-4 * max(1.0, float(np.abs(ref).max()))
