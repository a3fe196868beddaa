"""torch.optim.lr_scheduler / swa_utils differential tests: lr (and momentum) sequences vs real torch."""

import inspect
import warnings

import numpy as np
import pytest
import torch
import torch.optim.lr_scheduler as TL
import torch.optim.swa_utils as TS

import facade
import facade.optim.lr_scheduler as FL
import facade.optim.swa_utils as FS

STEPS = 100


def _opt(mod, name="SGD", groups=1):
    ps = [mod.zeros(2, requires_grad=True) for _ in range(groups)]
    kw = dict(lr=0.1, momentum=0.9) if name == "SGD" else dict(lr=0.1)
    return getattr(mod.optim, name)([{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)], **kw)


def _sequence(mod, L, make, steps=STEPS, metrics=None, opt="SGD", groups=2, epoch=False):
    o = _opt(mod, opt, groups)
    s = make(L, o)
    out = [(s.get_last_lr(), [g.get("momentum", g.get("betas")) for g in o.param_groups])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(steps):
            o.step()
            if metrics is not None:
                s.step(metrics[i])
            elif epoch:
                s.step(i + 1)
            else:
                s.step()
            out.append((s.get_last_lr(), [g.get("momentum", g.get("betas")) for g in o.param_groups]))
    return out, s


SCHEDULERS = {
    "LambdaLR": lambda L, o: L.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR-list": lambda L, o: L.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda L, o: L.StepLR(o, 7, 0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, [10, 30, 30, 60], 0.3),
    "ConstantLR": lambda L, o: L.ConstantLR(o, 0.5, 10),
    "LinearLR": lambda L, o: L.LinearLR(o, 0.1, 0.9, 30),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, 0.97),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, 40, 2.0),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, 17, 0.001),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, 5, 2, 0.01),
    "CosineAnnealingWarmRestarts-1": lambda L, o: L.CosineAnnealingWarmRestarts(o, 7),
    "CyclicLR": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 7, 5),
    "CyclicLR-triangular2": lambda L, o: L.CyclicLR(o, [0.01, 0.02], 0.1, 7, mode="triangular2"),
    "CyclicLR-exp_range": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 7, mode="exp_range", gamma=0.99),
    "CyclicLR-scale_fn": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 4, scale_fn=lambda x: 0.9 ** x,
                                                 scale_mode="iterations", cycle_momentum=False),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, 1.0, total_steps=100),
    "OneCycleLR-3phase-linear": lambda L, o: L.OneCycleLR(o, [1.0, 2.0], epochs=10, steps_per_epoch=11,
                                                          three_phase=True, anneal_strategy="linear"),
    "SequentialLR": lambda L, o: L.SequentialLR(o, [L.LinearLR(o, 0.1, total_iters=10), L.CosineAnnealingLR(o, 50),
                                                    L.StepLR(o, 5)], [10, 60]),
    "ChainedScheduler": lambda L, o: L.ChainedScheduler([L.ExponentialLR(o, 0.99), L.StepLR(o, 10, 0.5),
                                                         L.ConstantLR(o, 0.5, 20)]),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence(name):
    a, _ = _sequence(torch, TL, SCHEDULERS[name])
    b, _ = _sequence(facade, FL, SCHEDULERS[name])
    assert a == b


def test_cycle_momentum_on_betas():
    for make in (SCHEDULERS["OneCycleLR"], SCHEDULERS["CyclicLR"]):
        a, _ = _sequence(torch, TL, make, steps=50, opt="Adam")
        b, _ = _sequence(facade, FL, make, steps=50, opt="Adam")
        assert a == b


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR",
                                  "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "LambdaLR"])
def test_closed_form_with_epoch(name):
    a, _ = _sequence(torch, TL, SCHEDULERS[name], steps=40, epoch=True)
    b, _ = _sequence(facade, FL, SCHEDULERS[name], steps=40, epoch=True)
    assert a == b


@pytest.mark.parametrize("kw", [dict(), dict(mode="max", patience=3, cooldown=2),
                                dict(threshold_mode="abs", patience=2, factor=0.5, min_lr=[0.005, 0.01]),
                                dict(mode="max", threshold_mode="abs", threshold=0.5, patience=0, eps=0.05)])
def test_reduce_lr_on_plateau(kw):
    metrics = list(np.cumsum(np.random.default_rng(0).standard_normal(STEPS)))
    a, sa = _sequence(torch, TL, lambda L, o: L.ReduceLROnPlateau(o, **kw), metrics=metrics)
    b, sb = _sequence(facade, FL, lambda L, o: L.ReduceLROnPlateau(o, **kw), metrics=metrics)
    assert a == b
    assert sa.state_dict() == sb.state_dict()


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR", "SequentialLR",
                                  "CosineAnnealingWarmRestarts"])
