"""torch.special (and torch.lgamma, digamma, polygamma, mvlgamma, i0, igamma, igammac) over
`jax.scipy.special`, plus what it lacks: Bessel functions J0, J1, Y0, Y1, K0, K1 (and the
exp-scaled K), the Airy function Ai, and the orthogonal polynomials.

Inputs arrive promoted (integers as the default float dtype). J/Y/K and Ai use quadrature of
their integral representations (64-point Gauss-Legendre) below |x| = 25 and Hankel's
asymptotic series above it, accurate to a few ulps of float32. The polynomials of degree n
(n truncated to an integer, 0 for n < 0) run torch's three-term recurrences up to the
largest n. torch gives no gradient for the Bessel, Airy and polynomial functions, and none
for igamma/igammac w.r.t. `input` or zeta w.r.t. `input`: asking for one raises torch's
NotImplementedError when the backward pass runs.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.custom_derivatives import SymbolicZero

from .pointwise import _refuse

__all__ = [
    "gammaln", "digamma", "polygamma", "multigammaln", "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr",
    "erfcx", "zeta", "xlog1py", "entr", "gammainc", "gammaincc", "bessel_j0", "bessel_j1", "bessel_y0",
    "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p",
]

S = jax.scipy.special


def _real(kernel, x, half=True):
    """Refuse complex inputs (and float16/bfloat16 where torch's kernel has none)."""
    _refuse(kernel, x, complex=True)
    if half and x.dtype in (jnp.float16, jnp.bfloat16):
        name = "Half" if x.dtype == jnp.float16 else "BFloat16"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _no_grad_for(name, fn):
    """fn(input, other) whose derivative w.r.t. `input` torch does not implement (it raises when
    backward reaches it); the derivative w.r.t. `other` is JAX's."""
    f = jax.custom_jvp(fn)

    def jvp(primals, tangents):
        (a, x), (ta, tx) = primals, tangents
        if not isinstance(ta, SymbolicZero):
            raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
        if isinstance(tx, SymbolicZero):
            return f(a, x), jnp.zeros_like(x)
        return jax.jvp(lambda x: fn(a, x), (x,), (tx,))

    f.defjvp(jvp, symbolic_zeros=True)
    return f


# ---------------------------------------------------------------------------- gamma family

def _with_derivative(fn, derivative):
    """fn with the derivative torch uses at its poles (JAX's gives nan or 0 there)."""
    f = jax.custom_jvp(fn)
    f.defjvp(lambda primals, tangents: (f(*primals), derivative(*primals) * tangents[0]))
    return f


def _digamma(x):
    zero = x == 0
    return jnp.where(zero, jnp.where(jnp.signbit(x), jnp.inf, -jnp.inf), S.digamma(jnp.where(zero, 1, x)))


_digamma = _with_derivative(_digamma, lambda x: S.polygamma(1, x))
_gammaln = _with_derivative(S.gammaln, _digamma)


def gammaln(input):
    """log|Gamma(input)| (torch.lgamma)."""
    _real("lgamma_vml_cpu", input, half=False)
    return _gammaln(input)


def digamma(input):
    """d/dx log Gamma(x) (torch.digamma, special.psi): -inf at +0, +inf at -0, nan at negative integers."""
    _real("digamma", input, half=False)
    return _digamma(input)


def polygamma(n, input):
    """The n-th derivative of digamma (n >= 0)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    _real("polygamma", input, half=False)
    if n == 0:
        return digamma(input)
    return S.polygamma(jnp.asarray(n, jnp.int32), input).astype(input.dtype)


def polygamma_method(input, n):
    """Tensor.polygamma(n): polygamma(n, self)."""
    return polygamma(n, input)


def multigammaln(input, p):
    """The multivariate log-gamma log Gamma_p(x) = p(p-1)/4 log(pi) + sum_j lgamma(x - j/2) (torch.mvlgamma)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    _real("mvlgamma", input, half=False)
    j = jnp.arange(p, dtype=input.dtype) / 2
    return (jnp.sum(S.gammaln(input[..., None] - j), -1) + p * (p - 1) / 4 * math.log(math.pi)).astype(input.dtype)


_igamma = _no_grad_for("igamma: input", S.gammainc)
_igammac = _no_grad_for("igammac: input", S.gammaincc)


def gammainc(input, other):
    """The regularized lower incomplete gamma P(input, other) (torch.igamma)."""
    _refuse("igamma_cpu", input, int=True, complex=True)
    return _igamma(input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma Q(input, other) = 1 - P (torch.igammac)."""
    _refuse("igammac_cpu", input, int=True, complex=True)
    return _igammac(input, other)


_zeta = _no_grad_for("zeta", S.zeta)


def zeta(input, other):
    """The Hurwitz zeta function sum_k (k + other)^-input."""
    _refuse("zeta_cpu", input, int=True, complex=True)
    return _zeta(input, other)


# ---------------------------------------------------------------------------- error-function family, entropy

def ndtr(input):
    """The standard normal CDF."""
    _real("ndtr_cpu", input, half=False)
    return S.ndtr(input)


_ndtri = _with_derivative(S.ndtri, lambda x: math.sqrt(2 * math.pi) * jnp.exp(S.ndtri(x) ** 2 / 2))


def ndtri(input):
    """The inverse of ndtr (its derivative is inf at 0 and 1, as torch's)."""
    _real("ndtri_cpu", input)
    return _ndtri(input)


def log_ndtr(input):
    """log(ndtr(input)), accurate in the tails."""
    _real("log_ndtr_cpu", input)
    return S.log_ndtr(input)


def erfcx(input):
    """The scaled complementary error function exp(x^2) erfc(x)."""
    _real("erfcx_cpu", input)
    return S.erfcx(input)


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0 (nan where other is nan)."""
    _real("xlog1py_cpu", input)
    return jnp.where(jnp.isnan(other), other, S.xlog1py(input, other))


def entr(input):
    """-x log x: 0 at 0, -inf for x < 0."""
    _real("entr_cpu", input, half=False)
    return jnp.where(input < 0, -jnp.inf, S.entr(input)).astype(input.dtype)


# ---------------------------------------------------------------------------- modified Bessel I

def i0(input):
    """The modified Bessel function of the first kind of order 0."""
    _real("i0_cpu", input, half=False)
    return S.i0(input)


def _half_in_float(fn):
    """fn computed in float32 for float16/bfloat16 inputs (as torch's CPU kernels do)."""
    def f(x):
        return fn(x.astype(jnp.float32)).astype(x.dtype) if x.dtype in (jnp.float16, jnp.bfloat16) else fn(x)
    return f


def i0e(input):
    """exp(-|x|) i0(x)."""
    _real("i0e_cpu", input, half=False)
    return _half_in_float(S.i0e)(input)


def i1(input):
    """The modified Bessel function of the first kind of order 1."""
    _real("i1_cpu", input, half=False)
    return _half_in_float(S.i1)(input)


def i1e(input):
    """exp(-|x|) i1(x)."""
    _real("i1e_cpu", input, half=False)
    return _half_in_float(S.i1e)(input)


def modified_bessel_i0(input):
    """I0 (as i0, without a gradient in torch)."""
    _real("modified_bessel_i0_cpu", input)
    return S.i0(input)


def modified_bessel_i1(input):
    """I1 (as i1, without a gradient in torch)."""
    _real("modified_bessel_i1_cpu", input)
    return S.i1(input)


# ---------------------------------------------------------------------------- Bessel J, Y, K and Airy by quadrature

_U, _W = (np.asarray(a) for a in np.polynomial.legendre.leggauss(64))  # nodes, weights on [-1, 1]
_BIG = 25.0


def _gl(f, lo, hi, dtype):
    """Gauss-Legendre integral of f(t) over [lo, hi] (arrays broadcast with the input)."""
    u, w = jnp.asarray(_U, dtype), jnp.asarray(_W, dtype)
    half = ((hi - lo) / 2)[..., None]
    t = ((hi + lo) / 2)[..., None] + half * u
    return jnp.sum(f(t) * w, -1) * half[..., 0]


def _hankel(nu, x):
    """(J_nu, Y_nu) for large x > 0 by Hankel's asymptotic series."""
    mu, z = 4.0 * nu * nu, 8 * x
    p = 1 - (mu - 1) * (mu - 9) / (2 * z**2) + (mu - 1) * (mu - 9) * (mu - 25) * (mu - 49) / (24 * z**4)
    q = (mu - 1) / z - (mu - 1) * (mu - 9) * (mu - 25) / (6 * z**3) + \
        (mu - 1) * (mu - 9) * (mu - 25) * (mu - 49) * (mu - 81) / (120 * z**5)
    chi = x - (nu / 2 + 0.25) * math.pi
    a = jnp.sqrt(2 / (math.pi * x))
    return a * (p * jnp.cos(chi) - q * jnp.sin(chi)), a * (p * jnp.sin(chi) + q * jnp.cos(chi))


def _jy(nu, x):
    """(J_nu(x), Y_nu(x)) for x > 0 from Bessel's and Schlafli's integrals:
    J = 1/pi int_0^pi cos(nu t - x sin t) dt - sin(nu pi)/pi int_0^inf exp(-x sinh t - nu t) dt,
    Y = 1/pi int_0^pi sin(x sin t - nu t) dt - 1/pi int_0^inf (e^(nu t) + e^(-nu t) cos(nu pi)) e^(-x sinh t) dt."""
    small = jnp.where(x < _BIG, x, 1)
    xs = small[..., None]
    zero, pi = jnp.zeros_like(small), jnp.full_like(small, math.pi)
    j = _gl(lambda t: jnp.cos(nu * t - xs * jnp.sin(t)), zero, pi, x.dtype) / math.pi
    y = _gl(lambda t: jnp.sin(xs * jnp.sin(t) - nu * t), zero, pi, x.dtype) / math.pi
    top = jnp.arcsinh(60 / small)  # e^(-x sinh t) < e^-60 beyond
    tail = lambda t, s: jnp.exp(s * t - xs * jnp.sinh(t))  # noqa: E731
    if nu % 1:
        j = j - math.sin(nu * math.pi) / math.pi * _gl(lambda t: tail(t, -nu), zero, top, x.dtype)
    y = y - (_gl(lambda t: tail(t, nu), zero, top, x.dtype) +
             math.cos(nu * math.pi) * _gl(lambda t: tail(t, -nu), zero, top, x.dtype)) / math.pi
    jb, yb = _hankel(nu, jnp.where(x < _BIG, _BIG, x))
    return jnp.where(x < _BIG, j, jb), jnp.where(x < _BIG, y, yb)


def _k(nu, x, scaled):
    """K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt for x > 0 (times e^x when scaled)."""
    xp = jnp.where(x > 0, x, 1)
    top = jnp.arccosh(1 + 60 / xp)
    xs = xp[..., None]
    k = _gl(lambda t: jnp.exp(-xs * (jnp.cosh(t) - 1)) * jnp.cosh(nu * t), jnp.zeros_like(xp), top, x.dtype)
    k = k if scaled else k * jnp.exp(-xp)
    return jnp.where(x > 0, k, jnp.where(x == 0, jnp.inf, jnp.nan))


def _j(name, nu, input):
    _real(f"{name}_cpu", input)
    ax = jnp.abs(input)
    j = _jy(nu, jnp.where(ax > 0, ax, 1))[0]
    j = jnp.where(ax > 0, j, 1.0 if nu == 0 else 0.0)
    return (j if nu == 0 else jnp.sign(input) * j).astype(input.dtype)


def _y(name, nu, input):
    _real(f"{name}_cpu", input)
    y = _jy(nu, jnp.where(input > 0, input, 1))[1]
    return jnp.where(input > 0, y, jnp.where(input == 0, -jnp.inf, jnp.nan)).astype(input.dtype)


def bessel_j0(input):
    """The Bessel function of the first kind of order 0."""
    return _j("bessel_j0", 0, input)


def bessel_j1(input):
    """The Bessel function of the first kind of order 1."""
    return _j("bessel_j1", 1, input)


def bessel_y0(input):
    """The Bessel function of the second kind of order 0 (-inf at 0, nan below)."""
    return _y("bessel_y0", 0, input)


def bessel_y1(input):
    """The Bessel function of the second kind of order 1 (-inf at 0, nan below)."""
    return _y("bessel_y1", 1, input)


def _kfn(name, nu, scaled):
    def fn(input):
        _real(f"{name}_cpu", input)
        return _k(nu, input, scaled).astype(input.dtype)

    fn.__name__ = name
    fn.__doc__ = (f"{'exp(x) * ' if scaled else ''}the modified Bessel function of the second kind of order {nu} "
                  "(inf at 0, nan below).")
    return fn


modified_bessel_k0 = _kfn("modified_bessel_k0", 0, False)
modified_bessel_k1 = _kfn("modified_bessel_k1", 1, False)
scaled_modified_bessel_k0 = _kfn("scaled_modified_bessel_k0", 0, True)
scaled_modified_bessel_k1 = _kfn("scaled_modified_bessel_k1", 1, True)


def spherical_bessel_j0(input):
    """sin(x) / x, 1 at 0."""
    _real("spherical_bessel_j0_cpu", input)
    nz = jnp.where(input == 0, 1, input)
    return jnp.where(input == 0, 1, jnp.sin(nz) / nz).astype(input.dtype)


_AI0, _AI1 = 0.355028053887817239, 0.258819403792806798  # Ai(0), -Ai'(0)


def _airy_series(x, terms=30):
    f, g, tf, tg = jnp.ones_like(x), x, jnp.ones_like(x), x
    x3 = x**3
    for k in range(1, terms):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f, g = f + tf, g + tg
    return _AI0 * f - _AI1 * g


def airy_ai(input):
    """The Airy function Ai: its power series for |x| <= 2, K_1/3 for x > 2 and J_+-1/3 for x < -2."""
    _real("airy_ai_cpu", input)
    x = input
    small = jnp.abs(x) <= 2
    pos = jnp.where(x > 2, x, 3.0)
    zeta = 2 / 3 * pos**1.5
    right = jnp.sqrt(pos / 3) / math.pi * _k(1 / 3, zeta, False)
    neg = jnp.where(x < -2, -x, 3.0)
    zn = 2 / 3 * neg**1.5
    left = jnp.sqrt(neg) / 3 * (_jy(1 / 3, zn)[0] + _jy(-1 / 3, zn)[0])
    out = jnp.where(small, _airy_series(jnp.where(small, x, 0)), jnp.where(x > 0, right, left))
    return jnp.where(jnp.isnan(x), x, out).astype(x.dtype)


# ---------------------------------------------------------------------------- orthogonal polynomials

def _recurrence(name, x, n, first, step):
    """p_n(x) for integer n (0 for n < 0) from p_0 = 1, p_1 = first(x) and
    p_(k+1) = step(k, x, p_k, p_(k-1)), run up to the largest n."""
    _real(f"{name}_cpu", x)
    dtype = x.dtype
    x, n = jnp.broadcast_arrays(x, n)
    n = n.astype(jnp.int64) if jnp.issubdtype(n.dtype, jnp.floating) else n
    p0, p1 = jnp.ones_like(x), first(x)
    top = jnp.max(n, initial=1) if n.size else jnp.asarray(1, n.dtype)

    def body(carry):
        k, prev, cur, out = carry
        nxt = step(k.astype(dtype), x, cur, prev)
        return k + 1, cur, nxt, jnp.where(n == k + 1, nxt, out)

    out = jnp.where(n == 0, p0, jnp.where(n == 1, p1, 0)).astype(dtype)
    out = lax.while_loop(lambda c: c[0] < top, body, (jnp.asarray(1, n.dtype), p0, p1, out))[3]
    return jnp.where(n < 0, 0, out).astype(dtype)


def _poly(name, first, step, shift=False, doc=""):
    def fn(input, n):
        input, n = jnp.broadcast_arrays(input, n)
        x = 2 * input - 1 if shift else input
        return _recurrence(name, input, n, lambda _: first(x), lambda k, _, c, p: step(k, x, c, p))

    fn.__name__ = name
    fn.__doc__ = f"{doc} of degree n at input."
    return fn


def _cheb(kind, first, shift):
    name = f"{'shifted_' if shift else ''}chebyshev_polynomial_{kind}"
    return _poly(name, first, lambda k, x, c, p: 2 * x * c - p, shift,
                 f"The {'shifted ' if shift else ''}Chebyshev polynomial of the {kind.upper()} kind")


_FIRST = {"t": lambda x: x, "u": lambda x: 2 * x, "v": lambda x: 2 * x - 1, "w": lambda x: 2 * x + 1}
chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, chebyshev_polynomial_w = (
    _cheb(k, _FIRST[k], False) for k in "tuvw")
(shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
 shifted_chebyshev_polynomial_w) = (_cheb(k, _FIRST[k], True) for k in "tuvw")
hermite_polynomial_h = _poly("hermite_polynomial_h", lambda x: 2 * x, lambda k, x, c, p: 2 * x * c - 2 * k * p,
                             doc="The physicists' Hermite polynomial H")
hermite_polynomial_he = _poly("hermite_polynomial_he", lambda x: x, lambda k, x, c, p: x * c - k * p,
                              doc="The probabilists' Hermite polynomial He")
laguerre_polynomial_l = _poly("laguerre_polynomial_l", lambda x: 1 - x,
                              lambda k, x, c, p: ((2 * k + 1 - x) * c - k * p) / (k + 1),
                              doc="The Laguerre polynomial L")
legendre_polynomial_p = _poly("legendre_polynomial_p", lambda x: x,
                              lambda k, x, c, p: ((2 * k + 1) * x * c - k * p) / (k + 1),
                              doc="The Legendre polynomial P")
