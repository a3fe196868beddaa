"""Random numbers: torch.Generator over a JAX PRNG key, the sampling functions (rand, randn, randint,
randperm, normal, bernoulli, multinomial, poisson, *_like) and the in-place Tensor samplers
(uniform_, normal_, ...).

A Generator holds the raw data of a threefry key (`_key`, uint32[2]). Every draw is one jitted
call `(key, params) -> (next key, sample)` over XLA's counter-based threefry (`_bits`), so a draw
costs one dispatch and the generator's whole state is that one small array (what torch.compile
lifts as RNG state). Values cannot equal torch's bit for bit; seeding, state round trips, dtypes,
shapes, ranges and errors do.
Samples are not differentiable, except `normal` with Tensor mean/std: mean + std * eps.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import math
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import xla_bridge

from functional._names import cpp_name
from functional.core import RBG
from functional.core import bits as _bits

from . import _creation as C
from . import _deferred, _host
from . import _dtype as D
from ._device import META, jax_device
from ._device import device as _devcls
from ._tensor import Tensor
from .autograd.grad_mode import STATE

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng", "rand", "randn", "randint", "randperm", "rand_like", "randn_like",
           "randint_like", "normal", "bernoulli", "multinomial", "poisson", "binomial"]

_DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val
_U64 = 2**64


def _key_data(seed):
    """The threefry key of a 64-bit seed (as jax.random.key(seed) would make it)."""
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], dtype=np.uint32)


def _host_key(data):
    return data  # numpy until the first draw places it: importing facade must not start JAX's runtime


class Generator:
    """torch.Generator: manual_seed, seed, initial_seed, get_state/set_state, device."""

    def __init__(self, device="cpu"):
        device = _devcls(device)
        if device.type == "meta":
            raise RuntimeError("META device type not an accelerator.")
        self.device = device
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        if not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(2**63) <= seed < _U64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % _U64
        self._key = _host_key(_key_data(self._seed))
        return self

    def seed(self):
        """Seed from a non-deterministic source; returns the seed."""
        s = int.from_bytes(os.urandom(8), "little") & (2**63 - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """A uint8 tensor: the initial seed (8 bytes) and the current key (8 bytes)."""
        raw = np.concatenate([np.array([self._seed], dtype="<u8").view(np.uint8),
                              np.asarray(self._key, dtype="<u4").view(np.uint8)])
        return C.tensor(raw, device="cpu")

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state.numpy(force=True)).reshape(-1)
        if raw.size != 16:
            raise RuntimeError(f"Expected a generator state of size 16 but found the input RNG state size to be "
                               f"{raw.size}")
        self._seed = int(raw[:8].view("<u8")[0])
        self._key = _host_key(raw[8:].view("<u4").astype(np.uint32))
        return self

    def clone_state(self):
        g = Generator(self.device)
        g._seed, g._key = self._seed, self._key
        return g

    def __repr__(self):
        return f"<torch.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed):
    """torch.manual_seed: seed the default generator; returns it."""
    return default_generator.manual_seed(int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """torch.random.fork_rng: the RNG state is restored when the block exits."""
    if not enabled:
        yield
        return
    state = default_generator._seed, default_generator._key
    try:
        yield
    finally:
        default_generator._seed, default_generator._key = state


# ---------------------------------------------------------------------------- samplers
# Each sampler is (key, static, *params) -> array; `static` is a hashable tuple (shape, numpy dtype, ...).

def _float_for(dt):
    return jnp.float64 if dt == jnp.float64 else jnp.float32


def _uniform(k, static, low, high):
    shape, dt = static
    if jnp.issubdtype(dt, jnp.complexfloating):
        real = jnp.finfo(dt).dtype
        kr, ki = jax.random.split(k)
        return jax.lax.complex(jax.random.uniform(kr, shape, real), jax.random.uniform(ki, shape, real)).astype(dt)
    ft = _float_for(dt)
    u = jax.random.uniform(k, shape, ft)
    if ft == jnp.float32:  # an exact product in float64, so that a fused multiply-add (XLA uses one where the CPU
        # has it) rounds as a multiply then add does, and numpy computes the same values (`_host_draw`)
        return (low + jnp.asarray(high - low, jnp.float32).astype(jnp.float64) * u.astype(jnp.float64)).astype(dt)
    return (low + (high - low) * u).astype(dt)


def _normal(k, static, mean, std):
    shape, dt = static
    if jnp.issubdtype(dt, jnp.complexfloating):
        return (mean + std * jax.random.normal(k, shape, dt)).astype(dt)
    return (mean + std * jax.random.normal(k, shape, _float_for(dt))).astype(dt)


def _randint(k, static, low, high):
    """low + (a 64-bit random word mod the span), as torch's CPU randint computes for spans of 2**32 and more, in
    uint64 (the span of the whole int64 range fits, and sums wrap around as int64's)."""
    shape, dt = static
    w = jax.random.bits(k, (*shape, 2), jnp.uint32).astype(jnp.uint64)  # two words per value, in stream order
    low = jnp.asarray(low, jnp.int64).astype(jnp.uint64)
    x = (w[..., 0] | (w[..., 1] << 32)) % (jnp.asarray(high, jnp.int64).astype(jnp.uint64) - low)
    return jax.lax.bitcast_convert_type(low + x, jnp.int64).astype(dt)


def _bernoulli(k, static, p):
    shape, dt, ft = static
    return (jax.random.uniform(k, shape, ft) < jnp.asarray(p, ft)).astype(dt)


def _perm(k, static):
    n, dt = static
    return jax.random.permutation(k, n).astype(dt)


def _exponential(k, static, lambd):
    shape, dt = static
    return (jax.random.exponential(k, shape, _float_for(dt)) / lambd).astype(dt)


def _geometric(k, static, p):
    shape, dt = static
    ft = jnp.float64
    u = jax.random.uniform(k, shape, ft, minval=jnp.finfo(ft).tiny)
    return jnp.maximum(jnp.ceil(jnp.log(u) / jnp.log1p(-p)), 1).astype(dt)


def _log_normal(k, static, mean, std):
    shape, dt = static
    return jnp.exp(mean + std * jax.random.normal(k, shape, _float_for(dt))).astype(dt)


def _cauchy(k, static, median, sigma):
    shape, dt = static
    return (median + sigma * jax.random.cauchy(k, shape, _float_for(dt))).astype(dt)


def _poisson(k, static, lam):
    (dt,) = static
    k = jax.random.wrap_key_data(jax.random.bits(k, (2,), jnp.uint32), impl="threefry2x32")  # JAX's poisson: only these
    return jax.random.poisson(k, lam.astype(_float_for(lam.dtype)), lam.shape, dtype=jnp.int64).astype(dt)


def _binomial(k, static, count, prob):
    shape, dt = static
    ft = _float_for(dt)
    n, p = jnp.maximum(count.astype(ft), 0), jnp.clip(prob.astype(ft), 0, 1)
    return jax.random.binomial(k, jnp.broadcast_to(n, shape), jnp.broadcast_to(p, shape), shape, ft).astype(dt)


def _multinomial(k, static, p):
    n, replacement = static
    ft = _float_for(p.dtype)
    logits = jnp.log(p.astype(ft))
    if replacement:
        out = jax.random.categorical(k, logits, axis=-1, shape=(n,) + p.shape[:-1])
        return jnp.moveaxis(out, 0, -1).astype(jnp.int64)
    # Gumbel top-k: sampling without replacement in proportion to p
    return jax.lax.top_k(logits + jax.random.gumbel(k, p.shape, ft), n)[1].astype(jnp.int64)


_SAMPLERS = {f.__name__[1:]: f for f in (_uniform, _normal, _randint, _bernoulli, _perm, _exponential, _geometric,
                                         _log_normal, _cauchy, _poisson, _binomial, _multinomial)}


@functools.partial(jax.jit, static_argnums=(0, 1))
def _run(kind, static, key, *params):
    """One draw: the generator's next key is the first two words of its key's stream, the sample is drawn from the
    words after them."""
    state, new = _bits(jnp.concatenate([key, jnp.zeros(2, jnp.uint32)]), (2,))
    return new, _SAMPLERS[kind](jax.random.wrap_key_data(state, impl=RBG), static, *params)


@jax.jit
def _split(key):
    """(next key, a fresh key as int64): the first four words of the key's stream, as `_run` draws them. One
    RngBitGenerator op, where jax.random.split's threefry is a chain of six kernels in a compiled step."""
    _, words = _bits(jnp.concatenate([key, jnp.zeros(2, jnp.uint32)]), (4,))
    return words[:2], jax.lax.bitcast_convert_type(words[2:], jnp.int64)


WARM_SPLIT = True  # `warm_split` (a switch for measuring it)
_SPLIT_WARMED = []


def warm_split():
    """Compile `_split` (a dropout's key) in a background thread, once per process and only once the backend is up
    (a model's parameters start it): a model that makes a Dropout draws its first key at its first training
    forward, which then finds the program compiled (XLA compiles without the GIL) instead of building it on the
    loop's thread. The same jitted function for the same argument shape, so the same program."""
    if _SPLIT_WARMED or not WARM_SPLIT or _host.ACTIVE or not xla_bridge.backends_are_initialized():
        return
    from .compiler import _metrics

    _SPLIT_WARMED.append(True)
    thread = threading.Thread(target=_compile_split, name="facade dropout-key warm-up")
    thread.start()
    _metrics.background(thread)  # metrics() counts its compile


def _compile_split():
    try:
        _split.lower(jax.ShapeDtypeStruct((2,), jnp.uint32)).compile()
    except Exception:  # noqa: BLE001 - the first draw compiles it and raises its own error
        pass


def next_key(generator=None, device="cpu"):
    """A fresh random key for an op that samples inside its jitted function (dropout): a 0-dim int64
    Tensor of key data, turned back into a key by `functional.prng_key`. Advances the generator."""
    gen, device = _generator(generator), C._device(device)
    gen._key, sub = _split(_key_on(gen, device))
    return Tensor._from_array(sub, device)


def _generator(generator):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator as generator, got {type(generator).__name__}")
    return generator


def _key_on(gen, device):
    key, jd = gen._key, jax_device(device)
    if isinstance(key, np.ndarray):
        key = C._put(key, jd)  # uncommitted on the default device, so it also meets arrays on a jax Mesh
    elif not isinstance(key, jax.core.Tracer) and jd not in key.devices():  # a key on a Mesh holding jd stays
        key = jax.device_put(key, jd)
    return key


def _draw(generator, kind, static, params, device):
    """One sample as a jax array on torch `device` (advances the generator)."""
    gen = _generator(generator)
    if _host.ACTIVE:  # a DataLoader worker: numpy draws, no JAX
        _host.jax_device(device)
        return _host.draw(gen, kind, static, params)
    key = _key_on(gen, device)
    params = tuple(p._arr() if isinstance(p, Tensor) else p for p in params)
    gen._key, out = _run(kind, static, key, *params)
    return out


# Samplers that fill a flat array elementwise from per-index counters (`_bits`), so the first n values of a
# draw of any size m >= n are exactly those of an n-sized draw.
_ELEMENTWISE = frozenset({"uniform", "normal", "randint", "exponential", "geometric", "log_normal", "cauchy"})
_BUCKET_MAX = 1 << 22
_BUCKET_MIN = 1 << 12  # a 4096-value draw costs ~20 us; every smaller tensor (biases, norms, rand(1)) shares it


def _bucketable(kind, shape, params, device, generator):
    n = math.prod(shape)
    return (kind in _ELEMENTWISE and 0 < n <= _BUCKET_MAX and _deferred.host_memory(device) and not _host.ACTIVE
            and all(isinstance(p, (int, float)) for p in params)
            and not isinstance(_generator(generator)._key, jax.core.Tracer))


def _on_host(key, n, device, generator):
    """Whether a draw of n values (counted under `key`) runs in numpy: host memory, a concrete key, and fewer than
    _HOST_VALUES values of its kind drawn so far (one drawn again and again gets its program)."""
    if (n > _HOST_MAX or _HOST_DRAWS[key] >= _HOST_VALUES or not _deferred.host_memory(device) or _host.ACTIVE
            or isinstance(_generator(generator)._key, jax.core.Tracer)):
        return False
    _HOST_DRAWS[key] += n
    return True


def _size_class(n):
    return max(_BUCKET_MIN, 1 << (n - 1).bit_length())


def _draw_bucketed(generator, kind, shape, np_dt, params, device):
    """The same values as an exact-shape draw, from a power-of-two-sized flat draw cut on the host: building a
    model with many parameter shapes then compiles one sampler per size class instead of one per shape, and the
    first few draws of a size class that numpy can compute (`_host_draw`) compile none."""
    n = math.prod(shape)
    size = _size_class(n)
    gen = _generator(generator)
    if (kind, np_dt) in _HOST_KINDS and _on_host((kind, np_dt, size), size, device, generator):
        flat = _host_draw(gen, kind, n, np_dt, params)
    else:
        flat = np.asarray(_draw(gen, kind, ((size,), np_dt), params, device))
    return C._put(flat[:n].reshape(shape), jax_device(device))


# ---------------------------------------------------------------------------- the same draws with numpy
# A sampler program compiles in 70-160 ms (most of it XLA's expansion of RngBitGenerator), while numpy computes a
# draw of 2**17 values in about 2 ms. For the kinds below numpy computes the very values `_run` does: XLA's
# RngBitGenerator (threefry algorithm) is threefry-2x32 of a 64-bit counter, words in block order, and the
# arithmetic after it rounds alike in both (integers; a float product exact in float64). So the first draws of a
# size class (a model's initialisation, a dataset made once) run in numpy, and one drawn again and again gets its
# program.

_HOST_KINDS = frozenset({("uniform", np.dtype(np.float32)), ("randint", np.dtype(np.int64)),
                         ("randint", np.dtype(np.int32)), ("normal", np.dtype(np.float32))})
_HOST_MAX = 1 << 17
# Values of one (kind, dtype, size class) drawn with numpy before its program compiles: about 60 ms of numpy, the
# cost of a compile (a model's initialisation draws a size class many times; a draw in every step soon compiles)
_HOST_VALUES = 1 << 22
_HOST_DRAWS = collections.Counter()
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _threefry_words(state, n):
    """The first n words XLA's RngBitGenerator (threefry algorithm) draws from 4-word `state`: threefry-2x32 with
    key words 0-1 of the 64-bit counters from words 2-3 (low, high) on, two words each; its next state is the same
    key with the counter ceil(n / 2) further."""
    k0, k1 = np.uint32(state[0]), np.uint32(state[1])
    ks = (k0, k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA))
    counter = (np.uint64(state[2]) | np.uint64(state[3]) << np.uint64(32)) + np.arange((n + 1) // 2, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x0 = (counter & np.uint64(0xFFFFFFFF)).astype(np.uint32) + ks[0]
        x1 = (counter >> np.uint64(32)).astype(np.uint32) + ks[1]
        for i in range(5):
            for r in _ROTATIONS[i % 2]:
                x0 += x1
                x1 = (x1 << np.uint32(r)) | (x1 >> np.uint32(32 - r))
                x1 ^= x0
            x0 += ks[(i + 1) % 3]
            x1 += ks[(i + 2) % 3] + np.uint32(i + 1)
    return np.stack([x0, x1], 1).reshape(-1)[:n]


def _stream(gen, n):
    """The n words after the 2 that become `gen`'s next key (the draw `_run` makes from its key), advancing `gen`."""
    key = np.asarray(gen._key, np.uint32)
    w = _threefry_words((key[0], key[1], 0, 0), 2 + n)
    gen._key = w[:2].copy()
    return w[2:]


def _host_perm(gen, n, np_dt):
    """What `_run("perm", (n, np_dt), key)` returns, with numpy: jax.random.permutation's rounds of a key split
    and a stable sort by 32-bit keys, for the generator's key after the two words of its next key."""
    key = np.asarray(gen._key, np.uint32)
    _stream(gen, 0)  # the generator's next key; the sampler's key is the stream after it: counter 1
    state, x = np.array([key[0], key[1], 1, 0], np.uint32), np.arange(n)
    for _ in range(int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))):  # as jax.random does
        w = _threefry_words(state, 8)  # the key's split in two (RBG's split: its next 8 words)
        state = w[:4]
        x = x[np.argsort(_threefry_words(w[4:], n), kind="stable")]
    return x.astype(np_dt)


