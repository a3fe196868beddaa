"""View semantics against real torch: aliasing both ways, chains, strides, autograd through
in-place writes on views, and torch's errors for writes it refuses."""

import numpy as np
import pytest
import torch

import facade

# Each entry: a view op as f(mod, x) on x of shape (2, 3, 4) (or the shape given).
VIEWS = {
    "view": lambda m, x: x.view(6, 4),
    "view_-1": lambda m, x: x.view(-1, 2),
    "view_size1": lambda m, x: x.view(2, 1, 12, 1),
    "reshape": lambda m, x: x.reshape(4, 6),
    "reshape_t": lambda m, x: x.transpose(0, 1).reshape(3, 1, 2, 4),
    "flatten": lambda m, x: x.flatten(),
    "flatten_12": lambda m, x: x.flatten(1),
    "flatten_t": lambda m, x: x.transpose(1, 2).flatten(0, 1),
    "unflatten": lambda m, x: x.unflatten(2, (2, 1, 2)),
    "transpose": lambda m, x: x.transpose(0, 2),
    "swapaxes": lambda m, x: x.swapaxes(1, 2),
    "permute": lambda m, x: x.permute(2, 0, 1),
    "t": lambda m, x: x[0].t(),
    "T": lambda m, x: x.T,
    "mT": lambda m, x: x.mT,
    "movedim": lambda m, x: x.movedim(0, -1),
    "select": lambda m, x: x.select(1, 2),
    "narrow": lambda m, x: x.narrow(2, 1, 2),
    "split": lambda m, x: x.split(2, 2)[1],
    "split_sizes": lambda m, x: x.split([1, 2], 1)[1],
    "chunk": lambda m, x: x.chunk(3, 1)[2],
    "unbind": lambda m, x: x.unbind(1)[1],
    "tensor_split": lambda m, x: x.tensor_split([1, 3], 2)[1],
    "diagonal": lambda m, x: x.diagonal(1, 1, 2),
    "diagonal_neg": lambda m, x: x.diagonal(-1, 2, 0),
    "expand": lambda m, x: x[:, :1].expand(3, 2, 5, 4),
    "expand_as": lambda m, x: x[0, 0].expand_as(x),
    "broadcast_to": lambda m, x: x[:1].broadcast_to(2, 2, 3, 4),
    "squeeze": lambda m, x: x[:, :1].squeeze(),
    "squeeze_dim": lambda m, x: x[:, :1].squeeze(1),
    "squeeze_dims": lambda m, x: x[:1, :1].squeeze((0, 1)),
    "unsqueeze": lambda m, x: x.unsqueeze(1),
    "unsqueeze_t": lambda m, x: x.transpose(0, 2).unsqueeze(1),
    "unsqueeze_end": lambda m, x: x.transpose(0, 1).unsqueeze(3),
    "view_as": lambda m, x: x.view_as(m.zeros(4, 6)),
    "unfold": lambda m, x: x.unfold(2, 2, 1),
    "as_strided": lambda m, x: x.as_strided((3, 2), (2, 5), 1),
    "getitem_int": lambda m, x: x[1],
    "getitem_slices": lambda m, x: x[:, 1:, ::2],
    "getitem_none": lambda m, x: x[:, None, 1, None],
    "getitem_ellipsis": lambda m, x: x[..., 1:3],
    "getitem_empty": lambda m, x: x[:, 2:1],
    "getitem_tensor0d": lambda m, x: x[m.tensor(1)],
    "chain": lambda m, x: x.transpose(0, 2)[1:].unsqueeze(0).select(2, 1).narrow(1, 0, 2),
    "chain_reshape": lambda m, x: x.permute(1, 0, 2)[:, 1].reshape(3, 2, 2)[1:],
    "detach": lambda m, x: x.detach()[1],
    "atleast_3d": lambda m, x: m.atleast_3d(x[0, 0]),
    "meshgrid": lambda m, x: m.meshgrid(x[0, 0], x[1, 1, :3], indexing="xy")[0],
}
WRITABLE = [k for k in VIEWS if not k.startswith(("expand", "broadcast", "unfold", "as_strided", "meshgrid"))]


