"""torch.func and torch.autograd.functional against real torch: each scenario runs with `lib` = torch and
`lib` = facade and must give the same values, shapes, dtypes, requires_grad and output structure (or the same
error type and message)."""

from __future__ import annotations

import copy
import re
import warnings

import numpy as np
import pytest
import torch

import facade
from tests._compare import assert_same

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3)).astype(np.float32)
B = RNG.standard_normal(3).astype(np.float32)
C = RNG.standard_normal((2, 3)).astype(np.float32)


def _cmp(t, f, what="result"):
    if isinstance(t, dict):
        assert isinstance(f, dict) and list(f) == list(t), f"{what}: {f!r} vs torch {t!r}"
        for k in t:
            _cmp(t[k], f[k], f"{what}[{k!r}]")
    elif isinstance(t, (tuple, list)) and not isinstance(t, torch.Size):
        assert type(f).__name__ == type(t).__name__ and len(f) == len(t), f"{what}: {f!r} vs torch {t!r}"
        for i, (a, b) in enumerate(zip(t, f)):
            _cmp(a, b, f"{what}[{i}]")
    else:
        assert_same(t, f, rtol=2e-5, atol=2e-6, what=what)


def run_both(fn):
    """fn(torch) and fn(facade) agree; if torch raises, facade raises the same type and first message line."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(torch)
        except Exception as e:
            with pytest.raises(type(e), match="^" + re.escape(str(e).split("\n")[0])):
                fn(facade)
            return
        got = fn(facade)
    _cmp(expected, got)


def both(fn):
    def test():
        run_both(fn)

    test.__name__ = fn.__name__
    return test


def t(lib, a, requires_grad=False):
    return lib.tensor(a, requires_grad=requires_grad)


def _model(lib, bn=False):
    layers = [lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)]
    if bn:
        layers.insert(1, lib.nn.BatchNorm1d(5))
    m = lib.nn.Sequential(*layers)
    rng = np.random.default_rng(1)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return m


# ------------------------------------------------------------------------------------------------ grad

@both
def test_grad_argnums_and_aux(lib):
    F = lib.func
    x, y = t(lib, B), t(lib, B[::-1].copy())

    def f(x, y):
        return (x.sin() * y).sum(), {"x2": x * 2, "pair": (y.exp(),)}

    return (F.grad(lambda x: (x.sin() * x).sum())(x), F.grad(f, argnums=(0, 1), has_aux=True)(x, y),
            F.grad_and_value(f, argnums=-1, has_aux=True)(x, y), F.grad(lambda p: (p["a"] * p["b"]).sum())(
                {"a": x, "b": y}), F.grad(lambda x: x.pow(2).sum())(t(lib, B).double()))


@pytest.mark.parametrize("case", ["nonscalar", "nontensor", "aux_not_tuple", "aux_nontensor", "argnum_range",
                                  "argnum_float", "argnum_empty", "argnum_dup", "arg_float", "arg_int"])
def test_grad_errors(case):
    def fn(lib):
        F, x = lib.func, t(lib, B)
        return {
            "nonscalar": lambda: F.grad(lambda x: x * 2)(x),
            "nontensor": lambda: F.grad(lambda x: 1.0)(x),
            "aux_not_tuple": lambda: F.grad(lambda x: x.sum(), has_aux=True)(x),
            "aux_nontensor": lambda: F.grad(lambda x: (x.sum(), "s"), has_aux=True)(x),
            "argnum_range": lambda: F.grad(lambda x: x.sum(), argnums=1)(x),
            "argnum_float": lambda: F.grad(lambda x: x.sum(), argnums=1.0)(x),
            "argnum_empty": lambda: F.grad(lambda x: x.sum(), argnums=())(x),
            "argnum_dup": lambda: F.grad(lambda x, y: (x * y).sum(), argnums=(0, 0))(x, x),
            "arg_float": lambda: F.grad(lambda x: x)(1.0),
            "arg_int": lambda: F.grad(lambda x: x.sum())(lib.arange(3)),
        }[case]()

    run_both(fn)


@both
def test_grad_composes_with_outer_autograd(lib):
    """The gradient of an input that requires grad has a graph (second derivative by backward); so does the
    gradient of a function closing over a parameter that requires grad."""
    x, w = t(lib, B, True), t(lib, B[::-1].copy(), True)
    g = lib.func.grad(lambda x: (x ** 3).sum())(x)
    g.sum().backward()
    h = lib.func.grad(lambda y: (y * w).sin().sum())(t(lib, B))
    (h * h).sum().backward()
    return g, x.grad, h.requires_grad, w.grad


@both
def test_higher_order(lib):
    F, x = lib.func, t(lib, B)

    def f(x):
        return (x.sin() * x.exp()).sum()

    return (F.grad(F.grad(lambda x: x.sin().sum() * 1.0 + (x ** 3).sum()))(t(lib, np.float32(0.7))),
            F.jacrev(F.jacfwd(lambda x: x.sin() * x.sum()))(x), F.hessian(f)(x), F.jacfwd(F.jacrev(f))(x),
            F.vmap(F.jacrev(lambda x: x.tanh() * x))(t(lib, C)))


# ------------------------------------------------------------------------------------------- vjp / jvp

@both
def test_vjp(lib):
    F, x, y = lib.func, t(lib, B), t(lib, B * 2)
    out, fn = F.vjp(lambda x, y: (x.sin() * y, {"s": x.sum()}), x, y)
    out2, fn2, aux = F.vjp(lambda x: (x.exp(), x.cos()), x, has_aux=True)
    return out, fn((t(lib, B[::-1].copy()), {"s": t(lib, np.float32(2.0))})), out2, fn2(t(lib, B)), aux


@pytest.mark.parametrize("case", ["aux_not_tuple", "nontensor_out", "ct_shape", "ct_structure", "ct_dtype"])
def test_vjp_errors(case):
    def fn(lib):
        F, x = lib.func, t(lib, B)
        return {
            "aux_not_tuple": lambda: F.vjp(lambda x: x.sin(), x, has_aux=True),
            "nontensor_out": lambda: F.vjp(lambda x: 1.0, x),
            "ct_shape": lambda: F.vjp(lambda x: x.sin(), x)[1](lib.ones(4)),
            "ct_structure": lambda: F.vjp(lambda x: x.sin(), x)[1]((lib.ones(3),)),
            "ct_dtype": lambda: F.vjp(lambda x: x * 2, x)[1](lib.ones(3, dtype=lib.float64)),
        }[case]()

    run_both(fn)


@both
def test_jvp_and_linearize(lib):
    F, x, v = lib.func, t(lib, B), t(lib, B[::-1].copy())
    out = F.jvp(lambda x, y: {"a": x.sin() * y, "b": x.sum()}, (x, x * 2), (v, v))
    aux = F.jvp(lambda x: (x.exp(), [x.cos()]), (x,), (v,), has_aux=True)
    y, jfn = F.linearize(lambda x: x.sin() * x, x)
    return out, aux, y, jfn(v), jfn(v * 3)


@pytest.mark.parametrize("case", ["not_tuple", "structure", "size", "aux", "int", "nontensor"])
def test_jvp_errors(case):
    def fn(lib):
        F, x = lib.func, t(lib, B)
        return {
            "not_tuple": lambda: F.jvp(lambda x: x.sin(), x, x),
            "structure": lambda: F.jvp(lambda x: x.sin(), (x,), (x, x)),
            "size": lambda: F.jvp(lambda x: x.sin(), (x,), (lib.ones(4),)),
            "aux": lambda: F.jvp(lambda x: x.sin(), (x,), (x,), has_aux=True),
            "int": lambda: F.jvp(lambda x: x * 2, (lib.arange(3),), (lib.arange(3),)),
            "nontensor": lambda: F.jvp(lambda x: x, (1.0,), (1.0,)),
        }[case]()

    run_both(fn)


# ------------------------------------------------------------------------------------ jacobians, hessian

@both
def test_jacobians(lib):
    F, x, y = lib.func, t(lib, B), t(lib, C)

    def f(x, y):
        return {"o": (y @ x).exp(), "s": x.sum() * y.mean()}

    return (F.jacrev(f)(x, y), F.jacfwd(f, argnums=(0, 1))(x, y), F.jacrev(lambda d: d["a"] * 2)({"a": x}),
            F.jacrev(lambda x: (x.sin(), x.cos()), has_aux=True)(x),
            F.jacfwd(lambda x: (x.sin(), {"a": x}), has_aux=True)(x),
            F.hessian(lambda x, y: (x.sin().sum() * y.sum()), argnums=(0, 1))(x, y))


@pytest.mark.parametrize("case", ["rev_aux", "fwd_aux", "rev_int", "fwd_int", "rev_nontensor"])
def test_jacobian_errors(case):
    def fn(lib):
        F, x = lib.func, t(lib, B)
        return {
            "rev_aux": lambda: F.jacrev(lambda x: x.sin(), has_aux=True)(x),
            "fwd_aux": lambda: F.jacfwd(lambda x: x.sin(), has_aux=True)(x),
            "rev_int": lambda: F.jacrev(lambda x: x * 2)(lib.arange(3)),
            "fwd_int": lambda: F.jacfwd(lambda x: x * 2)(lib.arange(3)),
            "rev_nontensor": lambda: F.jacrev(lambda x: 1.0)(x),
        }[case]()

    run_both(fn)


# ------------------------------------------------------------------------------------------------ vmap

@both
def test_vmap_dims(lib):
    F, x, y, a = lib.func, t(lib, C), t(lib, B), t(lib, A)
    return (F.vmap(lambda x, y: x * y)(x, y.expand(2, 3)),
            F.vmap(lambda x, y: x * y, in_dims=(0, None))(x, y),
            F.vmap(lambda x: x.sum(0), in_dims=-1)(a),
            F.vmap(lambda d, s: d["a"] * s, in_dims=({"a": 1}, None))({"a": a}, 2.0),
            F.vmap(lambda x: (x, x.sum()), out_dims=(1, 0))(x),
            F.vmap(lambda x: x * 2, out_dims=-1)(x),
            F.vmap(lambda x: {"c": lib.ones(2), "x": x}, out_dims={"c": None, "x": 0})(x),
            F.vmap(lambda x, w=None: x + w)(x, w=y),
            F.vmap(F.vmap(lambda x, y: x * y, in_dims=(0, None)), in_dims=(None, 0))(y, x),
            F.vmap(lambda x: x.exp().sum(), chunk_size=3)(a),
            F.vmap(lambda x: x.outer(x), chunk_size=1, out_dims=1)(x))


@pytest.mark.parametrize("case", ["nontensor", "range", "structure", "type", "list", "float", "sizes", "no_inputs",
                                  "all_none", "out_float", "out_none", "out_dim_none_batched", "out_dim_range",
                                  "out_structure", "randomness_arg", "chunk", "scalar_input"])
def test_vmap_errors(case):
    def fn(lib):
        F, x = lib.func, t(lib, C)
        return {
            "nontensor": lambda: F.vmap(lambda x, s: x * s)(x, 2.0),
            "range": lambda: F.vmap(lambda x: x, in_dims=(3,))(x),
            "structure": lambda: F.vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": x}),
            "type": lambda: F.vmap(lambda x: x, in_dims="a")(x),
            "list": lambda: F.vmap(lambda x: x, in_dims=[0])(x),
            "float": lambda: F.vmap(lambda x: x, in_dims=(0.5,))(x),
            "sizes": lambda: F.vmap(lambda x, y: x + y)(x, lib.ones(3, 3)),
            "no_inputs": lambda: F.vmap(lambda: 1)(),
            "all_none": lambda: F.vmap(lambda x: x, in_dims=(None,))(x),
            "out_float": lambda: F.vmap(lambda x: 1.0)(x),
            "out_none": lambda: F.vmap(lambda x: None)(x),
            "out_dim_none_batched": lambda: F.vmap(lambda x: x, out_dims=None)(x),
            "out_dim_range": lambda: F.vmap(lambda x: x, out_dims=3)(x),
            "out_structure": lambda: F.vmap(lambda x: (x, x), out_dims=(0, 1, 0))(x),
            "randomness_arg": lambda: F.vmap(lambda x: x, randomness="foo")(x),
            "chunk": lambda: F.vmap(lambda x: x, chunk_size=0)(x),
            "scalar_input": lambda: F.vmap(lambda x: x)(lib.tensor(1.0)),
        }[case]()

    run_both(fn)


@pytest.mark.parametrize("op", ["randn", "rand_like", "dropout"])
def test_vmap_randomness(op):
    def draw(lib, x):
        return {"randn": lambda: x + lib.randn(3), "rand_like": lambda: lib.rand_like(x),
                "dropout": lambda: lib.nn.functional.dropout(x + 1, 0.5)}[op]()

    def fn(lib, mode):
        x = lib.zeros(4, 3)
        out = lib.func.vmap(lambda x: draw(lib, x), randomness=mode)(x)
        return tuple(out.shape), bool((out == out[0]).all())

    for mode in ("same", "different"):
        assert fn(facade, mode) == fn(torch, mode), mode
    run_both(lambda lib: fn(lib, "error"))


# ----------------------------------------------------------------------------- modules: functional_call

@both
def test_functional_call(lib):
    m = _model(lib, bn=True).eval()
    x = t(lib, A)
    params = {k: v * 2 for k, v in m.named_parameters()}
    buffers = {k: v + 1 for k, v in m.named_buffers()}
    before = m(x)
    out = lib.func.functional_call(m, (params, buffers), (x,))
    partial = lib.func.functional_call(m, {"0.bias": lib.zeros(5)}, x)
    lin = lib.nn.Linear(3, 2)
    kw = lib.func.functional_call(lin, {"weight": lib.ones(2, 3), "bias": lib.zeros(2)}, (), {"input": x})
    return before, out, partial, m(x), kw, type(m[0].weight).__name__


@pytest.mark.parametrize("case", ["missing", "unexpected", "duplicate", "not_dict", "tie_conflict"])
def test_functional_call_errors(case):
    def fn(lib):
        m, x = _model(lib), t(lib, A)
        p = dict(m.named_parameters())
        tied = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
        tied[1].weight = tied[0].weight
        return {
            "missing": lambda: lib.func.functional_call(m, {"0.weight": p["0.weight"]}, x, strict=True),
            "unexpected": lambda: lib.func.functional_call(m, {**p, "foo": lib.ones(1)}, x, strict=True),
            "duplicate": lambda: lib.func.functional_call(m, (p, p), x),
            "not_dict": lambda: lib.func.functional_call(m, 3, x),
            "tie_conflict": lambda: lib.func.functional_call(
                tied, {"0.weight": lib.eye(2), "1.weight": lib.eye(2) * 2}, lib.ones(1, 2)),
        }[case]()

    run_both(fn)


@both
def test_functional_call_ties_and_restores(lib):
    tied = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
    with lib.no_grad():
        tied[0].weight.copy_(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tied[1].weight = tied[0].weight
    w, x = lib.eye(2) * 2, lib.ones(1, 2)
    FC = lib.func.functional_call
    res = [FC(tied, {"0.weight": w}, x), FC(tied, {"0.weight": w}, x, tie_weights=False)]
    lin = lib.nn.Linear(3, 2)
    orig = lin.weight

    def boom(x):
        raise ValueError("boom")

    lin.forward = boom
    with pytest.raises(ValueError, match="boom"):
        FC(lin, {"weight": lib.zeros(2, 3), "extra": lib.ones(1)}, t(lib, A))
    return res, lin.weight is orig, hasattr(lin, "extra"), FC(tied, {"foo": lib.ones(1)}, x)


# --------------------------------------------------------------------- composition: per-sample, ensembles

@both
def test_per_sample_gradients(lib):
    F = lib.func
    model = _model(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}
    data, targets = t(lib, A), lib.tensor([0, 1, 1, 0])

    def loss(params, x, y):
        out = F.functional_call(model, params, (x.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, y.unsqueeze(0))

    per_sample = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, data, targets)
    full = lib.autograd.grad(lib.nn.functional.cross_entropy(model(data), targets, reduction="sum"),
                             list(model.parameters()))
    return per_sample, [g.sum(0) for g in per_sample.values()], list(full)


@both
def test_ensemble_with_stack_module_state(lib):
    F = lib.func
    models = [_model(lib, bn=True) for _ in range(3)]
    for i, m in enumerate(models):
        with lib.no_grad():
            for p in m.parameters():
                p.mul_(0.5 + i)
        m.eval()
    params, buffers = F.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")

    def fmodel(params, buffers, x):
        return F.functional_call(base, (params, buffers), (x,))

    x = t(lib, A)
    out = F.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    out.sum().backward()
    return (out, [m(x) for m in models], {k: (v.requires_grad, v.is_leaf) for k, v in params.items()},
            {k: v.dtype for k, v in buffers.items()}, params["0.weight"].grad)


@pytest.mark.parametrize("case", ["empty", "class", "mode", "requires_grad"])
def test_stack_module_state_errors(case):
    def fn(lib):
        ms = [lib.nn.Linear(3, 2), lib.nn.Linear(3, 2)]
        if case == "requires_grad":
            ms[1].weight.requires_grad_(False)
        return lib.func.stack_module_state({
            "empty": [], "class": [lib.nn.Linear(3, 2), lib.nn.Conv1d(1, 1, 1)],
            "mode": [lib.nn.Linear(3, 2), lib.nn.Linear(3, 2).eval()], "requires_grad": ms}[case])

    run_both(fn)


@both
def test_replace_all_batch_norm_modules(lib):
    m = lib.func.replace_all_batch_norm_modules_(_model(lib, bn=True))
    out = lib.func.vmap(m, in_dims=1)(t(lib, A).unsqueeze(1).expand(4, 2, 3).contiguous())
    return m[1].running_mean, m[1].track_running_stats, out.shape


# ------------------------------------------------------------------------------ torch.autograd.functional

@both
def test_autograd_functional(lib):
    AF, x, y = lib.autograd.functional, t(lib, B), t(lib, C[0, :2].copy())

    def f2(x, y):
        return x.sum() * y, x * 2

    def scalar(x, y):
        return (x.sin().sum() * y.exp().sum())

    return (AF.jacobian(lambda x: x.exp(), x), AF.jacobian(lambda x: x.exp(), (x,)), AF.jacobian(f2, (x, y)),
            AF.jacobian(lambda x: (x.exp(),), x), AF.jacobian(lambda x: lib.ones(2), x),
            AF.jacobian(f2, (x, y), vectorize=True, strategy="forward-mode"),
            AF.hessian(lambda x: x.pow(3).sum(), x), AF.hessian(scalar, (x, y)),
            AF.vjp(lambda x: x.sum(), x), AF.vjp(f2, (x, y), (lib.ones(2), lib.ones(3))),
            AF.vjp(lambda x: lib.ones(3), x, lib.ones(3)),
            AF.jvp(lambda x: x.exp(), x, lib.ones(3)), AF.jvp(lambda x: x * 2, lib.tensor(1.0)),
            AF.jvp(f2, (x, y), (lib.ones(3), lib.ones(2))),
            AF.hvp(lambda x: x.pow(3).sum(), x, lib.ones(3)), AF.vhp(scalar, (x, y), (lib.ones(3), x[:2])),
            AF.hvp(lambda x: x.pow(2).sum().reshape(1, 1), x, lib.ones(3)), AF.hvp(lambda x: x.sum(), x, x))


@both
def test_autograd_functional_create_graph(lib):
    AF = lib.autograd.functional
    x, w = t(lib, B, True), t(lib, B[::-1].copy(), True)
    jac = AF.jacobian(lambda x: (x * w).exp(), x, create_graph=True)
    jac.sum().backward()
    free = AF.jacobian(lambda x: x.exp(), x)
    out, g = AF.vjp(lambda x: x.sin() * w, x, lib.ones(3), create_graph=True)
    return (jac, x.grad, w.grad, free, out.requires_grad, g.requires_grad,
            AF.vjp(lambda x: x.exp(), t(lib, B), lib.ones(3), create_graph=True)[1].requires_grad)


@pytest.mark.parametrize("case", ["strategy", "fwd_novec", "fwd_create", "strict_vec", "input_type", "tuple_type",
                                  "output_type", "int", "hess_nonscalar", "hess_tuple", "hess_strategy",
                                  "vjp_v_none", "vjp_v_size", "vjp_v_len", "vjp_v_single", "vjp_v_entry", "jvp_v_none",
                                  "jvp_v_type", "hvp_nonscalar", "hvp_tuple", "hvp_v_none",
                                  "strict_no_grad", "strict_indep", "strict_pair", "strict_jvp", "strict_linear",
                                  "strict_hessian", "strict_vhp"])
def test_autograd_functional_errors(case):
    def fn(lib):
        AF, x, y = lib.autograd.functional, t(lib, B), t(lib, C[0, :2].copy())
        return {
            "strategy": lambda: AF.jacobian(lambda x: x, x, strategy="foo"),
            "fwd_novec": lambda: AF.jacobian(lambda x: x, x, strategy="forward-mode"),
            "fwd_create": lambda: AF.jacobian(lambda x: x, x, vectorize=True, strategy="forward-mode",
                                              create_graph=True),
            "strict_vec": lambda: AF.jacobian(lambda x: x.exp(), x, strict=True, vectorize=True),
            "input_type": lambda: AF.jacobian(lambda x: x, 1.0),
            "tuple_type": lambda: AF.jacobian(lambda x, y: x, (x, 3)),
            "output_type": lambda: AF.jacobian(lambda x: 1.0, x),
            "int": lambda: AF.jacobian(lambda x: x * 2, lib.arange(3)),
            "hess_nonscalar": lambda: AF.hessian(lambda x: x.pow(3), x),
            "hess_tuple": lambda: AF.hessian(lambda x: (x.sum(),), x),
            "hess_strategy": lambda: AF.hessian(lambda x: x.sum(), x, outer_jacobian_strategy="foo"),
            "vjp_v_none": lambda: AF.vjp(lambda x: x.exp(), x),
            "vjp_v_size": lambda: AF.vjp(lambda x: x.exp(), x, lib.ones(4)),
            "vjp_v_len": lambda: AF.vjp(lambda x, y: (x, y), (x, y), (lib.ones(3),)),
            "vjp_v_single": lambda: AF.vjp(lambda x: x.exp(), x, (lib.ones(3), lib.ones(3))),
            "vjp_v_entry": lambda: AF.vjp(lambda x: (x.exp(), x), x, (lib.ones(3), lib.ones(2))),
            "jvp_v_none": lambda: AF.jvp(lambda x: x.exp(), x),
            "jvp_v_type": lambda: AF.jvp(lambda x: x, x, 3),
            "hvp_nonscalar": lambda: AF.hvp(lambda x: x.pow(3), x, lib.ones(3)),
            "hvp_tuple": lambda: AF.hvp(lambda x: (x.sum(),), x, lib.ones(3)),
            "hvp_v_none": lambda: AF.hvp(lambda x: x.pow(3).sum(), x),
            "strict_no_grad": lambda: AF.jacobian(lambda x: lib.ones(2), x, strict=True),
            "strict_indep": lambda: AF.vjp(lambda x, y: x.exp(), (x, y), lib.ones(3), strict=True),
            "strict_pair": lambda: AF.jacobian(lambda x, y: x.exp(), (x, y), strict=True),
            "strict_jvp": lambda: AF.jvp(lambda x, y: x.exp(), (x, y), (lib.ones(3), lib.ones(2)), strict=True),
            "strict_linear": lambda: AF.hvp(lambda x: x.sum(), x, lib.ones(3), strict=True),
            "strict_hessian": lambda: AF.hessian(lambda x: lib.ones(()), x, strict=True),
            "strict_vhp": lambda: AF.vhp(lambda x: x.sum(), x, lib.ones(3), strict=True),
        }[case]()

    run_both(fn)


# ------------------------------------------------------------------------------------ the bridge to JAX

def test_dlpack_and_jax_bridge_share_memory():
    import jax.numpy as jnp

    src = torch.arange(6.0).reshape(2, 3)
    f = facade.utils.dlpack.from_dlpack(src)
    assert f._arr().unsafe_buffer_pointer() == src.data_ptr()
    back = torch.utils.dlpack.from_dlpack(facade.utils.dlpack.to_dlpack(f))
    assert back.data_ptr() == src.data_ptr()
    assert f.dtype == facade.float32 and tuple(f.shape) == (2, 3)
    np.testing.assert_array_equal(f.numpy(), src.numpy())
    cap = facade.from_dlpack(torch.utils.dlpack.to_dlpack(src))
    assert cap._arr().unsafe_buffer_pointer() == src.data_ptr()
    a = jnp.arange(4.0)
    assert facade.func.from_jax(a)._arr() is a and facade.func.to_jax(facade.func.from_jax(a)) is a
    with pytest.raises(TypeError, match="expected a jax.Array"):
        facade.func.from_jax(np.ones(2))


def test_transform_results_are_facade_ops_usable_under_jax_jit():
    """A transform is a pure function of arrays: it traces under jax.jit like any facade op."""
    import jax

    def step(a):
        x = facade.func.from_jax(a)
        return facade.func.to_jax(facade.func.vmap(facade.func.grad(lambda v: (v.sin() * v).sum()))(x))

    a = jax.numpy.asarray(C)
    expected = torch.func.vmap(torch.func.grad(lambda v: (v.sin() * v).sum()))(torch.tensor(C))
    np.testing.assert_allclose(np.asarray(jax.jit(step)(a)), expected.numpy(), rtol=1e-6)


@both
def test_closure_parameters_get_gradients(lib):
    """Parameters a transformed function reads from a closure take part in outer autograd, and a changed
    parameter value is seen by the next call (nothing is cached by value)."""
    m = _model(lib)
    x = t(lib, A)
    out = lib.func.vmap(m)(x)
    (out ** 2).sum().backward()
    grads = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    jac = lib.func.jacrev(lambda x: m(x) ** 2)(x[0])
    jac.sum().backward()
    f = lib.func.grad(lambda x: (m(x) ** 2).sum())
    first = f(x)
    with lib.no_grad():
        m[0].weight.mul_(2)
    return out, grads, jac, [p.grad for p in m.parameters()], first, f(x)


@both
def test_random_draws_match_between_forward_and_backward(lib):
    x = lib.ones(4, 6, requires_grad=True)
    y = lib.func.vmap(lambda r: lib.nn.functional.dropout(r, 0.5), randomness="different")(x)
    y.sum().backward()
    return bool(((y != 0).float() * 2 == x.grad).all()), bool((y[0] == y[1]).all())


def test_non_leaf_closure_tensor_warns():
    w = facade.ones(3, requires_grad=True) * 2
    with pytest.warns(UserWarning, match="computed outside it"):
        g = facade.func.grad(lambda x: (x * w).sum())(facade.ones(3))
    np.testing.assert_array_equal(g.detach().numpy(), np.full(3, 2.0, np.float32))