def _host_draw(gen, kind, n, np_dt, params):
    """What `_run(kind, ((n,), np_dt), key, *params)` returns, computed with numpy; advances `gen` as it does."""
    if kind == "normal":  # numpy's words, jax.random.normal's own steps from them: `_from_words`, one program
        chunks = -(-n // _BUCKET_MIN)  # for every size, in chunks (its steps are elementwise)
        w = _stream(gen, chunks * _BUCKET_MIN)
        static = ((_BUCKET_MIN,), np_dt)
        return np.concatenate([np.asarray(_from_words(kind, static, c, *params))
                               for c in w.reshape(chunks, _BUCKET_MIN)])[:n]
    uniform = kind == "uniform"
    w = _stream(gen, n + n % 2 if uniform else 2 * n)  # an int64 from two words
    low, high = params
    if uniform:
        u = ((w[:n] >> np.uint32(9)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1)
        return (np.float64(low) + np.float64(np.float32(high - low)) * u.astype(np.float64)).astype(np.float32)
    w = w.astype(np.uint64)
    lo = np.asarray(low, np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (w[0::2] | (w[1::2] << np.uint64(32))) % (np.asarray(high, np.int64).astype(np.uint64) - lo)
        return (lo + x).view(np.int64).astype(np_dt)


# normal's erfinv has no exact numpy twin, but the RngBitGenerator expansion is what makes a sampler slow to compile:
# a program of the stream words (numpy's) that runs jax.random's own steps from them gives the very values, as
# `_bits` would feed them, and compiles faster; run on 4096-word chunks, one program serves every size class.
# Three normal size classes (a model's embeddings): 0.57-0.71 s of compiles -> 0.30-0.33 s (a program each)
# -> 0.11-0.16 s (one program).
_WORDS = {}


def _words_impl(size):
    """A PRNG implementation whose key data are the `size` stream words a draw reads (random_bits returns them)."""
    impl = _WORDS.get(size)
    if impl is None:
        def refuse(*_):
            raise NotImplementedError("a draw's stream words are not a generator key")

        impl = _WORDS[size] = jax.extend.random.define_prng_impl(
            key_shape=(size,), seed=refuse, split=refuse, fold_in=refuse,
            random_bits=lambda k, width, shape: k.reshape(shape), name=f"facade_words_{size}", tag=f"fw{size}")
    return impl


@functools.partial(jax.jit, static_argnums=(0, 1))
def _from_words(kind, static, words, *params):
    """The sample `_run` draws, from the stream words that follow its key's (uint32, as many as it reads)."""
    return _SAMPLERS[kind](jax.random.wrap_key_data(words, impl=_words_impl(words.shape[0])), static, *params)


def _make(kind, shape, dt, device, generator, params=(), requires_grad=False, static=None):
    """A new tensor of `shape`/`dt` on `device` sampled by `kind` (meta: shape only, nothing drawn)."""
    device = C._device(device)
    C._check_grad(dt, requires_grad)
    if device.type == "meta":
        t = Tensor._from_array(jax.ShapeDtypeStruct(tuple(shape), dt.np), META)
    elif static is None and _bucketable(kind, shape, params, device, generator):
        t = Tensor._from_array(_draw_bucketed(generator, kind, tuple(shape), dt.np, params, device), device)
    elif kind == "perm" and _on_host(("perm", dt.np, shape[0]), shape[0], device, generator):
        t = Tensor._from_array(C._put(_host_perm(_generator(generator), shape[0], dt.np), jax_device(device)), device)
    else:
        t = Tensor._from_array(_draw(generator, kind, static or (tuple(shape), dt.np), params, device), device)
    if requires_grad:
        t.requires_grad = True
    return t


def _name(dt):
    return C._legacy_name(dt)


def _need_float(fn, dt, complex_ok=True):
    if dt._cat < 2 or (dt._cat == 3 and not complex_ok):
        raise NotImplementedError(f"\"{fn}\" not implemented for '{_name(dt)}'")


def _check_all(t, pred, msg):
    """Raise RuntimeError(msg) unless pred(values) holds everywhere (skipped while tracing; deferred on a device)."""
    _deferred.check_all(t, pred, lambda v: RuntimeError(msg), op=f"the check '{msg}'")


def _nonneg(xp, a):
    return a >= 0


def _unit(xp, a):
    return (a >= 0) & (a <= 1)


def _finite_nonneg(xp, a):  # numpy for a CPU tensor's values: a check that compiles nothing
    return xp.isfinite(a) & (a >= 0)


def _positive_rows(xp, a):
    return xp.sum(a.astype(np.float64), axis=-1) > 0


# ---------------------------------------------------------------------------- factories

def _size(args, size, name):
    return C._size_arg(args, size, name)


def rand(*size_args, size=None, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    """torch.rand(*size): uniform on [0, 1) (complex: both parts)."""
    shape = _size(size_args, size, "rand")
    dt = C._dt(dtype)
    _need_float("check_uniform_bounds", dt)
    return C._to_out(_make("uniform", shape, dt, device, generator, (0.0, 1.0), requires_grad), out)


def randn(*size_args, size=None, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False):
    """torch.randn(*size): standard normal (complex: real and imaginary parts each of variance 1/2)."""
    shape = _size(size_args, size, "randn")
    dt = C._dt(dtype)
    _need_float("normal_kernel_cpu", dt)
    return C._to_out(_make("normal", shape, dt, device, generator, (0.0, 1.0), requires_grad), out)


def _check_range(low, high, dt):
    if not (-(2**63) <= low < 2**63 and -(2**63) <= high < 2**63):
        raise ValueError("Overflow when unpacking long long")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    for v, what in ((low, "from"), (high - 1, "to - 1")):
        if dt._cat <= 1:
            lo, hi = (0, 1) if dt is D.bool else (np.iinfo(dt.np).min, np.iinfo(dt.np).max)
        elif dt._cat == 2:
            m = 2 ** (np.finfo(dt.np).nmant + 1)
            lo, hi = -m, m
        else:
            continue
        if not lo <= v <= hi:
            raise RuntimeError(f"{what} is out of bounds for {cpp_name(dt.np)}")


def _int_arg(v, fn, name, pos):
    if isinstance(v, Tensor) and v.dtype._cat <= 1 and v.numel() == 1:
        return v.item()
    if not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be int, not {type(v).__name__}")
    return int(v)


def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None, layout=None, device=None,
            pin_memory=False, requires_grad=False):
    """torch.randint(low=0, high, size): integers uniform on [low, high), int64 unless `dtype`."""
    args = list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        size = args.pop()
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"randint(): argument 'size' (position {len(args) + 1}) must be tuple of ints, not "
                        f"{type(size).__name__}")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif len(args) > 2:
        raise TypeError(f"randint() takes at most 3 positional arguments ({len(args) + 1} given)")
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    low = 0 if low is None else _int_arg(low, "randint", "low", 1)
    high = _int_arg(high, "randint", "high", 2)
    shape = C._sizes((size,), "randint")
    dt = C._dt(dtype, D.int64)
    _check_range(low, high, dt)
    return C._to_out(_make("randint", shape, dt, device, generator, (low, high), requires_grad), out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """torch.randperm(n): a random permutation of 0..n-1 (int64 unless `dtype`)."""
    n = _int_arg(n, "randperm", "n", 1)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = C._dt(dtype, D.int64)
    if dt is D.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if dt._cat == 2 and n > 2 ** (np.finfo(dt.np).nmant + 1) + 1:
        raise RuntimeError(f"n cannot be greater than {2 ** (np.finfo(dt.np).nmant + 1) + 1} for "
                           f"{_name(dt)} type.")
    if dt._cat == 1 and n - 1 > np.iinfo(dt.np).max:
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    return C._to_out(_make("perm", (n,), dt, device, generator, (), requires_grad, static=(n, dt.np)), out)


def _like_args(input, dtype, device, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return tuple(input.shape), C._dt(dtype, input.dtype), input.device if device is None else device


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, pin_memory=False):
    shape, dt, device = _like_args(input, dtype, device, "rand_like")
    _need_float("check_uniform_bounds", dt)
    return _make("uniform", shape, dt, device, generator, (0.0, 1.0), requires_grad)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, pin_memory=False):
    shape, dt, device = _like_args(input, dtype, device, "randn_like")
    _need_float("normal_kernel_cpu", dt)
    return _make("normal", shape, dt, device, generator, (0.0, 1.0), requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, pin_memory=False):
    """torch.randint_like(input, high) / (input, low, high): integers on [low, high) in input's dtype."""
    if high is None:
        low, high = 0, low
    low = _int_arg(low, "randint_like", "low", 2)
    high = _int_arg(high, "randint_like", "high", 3)
    shape, dt, device = _like_args(input, dtype, device, "randint_like")
    _check_range(low, high, dt)
    return _make("randint", shape, dt, device, generator, (low, high), requires_grad)


# ---------------------------------------------------------------------------- distributions of tensors

def _std_ok(std):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """torch.normal: N(mean, std) elementwise. normal(Tensor, Tensor), normal(Tensor, float=1),
    normal(float, Tensor), normal(float, float, size). Differentiable in Tensor mean and std
    (computed as mean + std * eps with eps ~ N(0, 1))."""
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mt or st):
        if size is None or not isinstance(size, (tuple, list)):
            got = ", ".join(type(a).__name__ for a in (mean, std, size) if a is not None)
            raise TypeError(f"normal() received an invalid combination of arguments - got ({got}), but expected "
                            "one of:\n * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out "
                            "= None)\n * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor "
                            "out = None)\n * (float mean, Tensor std, *, torch.Generator generator = None, Tensor "
                            "out = None)\n * (float mean, float std, tuple of ints size, *, torch.Generator "
                            "generator = None, Tensor out = None, torch.dtype dtype = None, torch.layout layout = "
                            "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)")
        _std_ok(float(std))
        dt = C._dt(dtype)
        _need_float("normal_kernel_cpu", dt)
        return C._to_out(_make("normal", C._sizes((size,), "normal"), dt, device, generator,
                               (float(mean), float(std)), requires_grad), out)
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    dt = tensors[0].dtype if len(tensors) == 1 else D.promote_types(mean.dtype, std.dtype)
    _need_float("normal_kernel_cpu", dt)
    if st:
        _check_all(std, _nonneg, "normal expects all elements of std >= 0.0")
    else:
        _std_ok(float(std))
    if len(tensors) == 2:
        _broadcast_check(mean.shape, std.shape)
    shape = jnp.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    dev = tensors[0].device
    if STATE.enabled and any(t.requires_grad for t in tensors):
        eps = _make("normal", shape, dt, dev, generator, (0.0, 1.0))
        res = mean + std * eps
    else:
        res = _make("normal", shape, dt, dev, generator, (mean, std))
    return C._to_out(res, out)


def _broadcast_check(a, b):
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")


def _p_scalar(p, fn="bernoulli_"):
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"{fn} expects p to be in [0, 1], but got p={p:g}")
    return p


