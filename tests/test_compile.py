"""torch.compile: compiled modules and whole training steps train exactly as eager does (eager facade, and real
torch eager where no random draw is involved), without recompiling; recompiles are explained, graph breaks
fall back with one warning, fullgraph raises. torch's own wrapper semantics are checked against real torch."""

import logging
import re
import warnings

import jax
import numpy as np
import pytest
import torch

import facade
from facade._compile import _function
from facade.compiler import metrics, reset_metrics

from ._compare import host

RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 20)).astype(np.float32)
Y = RNG.integers(0, 4, 16)


def _model(lib, dropout=0.0):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Linear(20, 32, bias=False), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(32, 4))


def _same_init(dropout=0.0):
    t, f = _model(torch, dropout), _model(facade, dropout)
    with facade.no_grad():
        for (_, a), (_, b) in zip(t.state_dict().items(), f.state_dict().items()):
            b.copy_(facade.tensor(host(a)))
    return t, f


def _train(lib, model, step_fn_builder, steps=20):
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9 ** e)
    step = step_fn_builder(lib, model, opt, sched)
    x, y = lib.tensor(X), lib.tensor(Y)
    losses = [float(step(x, y)) for _ in range(steps)]
    return losses, model, opt


def _plain_step(lib, model, opt, sched):
    nn = lib.nn

    def step(x, y):
        opt.zero_grad()
        for half in (slice(0, 8), slice(8, 16)):  # gradient accumulation over two micro-batches
            loss = nn.functional.cross_entropy(model(x[half]), y[half]) / 2
            loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()
        return loss

    return step


def _compiled_step(lib, model, opt, sched):
    return lib.compile(_plain_step(lib, model, opt, sched))


def _ce_step(lib, model, opt, x, y, zero_grad=True):
    """The plainest training step (zero_grad, cross-entropy, backward, step), reaching its state by closure."""

    def step():
        if zero_grad:
            opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def _assert_trained_alike(a, b, rtol=2e-5, atol=2e-6):
    (la, ma, oa), (lb, mb, ob) = a, b
    np.testing.assert_allclose(la, lb, rtol=rtol, atol=atol)
    for (n, p), (_, q) in zip(ma.state_dict().items(), mb.state_dict().items()):
        np.testing.assert_allclose(host(p), host(q), rtol=rtol, atol=atol, err_msg=n)
    for sa, sb in zip(oa.state_dict()["state"].values(), ob.state_dict()["state"].values()):
        for k in sa:
            np.testing.assert_allclose(host(sa[k]), host(sb[k]), rtol=rtol, atol=atol, err_msg=k)


def test_whole_step_compile_trains_as_torch_eager():
    """A step with zero_grad, two accumulated backwards, clip_grad_norm_, AdamW and LambdaLR: one program."""
    t, f = _same_init()
    expected = _train(torch, t, _plain_step)
    got = _train(facade, f, _compiled_step)
    _assert_trained_alike(expected, got)


def test_whole_step_compile_with_dropout_matches_facade_eager():
    """Dropout draws the same stream compiled as eagerly (the generator's key is program state)."""
    eager = _train(facade, _model(facade, 0.3), _plain_step)
    compiled = _train(facade, _model(facade, 0.3), _compiled_step)
    _assert_trained_alike(eager, compiled)
    assert facade.randn(3).tolist() != []  # the global generator is usable after compiled calls


def test_compiled_step_runs_one_program_per_call_and_never_recompiles():
    model = _model(facade)
    opt = facade.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = facade.tensor(X), facade.tensor(Y)

    @facade.compile
    def step():  # reaches model and opt through globals/closures only
        opt.zero_grad()
        facade.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    before = model[0].weight.detach().clone()
    step()  # eager warm-up: the optimizer's lazy state
    step()  # traces and compiles
    reset_metrics()
    for i in range(5):
        for g in opt.param_groups:
            g["lr"] = 0.1 / (i + 1)  # a learning rate changing every step is data, not a recompile
        step()
    assert metrics().compiles == 0
    assert not facade.equal(model[0].weight, before)


