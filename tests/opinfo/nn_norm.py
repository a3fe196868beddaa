"""OpInfo entries for normalization. batch_norm and instance_norm are called so that the running
statistics they update in place are compared with torch's too."""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register


def _with_stats(name):
    def call(mod, input, *args, **kwargs):
        out = getattr(mod.nn.functional, name)(input, *args, **kwargs)
        stats = [a for a in list(args[:2]) + [kwargs.get("running_mean"), kwargs.get("running_var")]
                 if a is not None and not isinstance(a, (bool, float, int))]
        return (out, *[s.clone() for s in stats])
    return call


def stats(rng, c, dt=np.float32):
    return Arg(arr(rng, (c,), dt, -1, 1), grad=False), Arg(arr(rng, (c,), dt, 0.5, 2), grad=False)


def batch_norm_samples(rng):
    out = []
    for dt in (np.float32, np.float64):
        rm, rv = stats(rng, 3, dt)
        w, b = arr(rng, (3,), dt), arr(rng, (3,), dt)
        out += [
            Sample((arr(rng, (4, 3), dt), rm, rv), dict(training=True)),
            Sample((arr(rng, (2, 3, 5), dt), rm, rv, w, b, True, 0.3)),
            Sample((arr(rng, (2, 3, 4, 4), dt), rm, rv, w, b), dict(training=False, eps=1e-3)),
            Sample((arr(rng, (2, 3, 2, 2, 2), dt), None, None, w, b, True)),
        ]
    rm, rv = stats(rng, 3)
    out += [
        Sample((arr(rng, (2, 3, 4)), rm, rv), dict(weight=arr(rng, (3,)), training=True, momentum=1.0)),
        Sample((arr(rng, (1, 3)), rm, rv), dict(training=True)),  # one value per channel
        Sample((arr(rng, (2, 3)), None, None)),  # evaluation without running statistics
        Sample((arr(rng, (2, 4)), rm, rv), dict(training=True)),
        Sample((arr(rng, (2, 3), np.float64), rm, rv), dict(training=True)),  # mixed dtypes
    ]
    return out


def instance_norm_samples(rng):
    out = []
    for dt in (np.float32, np.float64):
        rm, rv = stats(rng, 3, dt)
        w, b = arr(rng, (3,), dt), arr(rng, (3,), dt)
        out += [
            Sample((arr(rng, (2, 3, 5), dt),)),
            Sample((arr(rng, (2, 3, 4, 4), dt), rm, rv, w, b), dict(momentum=0.2)),
            Sample((arr(rng, (2, 3, 2, 3, 2), dt), rm, rv), dict(use_input_stats=False)),
        ]
    out += [
        Sample((arr(rng, (2, 3, 1)),)),
        Sample((arr(rng, (2, 3, 4)),), dict(use_input_stats=False)),
        Sample((arr(rng, (1, 3, 4)), None, None, arr(rng, (3,)), None, True, 0.1, 1e-3)),
    ]
    return out


def layer_norm_samples(rng):
    out = []
    for dt in (np.float32, np.float64):
        out += [
            Sample((arr(rng, (3, 5), dt), (5,))),
            Sample((arr(rng, (2, 3, 4), dt), [3, 4], arr(rng, (3, 4), dt), arr(rng, (3, 4), dt))),
            Sample((arr(rng, (2, 3, 4), dt), (4,)), dict(bias=arr(rng, (4,), dt), eps=1e-2)),
            Sample((arr(rng, (4,), dt), [4], arr(rng, (4,), dt))),
        ]
    out += [
        Sample((arr(rng, (0, 4)), (4,))),
        Sample((arr(rng, (2, 3, 4)), 4)),  # an int normalized_shape is refused
        Sample((arr(rng, (2, 3, 4)), (5,))),
        Sample((arr(rng, (2, 3, 4)), (4,), arr(rng, (5,)))),
    ]
    return out


def group_norm_samples(rng):
    out = []
    for dt in (np.float32, np.float64):
        out += [
            Sample((arr(rng, (2, 6, 4), dt), 3)),
            Sample((arr(rng, (2, 6, 3, 3), dt), 2, arr(rng, (6,), dt), arr(rng, (6,), dt))),
            Sample((arr(rng, (3, 4), dt), 4), dict(weight=arr(rng, (4,), dt), eps=1e-3)),
            Sample((arr(rng, (1, 4, 2, 2, 2), dt), 1, arr(rng, (4,), dt))),  # torch's backward fails for bias only
        ]
    out += [
        Sample((arr(rng, (2, 6, 4)), 4)),
        Sample((arr(rng, (6,)), 3)),
        Sample((arr(rng, (2, 6, 4)), 3, arr(rng, (4,)))),
    ]
    return out


def rms_norm_samples(rng):
    out = []
    for dt in (np.float32, np.float64):
        out += [
            Sample((arr(rng, (3, 5), dt), (5,))),
            Sample((arr(rng, (2, 3, 4), dt), [3, 4], arr(rng, (3, 4), dt))),
            Sample((arr(rng, (2, 4), dt), [4]), dict(eps=1e-3)),
        ]
    out += [Sample((arr(rng, (2, 3, 4)), (5,))), Sample((arr(rng, (2, 4)), 4))]
    return out


def lrn_samples(rng):
    out = []
    for dt in (np.float32, np.float64):
        out += [
            Sample((arr(rng, (2, 5, 4), dt), 2)),
            Sample((arr(rng, (2, 6, 3, 3), dt), 3), dict(alpha=0.1, beta=0.5, k=2.0)),
            Sample((arr(rng, (1, 4, 2, 2, 3), dt), 5, 1e-2)),
        ]
    out += [Sample((arr(rng, (0, 3, 4)), 2)), Sample((arr(rng, (3, 4)), 2))]
    return out


register(
    OpInfo("nn.functional.batch_norm", batch_norm_samples, call=_with_stats("batch_norm"), rtol=1e-4, atol=1e-5),
    OpInfo("nn.functional.instance_norm", instance_norm_samples, call=_with_stats("instance_norm"), rtol=1e-4,
           atol=1e-5),
    OpInfo("nn.functional.layer_norm", layer_norm_samples, rtol=1e-4, atol=1e-5),
    OpInfo("layer_norm", lambda rng: [Sample((arr(rng, (2, 3, 4)), (3, 4)))], rtol=1e-4, atol=1e-5),
    OpInfo("nn.functional.group_norm", group_norm_samples, rtol=1e-4, atol=1e-5),
    OpInfo("group_norm", lambda rng: [Sample((arr(rng, (2, 6, 4)), 2))], rtol=1e-4, atol=1e-5),
    OpInfo("nn.functional.rms_norm", rms_norm_samples, rtol=1e-4, atol=1e-5),
    OpInfo("nn.functional.layer_norm", lambda rng: [Sample((arr(rng, (2, 3, 4), np.float16), (4,)))], rtol=2e-3,
           atol=2e-3),  # half: torch's and our float32 internals round differently
    OpInfo("nn.functional.rms_norm", lambda rng: [Sample((Arg(arr(rng, (2, 4), np.float16), grad=False), (4,)))],
           rtol=2e-3, atol=2e-3),  # values only: torch's half backward rounds its intermediates to half
    OpInfo("rms_norm", lambda rng: [Sample((arr(rng, (2, 3, 4)), (4,)))], rtol=1e-4, atol=1e-5),
    OpInfo("nn.functional.local_response_norm", lrn_samples, rtol=1e-4, atol=1e-5),
)
