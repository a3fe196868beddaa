"""torchvision.models (facade.vision.models) against real torchvision 0.28: structure (repr, state_dict keys and
shapes, parameter counts) of every builder on the meta device; outputs, parameter gradients and BatchNorm running
statistics with torchvision's random weights copied in, for small models and inputs; the weights API (enums, meta,
transforms() presets, get_model / get_weight / list_models, the legacy `pretrained=` interface, errors); loading
weights from the hub cache, and the error naming the file and where to place it when it is missing."""

from __future__ import annotations

import copy
import math
import os
import warnings

import numpy as np
import pytest
import torch
from PIL import Image

import facade
import facade.vision.models as M
from tests._compare import host
from tests._torchvision import tv

TV = tv.models
BUILDERS = sorted(M.list_models())


def _models(lib):
    return TV if lib is torch else M


def _on_meta(lib, build):
    with lib.device("meta"):
        return build(_models(lib))


# ---------------------------------------------------------------- structure of every builder (no compute)

@pytest.mark.parametrize("name", BUILDERS)
def test_structure_matches_torchvision(name):
    tm, fm = (_on_meta(lib, lambda models: models.get_model(name)) for lib in (torch, facade))
    assert type(fm).__name__ == type(tm).__name__
    assert repr(fm) == repr(tm)
    t_sd, f_sd = tm.state_dict(), fm.state_dict()
    assert list(f_sd) == list(t_sd)
    assert [tuple(v.shape) for v in f_sd.values()] == [tuple(v.shape) for v in t_sd.values()]
    assert [str(v.dtype) for v in f_sd.values()] == [str(v.dtype) for v in t_sd.values()]
    n_params = sum(p.numel() for p in fm.parameters())
    assert n_params == sum(p.numel() for p in tm.parameters())
    assert n_params in {w.meta["num_params"] for w in M.get_model_weights(name)}


def test_builder_kwargs_reach_the_model():
    for build in (lambda m: m.resnet18(num_classes=10, zero_init_residual=True),
                  lambda m: m.resnet50(replace_stride_with_dilation=[False, True, True]),
                  lambda m: m.vgg11_bn(num_classes=7, dropout=0.1),
                  lambda m: m.mobilenet_v2(width_mult=0.5, num_classes=3),
                  lambda m: m.vit_b_16(image_size=384, representation_size=64)):
        tm, fm = _on_meta(torch, build), _on_meta(facade, build)
        assert repr(fm) == repr(tm)
        assert [(k, tuple(v.shape)) for k, v in fm.state_dict().items()] == \
               [(k, tuple(v.shape)) for k, v in tm.state_dict().items()]


def test_zero_init_residual_zeroes_the_last_bn():
    m = M.resnet.ResNet(M.resnet.Bottleneck, [1, 1, 1, 1], zero_init_residual=True)
    assert all(float(b.bn3.weight.abs().sum()) == 0 for b in m.modules() if isinstance(b, M.resnet.Bottleneck))
    assert float(m.layer1[0].bn2.weight.abs().sum()) > 0


# ---------------------------------------------------------------- numbers against torchvision

def _small_vit(models):
    return models.vision_transformer.VisionTransformer(image_size=32, patch_size=16, num_layers=2, num_heads=2,
                                                       hidden_dim=32, mlp_dim=64, num_classes=10)


def _small_mobilenet(models):
    return models.mobilenetv2.MobileNetV2(num_classes=10, inverted_residual_setting=[
        [1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 1, 1]])


# name: (builder of either library's model, input shape, what is compared beyond the eval-mode output). Backward
# passes are the slow part here (a VJP program per op and shape), so they run for one model of each block kind.
CASES = {
    "resnet18": (lambda models: models.resnet18(num_classes=10), (4, 3, 64, 64), "train"),
    "resnext_bottleneck": (lambda models: models.resnet.ResNet(models.resnet.Bottleneck, [1, 1, 1, 1], groups=2,
                                                               width_per_group=32, num_classes=10),
                           (2, 3, 64, 64), "grad"),
    "mobilenet_v2": (_small_mobilenet, (2, 3, 32, 32), "grad"),
    "alexnet": (lambda models: models.alexnet(), (2, 3, 64, 64), "eval"),  # no BatchNorm: train is eval + dropout
    "vgg11_bn": (lambda models: models.vgg11_bn(num_classes=10), (2, 3, 32, 32), "eval"),
    "vit": (_small_vit, (2, 3, 32, 32), "grad"),
}


