"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations
(torch.nn.utils.parametrize), with torch's state_dict layout ('parametrizations.weight.original0', ...)."""

from __future__ import annotations

from enum import Enum, auto

from ... import linalg
from ..._creation import eye, ones, zeros_like
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _cat(tensors, dim):
    from ... import cat  # installed by the op table after this module is imported

    return cat(tensors, dim=dim)


def _randn(*size, dtype, device):
    from ... import randn

    return randn(*size, dtype=dtype, device=device)


def _mH(x):
    return x.mT.conj() if x.is_complex() else x.mT


def _norm_except_dim(v, dim):
    """The 2-norm over every dim but `dim` (kept as size-1 dims); dim -1 (None) is the whole norm."""
    if dim == -1:
        return linalg.vector_norm(v)
    dims = tuple(d for d in range(v.ndim) if d != dim % v.ndim)
    return linalg.vector_norm(v, 2, dim=dims, keepdim=True)


def _weight_norm(v, g, dim):
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0):
    """weight = g * v / ||v|| with g ('original0') and v ('original1') learned separately (norm over all
    dims but `dim`). State dicts of the old nn.utils.weight_norm (weight_g, weight_v) still load."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        with no_grad():  # u and v are updated in place, as torch's out= calls
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_mH(weight_mat).mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _conv_transpose_types():
    from ..modules import conv

    return tuple(getattr(conv, f"ConvTranspose{d}d") for d in (1, 2, 3))


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """weight / sigma(weight), sigma the largest singular value estimated by power iteration (the
    vectors `_u`, `_v` are buffers of the parametrization, updated in training mode)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _conv_transpose_types()) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _householder_product(a, tau):
    """Q = H_1 ... H_k with H_i = I - tau_i v_i v_i^H, v_i column i of `a` below the diagonal with a 1 on it
    (torch.linalg.householder_product), as k rank-one updates."""
    n, k = a.shape[-2], a.shape[-1]
    rows = eye(n, dtype=a.dtype, device=a.device)
    q = rows.expand(*a.shape[:-2], n, n)
    below = ones(n, n, dtype=a.dtype, device=a.device).tril(-1)  # below[r, c] = r > c
    for i in range(k):
        v = a[..., :, i] * below[:, i] + rows[:, i]
        q = q - tau[..., i, None, None] * (q @ v[..., :, None]) @ v[..., None, :].conj()
    return q[..., :, :k]


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eps = 10.0 * n * (1.2e-07 if q.dtype.itemsize <= 4 else 2.3e-16)
    return bool(((_mH(q) @ q) - eye(k, dtype=q.dtype, device=q.device)).abs().max() <= eps)


def _make_orthogonal(a):
    """The Q of the QR decomposition of `a` whose R has a positive diagonal."""
    q, r = linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization=True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = _cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - _mH(x)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = a.matrix_exp()
            else:
                i = eye(n, dtype=a.dtype, device=a.device)
                q = linalg.solve(i - 0.5 * a, i + 0.5 * a)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        return q.mT if transposed else q

    def right_inverse(self, q):
        with no_grad():
            if q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.size(-2), q.size(-1)
            if n < k:
                q = q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                # torch stores geqrf's reflectors here; without geqrf the original is kept as given
                raise NotImplementedError("right_inverse without trivialization needs geqrf")
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:
                q = _make_orthogonal(_cat([q, _randn(*(q.size()[:-2] + (n, n - k)), dtype=q.dtype,
                                                     device=q.device)], dim=-1))
            self.base = q
            neg_id = zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain a matrix (or batch of matrices) to be orthogonal (unitary): via the matrix exponential or
    the Cayley map of a skew-symmetric matrix, or a product of Householder reflectors."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
