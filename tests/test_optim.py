"""torch.optim differential tests: 50-step parameter trajectories and state tensors vs real torch."""

import copy
import inspect
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
import torch

import facade
import facade.optim as fo
import functional.optim
from facade.optim import optimizer as fopt

SHAPES = [(3, 4), (5,), ()]
STEPS = 50

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("Adam", dict(amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(decoupled_weight_decay=True, weight_decay=0.1, betas=(0.8, 0.99))),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(amsgrad=True, maximize=True)),
    ("Adamax", dict(weight_decay=0.1)),
    ("Adamax", dict(maximize=True, betas=(0.5, 0.9))),
    ("NAdam", dict()),
    ("NAdam", dict(decoupled_weight_decay=True, weight_decay=0.1, momentum_decay=0.01)),
    ("RAdam", dict()),
    ("RAdam", dict(decoupled_weight_decay=True, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(centered=True, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(alpha=0.9, momentum=0.5, maximize=True)),
    ("Adagrad", dict(lr_decay=0.01, initial_accumulator_value=0.1)),
    ("Adagrad", dict(weight_decay=0.1, maximize=True)),
    ("Adadelta", dict(weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, rho=0.5, maximize=True)),
    ("ASGD", dict(t0=10)),
    ("ASGD", dict(lambd=0.01, alpha=0.5, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(etas=(0.3, 1.5), step_sizes=(1e-4, 0.1), maximize=True)),
]


def _data(dtype=np.float32, seed=0, shapes=SHAPES, steps=STEPS):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(steps)]
    return init, grads


def _params(mod, init):
    return [mod.tensor(a.copy(), requires_grad=True) for a in init]


def _run(mod, name, kw, init, grads, skip=None, opt=None, params=None):
    """Step `name(**kw)` through `grads`; param i gets no grad at steps where skip(step, i). -> (trajectory, opt)."""
    params = params or _params(mod, init)
    opt = opt or getattr(mod.optim, name)(params, **kw)
    traj = []
    for k, gs in enumerate(grads):
        for i, (p, g) in enumerate(zip(params, gs)):
            p.grad = None if skip and skip(k, i) else mod.tensor(g)
        opt.step()
        traj.append([p.detach().numpy().copy() for p in params])
    return traj, opt


def _close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _compare_states(ts, fs, rtol=1e-5, atol=1e-6):
    assert list(ts) == list(fs)
    for i in ts:
        assert list(ts[i]) == list(fs[i]), (ts[i].keys(), fs[i].keys())
        for k, v in ts[i].items():
            w = fs[i][k]
            if isinstance(v, torch.Tensor):
                assert isinstance(w, facade.Tensor) and str(w.dtype) == str(v.dtype) and tuple(w.shape) == tuple(
                    v.shape), (k, w, v)
                _close(_np(w), _np(v), rtol, atol)
            else:
                assert w == v


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory(name, kw):
    init, grads = _data()
    skip = (lambda k, i: i == 1 and k % 7 == 3)  # a parameter without .grad is skipped (state not advanced)
    ta, oa = _run(torch, name, kw, init, grads, skip)
    fa, ob = _run(facade, name, kw, init, grads, skip)
    for x, y in zip(ta, fa):
        for u, v in zip(x, y):
            _close(v, u)
    _compare_states(oa.state_dict()["state"], ob.state_dict()["state"])
    tg, fg = oa.state_dict()["param_groups"], ob.state_dict()["param_groups"]
    assert tg == fg


def _update_compiles():
    row = facade.compiler.metrics().ops.get("_update_group")
    return row.compiles if row else 0


@pytest.mark.parametrize("k,name,kw", [(k, *case) for k, case in enumerate(CASES)],
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_an_optimizer_compiles_its_first_update_when_it_is_made(k, name, kw):
    """The first eager update compiles in the background from the moment the optimizer is made (it overlaps the
    first forward and backward): the first step finds it compiled. Shapes no other test uses."""
    params = [facade.randn(17, 3 + k, requires_grad=True), facade.randn(29 + k, requires_grad=True)]
    before = _update_compiles()
    opt = getattr(fo, name)(params, **kw)
    made = _update_compiles()
    sum((p * p).sum() for p in params).backward()
    opt.step()
    assert (made - before, _update_compiles() - made) == (1, 0)


def test_shared_parameters_compile_both_first_updates_ahead():
    """A state_dict deep-copied before the optimizer is made shares the parameters' arrays, so the first step cannot
    donate them and runs the update that keeps its inputs; the later steps, on the update's own outputs, run the
    in-place one. Both compile from the moment the optimizer is made: the steps compile nothing, and the copy
    keeps its values."""
    model = facade.nn.Linear(23, 5)
    saved = copy.deepcopy(model.state_dict())
    initial = saved["weight"].numpy().copy()
    before = _update_compiles()
    opt = fo.AdamW(model.parameters(), lr=0.01)
    made = _update_compiles()
    for _ in range(3):
        opt.zero_grad()
        model(facade.ones(4, 23)).square().sum().backward()
        opt.step()
    assert (made - before, _update_compiles() - made) == (2, 0)
    assert np.array_equal(saved["weight"].numpy(), initial) and not np.array_equal(model.weight.detach().numpy(),
                                                                                   initial)


def test_the_update_compiled_ahead_sees_what_a_subclass_sets_after_super_init():
    class Amsgrad(fo.Adam):
        def __init__(self, params):
            super().__init__(params, lr=0.01)  # the update compiled ahead is this one's, not Adam's own
            self.param_groups[0]["amsgrad"] = True

    params = [facade.randn(31, 7, requires_grad=True)]
    opt = Amsgrad(params)
    made = _update_compiles()
    (params[0] * params[0]).sum().backward()
    opt.step()
    assert _update_compiles() == made and "max_exp_avg_sq" in opt.state[params[0]]
    before = _update_compiles()
    fo.LBFGS([facade.randn(37, requires_grad=True)])  # a step of its own: nothing compiled ahead
    assert _update_compiles() == before


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(amsgrad=True)),
                                     ("NAdam", dict()), ("RAdam", dict()), ("Adagrad", dict()), ("ASGD", dict())])
