"""Bucketed lengths: eager inference over a growing sequence without a compile per length.

A text generator appends one token per step (`idx = torch.cat((idx, nxt), 1)`) and runs the model on the whole
context, so every op meets a new length and, with shapes static in XLA, compiles a new program. Here such a
tensor keeps its values in a buffer padded along the growing axis to a bucket length (128, 256, 512 ...), with its
logical length on the side, and the ops that can run on padded buffers do: programs are compiled per bucket, not
per length, and the length goes in as data where an op must mask the padding (softmax, the contracted axis of a
matmul). An op whose result stays bucketed is deferred (facade/_pending.py): the ops a read depends on run as one
program, so a generation step's forward is one program (compiled once per bucket), not one per op. Everything else
reads the tensor's values, which cuts the padding off first (on the CPU by a copy, no program), so a bucketed
tensor is an ordinary tensor to all code that does not know about buckets.

Where it applies: only where no autograd is recorded (no_grad, or no input requires grad), outside torch.compile
and DataLoader workers. Sources: a cat along an axis whose last piece has length 1 there (a generation step), a
crop `x[:, -block_size:]` longer than its axis (a generation loop's context while it is shorter than the block,
from its first token on), `arange(T)` and `x[:T]` for a T read off a bucketed tensor's shape (`RaggedInt`). Off
with FACADE_BUCKETS=0.

A bucketed result equals the unpadded one exactly for ops whose outputs do not mix positions of the padded axis
(pointwise, linear, layer_norm, embedding, views, cat); a softmax over that axis, or a matmul contracting it, adds
the same terms, zeros included, possibly in another order (a float rounding apart, as a different batch size can
give on torch).
"""

from __future__ import annotations

import functools
import math
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _host, _pending
from . import _multidevice as _md
from ._device import spec as _spec
from .autograd import forward_ad as _fwd

ON = os.environ.get("FACADE_BUCKETS", "1") != "0"
SEEN = False  # a bucketed tensor was made in this process (until then no getitem pays for looking)
# The smallest bucket: a context of up to 128 tokens costs one set of programs (about 20 for a GPT, 1-2 s to
# compile), where 64 cost a second set at 65 tokens; padding a shorter context to 128 costs little for a small
# model. Both ways measured (sampling 150-200 tokens): 256 saves the 128 -> 256 set for a 64-wide 2-layer GPT
# (4.35 -> 3.95 s) but pads a 384-wide 6-layer one to twice the work (11.9 -> 15.9 s; torch takes 3.6 s).
MIN = 128
Tensor = None  # set by _tensor
STATE = None  # grad mode, set by _tensor


def bucket(n):
    """The buffer length of logical length n: a power of two, at least MIN."""
    return max(MIN, 1 << (n - 1).bit_length())


class RaggedInt(int):
    """A length read off a bucketed tensor's shape: `arange(T)` and `x[:T]` made from it are bucketed too.
    It is an int in every other respect (and arithmetic on it gives plain ints)."""

    def __reduce__(self):
        return int, (int(self),)


class Rg:
    """The bucketed state of a tensor: the padded buffer, {axis: logical length}, the logical shape."""

    __slots__ = ("buf", "ax", "shape")

    def __init__(self, buf, ax):
        self.buf, self.ax = buf, ax
        shape = list(buf.shape)
        for i, n in ax.items():
            shape[i] = RaggedInt(n)
        self.shape = tuple(shape)


def wrap(buf, ax, device):
    """A Tensor of buffer `buf` whose axes `ax` ({axis: n}) hold n valid entries (all of them at n == bucket, so
    that the next ops still run their bucketed programs); plain for an empty `ax`."""
    global SEEN
    t = Tensor._from_array(buf, device)
    if ax:
        SEEN = True
        del t._data  # reading _data cuts the padding off (Tensor.__getattr__ -> materialize)
        t._rg = Rg(buf, ax)
    return t


def _cut(buf, ax, host=False):
    """buf cut to its logical shape: on the CPU by a host copy (or, `host`, a numpy view), no program per length."""
    buf = _pending.concrete(buf)
    if all(buf.shape[a] == n for a, n in ax.items()) and not host:
        return buf
    sl = tuple(slice(0, ax[i]) if i in ax else slice(None) for i in range(buf.ndim))
    devs = buf.devices()
    if len(devs) == 1 and next(iter(devs)).platform == "cpu":
        v = np.asarray(buf)[sl]
        return v if host else jax.device_put(np.ascontiguousarray(v), None if buf.committed else buf.sharding)
    return _slicer(tuple(buf.shape), tuple(ax.items()))(buf)


@functools.lru_cache(maxsize=256)
def _slicer(shape, ax):
    ax = dict(ax)
    return jax.jit(lambda b: b[tuple(slice(0, ax[i]) if i in ax else slice(None) for i in range(len(shape)))])


