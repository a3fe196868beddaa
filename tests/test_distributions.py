"""torch.distributions on facade against real torch.distributions: log_prob, entropy, moments, cdf/icdf and
KL on fixed parameters (float32 and float64), sample shapes, sample moments, reparameterised gradients,
validation errors, transforms, constraints and a distribution inside compiled code."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import facade

TD, FD = torch.distributions, facade.distributions


@pytest.fixture(autouse=True)
def _torch_validates():
    """torch.compile's first use in a process (real torch's dynamo patcher) turns torch's default distribution
    validation off for good; the oracle validates by default, as a fresh torch does."""
    before = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else x.numpy(force=True)


def _close(got, ref, dtype=torch.float32):
    tol = dict(rtol=2e-5, atol=2e-5) if dtype is torch.float32 else dict(rtol=1e-10, atol=1e-10)
    assert tuple(got.shape) == tuple(ref.shape)
    assert str(got.dtype) == str(ref.dtype)
    np.testing.assert_allclose(_np(got), _np(ref), equal_nan=True, **tol)


def _both(make, dtype):
    """make(D, t) built with real torch and with facade; t makes a tensor of the case's dtype."""
    fdt = getattr(facade, str(dtype).split(".")[1])
    ref = make(TD, lambda v, **k: torch.tensor(v, dtype=k.pop("dtype", dtype), **k))
    got = make(FD, lambda v, **k: facade.tensor(v, dtype=k.pop("dtype", fdt), **k))
    return got, ref