def test_trajectory_float64(name, kw):
    init, grads = _data(np.float64, seed=1, steps=20)
    ta, oa = _run(torch, name, kw, init, grads)
    fa, ob = _run(facade, name, kw, init, grads)
    for x, y in zip(ta, fa):
        for u, v in zip(x, y):
            assert v.dtype == np.float64
            _close(v, u, rtol=1e-10, atol=1e-12)
    _compare_states(oa.state_dict()["state"], ob.state_dict()["state"], 1e-10, 1e-12)


@pytest.mark.parametrize("name,kw", [("Adam", dict(amsgrad=True)), ("Rprop", dict()),
                                     ("Adagrad", dict(initial_accumulator_value=0.1))])
def test_complex_parameters(name, kw):
    """Complex parameters are optimised as pairs of reals (torch's view_as_real)."""
    rng = np.random.default_rng(2)
    init = [(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64),
            rng.standard_normal(4).astype(np.float32)]
    grads = [[(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64),
              rng.standard_normal(4).astype(np.float32)] for _ in range(20)]
    ta, oa = _run(torch, name, kw, init, grads)
    fa, ob = _run(facade, name, kw, init, grads)
    for x, y in zip(ta, fa):
        for u, v in zip(x, y):
            assert u.dtype == v.dtype
            _close(v, u)
    _compare_states(oa.state_dict()["state"], ob.state_dict()["state"])


def _update_programs():
    """Programs of the eager group update, copying and in-place (donating) variants together."""
    return fopt._apply._cache_size() + fopt._apply_in_place._cache_size()


