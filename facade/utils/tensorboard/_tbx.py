"""tensorboardX, imported without letting it pull in real PyTorch, and the facade -> numpy conversion.

`tensorboardX/writer.py` runs `import torch` at import time (to name a type hint). In a facade process
that would load real torch (when installed) or, under `python -m facade`, resolve to facade itself.
Only the first is harmful, so while tensorboardX imports, an absent `torch` is made unimportable.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np


def _import_quietly(name):
    if "torch" in sys.modules:
        return importlib.import_module(name)
    sys.modules["torch"] = None  # `import torch` raises ImportError, which tensorboardX tolerates
    try:
        return importlib.import_module(name)
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


tbx = _import_quietly("tensorboardX")
summary = importlib.import_module("tensorboardX.summary")
proto = importlib.import_module("tensorboardX.proto")
embedding = importlib.import_module("tensorboardX.embedding")
utils = importlib.import_module("tensorboardX.utils")


def to_numpy(x):
    """A facade Tensor (any device, requires_grad or not) as a numpy array; other values unchanged.

    This is one device-to-host copy of the array the tensor already holds: nothing is compiled.
    """
    from ..._tensor import Tensor

    if isinstance(x, Tensor):
        a = np.asarray(x._host())
        return a.astype(np.float32) if a.dtype.name == "bfloat16" else a
    return x