# (distribution builder, value at which log_prob/cdf are evaluated (None: a sample of the torch one))
CASES = {
    "Normal": (lambda D, t: D.Normal(t([0.3, -1.0]), t([0.5, 2.0])), [0.1, 1.5]),
    "Normal_scalar": (lambda D, t: D.Normal(0.5, 2.0), 0.3),
    "Laplace": (lambda D, t: D.Laplace(t([0.3, -1.0]), t([0.5, 2.0])), [0.1, -3.0]),
    "Cauchy": (lambda D, t: D.Cauchy(t([0.3, -1.0]), t([0.5, 2.0])), [0.1, -3.0]),
    "Gumbel": (lambda D, t: D.Gumbel(t([0.3, -1.0]), t([0.5, 2.0])), [0.1, -3.0]),
    "Exponential": (lambda D, t: D.Exponential(t([0.5, 2.0])), [0.3, 1.2]),
    "Gamma": (lambda D, t: D.Gamma(t([0.7, 3.0]), t([1.5, 0.5])), [0.4, 2.0]),
    "Chi2": (lambda D, t: D.Chi2(t([1.5, 4.0])), [0.5, 3.0]),
    "Beta": (lambda D, t: D.Beta(t([0.7, 2.0]), t([1.5, 3.0])), [0.3, 0.8]),
    "Dirichlet": (lambda D, t: D.Dirichlet(t([[0.5, 1.0, 2.0], [3.0, 1.0, 1.0]])), [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]),
    "Uniform": (lambda D, t: D.Uniform(t([0.0, -1.0]), t([1.0, 2.0])), [0.5, 1.5]),
    "Bernoulli": (lambda D, t: D.Bernoulli(probs=t([0.2, 0.9])), [1.0, 0.0]),
    "Bernoulli_logits": (lambda D, t: D.Bernoulli(logits=t([-1.0, 2.0])), [1.0, 0.0]),
    "Categorical": (lambda D, t: D.Categorical(probs=t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])), [2, 0]),
    "Categorical_logits": (lambda D, t: D.Categorical(logits=t([[0.2, -1.3, 0.5], [2.0, 0.1, 0.8]])), [1, 2]),
    "OneHotCategorical": (lambda D, t: D.OneHotCategorical(logits=t([[0.2, -1.3, 0.5], [2.0, 0.1, 0.8]])),
                          [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    "MultivariateNormal": (lambda D, t: D.MultivariateNormal(t([[0.0, 1.0], [1.0, -1.0]]),
                                                             covariance_matrix=t([[2.0, 0.5], [0.5, 1.0]])),
                           [[0.3, -0.2], [1.0, 1.0]]),
    "MultivariateNormal_tril": (lambda D, t: D.MultivariateNormal(t([0.0, 1.0]),
                                                                  scale_tril=t([[1.5, 0.0], [0.3, 0.7]])),
                                [[0.3, -0.2], [1.0, 1.0], [2.0, 0.0]]),
    "MultivariateNormal_prec": (lambda D, t: D.MultivariateNormal(t([0.0, 1.0]),
                                                                  precision_matrix=t([[2.0, 0.5], [0.5, 1.0]])),
                                [0.3, -0.2]),
    "Poisson": (lambda D, t: D.Poisson(t([0.5, 3.0])), [0.0, 2.0]),
    "Geometric": (lambda D, t: D.Geometric(probs=t([0.3, 0.7])), [0.0, 3.0]),
    "HalfNormal": (lambda D, t: D.HalfNormal(t([0.5, 2.0])), [0.2, 1.0]),
    "LogNormal": (lambda D, t: D.LogNormal(t([0.0, 1.0]), t([0.5, 1.0])), [0.5, 2.0]),
    "Independent": (lambda D, t: D.Independent(D.Normal(t([[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]]), t(1.5)), 1),
                    [[0.1, 0.2, 0.3], [1.0, 1.0, 1.0]]),
    "Transformed_affine_exp": (lambda D, t: D.TransformedDistribution(
        D.Normal(t([0.0, 1.0]), t([1.0, 0.5])), [D.ExpTransform(), D.AffineTransform(1.0, 2.0)]), [1.5, 4.0]),
    "Transformed_sigmoid": (lambda D, t: D.TransformedDistribution(
        D.Uniform(t([-1.0, 0.0]), t([1.0, 2.0])), [D.SigmoidTransform()]), [0.3, 0.8]),
    "Transformed_tanh": (lambda D, t: D.TransformedDistribution(
        D.Normal(t([0.0, 1.0]), t([1.0, 0.5])), D.ComposeTransform([D.TanhTransform(), D.AffineTransform(
            t([0.0, 1.0]), t([2.0, -1.0]))])), [0.3, 0.8]),
    "Transformed_stickbreaking": (lambda D, t: D.TransformedDistribution(
        D.Normal(t([0.0, 1.0]), t([1.0, 0.5])), [D.StickBreakingTransform()]), [0.2, 0.3, 0.5]),
}
_PROPS = ("mean", "variance", "stddev", "mode")


def _call(fn):
    try:
        return fn(), None
    except (NotImplementedError, ValueError) as e:
        return None, e


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_match_torch(name, dtype):
    make, value = CASES[name]
    got, ref = _both(make, dtype)
    assert got.batch_shape == ref.batch_shape and got.event_shape == ref.event_shape
    assert got.has_rsample == ref.has_rsample and repr(got.support) == repr(ref.support)
    vt = torch.tensor(value, dtype=dtype)
    if name.startswith("Categorical"):
        vt = vt.long()
    vf = facade.tensor(vt.numpy())
    qt = torch.tensor([0.2, 0.9], dtype=dtype)
    methods = {"log_prob": lambda d, v, q: d.log_prob(v), "entropy": lambda d, v, q: d.entropy(),
               "cdf": lambda d, v, q: d.cdf(v), "icdf": lambda d, v, q: d.icdf(q),
               "perplexity": lambda d, v, q: d.perplexity(),
               **{p: lambda d, v, q, p=p: getattr(d, p) for p in _PROPS}}
    qf = facade.tensor(qt.numpy())
    for what, fn in methods.items():
        r, rerr = _call(lambda fn=fn: fn(ref, vt, qt))
        g, gerr = _call(lambda fn=fn: fn(got, vf, qf))
        if rerr is not None:
            assert type(gerr) is type(rerr), (what, rerr, gerr)
            continue
        assert gerr is None, (what, gerr)
        _close(g, r, dtype)
    # expand keeps the values and broadcasts the batch
    shape = (3,) + tuple(ref.batch_shape)
    _close(got.expand(shape).log_prob(vf), ref.expand(shape).log_prob(vt), dtype)
    assert got.expand(shape).batch_shape == ref.expand(shape).batch_shape


@pytest.mark.parametrize("name", list(CASES))
def test_sample_shapes_and_dtypes(name):
    got, ref = _both(CASES[name][0], torch.float32)
    for shape in ((), (4, 3)):
        r, g = ref.sample(shape), got.sample(shape)
        assert tuple(g.shape) == tuple(r.shape) and str(g.dtype) == str(r.dtype)
        assert bool(got.support.check(g).all())
        if ref.has_rsample:
            assert tuple(got.rsample(shape).shape) == tuple(ref.rsample(shape).shape)
    if not ref.has_rsample:
        with pytest.raises(NotImplementedError):
            got.rsample()


MOMENTS = ["Normal", "Laplace", "Exponential", "Gamma", "Beta", "Dirichlet", "Uniform", "Bernoulli", "Categorical",
           "OneHotCategorical", "MultivariateNormal", "Poisson", "Geometric", "HalfNormal", "Gumbel", "Chi2"]


@pytest.mark.parametrize("name", MOMENTS)
def test_sample_moments(name):
    facade.manual_seed(0)
    got, ref = _both(CASES[name][0], torch.float64)
    n = 20000
    x = _np(got.sample((n,)))
    if name == "Categorical":  # frequencies of each class
        freq = np.stack([(x == k).mean(0) for k in range(3)], -1)
        np.testing.assert_allclose(freq, _np(ref.probs), atol=0.02)
        return
    mean, var = _np(ref.mean), _np(ref.variance)
    se = np.sqrt(var / n)
    assert np.all(np.abs(x.mean(0) - mean) < 6 * se + 1e-12), (x.mean(0), mean)
    np.testing.assert_allclose(x.var(0), var, rtol=0.1)
    if name == "MultivariateNormal":
        c = np.cov(x[:, 0].T)
        np.testing.assert_allclose(c, _np(ref.covariance_matrix[0]), rtol=0.08, atol=0.03)


def test_seeded_sampling_is_reproducible():
    d = FD.Gamma(facade.tensor([0.5, 2.0]), facade.tensor(1.0))
    facade.manual_seed(3)
    a = d.sample((4,))
    facade.manual_seed(3)
    assert facade.equal(a, d.sample((4,)))


def _leaf(v, dtype=torch.float64):
    return torch.tensor(v, dtype=dtype, requires_grad=True), facade.tensor(v, dtype=facade.float64,
                                                                           requires_grad=True)


def test_rsample_gradient_location_scale_exact():
    """Given facade's noise, torch's reparameterisation yields the same sample and the same gradients."""
    f = lambda x: (x.sin() * x).sum()  # noqa: E731
    lt, lf = _leaf([0.3, -1.0])
    st, sf = _leaf([0.5, 2.0])
    for name, noise in (("Normal", lambda x, loc, scale: (x - loc) / scale),
                        ("Laplace", lambda x, loc, scale: (x - loc) / scale),
                        ("Cauchy", lambda x, loc, scale: (x - loc) / scale)):
        xf = getattr(FD, name)(lf, sf).rsample((7,))
        eps = torch.from_numpy(noise(xf, lf, sf).detach().numpy())
        xt = lt + eps * st
        np.testing.assert_allclose(_np(xf), _np(xt), rtol=1e-12)
        gt = torch.autograd.grad(f(xt), (lt, st))
        gf = facade.autograd.grad(f(xf), (lf, sf))
        for a, b in zip(gf, gt):
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9)
    # Exponential: x = eps / rate; Uniform: x = low + u (high - low); MultivariateNormal: x = loc + L eps
    rt, rf = _leaf([0.5, 2.0])
    xf = FD.Exponential(rf).rsample((5,))
    xt = torch.from_numpy(_np(xf * rf)) / rt
    for a, b in zip(facade.autograd.grad(f(xf), rf), torch.autograd.grad(f(xt), rt)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9)
    ht, hf = _leaf([1.0, 3.0])
    xf = FD.Uniform(lf, hf).rsample((5,))
    u = torch.from_numpy(_np((xf - lf) / (hf - lf)))
    xt = lt + u * (ht - lt)
    for a, b in zip(facade.autograd.grad(f(xf), (lf, hf)), torch.autograd.grad(f(xt), (lt, ht))):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9)
    Lt, Lf = _leaf([[1.5, 0.0], [0.3, 0.7]])
    xf = FD.MultivariateNormal(lf, scale_tril=Lf).rsample((6,))
    eps = torch.linalg.solve_triangular(torch.from_numpy(_np(Lf)), torch.from_numpy(_np(xf - lf)).T, upper=False).T
    xt = lt + eps @ Lt.T
    for a, b in zip(facade.autograd.grad(f(xf), (lf, Lf)), torch.autograd.grad(f(xt), (lt, Lt))):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_gamma_rsample_gradient_is_torchs_implicit_gradient(dtype):
    """d sample / d concentration equals torch._standard_gamma_grad at the same sample; the rate enters as
    x / rate. Both libraries approximate the implicit gradient (torch: series/asymptotic expansions, jax: its
    own), so they agree to about 1e-4 relative, not to the last bit."""
    fdt = getattr(facade, str(dtype).split(".")[1])
    alpha = [0.3, 1.0, 2.5, 8.0]
    af = facade.tensor(alpha, dtype=fdt, requires_grad=True)
    rf = facade.tensor(2.0, dtype=fdt, requires_grad=True)
    x = FD.Gamma(af, rf).rsample()
    ga, gr = facade.autograd.grad(x.sum(), (af, rf))
    xt = torch.from_numpy(_np(x)) * 2.0
    ref = torch._standard_gamma_grad(torch.tensor(alpha, dtype=dtype), xt) / 2.0
    np.testing.assert_allclose(_np(ga), _np(ref), rtol=1e-3)
    np.testing.assert_allclose(gr.item(), -(xt / 4.0).sum().item(), rtol=1e-5)