def _two_groups(mod, params):
    return [{"params": params[:1]}, {"params": params[1:], "lr": 0.05, "weight_decay": 0.1}]


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_param_groups_and_lr_change_without_recompile(name):
    init, grads = _data(steps=30)
    kw = dict(lr=0.01, momentum=0.5) if name != "Adam" else dict(lr=0.01)

    def run(mod):
        params = _params(mod, init)
        opt = getattr(mod.optim, name)(_two_groups(mod, params), **kw)
        traj = []
        for k, gs in enumerate(grads):
            if k == 10:
                opt.param_groups[0]["lr"] = 0.003
                opt.param_groups[1]["lr"] = 0.02
            if k == 20 and "betas" in opt.param_groups[1]:
                opt.param_groups[1]["betas"] = (0.5, 0.9)
            for p, g in zip(params, gs):
                p.grad = mod.tensor(g)
            opt.step()
            if k == 2:
                size = _update_programs() if mod is facade else None
            traj.append([p.detach().numpy().copy() for p in params])
        return traj, (size, _update_programs() if mod is facade else None)

    ta, _ = run(torch)
    fa, (before, after) = run(facade)
    for x, y in zip(ta, fa):
        for u, v in zip(x, y):
            _close(v, u)
    assert before == after, "changing lr/betas through param_groups recompiled the update"


def _state_to(mod, sd):
    """An optimizer state_dict with its tensors moved to `mod` (torch or facade) through numpy."""
    def conv(v):
        if isinstance(v, (torch.Tensor, facade.Tensor)):
            return mod.tensor(_np(v).copy())
        return v
    return {"state": {k: {n: conv(v) for n, v in s.items()} for k, s in sd["state"].items()},
            "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(amsgrad=True)),
                                     ("AdamW", dict()), ("NAdam", dict()), ("RMSprop", dict(centered=True)),
                                     ("ASGD", dict()), ("Rprop", dict())])
def test_state_dict_interop(name, kw):
    init, grads = _data(steps=20)
    # torch runs 10 steps, its state moves into facade, both continue 10 steps
    ta, oa = _run(torch, name, kw, init, grads[:10])
    t_params = oa.param_groups[0]["params"]
    f_params = [facade.tensor(p.detach().numpy().copy(), requires_grad=True) for p in t_params]
    ob = getattr(facade.optim, name)(f_params, **kw)
    ob.load_state_dict(_state_to(facade, oa.state_dict()))
    assert isinstance(ob.state[f_params[0]]["step" if name != "SGD" else "momentum_buffer"], facade.Tensor)
    tb, _ = _run(torch, name, kw, None, grads[10:], opt=oa, params=t_params)
    fb, _ = _run(facade, name, kw, None, grads[10:], opt=ob, params=f_params)
    for x, y in zip(tb, fb):
        for u, v in zip(x, y):
            _close(v, u)
    # and back: facade's state dict loads into a fresh torch optimizer and continues identically
    t2 = [torch.tensor(_np(p).copy(), requires_grad=True) for p in f_params]
    oc = getattr(torch.optim, name)(t2, **kw)
    oc.load_state_dict(_state_to(torch, ob.state_dict()))
    _compare_states(oc.state_dict()["state"], ob.state_dict()["state"])
    tc, _ = _run(torch, name, kw, None, grads[:5], opt=oc, params=t2)
    fc, _ = _run(facade, name, kw, None, grads[:5], opt=ob, params=f_params)
    for x, y in zip(tc, fc):
        for u, v in zip(x, y):
            _close(v, u)


def test_state_dict_layout_and_save_load_roundtrip(tmp_path):
    init, grads = _data(steps=3)
    _, ob = _run(facade, "Adam", dict(), init, grads)
    sd = ob.state_dict()
    assert sorted(sd) == ["param_groups", "state"] and sd["param_groups"][0]["params"] == [0, 1, 2]
    assert sd["state"][0]["step"].dtype == facade.float32 and sd["state"][0]["step"].shape == ()
    facade.save(sd, tmp_path / "opt.pt")
    loaded = torch.load(tmp_path / "opt.pt")  # real torch reads our file
    assert float(loaded["state"][0]["step"]) == 3.0
    _close(loaded["state"][1]["exp_avg"].numpy(), _np(sd["state"][1]["exp_avg"]))


