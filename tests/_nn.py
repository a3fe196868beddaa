"""Differential testing of nn modules: build the same module in real torch and in facade, copy torch's
weights and buffers into facade's, run the same inputs, and compare outputs, input gradients,
parameter gradients, buffers after the call (running statistics) and state_dict keys and shapes."""

from __future__ import annotations

import numpy as np
import torch

import facade

from ._compare import host


def resolve(mod, path):
    for part in path.split("."):
        mod = getattr(mod, part)
    return mod


def _tensor(lib, a, grad):
    t = lib.tensor(a)
    if grad and t.is_floating_point():
        t.requires_grad_(True)
    return t


def copy_weights(tm, fm):
    """Load torch module `tm`'s state dict into facade module `fm` (as facade tensors of the same dtype)."""
    sd = {k: facade.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    fm.load_state_dict(sd)


def _close(t, f, rtol, atol, what):
    assert str(f.dtype) == str(t.dtype), f"{what}: dtype {f.dtype} vs torch {t.dtype}"
    assert tuple(f.shape) == tuple(t.shape), f"{what}: shape {tuple(f.shape)} vs torch {tuple(t.shape)}"
    np.testing.assert_allclose(host(f), host(t), rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out] if isinstance(out, (torch.Tensor, facade.Tensor)) else []


def check_module(path, args=(), kwargs=None, inputs=(), *, train=True, steps=1, rtol=1e-5, atol=1e-6,
                 grad=True, seed=0, call=None):
    """`path` names the class under torch/facade ("nn.Linear"); args/kwargs construct it on both sides;
    `inputs` are numpy arrays (float ones get requires_grad) or other values passed as is. `call(m, *xs)`
    overrides how the module is called. Runs `steps` forward/backward passes (train or eval mode) and
    compares everything after each. Returns (torch_module, facade_module)."""
    kwargs = kwargs or {}
    torch.manual_seed(seed)
    tm = path(torch) if callable(path) else resolve(torch, path)(*args, **kwargs)  # path(lib) builds it
    fm = path(facade) if callable(path) else resolve(facade, path)(*args, **kwargs)
    assert type(fm).__name__ == type(tm).__name__
    t_sd, f_sd = tm.state_dict(), fm.state_dict()
    assert list(f_sd) == list(t_sd), f"state_dict keys {list(f_sd)} vs torch {list(t_sd)}"
    for k in t_sd:
        assert tuple(f_sd[k].shape) == tuple(t_sd[k].shape), f"{k}: shape {f_sd[k].shape} vs {t_sd[k].shape}"
        assert str(f_sd[k].dtype) == str(t_sd[k].dtype), f"{k}: dtype {f_sd[k].dtype} vs {t_sd[k].dtype}"
    copy_weights(tm, fm)
    tm.train(train)
    fm.train(train)
    assert repr(fm) == repr(tm), f"repr:\n{fm!r}\nvs torch:\n{tm!r}"
    rng = np.random.default_rng(seed)
    for step in range(steps):
        xt = [_tensor(torch, a, grad) if isinstance(a, np.ndarray) else a for a in inputs]
        xf = [_tensor(facade, a, grad) if isinstance(a, np.ndarray) else a for a in inputs]
        ot = call(tm, *xt) if call else tm(*xt)
        of = call(fm, *xf) if call else fm(*xf)
        ft, ff = _flat(ot), _flat(of)
        assert len(ft) == len(ff), f"{len(ff)} outputs vs torch {len(ft)}"
        for i, (a, b) in enumerate(zip(ft, ff)):
            _close(a, b, rtol, atol, f"step {step} output {i}")
        if grad:
            outs = [(a, b) for a, b in zip(ft, ff) if a.requires_grad]
            if outs:
                gs = [rng.standard_normal(a.shape).astype(host(a).dtype) for a, _ in outs]
                for lib, side in ((torch, 0), (facade, 1)):
                    lib.autograd.backward([o[side] for o in outs],
                                          [lib.tensor(g).to(o[side].dtype) for g, o in zip(gs, outs)])
                for i, (a, b) in enumerate(zip(xt, xf)):
                    if isinstance(a, torch.Tensor) and a.grad is not None:
                        _close(a.grad, b.grad, rtol, atol, f"step {step} input {i} grad")
                fp = dict(fm.named_parameters())
                for name, p in tm.named_parameters():
                    if p.grad is not None:
                        assert fp[name].grad is not None, f"step {step} {name}: no grad (torch has one)"
                        _close(p.grad, fp[name].grad, rtol, atol, f"step {step} {name}.grad")
        fb = dict(fm.named_buffers())
        for name, b in tm.named_buffers():
            if b is not None:
                _close(b, fb[name], rtol, atol, f"step {step} buffer {name}")
    return tm, fm


def check_init(path, args=(), kwargs=None, draws=20, tol=0.1):
    """Default initialisation follows torch's distribution: per parameter, the min/max bounds, mean and std
    over `draws` fresh modules agree with torch's within `tol` (relative to torch's std), or for the mean and
    std of a small parameter within 4 standard errors of a difference of two samples' (a bias of 30 values
    over 20 draws: 0.1 std is 1.7 standard errors, which a change of the random stream fails one time in 12)."""
    kwargs = kwargs or {}
    stats = {}
    for lib in (torch, facade):
        vals = {}
        for i in range(draws):
            lib.manual_seed(i)
            m = resolve(lib, path)(*args, **kwargs)
            for name, p in m.named_parameters():
                vals.setdefault(name, []).append(host(p).ravel())
        stats[lib.__name__] = {k: np.concatenate(v) for k, v in vals.items()}
    t, f = stats["torch"], stats["facade"]
    assert list(f) == list(t)
    for k in t:
        sd = max(t[k].std(), 1e-3)
        for stat in (np.mean, np.std, np.min, np.max):
            got, want = stat(f[k]), stat(t[k])
            bound = tol * sd if stat in (np.min, np.max) else max(tol, 4 * (2 / t[k].size) ** 0.5) * sd
            assert abs(got - want) <= bound + 1e-6, f"{k} {stat.__name__}: {got} vs torch {want}"