@pytest.mark.parametrize("name", ["Beta", "Dirichlet"])
def test_simplex_rsample_gradient_matches_expectation(name):
    """grad of E[x_0^2] by many reparameterised samples against torch's analytic gradient of E[x_0^2]."""
    facade.manual_seed(1)
    conc = [1.5, 2.0, 3.0] if name == "Dirichlet" else [1.5, 2.0]
    ct, cf = _leaf(conc)
    d = FD.Dirichlet(cf) if name == "Dirichlet" else FD.Beta(cf[0], cf[1])
    x = d.rsample((40000,))
    x0 = x[:, 0] if name == "Dirichlet" else x
    (g,) = facade.autograd.grad((x0**2).mean(), cf)
    a, total = ct[0], ct.sum()
    (ref,) = torch.autograd.grad(a * (a + 1) / (total * (total + 1)), ct)
    np.testing.assert_allclose(_np(g), _np(ref), atol=0.01)


KL_PAIRS = [("Normal", "Laplace"), ("Laplace", "Normal"), ("Normal", "Gumbel"), ("Gamma", "Normal"),
            ("Exponential", "Gamma"), ("Gamma", "Exponential"), ("Beta", "Normal"), ("Beta", "Gamma"),
            ("Beta", "Exponential"), ("Uniform", "Normal"), ("Uniform", "Gamma"), ("Uniform", "Gumbel"),
            ("Normal", "Uniform"), ("Exponential", "Normal"), ("Laplace", "Gamma"), ("Gumbel", "Normal"),
            ("Bernoulli", "Poisson")]
