"""Rewrites of jax2onnx's output that onnxruntime needs.

`fix_max_pool`: jax2onnx lowers every `reduce_window_max` as Unsqueeze -> Unsqueeze -> MaxPool -> Squeeze, pooling
over *all* the operand's axes as spatial ones; for a max_pool2d over (N, C, H, W) that is a MaxPool with four
spatial axes, which onnxruntime rejects ("Unsupported pooling size"). When the window is 1 (stride 1, no padding,
no dilation) on the operand's first two axes, those are exactly ONNX's batch and channel axes: the same result is
one MaxPool on the operand itself, over the remaining axes."""

from __future__ import annotations

__all__ = ["fix_max_pool"]


def _attrs(node):
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _rewritable(attrs, rank):
    k = list(attrs["kernel_shape"])
    s = list(attrs.get("strides", [1] * len(k)))
    p = list(attrs.get("pads", [0] * 2 * len(k)))
    d = list(attrs.get("dilations", [1] * len(k)))
    lead = k[:2] == [1, 1] and s[:2] == [1, 1] and d[:2] == [1, 1] and p[:2] == [0, 0] == p[len(k):len(k) + 2]
    return len(k) == rank and rank >= 3 and lead and not attrs.get("ceil_mode", 0)


def fix_max_pool(proto):
    """`proto` with each rewritable Unsqueeze-Unsqueeze-MaxPool-Squeeze chain replaced by one MaxPool."""
    from onnx import helper

    graph = proto.graph
    producer = {o: n for n in graph.node for o in n.output}
    consumers = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    drop, replace = set(), {}
    for pool in graph.node:
        if pool.op_type != "MaxPool" or len(pool.output) != 1:
            continue
        u1 = producer.get(pool.input[0])
        u0 = producer.get(u1.input[0]) if u1 is not None and u1.op_type == "Unsqueeze" else None
        sq = consumers.get(pool.output[0], [])
        if u0 is None or u0.op_type != "Unsqueeze" or len(sq) != 1 or sq[0].op_type != "Squeeze":
            continue
        if len(consumers.get(u0.output[0], [])) != 1 or len(consumers.get(u1.output[0], [])) != 1:
            continue
        attrs = _attrs(pool)
        if not _rewritable(attrs, len(attrs["kernel_shape"])):
            continue
        n = len(attrs["kernel_shape"])
        new = {"kernel_shape": attrs["kernel_shape"][2:]}
        for name in ("strides", "dilations"):
            if name in attrs:
                new[name] = list(attrs[name])[2:]
        if "pads" in attrs:
            p = list(attrs["pads"])
            new["pads"] = p[2:n] + p[n + 2:]
        replace[id(pool)] = helper.make_node("MaxPool", [u0.input[0]], [sq[0].output[0]], name=pool.name, **new)
        drop |= {id(u0), id(u1), id(sq[0])}
    if not replace:
        return proto
    nodes = [replace.get(id(n), n) for n in graph.node if id(n) not in drop]
    del graph.node[:]
    graph.node.extend(nodes)
    used = {i for n in nodes for i in n.input}
    inits = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(inits)
    return proto