def materialize(t):
    """Turn bucketed `t` into an ordinary tensor (its buffer cut to the logical shape); returns the array."""
    r = t._rg
    t._rg = None
    if t._base is not None and t._bsv != t._base._sv:  # a view whose base was written since: re-derive from it
        t._data = None
        return t._sync()
    t._data = a = _cut(r.buf, r.ax)
    return a


def _info(t):
    """(array, {axis: n}, logical shape) of a dyn entry; a stale bucketed view becomes plain first."""
    if isinstance(t, Tensor):
        r = t._rg
        if r is not None and t._base is not None and t._bsv != t._base._sv:
            materialize(t)
            r = None
        if r is not None:
            return r.buf, r.ax, r.shape
        a = t._arr()
        return a, {}, a.shape
    return t, {}, np.shape(t)


def active(dyn):
    """The device of a call's tensors where it may take the bucketed path (no autograd nor forward AD, nothing
    traced, one real device: a device mismatch is left to the plain path's error, not a simulated multi-device
    CPU), else None."""
    if _host.ACTIVE or _md.ON and _md.on() or _fwd.STATE.level is not None:
        return None
    grad, device = STATE.enabled, None
    for t in dyn:
        if isinstance(t, Tensor):
            if grad and t.requires_grad or t._device.type == "meta" or device not in (None, t._device):
                return None
            device = t._device
    return device


def values(t, host):
    """The logical values of bucketed `t`, which stays bucketed (for value checks): a numpy view on the CPU where
    `host`, else an array."""
    buf, ax, _ = _info(t)
    return _cut(buf, ax, host=host)


# ---------------------------------------------------------------------------- running an op on buffers

def _prepared(raw, spec, with_ns, *args):
    """raw(*arrays) of args = (*arrays, *ns) after padding each array's axes to their target length and masking
    beyond n where asked (raw(*arrays, *ns) for a rule's own function that masks by itself)."""
    arrays, ns = args[:len(spec)], args[len(spec):]
    out = []
    for a, s in zip(arrays, spec):
        for axis, target, fill, k in s:
            if a.shape[axis] < target:
                pad = [(0, 0)] * a.ndim
                pad[axis] = (0, target - a.shape[axis])
                a = jnp.pad(a, pad)
            if fill is not None:
                keep = lax.broadcasted_iota(jnp.int32, a.shape, axis) < ns[k]
                a = jnp.where(keep, a, jnp.asarray(-jnp.inf if fill == "-inf" else 0, a.dtype))
        out.append(a)
    return raw(*out, *ns) if with_ns else raw(*out)


_PROGRAMS = {}


def _program(key, make):
    """The jitted make() cached under `key` (the bucketed path's programs: rules, cat growth, getitem)."""
    fn = _PROGRAMS.get(key)
    if fn is None:
        if len(_PROGRAMS) > 4096:
            _PROGRAMS.clear()
            _PLANS.clear()
        fn = _PROGRAMS[key] = jax.jit(make())
    return fn


def call(comp, dyn, vals, dev):
    """The op of `comp` on bucketed buffers on device `dev` (the dispatcher's bucketed path), or NotImplemented."""
    if comp.op.rg is cat_along:
        return cat(comp, dyn, vals, dev)
    return run(comp, dyn, vals, dev)


def run(comp, dyn, vals, dev):
    """The op of `comp` on bucketed inputs, or NotImplemented where its rule does not cover this call."""
    infos = [_info(t) for t in dyn]
    key, bucketed = [comp], False
    for a, ax, shape in infos:
        if ax:
            key.append((shape, tuple(ax.items()), a.shape))
            bucketed = True
        else:
            key.append(shape)
    if not bucketed:
        return NotImplemented
    key = tuple(key)
    made = _PLANS.get(key, False)
    if made is False:
        made = _run_program(comp, infos, vals)
        if comp.op.rg is not view:  # (view tells a RaggedInt size from an int, which the key does not)
            if len(_PLANS) > 4096:
                _PLANS.clear()
            _PLANS[key] = made
    if made is None:
        return NotImplemented
    fn, ns, out_ax = made
    out = _apply(fn, (*[a for a, _, _ in infos], *_lengths(ns)), out_ax,
                 lambda: (_top(infos), _run_ahead, comp, _specs(infos), _stripped(vals)))
    if type(out) is tuple:  # split / chunk: pieces bucketed alike
        return tuple(wrap(o, out_ax, dev) for o in out) if comp.op.rg is pieces else NotImplemented
    return wrap(out, out_ax, dev)


_PLANS = {}  # (comp, each input's logical shape, and bucketed axes and buffer shape if any) -> _run_program's