SAME = ["Normal", "Laplace", "Cauchy", "Gumbel", "Exponential", "Gamma", "Beta", "Dirichlet", "Uniform",
        "Bernoulli", "Categorical", "OneHotCategorical", "MultivariateNormal", "Poisson", "Geometric", "HalfNormal",
        "LogNormal", "Independent", "Chi2"]
_OTHER = {  # a second member of each family, for KL(p || q) within it
    "Normal": lambda D, t: D.Normal(t([1.0, 0.0]), t([1.5, 0.7])),
    "Laplace": lambda D, t: D.Laplace(t([1.0, 0.0]), t([1.5, 0.7])),
    "Cauchy": lambda D, t: D.Cauchy(t([1.0, 0.0]), t([1.5, 0.7])),
    "Gumbel": lambda D, t: D.Gumbel(t([1.0, 0.0]), t([1.5, 0.7])),
    "Exponential": lambda D, t: D.Exponential(t([1.5, 0.3])),
    "Gamma": lambda D, t: D.Gamma(t([2.0, 1.0]), t([1.0, 2.0])),
    "Chi2": lambda D, t: D.Chi2(t([3.0, 1.0])),
    "Beta": lambda D, t: D.Beta(t([2.0, 1.0]), t([1.0, 0.5])),
    "Dirichlet": lambda D, t: D.Dirichlet(t([[1.0, 1.0, 1.0], [0.5, 2.0, 1.0]])),
    "Uniform": lambda D, t: D.Uniform(t([-0.5, -2.0]), t([1.0, 2.5])),  # covers p: finite KL
    "Bernoulli": lambda D, t: D.Bernoulli(probs=t([0.5, 0.0])),  # q = 0 where p > 0: inf
    "Categorical": lambda D, t: D.Categorical(probs=t([[0.3, 0.3, 0.4], [0.5, 0.5, 0.0]])),
    "OneHotCategorical": lambda D, t: D.OneHotCategorical(probs=t([[0.3, 0.3, 0.4], [0.5, 0.2, 0.3]])),
    "MultivariateNormal": lambda D, t: D.MultivariateNormal(t([0.5, 0.0]), scale_tril=t([[1.0, 0.0], [-0.4, 2.0]])),
    "Poisson": lambda D, t: D.Poisson(t([1.0, 2.0])),
    "Geometric": lambda D, t: D.Geometric(probs=t([0.5, 0.2])),
    "HalfNormal": lambda D, t: D.HalfNormal(t([1.0, 0.5])),
    "LogNormal": lambda D, t: D.LogNormal(t([1.0, 0.0]), t([1.5, 0.7])),
    "Independent": lambda D, t: D.Independent(D.Normal(t([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]]), t(0.5)), 1),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_kl_divergence_matches_torch(dtype):
    pairs = [(CASES[n][0], _OTHER[n]) for n in SAME] + [(CASES[p][0], CASES[q][0]) for p, q in KL_PAIRS]
    pairs += [(_OTHER["Uniform"], CASES["Uniform"][0]), (CASES["Bernoulli"][0], CASES["Bernoulli_logits"][0])]
    for make_p, make_q in pairs:
        (pf, pt), (qf, qt) = _both(make_p, dtype), _both(make_q, dtype)
        _close(FD.kl_divergence(pf, qf), TD.kl_divergence(pt, qt), dtype)


