"""No hidden device-to-host syncs in an eager training step (issue 11, item 5; facade/_deferred.py).

A value check (index bounds, class targets, BCE range, integer division by zero) reads host values
where they already are (CPU buffers) and is deferred to the next sync point on an accelerator.
The accelerator path runs here on CPU under `_deferred.as_accelerator()`.

On CPU, jax's `transfer_guard_device_to_host("disallow")` fires only for reads that need a copy
(an int4 array, say): a CPU buffer is handed to numpy zero-copy, so the guard alone would let
every host read through and the test could not fail. `strict_guard()` closes that gap: under the
same jax guard it also refuses the zero-copy reads (`jax.Array._value`, behind `.item()`,
`.tolist()`, `bool()`, `int()`, `float()`, `print`, `jax.device_get`, and numpy's array
constructors), asking jax's own guard whether transfers are disallowed at that moment (a copy of
a fresh int4 probe), so a nested `transfer_guard_device_to_host("allow")` (the user's `.item()`)
is honoured. `test_guard_fires` checks both guards fire, and fails if they cannot.
"""

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import facade
from facade import _deferred

_ArrayImpl = type(jnp.zeros(()))
_VALUE = _ArrayImpl._value  # the property every Python-level host read of a jax.Array goes through
_NUMPY = ("asarray", "array", "asanyarray", "ascontiguousarray")


def _transfers_disallowed():
    """What jax's device-to-host guard says now, asked with a read that needs a copy on every backend."""
    try:
        _VALUE.fget(jnp.zeros(2, jnp.int4))
    except Exception as e:  # jax's JaxRuntimeError
        if "Disallowed device-to-host transfer" not in str(e):
            raise
        return True
    return False


def _refuse(a):
    if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer) and _transfers_disallowed():
        raise RuntimeError(f"Disallowed device-to-host transfer (zero-copy on CPU): shape={a.shape}, dtype={a.dtype}")


@contextlib.contextmanager
def strict_guard():
    """jax.transfer_guard_device_to_host("disallow_explicit") (as "disallow", and refusing jax.device_get too),
    refusing zero-copy CPU reads as well (module docstring)."""
    def value(self):
        _refuse(self)
        return _VALUE.fget(self)

    def guarded(f):
        def g(a, *args, **kwargs):
            _refuse(a)
            return f(a, *args, **kwargs)
        return g

    saved = {n: getattr(np, n) for n in _NUMPY}
    try:
        _ArrayImpl._value = property(value)
        for n, f in saved.items():
            setattr(np, n, guarded(f))
        with jax.transfer_guard_device_to_host("disallow_explicit"):  # jax.device_get too
            yield
    finally:
        _ArrayImpl._value = _VALUE
        for n, f in saved.items():
            setattr(np, n, f)


_READS = {
    "np.asarray": lambda a, t: np.asarray(a), "np.array": lambda a, t: np.array(a),
    "item": lambda a, t: a[0].item(), "tolist": lambda a, t: a.tolist(), "bool": lambda a, t: bool(a[0]),
    "int": lambda a, t: int(a[0]), "float": lambda a, t: float(a[0]), "device_get": lambda a, t: jax.device_get(a),
    "str": lambda a, t: str(a), "Tensor.item": lambda a, t: t[0].item(), "Tensor.tolist": lambda a, t: t.tolist(),
    "Tensor.numpy": lambda a, t: t.numpy(), "Tensor repr": lambda a, t: repr(t),
}


def test_jax_guard_fires():
    """jax's guard refuses a read that copies (an int4 array, on every backend; on an accelerator any read)."""
    with jax.transfer_guard_device_to_host("disallow"), pytest.raises(Exception, match="Disallowed device-to-host"):
        np.asarray(jnp.zeros(2, jnp.int4))
    if jax.default_backend() != "cpu":
        with jax.transfer_guard_device_to_host("disallow"), pytest.raises(Exception, match="Disallowed"):
            np.asarray(jnp.arange(3.0))


@pytest.mark.parametrize("name", _READS)
def test_strict_guard_fires(name):
    """The strict guard refuses each kind of deliberate host read (else the step test below could not fail),
    allows it within a nested "allow", and leaves nothing patched."""
    read = _READS[name]
    with strict_guard():
        a, t = jnp.arange(4.0) + 1, facade.arange(4.0) + 1
        with pytest.raises(Exception, match="Disallowed device-to-host"):
            read(a, t)
        with jax.transfer_guard_device_to_host("allow"):
            read(a, t)
    read(jnp.arange(4.0) + 1, facade.arange(4.0) + 1)


# ---------------------------------------------------------------------------- a training step

V, D, T, B = 40, 32, 8, 4


class _Tiny(facade.nn.Module):
    """A one-block causal transformer language model."""

    def __init__(self):
        super().__init__()
        self.emb = facade.nn.Embedding(V, D)
        self.pos = facade.nn.Parameter(facade.randn(T, D) * 0.02)
        self.block = facade.nn.TransformerEncoderLayer(D, 4, 2 * D, dropout=0.1, batch_first=True)
        self.head = facade.nn.Linear(D, V)

    def forward(self, x):
        h = self.emb(x) + self.pos[: x.shape[1]]
        mask = facade.nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.head(self.block(h, src_mask=mask, is_causal=True))


