"""torch's printed form of a tensor."""

import numpy as np

from . import _dtype as D


def _fmt_array(a, dtype):
    if a.size == 0:
        return "[]"
    if dtype is D.bool:
        return np.array2string(a, separator=", ", formatter={"bool": lambda v: str(bool(v))})
    if dtype._cat == 1:
        return np.array2string(a, separator=", ")
    return np.array2string(a.astype(np.float64) if dtype is D.bfloat16 else a, separator=", ", precision=4)


def tensor_repr(t):
    suffix = []
    if t.device.type != "cpu":
        suffix.append(f"device='{t.device}'")
    if t.device.type == "meta":
        body = "..."
        suffix.append(f"size={tuple(t.shape)}")
    else:
        body = _fmt_array(np.asarray(t._host()), t.dtype)
    if t.dtype not in (D.get_default_dtype(), D.int64, D.bool) or (t.numel() == 0 and t.dtype is not D.get_default_dtype()):
        suffix.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    body = body.replace("\n", "\n       ")
    return "tensor(" + ", ".join([body] + suffix) + ")"