def _pair(build):
    """torchvision's randomly initialised model and facade's with its weights (built on the meta device, since
    facade's random init of a large model is slow and then overwritten)."""
    torch.manual_seed(0)
    tm, fm = build(TV), _on_meta(facade, build)
    fm.load_state_dict({k: facade.tensor(v.numpy()) for k, v in tm.state_dict().items()}, assign=True)
    assert all(type(p) is facade.nn.Parameter and p.requires_grad and p.device.type == "cpu"
               for p in fm.parameters())
    return tm, fm


def _close(f, t, what, rtol=1e-4, atol_scale=1e-4):
    t = t.detach().numpy()
    np.testing.assert_allclose(host(f), t, rtol=rtol, atol=atol_scale * (np.abs(t).max() + 1e-30), err_msg=what)


def _no_dropout(model, lib):  # dropout draws from each library's own RNG stream, so it is compared switched off
    for m in model.modules():
        if isinstance(m, lib.nn.Dropout):
            m.eval()


@pytest.mark.parametrize("case", list(CASES))
def test_outputs_and_gradients_match_torchvision(case):
    build, shape, extent = CASES[case]
    tm, fm = _pair(build)
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    tm.eval(), fm.eval()
    with torch.no_grad(), facade.no_grad():
        _close(fm(facade.tensor(x)), tm(torch.tensor(x)), f"{case} eval output")
    if extent == "eval":
        return
    tm.train(), fm.train()
    _no_dropout(tm, torch), _no_dropout(fm, facade)
    t_out, f_out = tm(torch.tensor(x)), fm(facade.tensor(x))
    _close(f_out, t_out, f"{case} train output")
    for (name, tb), fb in zip(tm.named_buffers(), fm.buffers()):  # running statistics (some are zero up to rounding)
        np.testing.assert_allclose(host(fb), tb.numpy(), rtol=1e-4, atol=1e-6, err_msg=f"{case} buffer {name}")
    if extent == "train":
        return
    w = np.random.RandomState(1).randn(*t_out.shape).astype(np.float32)
    (t_out * torch.tensor(w)).sum().backward()
    (f_out * facade.tensor(w)).sum().backward()
    t_grads = [(name, p.grad.numpy()) for name, p in tm.named_parameters()]
    # atol also relative to the model's largest gradient: the bias of a BatchNorm that feeds a train-mode BatchNorm
    # (through convolutions) has zero gradient up to rounding
    floor = 1e-5 * max(np.abs(g).max() for _, g in t_grads)
    for (name, t_grad), fp in zip(t_grads, fm.parameters()):
        np.testing.assert_allclose(host(fp.grad), t_grad, rtol=1e-3, atol=1e-3 * np.abs(t_grad).max() + floor,
                                   err_msg=f"{case} grad {name}")


def test_intermediate_layer_getter_matches_torchvision():
    build, shape, _ = CASES["resnet18"]
    tm, fm = _pair(build)
    layers = {"layer1": "feat1", "layer3": "feat2"}
    tg = TV._utils.IntermediateLayerGetter(tm, layers).eval()
    fg = M._utils.IntermediateLayerGetter(fm, layers).eval()
    assert list(fg.state_dict()) == list(tg.state_dict())
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    t_out, f_out = tg(torch.tensor(x)), fg(facade.tensor(x))
    assert list(f_out) == list(t_out) == ["feat1", "feat2"]
    for k in t_out:
        _close(f_out[k], t_out[k], k)
    with pytest.raises(ValueError, match="return_layers are not present in model"):
        M._utils.IntermediateLayerGetter(fm, {"nope": "x"})


def test_vit_loads_legacy_mlp_keys_and_interpolates_embeddings():
    tm, fm = _pair(_small_vit)
    sd = fm.state_dict()
    legacy = type(sd)((k.replace("mlp.0.", "mlp.linear_1.").replace("mlp.3.", "mlp.linear_2."), v)
                      for k, v in sd.items())
    legacy._metadata = {k: ({"version": 1} if k.endswith(".mlp") else v) for k, v in sd._metadata.items()}
    fresh = _small_vit(M)
    fresh.load_state_dict(legacy)
    assert all(np.array_equal(host(v), host(sd[k])) for k, v in fresh.state_dict().items())

    t_sd = TV.vision_transformer.interpolate_embeddings(64, 16, tm.state_dict(), reset_heads=True)
    f_sd = M.vision_transformer.interpolate_embeddings(64, 16, fm.state_dict(), reset_heads=True)
    assert list(f_sd) == list(t_sd)
    _close(f_sd["encoder.pos_embedding"], t_sd["encoder.pos_embedding"], "pos_embedding", atol_scale=1e-5)


