"""torch.nn.utils against torch: gradient clipping, parameters <-> vector, parametrize and the
parametrizations (weight_norm, spectral_norm, orthogonal), the hook-based weight_norm/spectral_norm,
and conv/linear + BatchNorm fusion."""

import copy
import re
import warnings

import numpy as np
import pytest
import torch

import facade

SHAPES = [(3, 4), (5,), (2, 3, 2)]


def _params(lib, seed=0, dtypes=(np.float32,) * 3, scale=1.0, nan=False):
    rng = np.random.default_rng(seed)
    ps = []
    for shape, dt in zip(SHAPES, dtypes):
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape).astype(dt)))
        g = (rng.standard_normal(shape) * scale).astype(dt)
        if nan and len(ps) == 1:
            g.flat[0] = np.nan
        p.grad = lib.tensor(g)
        ps.append(p)
    ps.append(lib.nn.Parameter(lib.ones(2)))  # no grad: skipped
    return ps


def _grads_close(fp, tp, rtol=1e-6):
    for a, b in zip(fp, tp):
        if b.grad is None:
            assert a.grad is None
        else:
            assert a.grad.dtype.__repr__() == repr(b.grad.dtype)
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3.5, 0])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm(norm_type, max_norm):
    tp, fp = _params(torch), _params(facade)
    nt = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    nf = facade.nn.utils.clip_grad_norm_(fp, max_norm, norm_type)
    assert isinstance(nf, facade.Tensor) and nf.shape == nt.shape and repr(nf.dtype) == repr(nt.dtype)
    np.testing.assert_allclose(nf.item(), nt.item(), rtol=1e-6)
    _grads_close(fp, tp)


def test_clip_grad_norm_mixed_dtypes_single_tensor_and_total_norm():
    dts = (np.float32, np.float64, np.float32)
    tp, fp = _params(torch, 1, dts), _params(facade, 1, dts)
    nt = torch.nn.utils.clip_grad_norm_(tp, 0.1)
    nf = facade.nn.utils.clip_grad_norm_(fp, 0.1)
    assert repr(nf.dtype) == repr(nt.dtype)
    np.testing.assert_allclose(nf.item(), nt.item(), rtol=1e-6)
    _grads_close(fp, tp)
    nt = torch.nn.utils.clip_grad_norm_(tp[0], 0.01, norm_type="inf")
    nf = facade.nn.utils.clip_grad_norm_(fp[0], 0.01, norm_type="inf")
    np.testing.assert_allclose(nf.item(), nt.item(), rtol=1e-6)
    _grads_close(fp, tp)
    tp, fp = _params(torch, 2), _params(facade, 2)
    tt = torch.nn.utils.get_total_norm([p.grad for p in tp[:3]], 3.0)
    ft = facade.nn.utils.get_total_norm([p.grad for p in fp[:3]], 3.0)
    np.testing.assert_allclose(ft.item(), tt.item(), rtol=1e-6)
    torch.nn.utils.clip_grads_with_norm_(tp, 0.3, tt)
    facade.nn.utils.clip_grads_with_norm_(fp, 0.3, ft)
    _grads_close(fp, tp)
    assert facade.nn.utils.get_total_norm([]).item() == torch.nn.utils.get_total_norm([]).item() == 0.0


def test_clip_grad_norm_nonfinite():
    tp, fp = _params(torch, nan=True), _params(facade, nan=True)
    with pytest.raises(RuntimeError) as te:
        torch.nn.utils.clip_grad_norm_(tp, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError, match="^" + re.escape(str(te.value)) + "$"):
        facade.nn.utils.clip_grad_norm_(fp, 1.0, error_if_nonfinite=True)
    _grads_close(fp, tp)  # nothing was scaled
    nt = torch.nn.utils.clip_grad_norm_(tp, 1.0)
    nf = facade.nn.utils.clip_grad_norm_(fp, 1.0)
    assert np.isnan(nf.item()) and np.isnan(nt.item())
    _grads_close(fp, tp)


