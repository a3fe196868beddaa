"""OpInfo entries for activations (functional/nn/activation.py, facade/_table/nn_activation.py).

Samples: float32 in several shapes (0-dim, empty), float64, a non-contiguous view, integer and bool
inputs (torch computes some in integers and refuses others: the facade must raise the same type),
keyword arguments, and the kinks where torch's gradient is a convention (exact 0 for the relu family,
the bounds of hardtanh/relu6/hardsigmoid/hardswish, +-lambd of the shrinks, the threshold itself).
In-place variants run on a non-leaf copy (x * 1), so their gradients are checked too.
"""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64, F16, I64, B = np.float32, np.float64, np.float16, np.int64, np.bool_


def A(*values, dtype=F32):
    return np.array(values, dtype=dtype)


KINKS = A(-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, -6.0, 25.0, -0.0)


def act(kinks=KINKS, ints=(I64, B), **kwargs):
    def gen(rng):
        out = [Sample((arr(rng, s, F32, -4, 4),), dict(kwargs)) for s in [(), (0,)]]
        out.append(Sample((arr(rng, (2, 3, 4), F64, -4, 4),), dict(kwargs)))
        out.append(Sample((Arg(arr(rng, (4, 3), F32, -4, 4), transpose=True),), dict(kwargs)))
        out += [Sample((arr(rng, (5,), d, -4, 4),), dict(kwargs)) for d in ints]
        out.append(Sample((kinks,), dict(kwargs)))
        return out
    return gen


def fixed(*samples):
    def gen(rng):
        return [s if isinstance(s, Sample) else Sample(s) for s in samples]
    return gen


def chain(*gens):
    def gen(rng):
        return [s for g in gens for s in g(rng)]
    return gen


def inplace(name):
    """Call `name` (e.g. "nn.functional.relu_") on a non-leaf copy of the first argument."""
    def call(mod, x, *args, **kwargs):
        fn = mod
        for part in name.split("."):
            fn = getattr(fn, part)
        y = x * 1
        out = fn(y, *args, **kwargs)
        assert out is y
        return out
    return call


def kw_inplace(name):
    """F.name(x * 1, ..., inplace=True): the result is the (modified) input."""
    def call(mod, x, *args, **kwargs):
        fn = getattr(mod.nn.functional, name)
        y = x * 1
        out = fn(y, *args, inplace=True, **kwargs)
        assert out is y
        return out
    return call


HALF = dict(rtol=1e-2, atol=1e-2)
NN = "nn.functional."

