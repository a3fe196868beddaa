"""torch.compile on the three models of benchmarks/bench_compile.py (at small sizes): for each, 20 training steps
with gradient accumulation over micro-batches, gradient clipping and a learning-rate scheduler give the same
losses, parameters, buffers (BatchNorm statistics), optimizer state and RNG stream (GPT's dropout) in three
variants: facade eager (the reference), `torch.compile(model)` in the eager loop and `torch.compile` of the whole
step; where no random draw is involved, real torch eager from the same initial weights gives them too. Later steps
compile nothing, a new batch shape recompiles once, a changing learning rate is data, and switching
train()/eval() inside a loop compiles one program per mode."""

import numpy as np
import pytest
import torch

import facade
from benchmarks.compile_models import MODELS, batch
from facade.compiler import metrics

from ._compare import host

SMALL = {  # the benchmark's modules at sizes that train 20 steps in a second or two
    "mlp": dict(dims=(12, 16, 16, 4), batch=8),
    "cnn": dict(chans=(1, 4, 8, 8), size=8, classes=4, batch=8),
    "gpt": dict(layers=2, heads=2, dim=16, block=8, vocab=11, batch=4, p=0.1),
}
STEPS, MICRO, CLIP = 20, 2, 0.5
# Rounding noise: the attention key bias (the middle third of `attn.bias`) has a zero gradient in exact arithmetic,
# softmax being invariant to it, so AdamW's m / sqrt(v) turns ~1e-11 of rounding into steps of up to lr (1e-3).
NOISY = {f"blocks.{i}.attn.bias": slice(SMALL["gpt"]["dim"], 2 * SMALL["gpt"]["dim"])
         for i in range(SMALL["gpt"]["layers"])}
HOWS = ("eager", "model", "step")  # facade eager, torch.compile(model) in the eager loop, torch.compile(step)


def _recompiles():
    return facade._dynamo.utils.counters["stats"]["recompiles"]


def _make(lib, name, init=None, **cfg):
    """The benchmark's model and optimizer; `init`: a real torch model whose weights are copied in."""
    lib.manual_seed(0)
    model, make_opt = MODELS[name](lib, **{**SMALL[name], **cfg})
    if init is not None:
        with facade.no_grad():
            for a, b in zip(init.state_dict().values(), model.state_dict().values()):
                b.copy_(facade.tensor(host(a)))
    opt = make_opt(model.parameters())
    return model, opt, lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=STEPS)


def _step_fn(lib, net, model, opt, sched, micro=MICRO, train=False):
    """One training step: zero_grad, `micro` accumulated micro-batch backwards, clip_grad_norm_, step, scheduler;
    `train`: it calls model.train() first."""
    F = lib.nn.functional

    def step(x, y):
        if train:
            model.train()
        opt.zero_grad()
        total = 0.0
        for xs, ys in zip(x.chunk(micro), y.chunk(micro)):
            logits = net(xs)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ys.reshape(-1)) / micro
            loss.backward()
            total = total + loss.detach()
        norm = lib.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        sched.step()
        return total, norm

    return step


class Run:
    """`STEPS` training steps of one model in one variant, and what they leave behind."""

    def __init__(self, lib, name, how, init=None, **cfg):
        model, opt, sched = _make(lib, name, init, **cfg)
        net = lib.compile(model) if how == "model" else model
        step = _step_fn(lib, net, model, opt, sched)
        run = lib.compile(step) if how == "step" else step
        x, y = batch(name, {**SMALL[name], **cfg})
        self.losses, self.norms, self.lrs, self.compiles = [], [], [], []
        for _ in range(STEPS):
            c0 = metrics().compiles
            loss, norm = run(lib.tensor(x), lib.tensor(y))
            self.compiles.append(metrics().compiles - c0)
            self.losses.append(float(loss))
            self.norms.append(float(norm))
            self.lrs.append(opt.param_groups[0]["lr"])
        self.model, self.opt, self.draw = model, opt, host(lib.rand(4))  # the generator after training

    def assert_like(self, ref, rtol, atol):
        np.testing.assert_allclose(self.losses, ref.losses, rtol=rtol, atol=atol, err_msg="losses")
        np.testing.assert_allclose(self.norms, ref.norms, rtol=rtol, atol=atol, err_msg="gradient norms")
        np.testing.assert_allclose(self.lrs, ref.lrs, rtol=1e-12, err_msg="learning rates")
        got, want = self.model.state_dict(), ref.model.state_dict()
        assert list(got) == list(want)
        for k in want:  # parameters and buffers (BatchNorm statistics, num_batches_tracked)
            assert str(got[k].dtype).split(".")[-1] == str(want[k].dtype).split(".")[-1], k
            a, b = host(got[k]), host(want[k])
            if k in NOISY:
                cut = NOISY[k]
                np.testing.assert_allclose(a[cut], b[cut], atol=STEPS * 1e-3, err_msg=k)
                a, b = np.delete(a, cut), np.delete(b, cut)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=k)
        got, want = self.opt.state_dict(), ref.opt.state_dict()
        assert got["param_groups"] == want["param_groups"]  # lr, initial_lr, betas ... and the param ids
        assert list(got["state"]) == list(want["state"])
        for i, s in want["state"].items():
            assert list(got["state"][i]) == list(s), i
            for k, v in s.items():
                np.testing.assert_allclose(host(got["state"][i][k]), host(v), rtol=rtol, atol=atol, err_msg=f"{i}.{k}")


