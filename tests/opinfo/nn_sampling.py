"""OpInfo entries for resampling: interpolate (every mode and rank, by size and by scale factor,
align_corners, non-integer and downsampling scales, recompute_scale_factor, antialias, uint8),
grid_sample (each mode x padding mode x align_corners, grid points outside [-1, 1] and on pixel
centres), affine_grid, their torch.* forms, and torch's refusals."""

import numpy as np

from . import OpInfo, Sample, arr, register

_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _x(rng, nd, size=5, dtype=np.float32, n=2, c=2):
    return arr(rng, (n, c) + (size,) * (nd - 2), dtype)


def interpolate_samples(rng):
    out = []
    modes = [("nearest", 3), ("nearest", 4), ("nearest", 5), ("nearest-exact", 3), ("nearest-exact", 4),
             ("area", 3), ("area", 4), ("area", 5), ("linear", 3), ("bilinear", 4), ("trilinear", 5), ("bicubic", 4)]
    for mode, nd in modes:
        small = 3 if nd == 5 else 5
        for ac in ((None,) if mode in ("nearest", "nearest-exact", "area") else (False, True)):
            kw = {} if ac is None else {"align_corners": ac}
            out.append(Sample((_x(rng, nd, small),), dict(size=7 if nd < 5 else 4, mode=mode, **kw)))  # upsample
            if nd != 4:  # 4-d: the per-dim sample below scales down and up
                out.append(Sample((_x(rng, nd, small),), dict(scale_factor=0.6, mode=mode, **kw)))  # non-integer
            if nd == 4:  # per-dim sizes / scales, float64
                out.append(Sample((_x(rng, nd, 4, np.float64),), dict(scale_factor=(0.6, 2.0), mode=mode, **kw)))
    out += [
        Sample((_x(rng, 4, 5),), dict(scale_factor=2.1, mode="nearest")),  # size 2*in: torch's exact halving
        Sample((_x(rng, 3, 5),), dict(scale_factor=2.1, mode="nearest")),
        Sample((_x(rng, 4, 5),), dict(size=(3, 8), mode="bilinear")),
        Sample((_x(rng, 4, 5),), dict(scale_factor=1.3, mode="bilinear", recompute_scale_factor=True)),
        Sample((_x(rng, 3, 5, np.float64),), dict(scale_factor=1.3, mode="linear", recompute_scale_factor=False)),
        Sample((_x(rng, 4, 3),), dict(scale_factor=1.2, mode="bilinear")),  # same size, scale given: identity
        Sample((_x(rng, 4, 4),), dict(size=1, mode="bicubic", align_corners=True)),
        Sample((_x(rng, 4, 5, n=0),), dict(size=3, mode="bilinear")),  # empty batch
        Sample((rng.integers(0, 256, (1, 2, 5, 5)).astype(np.uint8),), dict(size=(3, 8), mode="nearest")),
        Sample((rng.integers(0, 256, (1, 2, 5, 7)).astype(np.uint8),), dict(size=(3, 9), mode="bilinear")),
        Sample((rng.integers(0, 256, (1, 2, 9, 7)).astype(np.uint8),), dict(size=(4, 3), mode="bilinear",
                                                                             antialias=True)),
        Sample((rng.integers(0, 256, (1, 2, 9, 7)).astype(np.uint8),), dict(size=(4, 3), mode="bicubic",
                                                                             antialias=True, align_corners=True)),
        # antialias (4-D bilinear / bicubic / lanczos)
        Sample((_x(rng, 4, 9),), dict(size=(4, 3), mode="bilinear", antialias=True)),
        Sample((_x(rng, 4, 9, np.float64),), dict(size=(4, 12), mode="bilinear", antialias=True, align_corners=True)),
        Sample((_x(rng, 4, 9),), dict(scale_factor=0.45, mode="bicubic", antialias=True)),
        Sample((_x(rng, 4, 9),), dict(size=(3, 5), mode="bicubic", antialias=True, align_corners=True)),
        Sample((_x(rng, 4, 9),), dict(size=(4, 11), mode="lanczos", antialias=True)),
        # refusals
        Sample((_x(rng, 4),), dict(size=3, mode="nearest", align_corners=True)),
        Sample((_x(rng, 4),), dict(size=3, scale_factor=2)),
        Sample((_x(rng, 4),), dict()),
        Sample((_x(rng, 4),), dict(size=(3, 3, 3))),
        Sample((_x(rng, 4),), dict(scale_factor=(2, 2, 2))),
        Sample((_x(rng, 4),), dict(size=(2.5, 3))),
        Sample((_x(rng, 4),), dict(size=3, recompute_scale_factor=True)),
        Sample((_x(rng, 4),), dict(size=3, mode="linear")),
        Sample((_x(rng, 3),), dict(size=3, mode="bicubic")),
        Sample((_x(rng, 3),), dict(size=3, mode="bilinear", antialias=True)),
        Sample((_x(rng, 4),), dict(size=3, mode="lanczos")),
        Sample((_x(rng, 4),), dict(size=3, mode="foo")),
        Sample((arr(rng, (2, 5)),), dict(size=3)),
        Sample((_x(rng, 4),), dict(scale_factor=0.1)),  # output size 0
        Sample((arr(rng, (2, 3, 0, 4)),), dict(size=3, mode="bilinear")),
        Sample((arr(rng, (2, 0, 4, 4)),), dict(size=3, mode="bilinear")),
        Sample((arr(rng, (2, 3, 4, 4), np.int64),), dict(size=3)),
        Sample((arr(rng, (2, 3, 4, 4), np.int32),), dict(size=3, mode="area")),
        Sample((rng.integers(0, 256, (1, 2, 5)).astype(np.uint8),), dict(size=3, mode="linear")),
    ]
    return out


