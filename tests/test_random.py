"""Random numbers. Values cannot equal torch's bit for bit, so this checks what can be equal: seeding and
state round trips (determinism), distributions (moments on 10k samples), ranges, dtypes, shapes and devices
(against torch), and errors (type and message against torch)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import facade

from ._compare import same

N = 10_000


def vals(t):
    return np.asarray(t.tolist(), dtype=np.float64)


# ---------------------------------------------------------------------------- generators and seeds

def test_manual_seed_determinism():
    facade.manual_seed(0)
    a = facade.rand(5)
    b = facade.randn(3, dtype=facade.float64)
    facade.manual_seed(0)
    assert facade.rand(5).tolist() == a.tolist()
    assert facade.randn(3, dtype=facade.float64).tolist() == b.tolist()
    facade.manual_seed(1)
    assert facade.rand(5).tolist() != a.tolist()


def test_successive_draws_differ():
    facade.manual_seed(0)
    assert facade.rand(5).tolist() != facade.rand(5).tolist()


def test_manual_seed_returns_default_generator():
    g = facade.manual_seed(3)
    assert g is facade.default_generator and isinstance(g, facade.Generator)
    assert facade.initial_seed() == 3 == torch.manual_seed(3).initial_seed()


@pytest.mark.parametrize("seed", [0, 1.5, -1, 2**64 - 1, -(2**63), 2**64, -(2**63) - 1, "a", "7"])
def test_manual_seed_values(seed):
    same(lambda t: t.manual_seed(seed).initial_seed())
    same(lambda t: t.Generator().manual_seed(seed).initial_seed() if not isinstance(seed, str) else 0)


def test_default_initial_seed():
    assert facade.Generator().initial_seed() == torch.Generator().initial_seed()


def test_seed():
    s = facade.seed()
    assert isinstance(s, int) and facade.initial_seed() == s
    g = facade.Generator()
    s2 = g.seed()
    assert g.initial_seed() == s2


def test_generator_device_and_chaining():
    same(lambda t: t.Generator().device)
    same(lambda t: t.Generator("cpu").manual_seed(2).initial_seed())
    g = facade.Generator()
    assert g.manual_seed(1) is g
    same(lambda t: t.Generator("meta"))


def test_get_set_state_round_trip():
    g = facade.Generator().manual_seed(5)
    state = g.get_state()
    same(lambda t: t.Generator().get_state().dtype)
    same(lambda t: t.Generator().get_state().ndim)
    a = facade.rand(4, generator=g)
    g.set_state(state)
    assert facade.rand(4, generator=g).tolist() == a.tolist()
    assert g.initial_seed() == 5


def test_rng_state_round_trip():
    facade.manual_seed(11)
    facade.rand(3)
    state = facade.get_rng_state()
    a = facade.randn(6)
    b = facade.randint(0, 100, (6,))
    facade.set_rng_state(state)
    assert facade.randn(6).tolist() == a.tolist()
    assert facade.randint(0, 100, (6,)).tolist() == b.tolist()
    # the state is a copy: drawing does not change a state already taken
    assert facade.get_rng_state().tolist() != state.tolist()


@pytest.mark.parametrize("fn", [
    lambda t: t.Generator().set_state(t.zeros(3)),
    lambda t: t.Generator().set_state([1, 2]),
    lambda t: t.set_rng_state(t.zeros(3)),
])
def test_set_state_errors(fn):
    same(fn)


def test_set_state_wrong_size():
    same(lambda t: t.Generator().set_state(t.zeros(3, dtype=t.uint8)), message=False)


def test_generator_streams_are_independent():
    g1, g2 = facade.Generator().manual_seed(7), facade.Generator().manual_seed(7)
    facade.manual_seed(0)
    before = facade.get_rng_state().tolist()
    a = facade.rand(5, generator=g1)
    assert facade.get_rng_state().tolist() == before  # the default generator did not move
    assert facade.rand(5, generator=g2).tolist() == a.tolist()


def test_fork_rng():
    facade.manual_seed(4)
    with facade.random.fork_rng():
        inside = facade.rand(3)
    assert facade.rand(3).tolist() == inside.tolist()
    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"):
        assert hasattr(facade.random, name) and hasattr(torch.random, name)


def test_generator_kwarg_everywhere():
    def draws(g):
        p = facade.tensor([0.2, 0.3, 0.5])
        x = facade.zeros(4)
        return [facade.rand(3, generator=g), facade.randn(3, generator=g), facade.randint(5, (3,), generator=g),
                facade.randperm(6, generator=g), facade.normal(0.0, 1.0, (3,), generator=g),
                facade.normal(facade.zeros(3), 1.0, generator=g), facade.bernoulli(p, generator=g),
                facade.multinomial(p, 2, generator=g), facade.poisson(facade.ones(3), generator=g),
                facade.rand_like(x, generator=g) if _has_like_generator() else x,
                x.clone().uniform_(generator=g), x.clone().normal_(generator=g), x.clone().random_(generator=g),
                x.clone().exponential_(generator=g), x.clone().bernoulli_(0.5, generator=g)]

    a = draws(facade.Generator().manual_seed(9))
    b = draws(facade.Generator().manual_seed(9))
    assert [t.tolist() for t in a] == [t.tolist() for t in b]


def _has_like_generator():
    try:
        torch.rand_like(torch.zeros(1), generator=torch.Generator())
    except TypeError:
        return False
    return True


# ---------------------------------------------------------------------------- dtypes, shapes, devices, errors

CASES = {
    "rand": lambda t: t.rand(2, 3),
    "rand_tuple": lambda t: t.rand((2, 3)),
    "rand_size_kw": lambda t: t.rand(size=(2,)),
    "rand_0d": lambda t: t.rand(()),
    "rand_empty": lambda t: t.rand(0, 3),
    "rand_f64": lambda t: t.rand(2, dtype=t.float64),
    "rand_f16": lambda t: t.rand(2, dtype=t.float16),
    "rand_bf16": lambda t: t.rand(2, dtype=t.bfloat16),
    "rand_c64": lambda t: t.rand(2, dtype=t.complex64),
    "rand_rg": lambda t: t.rand(2, requires_grad=True),
    "rand_meta": lambda t: t.rand(2, device="meta"),
    "rand_int": lambda t: t.rand(2, dtype=t.int64),
    "rand_neg": lambda t: t.rand(2, -1),
    "rand_gen_positional": lambda t: t.rand(2, t.Generator()),
    "randn": lambda t: t.randn(4),
    "randn_c128": lambda t: t.randn(2, dtype=t.complex128),
    "randn_int": lambda t: t.randn(2, dtype=t.int64),
    "randn_neg": lambda t: t.randn(-1),
    "randint": lambda t: t.randint(5, (3,)),
    "randint_low_high": lambda t: t.randint(2, 5, (3, 2)),
    "randint_size_kw": lambda t: t.randint(2, 5, size=(3,)),
    "randint_high_kw": lambda t: t.randint(high=5, size=(3,)),
    "randint_low_high_kw": lambda t: t.randint(low=1, high=5, size=(3,)),
    "randint_dtype_float": lambda t: t.randint(5, (3,), dtype=t.float32),
    "randint_bool": lambda t: t.randint(2, (3,), dtype=t.bool),
    "randint_i8": lambda t: t.randint(-100, 100, (3,), dtype=t.int8),
    "randint_bad_range": lambda t: t.randint(5, 2, (3,)),
    "randint_empty_range": lambda t: t.randint(0, (3,)),
    "randint_int_size": lambda t: t.randint(5, 3),
    "randint_u8_out_of_bounds": lambda t: t.randint(0, 300, (3,), dtype=t.uint8),
    "randint_i8_low_out_of_bounds": lambda t: t.randint(-200, 5, (3,), dtype=t.int8),
    "randint_i32_out_of_bounds": lambda t: t.randint(0, 2**40, (3,), dtype=t.int32),
    "randint_i16_out_of_bounds": lambda t: t.randint(0, 2**20, (3,), dtype=t.int16),
    "randint_f16_out_of_bounds": lambda t: t.randint(0, 2**20, (3,), dtype=t.float16),
    "randint_i64_overflow": lambda t: t.randint(0, 2**63, (3,)),
    "randint_neg_size": lambda t: t.randint(3, (-1,)),
    "randperm": lambda t: t.randperm(5),
    "randperm_f32": lambda t: t.randperm(5, dtype=t.float32),
    "randperm_0": lambda t: t.randperm(0),
    "randperm_neg": lambda t: t.randperm(-1),
    "randperm_bool": lambda t: t.randperm(3, dtype=t.bool),
    "randperm_f16_too_big": lambda t: t.randperm(3000, dtype=t.float16),
    "rand_like": lambda t: t.rand_like(t.ones(2, dtype=t.float64)),
    "rand_like_rg_source": lambda t: t.rand_like(t.ones(2, requires_grad=True)),
    "rand_like_int": lambda t: t.rand_like(t.ones(2, dtype=t.int64)),
    "randn_like": lambda t: t.randn_like(t.ones(2, 3, dtype=t.float16)),
    "randn_like_bool": lambda t: t.randn_like(t.ones(2, dtype=t.bool)),
    "randint_like": lambda t: t.randint_like(t.ones(2), 5),
    "randint_like_low_high": lambda t: t.randint_like(t.ones(2), 3, 5),
    "randint_like_int": lambda t: t.randint_like(t.ones(2, dtype=t.int32), 5),
    "randint_like_meta": lambda t: t.randint_like(t.ones(2, device="meta"), 5),
    "normal_tt": lambda t: t.normal(t.zeros(3), t.ones(3)),
    "normal_tf": lambda t: t.normal(t.zeros(3), 1.0),
    "normal_t_default_std": lambda t: t.normal(t.zeros(2, 2)),
    "normal_ft": lambda t: t.normal(0.0, t.ones(3)),
    "normal_ff": lambda t: t.normal(0.0, 1.0, (3,)),
    "normal_ff_size_kw": lambda t: t.normal(0.0, 1.0, size=(3,)),
    "normal_ff_list": lambda t: t.normal(2, 1, [3]),
    "normal_ff_dtype": lambda t: t.normal(0.0, 1.0, (3,), dtype=t.float64),
    "normal_ff_rg": lambda t: t.normal(2.0, 1.0, (3,), requires_grad=True),
    "normal_tt_broadcast": lambda t: t.normal(t.zeros(3, 1), t.ones(2)),
    "normal_tt_promote": lambda t: t.normal(t.zeros(3, dtype=t.float64), t.ones(3)),
    "normal_ft_f64": lambda t: t.normal(2.0, t.ones(3, dtype=t.float64)),
    "normal_empty": lambda t: t.normal(t.zeros(0), t.ones(0)),
    "normal_std0": lambda t: t.normal(t.zeros(3), 0.0),
    "normal_ff_nosize": lambda t: t.normal(0.0, 1.0),
    "normal_ff_int_size": lambda t: t.normal(2.0, 1.0, 3),
    "normal_int_mean": lambda t: t.normal(t.zeros(3, dtype=t.int64), 1.0),
    "normal_neg_std": lambda t: t.normal(t.zeros(3), -1.0),
    "normal_neg_std_tensor": lambda t: t.normal(t.zeros(3), -t.ones(3)),
    "normal_mismatch": lambda t: t.normal(t.zeros(3), t.ones(2)),
    "bernoulli": lambda t: t.bernoulli(t.full((3,), 0.5)),
    "bernoulli_p": lambda t: t.bernoulli(t.ones(3), 0.5),
    "bernoulli_p_kw": lambda t: t.bernoulli(t.ones(3), p=0.0),
    "bernoulli_f64": lambda t: t.bernoulli(t.ones(3, dtype=t.float64)),
    "bernoulli_f16": lambda t: t.bernoulli(t.ones(3, dtype=t.float16)),
    "bernoulli_int_p": lambda t: t.bernoulli(t.ones(3, dtype=t.int64), 0.5),
    "bernoulli_method": lambda t: t.full((2, 2), 0.3).bernoulli(),
    "bernoulli_int": lambda t: t.bernoulli(t.ones(3, dtype=t.int64)),
    "bernoulli_bool": lambda t: t.bernoulli(t.ones(3, dtype=t.bool)),
    "bernoulli_bad": lambda t: t.bernoulli(t.full((3,), 1.5)),
    "bernoulli_bad_p": lambda t: t.bernoulli(t.ones(3), 1.5),
    "multinomial": lambda t: t.multinomial(t.tensor([1.0, 2, 3]), 2),
    "multinomial_2d": lambda t: t.multinomial(t.ones(2, 4), 4),
    "multinomial_replacement": lambda t: t.multinomial(t.ones(3), 4, True),
    "multinomial_f64": lambda t: t.multinomial(t.tensor([1.0, 2], dtype=t.float64), 1),
    "multinomial_method": lambda t: t.tensor([1.0, 2]).multinomial(1),
    "multinomial_too_many": lambda t: t.multinomial(t.ones(3), 4),
    "multinomial_negative": lambda t: t.multinomial(t.tensor([1.0, -1]), 1),
    "multinomial_inf": lambda t: t.multinomial(t.tensor([1.0, float("inf")]), 1),
    "multinomial_nan": lambda t: t.multinomial(t.tensor([1.0, float("nan")]), 1),
    "multinomial_zero_sum": lambda t: t.multinomial(t.tensor([0.0, 0]), 1),
    "multinomial_zero_row": lambda t: t.multinomial(t.tensor([[1.0, 2], [0, 0]]), 1),
    "multinomial_int": lambda t: t.multinomial(t.tensor([1, 2]), 1),
    "multinomial_3d": lambda t: t.multinomial(t.ones(2, 2, 2), 1),
    "multinomial_0d": lambda t: t.multinomial(t.tensor(1.0), 1),
    "multinomial_0": lambda t: t.multinomial(t.ones(3), 0),
    "multinomial_float_n": lambda t: t.multinomial(t.tensor([1.0, 2]), 1.5),
    "poisson": lambda t: t.poisson(t.tensor([1.0, 2])),
    "poisson_f64": lambda t: t.poisson(t.tensor([1.0, 2], dtype=t.float64)),
    "poisson_int": lambda t: t.poisson(t.tensor([1, 2])),
    "poisson_neg": lambda t: t.poisson(t.tensor([-1.0, 2])),
}


@pytest.mark.parametrize("name", list(CASES))
def test_random_api(name):
    # torch names its own class in that message: torch._C.Generator
    same(CASES[name], values=False, message=name != "rand_gen_positional")


INPLACE = [("uniform_", ()), ("uniform_", (2, 3)), ("normal_", ()), ("normal_", (2, 3)), ("bernoulli_", (0.5,)),
           ("random_", ()), ("random_", (10,)), ("random_", (3, 10)), ("exponential_", ()), ("geometric_", (0.5,)),
           ("log_normal_", ()), ("cauchy_", ())]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool", "complex64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method,args", INPLACE, ids=[f"{m}{a}" for m, a in INPLACE])
def test_inplace_dtypes(method, args, dtype):
    def fn(t):
        x = t.zeros(3, dtype=getattr(t, dtype))
        r = getattr(x, method)(*args)
        assert r is x
        return x

    same(fn, values=False)


INPLACE_ERRORS = {
    "uniform_bad_range": lambda t: t.ones(3).uniform_(3, 2),
    "normal_neg_std": lambda t: t.ones(3).normal_(2, -3),
    "normal_neg_std_frac": lambda t: t.ones(3).normal_(0, -1.5),
    "bernoulli_bad": lambda t: t.ones(3).bernoulli_(1.5),
    "bernoulli_tensor_bad": lambda t: t.ones(3).bernoulli_(t.full((3,), 1.5)),
    "bernoulli_tensor_int": lambda t: t.ones(3).bernoulli_(t.full((3,), 1)),
    "bernoulli_tensor_broadcast": lambda t: t.ones(3, 2).bernoulli_(t.full((2,), 0.5)),
    "random_out_of_bounds": lambda t: t.zeros(3, dtype=t.uint8).random_(300),
    "random_bool_out_of_bounds": lambda t: t.zeros(3, dtype=t.bool).random_(0, 3),
    "random_from_none": lambda t: t.zeros(3, dtype=t.int8).random_(5, None),
    "exponential_neg": lambda t: t.ones(3).exponential_(-2.0),
    "geometric_bad": lambda t: t.ones(3).geometric_(1.5),
    "log_normal_neg": lambda t: t.ones(3).log_normal_(0, -1.5),
    "cauchy_neg": lambda t: t.ones(3).cauchy_(0, -1.5),
    "leaf_requires_grad": lambda t: t.zeros(3, requires_grad=True).uniform_(),
    "leaf_requires_grad_normal": lambda t: t.zeros(3, requires_grad=True).normal_(),
}


@pytest.mark.parametrize("name", list(INPLACE_ERRORS))
def test_inplace_errors(name):
    same(INPLACE_ERRORS[name], values=False)


def test_inplace_no_grad_on_leaf():
    w = facade.zeros(1000, requires_grad=True)
    with facade.no_grad():
        w.uniform_(-0.1, 0.1)
    assert w.requires_grad and w.is_leaf
    v = vals(w)
    assert v.min() >= -0.1 and v.max() < 0.1 and v.std() > 0.03


def test_inplace_through_views():
    x = facade.zeros(4, 3)
    x.transpose(0, 1).uniform_(5, 6)
    v = vals(x)
    assert (v >= 5).all() and (v < 6).all()
    y = facade.zeros(6)
    y.view(2, 3).normal_()
    assert (vals(y) != 0).all()
    before = x._version
    x.normal_()
    assert x._version > before


def test_inplace_numpy_backed():
    a = np.zeros(100, np.float32)
    t = facade.from_numpy(a)
    t.uniform_(1, 2)
    assert (a >= 1).all() and (a < 2).all()


def test_meta_inplace_and_factories():
    x = facade.zeros(3, device="meta")
    assert x.uniform_() is x and x.device.type == "meta"
    same(lambda t: t.randn(2, 3, device="meta"))


# ---------------------------------------------------------------------------- distributions

def moments(t):
    v = vals(t)
    return v.mean(), v.std()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rand_distribution(dtype):
    facade.manual_seed(0)
    x = facade.rand(N, dtype=getattr(facade, dtype))
    v = vals(x)
    assert v.min() >= 0 and v.max() <= 1
    m, s = moments(x)
    assert abs(m - 0.5) < 0.02 and abs(s - 12**-0.5) < 0.02


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_randn_distribution(dtype):
    facade.manual_seed(0)
    m, s = moments(facade.randn(N, dtype=getattr(facade, dtype)))
    assert abs(m) < 0.05 and abs(s - 1) < 0.05


def test_complex_distributions():
    facade.manual_seed(0)
    z = np.asarray(facade.randn(N, dtype=facade.complex64).tolist())
    assert abs(z.real.std() - 0.5**0.5) < 0.03 and abs(z.imag.std() - 0.5**0.5) < 0.03
    u = np.asarray(facade.rand(N, dtype=facade.complex64).tolist())
    assert 0 <= u.real.min() and u.real.max() < 1 and abs(u.imag.mean() - 0.5) < 0.02


def test_randint_distribution():
    facade.manual_seed(0)
    v = vals(facade.randint(-3, 7, (N,)))
    assert v.min() == -3 and v.max() == 6
    assert abs(v.mean() - 1.5) < 0.1
    counts = np.bincount((v + 3).astype(int))
    assert counts.min() > N / 10 * 0.85
    b = vals(facade.randint(2, (N,), dtype=facade.bool))
    assert abs(b.mean() - 0.5) < 0.03


def test_randperm_is_permutation():
    for n in (1, 7, 1000):
        p = vals(facade.randperm(n))
        assert sorted(p.tolist()) == list(range(n))
    assert vals(facade.randperm(1000)).tolist() != list(range(1000))


def test_normal_forms_distribution():
    facade.manual_seed(0)
    m, s = moments(facade.normal(3.0, 2.0, (N,)))
    assert abs(m - 3) < 0.1 and abs(s - 2) < 0.1
    x = facade.normal(facade.full((N,), -5.0), facade.full((N,), 0.5))
    m, s = moments(x)
    assert abs(m + 5) < 0.05 and abs(s - 0.5) < 0.05
    m, s = moments(facade.normal(facade.full((N,), 1.0)))
    assert abs(m - 1) < 0.05 and abs(s - 1) < 0.05
    m, s = moments(facade.normal(2.0, facade.full((N,), 3.0)))
    assert abs(m - 2) < 0.15 and abs(s - 3) < 0.15
    x = vals(facade.normal(facade.tensor([[0.0, 0, 0], [100, 100, 100]]), facade.tensor([[1.0], [0.0]])))
    assert x[1].tolist() == [100.0] * 3 and abs(x[0]).max() < 10


def test_normal_is_differentiable():
    mean = facade.zeros(5, requires_grad=True)
    std = facade.full((5,), 2.0, requires_grad=True)
    out = facade.normal(mean, std)
    out.sum().backward()
    assert mean.grad.tolist() == [1.0] * 5
    np.testing.assert_allclose(vals(std.grad), vals(out.detach()) / 2, rtol=1e-6)
    # the (float, Tensor) and (Tensor, float) forms
    std2 = facade.ones(3, requires_grad=True)
    facade.normal(1.0, std2).sum().backward()
    assert std2.grad is not None
    mean2 = facade.ones(3, requires_grad=True)
    facade.normal(mean2, 0.5).sum().backward()
    assert mean2.grad.tolist() == [1.0] * 3


def test_bernoulli_distribution():
    facade.manual_seed(0)
    p = facade.tensor([0.0, 0.2, 0.9, 1.0]).reshape(4, 1) * facade.ones(4, N)
    x = np.asarray(facade.bernoulli(p).tolist())
    assert set(np.unique(x)) <= {0.0, 1.0}
    np.testing.assert_allclose(x.mean(1), [0.0, 0.2, 0.9, 1.0], atol=0.02)
    assert abs(vals(facade.bernoulli(facade.zeros(N), 0.3)).mean() - 0.3) < 0.02
    y = facade.zeros(N, dtype=facade.int64).bernoulli_(0.7)
    assert y.dtype is facade.int64 and abs(vals(y).mean() - 0.7) < 0.02
    z = facade.zeros(2, N).bernoulli_(facade.tensor([[0.1], [0.6]]))
    np.testing.assert_allclose(np.asarray(z.tolist()).mean(1), [0.1, 0.6], atol=0.02)


def test_multinomial_distribution():
    facade.manual_seed(0)
    w = facade.tensor([1.0, 2.0, 3.0, 0.0])
    s = vals(facade.multinomial(w, N, replacement=True)).astype(int)
    freq = np.bincount(s, minlength=4) / N
    np.testing.assert_allclose(freq, [1 / 6, 2 / 6, 3 / 6, 0], atol=0.02)
    rows = np.asarray(facade.multinomial(facade.ones(50, 10), 10).tolist())
    assert all(sorted(r) == list(range(10)) for r in rows)  # without replacement: distinct
    first = np.asarray(facade.multinomial(facade.tensor([1.0, 1, 8]) * facade.ones(2000, 3), 2).tolist())
    assert all(len(set(r)) == 2 for r in first)
    assert abs((first[:, 0] == 2).mean() - 0.8) < 0.04  # the first draw follows the weights
    z = vals(facade.multinomial(facade.tensor([1.0, 0, 0]), 3))
    assert z[0] == 0 and sorted(z.tolist()) == [0, 1, 2]


def test_poisson_distribution():
    facade.manual_seed(0)
    x = vals(facade.poisson(facade.full((N,), 4.0)))
    assert (x == np.round(x)).all() and x.min() >= 0
    assert abs(x.mean() - 4) < 0.1 and abs(x.var() - 4) < 0.3
    assert vals(facade.poisson(facade.zeros(5))).tolist() == [0.0] * 5


def test_inplace_distributions():
    facade.manual_seed(0)
    x = facade.empty(N)
    v = vals(x.uniform_(-2, 3))
    assert v.min() >= -2 and v.max() < 3 and abs(v.mean() - 0.5) < 0.06
    m, s = moments(x.normal_(1.5, 0.5))
    assert abs(m - 1.5) < 0.02 and abs(s - 0.5) < 0.02
    v = vals(x.exponential_(2.0))
    assert v.min() >= 0 and abs(v.mean() - 0.5) < 0.02
    v = vals(x.geometric_(0.25))
    assert v.min() >= 1 and (v == np.round(v)).all() and abs(v.mean() - 4) < 0.15
    v = vals(x.log_normal_(1.0, 0.5))
    assert v.min() > 0 and abs(np.median(np.log(v)) - 1) < 0.03
    v = vals(x.cauchy_(2.0, 1.0))
    assert abs(np.median(v) - 2) < 0.05
    q1, q3 = np.percentile(v, [25, 75])
    assert abs((q3 - q1) / 2 - 1) < 0.08
    v = vals(x.random_(3, 10))
    assert v.min() == 3 and v.max() == 9
    v = vals(x.random_(5))
    assert v.min() == 0 and v.max() == 4
    v = vals(x.random_())
    assert v.min() >= 0 and v.max() <= 2**24 and v.max() > 2**23
    b = vals(facade.zeros(1000, dtype=facade.bool).random_())
    assert 0.4 < b.mean() < 0.6
    i8 = vals(facade.zeros(N, dtype=facade.int8).random_())
    assert i8.min() >= 0 and i8.max() == 127
    i8 = vals(facade.zeros(N, dtype=facade.int8).random_(-5, None))
    assert i8.min() == -5 and i8.max() == 127


# ---------------------------------------------------------------------------- fill_ / zero_

FILL = {
    "fill_float": lambda t: t.zeros(3).fill_(2.5),
    "fill_int_into_float": lambda t: t.zeros(3).fill_(2),
    "fill_float_into_int": lambda t: t.zeros(3, dtype=t.int32).fill_(2.7),
    "fill_bool": lambda t: t.zeros(3, dtype=t.bool).fill_(1),
    "fill_0d_tensor": lambda t: t.zeros(3).fill_(t.tensor(4.0)),
    "fill_0d_tensor_f64": lambda t: t.zeros(3).fill_(t.tensor(4.5, dtype=t.float64)),
    "fill_1d_tensor": lambda t: t.zeros(3).fill_(t.tensor([4.0])),
    "fill_2elem_tensor": lambda t: t.zeros(3).fill_(t.tensor([4.0, 5.0])),
    "fill_0d_target": lambda t: t.zeros(()).fill_(7),
    "fill_empty": lambda t: t.zeros(0, 2).fill_(7),
    "fill_complex": lambda t: t.zeros(2, dtype=t.complex64).fill_(1j),
    "fill_view": lambda t: (lambda x: (x.transpose(0, 1).fill_(3), x)[1])(t.zeros(2, 3)),
    "fill_view_of_view": lambda t: (lambda x: (x.view(3, 2).transpose(0, 1).fill_(-1), x)[1])(t.zeros(2, 3)),
    "fill_returns_self": lambda t: (lambda x: x.fill_(1) is x)(t.zeros(2)),
    "fill_leaf": lambda t: t.zeros(2, requires_grad=True).fill_(1),
    "zero": lambda t: t.ones(2, 3).zero_(),
    "zero_int": lambda t: t.ones(2, dtype=t.int64).zero_(),
    "zero_view": lambda t: (lambda x: (x.view(6).zero_(), x)[1])(t.ones(2, 3)),
    "zero_returns_self": lambda t: (lambda x: x.zero_() is x)(t.ones(2)),
    "zero_leaf": lambda t: t.ones(2, requires_grad=True).zero_(),
    "fill_grad": lambda t: (lambda a: (a * 2).fill_(3.0))(t.ones(2, requires_grad=True)),
}


@pytest.mark.parametrize("name", list(FILL))
def test_fill(name):
    same(FILL[name])


def test_fill_gradient():
    for mod in (torch, facade):
        a = mod.ones(3, requires_grad=True)
        b = a * 2
        b.fill_(5.0)
        (b * a).sum().backward()
        assert a.grad.tolist() == [5.0, 5.0, 5.0]


@pytest.mark.parametrize("kind,params", [("uniform", (0.0, 1.0)), ("normal", (0.0, 1.0)), ("randint", (0, 100)),
                                         ("exponential", (1.0,)), ("geometric", (0.3,)), ("log_normal", (0.0, 1.0)),
                                         ("cauchy", (0.0, 1.0))])
def test_bucketed_draw_equals_the_exact_shape_draw(kind, params):
    """An elementwise sampler on the host draws a power-of-two flat array and cuts it (one program per size class,
    not per shape): the values must be exactly those of a draw of the tensor's own shape, and the generator's next
    key the same."""
    from facade import _random as R

    key, dt = R._key_data(1234), np.int64 if kind == "randint" else np.float32
    k1, exact = R._run(kind, ((3, 5), dt), key, *params)
    k2, flat = R._run(kind, ((4096,), dt), key, *params)
    assert np.array_equal(np.asarray(exact).ravel(), np.asarray(flat)[:15]) and np.array_equal(k1, k2)
    facade.manual_seed(7)
    a = facade.rand(3, 5) if kind == "uniform" else None
    facade.manual_seed(7)
    assert a is None or np.array_equal(a.numpy(), facade.rand(15).numpy().reshape(3, 5))


@pytest.mark.parametrize("kind,np_dt,params", [
    ("uniform", np.float32, (0.0, 1.0)), ("uniform", np.float32, (-0.1, 0.3)),
    ("uniform", np.float32, (-1e-3 / 3, 7.0 / 3)), ("uniform", np.float32, (-2, 5)),
    ("randint", np.int64, (0, 10)), ("randint", np.int64, (-(2**63), 2**63 - 1)), ("randint", np.int64, (5, 2**40)),
    ("randint", np.int32, (-7, 3)), ("normal", np.float32, (0.0, 1.0)), ("normal", np.float32, (0.5, 0.02)),
    ("normal", np.float32, (-3, 2))])
def test_host_draw_equals_the_program(kind, np_dt, params):
    """The first draws of a size class of these kinds are computed with numpy (no sampler program to compile): the
    values and the generator's next key must be exactly those of the XLA program `_run`, for any key, size and range
    (float32 sums where XLA would fuse a multiply-add included)."""
    from facade import _random as R

    for seed in (0, 1234, 2**63 + 5):
        for n in (1, 7, 4096, 6000, 1 << 17):
            size = R._size_class(n)
            key = np.asarray(R._key_data(seed), np.uint32)
            k1, xla = R._run(kind, ((size,), np.dtype(np_dt)), key, *params)
            gen = R.Generator()
            gen._key = key
            host = R._host_draw(gen, kind, n, np.dtype(np_dt), params)
            assert host.dtype == np_dt and host.shape == (n,)
            np.testing.assert_array_equal(host, np.asarray(xla)[:n])
            np.testing.assert_array_equal(np.asarray(gen._key), np.asarray(k1))


def test_host_randperm_equals_the_program():
    """randperm's first draws are computed with numpy (a DataLoader's shuffle and random_split compile no sampler):
    the permutation and the generator's next key must be exactly those of the XLA program, one sort round
    (n <= 1625) or two, for any key."""
    from facade import _random as R

    for seed in (0, 1234, 2**63 + 5):
        for n in (0, 1, 2, 7, 1497, 1625, 1626, 1797, 60000):
            for dt in (np.int64, np.int32, np.float32):
                key = np.asarray(R._key_data(seed), np.uint32)
                k1, xla = R._run("perm", (n, np.dtype(dt)), key)
                gen = R.Generator()
                gen._key = key
                host = R._host_perm(gen, n, np.dtype(dt))
                assert host.dtype == dt and host.shape == (n,)
                np.testing.assert_array_equal(host, np.asarray(xla))
                np.testing.assert_array_equal(np.asarray(gen._key), np.asarray(k1))


def test_a_shuffling_loader_compiles_no_sampler():
    from facade.compiler import metrics, reset_metrics

    data = facade.utils.data.TensorDataset(facade.arange(1501))
    split = facade.utils.data.random_split(data, [1001, 500], generator=facade.Generator().manual_seed(0))
    reset_metrics()
    order = [int(b[0][0]) for b in facade.utils.data.DataLoader(split[0], batch_size=1, shuffle=True)]
    assert "_run" not in metrics().ops and sorted(order) == sorted(int(i) for i in split[0].indices)


def test_a_dropout_compiles_its_key_program_ahead(monkeypatch):
    """A Dropout made once the backend is up compiles `_split` (the key its first training forward draws) in a
    background thread: the forward builds no program for it."""
    from facade import _random as R

    def splits():
        row = facade.compiler.metrics().ops.get("_split")
        return row.compiles if row else 0

    monkeypatch.setattr(R, "_SPLIT_WARMED", [])
    R._split.clear_cache()
    before = splits()
    model = facade.nn.Sequential(facade.nn.Linear(3, 3), facade.nn.Dropout(0.2))
    made = splits()
    model(facade.randn(2, 3))
    assert (made - before, splits() - made) == (1, 0)


def test_a_size_class_drawn_again_gets_its_program(monkeypatch):
    """numpy makes only the first few draws of a size class; later ones run the compiled sampler, with the same
    stream: a generator's draws do not depend on which one made them."""
    import collections

    from facade import _random as R

    times, cls = R._HOST_VALUES // 8192 + 2, ("uniform", np.dtype(np.float32), 8192)
    monkeypatch.setattr(R, "_HOST_DRAWS", collections.Counter())
    facade.manual_seed(3)
    a = [facade.rand(5000) for _ in range(times)]
    assert R._HOST_DRAWS[cls] == R._HOST_VALUES  # numpy's draws, then the program's
    monkeypatch.setattr(R, "_HOST_DRAWS", collections.Counter({cls: R._HOST_VALUES}))  # every draw from the program
    facade.manual_seed(3)
    b = [facade.rand(5000) for _ in range(times)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_value_checks_of_a_cpu_sampler_compile_nothing():
    """multinomial's checks of its probabilities (finite, non-negative, positive rows) read a CPU tensor's values
    with numpy: the only program a first multinomial builds is its sampler."""
    from facade.compiler import metrics, reset_metrics

    p = facade.tensor([[0.2, 0.0, 0.8], [1.0, 2.0, 3.0]])
    reset_metrics()
    facade.multinomial(p, 2)
    assert set(metrics().ops) == {"_run"}, metrics()
    for bad, msg in (([[0.5, float("nan")]], "`inf`, `nan` or element < 0"), ([[0.0, 0.0]], "sum of probabilities")):
        with pytest.raises(RuntimeError, match=msg.replace("(", r"\(")):
            facade.multinomial(facade.tensor(bad), 1)


def test_a_dropout_key_is_one_rng_bit_generator_draw():
    """A dropout's key comes from the generator's stream as every draw's does (one RngBitGenerator op, which a
    compiled step with a dozen dropouts runs as a dozen kernels, not threefry's chain of six each); successive keys
    differ and a seed repeats them."""
    from facade import _random as R

    jaxpr = jax.make_jaxpr(R._split.__wrapped__)(jnp.zeros(2, jnp.uint32))
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert names.count("rng_bit_generator") == 1 and not any("threefry" in n for n in names), names
    facade.manual_seed(5)
    keys = [int(R.next_key()) for _ in range(4)]
    facade.manual_seed(5)
    assert keys == [int(R.next_key()) for _ in range(4)] and len(set(keys)) == 4
