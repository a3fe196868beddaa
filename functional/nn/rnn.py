"""Recurrent networks with torch's equations, gate order and parameter layout.

Cells (one time step, `input` (B, H_in) or (H_in,), `hx` (B, H) or (H,)), with
`W_ih` (G*H, H_in), `W_hh` (G*H, H), biases (G*H,) and gates stacked in torch's order:

    RNN:  h' = tanh|relu(x W_ih^T + b_ih + h W_hh^T + b_hh)
    LSTM: i, f, g, o = split(x W_ih^T + b_ih + h W_hh^T + b_hh)          (G = 4)
          c' = sigmoid(f) * c + sigmoid(i) * tanh(g);  h' = sigmoid(o) * tanh(c')  [h' = h' W_hr^T with proj_size]
    GRU:  r, z = sigmoid(x W_i{r,z}^T + b_i{r,z} + h W_h{r,z}^T + b_h{r,z})    (G = 3)
          n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn));  h' = (1 - z) * n + z * h

`recurrent` runs a whole sequence through a stack of layers (both directions of a layer in one
`lax.scan`), so one call is one XLA program and its backward is the scan's VJP. Packed
variable-length batches (torch's PackedSequence data + batch_sizes) are unpacked to a
time-major padded array and masked: a sequence's state stops changing after its last step.
"""

import jax
import jax.numpy as jnp

from ..core import prng_key
from ..linalg import _hi
from .activation import relu

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "recurrent", "rnn_tanh", "rnn_relu", "lstm",
           "gru", "rnn_tanh_data", "rnn_relu_data", "lstm_data", "gru_data"]

_HALF = (jnp.float16, jnp.bfloat16)
_CHUNKS = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _mm(x, w):
    """x @ w^T over the last two axes at full precision (half types accumulate in float32)."""
    wt = jnp.swapaxes(w, -1, -2)
    if x.dtype in _HALF:
        return jnp.matmul(x, wt, precision=_hi(), preferred_element_type=jnp.float32).astype(x.dtype)
    return jnp.matmul(x, wt, precision=_hi())


def _step(mode, gi, h, c, w_hh, b_hh, w_hr=None):
    """One time step from the input projection `gi` = x W_ih^T + b_ih: returns (h', c')."""
    gh = _mm(h, w_hh)
    if b_hh is not None:
        gh = gh + b_hh
    if mode == "LSTM":
        i, f, g, o = jnp.split(gi + gh, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h if w_hr is None else _mm(h, w_hr)), c
    if mode == "GRU":
        ir, iz, i_n = jnp.split(gi, 3, axis=-1)
        hr, hz, h_n = jnp.split(gh, 3, axis=-1)
        r = jax.nn.sigmoid(ir + hr)
        z = jax.nn.sigmoid(iz + hz)
        n = jnp.tanh(i_n + r * h_n)
        return n + z * (h - n), c
    pre = gi + gh
    return (jnp.tanh(pre) if mode == "RNN_TANH" else relu(pre)), c


