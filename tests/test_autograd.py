"""Autograd against real torch: each scenario is one function run with `lib` = torch and `lib` = facade."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import facade

LIBS = pytest.mark.parametrize("lib", [torch, facade], ids=["torch", "facade"])


def same(fn):
    """Run fn(torch) and fn(facade); their results (nested lists/tuples of tensors, numbers, strings) must match."""
    def test():
        expected = fn(torch)
        got = fn(facade)
        _cmp(expected, got, fn.__name__)
    test.__name__ = fn.__name__
    return test


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else x


def _cmp(a, b, where):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{where}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            _cmp(x, y, f"{where}[{i}]")
    elif isinstance(a, torch.Tensor):
        assert isinstance(b, facade.Tensor), f"{where}: {type(b)}"
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), f"{where}: {a!r} vs {b!r}"
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-5, atol=1e-6, err_msg=where)
    elif a is None:
        assert b is None, f"{where}: expected None, got {b!r}"
    elif isinstance(a, float):
        assert abs(a - b) <= 1e-5 * max(1, abs(a)), f"{where}: {a} vs {b}"
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


def leaf(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype or lib.float32, requires_grad=True)


@same
def test_backward_scalar_and_accumulation(lib):
    x = leaf(lib, [1.0, 2.0, 3.0])
    (x * x).sum().backward()
    first = x.grad.clone()
    (x.exp() * 2).sum().backward()
    return [first, x.grad, x.is_leaf, x.grad.requires_grad]


@same
def test_backward_with_gradient(lib):
    x = leaf(lib, [[1.0, -2.0], [0.5, 4.0]])
    y = x.sin() * x
    y.backward(lib.tensor([[1.0, 0.5], [2.0, -1.0]]))
    return x.grad


@same
def test_grad_fn_names_and_flags(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x + 1
    z = y * x
    w = z.sum()
    return [type(y.grad_fn).__name__, type(z.grad_fn).__name__, y.grad_fn.name(), w.grad_fn.name(),
            y.requires_grad, y.is_leaf, x.grad_fn is None, (x.detach() + 1).requires_grad,
            type(x.exp().grad_fn).__name__]


def test_next_functions_lead_to_accumulate_grad():
    for lib in (torch, facade):
        x = leaf(lib, [1.0])
        y = x * 2
        fn, nr = y.grad_fn.next_functions[0]
        assert type(fn).__name__ == "AccumulateGrad" and fn.variable is x and nr == 0
        assert fn.name() == "torch::autograd::AccumulateGrad" and y.grad_fn.name() == "MulBackward0"


@same
def test_retain_graph_allows_second_backward(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


@pytest.mark.parametrize("lib", [torch, facade])
def test_second_backward_through_freed_graph_raises(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


@pytest.mark.parametrize("lib", [torch, facade])
def test_backward_non_scalar_without_gradient_raises(lib):
    x = leaf(lib, [1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


@pytest.mark.parametrize("lib", [torch, facade])
def test_backward_of_tensor_without_grad_raises(lib):
    x = lib.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        x.sum().backward()


@same
def test_autograd_grad_with_create_graph_double_backward(lib):
    x = leaf(lib, [1.0, 2.0, -0.5])
    y = (x * x * x).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    z = (x.sin() * x).sum()
    (h,) = lib.autograd.grad(z, x, create_graph=True)
    h.sum().backward()
    return [g, gg, g.requires_grad, x.grad, x.grad.requires_grad]


@same
def test_grad_outputs_and_multiple_inputs(lib):
    x = leaf(lib, [1.0, 2.0])
    w = leaf(lib, [3.0, -1.0])
    y = x * w + x.exp()
    gx, gw = lib.autograd.grad([y], [x, w], grad_outputs=[lib.tensor([1.0, -2.0])])
    return [gx, gw, x.grad, w.grad]


@same
def test_grad_allow_unused(lib):
    x = leaf(lib, [1.0])
    u = leaf(lib, [2.0])
    gx, gu = lib.autograd.grad((x * 3).sum(), [x, u], allow_unused=True)
    return [gx, gu]


@pytest.mark.parametrize("lib", [torch, facade])
def test_grad_unused_raises(lib):
    x = leaf(lib, [1.0])
    u = leaf(lib, [2.0])
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        lib.autograd.grad((x * 3).sum(), [x, u])


@same
def test_retain_grad_and_nonleaf_grad(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 3
    y.retain_grad()
    z = y * y
    z.sum().backward()
    return [y.grad, x.grad, y.retains_grad, x.retains_grad]


@pytest.mark.parametrize("lib", [torch, facade])
def test_nonleaf_grad_access_warns(lib):
    x = leaf(lib, [1.0])
    y = x * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None


@same
def test_tensor_hooks(lib):
    seen = []
    x = leaf(lib, [1.0, 2.0])
    hx = x.register_hook(lambda g: g * 10)
    y = x * x
    y.register_hook(lambda g: seen.append(g.clone()))
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    first = x.grad.clone()
    hx.remove()
    x.grad = None
    (x * x).sum().backward()
    return [seen, first, x.grad]


@same
def test_detach_and_requires_grad_(lib):
    x = leaf(lib, [1.0, 2.0])
    d = x.detach()
    d2 = (x * 2).detach_()
    p = lib.tensor([1.0]).requires_grad_()
    return [d.requires_grad, d.is_leaf, d2.requires_grad, d2.grad_fn is None, p.requires_grad, p.is_leaf]


@pytest.mark.parametrize("lib", [torch, facade])
def test_requires_grad_on_int_raises(lib):
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        lib.tensor([1, 2]).requires_grad_()


@same
def test_grad_modes(lib):
    x = leaf(lib, [1.0])
    with lib.no_grad():
        a = x * 2
        with lib.enable_grad():
            b = x * 2
    with lib.set_grad_enabled(False):
        c = x * 2
    with lib.inference_mode():
        d = x * 2
        inf = lib.is_inference_mode_enabled()

    @lib.no_grad()
    def f(t):
        return t * 2

    @lib.no_grad
    def f2(t):
        return t * 2

    @lib.enable_grad()
    def g(t):
        return t * 2

    with lib.no_grad():
        e = g(x)
    modes = []
    for outer in (lib.no_grad, lib.inference_mode):
        with outer():
            with lib.inference_mode(False):  # back on, inside either
                modes += [lib.is_grad_enabled(), lib.is_inference_mode_enabled(), (x * 2).requires_grad,
                          lib.ones(1).is_inference()]
            modes += [lib.is_grad_enabled(), lib.is_inference_mode_enabled()]
    lib.set_grad_enabled(False)
    off = lib.is_grad_enabled()
    lib.set_grad_enabled(True)
    return [a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, f(x).requires_grad,
            f2(x).requires_grad, e.requires_grad, inf, off, lib.is_grad_enabled(), modes]


@pytest.mark.parametrize("lib", [torch, facade])
def test_inplace_on_leaf_requiring_grad_raises(lib):
    x = leaf(lib, [1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x.add_(1)
    with lib.no_grad():
        x.add_(1)
    assert x.requires_grad and x.is_leaf


@pytest.mark.parametrize("lib", [torch, facade])
def test_modified_saved_tensor_raises(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 1
    z = y.exp()  # exp saves its result
    z.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified "
                                           "by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("lib", [torch, facade])
@pytest.mark.parametrize("case", ["exp_ then add_", "sigmoid then add_ on a view", "sigmoid_ on a view then add_"])
def test_modified_saved_result_raises(lib, case):
    """A saved result is checked where it lives: written in place by the op itself (exp_), or through a view."""
    x = leaf(lib, [1.0, 2.0, 3.0])
    y = x * 1
    if case == "exp_ then add_":
        y.exp_()
        y.add_(1)
    elif case == "sigmoid then add_ on a view":
        y = y.sigmoid()
        y[:2].add_(1)
    else:
        y[1:].sigmoid_()
        y.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified "
                                           "by an inplace operation"):
        y.sum().backward()


@same
def test_saved_result_dropped_then_backward(lib):
    """The node of an op that saves its result still backpropagates after the result tensor itself is gone."""
    x = leaf(lib, [0.5, -1.0, 2.0])
    loss = (x * 2).tanh().exp().sigmoid()[1:].sum()  # tanh, exp and sigmoid outputs are dropped at once
    loss.backward()
    return [loss, x.grad]


def test_eager_step_leaves_no_reference_cycles():
    """After backward, an eager training step's graph is freed by reference counting alone: a cycle (a node
    holding the output whose grad_fn it is, a custom Function's ctx holding its saved output) would keep its arrays
    alive until Python's cycle collector runs."""
    import gc

    facade.manual_seed(0)
    nn = facade.nn
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(), nn.LayerNorm(16),
                          nn.Linear(16, 4), nn.Softmax(-1))
    opt = facade.optim.Adam(model.parameters())
    x = facade.randn(5, 8)

    MyExp = _Exp.build(facade)  # a custom Function that saves its own output

    def step():
        opt.zero_grad()
        MyExp.apply(model(x).exp().sigmoid(), 2.0).sum().backward()
        opt.step()

    step()
    gc.collect()
    gc.disable()
    try:
        step()
        assert gc.collect() == 0
    finally:
        gc.enable()