_P_RANGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
            "If so, please report an enhancement request to PyTorch.)")


def _p_tensor(p):
    _need_float("bernoulli_tensor_cpu_p_", p.dtype, complex_ok=False)
    _check_all(p, _unit, _P_RANGE)
    return p


def _bern_static(out, p):
    """(shape, dtype, the float dtype uniforms are drawn in: float64 only for float64 probabilities)."""
    wide = (p.dtype if isinstance(p, Tensor) else out.dtype) is D.float64
    return tuple(out.shape), out.dtype.np, np.dtype(np.float64 if wide else np.float32)


def bernoulli(input, p=None, *, generator=None, out=None):
    """torch.bernoulli(input): 1 with probability input[i]; with `p`: probability p, input's shape and dtype."""
    if p is None:
        _p_tensor(input)
        res = _make("bernoulli", tuple(input.shape), input.dtype, input.device, generator, (input,),
                    static=_bern_static(input, input))
    else:
        if input.dtype._cat == 3:
            raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{_name(input.dtype)}'")
        res = _make("bernoulli", tuple(input.shape), input.dtype, input.device, generator, (_p_scalar(p),),
                    static=_bern_static(input, p))
    return C._to_out(res, out)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """torch.multinomial: `num_samples` indices per row drawn in proportion to the (unnormalised) weights
    in `input` (1-D or 2-D); without replacement the indices of a row are distinct."""
    n = _int_arg(num_samples, "multinomial", "num_samples", 2)
    if input.dtype._cat != 2:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_name(input.dtype)}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    _check_all(input, _finite_nonneg, "probability tensor contains either `inf`, `nan` or element < 0")
    _check_all(input, _positive_rows, "invalid multinomial distribution (sum of probabilities <= 0)")
    shape = tuple(input.shape[:-1]) + (n,)
    return C._to_out(_make("multinomial", shape, D.int64, input.device, generator, (input,),
                           static=(n, bool(replacement))), out)