def _check_cell(chunks, input, hx, w_ih, w_hh):
    for a in (input, hx):  # torch's cells take batches only (the modules add the batch dimension)
        if a.ndim < 2:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(a.ndim, 1)}, "
                             f"{max(a.ndim, 1) - 1}], but got 1)")
    if input.shape[-1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {w_ih.shape[1]}")
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden0 batch size {hx.shape[0]}")
    hidden = hx.shape[-1]
    for wname, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.shape[0] != chunks * hidden:
            raise RuntimeError(f"{wname} first dim must be {chunks} * hidden_size = {chunks * hidden}, "
                               f"but got {w.shape[0]}")
    for a in (hx, w_ih, w_hh):
        if a.dtype != input.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {input.dtype} != {a.dtype}")


def _cell(mode, input, hx, w_ih, w_hh, b_ih, b_hh, c=None):
    _check_cell(_CHUNKS[mode], input, hx, w_ih, w_hh)
    gi = _mm(input, w_ih)
    if b_ih is not None:
        gi = gi + b_ih
    return _step(mode, gi, hx, c, w_hh, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step: tanh(input W_ih^T + b_ih + hx W_hh^T + b_hh); (B, H_in), (B, H) -> (B, H)."""
    return _cell("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step with relu: relu(input W_ih^T + b_ih + hx W_hh^T + b_hh)."""
    return _cell("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step; `hx` is the pair (h, c) and the result is (h', c') (gates i, f, g, o; see module doc)."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    h, c = hx
    return _cell("LSTM", input, h, w_ih, w_hh, b_ih, b_hh, c)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step (gates r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)); see module doc)."""
    return _cell("GRU", input, hx, w_ih, w_hh, b_ih, b_hh)[0]


# ---------------------------------------------------------------------------- whole sequences

def _layer(mode, x, h0, c0, weights, has_biases, proj, mask):
    """One layer, all directions in one scan. x (T, B, F); h0 (D, B, H_out); c0 (D, B, H) or None;
    weights: per direction (w_ih, w_hh[, b_ih, b_hh][, w_hr]); mask (T, B) or None.
    Returns the output (T, B, D * H_out) and the final (h (D, B, H_out), c)."""
    ndir = len(weights)

    def stack(k):
        return jnp.stack([w[k] for w in weights])

    w_ih, w_hh = stack(0), stack(1)
    b_ih = b_hh = w_hr = None
    if has_biases:
        b_ih, b_hh = stack(2)[:, None], stack(3)[:, None]  # (D, 1, G)
    if proj:
        w_hr = stack(-1)
    half = x.dtype in _HALF
    gi = jnp.einsum("tbf,dgf->dtbg", x, w_ih, precision=_hi(),
                    preferred_element_type=jnp.float32 if half else None).astype(x.dtype)  # (D, T, B, G)
    if b_ih is not None:
        gi = gi + b_ih[:, None]
    if ndir == 2:  # the reverse direction reads time backwards
        gi = jnp.stack([gi[0], gi[1, ::-1]])
    gi = jnp.swapaxes(gi, 0, 1)  # (T, D, B, G)
    m = None
    if mask is not None:
        m = jnp.stack([mask, mask[::-1]] if ndir == 2 else [mask], axis=1)[..., None]  # (T, D, B, 1)

    if ndir == 1:  # one direction: plain matrix products in the loop (XLA's CPU batched ones are slower)
        w_hh, b_hh, w_hr, h0, c0 = (None if a is None else a[0] for a in (w_hh, b_hh, w_hr, h0, c0))
        gi, m = gi[:, 0], None if m is None else m[:, 0]

    def body(carry, xs):
        h, c = carry
        g, mt = xs
        h2, c2 = _step(mode, g, h, c, w_hh, b_hh, w_hr)
        if mt is not None:  # finished sequences keep their state; their padded outputs are 0
            h2 = jnp.where(mt, h2, h)
            c2 = None if c is None else jnp.where(mt, c2, c)
            return (h2, c2), jnp.where(mt, h2, 0)
        return (h2, c2), h2

    (h, c), out = jax.lax.scan(body, (h0, c0), (gi, m))  # out (T, D, B, H_out)
    if ndir == 1:
        out, h, c = out[:, None], h[None], None if c is None else c[None]
    if ndir == 2:
        out = jnp.stack([out[:, 0], out[::-1, 1]], axis=1)
    t, _, b, hs = out.shape
    return jnp.swapaxes(out, 1, 2).reshape(t, b, ndir * hs), h, c


def _dropout(x, p, key):
    if p >= 1:
        return jnp.zeros_like(x)
    keep = jax.random.bernoulli(key, 1 - p, x.shape)
    return jnp.where(keep, x / (1 - p), 0).astype(x.dtype)


def _unpack(data, batch_sizes, batch):
    """PackedSequence data (N, F) -> time-major padded (T, B, F), the mask (T, B) and the (T, B)
    positions in the packed data (N where padded) that pack a (T, B, ...) array back."""
    offsets = jnp.cumsum(batch_sizes) - batch_sizes
    col = jnp.arange(batch)
    mask = col[None, :] < batch_sizes[:, None]
    pos = jnp.where(mask, offsets[:, None] + col[None, :], data.shape[0])
    x = jnp.where(mask[..., None], data[jnp.where(mask, pos, 0)], 0)
    return x, mask, pos


def _pack(x, pos, n):
    """(T, B, F) -> the packed (n, F): every valid step to its position (padded ones fall off the end)."""
    return jnp.zeros((n, x.shape[-1]), x.dtype).at[pos].set(x, mode="drop")


def recurrent(mode, input, hx, params, has_biases=True, num_layers=1, dropout=0.0, train=False,
              bidirectional=False, batch_first=False, batch_sizes=None, key=None):
    """A multi-layer (bi)directional RNN over a whole sequence, torch's `_VF.rnn_tanh/rnn_relu/lstm/gru`.

    mode:   "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
    input:  (T, B, H_in), or (B, T, H_in) with batch_first; with `batch_sizes` (T,) the packed
            data (sum(batch_sizes), H_in) of a PackedSequence (sequences sorted by decreasing length).
    hx:     (L * D, B, H_out), or for LSTM the pair (h0 (L * D, B, H_out), c0 (L * D, B, H)).
    params: the flat weights in torch's order: per layer, per direction, w_ih, w_hh[, b_ih, b_hh][, w_hr]
            (w_hr for LSTM with proj_size, then H_out = proj_size).
    dropout is applied to the outputs of every layer but the last when `train`; it needs `key`
    (0-dim int64 key data, see functional.prng_key).

    Returns (output (T, B, D * H_out) [or packed (N, D * H_out)], h_n) and for LSTM also c_n.
    """
    lstm_mode = mode == "LSTM"
    h0, c0 = (hx[0], hx[1]) if lstm_mode else (hx, None)
    ndir = 2 if bidirectional else 1
    per = len(params) // (num_layers * ndir)
    proj = per - 2 - 2 * bool(has_biases)  # 1: LSTM's w_hr
    if per * num_layers * ndir != len(params) or proj not in ((0, 1) if lstm_mode else (0,)):
        raise RuntimeError(f"{mode.lower()}: got an incorrect number of RNN parameters ({len(params)})")
    mask = pack = None
    if batch_sizes is not None:
        x, mask, pack = _unpack(input, batch_sizes, h0.shape[1])
    else:
        x = jnp.swapaxes(input, 0, 1) if batch_first else input
    if dropout and train and num_layers > 1:
        if key is None:
            raise ValueError("recurrent: dropout in training needs a random key (see functional.prng_key)")
        keys = jax.random.split(prng_key(key), num_layers - 1)
    hs, cs = [], []
    for layer in range(num_layers):
        group = slice(layer * ndir, (layer + 1) * ndir)
        weights = [params[(layer * ndir + d) * per:(layer * ndir + d + 1) * per] for d in range(ndir)]
        x, h, c = _layer(mode, x, h0[group], None if c0 is None else c0[group], weights, has_biases, proj, mask)
        hs.append(h)
        cs.append(c)
        if dropout and train and layer < num_layers - 1:
            x = _dropout(x, dropout, keys[layer])
    if pack is not None:
        out = _pack(x, pack, input.shape[0])
    else:
        out = jnp.swapaxes(x, 0, 1) if batch_first else x
    h_n = jnp.concatenate(hs)
    return (out, h_n, jnp.concatenate(cs)) if lstm_mode else (out, h_n)


def _forms(mode):
    """torch's two overloads of one mode: padded `input` and packed `data` + `batch_sizes`."""
    def padded(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first, key=None):
        return recurrent(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                         batch_first, key=key)

    def packed(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional, key=None):
        return recurrent(mode, data, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                         batch_sizes=batch_sizes, key=key)

    name = mode.lower()
    for f, n in ((padded, name), (packed, name + "_data")):
        f.__name__ = f.__qualname__ = n
        f.__doc__ = f"`recurrent` with mode={mode!r} (torch.{name}, {'packed' if f is packed else 'padded'} input)."
    return padded, packed


rnn_tanh, rnn_tanh_data = _forms("RNN_TANH")
rnn_relu, rnn_relu_data = _forms("RNN_RELU")
lstm, lstm_data = _forms("LSTM")
gru, gru_data = _forms("GRU")
