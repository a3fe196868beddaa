"""torch.nn.modules.rnn: RNN, LSTM, GRU (whole sequences, one op per forward) and their cells.

The math is functional.nn.rnn's (through torch.rnn_tanh / rnn_relu / lstm / gru and the *_cell
functions); these classes own the parameters in torch's names and order, the shape checks and
torch's handling of unbatched and packed input."""

from __future__ import annotations

import math
import numbers
import warnings

import facade

from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def _uniform_reset(module):
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


class RNNBase(Module):
    """Base class of RNN, LSTM and GRU: parameters `weight_ih_l{k}`, `weight_hh_l{k}`, `bias_ih_l{k}`,
    `bias_hh_l{k}` (and `weight_hr_l{k}` with LSTM's proj_size), `_reverse` for the second direction,
    all initialised from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
            if kind is int and value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        num_directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
            for direction in range(num_directions):
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, real_hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{k}_l{layer}{suffix}" for k in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(facade.empty(shape, **factory_kwargs)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in the order the op takes them (read afresh, so swapped parameters count)."""
        return [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]

    def flatten_parameters(self) -> None:
        """A no-op: there is no cuDNN weight buffer to compact (XLA takes the parameters as they are)."""

    def reset_parameters(self) -> None:
        _uniform_reset(self)

    def check_input(self, input, batch_sizes) -> None:
        wdtype = self._flat_weights[0].dtype
        if input.dtype != wdtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({wdtype}). Convert input: "
                             f"input.to({wdtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _zeros(self, batch, size, like):
        num_directions = 2 if self.bidirectional else 1
        return facade.zeros(self.num_layers * num_directions, batch, size, dtype=like.dtype, device=like.device)

    def _forward(self, name, input, hx):
        """RNN and GRU's forward (LSTM overrides the state handling): the op on the whole sequence."""
        op = {"RNN_TANH": facade.rnn_tanh, "RNN_RELU": facade.rnn_relu, "GRU": facade.gru}[self.mode]
        if isinstance(input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            hx = self._zeros(int(batch_sizes[0]), self.hidden_size, input) if hx is None else \
                self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(input, hx, batch_sizes)
            output, hidden = op(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers,
                                self.dropout, self.training, self.bidirectional)
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             f"{'tensor ' if name == 'RNN' else ''}instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            hx = self._zeros(input.size(0) if self.batch_first else input.size(1), self.hidden_size, input)
        self.check_forward_args(input, hx, None)
        output, hidden = op(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                            self.bidirectional, self.batch_first)
        if not is_batched:
            output, hidden = output.squeeze(batch_dim), hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """A multi-layer Elman RNN, h_t = tanh|relu(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh); see functional.nn.rnn.

    Input (L, N, H_in) [(N, L, H_in) with batch_first, (L, H_in) unbatched] or a PackedSequence, and
    optionally h_0 (D * num_layers, N, H_out); returns (output (L, N, D * H_out), h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward("RNN", input, hx)


class LSTM(RNNBase):
    """A multi-layer LSTM (gates i, f, g, o; optional projection of h to proj_size); see functional.nn.rnn.

    Input as RNN's, optionally (h_0, c_0); returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def _zero_state(self, batch, like):
        return (self._zeros(batch, self.proj_size if self.proj_size > 0 else self.hidden_size, like),
                self._zeros(batch, self.hidden_size, like))

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            hx = self._zero_state(int(batch_sizes[0]), input) if hx is None else \
                self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(input, hx, batch_sizes)
            output, h, c = facade.lstm(input, batch_sizes, list(hx), self._flat_weights, self.bias, self.num_layers,
                                       self.dropout, self.training, self.bidirectional)
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden((h, c), unsorted_indices))
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            hx = self._zero_state(input.size(0) if self.batch_first else input.size(1), input)
        else:
            want = 3 if is_batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                kind = "batched 3-D" if is_batched else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not is_batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, h, c = facade.lstm(input, list(hx), self._flat_weights, self.bias, self.num_layers, self.dropout,
                                   self.training, self.bidirectional, self.batch_first)
        if not is_batched:
            output, h, c = output.squeeze(batch_dim), h.squeeze(1), c.squeeze(1)
        return output, (h, c)


class GRU(RNNBase):
    """A multi-layer GRU (gates r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn))); see functional.nn.rnn.

    Input and h_0 as RNN's; returns (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward("GRU", input, hx)


# ---------------------------------------------------------------------------- cells

class RNNCellBase(Module):
    """Base class of the cells: `weight_ih` (chunks * hidden, input), `weight_hh` (chunks * hidden, hidden),
    `bias_ih`, `bias_hh` (or None), initialised from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(facade.empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(facade.empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(facade.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(facade.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        _uniform_reset(self)

    def _batched(self, name, input, states):
        """torch's dimension checks; returns (is_batched, input as (N, H_in), states as (N, H) or None)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for label, st in states.items():
            if st is not None and st.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {st.dim()}D instead")
        is_batched = input.dim() == 2
        if is_batched:
            return True, input, [st for st in states.values()]
        return False, input.unsqueeze(0), [None if st is None else st.unsqueeze(0) for st in states.values()]

    def _zeros(self, input):
        return facade.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """An Elman RNN cell, h' = tanh|relu(x W_ih^T + b_ih + h W_hh^T + b_hh): (N, H_in), (N, H) -> (N, H)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        is_batched, input, (hx,) = self._batched("RNNCell", input, {"hidden": hx})
        hx = self._zeros(input) if hx is None else hx
        if self.nonlinearity == "tanh":
            ret = facade.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = facade.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """An LSTM cell (gates i, f, g, o): input (N, H_in), (h, c) each (N, H) -> (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        states = {} if hx is None else {f"hx[{i}]": v for i, v in enumerate(hx)}
        is_batched, input, hx = self._batched("LSTMCell", input, states)
        if not hx:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        h, c = facade.lstm_cell(input, list(hx), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """A GRU cell (gates r, z, n): (N, H_in), (N, H) -> (N, H)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched, input, (hx,) = self._batched("GRUCell", input, {"hidden": hx})
        hx = self._zeros(input) if hx is None else hx
        ret = facade.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