def poisson(input, generator=None):
    """torch.poisson: Poisson(rate=input) samples in input's dtype."""
    _need_float("poisson_cpu", input.dtype, complex_ok=False)
    _check_all(input, _nonneg, "invalid Poisson rate, expected rate to be non-negative")
    return _make("poisson", tuple(input.shape), input.dtype, input.device, generator, (input,),
                 static=(input.dtype.np,))


def binomial(count, prob, generator=None):
    """torch.binomial: Binomial(total_count=count, probs=prob) samples, broadcast, in count's float dtype."""
    if count.dtype._cat != 2:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {_name(count.dtype)}")
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {_name(prob.dtype)} but expected {_name(count.dtype)}")
    shape = tuple(jnp.broadcast_shapes(tuple(count.shape), tuple(prob.shape)))
    return _make("binomial", shape, count.dtype, count.device, generator, (count, prob), static=(shape, count.dtype.np))


# ---------------------------------------------------------------------------- in-place Tensor samplers

def _fill_(self, kind, params, generator, static=None):
    """Write a fresh sample into self in place (through Tensor.copy_: views, versions, autograd)."""
    if self.device.type == "meta":
        return self
    sample = _make(kind, tuple(self.shape), self.dtype, self.device, generator, params, static=static)
    if self._base is None and not (STATE.enabled and self.requires_grad):  # nothing to record: no copy program
        self._assign(sample)
        return self
    return self.copy_(sample)


