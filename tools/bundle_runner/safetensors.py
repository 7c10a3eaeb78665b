"""safetensors.py — reads a checkpoint's safetensors files (single or sharded) into numpy arrays.

Memory-mapped, no copy: an array is a view of the file. BF16 arrives as ml_dtypes.bfloat16, F16,
F32 and the integer types (a quantized bundle's I8/U8 weights) as numpy's own types. A header that does not describe its file (offsets outside the data,
overlaps, a size that is not dtype × shape) is refused with the file and tensor named.
"""
import json
import os
import struct

import ml_dtypes
import numpy as np

DTYPES = {
    "F32": np.dtype(np.float32),
    "F16": np.dtype(np.float16),
    "BF16": np.dtype(ml_dtypes.bfloat16),
    "I64": np.dtype(np.int64),
    "I32": np.dtype(np.int32),
    "I8": np.dtype(np.int8),
    "U8": np.dtype(np.uint8),
}


def dtype_name(dtype):
    """The safetensors name of a numpy dtype ("F32", "I32", …), or its numpy name if none."""
    return next((k for k, v in DTYPES.items() if v == dtype), str(dtype))


class SafetensorsError(Exception):
    pass


def read_file(path):
    """{name: array} of one .safetensors file (arrays are read-only views of a memory map)."""
    name = os.path.basename(path)
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise SafetensorsError(f"{name}: shorter than its 8-byte header length")
        (n,) = struct.unpack("<Q", head)
        if n > size - 8:
            raise SafetensorsError(f"{name}: header of {n} bytes in a file of {size}")
        try:
            header = json.loads(f.read(n))
        except ValueError as e:
            raise SafetensorsError(f"{name}: header is not JSON ({e})") from None
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n) if size > 8 + n else np.zeros(0, np.uint8)
    out = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        dtype = DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise SafetensorsError(f"{name}: {key}: dtype {info.get('dtype')!r} is not supported")
        shape = tuple(int(d) for d in info["shape"])
        begin, end = (int(x) for x in info["data_offsets"])
        if not 0 <= begin <= end <= data.size or end - begin != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
            raise SafetensorsError(f"{name}: {key}: data_offsets {begin}..{end} do not hold {info['dtype']}{list(shape)}")
        out[key] = data[begin:end].view(dtype).reshape(shape)
    return out


def read_checkpoint(model_dir):
    """Every tensor of a checkpoint folder: model.safetensors, or the shards named by
    model.safetensors.index.json."""
    index = os.path.join(model_dir, "model.safetensors.index.json")
    files = ["model.safetensors"]
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    tensors = {}
    for name in files:
        for key, value in read_file(os.path.join(model_dir, name)).items():
            if key in tensors:
                raise SafetensorsError(f"{model_dir}: tensor {key} is in two shards")
            tensors[key] = value
    return tensors
