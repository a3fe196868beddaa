"""nn.RNN / LSTM / GRU, the cells and nn.utils.rnn against real torch: outputs, gradients, state_dict,
initialisation, signatures, packed sequences and torch's errors."""

from __future__ import annotations

import inspect
import pickle
import warnings

import numpy as np
import pytest
import torch

import facade

from ._compare import same
from ._nn import check_init, check_module

RNG = np.random.default_rng(0)


def arr(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def lib(x):
    return torch if isinstance(x, torch.Tensor) else facade


def with_state(m, x, *states):
    return m(x, tuple(states) if len(states) > 1 else states[0])


def packed(lengths, enforce_sorted=False, batch_first=False):
    """call= for check_module: pack the padded input, run, and pad the output back."""
    def call(m, x, *states):
        utils = lib(x).nn.utils.rnn
        p = utils.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        out, hidden = m(p, (tuple(states) if len(states) > 1 else states[0]) if states else None)
        assert type(out).__name__ == "PackedSequence"
        return utils.pad_packed_sequence(out, batch_first=batch_first), hidden
    return call


MODULE_CASES = [
    ("nn.LSTM", (3, 4), {"num_layers": 2, "bidirectional": True, "batch_first": True},
     [arr(2, 5, 3), arr(4, 2, 4), arr(4, 2, 4)], with_state, True),
    ("nn.LSTM", (3, 5), {"num_layers": 2, "proj_size": 2, "bias": False}, [arr(4, 2, 3)], None, True),
    ("nn.LSTM", (3, 4), {"bidirectional": True}, [arr(5, 3), arr(2, 4), arr(2, 4)], with_state, True),  # unbatched
    ("nn.LSTM", (3, 4), {"num_layers": 2, "bidirectional": True}, [arr(5, 3, 3), arr(4, 3, 4), arr(4, 3, 4)],
     packed([2, 5, 3]), True),
    ("nn.LSTM", (3, 4), {"num_layers": 2, "dropout": 1.0}, [arr(4, 2, 3)], None, True),  # layer 2 sees zeros
    ("nn.GRU", (3, 4), {"num_layers": 2}, [arr(5, 2, 3), arr(2, 2, 4)], with_state, False),
    ("nn.GRU", (3, 4), {}, [arr(5, 3)], None, True),  # unbatched
    ("nn.GRU", (3, 4), {"batch_first": True}, [arr(3, 4, 3), arr(1, 3, 4)], packed([4, 3, 1], True, True), True),
    ("nn.RNN", (3, 4), {"nonlinearity": "relu", "bias": False, "batch_first": True}, [arr(2, 5, 3)], None, True),
    ("nn.RNN", (3, 4), {}, [arr(5, 3, 3)], packed([5, 1, 3]), True),
    ("nn.LSTMCell", (3, 4), {}, [arr(2, 3), arr(2, 4), arr(2, 4)], with_state, True),
    ("nn.LSTMCell", (3, 4), {"bias": False}, [arr(3)], None, True),  # unbatched
    ("nn.GRUCell", (3, 4), {}, [arr(2, 3), arr(2, 4)], None, True),
    ("nn.RNNCell", (3, 4), {"nonlinearity": "relu", "bias": False}, [arr(2, 3)], None, True),
    ("nn.RNNCell", (3, 4), {}, [arr(3), arr(4)], None, True),
]


@pytest.mark.parametrize("path,args,kwargs,inputs,call,train", MODULE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MODULE_CASES)])
def test_module(path, args, kwargs, inputs, call, train):
    check_module(path, args, kwargs, inputs, train=train, call=call, rtol=1e-4, atol=1e-5)


