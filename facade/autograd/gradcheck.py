"""torch.autograd.gradcheck / gradgradcheck: analytical Jacobians (from the tape, or forward AD) against
central finite differences, with torch's defaults, checks and messages.

The numerical Jacobian of output o with respect to input i has one row per element of i and one
column per element of o (torch's layout); the analytical one is built a row of vector-Jacobian
products at a time (one one-hot grad_output per output element)."""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


_NONDET_NOTE = ("\n\nNOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
                "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
                "this failure might be expected.\n")
_FAST_NOTE = ("\nThe above quantities relating the numerical and analytical jacobians are computed \nin fast mode. "
              "See: https://github.com/pytorch/pytorch/issues/53876 for more background \nabout fast mode. Below, we "
              "recompute numerical and analytical jacobians in slow mode:\n\n")


def _tensor_cls():
    from .._tensor import Tensor

    return Tensor


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _host(t):
    return np.array(t.detach()._arr())


def _wrap(a, like, requires_grad=False):
    import jax.numpy as jnp

    t = _tensor_cls()._from_array(jnp.asarray(a), like.device)
    return t.requires_grad_() if requires_grad else t


def _diff_outputs(outs):
    return tuple(o for o in outs if isinstance(o, _tensor_cls()) and o.requires_grad)


def _numerical(func, inputs, diff_idx, out_like, eps):
    """[input][output] -> (numel(input), numel(output)) central differences (f(x+eps) - f(x-eps)) / 2eps."""
    Tensor = _tensor_cls()
    jac = [[np.zeros((inputs[i].numel(), o.numel()), o._arr().dtype) for o in out_like] for i in diff_idx]
    for r, i in enumerate(diff_idx):
        x0 = _host(inputs[i])
        for k in range(x0.size):
            vals = []
            for sign in (1, -1):
                x = x0.copy()
                x.flat[k] += sign * eps
                args = list(inputs)
                args[i] = _wrap(x, inputs[i], inputs[i].requires_grad)
                outs = [o for o in _as_tuple(func(*args)) if isinstance(o, Tensor)]
                vals.append([_host(outs[n]).ravel() for n in range(len(out_like))])
            for c in range(len(out_like)):
                jac[r][c][k] = (vals[0][c] - vals[1][c]) / (2 * eps)
    return jac


def _analytical(inputs, diff_idx, out):
    """[input] -> (numel(input), numel(out)) from one vector-Jacobian product per element of `out`."""
    from . import grad

    ins = [inputs[i] for i in diff_idx]
    jac = [np.zeros((t.numel(), out.numel()), t._arr().dtype) for t in ins]
    for k in range(out.numel()):
        onehot = np.zeros(out.numel(), out._arr().dtype)
        onehot[k] = 1
        gs = grad(out, ins, _wrap(onehot.reshape(tuple(out.shape)), out), retain_graph=True, allow_unused=True)
        for j, g in enumerate(gs):
            if g is not None:
                jac[j][:, k] = _host(g).ravel()
    return jac


def _forward_jacobians(func, inputs, diff_idx, n_out):
    """[output][input] -> (numel(input), numel(output)) from one forward-mode JVP per input element."""
    from . import forward_ad as fw

    jac = None
    for j, i in enumerate(diff_idx):
        for k in range(inputs[i].numel()):
            tangent = np.zeros(inputs[i].numel(), _host(inputs[i]).dtype)
            tangent[k] = 1
            with fw.dual_level():
                args = list(inputs)
                args[i] = fw.make_dual(inputs[i].detach(), _wrap(tangent.reshape(tuple(inputs[i].shape)), inputs[i]))
                outs = [o for o in _as_tuple(func(*args)) if isinstance(o, _tensor_cls()) and o.is_floating_point()]
                if jac is None:
                    jac = [[np.zeros((inputs[i2].numel(), o.numel()), _host(o).dtype) for i2 in diff_idx]
                           for o in outs[:n_out]]
                for c, o in enumerate(outs[:n_out]):
                    t = fw.unpack_dual(o).tangent
                    if t is not None:
                        jac[c][j][k] = _host(t).ravel()
    return jac


def _close(a, n, rtol, atol):
    return bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def _fmt(a, like):
    return repr(_wrap(a, like))


def _mismatch(a, n, out_i, in_j, like_a, like_n, forward=False):
    mode = "computed with forward mode " if forward else ""
    return (f"Jacobian {mode}mismatch for output {out_i:d} with respect to input {in_j:d},\n"
            f"numerical:{_fmt(n, like_n)}\nanalytical:{_fmt(a, like_a)}\n")