def base(mod, shape=(2, 3, 4), dtype="float32"):
    return mod.arange(int(np.prod(shape)), dtype=getattr(mod, dtype)).reshape(shape) * 1


def values(t):
    return np.array(t.detach().tolist())


def same(a, b):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(values(b), values(a), rtol=1e-6)


# More geometry cases, on x of shape (2, 6).
EDGES = {
    "unfold_0d": lambda m, x: m.tensor(1.0).unfold(0, 1, 1),
    "as_strided_of_view": lambda m, x: x.t().as_strided((2, 2), (1, 3)),
    "as_strided_detached": lambda m, x: x.detach().t().as_strided((2, 2), (1, 3), 2),
    "diagonal_empty": lambda m, x: x.diagonal(5),
    "squeeze_t": lambda m, x: x[:, :1].t().squeeze(0),
    "expand_0d": lambda m, x: m.tensor(1.0).expand(2, 3),
    "narrow_negative": lambda m, x: x.narrow(1, -2, 2),
    "select_negative": lambda m, x: x.select(0, -1),
    "tensor_split_past_end": lambda m, x: x.tensor_split([1, 9], 1)[2],
    "slice_past_end": lambda m, x: x[10:20],
    "slice_step": lambda m, x: x[-1:, ::3],
    "movedim_pairs": lambda m, x: x.movedim((0, 1), (1, 0)),
    "expand_after_none": lambda m, x: x.view(3, 4)[None, :, None].expand(2, 3, 5, 4),
    "mT_after_none": lambda m, x: x.t()[None].mT,
    "empty_reshape": lambda m, x: m.zeros(0, 3).t().reshape(0, 3),
    "empty_slice": lambda m, x: m.zeros(2, 0, 3)[:, :, 1:],
    "squeeze_all": lambda m, x: x.reshape(2, 1, 3, 2).squeeze(),
    "unfold_twice": lambda m, x: x.unfold(1, 2, 2).unfold(0, 1, 1),
    "ravel_t": lambda m, x: x.t().ravel(),
    "broadcast_tensors": lambda m, x: m.broadcast_tensors(x, m.zeros(3, 2, 6))[0],
}


@pytest.mark.parametrize("name", list(VIEWS) + list(EDGES))
def test_geometry(name):
    """stride(), storage_offset(), is_contiguous() and aliasing are torch's."""
    f = VIEWS.get(name) or EDGES[name]
    shape = (2, 3, 4) if name in VIEWS else (2, 6)
    xt, xf = base(torch, shape), base(facade, shape)
    yt, yf = f(torch, xt), f(facade, xf)
    same(yt, yf)
    assert yf.stride() == yt.stride()
    assert yf.storage_offset() == yt.storage_offset()
    assert yf.is_contiguous() == yt.is_contiguous()
    shares = yt.untyped_storage().data_ptr() == xt.untyped_storage().data_ptr()
    assert (yf.untyped_storage().data_ptr() == xf.untyped_storage().data_ptr()) == shares


@pytest.mark.parametrize("name", WRITABLE)
@pytest.mark.parametrize("write", ["mul_", "setitem", "copy_", "fill_", "zero_"])
def test_write_through_view(name, write):
    """A write into the view reaches the base; the view reads it back."""
    f = VIEWS[name]
    out = []
    for mod in (torch, facade):
        x = base(mod)
        y = f(mod, x)
        if write == "mul_":
            y.mul_(-2)
        elif write == "setitem":
            y[...] = mod.arange(y.shape[-1] if y.ndim else 1, dtype=mod.float32).reshape(y.shape[-1:]) - 10
        elif write == "copy_":
            y.copy_(mod.full(tuple(y.shape), 7.0))
        elif write == "fill_":
            y.fill_(-1)
        else:
            y.zero_()
        out.append((x, y))
    same(out[0][0], out[1][0])
    same(out[0][1], out[1][1])


