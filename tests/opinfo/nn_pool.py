"""OpInfo entries for pooling: max (with ties, for torch's gradient rule), average, adaptive, power-average
and max unpooling, over 1-3 spatial dims, batched and unbatched, with ceil_mode edge cases and torch's
refusals."""

import numpy as np

from . import OpInfo, Sample, arr, register


def ties(rng, shape, dtype=np.float32):
    """Small integers: many ties inside each window, to check which one receives the gradient."""
    return rng.integers(-2, 3, size=shape).astype(dtype)


def shape(n, batched=True, size=None, c=2):
    size = size if size is not None else (7 if n < 3 else 5)
    return ((2,) if batched else ()) + (c,) + (size,) * n


def max_samples(n):
    def gen(rng):
        out = [
            Sample((arr(rng, shape(n), np.float64), 2)),
            Sample((ties(rng, shape(n)), 3), dict(stride=2, padding=1)),
            Sample((ties(rng, shape(n, False), np.float64), 3, 2, 1, 1, True)),  # unbatched, ceil_mode
            Sample((ties(rng, shape(n, size=6)), 3), dict(stride=2, ceil_mode=True)),  # last window in the pad: dropped
            Sample((ties(rng, shape(n, size=5)), 2), dict(stride=2, padding=1, ceil_mode=True)),
            Sample((ties(rng, shape(n, size=5)), (3,) * n), dict(stride=(2,) * n, padding=(1,) * n,
                                                                return_indices=True)),
            Sample((ties(rng, shape(n, False, 6), np.float64), 2), dict(stride=1, padding=1, dilation=2,
                                                                       return_indices=True, ceil_mode=True)),
            Sample((ties(rng, shape(n, size=5)), 2), dict(dilation=2)),
            Sample((ties(rng, shape(n, size=4), np.int64), 2)),
            Sample((ties(rng, (0,) + shape(n, size=4)[1:]), 2)),
            Sample((arr(rng, shape(n)), 3), dict(padding=2)),  # pad more than half the kernel
            Sample((arr(rng, shape(n, size=3)), 5)),  # output too small
            Sample((arr(rng, shape(n)), 2), dict(stride=0)),
            Sample((arr(rng, shape(n)), 2), dict(padding=-1)),
            Sample((arr(rng, shape(n)), (2,) * (n + 1))),
            Sample((arr(rng, (3,) * n), 2)),  # too few dims
        ]
        if n == 2:
            out.append(Sample((arr(rng, (1, 2, 6, 5)), (3, 2)), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))))
            with_nan = arr(rng, (1, 2, 4, 4))
            with_nan[0, 0, 1, 1] = with_nan[0, 1, 0, 0] = with_nan[0, 1, 1, 1] = np.nan
            out.append(Sample((with_nan, 2), dict(return_indices=True)))
        return out
    return gen


