"""The generic differential test: every OpInfo sample through real torch and through facade."""

from __future__ import annotations

import importlib
import pkgutil
import re
import warnings

import jax
import numpy as np
import pytest
import torch

import facade
from facade import _host

from . import opinfo
from ._compare import assert_zero_signs, host_mode

for _m in pkgutil.iter_modules(opinfo.__path__):
    importlib.import_module(f"{opinfo.__name__}.{_m.name}")


def _cases():
    rng = np.random.default_rng(0)
    for info in opinfo.OPS:
        for i, s in enumerate(info.samples(rng)):
            marks = [pytest.mark.xfail(reason=info.xfail, strict=False)] if info.xfail else []
            yield pytest.param(info, s, id=f"{info.name}-{i}{s!r}"[:150], marks=marks)


def resolve(mod, name):
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


def make(mod, a, grad):
    """Tensor of library `mod` from a sample argument."""
    if isinstance(a, opinfo.Arg):
        v = a.value
        t = mod.tensor(np.ascontiguousarray(np.swapaxes(v, -1, -2)) if a.transpose else v)
        if grad and a.grad and t.is_floating_point():
            t.requires_grad_(True)
        return (t.mT if a.transpose else t), t if t.requires_grad else None
    if isinstance(a, np.ndarray):
        t = mod.tensor(a)
        if grad and t.is_floating_point():
            t.requires_grad_(True)
        return t, t if t.requires_grad else None
    if isinstance(a, (list, tuple)) and a and any(isinstance(x, (np.ndarray, opinfo.Arg)) for x in a):
        made = [make(mod, x, grad) for x in a]
        return type(a)(m for m, _ in made), [leaf for _, leaf in made]
    return a, None


def convert(mod, sample, grad):
    leaves = []
    args = []
    for a in sample.args:
        t, leaf = make(mod, a, grad)
        args.append(t)
        leaves.extend(leaf if isinstance(leaf, list) else [leaf])
    kwargs = {}
    for k, v in sample.kwargs.items():
        t, leaf = make(mod, v, grad)
        kwargs[k] = t
        leaves.extend(leaf if isinstance(leaf, list) else [leaf])
    return args, kwargs, leaves


def invoke(mod, info, args, kwargs):
    if info.call is not None:
        return info.call(mod, *args, **kwargs)
    name = info.name
    if name.startswith("Tensor."):
        return getattr(args[0], name[7:])(*args[1:], **kwargs)
    if name.startswith("__"):
        return getattr(args[0], name)(*args[1:], **kwargs)
    return resolve(mod, name)(*args, **kwargs)


def to_np(x):
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x._is_zerotensor():  # torch's symbolic zero gradients (e.g. of sgn)
            x = torch.zeros(x.shape, dtype=x.dtype)
        x = x.resolve_conj().resolve_neg()  # lazy conj()/neg() views
        return x.float().numpy() if x.dtype == torch.bfloat16 else x.numpy()
    if isinstance(x, facade.Tensor):
        x = x.detach()
        return np.asarray(x._arr()).astype(np.float32) if x.dtype == facade.bfloat16 else x.numpy()
    return x