def _fast_mismatch(a, n, out_i, in_j, like_a, like_n, rtol, atol):
    """torch's fast mode compares u^T J v for random unit u, v; on failure it reports both and the slow Jacobians."""
    rng = np.random.default_rng(0)
    u, v = rng.standard_normal(a.shape[0]), rng.standard_normal(a.shape[1])
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    fa, fn = float(u @ a @ v), float(u @ n @ v)
    if _close(np.asarray(fa), np.asarray(fn), rtol, atol):
        return None
    slow_diff = _wrap(np.abs(n - a).max(), like_a)
    msg = (f"Jacobian mismatch for output {out_i:d} with respect to input {in_j:d},\nnumerical:{fn}\nanalytical:{fa}\n"
           + _FAST_NOTE + f"Numerical:\n {_fmt(n, like_n)}\nAnalytical:\n{_fmt(a, like_a)}\n\n"
           f"The max per-element difference (slow mode) is: {slow_diff}.\n")
    return msg


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Check the gradients of `func` at `inputs` (Tensors; those with requires_grad are checked) against finite
    differences: |analytical - numerical| <= atol + rtol * |numerical| for every Jacobian entry. Returns True, or
    raises GradcheckError (False with raise_exception=False). Inputs should be float64: float32 differences are
    too coarse for the default tolerances (torch warns, and so does this)."""
    try:
        _gradcheck(func, _as_tuple(inputs), eps, atol, rtol, nondet_tol, check_forward_ad, check_backward_ad,
                   fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_forward_ad, check_backward_ad, fast_mode):
    Tensor = _tensor_cls()
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for i in diff_idx:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", stacklevel=3)
    outputs = _diff_outputs(_as_tuple(func(*inputs)))
    numerical = _numerical(func, inputs, diff_idx, outputs, eps)
    if not outputs:
        return
    if check_backward_ad:
        for o_i, out in enumerate(outputs):
            first, second = _analytical(inputs, diff_idx, out), _analytical(inputs, diff_idx, out)
            for j, (a, n) in enumerate(zip(first, [row[o_i] for row in numerical])):
                like_a, like_n = inputs[diff_idx[j]], out
                msg = _fast_mismatch(a, n, o_i, j, like_a, like_n, rtol, atol) if fast_mode else (
                    None if _close(a, n, rtol, atol) else _mismatch(a, n, o_i, j, like_a, like_n))
                if msg is not None:
                    raise GradcheckError(msg)
            if any(not np.all(np.abs(a - b) <= nondet_tol) for a, b in zip(first, second)):
                raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and "
                                     "grad_output multiple times gives different values, although analytical gradient "
                                     f"matches numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
                                     + _NONDET_NOTE)
    if check_forward_ad:
        forward = _forward_jacobians(func, inputs, diff_idx, len(outputs))
        for o_i in range(len(outputs)):
            for j in range(len(diff_idx)):
                a, n = forward[o_i][j], numerical[j][o_i]
                if not _close(a, n, rtol, atol):
                    raise GradcheckError(_mismatch(a, n, o_i, j, inputs[diff_idx[j]], outputs[o_i], forward=True))


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False):
    """gradcheck of the gradient: (inputs, grad_outputs) -> autograd.grad(func(inputs), inputs, grad_outputs,
    create_graph=True). Without `grad_outputs`, random ones in [-1, 1] that require grad are drawn."""
    from ..testing import make_tensor
    from . import grad

    Tensor = _tensor_cls()
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _diff_outputs(_as_tuple(func(*inputs)))
        grad_outputs = tuple(make_tensor(tuple(o.shape), dtype=o.dtype, device=o.device, low=-1, high=1,
                                         requires_grad=True, noncontiguous=gen_non_contig_grad_outputs) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(grad_outputs)
    diff_in = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_go = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def new_func(*args):
        ins = tuple(x.requires_grad_() if i in diff_in else x for i, x in enumerate(args[:-n]))
        outs = _diff_outputs(_as_tuple(func(*ins)))
        gos = tuple(x.requires_grad_() if i in diff_go else x for i, x in enumerate(args[-n:]))
        grads = grad(outs, [x for i, x in enumerate(ins) if i in diff_in], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
                     nondet_tol=nondet_tol, check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
                     fast_mode=fast_mode)