@pytest.mark.parametrize("name", list(VIEWS))
def test_write_to_base_shows_in_view(name):
    f = VIEWS[name]
    out = []
    for mod in (torch, facade):
        x = base(mod)
        y = f(mod, x)
        x.mul_(3).add_(1)
        x[1, 1] = -5
        out.append(y)
    same(*out)


def test_sibling_views_and_detach():
    out = []
    for mod in (torch, facade):
        x = base(mod)
        a, b = x[0], x.transpose(0, 1)
        a[1].add_(100)
        d = x.detach()
        d.diagonal(0, 1, 2).fill_(-1)
        x.data[1, 0, 0] = 42
        out.append((x, a, b, d))
    for t, f in zip(*out):
        same(t, f)


def test_views_of_host_values_are_read_on_the_host():
    """A view read after base.numpy() moved the base's values to numpy (a generation loop's `.numpy()` of the last
    logits) is a strided numpy view of them: reading it, and computing with it, runs no program for the view, where
    each new base length compiled a few; values and write-through are torch's."""
    from facade.compiler import metrics, reset_metrics

    for n in (3, 4, 5, 6):
        res = {}
        for lib in (torch, facade):
            x = lib.arange(2.0 * n * 5).reshape(2, n, 5)
            last, mid = x[:, -1, :], x[1, 1:]
            reset_metrics()
            got = (last.numpy().copy(), (last + 1).numpy(), mid.numpy().copy(), (mid * 2).numpy())
            if lib is facade:
                ops = metrics().ops
                assert not {"__getitem__", "iota", "reshape"} & set(ops), ops
            last.numpy()[0, 0] = -1.0  # .numpy() shares memory with the base
            res[lib] = (*got, x.numpy().copy())
        for f, w in zip(res[facade], res[torch]):
            np.testing.assert_array_equal(f, w)


def test_view_writes_in_place_ops_keep_identity():
    out = []
    for mod in (torch, facade):
        x = base(mod)
        y = x[1]
        y += 1
        y[0] *= 2
        x.view(-1)[::5] = 0
        out.append((x, y))
    for t, f in zip(*out):
        same(t, f)


# ---------------------------------------------------------------------------- autograd through views