def _grid(rng, shape, dtype=np.float32):
    """Grid points in [-1.3, 1.3] (some outside the input), a third of them on pixel centres or edges."""
    g = rng.uniform(-1.3, 1.3, shape).astype(dtype)
    g.reshape(-1)[::3] = np.round(g.reshape(-1)[::3] * 4) / 4
    return g


def grid_sample_samples(rng):
    out = []
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                kw = dict(mode=mode, padding_mode=pad, align_corners=ac)
                out.append(Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 2))), kw))
                if mode != "bicubic" and ac and (mode == "nearest") == (pad == "border"):  # 5-D
                    out.append(Sample((arr(rng, (1, 2, 3, 4, 5)), _grid(rng, (1, 2, 3, 2, 3))), kw))
    out += [
        Sample((arr(rng, (2, 2, 4, 5), np.float64), _grid(rng, (2, 3, 4, 2), np.float64)), dict(align_corners=False)),
        Sample((arr(rng, (1, 2, 3, 4, 5), np.float64), _grid(rng, (1, 2, 3, 2, 3), np.float64)),
               dict(padding_mode="reflection", align_corners=False)),
        Sample((arr(rng, (2, 2, 4, 5), np.float64), _grid(rng, (2, 3, 4, 2), np.float64)),
               dict(mode="bicubic", padding_mode="reflection", align_corners=False)),
        Sample((arr(rng, (1, 2, 1, 5)), _grid(rng, (1, 3, 4, 2))), dict(padding_mode="reflection", align_corners=True)),
        Sample((arr(rng, (0, 2, 4, 5)), _grid(rng, (0, 3, 4, 2))), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 3))), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (1, 3, 4, 2))), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 2), np.float64)), dict(align_corners=False)),
        Sample((arr(rng, (1, 2, 3, 4, 5)), _grid(rng, (1, 2, 3, 2, 3))), dict(mode="bicubic", align_corners=False)),
        Sample((arr(rng, (2, 2, 0, 5)), _grid(rng, (2, 3, 4, 2))), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 2))), dict(mode="area", align_corners=False)),
        Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 2))), dict(padding_mode="wrap", align_corners=False)),
    ]
    return out