def test_kl_errors_and_dispatch():
    with pytest.raises(NotImplementedError) as ref:
        TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Categorical(torch.ones(2)))
    with pytest.raises(NotImplementedError) as got:
        FD.kl_divergence(FD.Normal(0.0, 1.0), FD.Categorical(facade.ones(2)))
    assert str(got.value) == str(ref.value)
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        FD.register_kl(int, FD.Normal)

    for D, t in ((TD, torch), (FD, facade)):
        _dispatch_scenario(D, t)


def _dispatch_scenario(D, t):
    """The most specific registered pair wins; when the left and right orders disagree, torch's warning."""
    class MyNormal(D.Normal):
        pass

    class MyLaplace(D.Laplace):
        pass

    try:
        D.register_kl(MyNormal, D.Normal)(lambda p, q: "special")
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 2.0)) == "special"
        assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 2.0)).item() > 0
        D.register_kl(MyNormal, D.Laplace)(lambda p, q: "left")
        D.register_kl(D.Normal, MyLaplace)(lambda p, q: "right")
        with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(MyNormal, MyLaplace\)\. Please "
                                                r"register_kl\(MyNormal, MyLaplace\)"):
            assert D.kl_divergence(MyNormal(0.0, 1.0), MyLaplace(0.0, 1.0)) == "left"
        D.register_kl(MyNormal, MyLaplace)(lambda p, q: "tie broken")
        assert D.kl_divergence(MyNormal(0.0, 1.0), MyLaplace(0.0, 1.0)) == "tie broken"
    finally:
        for key in [k for k in D.kl._KL_REGISTRY if MyNormal in k or MyLaplace in k]:
            del D.kl._KL_REGISTRY[key]
        D.kl._KL_MEMOIZE.clear()