def test_vit_input_checks():
    fm = _small_vit(M)
    with pytest.raises(AssertionError, match="Wrong image height! Expected 32 but got 48!"):
        fm(facade.zeros(1, 3, 48, 32))
    with pytest.raises(AssertionError, match="Input shape indivisible by patch size!"):
        M.VisionTransformer(image_size=30, patch_size=16, num_layers=1, num_heads=1, hidden_dim=8, mlp_dim=8)


# ---------------------------------------------------------------- the weights API

def _enum_names(models):
    return sorted(k for k, v in vars(models).items()
                  if isinstance(v, type) and issubclass(v, models.WeightsEnum) and v is not models.WeightsEnum)


def _plain_meta(meta):
    """meta with nan as a string (nan != nan) and docstrings' whitespace collapsed."""
    def plain(v):
        if isinstance(v, float) and math.isnan(v):
            return "nan"
        return {k: plain(x) for k, x in v.items()} if isinstance(v, dict) else v
    return {k: (" ".join(v.split()) if k == "_docs" else plain(v)) for k, v in meta.items()}


def _keywords(partial_fn):
    return {k: getattr(v, "value", v) for k, v in partial_fn.keywords.items()}  # InterpolationMode by value


def test_weights_enums_match_torchvision():
    names = _enum_names(M)
    assert len(names) == 25 and set(names) <= set(_enum_names(TV))
    for name in names:
        fe, te = getattr(M, name), getattr(TV, name)
        assert list(fe.__members__) == list(te.__members__), name
        assert fe.DEFAULT.name == te.DEFAULT.name and repr(fe.DEFAULT) == repr(te.DEFAULT)
        for member in te:
            fw, tw = fe[member.name], member
            assert fw.url == tw.url, repr(tw)
            assert _plain_meta(fw.meta) == _plain_meta(tw.meta), repr(tw)
            assert _keywords(fw.transforms) == _keywords(tw.transforms), repr(tw)
            assert repr(fw.transforms()) == repr(tw.transforms()) and fw.transforms().describe() == \
                tw.transforms().describe()


def test_registry_lookups_match_torchvision():
    assert set(BUILDERS) <= set(TV.list_models())
    assert M.list_models(module=M) == BUILDERS
    for include, exclude in (("resnet*", None), (["vgg1?", "vit_*"], "*_bn"), (None, ["v*", "res*", "wide*"])):
        expected = [n for n in TV.list_models(include=include, exclude=exclude) if n in BUILDERS]
        assert M.list_models(include=include, exclude=exclude) == expected
    for name in BUILDERS:
        assert M.__dict__[name] is M.get_model_builder(name) is M.get_model_builder(name.upper())
        assert M.__dict__[name].__name__ == name
        assert M.get_model_weights(name).__name__ == TV.get_model_weights(name).__name__
        assert M.get_model_weights(M.__dict__[name]) is M.get_model_weights(name)
    assert repr(M.get_weight("ResNet50_Weights.IMAGENET1K_V2")) == "ResNet50_Weights.IMAGENET1K_V2"
    assert M.get_weight("ViT_H_14_Weights.DEFAULT") is M.ViT_H_14_Weights.IMAGENET1K_SWAG_E2E_V1
    assert M.get_model("resnet18", weights=None, num_classes=3).fc.out_features == 3
    assert copy.deepcopy(M.ResNet50_Weights.DEFAULT) is M.ResNet50_Weights.IMAGENET1K_V2  # Weights.__eq__
    with pytest.raises(AttributeError, match="has no attribute 'efficientnet_b0': facade's torchvision.models"):
        M.efficientnet_b0  # noqa: B018
    for call, exc in ((lambda m: m.get_model("nonexistent_net"), ValueError),
                      (lambda m: m.get_weight("ResNet50_Weights"), ValueError),
                      (lambda m: m.get_weight("Nope_Weights.DEFAULT"), ValueError),
                      (lambda m: m.get_weight("ResNet50_Weights.V9"), KeyError),
                      (lambda m: m.resnet18(weights="BOGUS"), KeyError),
                      (lambda m: m.resnet18(weights=m.ResNet50_Weights.DEFAULT), TypeError),
                      (lambda m: m.resnet18(weights="DEFAULT", num_classes=10), ValueError),
                      (lambda m: m.vit_b_16(weights="DEFAULT", image_size=32), ValueError),
                      (lambda m: m.vit_h_14(pretrained=True), ValueError)):
        with pytest.raises(exc) as expected:
            call(TV)
        with pytest.raises(exc) as got:
            call(M)
        assert str(got.value) == str(expected.value)