def test_clip_grad_norm_empty_generator_warns():
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        n = facade.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    assert n.item() == 0.0
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        facade.nn.utils.clip_grad_norm(_params(facade), 1.0)


@pytest.mark.parametrize("clip", [0.3, 5])
def test_clip_grad_value(clip):
    tp, fp = _params(torch, 3), _params(facade, 3)
    assert torch.nn.utils.clip_grad_value_(tp, clip) is None
    assert facade.nn.utils.clip_grad_value_(fp, clip) is None
    _grads_close(fp, tp)


def test_clip_grad_inside_training_step():
    """Gradients produced by backward are clipped in place; the parameters' values are untouched."""
    lin = facade.nn.Linear(4, 3)
    (lin(facade.ones(2, 4)) * 100).sum().backward()
    w = lin.weight.detach().clone()
    n = facade.nn.utils.clip_grad_norm_(lin.parameters(), 1.0)
    assert n.item() > 1
    total = sum(float((p.grad ** 2).sum()) for p in lin.parameters()) ** 0.5
    np.testing.assert_allclose(total, 1.0, rtol=1e-5)
    assert facade.equal(lin.weight, w) and lin.weight.grad_fn is None


def test_parameters_to_vector_and_back():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in arrays]
    fp = [facade.nn.Parameter(facade.tensor(a)) for a in arrays]
    vt, vf = torch.nn.utils.parameters_to_vector(tp), facade.nn.utils.parameters_to_vector(fp)
    np.testing.assert_array_equal(vf.detach().numpy(), vt.detach().numpy())
    vf.sum().backward()
    assert all(np.all(p.grad.numpy() == 1) for p in fp)
    new = rng.standard_normal(vt.shape[0]).astype(np.float32)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), tp)
    facade.nn.utils.vector_to_parameters(facade.tensor(new), fp)
    for a, b in zip(fp, tp):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert isinstance(a, facade.nn.Parameter)
    with pytest.raises(TypeError, match=re.escape("expected torch.Tensor, but got: numpy.ndarray")):
        facade.nn.utils.vector_to_parameters(new, fp)


# ---------------------------------------------------------------------------- parametrize

def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).mT

        def right_inverse(self, a):
            return a.triu()

    return Symmetric()


def _scale2(lib):
    class Scale(lib.nn.Module):
        def forward(self, x):
            return 2 * x

    return Scale()