def _errors(make):
    with pytest.raises(Exception) as ref:
        make(TD, torch)
    with pytest.raises(type(ref.value)) as got:
        make(FD, facade)
    assert str(got.value) == str(ref.value)


@pytest.mark.parametrize("case", [
    lambda D, t: D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, -1.0])),
    lambda D, t: D.Uniform(t.tensor([0.0, 2.0]), t.tensor([1.0, 1.0])),
    lambda D, t: D.Beta(t.tensor([0.5]), t.tensor([0.0])),
    lambda D, t: D.Dirichlet(t.tensor(1.0)),
    lambda D, t: D.Categorical(probs=t.tensor([0.5, 0.5]), logits=t.tensor([0.0, 0.0])),
    lambda D, t: D.Categorical(probs=t.tensor([-0.5, 1.5])),
    lambda D, t: D.Bernoulli(probs=t.tensor([1.5])),
    lambda D, t: D.MultivariateNormal(t.zeros(2), covariance_matrix=t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda D, t: D.MultivariateNormal(t.zeros(2)),
    lambda D, t: D.Independent(D.Normal(t.zeros(2), 1.0), 2),
    lambda D, t: D.Exponential(t.tensor([1.0])).log_prob(t.tensor([-1.0])),
    lambda D, t: D.Normal(t.zeros(3), 1.0).log_prob(t.zeros(4)),
    lambda D, t: D.Normal(t.zeros(3), 1.0).log_prob(1.0),
    lambda D, t: D.Dirichlet(t.ones(3)).log_prob(t.ones(2)),
    lambda D, t: D.Categorical(t.ones(3)).log_prob(t.tensor([3])),
    lambda D, t: D.Bernoulli(t.tensor(0.3)).log_prob(t.tensor(0.5)),
    lambda D, t: D.TransformedDistribution(D.Normal(0.0, 1.0), "exp"),
    lambda D, t: D.Distribution.set_default_validate_args(3),
    lambda D, t: D.kl_divergence(D.MultivariateNormal(t.zeros(2), t.eye(2)),
                                 D.MultivariateNormal(t.zeros(3), t.eye(3))),
], ids=lambda c: "")
def test_validation_errors_match_torch(case):
    _errors(case)


