"""OpInfo entries for the recurrent functions: the cells (torch.rnn_tanh_cell, rnn_relu_cell,
lstm_cell, gru_cell) and the whole-sequence torch.rnn_tanh, rnn_relu, lstm, gru in both of
torch's overloads (padded input; packed data + batch_sizes), with gradients of every weight."""

import numpy as np

from . import OpInfo, Sample, arr, register

F32, F64 = np.float32, np.float64
_GATES = {"rnn_tanh": 1, "rnn_relu": 1, "lstm": 4, "gru": 3}


def _w(rng, shape, dtype):
    return arr(rng, shape, dtype, -0.5, 0.5)


def _cell_samples(name, dtypes=(F32, F64), extras=True):
    g = _GATES[name.replace("_cell", "")]

    def hidden(rng, shape, dtype):
        h = arr(rng, shape, dtype, -1, 1)
        return [h, arr(rng, shape, dtype, -1, 1)] if g == 4 else h

    def gen(rng):
        out = []
        for d in dtypes:
            w_ih, w_hh, b_ih, b_hh = _w(rng, (g * 5, 4), d), _w(rng, (g * 5, 5), d), _w(rng, (g * 5,), d), \
                _w(rng, (g * 5,), d)
            out += [Sample((arr(rng, (3, 4), d), hidden(rng, (3, 5), d), w_ih, w_hh, b_ih, b_hh)),
                    Sample((arr(rng, (3, 4), d), hidden(rng, (3, 5), d), w_ih, w_hh)),
                    Sample((arr(rng, (4,), d), hidden(rng, (5,), d), w_ih, w_hh, b_ih, b_hh))]  # refused: unbatched
        if not extras:
            return out[:1]
        w_ih, w_hh, b = _w(rng, (g * 5, 4), F32), _w(rng, (g * 5, 5), F32), _w(rng, (g * 5,), F32)
        out += [Sample((arr(rng, (2, 4), F32), hidden(rng, (2, 5), F32), w_ih, w_hh), {"b_hh": b}),
                Sample((arr(rng, (0, 4), F32), hidden(rng, (0, 5), F32), w_ih, w_hh, b, b)),
                # refused: input size, batch size, gate count and dtype mismatches
                Sample((arr(rng, (3, 3), F32), hidden(rng, (3, 5), F32), w_ih, w_hh)),
                Sample((arr(rng, (2, 4), F32), hidden(rng, (3, 5), F32), w_ih, w_hh)),
                Sample((arr(rng, (3, 4), F32), hidden(rng, (3, 5), F32), w_ih[1:], w_hh)),
                Sample((arr(rng, (3, 4), F64), hidden(rng, (3, 5), F32), w_ih, w_hh))]
        if g == 4:
            out.append(Sample((arr(rng, (3, 4), F32), [arr(rng, (3, 5), F32)], w_ih, w_hh)))
        return out
    return gen


def _params(rng, name, num_layers, bidirectional, bias, input_size, hidden, proj=0, dtype=F32):
    g = _GATES[name]
    out = []
    real = proj or hidden
    for layer in range(num_layers):
        for _ in range(2 if bidirectional else 1):
            fan_in = input_size if layer == 0 else real * (2 if bidirectional else 1)
            out += [_w(rng, (g * hidden, fan_in), dtype), _w(rng, (g * hidden, real), dtype)]
            if bias:
                out += [_w(rng, (g * hidden,), dtype), _w(rng, (g * hidden,), dtype)]
            if proj:
                out.append(_w(rng, (proj, hidden), dtype))
    return out


def _sequence_samples(name):
    def hx(rng, layers, batch, hidden, proj, dtype):
        h = arr(rng, (layers, batch, proj or hidden), dtype, -1, 1)
        return [h, arr(rng, (layers, batch, hidden), dtype, -1, 1)] if name == "lstm" else h

    def gen(rng):
        out = []
        configs = [(2, True, True, True, 0, F32), (1, False, False, False, 0, F64)]
        if name == "lstm":
            configs.append((2, True, False, False, 2, F32))
        for layers, bi, bias, batch_first, proj, d in configs:
            n = layers * (2 if bi else 1)
            x = arr(rng, (2, 4, 3) if batch_first else (4, 2, 3), d)
            params = _params(rng, name, layers, bi, bias, 3, 4, proj, d)
            out.append(Sample((x, hx(rng, n, 2, 4, proj, d), params, bias, layers, 0.0, False, bi, batch_first)))
        # packed: 3 sequences of lengths 4, 2, 1 (dropout between the layers is off outside training)
        params = _params(rng, name, 2, True, True, 3, 4)
        out.append(Sample((arr(rng, (7, 3), F32), np.array([3, 2, 1, 1], np.int64), hx(rng, 4, 3, 4, 0, F32),
                           params, True, 2, 0.5, False, True)))
        # refused: wrong parameter count
        out.append(Sample((arr(rng, (3, 2, 3), F32), hx(rng, 1, 2, 4, 0, F32), params[:3], True, 1, 0.0, False,
                           False, False)))
        return out
    return gen


for _name in ("rnn_tanh", "rnn_relu", "lstm", "gru"):
    register(OpInfo(f"{_name}_cell", _cell_samples(f"{_name}_cell"), rtol=1e-5, atol=1e-6),
             OpInfo(f"{_name}_cell", _cell_samples(f"{_name}_cell", (np.float16,), False), rtol=2e-2, atol=2e-3,
                    grad=False),
             # jit=False: no eager re-run, as lax.scan under disable_jit costs seconds; the cells cover _step eagerly
             OpInfo(_name, _sequence_samples(_name), rtol=1e-5, atol=1e-5, jit=False))