@same
def test_inplace_on_nonleaf_keeps_gradient(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 2
    y.add_(x)
    y.mul_(3)
    y.sum().backward()
    return [x.grad, type(y.grad_fn).__name__]


class _Exp:
    @staticmethod
    def build(lib):
        class MyExp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, i, scale):
                r = i.exp() * scale
                ctx.save_for_backward(r)
                ctx.scale = scale
                ctx.flags = ctx.needs_input_grad
                return r

            @staticmethod
            def backward(ctx, grad):
                (r,) = ctx.saved_tensors
                return grad * r, None

        return MyExp


@same
def test_custom_function(lib):
    MyExp = _Exp.build(lib)
    x = leaf(lib, [0.0, 1.0])
    y = MyExp.apply(x, 2.0)
    (y * y).sum().backward()
    return [y, x.grad, type(y.grad_fn).__name__, y.requires_grad]


@same
def test_custom_function_non_differentiable_output(lib):
    class Sort2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).long()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, gidx):
            return g * 2

    x = leaf(lib, [1.0, -1.0])
    y, idx = Sort2.apply(x)
    y.sum().backward()
    return [x.grad, idx.requires_grad, y.requires_grad]


@pytest.mark.parametrize("lib", [torch, facade])
def test_detect_anomaly_names_the_op(lib):
    x = leaf(lib, [0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.set_detect_anomaly(True):
            y = (x.sqrt() if hasattr(x, "sqrt") else x.pow(0.5)) * 0
            with pytest.raises(RuntimeError, match=r"Function '\w+Backward0' returned nan values in its 0th output"):
                y.sum().backward()


@same
def test_no_grad_result_is_leaf_without_grad(lib):
    x = leaf(lib, [1.0])
    with lib.no_grad():
        y = x * 2
    return [y.requires_grad, y.is_leaf, y.grad_fn is None]


@same
def test_backward_inputs_argument(lib):
    x = leaf(lib, [1.0, 2.0])
    w = leaf(lib, [3.0, 4.0])
    (x * w).sum().backward(inputs=[x])
    return [x.grad, w.grad]


@same
def test_grad_accumulates_into_same_tensor(lib):
    x = leaf(lib, [1.0])
    (x * 2).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    return [g is x.grad, x.grad]


@same
def test_post_accumulate_grad_hook(lib):
    seen = []
    x = leaf(lib, [1.0, 2.0])
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
    (x * 5).sum().backward()
    return seen


def test_memory_does_not_grow_across_iterations():
    import gc

    x = leaf(facade, [1.0] * 16)
    for _ in range(3):
        ((x * 2).exp() * x).sum().backward()
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(50):
        ((x * 2).exp() * x).sum().backward()
    gc.collect()
    assert len(gc.get_objects()) - before < 200


def test_engine_runs_on_tracers():
    """A whole forward + backward traced into one XLA program gives the eager gradient."""
    import jax
    import jax.numpy as jnp

    def step(a):
        x = facade.Tensor._from_array(a)
        x.requires_grad_()
        ((x * x).exp() * x).sum().backward()
        return x.grad._arr()

    a = jnp.array([0.1, -0.2, 0.3], jnp.float32)
    expected = step(a)
    traced = jax.jit(step)(a)
    np.testing.assert_allclose(np.asarray(traced), np.asarray(expected), rtol=1e-6)
    t = torch.tensor(np.asarray(a), requires_grad=True)
    ((t * t).exp() * t).sum().backward()
    np.testing.assert_allclose(np.asarray(traced), t.grad.numpy(), rtol=1e-5)


@same
def test_repeated_graphs_take_the_fused_backward(lib):
    """From the second identical graph on, facade runs the whole backward as one jitted program."""
    x = leaf(lib, [0.5, -1.0, 2.0])
    w = leaf(lib, [1.5, 0.25, -0.5])
    out = []
    for _ in range(4):
        y = (x * w).tanh() + x.exp() * w
        y.sum().backward()  # accumulates into .grad across steps
        out.append([x.grad.clone(), w.grad.clone()])
        gx, = lib.autograd.grad(((x * w).sin() * x).sum(), [x])
        out.append(gx)
        z = (x * 3).exp()
        z.sum().backward(retain_graph=True)
        z.sum().backward()
        out.append(x.grad.clone())
    return out


def test_fused_backward_is_used_for_repeated_graphs():
    from facade.autograd import graph

    def fused_programs():
        op = facade.compiler.metrics().ops.get("fused")
        return 0 if op is None else op.compiles

    x = leaf(facade, [0.5, -1.0, 0.25, 2.0, -0.75, 1.5, 0.125])  # a graph no other test builds (order-proof)
    before, built = fused_programs(), []
    for _ in range(4):
        ((x * 2.5).tanh().sinh() * x).sum().backward()
        built.append(fused_programs() - before)
    assert built == [1, 2, 2, 2]  # one program that sets .grad, one that accumulates into it; then reused
    assert len(graph._fused.compiled) <= graph._fused.size