def test_in_place_update_keeps_identity_and_bumps_version():
    p = facade.tensor([1.0, 2.0], requires_grad=True)
    opt = fo.SGD([p], lr=0.5)
    p.grad = facade.tensor([1.0, 1.0])
    v, obj = p._version, p
    opt.step()
    assert p is obj and p._version == v + 1 and p.requires_grad and p.is_leaf
    np.testing.assert_array_equal(p.detach().numpy(), [0.5, 1.5])


def test_parameter_and_closure_and_zero_grad():
    w = facade.nn.Parameter(facade.tensor([1.0, -2.0]))
    opt = fo.Adam([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert float(loss) == 5.0 and isinstance(w, facade.nn.Parameter)
    np.testing.assert_allclose(w.detach().numpy(), [0.9, -1.9], rtol=1e-6)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert w.grad is None


def test_hooks_and_add_param_group_and_repr():
    a, b = facade.zeros(2, requires_grad=True), facade.zeros(3, requires_grad=True)
    opt = fo.SGD([a], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kw: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kw: calls.append("post"))
    g = fopt.register_optimizer_step_pre_hook(lambda o, args, kw: calls.append("global"))
    opt.step()
    assert calls == ["global", "pre", "post"]
    h1.remove()
    g.remove()
    opt.step()
    assert calls == ["global", "pre", "post", "post"]
    opt.add_param_group({"params": b, "lr": 0.01})
    assert opt.param_groups[1]["momentum"] == 0 and opt.param_groups[1]["lr"] == 0.01
    ta, tb = torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)
    topt = torch.optim.SGD([ta], lr=0.1)
    topt.add_param_group({"params": tb, "lr": 0.01})
    assert repr(opt) == repr(topt)
    sd_calls = []
    opt.register_state_dict_post_hook(lambda o, sd: sd_calls.append(len(sd["param_groups"])))
    opt.load_state_dict(opt.state_dict())
    assert sd_calls == [2]


def test_named_parameters_accepted():
    a = facade.zeros(2, requires_grad=True)
    opt = fo.AdamW([("w", a)])
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w"]


OPT_NAMES = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta",
             "ASGD", "Rprop", "LBFGS"]


@pytest.mark.parametrize("name", OPT_NAMES)
def test_signature_and_module_path(name):
    tc, fc = getattr(torch.optim, name), getattr(fo, name)
    ts, fs = inspect.signature(tc), inspect.signature(fc)
    assert [(p.name, p.kind, p.default) for p in ts.parameters.values()] == [
        (p.name, p.kind, p.default) for p in fs.parameters.values()]
    assert fc.__module__.replace("facade", "torch") == tc.__module__
    assert fc.__name__ == tc.__name__