def _from_kwarg(kwargs, default):
    """`from` is a Python keyword, so `x.uniform_(from=1)` arrives in **kwargs."""
    value = kwargs.pop("from", default)
    if kwargs:
        raise TypeError(f"got an unexpected keyword argument '{next(iter(kwargs))}'")
    return value


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    from_ = _from_kwarg(kwargs, from_)
    _need_float("check_uniform_bounds", self.dtype)
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}")
    return _fill_(self, "uniform", (float(from_), float(to)), generator)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _need_float("normal_kernel_cpu", self.dtype)
    _std_ok(float(std))
    return _fill_(self, "normal", (float(mean), float(std)), generator)


def bernoulli_(self, p=0.5, *, generator=None):
    if self.dtype._cat == 3:
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{_name(self.dtype)}'")
    if isinstance(p, Tensor):
        _p_tensor(p)
        _broadcast_check(self.shape, p.shape)
        return _fill_(self, "bernoulli", (p,), generator, static=_bern_static(self, p))
    return _fill_(self, "bernoulli", (_p_scalar(p),), generator, static=_bern_static(self, p))


def random_(self, from_=0, to=None, *, generator=None, **kwargs):
    """Tensor.random_(): integers on [0, 2**mantissa] (floats) or [0, max] (ints); random_(to): [0, to);
    random_(from, to): [from, to)."""
    from_ = _from_kwarg(kwargs, from_)
    dt = self.dtype
    if dt._cat == 3:
        if to is None and from_ == 0:
            raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{_name(dt)}'")
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if to is None:
        if dt._cat == 2:
            top = 2 ** (np.finfo(dt.np).nmant + 1) + 1
        elif dt is D.bool:
            top = 2
        else:
            top = min(int(np.iinfo(dt.np).max) + 1, 2**63 - 1)
        low, high = int(from_), top
    else:
        low, high = int(from_), int(to)
    _check_range(low, high, dt)
    return _fill_(self, "randint", (low, high), generator)