GRAD_CASES = {
    "select_mul": lambda m, x, w: (lambda y: (y[0].mul_(2), y)[1])(x * 1),
    "transpose_add": lambda m, x, w: (lambda y: (y.t()[1].add_(w), y)[1])(x * 1),
    "diagonal_zero": lambda m, x, w: (lambda y: (y.diagonal().zero_(), y)[1])(x * 1),
    "tensor_split_pieces": lambda m, x, w: (lambda y: ([p.mul_(i + 1) for i, p in enumerate(y.tensor_split(3, 1))],
                                                         y)[1])(x * 1),
    "select_copy": lambda m, x, w: (lambda y: (y.select(0, 2).copy_(w[:3]), y)[1])(x * 1),
    "setitem_tensor": lambda m, x, w: (lambda y: (y.__setitem__((slice(None), 1), w * 3), y)[1])(x * 1),
    "setitem_advanced": lambda m, x, w: (lambda y: (y.__setitem__(m.tensor([0, 2]), w[:3].exp()), y)[1])(x * 1),
    "setitem_mask": lambda m, x, w: (lambda y: (y.__setitem__(y > 0.5, w.sum()), y)[1])(x * 1),
    "chain": lambda m, x, w: (lambda y: (y.t()[1:].unsqueeze(0)[0, 0].mul_(w), y)[1])(x * 1),
    "view_then_base": lambda m, x, w: (lambda y: (y.view(-1)[2:5].mul_(w[:3]), y.sigmoid_(), y)[2])(x * 1),
    "base_then_view": lambda m, x, w: (lambda y: (y.sin_(), y[1:].mul_(y[:1].detach().clone()), y)[2])(x * 1),
    "view_of_result_read": lambda m, x, w: (lambda y: (lambda v: (y.add_(w[:3]), v * v)[1])(y[0]))(x * 1),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad_through_inplace_on_views(name):
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    res = []
    for mod in (torch, facade):
        x, w = mod.tensor(xv, requires_grad=True), mod.tensor(wv, requires_grad=True)
        out = GRAD_CASES[name](mod, x, w)
        (out * mod.arange(out.numel(), dtype=mod.float32).reshape(out.shape)).sum().backward()
        res.append((out, x.grad, w.grad))
    (ot, xt, wt), (of, xf, wf) = res
    same(ot, of)
    same(xt, xf)
    if wt is None:
        assert wf is None or not values(wf).any()
    else:
        same(wt, wf)


def test_augmented_assignment_through_indices():
    """x[i] op= v reads a view (basic) or a copy (advanced) and writes it back, with torch's gradients."""
    res = []
    for mod in (torch, facade):
        x = mod.tensor(np.arange(12.0).reshape(3, 4).astype(np.float32), requires_grad=True)
        w = mod.tensor(np.full(4, 2.0, np.float32), requires_grad=True)
        y = x * 1
        y[0] += w
        y[mod.tensor([1, 2])] *= 3
        y[:, 2:4] -= y[:, :2].detach()
        y.t()[0].copy_(w[:3] ** 2)
        (y * mod.arange(12.0).reshape(3, 4)).sum().backward()
        res.append((y, x.grad, w.grad))
    for t, f in zip(*res):
        same(t, f)


def test_grad_fn_names():
    for mod in (torch, facade):
        x = mod.zeros(2, 3, requires_grad=True) * 1
        y = x * 1
        y[0].mul_(2)
        z = x * 1
        z[mod.tensor([1])] = 1.0
        names = [type(t.grad_fn).__name__ for t in (y, z, x[0], x[:, 1:], x[None], x[[0]], x.t(), x.expand(2, 2, 3))]
        if mod is torch:
            expected = names
        else:
            assert names == expected


# ---------------------------------------------------------------------------- torch's errors

LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."


@pytest.mark.parametrize("write, message", [
    (lambda x: x.mul_(2), LEAF),
    (lambda x: x.__setitem__(facade.tensor([0]), 1.0), LEAF),
    (lambda x: x[0].mul_(2), VIEW_OF_LEAF),
    (lambda x: x.t().add_(1), VIEW_OF_LEAF),
    (lambda x: x.__setitem__(0, 1.0), VIEW_OF_LEAF),
    (lambda x: x.t_(), LEAF),
])
def test_inplace_on_leaf_errors(write, message):
    x = facade.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^" + message.replace(".", r"\.") + "$"):
        write(x)
    with facade.no_grad():  # allowed without grad recording
        x[0] = 1.0
        x.t()[1].mul_(2)
    assert x.tolist() == [[1.0, 2.0, 1.0], [0.0, 0.0, 0.0]]
    x.detach()[1].fill_(5)  # a detached view may be written
    assert x.tolist()[1] == [5.0, 5.0, 5.0]


@pytest.mark.parametrize("modify", [
    lambda y, s: y.add_(1),
    lambda y, s: s[0].mul_(2),
    lambda y, s: s.t().zero_(),
])
def test_modified_saved_tensor_error(modify):
    x = facade.ones(2, 2, requires_grad=True)
    y = x * 1
    s = y.sigmoid()  # saves its result
    z = (y * 2).exp() * s  # mul saves s and the exp output
    modify(y, s)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified "
                                           "by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("write, name", [
    (lambda y: y.split(1)[1].mul_(2), "Output 1 of Split "),
    (lambda y: y.chunk(2, 1)[0].zero_(), "Output 0 of Split "),
    (lambda y: y.split([1, 1])[0][0].add_(1), "Output 0 of Select "),
    (lambda y: y.unbind(1)[2].__setitem__(0, 1.0), "Output 2 of Unbind "),
    (lambda y: y.split([1, 1])[1].fill_(1), "Output 1 of SplitWithSizes "),
])
def test_write_to_multi_output_view_errors(write, name):
    """torch refuses in-place writes to outputs of split/chunk/unbind whose base records gradients."""
    y = facade.ones(2, 3, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match=name + "is a view and is being modified inplace. This view is the output "
                                           "of a function that returns multiple views."):
        write(y)
    write(y.detach())  # fine without autograd
    with facade.no_grad():
        write(y)
    y.tensor_split(2)[0].mul_(2)  # tensor_split's pieces are plain slices