def _run_program(comp, infos, vals):
    """(program, lengths it takes, bucketed axes of its result) for `comp`'s op on `infos`, or None."""
    plan = comp.op.rg(infos, vals)
    if plan is None:
        return None
    spec, out_ax, ns, *own = plan  # a rule may run its own function of the buffers (and lengths) instead
    raw, with_ns = own if own else (comp.raw, False)
    return _program((raw, spec), lambda: functools.partial(_prepared, raw, spec, with_ns)), ns, out_ax


def _apply(fn, args, bucketed, make):
    """fn(*args) (a bucketed op's program): deferred where its result is bucketed (facade/_pending.py), else run
    now, with the deferred ops it reads in the same program. make: the call's compile-ahead job (`_note`)."""
    deferred = _pending.ON and (bucketed or any(type(a) is _pending.Pending for a in args))
    try:
        key = (fn, *[a.aval for a in args])
    except AttributeError:  # a Python number among them (lerp's weight)
        key = (fn, *map(_pending.aval, args))
    _note(key, make, deferred)
    if deferred:
        p = _pending.defer(fn, args, key)
        if p is not None:
            return p if bucketed else _pending.force(p)
    return fn(*map(_pending.concrete, args))


_LENGTHS = {}


def _lengths(ns):
    """Lengths and offsets as int32 device scalars (a handful recur: kept)."""
    out = []
    for n in ns:
        a = _LENGTHS.get(n)
        if a is None:
            if len(_LENGTHS) > 4096:
                _LENGTHS.clear()
            a = _LENGTHS[n] = jax.device_put(np.int32(n))
        out.append(a)
    return tuple(out)


class _Spec:
    """Collects per-input (axis, target length, fill, index of n) and the lengths passed in as data."""

    def __init__(self, infos):
        self.infos = infos
        self.items = [[] for _ in infos]
        self.ns = []

    def need(self, i, axis, target, fill=None, n=None):
        k = 0
        if fill is not None:
            if n not in self.ns:
                self.ns.append(n)
            k = self.ns.index(n)
        self.items[i].append((axis, target, fill, k))

    def plan(self, out_ax):
        return tuple(tuple(s) for s in self.items), out_ax, tuple(self.ns)


def _broadcast(infos, idx, spec, lead=None):
    """Bucketed axes of a broadcast over inputs `idx` (their leading `lead[i]` axes, all when None): {out axis: n}
    with each padded input padded to the common buffer length, or None where a plain input of size > 1 meets a
    padded axis or lengths disagree."""
    shapes = [infos[i][2][:None if lead is None else lead[k]] for k, i in enumerate(idx)]
    nd = max((len(s) for s in shapes), default=0)
    out, target = {}, {}
    for s, i in zip(shapes, idx):
        off = nd - len(s)
        for a, n in infos[i][1].items():
            if a >= len(s):
                continue
            if out.setdefault(a + off, n) != n:
                return None
            target[a + off] = max(target.get(a + off, 0), infos[i][0].shape[a])
    for s, i in zip(shapes, idx):
        off = nd - len(s)
        ax = infos[i][1]
        for a in out:
            j = a - off
            if j < 0:
                continue
            if j not in ax:
                if s[j] != 1:
                    return None
            elif infos[i][0].shape[j] < target[a]:
                spec.need(i, j, target[a])
    return out


def pointwise(infos, vals):
    spec = _Spec(infos)
    out = _broadcast(infos, list(range(len(infos))), spec)
    return None if out is None else spec.plan(out)


def _first_only(check):
    """A rule for ops whose first input may be bucketed on the axes `check(ndim, vals)` allows, others plain."""
    def rule(infos, vals):
        if any(ax for _, ax, _ in infos[1:]):
            return None
        _, ax, shape = infos[0]
        if not all(check(len(shape), vals, a) for a in ax):
            return None
        return (((),) * len(infos), dict(ax), ())

    return rule


linear = _first_only(lambda nd, vals, a: a < nd - 1)
layer_norm = _first_only(lambda nd, vals, a: isinstance(vals[1], (tuple, list)) and a < nd - len(vals[1]))


def softmax(infos, vals):
    if len(infos) != 1 or type(vals[1]) is not int:
        return None
    _, ax, shape = infos[0]
    dim = vals[1] % len(shape)
    spec = _Spec(infos)
    if dim in ax:
        spec.need(0, dim, 0, "-inf", ax[dim])
    return spec.plan(dict(ax))


def embedding(infos, vals):
    if infos[0][1] or len(infos) != 2:
        return None
    return ((), ()), dict(infos[1][1]), ()


