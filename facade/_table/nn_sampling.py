"""Table rows of torch.nn.functional: resampling (interpolate, grid_sample, affine_grid).

One functional function per API; extra rows of it only carry torch's grad_fn name of each
(mode, rank), chosen per call by `route`."""

import warnings

import functional.nn as N

from .._dispatch import Op, call

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed

_INTERP_PARAMS = ("input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias")
_INTERP_GRAD = {  # (mode, input rank, antialias) -> torch's backward node
    **{("nearest", n + 2, False): f"UpsampleNearest{n}DBackward0" for n in (1, 2, 3)},
    **{("nearest-exact", n + 2, False): f"UpsampleNearestExact{n}DBackward0" for n in (1, 2, 3)},
    ("area", 3, False): "SqueezeBackward1",  # torch pools 1-d as 2-d of an unsqueezed input
    ("area", 4, False): "AdaptiveAvgPool2DBackward0", ("area", 5, False): "AdaptiveAvgPool3DBackward0",
    ("linear", 3, False): "UpsampleLinear1DBackward0", ("bilinear", 4, False): "UpsampleBilinear2DBackward0",
    ("trilinear", 5, False): "UpsampleTrilinear3DBackward0", ("bicubic", 4, False): "UpsampleBicubic2DBackward0",
    ("bilinear", 4, True): "UpsampleBilinear2DAaBackward0", ("bicubic", 4, True): "UpsampleBicubic2DAaBackward0",
    ("lanczos", 4, True): "UpsampleLanczos2DAaBackward0",
}
_INTERP = {k: Op("interpolate", N.interpolate, method=False, function=False, grad_name=g)
           for k, g in _INTERP_GRAD.items()}


def _bound(params, args, kwargs):
    b = dict(zip(params, args))
    b.update(kwargs or {})
    return b


def _route_interpolate(args, kwargs):
    b = _bound(_INTERP_PARAMS, args, kwargs)
    return _INTERP.get((b.get("mode", "nearest"), getattr(b.get("input"), "ndim", None), bool(b.get("antialias"))))


def _grid_rows(name, fn, module, params):
    rows = {n: Op(name, fn, arrays=("input", "grid"), method=False, function=False, module=module,
                  grad_name=f"GridSampler{n - 2}DBackward0") for n in (4, 5)}

    def route(args, kwargs):
        return rows.get(getattr(_bound(params, args, kwargs).get("input"), "ndim", None))

    return Op(name, fn, arrays=("input", "grid"), method=False, module=module, grad_name="GridSampler2DBackward0",
              route=route)


_GRID_SAMPLE = _grid_rows("grid_sample", N.grid_sample, MODULE, ("input", "grid"))
_AFFINE_GRID = Op("affine_grid", N.affine_grid, arrays=("theta",), method=False, module=MODULE,
                  grad_name="AffineGridGeneratorBackward0")

OPS = [
    Op("interpolate", N.interpolate, method=False, module=MODULE, grad_name="UpsampleNearest2DBackward0",
       route=_route_interpolate),
    _grid_rows("grid_sampler", N.grid_sampler, "torch", ("input", "grid")),
    Op("affine_grid_generator", N.affine_grid_generator, arrays=("theta",), method=False,
       grad_name="AffineGridGeneratorBackward0"),
]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
                  "details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """torch.nn.functional.grid_sample: see functional.nn.grid_sample."""
    if mode in ("bilinear", "nearest", "bicubic") and padding_mode in ("zeros", "border", "reflection") \
            and align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
    return call(_GRID_SAMPLE, (input, grid, mode, padding_mode, bool(align_corners)), None)


def affine_grid(theta, size, align_corners=None):
    """torch.nn.functional.affine_grid: see functional.nn.affine_grid."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
    size = list(size)
    if align_corners and len(size) in (4, 5) and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.", stacklevel=2)
    return call(_AFFINE_GRID, (theta, size, bool(align_corners)), None)


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """torch.nn.functional.upsample (deprecated): interpolate."""
    _deprecated("upsample")
    return call(OPS[0], (input, size, scale_factor, mode, align_corners), None)


def upsample_nearest(input, size=None, scale_factor=None):
    """torch.nn.functional.upsample_nearest (deprecated): interpolate(mode='nearest')."""
    _deprecated("upsample_nearest")
    return call(OPS[0], (input, size, scale_factor), {"mode": "nearest"})


def upsample_bilinear(input, size=None, scale_factor=None):
    """torch.nn.functional.upsample_bilinear (deprecated): interpolate(mode='bilinear', align_corners=True)."""
    _deprecated("upsample_bilinear")
    return call(OPS[0], (input, size, scale_factor), {"mode": "bilinear", "align_corners": True})


FUNCTIONS = {"grid_sample": grid_sample, "affine_grid": affine_grid, "upsample": upsample,
             "upsample_nearest": upsample_nearest, "upsample_bilinear": upsample_bilinear}