def test_write_to_expanded_view_errors():
    x = facade.zeros(3, 1)
    with pytest.raises(RuntimeError, match="unsupported operation: more than one element of the written-to tensor "
                                           "refers to a single memory location"):
        x.expand(3, 4).add_(1)


@pytest.mark.parametrize("call, message", [
    (lambda m: m.arange(6.).view(4, 5), "shape '[4, 5]' is invalid for input of size 6"),
    (lambda m: m.arange(6.).view(-1, 4), "shape '[-1, 4]' is invalid for input of size 6"),
    (lambda m: m.arange(6.).view(-1, -1), "only one dimension can be inferred"),
    (lambda m: m.arange(6.).reshape(4, 5), "shape '[4, 5]' is invalid for input of size 6"),
    (lambda m: m.arange(6.).view(2, 3).t().view(6), "view size is not compatible with input tensor's size and "
                                                    "stride (at least one dimension spans across two contiguous "
                                                    "subspaces). Use .reshape(...) instead."),
    (lambda m: m.arange(12.).view(3, 4)[:, :2].view(6), "view size is not compatible"),
    (lambda m: m.zeros(0, 3).view(-1, 0), "cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                                          "unspecified dimension size -1 can be any value and is ambiguous"),
])
def test_view_errors(call, message):
    with pytest.raises(RuntimeError) as et:
        call(torch)
    assert message in str(et.value)
    with pytest.raises(RuntimeError) as ef:
        call(facade)
    assert message in str(ef.value)


def test_view_allowed_on_some_non_contiguous_inputs():
    for mod in (torch, facade):
        y = mod.arange(12.).view(3, 4).t()  # (4, 3), strides (1, 4)
        assert y.view(2, 2, 3).stride() == (2, 1, 4)
        assert y.view(4, 3, 1).stride() == (1, 4, 4)
        assert y.reshape(12).is_contiguous()  # a copy


def test_reshape_views_only_when_torch_does():
    for f in (lambda m, x: x.reshape(12), lambda m, x: x.t().reshape(12), lambda m, x: x.t().reshape(2, 2, 3),
              lambda m, x: x[:, ::2].flatten(), lambda m, x: x[:1].flatten(), lambda m, x: x.t().contiguous(),
              lambda m, x: x.contiguous()):
        got = []
        for mod in (torch, facade):
            x = mod.arange(12.).view(3, 4) * 1
            y = f(mod, x)
            got.append(y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
        assert got[0] == got[1]


def test_contiguous_returns_self():
    x = facade.zeros(2, 3)
    assert x.contiguous() is x
    y = x.t()
    c = y.contiguous()
    assert c is not y and c.is_contiguous() and c.stride() == (2, 1)


def test_inplace_view_ops():
    out = []
    for mod in (torch, facade):
        x = base(mod, (2, 3)) * 1
        v = x[:, 1:]
        v.t_()
        v.unsqueeze_(0)
        v.squeeze_(0)
        v.mul_(10)
        out.append((x, v, v.stride(), v.storage_offset()))
    (xt, vt, st, ot), (xf, vf, sf, of) = out
    same(xt, xf)
    same(vt, vf)
    assert (st, ot) == (sf, of)


def test_int_index_of_from_numpy_tensor_shares_memory_like_torch():
    """x[i] of a from_numpy tensor (a TensorDataset's usual data) is a numpy view: writes go both ways."""
    a = np.arange(12.0).reshape(4, 3)
    x = facade.from_numpy(a)
    row = x[-1]
    assert row.tolist() == [9.0, 10.0, 11.0] and row.dtype == facade.float64
    row[0] = 100.0
    assert a[3, 0] == 100.0 and x[3, 0].item() == 100.0
    a[3, 1] = -1.0
    assert row[1].item() == -1.0
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        x[4]


def test_writing_a_whole_alias_writes_its_base_without_a_scatter():
    """A state_dict value or a detach() covers all of its base: copy_ into it sets the base's values as torch
    does, and builds no scatter program (a partial view still scatters, so the check can fail)."""
    got = {}
    for lib in (torch, facade):
        m = lib.nn.Linear(29, 13)
        if lib is facade:
            facade.compiler.reset_metrics()
        m.state_dict()["weight"].copy_(lib.arange(13 * 29, dtype=lib.float32).reshape(13, 29))
        m.bias.detach().fill_(-0.0)
        if lib is facade:
            whole = set(facade.compiler.metrics().ops)
            facade.zeros(13, 29)[1].fill_(2.0)
            partial = set(facade.compiler.metrics().ops)
        got[lib.__name__] = (m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy(), m.weight._version)
    np.testing.assert_array_equal(got["facade"][0], got["torch"][0])
    np.testing.assert_array_equal(np.signbit(got["facade"][1]), np.signbit(got["torch"][1]))
    assert got["facade"][2] == got["torch"][2]
    assert "put_flat" not in whole and "scatter" not in whole and "put_flat" in partial


def test_writes_through_views_of_views_are_torchs_and_take_their_positions_from_strides():
    """t[i][0][k] = v (a view of a view), a slice of a transpose's row, every other element of a column, a piece of
    a diagonal, a transposed narrow: torch's values, and writing at other positions builds no program. The flat
    positions a view writes come from its strides and offset (numpy), not from its view ops run on the base's
    positions (JAX op by op: about 0.7 ms a write)."""
    from facade.compiler import metrics, reset_metrics

    got = {}
    for lib in (torch, facade):
        t, x = lib.zeros(6, 1, 9), lib.arange(48.0).view(6, 8)
        t[0][0][0] = 1
        if lib is facade:
            reset_metrics()
        for i in range(1, 6):
            t[i][0][(3 * i) % 9] = i + 1
        if lib is facade:
            assert metrics().compiles == 0, metrics()
        x.t()[3][1:5] = -1
        x[:, 2][::2] = 7
        x.diagonal()[1:3] = 0
        x.narrow(1, 1, 3).transpose(0, 1)[2][4] = 9
        x[1:].view(5, 8)[3][6:] = -2  # a view of a slice
        got[lib.__name__] = (t.numpy().copy(), x.numpy().copy())
    for a, b in zip(got["facade"], got["torch"]):
        np.testing.assert_array_equal(a, b)
    x = facade.zeros(6, 8)
    view = x.t()[3][1:5]  # positions 11, 19, 27, 35 of x's storage, from torch's strides (8, 1 -> 1, 8) and offset
    assert view.stride() == (8,) and view.storage_offset() == 11
    positions = view._flat_index()
    assert type(positions) is np.ndarray and positions.tolist() == [11, 19, 27, 35]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_a_number_written_into_a_view_of_a_view_goes_to_its_root(dtype):
    """view[i] = number (ints and slices, negative ones too) writes the root in place: torch's values, version
    counts and views that read the new values; an index out of range is torch's IndexError."""
    got = {}
    for lib in (torch, facade):
        t = lib.zeros(4, 2, 5, dtype=getattr(lib, dtype))
        row = t[1][0]
        before = t._version
        row[-2] = 1
        t[3][1][1:4] = 1.0 if dtype != "bool" else True
        t.transpose(0, 2)[4][1][::2] = 1  # positions 9, 19, 29, 39
        with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 5"):
            t[2][1][5] = 1
        got[lib.__name__] = (t.float().tolist(), row.float().tolist(), t._version - before)
    assert got["facade"] == got["torch"]
