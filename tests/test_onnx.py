"""torch.onnx.export through jax2onnx: the ONNX file runs in onnxruntime and gives the eager outputs, holds the
weights as initializers, honours dynamic_axes / dynamic_shapes and opset_version, and bad calls raise clearly.
(Real torch's ONNX exporter needs onnxscript, absent here, so eager facade outputs are the reference; the models
carry real torch's weights and test_export.py checks eager against torch.)"""

from __future__ import annotations

import io
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import facade

from .test_export import _pair, _x


def _session(path_or_bytes):
    return ort.InferenceSession(path_or_bytes, providers=["CPUExecutionProvider"])


def _eager(fm, x):
    with facade.no_grad():
        return fm(facade.tensor(x)).numpy()


@pytest.mark.parametrize("name", ["mlp", "cnn", "block"])
def test_onnx_file_runs_in_onnxruntime_like_eager(name, tmp_path):
    _, fm, feat = _pair(name)
    path = tmp_path / f"{name}.onnx"
    prog = facade.onnx.export(fm, (facade.tensor(_x(4, feat)),), str(path), input_names=["x"], output_names=["y"],
                              dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    model = onnx.load(path)
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ["x"]  # the weights are initializers, not inputs
    assert [o.name for o in model.graph.output] == ["y"]
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    inits = {tuple(t.dims) for t in model.graph.initializer}
    assert all(tuple(p.shape) in inits or p.dim() <= 1 for p in fm.parameters())
    sess = _session(str(path))
    for batch in (4, 3, 9):  # the example's batch size, and others through the dynamic axis
        x = _x(batch, feat)
        np.testing.assert_allclose(sess.run(None, {"x": x})[0], _eager(fm, x), rtol=1e-5, atol=1e-5)
    assert prog.model_proto.graph.input[0].name == "x"


@pytest.mark.parametrize("opset", [17, 18, None])
def test_opset_version_is_honoured(opset):
    _, fm, feat = _pair("mlp")
    buf = io.BytesIO()
    with pytest.warns(DeprecationWarning, match="Saving ONNX model to a BytesIO object is deprecated"):
        facade.onnx.export(fm, facade.tensor(_x(2, feat)), buf, opset_version=opset)  # a Tensor as args, as torch
    model = onnx.load_from_string(buf.getvalue())
    assert {o.domain: o.version for o in model.opset_import}[""] == (20 if opset is None else opset)
    x = _x(2, feat)
    got = _session(buf.getvalue()).run(None, {model.graph.input[0].name: x})[0]
    np.testing.assert_allclose(got, _eager(fm, x), rtol=1e-5, atol=1e-5)


def test_dynamic_shapes_kwargs_and_static_default():
    """dynamic_shapes (torch.export's form) instead of dynamic_axes; keyword inputs; without either, static."""
    _, fm, feat = _pair("block")
    x = _x(2, feat)
    prog = facade.onnx.export(fm, (facade.tensor(x),), dynamic_shapes={"x": {0: facade.export.Dim("batch")}})
    x3 = _x(3, feat)
    got = _session(prog.model_proto.SerializeToString()).run(None, {"x": x3})[0]
    np.testing.assert_allclose(got, _eager(fm, x3), rtol=1e-5, atol=1e-5)
    mask = np.zeros((2, feat[0]), bool)
    mask[0, -2:] = True
    prog = facade.onnx.export(fm, (facade.tensor(x),), kwargs={"mask": facade.tensor(mask)})
    assert [i.name for i in prog.model_proto.graph.input] == ["x", "mask"]
    assert [d.dim_value for d in prog.model_proto.graph.input[0].type.tensor_type.shape.dim] == [2, *feat]
    with facade.no_grad():
        want = fm(facade.tensor(x), mask=facade.tensor(mask)).numpy()
    got = _session(prog.model_proto.SerializeToString()).run(None, {"x": x, "mask": mask})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(prog(facade.tensor(x), mask=facade.tensor(mask))[0].numpy(), want, rtol=1e-5,
                               atol=1e-5)
    assert facade.onnx.export(fm, (facade.tensor(x),), dynamo=False) is None  # as torch's TorchScript exporter


def test_unknown_dynamic_axes_name_warns_as_torch():
    _, fm, feat = _pair("mlp")
    with pytest.warns(UserWarning, match="Provided key inp for dynamic axes is not a valid input/output name"):
        facade.onnx.export(fm, (facade.tensor(_x(2, feat)),), dynamic_axes={"inp": [0]})


def test_training_mode_warns_as_torch():
    _, fm, feat = _pair("mlp")
    fm.train()
    with pytest.warns(UserWarning, match="Exporting a model while it is in training mode"):
        facade.onnx.export(fm, (facade.tensor(_x(2, feat)),))
    assert fm.training


def test_bad_calls(monkeypatch):
    with pytest.raises(TypeError, match="torch.onnx.export: expected model to be a torch.nn.Module, got function"):
        facade.onnx.export(lambda x: x, (facade.ones(1),))
    _, fm, feat = _pair("mlp")
    with pytest.raises(NotImplementedError, match=r"export_params=False\) is not supported"):
        facade.onnx.export(fm, (facade.tensor(_x(2, feat)),), export_params=False)
    monkeypatch.setitem(sys.modules, "jax2onnx", None)  # as if the optional dependency were not installed
    with pytest.raises(ImportError, match=r"pip install facade\[onnx\]"):
        facade.onnx.export(fm, (facade.tensor(_x(2, feat)),))
    with pytest.raises(NotImplementedError, match=r"^torch\.onnx\.dynamo_export is not supported by facade"):
        facade.onnx.dynamo_export(fm)


def test_export_leaves_jax_as_it_was():
    """jax2onnx's plugins replace jnp.cumsum process-wide with one that refuses a positional axis, which facade's
    ops pass (cumulative_trapezoid failed in every later test of the process). Put back after each export; a
    cumsum still converts (jax2onnx's version is in place while it converts)."""
    import jax.numpy as jnp

    original = jnp.cumsum

    class Cumsum(facade.nn.Module):
        def forward(self, x):
            return x.cumsum(1)

    x = _x(2, (3,))
    for _ in range(2):  # the first export imports the plugins; the second reuses them
        program = facade.onnx.export(Cumsum().eval(), (facade.tensor(x),), dynamo=True)
        assert jnp.cumsum is original
        np.testing.assert_allclose(program(facade.tensor(x))[0], np.cumsum(x, 1), rtol=1e-6)
    y = facade.tensor([1.0, 3.0, 6.0])
    assert facade.cumulative_trapezoid(y).tolist() == [2.0, 6.5]
