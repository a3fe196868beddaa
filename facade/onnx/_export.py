"""torch.onnx.export through jax2onnx: the model's forward, traced as torch.export traces it (a pure JAX function
of its inputs, with the parameters and buffers closed over, so they become the ONNX graph's initializers), is
converted by `jax2onnx.to_onnx`. `dynamic_axes` (or `dynamic_shapes`) become symbolic dimensions.

As torch's exporter does, an opset below 18 is exported at 18 and then converted down with onnx's version
converter (kept at 18, with a warning, when that fails)."""

from __future__ import annotations

import io
import logging
import os
import re
import warnings

import jax
import numpy as np

from .._tensor import Tensor
from ..export import dynamic_shapes as ds
from ..export._errors import arg_names
from ..export._export import trace_program
from ..export._trace import Traced
from ..export.exported_program import input_paths
from ..nn.modules.module import Module
from ._passes import fix_max_pool

__all__ = ["export", "ONNXProgram", "TrainingMode"]

_BASE_OPSET = 18  # the lowest opset jax2onnx's lowerings are valid for (torch's TORCHLIB_OPSET)
_DEFAULT_OPSET = 20  # torch.onnx._constants.ONNX_DEFAULT_OPSET


class TrainingMode:
    EVAL, PRESERVE, TRAINING = 0, 1, 2


_PATCHED = {}  # (namespace, name) -> what jax2onnx put there (jnp.cumsum ...): in place only while it converts


def _jax2onnx():
    try:
        import onnx
        from jax2onnx import to_onnx
    except ImportError as e:
        raise ImportError("torch.onnx.export needs the optional dependencies jax2onnx and onnx: "
                          "pip install facade[onnx]") from e
    return _converting(to_onnx), onnx


def _converting(to_onnx):
    """`to_onnx` that leaves jax as it found it. jax2onnx's plugins, imported during a conversion, replace jax
    functions process-wide (its jnp.cumsum refuses a positional axis, which facade's own ops pass): they are put
    back after each conversion, and jax2onnx's versions are in place again only while it converts."""
    import jax

    spaces = (jax.numpy, jax.lax, jax.nn, jax.numpy.linalg, jax.random, jax.scipy.special)

    def convert(*args, **kwargs):
        before = [dict(vars(ns)) for ns in spaces]
        for (ns, name), value in _PATCHED.items():
            setattr(ns, name, value)
        try:
            return to_onnx(*args, **kwargs)
        finally:
            for ns, old in zip(spaces, before):
                for name, value in list(vars(ns).items()):
                    if name in old and old[name] is not value:
                        _PATCHED[(ns, name)] = value
                        setattr(ns, name, old[name])
    return convert