def test_state_dict_resume(name):
    """Resume from a scheduler state_dict saved mid-run (and from torch's): the rest of the sequence matches."""
    make = SCHEDULERS[name]
    a, ta = _sequence(torch, TL, make, steps=30)
    b, fb = _sequence(facade, FL, make, steps=30)
    sd_t, sd_f = ta.state_dict(), fb.state_dict()
    assert sd_t.keys() == sd_f.keys()
    o = _opt(facade, groups=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = make(FL, o)
        s.load_state_dict(sd_t)
        for g, tg in zip(o.param_groups, ta.optimizer.param_groups):  # the optimizer's state loads after (torch doc)
            g.update({k: v for k, v in tg.items() if k != "params"})
        rest = []
        for _ in range(20):
            o.step()
            s.step()
            rest.append(s.get_last_lr())
        ta_rest = []
        for _ in range(20):
            ta.optimizer.step()
            ta.step()
            ta_rest.append(ta.get_last_lr())
    assert rest == ta_rest


def test_last_epoch_resume():
    def run(mod, L):
        o = _opt(mod)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L.CosineAnnealingLR(o, 10)
            s = L.CosineAnnealingLR(o, 10, last_epoch=4)
            out = [s.get_last_lr()]
            for _ in range(8):
                o.step()
                s.step()
                out.append(s.get_last_lr())
        return out

    assert run(torch, TL) == run(facade, FL)
    o = _opt(facade)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\] when resuming"):
        FL.StepLR(o, 3, last_epoch=2)


def test_step_order_warning():
    o = _opt(facade)
    s = FL.StepLR(o, 3)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        s.step()
    o2 = _opt(facade)
    s2 = FL.StepLR(o2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o2.step()
        s2.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s2.get_lr()


def test_scheduler_errors():
    o = _opt(facade)
    with pytest.raises(TypeError, match="int is not an Optimizer"):
        FL.StepLR(3, 3)
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1."):
        FL.ConstantLR(o, factor=2.0)
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
        FL.LinearLR(o, start_factor=0)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        FL.ReduceLROnPlateau(o, factor=1.0)
    with pytest.raises(ValueError, match="mode foo is unknown!"):
        FL.ReduceLROnPlateau(o, mode="foo")
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        FL.CosineAnnealingWarmRestarts(o, 0)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        FL.OneCycleLR(o, 1.0)
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        s = FL.OneCycleLR(o, 1.0, total_steps=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):
                s.step()
    with pytest.raises(ValueError, match="Sequential Schedulers expects number of schedulers provided to be one more"):
        FL.SequentialLR(o, [FL.StepLR(o, 2), FL.StepLR(o, 3)], [1, 2])
    with pytest.raises(ValueError, match="ChainedScheduler does not support `ReduceLROnPlateau`"):
        FL.ChainedScheduler([FL.ReduceLROnPlateau(o)])
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        FL.LambdaLR(o, [lambda e: 1, lambda e: 1])


@pytest.mark.parametrize("name", FL.__all__)
def test_signature(name):
    t, f = getattr(TL, name), getattr(FL, name)
    ts, fs = inspect.signature(t), inspect.signature(f)
    assert [(p.name, p.kind, p.default) for p in ts.parameters.values()] == [
        (p.name, p.kind, p.default) for p in fs.parameters.values()]
    assert FL._LRScheduler.__mro__[1] is FL.LRScheduler


# ------------------------------------------------------------------ swa_utils
@pytest.mark.parametrize("kw", [dict(swa_lr=0.05, anneal_epochs=5),
                                dict(swa_lr=[0.01, 0.02], anneal_epochs=0, anneal_strategy="linear")])
def test_swalr_sequence(kw):
    a, _ = _sequence(torch, TS, lambda L, o: L.SWALR(o, **kw), steps=20)
    b, _ = _sequence(facade, FS, lambda L, o: L.SWALR(o, **kw), steps=20)
    assert a == b


def _model(mod):
    class M(mod.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = mod.nn.Parameter(mod.zeros(3))
            self.register_buffer("b", mod.zeros(2))

        def forward(self, x):
            return x * self.w

    return M()


@pytest.mark.parametrize("kind", ["swa", "ema", "ema_multi", "buffers"])
def test_averaged_model(kind):
    def run(mod, S):
        m = _model(mod)
        kw = {"swa": {}, "ema": dict(avg_fn=S.get_ema_avg_fn(0.9)),
              "ema_multi": dict(multi_avg_fn=S.get_ema_multi_avg_fn(0.8)), "buffers": dict(use_buffers=True)}[kind]
        avg = S.AveragedModel(m, **kw)
        out = []
        for k in range(5):
            with mod.no_grad():
                m.w.copy_(mod.tensor([float(k), 2.0 * k, -k]))
                m.b.copy_(mod.tensor([k + 0.5, 1.0]))
            avg.update_parameters(m)
            out.append((avg.module.w.detach().numpy().copy(), avg.module.b.numpy().copy(), int(avg.n_averaged)))
        return out, list(dict(avg.state_dict()).keys()), avg(mod.ones(3)).detach().numpy()

    (a, ka, ya), (b, kb, yb) = run(torch, TS), run(facade, FS)
    assert ka == kb
    np.testing.assert_allclose(yb, ya, rtol=1e-6)
    for (aw, ab, an), (bw, bb, bn) in zip(a, b):
        np.testing.assert_allclose(bw, aw, rtol=1e-6)
        np.testing.assert_allclose(bb, ab, rtol=1e-6)
        assert an == bn


def test_update_bn_without_batchnorm_is_a_no_op():
    m = _model(facade)
    FS.update_bn([facade.ones(3)], m)
    assert m.training


@pytest.mark.parametrize("name", FS.__all__)
def test_swa_signature(name):
    ts, fs = inspect.signature(getattr(TS, name)), inspect.signature(getattr(FS, name))
    assert [(p.name, p.kind, p.default) for p in ts.parameters.values()] == [
        (p.name, p.kind, p.default) for p in fs.parameters.values()]