def _rosenbrock(mod, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


@pytest.mark.parametrize("kw", [dict(lr=0.1, max_iter=5), dict(lr=1, max_iter=20, line_search_fn="strong_wolfe"),
                                dict(lr=1, max_iter=4, history_size=3, line_search_fn="strong_wolfe")])
def test_lbfgs(kw):
    def run(mod):
        x = mod.tensor([-1.5, 2.0], dtype=mod.float64, requires_grad=True)
        opt = mod.optim.LBFGS([x], **kw)
        losses = []

        def closure():
            opt.zero_grad()
            loss = _rosenbrock(mod, x)
            loss.backward()
            return loss

        for _ in range(4):
            losses.append(float(opt.step(closure).detach()))
        st = opt.state[x]
        return x.detach().numpy().copy(), losses, st["func_evals"], st["n_iter"]

    tx, tl, tf, tn = run(torch)
    fx, fl, ff, fn = run(facade)
    _close(fx, tx, 1e-8, 1e-10)
    _close(fl, tl, 1e-8, 1e-10)
    assert (tf, tn) == (ff, fn)


def test_from_optax_matches_torch_and_pickles():
    init, grads = _data(steps=20)
    ta, _ = _run(torch, "Adam", dict(lr=0.01), init, grads)
    params = _params(facade, init)
    opt = fo.from_optax(params, optax.adam(0.01))
    fa, _ = _run(facade, None, None, init, grads, opt=opt, params=params)
    for x, y in zip(ta, fa):
        for u, v in zip(x, y):
            _close(v, u, 1e-5, 1e-5)
    sd = pickle.loads(pickle.dumps(opt.state_dict()))
    opt2 = fo.from_optax(params, optax.adam(0.01))
    opt2.load_state_dict(sd)
    # an lr scheduler drives the optax update's scale through param_groups
    sched = fo.lr_scheduler.StepLR(opt2, 1, gamma=0.5)
    before = params[0].detach().numpy().copy()
    for p, g in zip(params, grads[0]):
        p.grad = facade.tensor(g)
    opt2.step()
    sched.step()
    assert opt2.param_groups[0]["lr"] == 0.5
    assert not np.allclose(before, params[0].detach().numpy())


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64, jnp.bfloat16, jnp.float16])
def test_adam_group_update_is_optax_per_parameter_bit_for_bit_with_one_vector_of_bias_corrections(dtype):
    """Adam's group update computes the bias corrections of all its parameters as one vector (a compiled step of a
    model with many parameters runs no chain of scalar kernels per parameter) and still gives, bit for bit, what
    optax.scale_by_adam gives each parameter with the incremented step as its count."""
    from facade.optim.adam import _adam_update

    rng = np.random.default_rng(0)
    shapes = [(3, 4), (5,), (), (2, 3)]
    params = [jnp.asarray(rng.standard_normal(s), dtype) for s in shapes]
    grads = [jnp.asarray(rng.standard_normal(s), dtype) for s in shapes]
    states = [{"step": jnp.float32(k), "exp_avg": jnp.asarray(rng.standard_normal(s), dtype),
               "exp_avg_sq": jnp.asarray(rng.random(s), dtype)} for k, s in zip((0, 3, 7, 250), shapes)]
    hp = {"lr": jnp.float64(0.01), "betas": (jnp.float64(0.9), jnp.float64(0.999)), "eps": jnp.float64(1e-8),
          "weight_decay": jnp.float64(0.1)}
    static = {"amsgrad": False, "maximize": False, "decoupled_weight_decay": True}

    def reference(params, grads, states, hp):
        out = []
        for p, g, s in zip(params, grads, states):
            p, g = functional.optim.decayed(p, g, hp["lr"], hp["weight_decay"], False, True)
            tx = optax.scale_by_adam(*hp["betas"], hp["eps"])
            u, st = tx.update(g, optax.ScaleByAdamState(count=s["step"].astype(jnp.int32), mu=s["exp_avg"],
                                                        nu=s["exp_avg_sq"]))
            out.append((p + jnp.asarray(-hp["lr"], p.dtype) * u, st.mu, st.nu))
        return out

    new_p, new_s = jax.jit(lambda *a: _adam_update(*a, static))(params, grads, states, hp)
    for (p, m, v), np_, ns, s in zip(jax.jit(reference)(params, grads, states, hp), new_p, new_s, states):
        for a, b in ((p, np_), (m, ns["exp_avg"]), (v, ns["exp_avg_sq"])):
            assert a.dtype == b.dtype and np.array_equal(np.asarray(a, np.float64), np.asarray(b, np.float64))
        assert ns["step"].dtype == jnp.float32 and float(ns["step"]) == float(s["step"]) + 1
    jaxpr = jax.make_jaxpr(lambda *a: _adam_update(*a, static))(params, grads, states, hp)
    assert sum(e.primitive.name == "pow" for e in jaxpr.jaxpr.eqns) == 2  # b1 ** count and b2 ** count, once each