def test_dropout_in_training():
    """Between layers in training: a fresh mask per call (so train differs from eval); eval is torch's."""
    facade.manual_seed(0)
    m = facade.nn.GRU(3, 8, num_layers=2, dropout=0.5)
    x = facade.tensor(arr(6, 2, 3))
    a, b = m(x)[0], m(x)[0]
    m.eval()
    e = m(x)[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    assert not np.allclose(a.detach().numpy(), e.detach().numpy())
    np.testing.assert_allclose(m(x)[0].detach().numpy(), e.detach().numpy())


@pytest.mark.parametrize("path,args,kwargs", [("nn.LSTM", (4, 32), {"num_layers": 2, "proj_size": 16}),
                                              ("nn.GRU", (4, 32), {"bidirectional": True}),
                                              ("nn.RNNCell", (4, 64), {})])
def test_init(path, args, kwargs):
    check_init(path, args, kwargs)


CLASSES = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


@pytest.mark.parametrize("name", CLASSES)
def test_signature(name):
    t, f = getattr(torch.nn, name), getattr(facade.nn, name)
    want = [(p.name, p.kind, p.default) for p in inspect.signature(t).parameters.values()]
    assert [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()] == want
    if name not in ("RNNBase", "RNNCellBase"):
        assert list(inspect.signature(f.forward).parameters) == list(inspect.signature(t.forward).parameters)
    assert getattr(f, "__constants__", None) == getattr(t, "__constants__", None)


def test_attributes():
    for lib_ in (torch, facade):
        lib_.manual_seed(0)
    t, f = torch.nn.LSTM(3, 5, 2, bidirectional=True, proj_size=2), facade.nn.LSTM(3, 5, 2, bidirectional=True,
                                                                                   proj_size=2)
    assert f._flat_weights_names == t._flat_weights_names
    assert [tuple(w.shape) for w in f._flat_weights] == [tuple(w.shape) for w in t._flat_weights]
    assert [[tuple(w.shape) for w in ws] for ws in f.all_weights] == [[tuple(w.shape) for w in ws]
                                                                       for ws in t.all_weights]
    assert f.flatten_parameters() is None
    assert repr(facade.nn.RNN(3, 4, nonlinearity="relu", dropout=0.5, num_layers=2)) == \
        repr(torch.nn.RNN(3, 4, nonlinearity="relu", dropout=0.5, num_layers=2))
    f.weight_ih_l0 = facade.nn.Parameter(facade.zeros(20, 3))  # a replaced parameter is used
    assert f._flat_weights[0] is f.weight_ih_l0


def _x(lib_, *shape, dtype=None):
    return lib_.tensor(arr(*shape), dtype=dtype)


ERRORS = [  # the first two are the messages of the issue; the rest use small sizes (each new shape compiles)
    lambda L: L.nn.LSTM(10, 20)(_x(L, 5, 3, 5)),  # input.size(-1) must be equal to input_size. Expected 10, got 5
    lambda L: L.nn.GRU(10, 20, 2)(_x(L, 5, 3, 10), _x(L, 1, 3, 20)),  # Expected hidden size (2, 3, 20), got [1, 3, 20]
    lambda L: L.nn.RNN(3, 4)(_x(L, 5, 2, 3), _x(L, 2, 4)),
    lambda L: L.nn.RNN(3, 4)(_x(L, 5, 3), _x(L, 1, 2, 4)),
    lambda L: L.nn.LSTM(3, 4)(_x(L, 5, 2, 3), (_x(L, 1, 2, 4), _x(L, 1, 2, 5))),
    lambda L: L.nn.LSTM(3, 4)(_x(L, 5, 2, 3), (_x(L, 1, 2, 4), _x(L, 2, 4))),
    lambda L: L.nn.LSTM(3, 5, proj_size=2)(_x(L, 5, 2, 3), (_x(L, 1, 2, 5), _x(L, 1, 2, 5))),
    lambda L: L.nn.LSTM(3, 4)(_x(L, 5, 3), (_x(L, 1, 1, 4), _x(L, 1, 4))),
    lambda L: L.nn.GRU(3, 4)(_x(L, 2, 5, 2, 3)),
    lambda L: L.nn.RNN(3, 4)(_x(L, 3)),
    lambda L: L.nn.LSTM(3, 4)(_x(L, 5, 2, 3, dtype=L.float64)),
    lambda L: L.nn.RNN(3, 4, proj_size=2),
    lambda L: L.nn.GRU(3, 4, proj_size=2),
    lambda L: L.nn.RNN(3, 4, nonlinearity="gelu"),
    lambda L: L.nn.LSTM(3, 4, proj_size=4),
    lambda L: L.nn.LSTM(3, 4, proj_size=-1),
    lambda L: L.nn.LSTM(3, 4, dropout=1.5),
    lambda L: L.nn.LSTM(3, 4, num_layers=0),
    lambda L: L.nn.LSTM(3, 0),
    lambda L: L.nn.LSTM(3.0, 4),
    lambda L: L.nn.LSTM(3, 4, bias=1),
    lambda L: L.nn.LSTMCell(3, 4)(_x(L, 2, 2, 3)),
    lambda L: L.nn.LSTMCell(3, 4)(_x(L, 2, 3), (_x(L, 2, 4), _x(L, 1, 2, 4))),
    lambda L: L.nn.GRUCell(3, 4)(_x(L, 2, 3), _x(L, 1, 2, 4)),
    lambda L: L.nn.RNNCell(3, 4)(_x(L, 2, 5)),
    lambda L: L.nn.RNNCell(3, 4)(_x(L, 2, 3), _x(L, 3, 4)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=range(len(ERRORS)))
def test_errors(fn):
    try:
        fn(torch)
    except Exception:
        same(fn)  # the same type and message
    else:
        pytest.fail("torch accepts this call")


def test_dropout_warning():
    for lib_ in (torch, facade):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got "
                                             "dropout=0.5 and num_layers=1"):
            lib_.nn.GRU(3, 4, dropout=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        facade.nn.GRU(3, 4, num_layers=2, dropout=0.5)


# ---------------------------------------------------------------------------- nn.utils.rnn

def _u(lib_):
    return lib_.nn.utils.rnn


PADDED = arr(4, 3, 2)


@pytest.mark.parametrize("lengths,batch_first,enforce_sorted", [([4, 2, 1], False, True), ([2, 4, 1], False, False),
                                                                ([3, 1, 2, 1], True, False), ([1, 1, 1], False, True),
                                                                ([2, 2, 1, 2, 1], False, False)])
def test_pack_pad_round_trip(lengths, batch_first, enforce_sorted):
    x = np.ascontiguousarray(PADDED.swapaxes(0, 1)) if batch_first else PADDED
    if len(lengths) != x.shape[0 if batch_first else 1]:
        x = arr(len(lengths), 3, 2) if batch_first else arr(3, len(lengths), 2)

    def fn(L):
        p = _u(L).pack_padded_sequence(L.tensor(x), L.tensor(lengths), batch_first, enforce_sorted)
        return (type(p).__name__, tuple(p), _u(L).pad_packed_sequence(p, batch_first, -1.0),
                _u(L).pad_packed_sequence(p, batch_first, 0.5, total_length=6), _u(L).unpack_sequence(p))
    same(fn)


def test_pack_gradient():
    for L in (torch, facade):
        x = L.tensor(PADDED, requires_grad=True)
        p = _u(L).pack_padded_sequence(x, [4, 1, 2], enforce_sorted=False)
        (p.data * L.arange(1.0, 8.0)[:, None]).sum().backward()
        if L is torch:
            want = x.grad.numpy()
        else:
            np.testing.assert_allclose(x.grad.numpy(), want)


@pytest.mark.parametrize("batch_first,padding_side", [(False, "right"), (True, "left"), (True, "right")])
def test_pad_sequence(batch_first, padding_side):
    seqs = [arr(3, 2), arr(5, 2), arr(1, 2)]
    same(lambda L: _u(L).pad_sequence([L.tensor(s) for s in seqs], batch_first, 2.5, padding_side))
    same(lambda L: _u(L).pad_sequence([L.tensor([1, 2]), L.tensor([3.0])], batch_first, 2.5, padding_side))
    same(lambda L: _u(L).unpad_sequence(_u(L).pad_sequence([L.tensor(s) for s in seqs], batch_first),
                                        L.tensor([3, 5, 1]), batch_first))
    same(lambda L: tuple(_u(L).pack_sequence([L.tensor(s) for s in seqs], enforce_sorted=False)))


def test_packed_sequence_object():
    p = _u(facade).pack_sequence([facade.tensor(arr(3, 2)), facade.tensor(arr(1, 2))])
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert repr(p).startswith("PackedSequence(data=tensor(") and isinstance(p, tuple)
    assert pickle.loads(pickle.dumps(p)).batch_sizes.tolist() == p.batch_sizes.tolist()
    d = p.to(facade.float64)
    assert d.data.dtype == facade.float64 and d.batch_sizes is p.batch_sizes and p.to(facade.float32) is p
    assert p.double().data.dtype == facade.float64 and p.is_cuda is False
    q = facade.nn.utils.rnn.PackedSequence(facade.ones(3), facade.tensor([2, 1]))
    assert q.sorted_indices is None and q.unsorted_indices is None
    q = _u(facade).PackedSequence((facade.ones(3), facade.tensor([2, 1])), sorted_indices=facade.tensor([1, 0]))
    assert q.unsorted_indices.tolist() == [1, 0]


UTIL_ERRORS = [
    lambda L: _u(L).pack_padded_sequence(L.tensor(PADDED), [2, 4, 1]),
    lambda L: _u(L).pack_padded_sequence(L.tensor(PADDED), [4, 2, 0]),
    lambda L: _u(L).pack_padded_sequence(L.tensor(PADDED), [4, 2]),
    lambda L: _u(L).pack_padded_sequence(L.zeros(0, 3, 2), [1, 1, 1]),
    lambda L: _u(L).pad_packed_sequence(_u(L).pack_padded_sequence(L.tensor(PADDED), [4, 2, 1]), total_length=3),
    lambda L: _u(L).pad_sequence([]),
    lambda L: _u(L).pad_sequence([L.ones(2, 3), L.ones(3, 2)]),
    lambda L: _u(L).pad_sequence([L.ones(2, 3)], padding_side="middle"),
    lambda L: _u(L).pack_sequence([L.ones(2, 3), L.ones(3, 3)]),
]


@pytest.mark.parametrize("fn", UTIL_ERRORS, ids=range(len(UTIL_ERRORS)))
def test_util_errors(fn):
    same(fn)
