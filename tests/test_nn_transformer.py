"""Transformer, TransformerEncoder/Decoder and their layers against torch: outputs and gradients with masks,
batch_first and norm_first both ways, eval and train mode (dropout=0), state_dict keys, repr, signatures,
generate_square_subsequent_mask, the nested-tensor zeros of torch's encoder fast path, and torch's errors."""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest
import torch

import facade

from ._compare import host
from ._nn import check_module, copy_weights

D, NH, FF, L, S, N = 8, 2, 16, 5, 4, 3

pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),  # asserted in its own test
              pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors"),  # torch's fast path
              pytest.mark.filterwarnings("ignore:Support for mismatched")]  # bool and float masks mixed on purpose


def _x(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _kpm(rng, n, s):
    m = rng.random((n, s)) < 0.3
    m[:, 0] = False
    return m


def _causal(n):
    return np.triu(np.full((n, n), -np.inf, np.float32), 1)


def enc_layer(lib, **kw):
    return lib.nn.TransformerEncoderLayer(D, NH, FF, 0.0, **kw)


def dec_layer(lib, **kw):
    return lib.nn.TransformerDecoderLayer(D, NH, FF, 0.0, **kw)


def _seq(rng, batch_first, n, length):
    return _x(rng, n, length, D) if batch_first else _x(rng, length, n, D)


ENCODER_LAYER = {
    "post_norm": ({}, lambda r: (_x(r, L, N, D),)),
    "batch_first_norm_first_gelu": ({"batch_first": True, "norm_first": True, "activation": "gelu"},
                                    lambda r: (_x(r, N, L, D), _x(r, L, L), _kpm(r, N, L))),
    "causal": ({"batch_first": True}, lambda r: (_x(r, N, L, D), _causal(L), None, True)),
    "bool_masks_no_bias": ({"bias": False}, lambda r: (_x(r, L, N, D), np.triu(np.ones((L, L), bool), 1),
                                                       _kpm(r, N, L))),
    "unbatched": ({"norm_first": True}, lambda r: (_x(r, L, D), _x(r, L, L))),
    "callable_activation": ({"activation": "tanh"}, lambda r: (_x(r, L, N, D),)),
}


def _enc_layer_builder(kw):
    if kw.get("activation") == "tanh":  # a callable: each library's own function
        return lambda lib: enc_layer(lib, **{**kw, "activation": lib.tanh})
    return lambda lib: enc_layer(lib, **kw)


@pytest.mark.parametrize("case,train", [(c, False) for c in ENCODER_LAYER] + [("batch_first_norm_first_gelu", True)])
def test_encoder_layer(case, train):
    kw, inputs = ENCODER_LAYER[case]
    check_module(_enc_layer_builder(kw), inputs=inputs(np.random.default_rng(0)), train=train, steps=1 + train,
                 rtol=1e-5, atol=1e-5)


DECODER_LAYER = {
    "post_norm": ({}, lambda r: (_x(r, L, N, D), _x(r, S, N, D))),
    "batch_first_norm_first_masks": ({"batch_first": True, "norm_first": True},
                                     lambda r: (_x(r, N, L, D), _x(r, N, S, D), _causal(L), _x(r, L, S),
                                                _kpm(r, N, L), _kpm(r, N, S), True)),
    "bool_masks_gelu": ({"activation": "gelu", "bias": False},
                        lambda r: (_x(r, L, N, D), _x(r, S, N, D), np.triu(np.ones((L, L), bool), 1), None, None,
                                   _kpm(r, N, S))),
    "unbatched": ({}, lambda r: (_x(r, L, D), _x(r, S, D), _causal(L))),
}


@pytest.mark.parametrize("case,train", [(c, False) for c in DECODER_LAYER] + [("batch_first_norm_first_masks", True)])
def test_decoder_layer(case, train):
    kw, inputs = DECODER_LAYER[case]
    check_module(lambda lib: dec_layer(lib, **kw), inputs=inputs(np.random.default_rng(0)), train=train,
                 steps=1 + train, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("train", [False, True])
def test_encoder(batch_first, train):
    def build(lib):
        return lib.nn.TransformerEncoder(enc_layer(lib, batch_first=batch_first), 2, norm=lib.nn.LayerNorm(D),
                                         enable_nested_tensor=False)

    rng = np.random.default_rng(0)
    inputs = (_seq(rng, batch_first, N, L), _causal(L), _kpm(rng, N, L))
    tm, fm = check_module(build, inputs=inputs, train=train, steps=1 + train, rtol=1e-5, atol=1e-5)
    assert fm.layers[0] is not fm.layers[1]  # deep copies


@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder(batch_first):
    def build(lib):
        return lib.nn.TransformerDecoder(dec_layer(lib, batch_first=batch_first, norm_first=True), 2,
                                         norm=lib.nn.LayerNorm(D))

    rng = np.random.default_rng(0)
    inputs = (_seq(rng, batch_first, N, L), _seq(rng, batch_first, N, S), _causal(L), None, _kpm(rng, N, L),
              _kpm(rng, N, S))
    check_module(build, inputs=inputs, train=False, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("batch_first,norm_first,train", [(False, False, False), (True, True, False),
                                                          (True, False, True)])
def test_transformer(batch_first, norm_first, train):
    def build(lib):
        return lib.nn.Transformer(D, NH, 1, 2, FF, 0.0, batch_first=batch_first, norm_first=norm_first)

    rng = np.random.default_rng(0)
    # src, tgt, src_mask, tgt_mask, memory_mask, src_kpm, tgt_kpm, memory_kpm
    inputs = (_seq(rng, batch_first, N, S), _seq(rng, batch_first, N, L), None, _causal(L), None, _kpm(rng, N, S),
              _kpm(rng, N, L), _kpm(rng, N, S))
    check_module(build, inputs=inputs, train=train, steps=1 + train, rtol=1e-5, atol=1e-5)


def test_transformer_custom_encoder_decoder():
    def build(lib):
        enc = lib.nn.TransformerEncoder(enc_layer(lib), 1, enable_nested_tensor=False)
        dec = lib.nn.TransformerDecoder(dec_layer(lib), 1)
        return lib.nn.Transformer(D, NH, dim_feedforward=FF, dropout=0.0, custom_encoder=enc, custom_decoder=dec)

    rng = np.random.default_rng(0)
    tm, fm = check_module(build, inputs=(_x(rng, S, N, D), _x(rng, L, N, D)), train=False, rtol=1e-5, atol=1e-5)
    assert fm.encoder.norm is None and fm.decoder.norm is None


def test_transformer_state_dict_keys():
    tm = torch.nn.Transformer(D, NH, 2, 1, FF)
    fm = facade.nn.Transformer(D, NH, 2, 1, FF)
    assert list(fm.state_dict()) == list(tm.state_dict())
    assert repr(fm) == repr(tm)


def test_transformer_init():
    """Transformer re-initialises every matrix with xavier_uniform_ (bounds +-sqrt(6 / (fan_in + fan_out)))."""
    stats = []
    for lib in (torch, facade):
        lib.manual_seed(0)
        m = lib.nn.Transformer(16, 2, 1, 1, 32)
        stats.append({n: host(p) for n, p in m.named_parameters()})
    t, f = stats
    assert list(t) == list(f)
    for n in t:
        if t[n].ndim > 1:
            bound = np.sqrt(6 / sum(t[n].shape))
            assert np.abs(f[n]).max() <= bound and np.abs(f[n]).max() > 0.8 * bound, n
            assert abs(f[n].std() - t[n].std()) < 0.15 * t[n].std(), n
        elif np.all(t[n] == t[n][0]):  # LayerNorm ones/zeros, attention biases zeros
            np.testing.assert_array_equal(f[n], t[n], err_msg=n)
        else:  # Linear biases: uniform draws
            assert np.unique(f[n]).size > 1 and abs(f[n].std() - t[n].std()) < 0.3 * t[n].std(), n


@pytest.mark.parametrize("kwargs", [{}, {"dtype": "float64"}])
def test_generate_square_subsequent_mask(kwargs):
    t = torch.nn.Transformer.generate_square_subsequent_mask(5, **{k: getattr(torch, v) for k, v in kwargs.items()})
    f = facade.nn.Transformer.generate_square_subsequent_mask(5, **{k: getattr(facade, v) for k, v in kwargs.items()})
    assert str(f.dtype) == str(t.dtype) and tuple(f.shape) == (5, 5)
    np.testing.assert_array_equal(host(f), host(t))
    assert isinstance(inspect.getattr_static(facade.nn.Transformer, "generate_square_subsequent_mask"), staticmethod)


@pytest.mark.parametrize("left_aligned", [True, False])
def test_encoder_nested_fast_path_zeros(left_aligned):
    """eval + no grad + batch_first + padding mask: torch's nested-tensor path gives zeros at padded positions."""
    rng = np.random.default_rng(0)
    x = _x(rng, N, L, D)
    kpm = np.zeros((N, L), bool)
    kpm[0, 3:] = kpm[2, 1:] = True
    if not left_aligned:
        kpm[1, 1] = True
    ms = [lib.nn.TransformerEncoder(enc_layer(lib, batch_first=True), 2, norm=lib.nn.LayerNorm(D))
          for lib in (torch, facade)]
    copy_weights(*ms)
    outs = []
    for lib, m in zip((torch, facade), ms):
        m.eval()
        with lib.no_grad():
            outs.append(host(m(lib.tensor(x), src_key_padding_mask=lib.tensor(kpm))))
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)
    assert left_aligned == np.allclose(outs[0][kpm], host(ms[0].norm.bias))  # what the zeros become


def _params(sig):
    return [(p.name, p.kind, getattr(p.default, "__name__", p.default)) for p in sig.parameters.values()]


@pytest.mark.parametrize("name", ["Transformer", "TransformerEncoder", "TransformerDecoder",
                                  "TransformerEncoderLayer", "TransformerDecoderLayer"])
def test_signatures(name):
    t, f = getattr(torch.nn, name), getattr(facade.nn, name)
    assert _params(inspect.signature(f)) == _params(inspect.signature(t))
    assert _params(inspect.signature(f.forward)) == _params(inspect.signature(t.forward))
    assert getattr(f, "__constants__", None) == getattr(t, "__constants__", None)


def test_default_activation_is_relu():
    for cls in (facade.nn.TransformerEncoderLayer, facade.nn.TransformerDecoderLayer, facade.nn.Transformer):
        assert inspect.signature(cls).parameters["activation"].default is facade.nn.functional.relu
    assert facade.nn.TransformerEncoderLayer(D, NH).activation_relu_or_gelu == 1
    assert facade.nn.TransformerEncoderLayer(D, NH, activation="gelu").activation_relu_or_gelu == 2
    assert facade.nn.TransformerEncoderLayer(D, NH, activation=facade.tanh).activation_relu_or_gelu == 0
    for lib in (torch, facade):  # module instances count too (and become submodules)
        layer = lib.nn.TransformerEncoderLayer(D, NH, activation=lib.nn.GELU())
        assert layer.activation_relu_or_gelu == 2 and "activation" in dict(layer.named_children())


# ------------------------------------------------------------------------------------------------ errors/warnings

def _same_error(fn_t, fn_f):
    with pytest.raises(Exception) as t:
        fn_t()
    with pytest.raises(type(t.value), match=re.escape(str(t.value))):
        fn_f()


def test_bad_activation():
    _same_error(lambda: torch.nn.TransformerEncoderLayer(D, NH, activation="tanh"),
                lambda: facade.nn.TransformerEncoderLayer(D, NH, activation="tanh"))


@pytest.mark.parametrize("src,tgt", [((S, N, D), (L, N + 1, D)), ((S, N, D), (L, N, D + 1))])
def test_transformer_shape_errors(src, tgt):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Transformer(D, NH, 1, 1, FF)
        return lambda: m(lib.zeros(*src), lib.zeros(*tgt))

    _same_error(run(torch), run(facade))


@pytest.mark.parametrize("kw", [{}, {"norm_first": True}, {"batch_first": True, "bias": False},
                                {"batch_first": True, "activation": "tanh"}, {"batch_first": True}])
def test_nested_tensor_warning(kw):
    """torch warns at construction why enable_nested_tensor cannot be used (tanh: a callable)."""
    msgs = []
    for lib in (torch, facade):
        k = {**kw, "activation": lib.tanh} if kw.get("activation") == "tanh" else kw
        layer = lib.nn.TransformerEncoderLayer(D, NH, FF, **k)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            enc = lib.nn.TransformerEncoder(layer, 1)
        msgs.append([str(w.message) for w in rec if "enable_nested_tensor" in str(w.message)])
        assert enc.use_nested_tensor == (kw == {"batch_first": True})
    assert msgs[1] == msgs[0] and len(msgs[0]) == (kw != {"batch_first": True})


def test_mismatched_mask_warning():
    x = facade.zeros(L, N, D)
    layer = facade.nn.TransformerEncoderLayer(D, NH, FF, 0.0)
    with pytest.warns(UserWarning, match="Support for mismatched src_key_padding_mask and src_mask is deprecated"):
        layer(x, src_mask=facade.zeros(L, L), src_key_padding_mask=facade.zeros(N, L, dtype=facade.bool))