def matmul(infos, vals):
    if len(infos) != 2:
        return None
    (a, axa, sa), (b, axb, sb) = infos
    if len(sa) < 2 or len(sb) < 2:
        return None
    spec = _Spec(infos)
    ka, kb = axa.get(len(sa) - 1), axb.get(len(sb) - 2)
    if ka != kb:
        return None
    if ka is not None:
        t = max(a.shape[-1], b.shape[-2])
        spec.need(0, len(sa) - 1, t, "zero", ka)
        spec.need(1, len(sb) - 2, t, "zero", ka)
    out = _broadcast(infos, [0, 1], spec, lead=[len(sa) - 2, len(sb) - 2])
    if out is None:
        return None
    nd = max(len(sa), len(sb))
    if len(sa) - 2 in axa:
        out[nd - 2] = axa[len(sa) - 2]
    if len(sb) - 1 in axb:
        out[nd - 1] = axb[len(sb) - 1]
    return spec.plan(out)


def _moved(perm):
    def rule(infos, vals):
        _, ax, shape = infos[0]
        p = perm(len(shape), vals)
        return ((),), {new: ax[old] for new, old in enumerate(p) if old in ax}, ()

    return rule


def _swap(nd, vals):
    p = list(range(nd))
    i, j = vals[1] % nd, vals[2] % nd
    p[i], p[j] = p[j], p[i]
    return p


transpose = _moved(_swap)
permute = _moved(lambda nd, vals: [d % nd for d in vals[1]])


def cat_along(infos, vals):
    """cat along an axis that is not bucketed: every input bucketed alike."""
    if len(infos) < 2:
        return None
    nd = len(infos[0][2])
    dim = vals[1] % nd if nd else 0
    if any(len(s) != nd or dim in ax for _, ax, s in infos):
        return None
    spec = _Spec(infos)
    out = _broadcast(infos, list(range(len(infos))), spec)
    if out is None or any(infos[i][1] != out for i in range(len(infos))):
        return None
    return spec.plan(out)


NOT_POINTWISE = frozenset({"allclose", "equal", "isin", "frexp", "view_as_complex", "view_as_real", "glu", "prelu",
                           "rrelu", "gumbel_softmax", "softmax", "log_softmax"})
@functools.lru_cache(maxsize=256)
def _reshaper(shape):
    return lambda b: b.reshape(shape)


def view(infos, vals):
    """view/reshape to sizes naming the bucketed axis by its RaggedInt (q.view(B, T, nh, hs)), the axes before
    and after it regrouped among themselves."""
    _, ax, shape = infos[0]
    sizes = vals[1]
    if len(infos) != 1 or len(ax) != 1 or not isinstance(sizes, (tuple, list)):
        return None
    (a, n), = ax.items()
    js = [j for j, s in enumerate(sizes) if type(s) is RaggedInt and s == n]
    if len(js) != 1 or any(type(s) is not int and type(s) is not RaggedInt for s in sizes):
        return None
    j = js[0]
    before, after = int(np.prod(shape[:a])), int(np.prod(shape[a + 1:]))
    head, tail = list(sizes[:j]), list(sizes[j + 1:])
    for part, total in ((head, before), (tail, after)):
        if part.count(-1) > 1 or -1 in part and (total % max(1, -int(np.prod(part))) or not total):
            return None
        if -1 in part:
            part[part.index(-1)] = total // -int(np.prod(part))
        if int(np.prod(part)) != total:
            return None
    out = (*head, infos[0][0].shape[a], *tail)
    return ((),), {j: n}, (), _reshaper(tuple(out)), False


def _grow_fn(dim, target, sizes):
    def grow(buf, *rest):
        *pieces, n0 = rest
        if buf.shape[dim] < target:
            pad = [(0, 0)] * buf.ndim
            pad[dim] = (0, target - buf.shape[dim])
            buf = jnp.pad(buf, pad)
        off = n0
        for p, k in zip(pieces, sizes):
            buf = lax.dynamic_update_slice_in_dim(buf, p, off, dim)
            off = off + k
        return buf

    return grow


_LIMIT = 1 << 22  # elements: a bigger buffer is not worth padding


