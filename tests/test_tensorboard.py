"""torch.utils.tensorboard.SummaryWriter: the event files it writes equal real torch's for the same calls.

Both directories are read back with TensorBoard's own event-file reader.
"""

import os
import re
import socket
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.utils.tensorboard as ttb
from google.protobuf.json_format import MessageToDict
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto.event_pb2 import Event

import facade
import facade.utils.tensorboard as ftb

RNG = np.random.default_rng(0)
VALUES = RNG.standard_normal((64,)).astype(np.float32)
IMAGE = RNG.random((3, 8, 6)).astype(np.float32)
IMAGES = RNG.random((4, 3, 5, 5)).astype(np.float32)
HWC = (RNG.random((6, 7, 3)) * 255).astype(np.uint8)
LABELS = (VALUES > 0).astype(np.int64)
PROBS = 1 / (1 + np.exp(-VALUES))


def _load(path):
    return [Event.FromString(r) for r in RawEventFileLoader(path).Load()]


def _runs(root):
    """{run dir relative to root: [events]} read back with TensorBoard's reader, less what names the moment or
    the writing library (wall time; the first event's `source_metadata`, which only torch's writer sets)."""
    out = {}
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if ".tfevents." in f:
                events = [MessageToDict(e) for e in _load(os.path.join(d, f))]
                for e in events:
                    e.pop("wallTime", None)
                    e.pop("sourceMetadata", None)
                out.setdefault(os.path.relpath(d, root), []).extend(events)
    return out


def _log(lib, log_dir):
    t = lambda a: lib.tensor(a)  # noqa: E731
    w = lib.utils.tensorboard.SummaryWriter(log_dir, purge_step=3)
    w.add_scalar("loss", 0.5, 1)
    w.add_scalar("loss", t(np.float32(0.25)), 2)
    w.add_scalar("new", t(1.5), 2, new_style=True)
    w.add_scalar("dbl", 2.5, 2, new_style=True, double_precision=True)
    w.add_scalars("run/lr", {"a": 1.0, "b": t(2.0)}, 3)
    w.add_histogram("w", t(VALUES), 1)
    w.add_histogram("w_auto", t(VALUES), 1, bins="auto")
    w.add_histogram_raw("raw", -1, 1, 4, 0.5, 1.5, [0.0, 1.0], [2, 2], 1)
    w.add_image("img", t(IMAGE), 1)
    w.add_image("hwc", t(HWC), 1, dataformats="HWC")
    w.add_images("imgs", t(IMAGES), 1)
    w.add_image_with_boxes("boxes", t(IMAGE), t(np.array([[0.0, 0.0, 3.0, 4.0]], np.float32)), 1, labels=["x"])
    w.add_text("note", "hello **world**", 1)
    w.add_pr_curve("pr", t(LABELS), t(PROBS), 1, num_thresholds=11)
    w.add_custom_scalars_multilinechart(["loss", "new"], category="c", title="t")
    w.add_hparams({"lr": 0.1, "opt": "adam", "layers": 3}, {"hp/acc": t(0.75)},
                  hparam_domain_discrete={"opt": ["adam", "sgd"]}, run_name="hp")
    w.flush()
    w.close()
    w.close()  # a second close is harmless


def test_events_equal_torch(tmp_path):
    _log(torch, str(tmp_path / "torch"))
    _log(facade, str(tmp_path / "facade"))
    theirs, ours = _runs(tmp_path / "torch"), _runs(tmp_path / "facade")
    assert sorted(ours) == sorted(theirs) == [".", "hp", "run_lr_a", "run_lr_b"]
    for run in theirs:
        assert ours[run] == theirs[run], run


def test_file_names_and_default_log_dir(tmp_path, monkeypatch):
    pattern = r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + re.escape(socket.gethostname()) + "_exp"
    file_re = r"events\.out\.tfevents\.\d{10}\." + re.escape(socket.gethostname()) + rf"\.{os.getpid()}\.\d+"
    for lib in (ttb, ftb):  # each in its own directory: both count their files from 0 in this one process
        (tmp_path / lib.__name__).mkdir()
        monkeypatch.chdir(tmp_path / lib.__name__)
        w = lib.SummaryWriter(comment="_exp")
        assert re.fullmatch(pattern, w.get_logdir()) and w.log_dir == w.get_logdir()
        w.close()
        names = [f for d in os.listdir("runs") for f in os.listdir(os.path.join("runs", d))]
        assert len(names) == 1 and re.fullmatch(file_re, names[0]), names


def test_context_manager_and_reopen(tmp_path):
    with ftb.SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("a", 1.0, 0)
    assert w.all_writers is None  # closed by the with block
    w.add_scalar("a", 2.0, 1)  # writing again reopens a new event file, as torch does
    w.close()
    values = sorted((int(e.get("step", 0)), v["simpleValue"]) for evs in _runs(tmp_path).values() for e in evs
                    for v in e.get("summary", {}).get("value", []))  # two files: within a second, names sort by uid
    assert values == [(0, 1.0), (1, 2.0)]