def _linear_pair(n_in=4, n_out=4, seed=0, cls="Linear"):
    torch.manual_seed(seed)
    tm = getattr(torch.nn, cls)(n_in, n_out)
    fm = getattr(facade.nn, cls)(n_in, n_out)
    fm.load_state_dict({k: facade.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, fm


def _same_state(fm, tm, rtol=1e-6, atol=1e-7):
    t_sd, f_sd = tm.state_dict(), fm.state_dict()
    assert list(f_sd) == list(t_sd)
    for k, v in t_sd.items():
        np.testing.assert_allclose(f_sd[k].numpy(), v.detach().numpy(), rtol=rtol, atol=atol, err_msg=k)


def _load(fm, tm):
    fm.load_state_dict({k: facade.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


def _forward_close(fm, tm, x, rtol=1e-5, atol=1e-5):
    xt, xf = torch.tensor(x), facade.tensor(x)
    yt, yf = tm(xt), fm(xf)
    np.testing.assert_allclose(yf.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    yt.sum().backward()
    yf.sum().backward()
    ft = dict(fm.named_parameters())
    for name, p in tm.named_parameters():
        assert ft[name].grad is not None, name
        np.testing.assert_allclose(ft[name].grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_register_parametrization():
    P = facade.nn.utils.parametrize
    tm, fm = _linear_pair()
    for lib, m in ((torch, tm), (facade, fm)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib))
    assert type(fm).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(fm) is facade.nn.Linear
    assert P.is_parametrized(fm) and P.is_parametrized(fm, "weight") and not P.is_parametrized(fm, "bias")
    assert isinstance(fm.parametrizations.weight, P.ParametrizationList)
    _same_state(fm, tm)
    assert list(fm.state_dict()) == ["bias", "parametrizations.weight.original"]
    np.testing.assert_allclose(fm.weight.detach().numpy(), tm.weight.detach().numpy())
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    _forward_close(fm, tm, x)
    # assignment goes through right_inverse
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    with torch.no_grad():
        tm.weight = torch.tensor(a)
    fm.weight = facade.tensor(a)
    _same_state(fm, tm)
    # chaining: a second parametrization on the same tensor
    for lib, m in ((torch, tm), (facade, fm)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale2(lib))
    np.testing.assert_allclose(fm.weight.detach().numpy(), tm.weight.detach().numpy())
    assert repr(fm) == repr(tm)
    with P.cached():
        assert fm.weight is fm.weight
    assert fm.weight is not fm.weight


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(leave):
    tm, fm = _linear_pair()
    for lib, m in ((torch, tm), (facade, fm)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib))
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert type(fm) is facade.nn.Linear and not hasattr(fm, "parametrizations")
    assert isinstance(fm.weight, facade.nn.Parameter)
    _same_state(fm, tm)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        facade.nn.utils.parametrize.remove_parametrizations(fm, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with "
                                         "name 'nope'"):
        facade.nn.utils.parametrize.register_parametrization(fm, "nope", _symmetric(facade))


def test_parametrization_shape_check():
    class Bad(facade.nn.Module):
        def forward(self, x):
            return x[0]

    tm, fm = _linear_pair()
    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        facade.nn.utils.parametrize.register_parametrization(fm, "weight", Bad())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization(dim):
    tm, fm = _linear_pair(4, 3)
    torch.nn.utils.parametrizations.weight_norm(tm, dim=dim)
    facade.nn.utils.parametrizations.weight_norm(fm, dim=dim)
    assert list(fm.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    _same_state(fm, tm)
    _forward_close(fm, tm, np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32))


def test_weight_norm_loads_old_state_dict():
    tm, fm = _linear_pair(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = torch.nn.utils.weight_norm(copy.deepcopy(tm))
    torch.nn.utils.parametrizations.weight_norm(tm)
    tm.load_state_dict(old.state_dict())
    facade.nn.utils.parametrizations.weight_norm(fm)
    fm.load_state_dict({k: facade.tensor(v.detach().numpy()) for k, v in old.state_dict().items()})
    _same_state(fm, tm)


@pytest.mark.parametrize("train", [True, False])
def test_spectral_norm_parametrization(train):
    tm, fm = _linear_pair(5, 3)
    torch.nn.utils.parametrizations.spectral_norm(tm)
    facade.nn.utils.parametrizations.spectral_norm(fm)
    assert list(fm.state_dict()) == list(tm.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    _load(fm, tm)  # u, v start from torch's random draw
    tm.train(train)
    fm.train(train)
    x = np.random.default_rng(2).standard_normal((2, 5)).astype(np.float32)
    for _ in range(2):
        _forward_close(fm, tm, x)
        _same_state(fm, tm, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape,orth_map", [((4, 4), None), ((4, 4), "cayley"), ((3, 5), None),
                                            ((5, 3), "matrix_exp"), ((5, 3), "householder")])
def test_orthogonal(shape, orth_map):
    tm, fm = _linear_pair(shape[1], shape[0])
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orth_map)
    facade.nn.utils.parametrizations.orthogonal(fm, orthogonal_map=orth_map)
    assert list(fm.state_dict()) == list(tm.state_dict())
    _load(fm, tm)
    w = fm.weight.detach().numpy()
    np.testing.assert_allclose(w, tm.weight.detach().numpy(), rtol=1e-4, atol=1e-5)
    gram = w @ w.T if shape[0] <= shape[1] else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-5)
    _forward_close(fm, tm, np.random.default_rng(3).standard_normal((2, shape[1])).astype(np.float32), rtol=1e-4)


def test_old_weight_norm():
    tm, fm = _linear_pair(4, 3)
    with pytest.warns(FutureWarning, match="torch.nn.utils.weight_norm` is deprecated"):
        facade.nn.utils.weight_norm(fm, dim=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(tm, dim=1)
    assert [n for n, _ in fm.named_parameters()] == [n for n, _ in tm.named_parameters()] == ["bias", "weight_g",
                                                                                             "weight_v"]
    _same_state(fm, tm)
    _forward_close(fm, tm, np.random.default_rng(4).standard_normal((2, 4)).astype(np.float32))
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
        facade.nn.utils.weight_norm(fm, dim=1)
    torch.nn.utils.remove_weight_norm(tm)
    facade.nn.utils.remove_weight_norm(fm)
    _same_state(fm, tm)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        facade.nn.utils.remove_weight_norm(fm)


@pytest.mark.parametrize("train", [True, False])
def test_old_spectral_norm(train):
    tm, fm = _linear_pair(5, 3)
    torch.nn.utils.spectral_norm(tm)
    facade.nn.utils.spectral_norm(fm)
    assert list(fm.state_dict()) == list(tm.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    _load(fm, tm)
    tm.train(train)
    fm.train(train)
    x = np.random.default_rng(5).standard_normal((2, 5)).astype(np.float32)
    for _ in range(2):
        _forward_close(fm, tm, x)
        _same_state(fm, tm, rtol=1e-5, atol=1e-6)
    torch.nn.utils.remove_spectral_norm(tm)
    facade.nn.utils.remove_spectral_norm(fm)
    _same_state(fm, tm, rtol=1e-5, atol=1e-6)


class _BN:
    """The attributes fuse_*_bn_eval reads from an eval-mode BatchNorm, copied from torch's."""

    def __init__(self, bn):
        self.training = False
        for k in ("running_mean", "running_var", "weight", "bias"):
            setattr(self, k, facade.tensor(getattr(bn, k).detach().numpy()))
        self.eps, self.num_features = bn.eps, bn.num_features


def _bn(cls, n):
    bn = cls(n)
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 2)
        bn.bias.uniform_(-1, 1)
    return bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn(transpose):
    cls = "ConvTranspose2d" if transpose else "Conv2d"
    torch.manual_seed(0)
    tc = getattr(torch.nn, cls)(3, 4, 3).eval()
    fc = getattr(facade.nn, cls)(3, 4, 3).eval()
    _load(fc, tc)
    bn = _bn(torch.nn.BatchNorm2d, 4)
    tf = torch.nn.utils.fuse_conv_bn_eval(tc, bn, transpose=transpose)
    ff = facade.nn.utils.fuse_conv_bn_eval(fc, _BN(bn), transpose=transpose)
    assert ff is not fc and type(ff) is type(fc)
    assert isinstance(ff.weight, facade.nn.Parameter)
    _same_state(ff, tf, rtol=1e-5)
    x = np.random.default_rng(6).standard_normal((1, 3, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(ff(facade.tensor(x)).detach().numpy(), bn(tc(torch.tensor(x))).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        facade.nn.utils.fuse_conv_bn_eval(fc.train(), _BN(bn))


def test_fuse_linear_bn():
    tl, fl = _linear_pair(4, 3)
    tl.eval()
    fl.eval()
    bn = _bn(torch.nn.BatchNorm1d, 3)
    tf, ff = torch.nn.utils.fuse_linear_bn_eval(tl, bn), facade.nn.utils.fuse_linear_bn_eval(fl, _BN(bn))
    _same_state(ff, tf, rtol=1e-5)
    w, b = facade.nn.utils.fuse_linear_bn_weights(fl.weight, None, *[_BN(bn).__dict__[k] for k in (
        "running_mean", "running_var")], bn.eps, _BN(bn).weight, _BN(bn).bias)
    wt, bt = torch.nn.utils.fuse_linear_bn_weights(tl.weight, None, bn.running_mean, bn.running_var, bn.eps,
                                                   bn.weight, bn.bias)
    np.testing.assert_allclose(b.detach().numpy(), bt.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(w.detach().numpy(), wt.detach().numpy(), rtol=1e-5)