register(
    OpInfo(NN + "relu", fixed((A(-1.0, 0.0, 2.0, dtype=F16),)), **HALF),
    OpInfo(NN + "relu", act()),
    OpInfo("relu", fixed((KINKS,))),
    OpInfo("Tensor.relu", fixed((KINKS,), (A(1, -2, dtype=I64),))),
    OpInfo("Tensor.relu_", fixed((KINKS,)), call=inplace("Tensor.relu_")),
    OpInfo("relu_", fixed((KINKS,)), call=inplace("relu_")),
    OpInfo(NN + "relu_", fixed((KINKS,)), call=inplace("nn.functional.relu_")),
    OpInfo(NN + "relu", fixed((KINKS,)), call=kw_inplace("relu")),
    OpInfo(NN + "relu6", act()),
    OpInfo(NN + "relu6", fixed((KINKS,)), call=kw_inplace("relu6")),
    OpInfo(NN + "hardtanh", chain(act(), fixed(Sample((KINKS,), dict(min_val=-3.0, max_val=0.5)),
                                                Sample((KINKS, -0.5, 3.0)), Sample((KINKS, 2.0, 1.0))))),
    OpInfo(NN + "hardtanh_", fixed(Sample((KINKS,), dict(min_val=-0.5, max_val=0.5))),
           call=inplace("nn.functional.hardtanh_")),
    OpInfo(NN + "leaky_relu", chain(act(), fixed(Sample((KINKS, 0.2)), Sample((KINKS,), dict(negative_slope=-1.5))))),
    OpInfo(NN + "leaky_relu_", fixed((KINKS, 0.3)), call=inplace("nn.functional.leaky_relu_")),
    OpInfo(NN + "leaky_relu", fixed(Sample((KINKS,), dict(negative_slope=0.1))), call=kw_inplace("leaky_relu")),
    OpInfo(NN + "elu", chain(act(), fixed(Sample((KINKS,), dict(alpha=0.5)), Sample((KINKS, 2.0))))),
    *(OpInfo(NN + n, fixed((A(-1.0, 0.0, 2.0, dtype=F16),)), **HALF) for n in ("elu", "gelu", "silu", "hardswish")),
    OpInfo(NN + "elu_", fixed((KINKS, 0.7)), call=inplace("nn.functional.elu_")),
    OpInfo(NN + "selu", act()),
    OpInfo("selu", fixed((KINKS,))),
    OpInfo("selu_", fixed((KINKS,)), call=inplace("selu_")),
    OpInfo(NN + "selu", fixed((KINKS,)), call=kw_inplace("selu")),
    OpInfo(NN + "celu", chain(act(), fixed(Sample((KINKS,), dict(alpha=0.5)), Sample((KINKS, 2.0)),
                                           Sample((KINKS,), dict(alpha=0.0))))),
    OpInfo("celu", fixed((KINKS,), (KINKS, 1.5))),
    OpInfo("celu_", fixed((KINKS, 1.5)), call=inplace("celu_")),
    OpInfo(NN + "gelu", chain(act(), fixed(Sample((KINKS,), dict(approximate="tanh")),
                                           Sample((KINKS,), dict(approximate="foo"))))),
    OpInfo(NN + "silu", act()),
    OpInfo(NN + "silu", fixed((KINKS,)), call=kw_inplace("silu")),
    OpInfo(NN + "mish", act()),
    OpInfo(NN + "logsigmoid", chain(act(), fixed((A(-100.0, 100.0, -30.0),)))),
    OpInfo(NN + "hardsigmoid", act()),
    OpInfo(NN + "hardsigmoid", fixed((KINKS,)), call=kw_inplace("hardsigmoid")),
    OpInfo(NN + "hardswish", act()),
    OpInfo(NN + "hardswish", fixed((KINKS,)), call=kw_inplace("hardswish")),
    OpInfo(NN + "hardshrink", chain(act(), fixed(Sample((KINKS, 1.0)), Sample((KINKS,), dict(lambd=3.0)),
                                                 Sample((KINKS, 0.0))))),
    OpInfo("hardshrink", fixed((KINKS, 1.0))),
    OpInfo("Tensor.hardshrink", fixed((KINKS, 0.5))),
    OpInfo(NN + "softshrink", chain(act(), fixed(Sample((KINKS, 1.0)), Sample((KINKS,), dict(lambd=3.0)),
                                                 Sample((KINKS, -1.0)), Sample((A(1.0, 2.0, dtype=F64), -1.0))))),
    OpInfo(NN + "tanhshrink", act(ints=(I64, B)), atol=1e-5),
    OpInfo(NN + "softsign", act()),
    OpInfo(NN + "softplus", chain(act(), fixed(Sample((KINKS,), dict(beta=2.0)), Sample((KINKS, 0.5, 1.0)),
                                               Sample((A(-100.0, 100.0, 19.0, 21.0),)),
                                               Sample((KINKS,), dict(beta=-1.0, threshold=2.0))))),
    OpInfo(NN + "threshold", chain(act(ints=()), fixed((KINKS, 0.5, 7.0), (KINKS, 0.0, -1.0),
                                                       (A(1, -2, 3, dtype=I64), 0, 5),
                                                       (A(True, False, dtype=B), 0, 5)))),
    OpInfo("threshold", fixed((KINKS, 1.0, 2.0))),
    OpInfo("threshold_", fixed((KINKS, 1.0, 2.0)), call=inplace("threshold_")),
    OpInfo(NN + "threshold_", fixed((KINKS, 1.0, 2.0)), call=inplace("nn.functional.threshold_")),
    OpInfo(NN + "threshold", fixed((KINKS, 3.0, 2.0)), call=kw_inplace("threshold")),
    OpInfo(NN + "rrelu", chain(act(), fixed(Sample((KINKS, 0.2, 0.4)), Sample((KINKS,), dict(lower=0.5, upper=0.2)),
                                            Sample((KINKS,), dict(training=False))))),
    OpInfo("rrelu", fixed((KINKS,), (KINKS, 0.1, 0.3))),
    OpInfo(NN + "glu", fixed((arr(np.random.default_rng(0), (4, 6), F32),),
                             Sample((arr(np.random.default_rng(1), (4, 6), F64), 0)),
                             Sample((arr(np.random.default_rng(2), (2, 3, 4), F32),), dict(dim=1)),
                             Sample((np.zeros((0, 4), F32),)), Sample((np.zeros((3, 3), F32),)),
                             Sample((np.zeros((3, 4), F32), 2)), Sample((np.array(1.0, F32),)),
                             Sample((np.zeros((2, 4), I64),)))),
    OpInfo(NN + "prelu", fixed((KINKS, A(0.25)), (np.array(-2.0, F32), A(0.1)), (KINKS, np.array(0.3, F32)),
                               (arr(np.random.default_rng(0), (2, 3, 4), F32), A(0.1, -0.2, 0.5)),
                               (arr(np.random.default_rng(1), (2, 3), F64), A(0.1, 0.2, 0.3, dtype=F64)),
                               (arr(np.random.default_rng(2), (4,), F32), A(0.1, 0.2, 0.3, 0.4)),
                               (arr(np.random.default_rng(2), (2, 3), F32), A(0.1, 0.2)),
                               (arr(np.random.default_rng(2), (2, 3), F32), A(0.1, dtype=F64)),
                               (arr(np.random.default_rng(2), (2, 3), F32), np.full((1, 1), 0.1, F32)),
                               (A(1, -2, dtype=I64), A(1, dtype=I64)))),
    OpInfo("prelu", fixed((KINKS, A(0.25)))),
    OpInfo("Tensor.prelu", fixed((KINKS, A(0.25)))),
    OpInfo(NN + "sigmoid", fixed((KINKS,), (A(1, -2, dtype=I64),))),
    OpInfo(NN + "tanh", fixed((KINKS,), (A(True, False, dtype=B),))),
)