def avg_samples(n):
    def gen(rng):
        out = [
            Sample((arr(rng, shape(n), np.float64), 2)),
            Sample((arr(rng, shape(n, False)), 3, 2, 1)),
            Sample((arr(rng, shape(n)), 3), dict(stride=2, padding=1, count_include_pad=False)),
            Sample((arr(rng, shape(n, size=6)), 3), dict(stride=2, ceil_mode=True)),
            Sample((arr(rng, shape(n, size=6), np.float64), 3), dict(stride=2, padding=1, ceil_mode=True)),
            Sample((arr(rng, shape(n, size=5)), 2), dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
            Sample((ties(rng, shape(n, size=4), np.int64) * 7, 2)),
            Sample((np.zeros((0,) + shape(n, size=4)[1:], np.float32), 2)),
            Sample((arr(rng, shape(n)), 3), dict(padding=2)),
            Sample((arr(rng, shape(n, size=3)), 5)),
            Sample((arr(rng, shape(n)), 2), dict(stride=0)),
            Sample((arr(rng, (3,) * n), 2)),
        ]
        if n > 1:
            out += [Sample((arr(rng, shape(n, False, 6)), (3,) * n), dict(stride=(2,) * n, padding=(1,) * n,
                                                                          divisor_override=4)),
                    Sample((arr(rng, shape(n)), 2), dict(divisor_override=0))]
        return out
    return gen


def adaptive_samples(n, is_max):
    def gen(rng):
        make = ties if is_max else arr
        out = [
            Sample((make(rng, shape(n), np.float64), 3)),
            Sample((make(rng, shape(n, False, 6)), 4)),
            Sample((make(rng, shape(n, size=5)), 1)),
            Sample((make(rng, shape(n, size=4)), 6)),  # larger than the input: windows overlap
            Sample((make(rng, (0,) + shape(n)[1:]), 2)),
            Sample((make(rng, shape(n)), (3,) * (n + 1))),
            Sample((make(rng, shape(n)), -1)),
            Sample((make(rng, shape(n, size=0)), 2)),
            Sample((ties(rng, shape(n), np.int64), 2)),
            Sample((make(rng, (4,) * (n - 1) if n > 1 else (4, 4, 4, 4)), 2)),
        ]
        if n > 1:
            out.append(Sample((make(rng, shape(n, size=5)), (None,) + (3,) * (n - 1))))
        if is_max:
            out.append(Sample((ties(rng, shape(n, False, 5), np.float64), 2, True)))
        return out
    return gen


def lp_samples(n):
    def gen(rng):
        return [
            Sample((arr(rng, shape(n), np.float32, 0.5, 2.0), 2, 2)),
            Sample((arr(rng, shape(n), np.float64, 0.5, 2.0), 3.0, 3), dict(stride=2)),
            Sample((arr(rng, shape(n, False), np.float32, 0.5, 2.0), 1, 2)),
            Sample((arr(rng, shape(n), np.float64, 0.5, 2.0), 2, (3,) * n, 2, True)),
            Sample((arr(rng, shape(n), np.float32, -2.0, 2.0), 2, 2)),
        ]
    return gen


def _pool_indices(rng, ins, k):
    """Indices of a max pool with kernel = stride = k over spatial sizes `ins` (as max_pool would return):
    one random position in each window, flat over the unpooled plane."""
    outs = [s // k for s in ins]
    pos = [(np.arange(o)[:, None] * k + rng.integers(0, k, size=(o, 1)))[:, 0] for o in outs]
    grids = np.meshgrid(*pos, indexing="ij")
    full = [o * k for o in outs]
    flat = np.ravel_multi_index(grids, full) if len(full) > 1 else grids[0]
    return flat.astype(np.int64)


def unpool_samples(n):
    def gen(rng):
        out = []
        for dt in (np.float32, np.float64):
            for batched in (True, False):
                lead = (2, 3) if batched else (3,)
                idx = np.broadcast_to(_pool_indices(rng, (6,) * n, 2), lead + (3,) * n).copy()
                out.append(Sample((arr(rng, lead + (3,) * n, dt), idx, 2)))
        idx = np.broadcast_to(_pool_indices(rng, (6,) * n, 2), (2, 3) + (3,) * n).copy()
        x = arr(rng, (2, 3) + (3,) * n)
        out += [
            Sample((x, idx, 2), dict(output_size=(7,) * n)),
            Sample((x, idx, 2), dict(stride=2, output_size=(2, 3) + (6,) * n)),
            Sample((x, idx, 2, 2, 0, (3,) * n)),  # refused: output_size out of range
        ]
        return out
    return gen


for _n in (1, 2, 3):
    register(
        OpInfo(f"nn.functional.max_pool{_n}d", max_samples(_n)),
        OpInfo(f"nn.functional.avg_pool{_n}d", avg_samples(_n)),
        OpInfo(f"nn.functional.adaptive_avg_pool{_n}d", adaptive_samples(_n, False)),
        OpInfo(f"nn.functional.adaptive_max_pool{_n}d", adaptive_samples(_n, True)),
        OpInfo(f"nn.functional.lp_pool{_n}d", lp_samples(_n), rtol=1e-4, atol=1e-5),
        OpInfo(f"nn.functional.max_unpool{_n}d", unpool_samples(_n)),
        OpInfo(f"nn.functional.max_pool{_n}d_with_indices", lambda rng, n=_n: [
            Sample((ties(rng, shape(n)), 2)), Sample((ties(rng, shape(n, False), np.float64), 3, 2, 1))]),
    )

register(
    OpInfo("max_pool2d", lambda rng: [Sample((ties(rng, (2, 3, 6, 6)), 2)),
                                      Sample((ties(rng, (3, 5, 5)), 3, 2, 1, 1, True))]),
    OpInfo("max_pool1d", lambda rng: [Sample((ties(rng, (2, 3, 6)), 2)), Sample((ties(rng, (3, 5)), 3, 2, 1))]),
    OpInfo("max_pool3d", lambda rng: [Sample((ties(rng, (2, 2, 4, 4, 4)), 2))]),
    OpInfo("max_pool1d_with_indices", lambda rng: [Sample((ties(rng, (2, 3, 6)), 2))]),
    OpInfo("avg_pool1d", lambda rng: [Sample((arr(rng, (2, 3, 6)), 2)),
                                      Sample((arr(rng, (3, 7)), 3, 2, 1, True, False))]),
    OpInfo("adaptive_avg_pool1d", lambda rng: [Sample((arr(rng, (2, 3, 7)), 3))]),
    OpInfo("adaptive_max_pool1d", lambda rng: [Sample((ties(rng, (2, 3, 7)), 3)), Sample((ties(rng, (3, 7)), 2))]),
)