def _warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = call()
    return model, [(w.category, str(w.message)) for w in caught]


def test_legacy_pretrained_interface_warns_as_torchvision():
    for call in (lambda m: m.resnet18(pretrained=False), lambda m: m.alexnet(False), lambda m: m.vgg11(None),
                 lambda m: m.mobilenet_v2(False, True, num_classes=5)):
        (tm, t_warn), (fm, f_warn) = (_on_meta(lib, lambda m, call=call: _warnings_of(lambda: call(m)))
                                      for lib in (torch, facade))
        assert f_warn == t_warn and t_warn
        assert repr(fm) == repr(tm)


def test_missing_weights_fail_naming_the_file_and_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    cache = os.path.join(str(tmp_path), "hub", "checkpoints")
    v1, v2 = "mobilenet_v2-b0353104.pth", "mobilenet_v2-7ebf99e0.pth"
    for call, file in ((lambda: M.mobilenet_v2(weights="DEFAULT"), v2),
                       (lambda: M.mobilenet_v2(weights=M.MobileNet_V2_Weights.IMAGENET1K_V1), v1),
                       (lambda: M.get_model("resnet18", weights="ResNet18_Weights.IMAGENET1K_V1"),
                        "resnet18-f37072fd.pth"),
                       (lambda: M.mobilenet_v2(pretrained=True), v1)):
        with warnings.catch_warnings(), pytest.raises(FileNotFoundError, match=file) as err:
            warnings.simplefilter("ignore")  # pretrained=True's deprecation warnings
            call()
        assert os.path.join(cache, file) in str(err.value)
        assert f"https://download.pytorch.org/models/{file}" in str(err.value)
    assert not os.listdir(cache)  # no partial file left behind


def test_weights_load_from_the_hub_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    tm = TV.mobilenet_v2()
    os.makedirs(tmp_path / "hub" / "checkpoints")
    torch.save(tm.state_dict(), tmp_path / "hub" / "checkpoints" / "mobilenet_v2-7ebf99e0.pth")
    for weights in ("DEFAULT", M.MobileNet_V2_Weights.IMAGENET1K_V2):
        fm = M.mobilenet_v2(weights=weights)
        f_sd, t_sd = fm.state_dict(), tm.state_dict()
        assert list(f_sd) == list(t_sd)
        assert all(np.array_equal(host(f_sd[k]), t_sd[k].numpy()) for k in t_sd)
    with pytest.raises(ValueError, match="expected value 1000 but got 10"):
        M.mobilenet_v2(weights="DEFAULT", num_classes=10)


# ---------------------------------------------------------------- the transforms() presets

def test_preset_transforms_match_torchvision():
    arr = np.random.RandomState(0).randint(0, 256, (70, 90, 3), dtype=np.uint8)
    img = Image.fromarray(arr)
    for name in ("ResNet50_Weights.IMAGENET1K_V2", "ViT_B_16_Weights.IMAGENET1K_SWAG_LINEAR_V1",
                 "VGG16_Weights.IMAGENET1K_FEATURES"):
        tt, ft = TV.get_weight(name).transforms(), M.get_weight(name).transforms()
        assert repr(ft) == repr(tt) and ft.describe() == tt.describe()
        scale = 1 / 255 / min(tt.std)  # one uint8 level after normalization
        np.testing.assert_allclose(host(ft(img)), tt(img).numpy(), rtol=0, atol=1e-4, err_msg=f"{name} PIL")
        chw = np.ascontiguousarray(arr.transpose(2, 0, 1))
        got, want = host(ft(facade.tensor(chw))), tt(torch.tensor(chw)).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype
        assert np.abs(got - want).max() <= scale * 1.001 and np.mean(np.abs(got - want) > 1e-4) < 1e-3
        batch = chw[None].astype(np.float32) / 255
        _close(ft(facade.tensor(batch)), tt(torch.tensor(batch)), f"{name} float batch", rtol=1e-4)