def assert_same(t, f, rtol, atol, what="value"):
    if isinstance(t, (tuple, list)):
        assert isinstance(f, (tuple, list)), f"{what}: torch gave a sequence, facade gave {type(f).__name__}"
        assert len(t) == len(f), f"{what}: {len(t)} outputs vs {len(f)}"
        for i, (a, b) in enumerate(zip(t, f)):
            assert_same(a, b, rtol, atol, f"{what}[{i}]")
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(f, facade.Tensor), f"{what}: facade returned {type(f).__name__}"
        assert str(t.dtype) == str(f.dtype), f"{what}: dtype {t.dtype} vs {f.dtype}"
        assert tuple(t.shape) == tuple(f.shape), f"{what}: shape {tuple(t.shape)} vs {tuple(f.shape)}"
        np.testing.assert_allclose(to_np(f), to_np(t), rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
        return
    if isinstance(t, float):
        np.testing.assert_allclose(f, t, rtol=rtol, atol=atol, err_msg=what)
        return
    assert t == f, f"{what}: {t!r} vs {f!r}"


def _float_outputs(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if hasattr(o, "requires_grad") and o.requires_grad]


@pytest.mark.parametrize("info,sample", list(_cases()))
def test_op(info, sample):
    args_t, kwargs_t, _ = convert(torch, sample, grad=False)
    try:
        expected = invoke(torch, info, args_t, kwargs_t)
    except Exception as e:  # torch refuses: facade must refuse with the same error type
        args_f, kwargs_f, _ = convert(facade, sample, grad=False)
        with pytest.raises(type(e)):
            invoke(facade, info, args_f, kwargs_f)
        return
    args_f, kwargs_f, _ = convert(facade, sample, grad=False)
    got = invoke(facade, info, args_f, kwargs_f)
    (info.compare or assert_same)(expected, got, info.rtol, info.atol)

    if info.jit:  # the same functional code, not jitted
        with jax.disable_jit():
            args_e, kwargs_e, _ = convert(facade, sample, grad=False)
            eager = invoke(facade, info, args_e, kwargs_e)
        (info.compare or assert_same)(to_torchlike(got), eager, info.rtol, info.atol, "jit vs eager")

    if not info.grad:
        return
    args_t, kwargs_t, leaves_t = convert(torch, sample, grad=True)
    leaves_t = [leaf for leaf in leaves_t if leaf is not None]
    if not leaves_t:
        return
    out_t = _float_outputs(invoke(torch, info, args_t, kwargs_t))
    if not out_t:
        return
    args_f, kwargs_f, leaves_f = convert(facade, sample, grad=True)
    leaves_f = [leaf for leaf in leaves_f if leaf is not None]
    out_f = _float_outputs(invoke(facade, info, args_f, kwargs_f))
    assert len(out_t) == len(out_f), "number of differentiable outputs"
    rng = np.random.default_rng(1)
    cots = [rng.standard_normal(tuple(o.shape)).astype(to_np(o).dtype) if not o.is_complex()
            else (rng.standard_normal(tuple(o.shape)) + 1j * rng.standard_normal(tuple(o.shape))).astype(to_np(o).dtype)
            for o in out_t]
    gt = torch.autograd.grad(out_t, leaves_t, [torch.tensor(c, dtype=o.dtype) for c, o in zip(cots, out_t)],
                             allow_unused=True)
    gf = facade.autograd.grad(out_f, leaves_f, [facade.tensor(c, dtype=o.dtype) for c, o in zip(cots, out_f)],
                              allow_unused=True)
    rtol = info.grad_rtol or max(info.rtol, 1e-4)
    for i, (a, b) in enumerate(zip(gt, gf)):
        if a is None:
            assert b is None or not np.any(to_np(b)), f"grad[{i}]: torch has none, facade nonzero"
            continue
        if b is None:  # torch materialises zeros where facade's graph has no edge (non-differentiable ops)
            assert not np.any(to_np(a)), f"grad[{i}]: facade gave no gradient"
            continue
        assert_same(a, b, rtol, max(info.atol, 1e-5), f"grad[{i}]")



def to_torchlike(x):
    if isinstance(x, (tuple, list)):
        return type(x)(to_torchlike(v) for v in x) if not hasattr(x, "_fields") else tuple(to_torchlike(v) for v in x)
    if isinstance(x, facade.Tensor):
        a = to_np(x)
        t = torch.from_numpy(np.array(a, copy=True))
        return t.to(getattr(torch, str(x.dtype).split(".")[1]))
    return x


# ---------------------------------------------------------------------------- host mode (DataLoader workers)

class _Reached(Exception):
    pass


def host_rule(info, sample):
    """The host rule (facade._host) that facade's call of `sample` reaches first in host mode, or None when
    it reaches none (host mode refuses the op, or no op of the table is dispatched)."""
    def probe(comp, skel, dyn):
        name = comp.op.fn.__name__
        if name == "astype":  # a cast on the way to the op proper
            return real(comp, skel, dyn)
        raise _Reached(name if _host.has_rule(comp.op) else None)

    real = _host.run
    with host_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            args, kwargs, _ = convert(facade, sample, grad=False)  # (its views of arguments are not the op)
            _host.run = probe
            invoke(facade, info, args, kwargs)
        except _Reached as r:
            return r.args[0]
        except Exception:
            return None
        finally:
            _host.run = real
    return None


def _refused(e):
    """A composition whose later op has no host rule: refused by name, never computed wrong."""
    return isinstance(e, RuntimeError) and re.match(r"torch\.\w+ is not available in DataLoader worker", str(e))


HOST_CASES = [p for p in _cases() if host_rule(*p.values)]
# torch's own zeros differ by code path here (vectorized vs scalar loops, reduction order; clamp's tensor
# bounds where x == bound): no sign check
_TORCH_ZERO_SIGN_VARIES = {"maximum", "minimum", "amax", "amin", "max", "min", "Tensor.max", "clamp", "clip",
                           "clamp_min", "clamp_max", "Tensor.clamp_", "clip_", "clamp_", "clamp_min_"}


@pytest.mark.parametrize("info,sample", HOST_CASES)
def test_op_host(info, sample):
    """Every sample that reaches a host rule: in host mode (numpy-backed tensors, as in a DataLoader worker)
    the same value, dtype, shape, NaN, +-inf and signed zeros as real torch, and as facade's main JAX path."""
    args_t, kwargs_t, _ = convert(torch, sample, grad=False)
    try:
        expected = invoke(torch, info, args_t, kwargs_t)
    except Exception as e:
        with host_mode(), pytest.raises((type(e), RuntimeError)) as info_e:
            invoke(facade, info, *convert(facade, sample, grad=False)[:2])
        assert isinstance(info_e.value, type(e)) or _refused(info_e.value), info_e.value
        return
    main = invoke(facade, info, *convert(facade, sample, grad=False)[:2])
    with host_mode():
        try:
            got = invoke(facade, info, *convert(facade, sample, grad=False)[:2])
        except RuntimeError as e:
            assert _refused(e), e
            return
    compare = info.compare or assert_same
    compare(expected, got, info.rtol, info.atol, "host vs torch")
    compare(to_torchlike(main), got, info.rtol, info.atol, "host vs main path")
    if info.compare is None and info.name not in _TORCH_ZERO_SIGN_VARIES:
        assert_zero_signs(expected, got, "host vs torch")