def _train(steps, guard):
    """Losses of `steps` eager AdamW steps (the loss read with the user's own .item(), outside the guard), and
    the number of value checks each step left queued for that read."""
    facade.manual_seed(0)
    model = _Tiny()
    opt = facade.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    losses, queued = [], []
    for _ in range(steps):
        with guard():
            seq = facade.randint(0, V, (B, T + 1))
            x, y = seq[:, :-1], seq[:, 1:]
            logits = model(x)
            loss = facade.nn.functional.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
            picked = logits.log_softmax(-1).gather(-1, y.unsqueeze(-1))  # gather's bounds check
            loss = loss - 0.0 * picked.mean()
            opt.zero_grad()
            loss.backward()
            facade.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        queued.append(len(_deferred._PENDING))
        with jax.transfer_guard_device_to_host("allow"):
            losses.append(loss.item())
    return losses, queued


def test_training_step_no_host_sync():
    """On an accelerator (emulated) a training step reads nothing back until the user's .item(); its checks
    (embedding, cross_entropy's targets, gather) ran on the device and were read there; the losses are those of
    the host-checked CPU path, bit for bit."""
    reference, queued = _train(3, contextlib.nullcontext)
    assert queued == [0, 0, 0]  # CPU: checked at the call
    with _deferred.as_accelerator():
        _train(1, contextlib.nullcontext)  # compiles the device checks (the guard is about reads, not compiles)
        losses, queued = _train(3, strict_guard)
    assert losses == reference
    assert queued == [3, 3, 3]
    assert not _deferred._PENDING  # .item() read them


def test_the_cpu_step_reads_the_host():
    """The same step with CPU checks does read values (so the strict guard can catch a step that syncs)."""
    with pytest.raises(RuntimeError, match="Disallowed device-to-host"):
        _train(1, strict_guard)


# ---------------------------------------------------------------------------- errors stay torch's

def _F(m):
    return m.nn.functional


_BAD = {
    "embedding": lambda m: _F(m).embedding(m.tensor([[1, 7]]), m.ones(5, 3)),
    "cross_entropy": lambda m: _F(m).cross_entropy(m.zeros(2, 3), m.tensor([1, 3])),
    "nll_loss": lambda m: _F(m).nll_loss(m.zeros(2, 3), m.tensor([-100, -2])),
    "gather": lambda m: m.zeros(3, 4).gather(1, m.tensor([[0, 4]])),
    "gather negative": lambda m: m.zeros(3, 4).gather(1, m.tensor([[-1]])),
    "index_copy": lambda m: m.zeros(3, 4).index_copy(0, m.tensor([-1]), m.ones(1, 4)),
    "index_fill": lambda m: m.zeros(3, 4).index_fill(0, m.tensor([-4]), 1.0),
    "scatter": lambda m: m.zeros(3, 4).scatter(0, m.tensor([[3]]), m.ones(1, 1)),
    "index_select": lambda m: m.zeros(3, 4).index_select(0, m.tensor([1, -4])),
    "index_add 1-d": lambda m: m.zeros(3).index_add(0, m.tensor([3]), m.ones(1)),
    "index_add_ 2-d": lambda m: m.zeros(3, 2).index_add_(0, m.tensor([3]), m.ones(1, 2)),
    "take": lambda m: m.zeros(2, 2).take(m.tensor([4])),
    "getitem": lambda m: m.zeros(4)[m.tensor([4])],
    "binary_cross_entropy": lambda m: _F(m).binary_cross_entropy(m.tensor([0.5, 1.5]), m.tensor([1.0, 0.0])),
    "binary_cross_entropy nan": lambda m: _F(m).binary_cross_entropy(m.tensor([float("nan")]), m.tensor([1.0])),
    "floor_divide": lambda m: m.tensor([3]) // m.tensor([0]),
    "remainder": lambda m: m.tensor([3, 4]) % m.tensor([1, 0]),
    "fmod by int": lambda m: m.fmod(m.tensor([3]), 0),
    "div floor": lambda m: m.div(5, m.tensor([0, 2]), rounding_mode="floor"),
    "bernoulli": lambda m: m.bernoulli(m.tensor([0.5, 1.5])),
    "normal std": lambda m: m.normal(m.zeros(2), m.tensor([1.0, -1.0])),
    "multinomial": lambda m: m.multinomial(m.tensor([0.5, float("inf")]), 1),
    "multinomial rows": lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
    "poisson": lambda m: m.poisson(m.tensor([-1.0])),
}
_GOOD = {  # values at the edges of the ranges: no error
    "embedding": lambda m: _F(m).embedding(m.tensor([0, 4]), m.ones(5, 3)),
    "cross_entropy ignore_index": lambda m: _F(m).cross_entropy(m.zeros(2, 3), m.tensor([2, -100])),
    "gather": lambda m: m.zeros(3, 4).gather(1, m.tensor([[0, 3]])),
    "take negative": lambda m: m.arange(4.0).take(m.tensor([-4, 3])),
    "getitem negative": lambda m: m.arange(4.0)[m.tensor([-4, 3])],
    "binary_cross_entropy": lambda m: _F(m).binary_cross_entropy(m.tensor([0.0, 1.0]), m.tensor([1.0, 0.0])),
    "floor_divide": lambda m: m.tensor([3]) // m.tensor([-1]),
    "float division": lambda m: m.tensor([3]) // m.tensor([0.0]),
}