def test_changing_lr_is_used_by_the_compiled_step():
    results = []
    for compiled in (False, True):
        model = _model(facade)
        opt = facade.optim.SGD(model.parameters(), lr=0.1)
        x, y = facade.tensor(X), facade.tensor(Y)

        def step(model=model, opt=opt, x=x, y=y):
            opt.zero_grad()
            loss = facade.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        step = facade.compile(step) if compiled else step
        losses = []
        for i in range(6):
            opt.param_groups[0]["lr"] = [0.5, 0.0, 0.1, 0.0, 0.2, 0.05][i]
            losses.append(float(step()))
        results.append(losses)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    assert results[1][2] == results[1][1]  # lr 0.0 made no change: the program read the new value


def test_new_shape_recompiles_once_and_says_why(monkeypatch, capsys):
    monkeypatch.setenv("TORCH_LOGS", "recompiles")
    model = facade.compile(facade.nn.Linear(4, 2))
    model(facade.ones(3, 4))
    model(facade.ones(3, 4))
    assert "recompiling" not in capsys.readouterr().err
    before = facade._dynamo.utils.counters["stats"]["recompiles"]
    model(facade.ones(5, 4))
    model(facade.ones(5, 4))
    err = capsys.readouterr().err
    assert facade._dynamo.utils.counters["stats"]["recompiles"] == before + 1
    assert err.count("recompiling") == 1
    assert "input 0 changed from Tensor(shape=[3, 4]" in err and "to Tensor(shape=[5, 4]" in err


def test_compiled_module_trains_as_torch_eager():
    """torch.compile(model) with an eager optimizer loop: one forward program, one CompiledFunctionBackward."""
    t, f = _same_init()
    cf = facade.compile(f)
    assert next(cf.parameters()) is next(f.parameters())
    results = []
    for lib, model in ((torch, t), (facade, cf)):
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, y = lib.tensor(X), lib.tensor(Y)
        losses = []
        for _ in range(10):
            opt.zero_grad()
            out = model(x)
            loss = lib.nn.functional.cross_entropy(out, y)
            loss.backward()
            lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
        results.append((losses, t if lib is torch else f))
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=2e-5)
    for (n, p), (_, q) in zip(t.state_dict().items(), f.state_dict().items()):
        np.testing.assert_allclose(host(p), host(q), rtol=2e-5, atol=2e-6, err_msg=n)  # BatchNorm statistics too
    cf.eval()
    np.testing.assert_allclose(host(cf(facade.tensor(X))), host(t.eval()(torch.tensor(X))), rtol=2e-5, atol=2e-6)
    with facade.no_grad():
        assert cf(facade.tensor(X)).grad_fn is None