def _random_to(self, *args, generator=None, **kwargs):
    # random_(to) is random_(0, to); random_(from, to) as written
    if len(args) == 1 and "to" not in kwargs and "from" not in kwargs:
        return random_(self, 0, args[0], generator=generator)
    return random_(self, *args, generator=generator, **kwargs)


def exponential_(self, lambd=1.0, *, generator=None):
    if self.dtype._cat != 2:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_name(self.dtype)}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return _fill_(self, "exponential", (float(lambd),), generator)


def geometric_(self, p, *, generator=None):
    if self.dtype._cat in (0, 3):
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for '{_name(self.dtype)}'")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill_(self, "geometric", (float(p),), generator)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _need_float("log_normal_cpu", self.dtype, complex_ok=False)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill_(self, "log_normal", (float(mean), float(std)), generator)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    if self.dtype._cat != 2:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {cpp_name(self.dtype.np)}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill_(self, "cauchy", (float(median), float(sigma)), generator)


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


METHODS = {"uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_, "random_": _random_to,
           "exponential_": exponential_, "geometric_": geometric_, "log_normal_": log_normal_, "cauchy_": cauchy_,
           "bernoulli": _bernoulli_method, "multinomial": _multinomial_method}


def install(cls):
    """Put the sampling methods on Tensor."""
    for name, fn in METHODS.items():
        setattr(cls, name, fn)
