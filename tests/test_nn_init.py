"""torch.nn.init against real torch: exact results for the deterministic initialisers, fan and gain rules
and errors; distributions (mean, std, bounds over many draws) for the random ones, which follow torch's
laws but not its bit streams."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import facade

from ._compare import host
from .test_nn_module import both

SHAPES = [(6, 5), (4, 3, 2), (3, 2, 3, 2), (2, 4, 1, 2, 3)]


@pytest.mark.parametrize("name", ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                  "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"])
def test_calculate_gain(name):
    both(lambda lib: lib.nn.init.calculate_gain(name))
    both(lambda lib: lib.nn.init.calculate_gain(name, 0.2))


def test_calculate_gain_errors():
    for args in (("softmax",), ("leaky_relu", True), ("leaky_relu", "0.1"), ("leaky_relu", 3)):
        both(lambda lib, args=args: lib.nn.init.calculate_gain(*args))
    assert both(lambda lib: lib.nn.init.calculate_gain("gelu"))[2] == "Unsupported nonlinearity gelu"


@pytest.mark.parametrize("shape", [(3,), (), *SHAPES, (0, 4)])
def test_fans(shape):
    def run(lib):
        t = lib.empty(shape)
        init = lib.nn.init
        return init._calculate_fan_in_and_fan_out(t), init._calculate_correct_fan(t, "fan_in"), \
            init._calculate_correct_fan(t, "FAN_OUT")

    r = both(run)
    if len(shape) < 2:
        assert r[2] == "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    both(lambda lib: lib.nn.init._calculate_correct_fan(lib.empty(2, 2), "fan_avg"))


def test_deterministic_fills():
    def run(lib):
        init = lib.nn.init
        p = lib.nn.Parameter(lib.empty(3, 4))
        out = [init.constant_(p, 0.25) is p, p.clone(), init.ones_(p).clone(), init.zeros_(p).clone(),
               init.eye_(p) is p, p.clone(), init.eye_(lib.empty(4, 2)), p.is_leaf, p.requires_grad, p.grad_fn,
               init.constant_(lib.empty(2, dtype=lib.int64), 3), init.eye_(lib.empty(2, 2, dtype=lib.float64))]
        return out

    both(run)
    both(lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2)))


@pytest.mark.parametrize("shape,groups", [((4, 2, 3), 1), ((4, 2, 3), 2), ((6, 4, 3, 3), 1), ((6, 3, 3, 2), 3),
                                          ((2, 3, 3, 3, 3), 1), ((3, 5, 2, 2, 2), 1)])
def test_dirac(shape, groups):
    both(lambda lib: lib.nn.init.dirac_(lib.nn.Parameter(lib.empty(shape)), groups))


def test_dirac_errors():
    both(lambda lib: lib.nn.init.dirac_(lib.empty(2, 2)))
    both(lambda lib: lib.nn.init.dirac_(lib.empty(3, 2, 2), groups=2))


def _stats(lib, fn, shape, draws=4):
    vals = []
    for i in range(draws):
        lib.manual_seed(i)
        t = lib.nn.Parameter(lib.empty(shape))
        r = fn(lib, t)
        assert r is t and t.is_leaf and t.requires_grad
        vals.append(host(t).ravel())
    return np.concatenate(vals)


_XU = 1.5 * (6 / (20 * 9 + 50 * 9)) ** 0.5
_KU = (2 / (1 + 5)) ** 0.5 * (3 / (20 * 9)) ** 0.5
_KR = (2 * 3 / 100) ** 0.5
RANDOM = {  # name: (init, shape, (low, high) bounds of the law or None)
    "uniform": (lambda lib, t: lib.nn.init.uniform_(t, -0.5, 2.0), (100, 100), (-0.5, 2.0)),
    "uniform_default": (lambda lib, t: lib.nn.init.uniform_(t), (100, 100), (0.0, 1.0)),
    "normal": (lambda lib, t: lib.nn.init.normal_(t, 1.0, 0.3), (100, 100), None),
    "trunc_normal": (lambda lib, t: lib.nn.init.trunc_normal_(t), (100, 100), (-2.0, 2.0)),
    "trunc_normal_narrow": (lambda lib, t: lib.nn.init.trunc_normal_(t, 0.5, 2.0, a=0.0, b=1.0), (100, 100),
                            (0.0, 1.0)),
    "trunc_normal_one_sided": (lambda lib, t: lib.nn.init.trunc_normal_(t, std=0.02, a=0.0, b=0.1), (100, 100),
                               (0.0, 0.1)),
    "xavier_uniform": (lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=1.5), (50, 20, 3, 3), (-_XU, _XU)),
    "xavier_normal": (lambda lib, t: lib.nn.init.xavier_normal_(t), (50, 20, 3, 3), None),
    "kaiming_uniform": (lambda lib, t: lib.nn.init.kaiming_uniform_(t, a=5 ** 0.5), (50, 20, 3, 3), (-_KU, _KU)),
    "kaiming_uniform_relu_out": (lambda lib, t: lib.nn.init.kaiming_uniform_(t, mode="fan_out",
                                                                             nonlinearity="relu"), (100, 100),
                                 (-_KR, _KR)),
    "kaiming_normal": (lambda lib, t: lib.nn.init.kaiming_normal_(t), (100, 100), None),
    "kaiming_normal_tanh": (lambda lib, t: lib.nn.init.kaiming_normal_(t, nonlinearity="tanh"), (50, 20, 3, 3),
                            None),
    "orthogonal": (lambda lib, t: lib.nn.init.orthogonal_(t, gain=2.0), (100, 100), None),
    "orthogonal_wide": (lambda lib, t: lib.nn.init.orthogonal_(t), (50, 20, 3, 3), None),
    "sparse": (lambda lib, t: lib.nn.init.sparse_(t, 0.3, std=0.5), (100, 100), None),
}


@pytest.mark.parametrize("name", list(RANDOM))
def test_distribution_matches_torch(name):
    fn, shape, bounds = RANDOM[name]
    t, f = _stats(torch, fn, shape), _stats(facade, fn, shape)
    sd = t.std()
    assert abs(f.mean() - t.mean()) <= 0.03 * sd + 1e-6, (f.mean(), t.mean())
    assert abs(f.std() - sd) <= 0.03 * sd, (f.std(), sd)
    if bounds is not None:
        lo, hi = bounds
        for x in (t, f):  # the law's support, reached at both ends
            assert lo - 1e-6 <= x.min() <= lo + 0.01 * (hi - lo) or lo < t.mean() - 4 * sd, (x.min(), lo)
            assert hi - 0.01 * (hi - lo) <= x.max() <= hi + 1e-6 or hi > t.mean() + 4 * sd, (x.max(), hi)
    for q in (0.05, 0.25, 0.5, 0.75, 0.95):
        assert abs(np.quantile(f, q) - np.quantile(t, q)) <= 0.05 * sd, q
    assert np.mean(f == 0) == pytest.approx(np.mean(t == 0), abs=1e-3)


@pytest.mark.parametrize("shape", [(5, 3), (2, 2, 3)])
def test_orthogonal_is_orthogonal(shape):
    t = facade.nn.init.orthogonal_(facade.empty(shape), gain=3.0)
    m = host(t).reshape(shape[0], -1)
    gram = m @ m.T if shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 9.0 * np.eye(len(gram)), atol=1e-4)


def test_sparse_zeros_per_column():
    t = host(facade.nn.init.sparse_(facade.empty(100, 100), 0.255))
    assert ((t == 0).sum(0) == 26).all()


def test_generator_and_seed_reproducible():
    for fn in (lambda t, g: facade.nn.init.uniform_(t, generator=g),
               lambda t, g: facade.nn.init.normal_(t, generator=g),
               lambda t, g: facade.nn.init.xavier_normal_(t, generator=g),
               lambda t, g: facade.nn.init.kaiming_uniform_(t, generator=g),
               lambda t, g: facade.nn.init.trunc_normal_(t, generator=g),
               lambda t, g: facade.nn.init.orthogonal_(t, generator=g),
               lambda t, g: facade.nn.init.sparse_(t, 0.5, generator=g)):
        a, b = facade.empty(100, 100), facade.empty(100, 100)
        fn(a, facade.Generator().manual_seed(3))
        fn(b, facade.Generator().manual_seed(3))
        np.testing.assert_array_equal(host(a), host(b))
        c = facade.empty(100, 100)
        fn(c, facade.Generator().manual_seed(4))
        assert not np.array_equal(host(a), host(c))


def test_random_errors_and_warnings():
    both(lambda lib: lib.nn.init.orthogonal_(lib.empty(3)))
    both(lambda lib: lib.nn.init.sparse_(lib.empty(3, 2, 2), 0.1))
    both(lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)))
    both(lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode="bad"))
    both(lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 3), nonlinearity="bad"))
    both(lambda lib: lib.nn.init.orthogonal_(lib.empty(0, 3)))

    def warned(lib, call):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call(lib)
        return [(x.category.__name__, str(x.message)) for x in w]

    both(lambda lib: warned(lib, lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(0, 3))))
    both(lambda lib: warned(lib, lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 0))))
    both(lambda lib: warned(lib, lambda lib: lib.nn.init.trunc_normal_(lib.empty(3), mean=5.0, a=-1.0, b=1.0)))
    both(lambda lib: warned(lib, lambda lib: lib.nn.init.normal(lib.empty(3))))
    both(lambda lib: warned(lib, lambda lib: lib.nn.init.xavier_uniform(lib.empty(3, 3))))


def test_public_names_match_torch():
    assert sorted(facade.nn.init.__all__) == sorted(torch.nn.init.__all__)
    import inspect

    for name in torch.nn.init.__all__:
        if name.endswith("_") or name == "calculate_gain":
            ts = inspect.signature(getattr(torch.nn.init, name))
            fs = inspect.signature(getattr(facade.nn.init, name))
            assert [(p.name, p.default) for p in fs.parameters.values()] == \
                [(p.name, p.default) for p in ts.parameters.values()], name