@pytest.mark.parametrize("name", list(SMALL))
def test_compiled_training_matches_eager(name):
    runs = {how: Run(facade, name, how) for how in HOWS}
    ref = runs["eager"]
    assert max(ref.norms) > CLIP and len(set(ref.lrs)) == STEPS  # clipping acts; the learning rate changes per step
    for how in ("model", "step"):
        runs[how].assert_like(ref, rtol=2e-5, atol=2e-6)
        np.testing.assert_array_equal(runs[how].draw, ref.draw, err_msg="the generator after training")
        assert runs[how].compiles[2:] == [0] * (STEPS - 2), (how, runs[how].compiles)  # the same step: no recompile
    assert runs["step"].compiles[1] > 0  # whole step: the 1st call runs eagerly, the 2nd compiles, later ones reuse


@pytest.fixture
def one_torch_thread():
    """Real torch on one thread: its OpenMP workers spin-wait, and on a machine with busy cores that is slow."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_compiled_training_matches_real_torch(name, one_torch_thread):
    """No random draws: real torch eager from the same initial weights is the oracle."""
    ref = Run(torch, name, "eager")
    torch_model = _make(torch, name)[0]  # the same seed: the reference's initial weights
    for how in ("model", "step"):
        Run(facade, name, how, init=torch_model).assert_like(ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("how", ["model", "step"])
def test_new_batch_shape_recompiles_once_and_says_why(how, monkeypatch, capsys):
    monkeypatch.setenv("TORCH_LOGS", "recompiles")
    x, y = batch("mlp", SMALL["mlp"])
    sizes = (8, 8, 8, 4, 4, 8, 4)  # back to a known shape: its program is still cached
    losses = {}
    for variant in ("eager", how):
        model, opt, sched = _make(facade, "mlp")
        net = facade.compile(model) if variant == "model" else model
        step = _step_fn(facade, net, model, opt, sched, micro=1)
        run = facade.compile(step) if variant == "step" else step
        losses[variant], compiles = [], []
        capsys.readouterr()
        before = _recompiles()
        for n in sizes:
            c0 = metrics().compiles
            losses[variant].append(float(run(facade.tensor(x[:n]), facade.tensor(y[:n]))[0]))
            compiles.append(metrics().compiles - c0)
    err = capsys.readouterr().err
    np.testing.assert_allclose(losses[how], losses["eager"], rtol=2e-5, atol=2e-6)
    assert _recompiles() == before + 1
    assert err.count("recompiling") == 1, err
    assert "input 0 changed from Tensor(shape=[8, 12]" in err and "to Tensor(shape=[4, 12]" in err, err
    assert compiles[3] > 0 and compiles[4:] == [0, 0, 0], compiles


@pytest.mark.parametrize("inside", [False, True], ids=["loop_switches", "functions_switch"])
@pytest.mark.parametrize("how", ["model", "step"])
def test_train_eval_switching_compiles_one_program_per_mode(how, inside):
    """A loop alternating a training step and an evaluation of the CNN (BatchNorm: batch statistics and updates
    in training, running statistics in evaluation), the modes set by the loop or by the functions themselves:
    eager results and flags, one program per mode, nothing compiled after the first two rounds."""
    x, y = (facade.tensor(a) for a in batch("cnn", SMALL["cnn"]))
    results = {}
    for variant in ("eager", how):
        model, opt, sched = _make(facade, "cnn")
        net = facade.compile(model) if variant == "model" else model
        step = _step_fn(facade, net, model, opt, sched, micro=1, train=inside)

        def evaluate(x, model=model, net=net):
            if inside:
                model.eval()
            with facade.no_grad():
                return net(x)

        step, evaluate = (facade.compile(f) for f in (step, evaluate)) if variant == "step" else (step, evaluate)
        graphs, recompiles = facade._dynamo.utils.counters["stats"]["unique_graphs"], _recompiles()
        out, flags, compiles = [], [], []
        for _ in range(4):
            c0 = metrics().compiles
            if not inside:
                model.train()
            out.append(host(step(x, y)[0]))
            flags.append(model.training)
            if not inside:
                model.eval()
            out.append(host(evaluate(x)))
            flags.append(model.training)
            compiles.append(metrics().compiles - c0)
        results[variant] = out, flags, model.state_dict()
    (got, got_flags, got_sd), (want, want_flags, want_sd) = results[how], results["eager"]
    assert got_flags == want_flags == [True, False] * 4  # train()/eval() in a compiled function act on every call
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    for k in want_sd:  # BatchNorm running statistics updated in training rounds only
        np.testing.assert_allclose(host(got_sd[k]), host(want_sd[k]), rtol=2e-5, atol=2e-6, err_msg=k)
    assert compiles[2:] == [0, 0], compiles
    assert facade._dynamo.utils.counters["stats"]["unique_graphs"] - graphs == 2  # one program per mode
    assert _recompiles() - recompiles == (1 if how == "model" else 0)  # step: two functions, one mode each