def _torch_error(case):
    with pytest.raises(Exception) as e:
        case(torch)
    return type(e.value), str(e.value)


@pytest.mark.parametrize("name", _BAD)
def test_host_check_raises_at_the_call(name):
    kind, message = _torch_error(_BAD[name])
    with pytest.raises(kind) as e:
        _BAD[name](facade)
    assert str(e.value) == message


@pytest.mark.parametrize("name", [n for n in _BAD if n != "fmod by int"])  # a Python 0: checked at the call
def test_device_check_raises_at_the_next_sync(name):
    """Deferred, the error is torch's, raised by the next read of a device value, once."""
    kind, message = _torch_error(_BAD[name])
    try:
        with _deferred.as_accelerator():
            _BAD[name](facade)  # queued, not raised
            assert _deferred._PENDING
            with pytest.raises(kind) as e:
                facade.ones(2).sum().item()
            assert str(e.value) == message
            assert "deferred" in "".join(e.value.__notes__)
            assert facade.ones(2).sum().item() == 2.0
    finally:
        _deferred._PENDING.clear()


@pytest.mark.parametrize("name", _GOOD)
def test_valid_values_pass(name):
    expected = _GOOD[name](torch)
    for ctx in (contextlib.nullcontext, _deferred.as_accelerator):
        with ctx():
            got = _GOOD[name](facade)
            assert torch.equal(torch.from_numpy(got.detach().numpy().copy()), expected)
        assert not _deferred._PENDING


def test_queue_is_read_when_full(monkeypatch):
    """A loop that never syncs still sees its error, after at most _LIMIT deferred checks."""
    monkeypatch.setattr(_deferred, "_LIMIT", 3)
    idx, w = facade.tensor([0]), facade.ones(3, 2)
    try:
        with _deferred.as_accelerator():
            _F(facade).embedding(idx + 5, w)
            _F(facade).embedding(idx, w)
            with pytest.raises(IndexError, match="index out of range in self"):
                _F(facade).embedding(idx, w)
            assert not _deferred._PENDING
    finally:
        _deferred._PENDING.clear()


_VIEWS = {  # the target is a view with as many values as its base (a CPU device array): checked on the base
    "reshape, bad": lambda m: _F(m).cross_entropy(m.zeros(2, 3), m.tensor([[1], [3]], device="cpu").reshape(-1)),
    "transpose, bad": lambda m: _F(m).nll_loss(m.zeros(2, 3), m.tensor([[0], [-2]], device="cpu").t()[0]),
    "reshape, good": lambda m: _F(m).cross_entropy(m.zeros(2, 3), m.tensor([[1], [2]], device="cpu").reshape(-1)),
    "embedding of a view": lambda m: _F(m).embedding(m.tensor([[4, 0]], device="cpu").t(), m.ones(5, 3)),
    "embedding of a view, bad": lambda m: _F(m).embedding(m.tensor([[5, 0]], device="cpu").t(), m.ones(5, 3)),
    # fewer values than the base (whose 9 is out of range): the view itself is checked, and passes
    "narrow of a bad base": lambda m: _F(m).cross_entropy(m.zeros(2, 3), m.tensor([1, 2, 9], device="cpu")[:2]),
}


@pytest.mark.parametrize("name", _VIEWS)
def test_checks_of_views_behave_like_torch(name):
    """A view's values are checked through its base's ready buffer where that is exact (the check then does not
    wait for the program making the view, queued behind a training step's forward); errors stay torch's."""
    try:
        expected = _VIEWS[name](torch)
    except Exception as e:  # noqa: BLE001 - torch's error is the expectation
        with pytest.raises(type(e)) as got:
            _VIEWS[name](facade)
        assert str(got.value) == str(e)
        return
    got = _VIEWS[name](facade)
    assert torch.equal(torch.from_numpy(got.detach().numpy().copy()), expected)


def test_a_view_check_reads_its_base():
    base = facade.tensor([[1], [2]], device="cpu")
    assert _deferred._base_passes(base.reshape(-1), lambda v: (v < 3).all())
    assert not _deferred._base_passes(base.reshape(-1), lambda v: (v < 2).all())
    assert not _deferred._base_passes(base[0], lambda v: True)  # fewer values than the base: not its base's
    assert not _deferred._base_passes(base, lambda v: True)  # not a view
