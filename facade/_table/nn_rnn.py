"""Table rows of torch's recurrent functions: the cells (torch.rnn_tanh_cell, rnn_relu_cell, lstm_cell,
gru_cell) and the whole-sequence torch.rnn_tanh, rnn_relu, lstm and gru, each with torch's two
overloads (padded `input`, or packed `data` + `batch_sizes`). Those four are installed as functions
that pick the overload and draw the dropout key (only when dropout applies)."""

from functional.nn import rnn as R

from .._dispatch import Op, bind, call
from .._random import next_key

MODULE = "torch"  # torch has no recurrent functions in torch.nn.functional

_CELL = ("input", "hx", "w_ih", "w_hh", "b_ih", "b_hh")
OPS = [Op(name, getattr(R, name), arrays=_CELL, method=False, grad_name=grad)
       for name, grad in (("rnn_tanh_cell", "TanhBackward0"), ("rnn_relu_cell", "ReluBackward0"),
                          ("lstm_cell", "MulBackward0"), ("gru_cell", "AddBackward0"))]


def _sequence(name, grad):
    padded = Op(name, getattr(R, name), arrays=("input", "hx", "params", "key"), method=False, function=False,
                grad_name=grad)
    packed = Op(name, getattr(R, name + "_data"), arrays=("data", "batch_sizes", "hx", "params", "key"),
                method=False, function=False, grad_name="CatBackward0")

    def fn(*args, **kwargs):
        is_packed = (len(args) > 3 and isinstance(args[3], (list, tuple))) or "batch_sizes" in kwargs
        op = packed if is_packed else padded
        vals = bind(op, args, kwargs)
        i = op.index
        x = vals[0]
        if is_packed:  # batch_sizes lives on the CPU in torch; the op wants it with the data
            vals[1] = vals[1].to(x.device)
        if vals[i["dropout"]] and vals[i["train"]] and vals[i["num_layers"]] > 1 and vals[i["key"]] is None:
            vals[i["key"]] = next_key(device=x.device)
        return call(op, tuple(vals), None)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: see functional.nn.recurrent.\n\n{R.recurrent.__doc__}"
    return fn


FUNCTIONS = {name: _sequence(name, grad) for name, grad in (("rnn_tanh", "StackBackward0"),
                                                              ("rnn_relu", "StackBackward0"),
                                                              ("lstm", "MkldnnRnnLayerBackward0"),
                                                              ("gru", "StackBackward0"))}