class ONNXProgram:
    """torch.onnx.ONNXProgram: the exported `model_proto`; `save(path)`; calling it runs onnxruntime."""

    def __init__(self, model_proto):
        self.model_proto = model_proto

    def save(self, destination, *, include_initializers=True, keep_initializers_as_inputs=False,
             external_data=None):
        _write(self.model_proto, destination)

    def __call__(self, *args, **kwargs):
        import onnxruntime

        from ..func import from_jax

        sess = onnxruntime.InferenceSession(self.model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
        leaves = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        feeds = {i.name: t.numpy(force=True) for i, t in zip(sess.get_inputs(), leaves)}
        return [from_jax(jax.numpy.asarray(o)) for o in sess.run(None, feeds)]

    def __repr__(self):
        g = self.model_proto.graph
        return f"ONNXProgram(inputs={[i.name for i in g.input]}, outputs={[o.name for o in g.output]})"


def _write(proto, f):
    data = proto.SerializeToString()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
    else:
        f.write(data)


def _axes_from_dynamic_axes(dynamic_axes, in_names, out_names, tensors):
    """dynamic_axes ({name: {axis: dim name}} or {name: [axes]}) as per-input axes specs of Dims."""
    axes = [[None] * t.dim() for t in tensors]
    dims = {}
    for key, spec in dynamic_axes.items():
        if key not in in_names:
            if key not in out_names:  # as torch's exporter: warn and ignore
                warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name", stacklevel=3)
            continue  # outputs' sizes follow from the inputs'
        i = in_names.index(key)
        named = spec.items() if isinstance(spec, dict) else ((a, f"{key}_dynamic_axes_{n + 1}")
                                                             for n, a in enumerate(spec))
        for axis, name in named:
            name = re.sub(r"\W", "_", str(name))
            axes[i][axis] = dims.setdefault(name, ds.Dim(name))
    return axes


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None, custom_translation_table=None,
           report=False, optimize=True, verify=False, profile=False, dump_exported_program=False,
           artifacts_dir=".", export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None,
           training=TrainingMode.EVAL, operator_export_type=None, do_constant_folding=True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True):
    """torch.onnx.export: write `model`'s forward on inputs like `args` as an ONNX model to `f` (a path or a
    binary file object). Returns an ONNXProgram (None with dynamo=False, as torch's TorchScript exporter)."""
    to_onnx, onnx = _jax2onnx()
    if not isinstance(model, Module):
        raise TypeError(f"torch.onnx.export: expected model to be a torch.nn.Module, got {type(model).__name__} "
                        "(exporting an ExportedProgram or a ScriptModule is not supported by facade)")
    if not export_params:
        raise NotImplementedError("torch.onnx.export(export_params=False) is not supported by facade: the weights "
                                  "are always embedded as initializers")
    args = (args,) if isinstance(args, Tensor) else tuple(args)
    if not kwargs and args and isinstance(args[-1], dict):
        args, kwargs = args[:-1], args[-1]
    kwargs = kwargs or {}
    opset = _DEFAULT_OPSET if opset_version is None else int(opset_version)
    mode = model.training
    if dynamo and mode:
        warnings.warn("Exporting a model while it is in training mode. Please ensure that this is intended, as it "
                      "may lead to different behavior during inference. Calling model.eval() before export is "
                      "recommended.", UserWarning, stacklevel=2)
    elif not dynamo and training != TrainingMode.PRESERVE:
        model.train(training == TrainingMode.TRAINING)
    try:
        proto = _convert(to_onnx, model, args, kwargs, input_names, output_names, opset, dynamic_axes,
                         dynamic_shapes)
    finally:
        model.train(mode)
    proto = fix_max_pool(proto)
    if opset < _BASE_OPSET:
        try:
            proto = onnx.version_converter.convert_version(proto, opset)
        except Exception as e:  # noqa: BLE001 - any converter failure keeps the opset-18 model, as torch does
            warnings.warn(f"torch.onnx.export: converting the model to opset {opset} failed ({e}); the exported "
                          f"model uses opset {_BASE_OPSET}", UserWarning, stacklevel=2)
    if f is not None:
        if isinstance(f, io.BytesIO):
            warnings.warn("Saving ONNX model to a BytesIO object is deprecated. Please use a file path instead.",
                          DeprecationWarning, stacklevel=2)
        _write(proto, f)
    return ONNXProgram(proto) if dynamo else None


def _convert(to_onnx, model, args, kwargs, input_names, output_names, opset, dynamic_axes, dynamic_shapes):
    traced = Traced(model, args, kwargs)
    all_paths = input_paths(arg_names(model, len(args)), args, kwargs)
    paths = [all_paths[i] for i in traced.tensor_pos]
    in_names = list(input_names or ()) + [re.sub(r"\W+", "_", p).strip("_") for p in paths[len(input_names or ()):]]
    if dynamic_shapes is not None:
        axes = ds.parse(model, args, kwargs, dynamic_shapes)
    else:
        axes = _axes_from_dynamic_axes(dynamic_axes or {}, in_names, list(output_names or ()), traced.inputs)
    state = [t._arr() for t in traced.state]
    key = np.zeros((), np.int64)
    double = any(np.dtype(a.dtype) == np.float64 for a in (*state, *(t._arr() for t in traced.inputs)))

    def fn(*inputs):
        return tuple(traced.fn(key, state, list(inputs))[0])

    def convert(specs):
        log = logging.getLogger("onnx_ir.serde")  # jax2onnx's value-type notes are not the user's concern
        level = log.level
        log.setLevel(logging.ERROR)
        try:
            return to_onnx(fn, specs, model_name=type(model).__name__, opset=max(opset, _BASE_OPSET),
                           input_names=in_names, output_names=list(output_names) if output_names else None,
                           enable_double_precision=double)
        finally:
            log.setLevel(level)

    def specs_of(shapes):
        return [jax.ShapeDtypeStruct(s, t._arr().dtype) for s, t in zip(shapes, traced.inputs)]

    return trace_program(convert, traced, axes, specs_of)[0]