def _softmax_samples(name):
    def gen(rng):
        x = arr(rng, (2, 3, 4), F32)
        return [Sample((x, d)) for d in (0, -1)] + [
            Sample((arr(rng, (3, 4), F64),), dict(dim=1)),
            Sample((x,), dict(dim=-1, dtype=np.dtype(F64))),
            Sample((np.array(1.5, F32), 0)), Sample((np.zeros((0, 3), F32), 1)), Sample((np.zeros((2, 0), F32), 1)),
            Sample((A(1, 2, dtype=I64), 0)), Sample((A(1, 2, dtype=I64), 0), dict(dtype=np.dtype(F32))),
            Sample((x, 3)), Sample((A(-1e30, 0.0, 1e30, 88.0),), dict(dim=0)),
        ]
    return gen


def _dtype(mod, v):
    return getattr(mod, str(v)) if isinstance(v, np.dtype) else v


def _softmax_call(path):
    def call(mod, *args, **kwargs):
        fn = mod
        for part in path.split("."):
            fn = getattr(fn, part)
        if path.startswith("Tensor."):
            fn = getattr(args[0], path[7:])
            args = args[1:]
        return fn(*[_dtype(mod, a) for a in args], **{k: _dtype(mod, v) for k, v in kwargs.items()})
    return call


X3 = arr(np.random.default_rng(0), (2, 3, 4), F32)
register(OpInfo(NN + "softmax", fixed(Sample((arr(np.random.default_rng(0), (6,), F16), 0))), **HALF),
         *(OpInfo(p, _softmax_samples(p), call=_softmax_call(p))
           for p in ("nn.functional.softmax", "nn.functional.log_softmax", "nn.functional.softmin")),
         *(OpInfo(p, fixed(Sample((X3, -1)), Sample((X3, 0), dict(dtype=np.dtype(F64)))), call=_softmax_call(p))
           for p in ("softmax", "log_softmax", "Tensor.softmax", "Tensor.log_softmax")))


def _implicit_dim(rng):
    return [Sample((arr(rng, s, F32),)) for s in [(), (5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]]


register(*(OpInfo(NN + n, _implicit_dim) for n in ("softmax", "log_softmax", "softmin")))