def cat(comp, dyn, vals, dev):
    """cat along the bucketed axis (the tensor grows in place in its buffer), or a generation step's cat of plain
    tensors whose last piece has length 1 there (it starts a bucketed tensor); else the rule of any other axis."""
    if len(dyn) < 2 or not all(isinstance(t, Tensor) for t in dyn):
        return NotImplemented
    infos = [_info(t) for t in dyn]
    nd = len(infos[0][2])
    if any(len(s) != nd for _, _, s in infos) or not nd:
        return NotImplemented
    dim = vals[1] % nd
    first, rest = infos[0], infos[1:]
    grows = dim in first[1] or (not first[1] and rest[-1][2][dim] == 1)
    if not grows:
        return run(comp, dyn, vals, dev) if any(ax for _, ax, _ in infos) else NotImplemented
    dtype = first[0].dtype
    others = [s[:dim] + s[dim + 1:] for _, _, s in infos]
    if (len(first[1]) > int(dim in first[1]) or any(ax for _, ax, _ in rest) or any(o != others[0] for o in others)
            or any(a.dtype != dtype for a, _, _ in infos)):
        return NotImplemented
    n0 = first[2][dim]
    sizes = tuple(s[dim] for _, _, s in rest)
    n = n0 + sum(sizes)
    target = max(bucket(n), first[0].shape[dim])
    if target * int(np.prod(others[0])) > _LIMIT:
        return NotImplemented
    if not first[1]:  # a new growing sequence (a generation loop's first token)
        _fresh()
    elif target > first[0].shape[dim]:  # into the next bucket: its programs compiling ahead are needed now
        _joined(first[0].shape[dim])
    fn = _program(("grow", dim, target, sizes), lambda: _grow_fn(dim, target, sizes))
    rest = [a for a, _, _ in rest]
    _note((fn, first[0].shape, *(a.shape for a in rest)), lambda: (target, _grow_ahead, dim, sizes, _spec(first[0]),
                                                                   [_spec(a) for a in rest]))
    out = fn(_pending.concrete(first[0]), *rest, *_lengths((n0,)))  # at once: a value check usually reads it
    if 16 * n > target and target not in _STARTED:  # a growing sequence: its next bucket compiled ahead
        _start(target)
    return wrap(out, {dim: n}, dev)


def pieces(infos, vals):
    """split / chunk along an axis that is not bucketed."""
    _, ax, shape = infos[0]
    return None if len(infos) != 1 or vals[2] % len(shape) in ax else (((),), dict(ax), ())


@functools.lru_cache(maxsize=64)
def _attention(causal, scale, gqa):
    from functional.nn.attention import scaled_dot_product_attention as sdpa

    def attend(q, k, v, n_keys):
        L, S = q.shape[-2], k.shape[-2]
        keep = lax.broadcasted_iota(jnp.int32, (L, S), 1) < n_keys
        if causal:
            keep &= jnp.tril(jnp.ones((L, S), bool))
        return sdpa(q, k, v, attn_mask=keep, scale=scale, enable_gqa=gqa)

    return attend


def attention(infos, vals):
    """scaled_dot_product_attention without a mask or dropout, queries and keys bucketed on their length axis
    (keys beyond the key length masked, their values zeroed); is_causal stays top-left aligned."""
    if len(infos) != 3 or vals[3] is not None or vals[4]:
        return None
    (q, axq, sq), (k, axk, sk), (v, axv, sv) = infos
    if any(set(ax) - {len(s) - 2} for ax, s in ((axq, sq), (axk, sk), (axv, sv))) or axk != axv:
        return None
    spec = _Spec(infos)
    spec.ns = [sk[-2]]  # the key length, attend()'s last argument
    if axk:
        t = max(k.shape[-2], v.shape[-2])
        spec.need(1, len(sk) - 2, t)
        spec.need(2, len(sv) - 2, t, "zero", sk[-2])
    out_ax = {max(len(sq), len(sk)) - 2: axq[len(sq) - 2]} if axq else {}
    return (*spec.plan(out_ax), _attention(bool(vals[5]), vals[6], bool(vals[7])), True)


RULES = {"softmax": softmax, "log_softmax": softmax, "linear": linear, "layer_norm": layer_norm,
         "embedding": embedding, "matmul": matmul, "transpose": transpose, "permute": permute,
         "masked_fill": pointwise, "_to_copy": pointwise, "clone": pointwise, "view": view, "reshape": view,
         "cat": cat_along, "split": pieces, "chunk": pieces, "scaled_dot_product_attention": attention}


def install(ops, pointwise_ops):
    """Give every Op of `ops` its bucketed rule (Op.rg): by name, and `pointwise` to the rows of `pointwise_ops`."""
    for op in ops:
        rule = RULES.get(op.name)
        if rule is None and op in pointwise_ops and op.name not in NOT_POINTWISE:
            rule = pointwise
        if rule is not None and op.out is None and (rule is not pieces or op.name in ("split", "chunk")):
            op.rg = rule


# ---------------------------------------------------------------------------- x[...], arange(T)

def has_rint(index):
    items = index if isinstance(index, tuple) else (index,)
    return any(type(it) is slice and (type(it.start) is RaggedInt or type(it.stop) is RaggedInt) for it in items)


def _crop(it, size):
    """Whether slice `it` is a crop `-n:` longer than its axis of `size` (`idx[:, -block_size:]`)."""
    return type(it.start) is int and it.start < -size and it.stop is None and it.step in (None, 1)