def test_tensor_inputs_need_no_compile(tmp_path):
    x = facade.randn(100, requires_grad=True)  # requires_grad and a view: converted without .numpy() errors
    with ftb.SummaryWriter(str(tmp_path)) as w:
        w.add_histogram("x", x[10:], 0)
        w.add_scalar("s", x[0], 0)
    hist = [v for e in _runs(tmp_path)["."] for v in e.get("summary", {}).get("value", []) if v["tag"] == "x"]
    assert hist[0]["histo"]["num"] == 90


def test_bad_hparams(tmp_path):
    for lib, writer in ((torch, ttb), (facade, ftb)):
        with writer.SummaryWriter(str(tmp_path / lib.__name__)) as w:
            with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
                w.add_hparams([("lr", 1)], {})
            with pytest.raises(TypeError, match=re.escape("hparam_domain_discrete[opt] should be a list of same "
                                                          "type as hparam_dict[opt].")):
                w.add_hparams({"opt": "adam"}, {"m": 1.0}, hparam_domain_discrete={"opt": [1, 2]})


def test_add_embedding_files_equal_torch(tmp_path):
    mat = RNG.standard_normal((5, 3)).astype(np.float32)
    for lib in (torch, facade):
        with lib.utils.tensorboard.SummaryWriter(str(tmp_path / lib.__name__)) as w:
            w.add_embedding(lib.tensor(mat), metadata=list("abcde"), global_step=2, tag="emb/x")
            w.add_embedding(lib.tensor(mat), label_img=lib.tensor(IMAGES[:1].repeat(5, 0)), global_step=3)
            w.add_embedding(lib.tensor(mat), label_img=lib.tensor(IMAGE[None, :, :5].repeat(5, 0)), global_step=4)
    for f in ("00002/emb%2fx/tensors.tsv", "00002/emb%2fx/metadata.tsv", "00003/default/tensors.tsv"):
        assert (tmp_path / "facade" / f).read_text() == (tmp_path / "torch" / f).read_text()
    for sprite in ("00003/default/sprite.png", "00004/default/sprite.png"):  # square padding is black, not garbage
        assert (tmp_path / "facade" / sprite).read_bytes() == (tmp_path / "torch" / sprite).read_bytes()
    cfg = lambda p: re.sub(r"\s+", " ", (p / "projector_config.pbtxt").read_text()).strip()  # noqa: E731
    assert cfg(tmp_path / "facade") == cfg(tmp_path / "torch")


def test_add_figure_behaves_like_torch(tmp_path):
    """With matplotlib this compares the rendered image; without it both raise the same error."""
    results = {}
    for lib in (torch, facade):
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=(1, 1), dpi=20)
            plt.plot([0, 1], [1, 0])
        except ImportError:
            fig = object()
        try:
            with lib.utils.tensorboard.SummaryWriter(str(tmp_path / lib.__name__)) as w:
                w.add_figure("fig", fig, 0)
            results[lib.__name__] = _runs(tmp_path / lib.__name__)  # read once closed: flushed
        except Exception as e:
            results[lib.__name__] = type(e)
    assert results["facade"] == results["torch"]


class _Net:
    """The same model in both libraries: Linear -> ReLU -> Linear, then a sum in the root module."""

    @staticmethod
    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1, self.act, self.fc2 = lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2)

            def forward(self, x):
                return self.fc2(self.act(self.fc1(x))).sum(1)

        return Net()


def _graph_summary(events):
    """The aten nodes as (scope, op, input kinds) and the IO node names, from an event file's GraphDef."""
    from tensorboard.compat.proto.graph_pb2 import GraphDef

    g = GraphDef.FromString(next(e for e in events if e.graph_def).graph_def)
    nodes = {n.name: n for n in g.node}

    def kind(name):
        n = nodes[name]
        if n.op == "IO Node":
            return name
        if n.op == "prim::GetAttr":
            return re.sub(r"\.\d+$", "", name.rsplit("/", 1)[1])
        return (name.rsplit("/", 1)[0], n.op)

    aten = sorted((n.name.rsplit("/", 1)[0], n.op, tuple(kind(i) for i in n.input if nodes[i].op.startswith(
        ("aten::", "IO", "prim::GetAttr")))) for n in g.node if n.op.startswith("aten::"))
    io = sorted((n.name, [kind(i) for i in n.input]) for n in g.node if n.op == "IO Node")
    shapes = {n.op: [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape]
              for n in g.node if n.op.startswith("aten::")}
    return aten, io, shapes


def test_add_graph_matches_torch_trace(tmp_path):
    for lib in (torch, facade):
        with lib.utils.tensorboard.SummaryWriter(str(tmp_path / lib.__name__)) as w:
            w.add_graph(_Net.make(lib), lib.ones(5, 4))
    loaded = {}
    for lib in ("torch", "facade"):
        d = tmp_path / lib
        loaded[lib] = _graph_summary(_load(str(next(d.glob("*tfevents*")))))
    assert loaded["facade"] == loaded["torch"]


def test_no_real_torch_imported():
    code = ("import sys, tempfile, facade; from facade.utils.tensorboard import SummaryWriter\n"
            "w = SummaryWriter(tempfile.mkdtemp()); w.add_scalar('a', facade.tensor(1.0)); w.close()\n"
            "assert 'torch' not in sys.modules, 'real torch was imported'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
