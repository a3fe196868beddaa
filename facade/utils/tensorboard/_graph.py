"""`SummaryWriter.add_graph`: a GraphDef of one forward call, recorded from the eager ops.

torch traces the model with `torch.jit.trace`; here the forward runs eagerly once while every op
passing the dispatch chokepoint is recorded with the submodule it ran in. Nodes follow torch's naming:
`input/<arg>` and `output/output.<i>` (op "IO Node"), parameters and buffers `<scope>/<name>`
(op "prim::GetAttr"), ops `<scope>/<i>` (op "aten::<name>"), scopes `Net/Linear[fc1]`.
Python scalars and constants are not nodes (torch makes `prim::Constant` nodes for them).
"""

from __future__ import annotations

import inspect

from ...profiler._hook import observe_ops
from ._tbx import proto


def _shape_attr(tensors):
    shapes = proto.attr_value_pb2.AttrValue.ListValue(shape=[
        proto.tensor_shape_pb2.TensorShapeProto(dim=[proto.tensor_shape_pb2.TensorShapeProto.Dim(size=d)
                                                     for d in t.shape]) for t in tensors])
    return {"_output_shapes": proto.attr_value_pb2.AttrValue(list=shapes)}


class _Recorder:
    def __init__(self, model):
        self.nodes = []
        self.producer = {}  # id(tensor) -> node name
        self.keep = []  # the recorded tensors stay alive, so their ids are not reused
        self.scopes = [type(model).__name__]
        self.count = 0
        for name, p in [*model.named_parameters(), *model.named_buffers()]:
            owner, _, attr = name.rpartition(".")
            scope = self.scopes[0] + "".join(f"/{type(m).__name__}[{n}]" for n, m in _path(model, owner))
            self.add(f"{scope}/{attr}", "prim::GetAttr", [], [p])

    def add(self, name, op, inputs, outputs):
        attr = _shape_attr(outputs)
        attr["attr"] = proto.attr_value_pb2.AttrValue(s=b"{}")
        self.nodes.append(proto.node_def_pb2.NodeDef(name=name, op=op, input=inputs, attr=attr))
        for t in outputs:
            self.producer[id(t)] = name
            self.keep.append(t)

    def inputs_of(self, values):
        from ..._tensor import Tensor

        return [self.producer[id(v)] for v in values if isinstance(v, Tensor) and id(v) in self.producer]

    def op(self, name, dyn, result, t0, t1):
        outs = result if isinstance(result, tuple) else (result,)
        self.count += 1
        self.add(f"{self.scopes[-1]}/{self.count}", f"aten::{name}", self.inputs_of(dyn), outs)


def _path(model, dotted):
    """(attribute name, module) pairs from `model` down to the submodule at `dotted`."""
    out, m = [], model
    for part in dotted.split(".") if dotted else ():
        m = getattr(m, part)
        out.append((part, m))
    return out


def _as_tuple(x):
    if x is None:
        return ()
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def graph(model, args, verbose=False):
    """The GraphDef of `model(*args)`, run once in eval mode without gradient recording."""
    from ... import no_grad
    from ..._tensor import Tensor

    args = _as_tuple(args)
    rec = _Recorder(model)
    try:
        names = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        names = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            rec.add(f"input/{names[i] if i < len(names) else f'input.{i}'}", "IO Node", [], [a])
    handles = []
    for name, m in model.named_modules():
        if name:
            def push(mod, inp, name=name):
                rec.scopes.append(f"{rec.scopes[-1]}/{type(mod).__name__}[{name.rpartition('.')[2]}]")

            def pop(*_):
                rec.scopes.pop()  # returns None: a forward hook's result would replace the output

            handles.append(m.register_forward_pre_hook(push))
            handles.append(m.register_forward_hook(pop))
    was_training = model.training
    model.train(False)
    try:
        with no_grad(), observe_ops(rec.op):
            out = model(*args)
    finally:
        model.train(was_training)
        for h in handles:
            h.remove()
    for i, t in enumerate(_as_tuple(out)):
        if isinstance(t, Tensor):
            rec.add(f"output/output.{i + 1}", "IO Node", rec.inputs_of([t]), [t])
    g = proto.graph_pb2.GraphDef(node=rec.nodes, versions=proto.versions_pb2.VersionDef(producer=22))
    if verbose:
        print(g)
    return g