def crops(t, index):
    """Whether `index` crops an axis of plain device tensor `t` with `_crop` (the bucketed getitem then starts a
    bucketed tensor); a cheap look, for every getitem (a host tensor's slices stay numpy views)."""
    items = index if type(index) is tuple else (index,)
    if not any(type(it) is slice and type(it.start) is int and it.start < 0 for it in items) or t._np is not None:
        return False
    return len(items) <= t.ndim and any(type(it) is slice and _crop(it, n) for it, n in zip(items, t.shape))


def _getitem_fn(plan):
    """plan: per input axis ("all") | ("take", B') from a traced start | ("static", start, stop, width) padded
    to width | ("at",) a traced index | ("pick",) the same, keeping the axis (x[:, [-1]])."""
    def get(buf, *starts):
        k, keep = 0, []
        for axis, p in enumerate(plan):
            if p[0] == "take":
                width = p[1]
                pad = [(0, 0)] * buf.ndim
                pad[axis] = (0, width)
                buf = lax.dynamic_slice_in_dim(jnp.pad(buf, pad), starts[k], width, axis)
                k += 1
            elif p[0] == "static":
                buf = lax.slice_in_dim(buf, p[1], p[2], axis=axis)
                if p[2] - p[1] < p[3]:  # padded up to the bucket
                    pad = [(0, 0)] * buf.ndim
                    pad[axis] = (0, p[3] - (p[2] - p[1]))
                    buf = jnp.pad(buf, pad)
            elif p[0] in ("at", "pick"):
                buf = lax.dynamic_slice_in_dim(buf, starts[k], 1, axis)
                k += 1
            if p[0] != "at":
                keep.append(axis)
        return buf.reshape(tuple(buf.shape[a] for a in keep))

    return get


def _simple(it):
    """An index item of the bucketed getitem: an int, a unit-step slice of ints, or [int]."""
    if type(it) is slice:
        return it.step in (None, 1) and all(type(v) in (int, RaggedInt, type(None)) for v in (it.start, it.stop))
    return type(it) in (int, RaggedInt) or type(it) is list and len(it) == 1 and type(it[0]) is int