def test_set_default_validate_args():
    bad = facade.tensor([-1.0])
    try:
        FD.Distribution.set_default_validate_args(False)
        assert FD.Normal(facade.zeros(1), bad).scale.item() == -1.0  # no check
        assert FD.Exponential(1.0).log_prob(bad).item() == 1.0  # log(1) - 1 * (-1)
    finally:
        FD.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="to satisfy the constraint GreaterThan"):
        FD.Normal(facade.zeros(1), bad)
    assert FD.Normal(facade.zeros(1), bad, validate_args=False).scale.item() == -1.0


def test_probs_logits_parametrisations():
    p = [[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]
    for D, t in ((TD, torch.tensor), (FD, facade.tensor)):
        c = D.Categorical(probs=t(p))
        assert "logits" not in c.__dict__
        assert c.logits is c.__dict__["logits"]  # computed lazily, then cached
    got, ref = FD.Categorical(logits=facade.tensor(p).log() + 3.0), TD.Categorical(logits=torch.tensor(p).log() + 3.0)
    _close(got.probs, ref.probs)
    _close(got.logits, ref.logits)
    _close(FD.Bernoulli(logits=facade.tensor([0.5])).probs, TD.Bernoulli(logits=torch.tensor([0.5])).probs)
    _close(FD.Bernoulli(probs=facade.tensor([0.0, 0.3])).logits, TD.Bernoulli(probs=torch.tensor([0.0, 0.3])).logits)
    assert FD.Categorical(facade.ones(2, 3)).enumerate_support().tolist() == \
        TD.Categorical(torch.ones(2, 3)).enumerate_support().tolist()


TRANSFORMS = [
    lambda D, t: D.ExpTransform(), lambda D, t: D.SigmoidTransform(), lambda D, t: D.TanhTransform(),
    lambda D, t: D.SoftplusTransform(), lambda D, t: D.AffineTransform(t([1.0, -2.0]), t([0.5, 3.0])),
    lambda D, t: D.PowerTransform(t(2.0)), lambda D, t: D.ExpTransform().inv,
    lambda D, t: D.ComposeTransform([D.TanhTransform(), D.AffineTransform(1.0, -2.0)]),
    lambda D, t: D.IndependentTransform(D.ExpTransform(), 1), lambda D, t: D.StickBreakingTransform(),
    lambda D, t: D.SoftmaxTransform(), lambda D, t: D.ReshapeTransform((2,), (2, 1)),
    lambda D, t: D.AffineTransform(0.5, t([[1.0, 2.0]]), event_dim=1),
]


@pytest.mark.parametrize("i", range(len(TRANSFORMS)))
def test_transforms_match_torch(i):
    got, ref = _both(TRANSFORMS[i], torch.float64)
    xt = torch.tensor([[0.3, 0.7], [1.2, 0.4]], dtype=torch.float64)
    xf = facade.tensor(xt.numpy())
    _close(got(xf), ref(xt), torch.float64)
    yt, yf = ref(xt), got(xf)
    _close(got.inv(yf), ref.inv(yt), torch.float64)
    r, rerr = _call(lambda: ref.log_abs_det_jacobian(xt, yt))
    g, gerr = _call(lambda: got.log_abs_det_jacobian(xf, yf))
    assert type(gerr) is type(rerr)
    if rerr is None:
        _close(g, r, torch.float64)
    assert repr(got) == repr(ref) and got.bijective == ref.bijective
    assert repr(got.domain) == repr(ref.domain) and repr(got.codomain) == repr(ref.codomain)
    assert got.forward_shape((2, 2)) == ref.forward_shape((2, 2))
    cached = got.with_cache(1) if not isinstance(got, FD.transforms._InverseTransform) else got.inv.with_cache(1)
    y = cached(xf)
    assert cached.inv(y) is xf


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "boolean", "nonnegative_integer",
               "positive_integer", "real_vector", "lower_cholesky", "lower_triangular", "positive_definite",
               "positive_semidefinite", "symmetric", "square", "corr_cholesky", "one_hot"]