def affine_grid_samples(rng):
    out = []
    for ac in (False, True):
        out += [Sample((arr(rng, (2, 2, 3)), [2, 3, 4, 5]), dict(align_corners=ac)),
                Sample((arr(rng, (2, 3, 4), np.float64), [2, 1, 3, 4, 5]), dict(align_corners=ac))]
    out += [
        Sample((arr(rng, (1, 2, 3)), (1, 1, 1, 6)), dict(align_corners=True)),  # unit-size grid (warns)
        Sample((arr(rng, (1, 2, 3)), [1, 1, 1, 6]), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 3)), [2, 3, 4]), dict(align_corners=False)),
        Sample((arr(rng, (2, 3, 3)), [2, 3, 4, 4]), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 3)), [2, 3, 4, 4, 4]), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 3), np.int64), [2, 3, 4, 4]), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 3)), [2, 3, 0, 4]), dict(align_corners=False)),
        Sample((arr(rng, (2, 2, 3)), [3, 3, 2, 4]), dict(align_corners=False)),
    ]
    return out


def jit_samples(rng):
    """A few samples per code path for the jit-vs-eager check (eager runs are slow to set up; the
    entries above check torch's values with jit only)."""
    u8 = rng.integers(0, 256, (1, 2, 5, 7)).astype(np.uint8)
    return [Sample((_x(rng, 3, 5),), dict(scale_factor=2.1, mode="nearest")),
            Sample((_x(rng, 4, 5),), dict(size=(3, 8), mode="bilinear", align_corners=True)),
            Sample((_x(rng, 4, 5),), dict(scale_factor=1.5, mode="bicubic")),
            Sample((_x(rng, 5, 3),), dict(size=(2, 4, 5), mode="area")),
            Sample((_x(rng, 4, 9),), dict(size=(4, 3), mode="bicubic", antialias=True)),
            Sample((u8,), dict(size=(3, 9), mode="bilinear"))]


def _interpolate(mod, *args, **kwargs):
    return mod.nn.functional.interpolate(*args, **kwargs)


def grid_jit_samples(rng):
    return [Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 2))), dict(align_corners=False)),
            Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 2))),
                   dict(mode="bicubic", padding_mode="reflection", align_corners=True)),
            Sample((arr(rng, (1, 2, 3, 4, 5)), _grid(rng, (1, 2, 3, 2, 3))),
                   dict(mode="nearest", padding_mode="border", align_corners=False))]


def _grid_sample(mod, *args, **kwargs):
    return mod.nn.functional.grid_sample(*args, **kwargs)


register(
    OpInfo("nn.functional.interpolate", interpolate_samples, rtol=1e-5, atol=1e-5, jit=False),
    OpInfo("interpolate[jit]", jit_samples, rtol=1e-5, atol=1e-5, call=_interpolate),
    OpInfo("nn.functional.grid_sample", grid_sample_samples, rtol=1e-5, atol=1e-5, jit=False),
    OpInfo("grid_sample[jit]", grid_jit_samples, rtol=1e-5, atol=1e-5, call=_grid_sample),
    OpInfo("nn.functional.affine_grid", affine_grid_samples),
    OpInfo("grid_sampler", lambda rng: [
        Sample((arr(rng, (2, 2, 4, 5)), _grid(rng, (2, 3, 4, 2)), 2, 1, False)),
        Sample((arr(rng, (1, 2, 3, 4, 5)), _grid(rng, (1, 2, 3, 2, 3)), 1, 2, True))], atol=1e-5),
    OpInfo("affine_grid_generator", lambda rng: [Sample((arr(rng, (2, 2, 3)), [2, 3, 4, 5], False)),
                                                 Sample((arr(rng, (2, 3, 4)), [2, 1, 3, 4, 5], True))]),
    OpInfo("nn.functional.upsample", lambda rng: [Sample((_x(rng, 4, 3), 5, None, "bicubic"))], atol=1e-5),
    OpInfo("nn.functional.upsample_nearest", lambda rng: [Sample((_x(rng, 3, 3),), dict(scale_factor=2.5))]),
    OpInfo("nn.functional.upsample_bilinear", lambda rng: [Sample((_x(rng, 4, 3), (4, 5)))], atol=1e-5),
)