def _get_plan(bshape, ax, shape, items):
    """(plan for `_getitem_fn`, its traced starts, bucketed axes of the result) of buffer shape `bshape` (bucketed
    axes `ax`, logical `shape`) indexed by `items` (one per axis), or None where the bucketed getitem does not
    apply."""
    plan, starts, out_ax = [], [], {}
    for axis, (it, size) in enumerate(zip(items, shape)):
        b = bshape[axis]
        if type(it) is not slice:
            pick = type(it) is list  # x[:, [i]]: advanced indexing, a copy keeping the axis
            i = it[0] if pick else it
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {axis} with size {size}")
            plan.append(("pick",) if pick else ("at",))
            starts.append(i % size)
            continue
        s, e, _ = it.indices(size)
        m = max(e - s, 0)
        if m == 0:
            return None
        keep_axis = len(plan) - sum(p[0] == "at" for p in plan)
        if axis in ax:
            if s == 0 and e == size:
                plan.append(("all",))
                out_ax[keep_axis] = size
            else:
                plan.append(("take", bucket(m)))
                starts.append(s)
                out_ax[keep_axis] = m
        elif type(it.stop) is RaggedInt and m == it.stop:  # tril[:T, :T]
            width = bucket(m)
            if s + width <= b:
                plan.append(("static", s, s + width, width))
            else:
                plan.append(("static", s, b, width))
            out_ax[keep_axis] = m
        elif not ax and _crop(it, size) and bucket(m) * (math.prod(bshape) // max(b, 1)) <= _LIMIT:  # context crop
            plan.append(("static", s, e, bucket(m)))
            out_ax[keep_axis] = m
        elif s == 0 and e == size:
            plan.append(("all",))
        else:
            plan.append(("static", s, e, m))
    if not out_ax and not ax:
        return None
    return tuple(plan), starts, out_ax


def getitem(self, index):
    """self[index] for ints and unit-step slices where self is bucketed or a bound is a RaggedInt; the result
    is a view of self as the plain path's would be. NotImplemented for anything else."""
    from ._table import indexing

    if active((self,)) is None:
        return NotImplemented
    items = index if isinstance(index, tuple) else (index,)
    buf, ax, shape = _info(self)
    if isinstance(buf, jax.core.Tracer) or len(items) > len(shape) or not all(map(_simple, items)):
        return NotImplemented
    items = items + (slice(None),) * (len(shape) - len(items))
    made = _get_plan(buf.shape, ax, shape, items)
    if made is None:
        return NotImplemented
    plan, starts, out_ax = made
    for a in ax:  # a crop `x[:, -block:]` of a growing tensor: its programs stop at the block's bucket
        it = items[a]
        if type(it) is slice and type(it.start) is int and it.start < 0 and it.stop is None:
            _CAP[0] = bucket(-it.start)
    if all(p[0] == "all" for p in plan):  # x[:, -block:] of a shorter context: the buffer itself, no program
        out = wrap(buf, out_ax, self._device)
    else:
        fn = _program(("get", plan), lambda: _getitem_fn(plan))
        # a context's crop starts a bucketed tensor at once: a loop's first step, whose context is not bucketed
        # yet, then defers the same ops as the later steps (one graph program, not one more for the first step)
        crop = not ax and any(type(it) is slice and _crop(it, n) for it, n in zip(items, shape))
        out = _apply(fn, (buf, *_lengths(starts)), out_ax and not crop,
                     lambda: (_top([(buf, ax, shape)]) or max(map(bucket, _rints(items)), default=None), _get_ahead,
                              _spec(buf), ax, shape, items))
        out = wrap(out, out_ax, self._device)
    if any(p[0] == "pick" for p in plan):
        return out
    norm = tuple(map(indexing._item, index if type(index) is tuple else (index,)))  # (normalize's, for these items)
    kind = indexing._getitem_kind(self, norm, not isinstance(index, tuple))
    return out._mark_view(self, indexing._GET[kind], (norm,), None)


def arange(t, n):
    """A bucketed arange(n) from `t`, the plain arange(bucket(n))."""
    return wrap(t._data, {0: n}, t._device)


# ---------------------------------------------------------------------------- the next bucket, compiled ahead
# A generation loop that has grown a few tokens (1/16 of its bucket; at once in a later bucket) will likely reach the
# next bucket, where every program of its forward compiles again (its graph of deferred ops, facade/_pending.py,
# about 0.4 s of one core for the benchmarks' small GPT; the ops run at once, such as the context's growth). So the
# programs called at that bucket so far are compiled for the next one in a background thread (XLA compiles without
# the GIL), from their recorded shapes: the same rules run on the shapes of lengths one bucket longer, a graph's op by
# op. Per-op programs land in jit's cache; a graph's executable is compiled with one codegen thread (the other core
# stays the loop's) and kept for _pending to call. The same programs, so the same numbers. Not past the bucket of the
# last crop `x[:, -block:]` seen (the model never runs longer), nor with AHEAD = False. A script that exits while
# such a compile runs waits for it (the thread stops between programs).

AHEAD = True
_NOTED = set()  # (program, argument shapes or avals) of the calls recorded
_JOBS = {}  # bucket -> [(bucket, builder, *shapes and statics)]: the calls at that bucket, to build at the next
_STARTED = {}  # bucket -> the threads compiling its next bucket's programs (False: capped)
_CAP = [None]  # the bucket of the last crop seen
_EXITING = []
_JOB_OF = {}  # (program, argument avals) -> the job of a deferred call
_GONE = object()  # a tensor argument of a recorded call (its rule reads only its shapes, from the infos)
_I32 = jax.ShapeDtypeStruct((), jnp.int32)


def _note(sig, make, deferred=False):
    """Record the call `sig` (program, argument shapes) once: make() -> (its bucket, builder, *args) such that
    builder(bucket, *args) gives (program, argument shapes) one bucket longer, for jit's cache, or None (the
    prediction does not hold; or, `_graph_ahead`, it compiled and kept the program itself). A deferred call's job
    is kept for the graphs it joins (`_graph_job`), not compiled alone."""
    if sig in _NOTED or not AHEAD:
        return
    if len(_NOTED) > 4096:
        _NOTED.clear()
        _JOBS.clear()
        _JOB_OF.clear()
    _NOTED.add(sig)
    job = make()
    if deferred:
        _JOB_OF[sig] = job
    elif job[0] is not None:
        _queue(job)


def _queue(job):
    if type(_STARTED.get(job[0])) is list:  # started: compiled at once
        _spawn(job[0], [job])
    else:  # kept for the start (of this or a later sequence, if this one is capped)
        _JOBS.setdefault(job[0], []).append(job)


def _graph_job(structure, outs, sigs):
    """Queue the compile of a deferred graph (facade/_pending.py, first run now) at the next bucket, where every
    op in it has a job."""
    jobs = [_JOB_OF.get(sig) for sig in sigs]
    if AHEAD and jobs and all(j is not None and j[0] is not None for j in jobs):
        _queue((max(j[0] for j in jobs), _graph_ahead, structure, outs, jobs))


def _graph_ahead(b, structure, outs, jobs):
    """Compile the graph one bucket longer (each op's program and input specs from its own job)."""
    fns, specs = [], {}
    for (_, refs), (_, build, *args) in zip(structure, jobs):
        made = build(b, *args)
        if made is None:
            return None
        fns.append(made[0])
        for r, spec in zip(refs, made[1]):
            if r >= 0:
                specs.setdefault(r, spec)
    _pending.compile_ahead(tuple((f, refs) for f, (_, refs) in zip(fns, structure)), outs,
                           [specs[j] for j in range(len(specs))])


_pending.NEW = _graph_job


def _start(b):
    """Compile the calls recorded at bucket `b` for the next bucket, in a background thread."""
    if _CAP[0] is not None and 2 * b > _CAP[0]:
        _STARTED[b] = False
        return
    _STARTED[b] = []
    if b in _JOBS:
        _spawn(b, _JOBS.pop(b))


def _spawn(b, jobs):
    from .compiler import _metrics

    thread = threading.Thread(target=_compile_ahead, args=(jobs,), name="facade next-bucket compile")
    thread.start()
    _metrics.background(thread)  # metrics() counts its compiles
    _STARTED[b].append(thread)


def _joined(b):
    """Wait for the programs compiling ahead from bucket `b` (the loop now needs them)."""
    for thread in _STARTED.pop(b, None) or ():
        thread.join()


def _fresh():
    """A new sequence starts: the buckets of earlier ones (capped, or done compiling) may start again."""
    for b, threads in list(_STARTED.items()):
        if not (threads and any(t.is_alive() for t in threads)):
            del _STARTED[b]
    _CAP[0] = None


def _compile_ahead(jobs):
    try:  # the loop's own thread first where the cores are busy
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):
        pass
    for b, build, *args in jobs:
        if _EXITING:
            return
        try:
            made = build(b, *args)
            if made is not None:
                made[0].lower(*made[1]).compile()
        except Exception:  # noqa: BLE001 - a prediction that does not hold: the loop compiles when it gets there
            pass