def test_constraints_and_registries_match_torch():
    values = [[[1.0, 0.0], [0.5, 2.0]], [[0.5, 0.5], [0.5, 0.5]], [[-1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]]
    xt = torch.tensor(values, dtype=torch.float64)
    xf = facade.tensor(xt.numpy())
    for name in CONSTRAINTS:
        cf, ct = getattr(FD.constraints, name), getattr(TD.constraints, name)
        assert repr(cf) == repr(ct) and cf.event_dim == ct.event_dim and cf.is_discrete == ct.is_discrete
        assert _np(cf.check(xf)).tolist() == ct.check(xt).tolist(), name
    for make in (lambda C: C.interval(-1.0, 2.0), lambda C: C.greater_than(1.5), lambda C: C.less_than(0.5),
                 lambda C: C.half_open_interval(0.0, 1.0), lambda C: C.integer_interval(0, 1),
                 lambda C: C.independent(C.positive, 2), lambda C: C.greater_than_eq(0.5)):
        cf, ct = make(FD.constraints), make(TD.constraints)
        assert repr(cf) == repr(ct) and _np(cf.check(xf)).tolist() == ct.check(xt).tolist()
        if not ct.is_discrete:
            for registry in ("biject_to", "transform_to"):
                tf, tt = getattr(FD, registry)(cf), getattr(TD, registry)(ct)
                assert repr(tf) == repr(tt)
                _close(tf(xf), tt(xt), torch.float64)
    for registry in ("biject_to", "transform_to"):
        for name in ("simplex", "real", "positive", "unit_interval", "real_vector"):
            r = getattr(TD, registry)(getattr(TD.constraints, name))
            g = getattr(FD, registry)(getattr(FD.constraints, name))
            assert repr(g) == repr(r)
            _close(g(xf), r(xt), torch.float64)
    assert FD.constraints.is_dependent(FD.Uniform.support) and not FD.constraints.is_dependent(FD.constraints.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        FD.constraints.dependent.check(xf)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        FD.biject_to(FD.constraints.boolean)


def test_compiled_function_using_a_distribution():
    def step(loc, scale, x):
        d = FD.Normal(loc, scale)
        sample = d.rsample((4,))
        return d.log_prob(x), sample, (sample**2).mean() - d.entropy().sum()

    compiled = facade.compile(step, fullgraph=True)
    loc = facade.tensor([0.0, 1.0], requires_grad=True)
    scale = facade.tensor([1.0, 2.0], requires_grad=True)
    x = facade.tensor([0.5, -0.5])
    lp, sample, loss = compiled(loc, scale, x)
    ref = TD.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])).log_prob(torch.tensor([0.5, -0.5]))
    _close(lp, ref)
    assert tuple(sample.shape) == (4, 2)
    loss.backward()  # the reparameterised gradient of the compiled step: d/dloc mean(x^2) = 2 mean(x) / 4 ...
    eps = (sample.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(_np(loc.grad), _np(2 * sample.detach().sum(0) / 8), rtol=1e-5)
    np.testing.assert_allclose(_np(scale.grad), _np(2 * (sample.detach() * eps).sum(0) / 8 - 1 / scale.detach()),
                               rtol=1e-5)
    lp2, sample2, _ = compiled(loc, scale, x)  # a fresh draw on the next call
    assert not facade.equal(sample2, sample)

    def gamma_step(alpha):
        return FD.Gamma(alpha, 1.0).rsample((3,)).sum()

    out = facade.compile(gamma_step, fullgraph=True)(facade.tensor([1.0, 2.0]))
    assert out.ndim == 0 and out.item() > 0


def test_undelivered_names_raise_not_implemented():
    for name in ("Wishart", "LowRankMultivariateNormal", "CatTransform"):
        with pytest.raises(NotImplementedError, match=rf"torch\.distributions\.{name}"):
            getattr(FD, name)()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isfinite(FD.Normal(0.0, 1.0).log_prob(facade.tensor(0.0)).item())