def test_compile_of_a_function_is_differentiable():
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    grads = []
    for lib in (torch, facade):
        x, wt = lib.tensor(X[:2, :3]), lib.tensor(w, requires_grad=True)
        fn = (lambda a, b: (a @ b).tanh().sum(-1)) if lib is torch else lib.compile(lambda a, b: (a @ b).tanh().sum(-1))
        out = fn(x, wt)
        (out * lib.tensor([1.0, -2.0])).sum().backward()
        grads.append((host(out), host(wt.grad)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_compiled_node_backward_does_not_rerun_the_forward():
    """The compiled function's single node keeps the activations its pullback reads (as torch.compile saves
    them): its backward program has the tanh's derivative, not the tanh."""
    w = facade.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    out = facade.compile(lambda a, b: (a @ b).tanh())(facade.tensor(X[:2, :3]), w)
    node = out.grad_fn
    cts = (np.ones((2, 4), np.float32),)
    assert "stablehlo.tanh" not in node._pull.apply.lower(node._arrays, cts).as_text()
    assert "stablehlo.tanh" in node._comp.vjp(node._mask, node._outmask).lower(node._inputs, cts).as_text()


def test_double_backward_through_a_compiled_function_matches_torch_eager():
    """torch.compile raises for double backward; facade re-runs the compiled function from the node's inputs
    (a superset of torch's behaviour): the second derivatives are torch eager's."""
    grads = []
    for lib in (torch, facade):
        x = lib.tensor(X[:2, :3], requires_grad=True)
        w = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
        fn = lambda a, b: (a @ b).tanh().pow(2).sum()  # noqa: E731
        y = (fn if lib is torch else lib.compile(fn))(x, w)
        gx, = lib.autograd.grad(y, x, create_graph=True)
        (gx * gx).sum().backward()
        grads.append((host(gx), host(w.grad), host(x.grad)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_optimized_module_is_torchs_wrapper():
    for lib in (torch, facade):
        m = lib.nn.Linear(3, 2)
        c = lib.compile(m)
        assert type(c).__name__ == "OptimizedModule" and c._orig_mod is m
        assert isinstance(c, lib.nn.Module) and isinstance(c, lib._dynamo.eval_frame.OptimizedModule)
        assert list(c.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
        assert c.weight is m.weight and c.in_features == 3 and next(c.parameters()) is m.weight
        c.eval()
        assert not c.training and not m.training
        plain = lib.nn.Linear(3, 2)  # a compiled module's checkpoint loads after stripping the prefix
        plain.load_state_dict({k.removeprefix("_orig_mod."): v for k, v in c.state_dict().items()})
        assert lib.equal(plain.weight, m.weight)
        m.compile()  # in place: keys unchanged
        assert list(m.state_dict()) == ["weight", "bias"]


def test_bad_compile_arguments_match_torch():
    for kwargs in ({"mode": "fastest"}, {"mode": "default", "options": {}}):
        with pytest.raises(RuntimeError) as ref:
            torch.compile(lambda x: x, **kwargs)
        with pytest.raises(RuntimeError) as got:
            facade.compile(lambda x: x, **kwargs)
        assert str(got.value) == str(ref.value)


def _branchy(x):
    y = x.sin()
    if y.sum() > 0:  # needs a value: a graph break
        return y * 2
    return y - 1


def test_graph_break_falls_back_with_one_warning():
    f = facade.compile(_branchy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outs = [f(facade.tensor(v)) for v in ([1.0, 2.0], [-1.0, -2.0], [0.5, 0.5])]
    breaks = [w for w in caught if "graph break" in str(w.message)]
    assert len(breaks) == 1 and re.search(r"test_compile\.py:\d+", str(breaks[0].message))
    assert breaks[0].filename == __file__
    for v, o in zip(([1.0, 2.0], [-1.0, -2.0], [0.5, 0.5]), outs):
        np.testing.assert_allclose(host(o), host(_branchy(torch.tensor(v))), rtol=1e-6)


def test_fullgraph_raises_naming_the_line():
    f = facade.compile(_branchy, fullgraph=True)
    with pytest.raises(facade._dynamo.exc.Unsupported, match=r"test_compile\.py:\d+"):
        f(facade.ones(2))
    assert issubclass(facade._dynamo.exc.Unsupported, RuntimeError)


def test_disable_and_is_compiling():
    seen = []

    @facade.compiler.disable
    def log(x):
        seen.append(facade.compiler.is_compiling())
        return x

    def fn(x):
        seen.append(facade.compiler.is_compiling())
        return log(x * 2)

    f = facade.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f(facade.ones(2))
        f(facade.ones(2))
    assert seen[0] is True  # traced: is_compiling; then the disabled function broke the graph
    assert seen[1:] == [False, False, False, False]  # eager fallback: side effects on every call
    assert facade._dynamo.is_compiling() is False


def test_cache_size_limit_warns_and_runs_eagerly(caplog):
    f = facade.compile(lambda x: x * 2)
    log = logging.getLogger("torch._dynamo")  # real torch's logging setup stops it propagating to caplog's root handler
    log.addHandler(caplog.handler)
    try:
        with facade._dynamo.config.patch(recompile_limit=2), caplog.at_level("WARNING", logger="torch._dynamo"):
            outs = [f(facade.ones(n)) for n in (1, 2, 3)]
    finally:
        log.removeHandler(caplog.handler)
    assert "torch._dynamo hit config.recompile_limit (2)" in caplog.text
    assert "input 0 changed from Tensor(shape=[2]" in caplog.text
    assert [o.tolist() for o in outs] == [[2.0], [2.0, 2.0], [2.0, 2.0, 2.0]]


def test_explain_counts_graphs_and_breaks():
    e = facade._dynamo.explain(_branchy)(facade.ones(3))
    assert (e.graph_count, e.graph_break_count) == (0, 1)
    assert "test_compile.py" in e.break_reasons[0].user_stack[0]
    e = facade._dynamo.explain(lambda x: x.sin() * 2)(facade.ones(3))
    assert (e.graph_count, e.graph_break_count) == (1, 0) and e.ops_per_graph[0] == ["sin", "mul"]
    assert "Graph Count: 1" in str(e)


def test_reset_forgets_programs():
    f = facade.compile(lambda x: x + 1)
    f(facade.ones(2))
    facade.compiler.reset()
    assert not f._entries
    assert f(facade.ones(2)).tolist() == [2.0, 2.0]


def test_jit_script_and_trace_keep_the_module_interface():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    w = RNG.standard_normal((2, 3)).astype(np.float32)
    outs = {}
    for lib in (torch, facade):
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w))
            m.bias.fill_(0.5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # torch 2.13 deprecates TorchScript
            s, t = lib.jit.script(m), lib.jit.trace(m, lib.ones(1, 3))
        assert (type(s).__name__, type(t).__name__) == ("RecursiveScriptModule", "TopLevelTracedModule")
        assert isinstance(s, lib.jit.ScriptModule) and isinstance(s, lib.nn.Module)
        assert list(s.state_dict()) == ["weight", "bias"] and s.weight is m.weight and t.weight is m.weight
        outs[lib] = [host(s(lib.tensor(x))), host(t(lib.tensor(x)))]
    for a, b in zip(outs[torch], outs[facade]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="torch.export"):
        facade.jit.save(facade.jit.script(facade.nn.Linear(3, 2)), "model.pt")


def test_compiled_method_compiles_once_per_instance():
    class Net(facade.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = facade.nn.Linear(3, 3)

        @facade.compile
        def forward(self, x):
            return self.lin(x).tanh()  # not relu: two random layers could both give all zeros

    a, b = Net(), Net()
    a(facade.ones(2, 3))
    b(facade.ones(2, 3))
    reset_metrics()
    for _ in range(3):
        ya, yb = a(facade.ones(2, 3)), b(facade.ones(2, 3))
    assert metrics().compiles == 0
    np.testing.assert_allclose(host(ya), host(a.lin(facade.ones(2, 3)).tanh()), rtol=1e-6)
    assert not facade.equal(ya, yb)


def test_compiled_step_with_an_optax_optimizer_matches_eager():
    """from_optax keeps one pytree of tensors as its state: lifted into the program and written back."""
    import optax

    results = []
    for compiled in (False, True):
        model = _model(facade)
        opt = facade.optim.from_optax(model.parameters(), optax.adam(1e-2))
        x, y = facade.tensor(X), facade.tensor(Y)

        def step(model=model, opt=opt, x=x, y=y):
            opt.zero_grad()
            loss = facade.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        step = facade.compile(step) if compiled else step
        results.append(([float(step()) for _ in range(6)], model))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    for (n, p), (_, q) in zip(results[0][1].state_dict().items(), results[1][1].state_dict().items()):
        np.testing.assert_allclose(host(p), host(q), rtol=1e-5, atol=1e-6, err_msg=n)


def test_module_as_a_pure_jax_function():
    import jax
    import jax.numpy as jnp
    import optax

    from facade.func import from_jax, jax_function

    model = facade.nn.Sequential(facade.nn.Linear(20, 8), facade.nn.Tanh(), facade.nn.Linear(8, 1))
    fn, params = jax_function(model)
    x = jnp.asarray(X)
    grads = jax.jit(jax.grad(lambda p, x: fn(p, x).sum()))(params, x)
    model(facade.tensor(X)).sum().backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(np.asarray(grads[name]), host(p.grad), rtol=1e-5, atol=1e-6)
    assert jax.vmap(lambda xi: fn(params, xi))(x).shape == (16, 1)
    tx = optax.sgd(0.1)
    updates, _ = tx.update(grads, tx.init(params))
    new = optax.apply_updates(params, updates)
    model.load_state_dict({k: from_jax(v) for k, v in new.items()})
    np.testing.assert_allclose(host(model[0].weight), np.asarray(new["0.weight"]))


def _ste_model(lib):
    class STE(lib.autograd.Function):  # round forward, clipped straight-through backward
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return (x * scale).round()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * ctx.scale * (x.abs() < 2), None

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 3)

        def forward(self, x):
            return STE.apply(self.lin(x), 2.0).sum(-1)

    m = M()
    with lib.no_grad():
        m.lin.weight.copy_(lib.tensor(np.eye(3, dtype=np.float32) * 1.5))
        m.lin.bias.fill_(0.1)
    return m


def test_custom_function_backward_is_used_by_a_compiled_module():
    """JAX differentiates a compiled module's forward: the Function's own backward must be its custom VJP."""
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    grads = []
    for lib in (torch, facade):
        m = _ste_model(lib)
        run = m if lib is torch else facade.compile(m)
        out = run(lib.tensor(x))
        (out * lib.tensor([1.0, 2.0])).sum().backward()
        grads.append((host(out), host(m.lin.weight.grad), host(m.lin.bias.grad)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_buffers_updated_in_place_leave_what_the_caller_kept_intact(compiled):
    """The optimizer step (eager) and a compiled step update parameters, optimizer state and grads in place
    (their buffers donated) only where nothing else holds them: a detached alias, an optimizer state alias and
    the old grad the caller kept hold what real torch's do after later steps, and a jax.Array the caller took
    with facade.func.to_jax (the same buffer) keeps its values instead of being deleted."""

    def run(lib):
        t, f = _same_init()
        model = t if lib is torch else f
        opt = lib.optim.Adam(model.parameters(), lr=0.1)
        step = _ce_step(lib, model, opt, lib.tensor(X), lib.tensor(Y))
        fn = lib.compile(step) if compiled and lib is facade else step
        fn(), fn()
        w = model[0].weight
        kept = (w.detach(), w.grad, opt.state[w]["exp_avg"].detach(), model[1].running_mean.detach())
        if lib is facade:
            arrays = [facade.func.to_jax(a) for a in (w, w.grad, opt.state[w]["exp_avg"], model[1].running_mean)]
            snapshot = [np.array(a) for a in arrays]
        fn(), fn()
        if lib is facade:
            for a, v in zip(arrays, snapshot):
                np.testing.assert_array_equal(np.array(a), v)
        return [host(a) for a in (*kept, w, opt.state[w]["exp_avg"])]

    for a, b in zip(run(torch), run(facade)):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_a_body_under_no_grad_returns_outputs_without_a_graph():
    """A compiled function whose body runs under no_grad (an inference helper) returns what the plain function
    returns under torch: no grad_fn, requires_grad False, on its first call and later ones; BatchNorm's running
    statistics still update as they do eagerly."""
    def build(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))

        def predict(x):
            with lib.no_grad():
                return model(x).softmax(-1)

        return model, predict

    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    tm, tf = build(torch)
    fm, ff = build(facade)
    fm.load_state_dict({k: facade.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    ff = facade.compile(ff)
    for _ in range(3):
        want, got = tf(torch.tensor(x)), ff(facade.tensor(x))
        assert (got.requires_grad, got.grad_fn) == (want.requires_grad, want.grad_fn) == (False, None)
        np.testing.assert_allclose(host(got), want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(fm[1].running_mean), tm[1].running_mean.numpy(), rtol=1e-5, atol=1e-6)
    assert int(fm[1].num_batches_tracked) == int(tm[1].num_batches_tracked) == 3


def test_the_last_calls_grads_go_in_only_where_the_step_reads_them():
    """A step that starts with zero_grad never reads the grads the previous call left: its program takes none (a
    call passes that many arguments fewer). One without zero_grad accumulates into them, as on torch, so its
    program takes them."""
    runs, entries = {}, {}
    for zero in (True, False):
        models = dict(zip((torch, facade), _same_init()))
        for lib, model in models.items():
            opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
            step = _ce_step(lib, model, opt, lib.tensor(X), lib.tensor(Y), zero_grad=zero)
            fn = facade.compile(step) if lib is facade else step
            runs[lib] = ([float(fn()) for _ in range(5)], model, opt)
            if lib is facade:
                entries[zero] = [e for e in fn._entries.values() if e.donating is not None]
        _assert_trained_alike(runs[torch], runs[facade])
        for p, q in zip(runs[torch][1].parameters(), runs[facade][1].parameters()):
            np.testing.assert_allclose(host(p.grad), host(q.grad), rtol=2e-5, atol=2e-6)
    assert [e.unread is not None for e in entries[True]] == [True]
    assert [e.unread is None for e in entries[False]] == [True]


def test_a_donated_step_gives_each_state_slot_its_own_buffer_back(monkeypatch):
    """A whole step with Adam (a 0-d `step` count per parameter, as torch's) donates its state: jit hands a
    donated buffer to the first output of its shape, so each slot's new value must come before the loss and in
    the order of the inputs, or every 0-d count lands in its neighbour's buffer and costs a copy. A generator
    key the step does not draw from (no dropout) is not an output at all."""
    model = _model(facade)
    opt = facade.optim.Adam(model.parameters(), lr=1e-2)
    step = facade.compile(_ce_step(facade, model, opt, facade.tensor(X), facade.tensor(Y)))
    specs = []
    donating = _function._donating

    def record(raw, ndonate, arrays, grads):  # the avals of the arrays the donating program is built for
        fn, unread = donating(raw, ndonate, arrays, grads)
        if unread is not None:  # zero_grad first: the grads are not among them
            arrays, ndonate = arrays[:unread.start] + arrays[unread.stop:], ndonate - len(arrays[unread])
        specs[:] = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=a.sharding) for a in arrays[:ndonate]]
        specs.extend(arrays[ndonate:])
        return fn, unread

    monkeypatch.setattr(_function, "_donating", record)
    for _ in range(3):
        step()
    (entry,) = step._entries.values()
    assert entry.donating is not None and not any(kind == "key" for kind, _, _ in entry.out[2])
    assert entry.unread is not None  # zero_grad first: the previous call's grads are not passed
    text = entry.donating.lower(*specs).compile().as_text()
    aliases = dict((int(o), int(i)) for o, i in re.findall(r"\{(\d+)\}: \((\d+), \{\}, may-alias\)", text))
    steps = [i for i, a in enumerate(specs[:entry.ndonate]) if a.ndim == 0 and a.dtype == np.float32]
    assert len(steps) == len(list(model.parameters()))  # one count per parameter, each donated ...
    assert all(aliases.get(i) == i for i in steps)  # ... and written back into its own buffer


def test_a_tensor_lr_changed_in_place_is_read_by_the_compiled_step():
    """A learning rate given as a tensor and changed in place (`lr.fill_`) between steps: the group's value is
    the same object, so the compiled step must read it again on every call, as torch's eager step does."""

    def run(lib, compiled):
        t, f = _same_init()
        model = t if lib is torch else f
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        step = _ce_step(lib, model, opt, lib.tensor(X), lib.tensor(Y))
        fn = lib.compile(step) if compiled else step
        losses = []
        for v in (0.1, 0.5, 0.0, 0.0, 0.2):
            lr.fill_(v)
            losses.append(float(fn()))
        return losses, host(model[0].weight)

    (want, wt), (got, gw) = run(torch, False), run(facade, True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, wt, rtol=1e-5, atol=1e-6)
    assert got[2] == got[3] == got[4]  # the two steps at lr 0 moved nothing: the program read 0, not 0.5


def test_eager_draws_between_compiled_calls_advance_the_stream_the_program_reads():
    """Dropout in a compiled step and eager draws from the same generator between its calls: the program reads
    the generator's key as it is at each call (not a copy kept from the last call), so the run draws what the
    eager run does."""

    def run(compiled):
        model = _model(facade, 0.5)
        opt = facade.optim.SGD(model.parameters(), lr=0.1)
        step = _ce_step(facade, model, opt, facade.tensor(X), facade.tensor(Y))
        fn = facade.compile(step) if compiled else step
        out = []
        for i in range(5):
            out.append(float(fn()))
            if i % 2:
                out += facade.rand(3).tolist()  # an eager draw between two calls
        return out, host(model[0].weight)

    (want, wt), (got, gw) = run(False), run(True)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(gw, wt, rtol=2e-5, atol=2e-6)