try:  # stop between programs at interpreter exit (before it waits for threads)
    threading._register_atexit(lambda: _EXITING.append(True))
except (AttributeError, RuntimeError):
    pass


def _top(infos):
    """The largest buffer length of the bucketed axes of `infos`, or None."""
    return max((a.shape[i] for a, ax, _ in infos for i in ax), default=None)


def _rints(v):
    """The RaggedInts in `v` (nested tuples and lists, slices)."""
    if type(v) is RaggedInt:
        return [v]
    if isinstance(v, (tuple, list)):
        return [r for x in v for r in _rints(x)]
    if type(v) is slice:
        return _rints((v.start, v.stop, v.step))
    return []


def _specs(infos):
    return [(_spec(a if hasattr(a, "shape") else jax.typeof(a)), dict(ax), shape) for a, ax, shape in infos]


def _stripped(v):
    if isinstance(v, Tensor):
        return _GONE
    if isinstance(v, (tuple, list)):
        return type(v)(_stripped(x) for x in v)
    return v


def _shifted(v, by):
    """`v` with its RaggedInts `by` longer (in nested tuples, lists and slices)."""
    if type(v) is RaggedInt:
        return RaggedInt(v + by)
    if isinstance(v, (tuple, list)):
        return type(v)(_shifted(x, by) for x in v)
    if type(v) is slice:
        return slice(*(_shifted(x, by) for x in (v.start, v.stop, v.step)))
    return v


def _longer(info, by):
    """An info (buffer spec, bucketed axes, logical shape) whose bucketed axes are `by` longer."""
    a, ax, shape = info
    ax = {i: RaggedInt(n + by) for i, n in ax.items()}
    bshape = tuple(bucket(ax[i]) if i in ax else s for i, s in enumerate(a.shape))
    return _spec(a, bshape), ax, tuple(ax.get(i, s) for i, s in enumerate(shape))


def _run_ahead(b, comp, infos, vals):
    infos = [_longer(i, b) for i in infos]
    made = _run_program(comp, infos, _shifted(vals, b))
    return None if made is None else (made[0], (*[a for a, _, _ in infos], *(_I32 for _ in made[1])))


def _get_ahead(b, buf, ax, shape, items):
    buf, ax, shape = _longer((buf, ax, shape), b)
    made = _get_plan(buf.shape, ax, shape, _shifted(items, b))
    if made is None or all(p[0] == "all" for p in made[0]):
        return None
    plan = made[0]
    return _program(("get", plan), lambda: _getitem_fn(plan)), (buf, *(_I32 for _ in made[1]))


def _grow_ahead(b, dim, sizes, first, rest):
    """Both growths at the next bucket: into it (from a full buffer of this one) and within it."""
    fn = _program(("grow", dim, 2 * b, sizes), lambda: _grow_fn(dim, 2 * b, sizes))
    for n in (b, 2 * b):
        fn.lower(_spec(first, first.shape[:dim] + (n,) + first.shape[dim + 1:]), *rest, _I32).compile()
