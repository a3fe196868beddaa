"""torch.utils.tensorboard.writer: `SummaryWriter` with torch's signatures and file layout.

The event files, protobufs and summaries are tensorboardX's (`FileWriter`, `tensorboardX.summary`);
this class follows `torch/utils/tensorboard/writer.py` method for method (where torch and tensorboardX
differ, e.g. the directories `add_scalars` and `add_hparams` write, torch's behaviour is kept) and turns
facade Tensors into numpy arrays before they reach tensorboardX.
"""

from __future__ import annotations

import itertools
import math
import os
import socket
import time
from datetime import datetime

import numpy as np

from ._tbx import embedding, proto, summary, tbx, to_numpy, utils

FileWriter = tbx.FileWriter
RecordWriter = tbx.RecordWriter
_UID = itertools.count()  # torch names event files events.out.tfevents.<time>.<host>.<pid>.<uid><suffix>

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]


def _default_bins():
    """TensorBoard's default histogram buckets: +-1e-12 growing by 10% up to 1e20 (as torch's writer)."""
    v, buckets = 1e-12, []
    while v < 1e20:
        buckets.append(v)
        v *= 1.1
    return [-b for b in reversed(buckets)] + [0] + buckets


class SummaryWriter:
    """Writes scalars, histograms, images, text, graphs, hparams ... to event files TensorBoard reads.

    `log_dir` defaults to `runs/<Mon><DD>_<HH>-<MM>-<SS>_<hostname><comment>` as in torch.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _new_file_writer(self, log_dir):
        # tensorboardX names files only by time and host (two writers in one second collide); torch adds these
        suffix = f".{os.getpid()}.{next(_UID)}{self.filename_suffix}"
        return FileWriter(log_dir, self.max_queue, self.flush_secs, suffix)

    def _get_file_writer(self):
        """The default FileWriter, recreated if the writer was closed."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = self._new_file_writer(self.log_dir)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                Event, SessionLog = proto.event_pb2.Event, proto.event_pb2.SessionLog
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def _add(self, s, global_step=None, walltime=None):
        self._get_file_writer().add_summary(s, global_step, walltime)

    def get_logdir(self):
        """The directory where event files are written."""
        return self.log_dir

    # ------------------------------------------------------------------ scalars
    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """One scalar; `new_style` stores it as a tensor of the `scalars` plugin (float64 if asked)."""
        if not new_style:
            return self._add(summary.scalar(tag, to_numpy(scalar_value)), global_step, walltime)
        value = to_numpy(scalar_value)
        if getattr(value, "ndim", 0) and value.squeeze().ndim != 0:
            raise AssertionError("scalar should be 0D")
        value = float(getattr(value, "squeeze", lambda: value)())
        pb = proto.summary_pb2
        tensor = (proto.tensor_pb2.TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
                  else proto.tensor_pb2.TensorProto(float_val=[value], dtype="DT_FLOAT"))
        meta = pb.SummaryMetadata(plugin_data=pb.SummaryMetadata.PluginData(plugin_name="scalars"))
        self._add(pb.Summary(value=[pb.Summary.Value(tag=tag, tensor=tensor, metadata=meta)]), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several scalars in one plot: each goes to its own run `<log_dir>/<main_tag>_<tag>`."""
        walltime = time.time() if walltime is None else walltime
        fw_logdir = self._get_file_writer().get_logdir()
        for tag, scalar_value in tag_scalar_dict.items():
            fw_tag = fw_logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            fw = self.all_writers.get(fw_tag)
            if fw is None:
                fw = self.all_writers[fw_tag] = self._new_file_writer(fw_tag)
            fw.add_summary(summary.scalar(main_tag, to_numpy(scalar_value)), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """Hyperparameters and their metrics, as a run `<log_dir>/<run_name or time.time()>`."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        hparam_dict = {k: to_numpy(v) for k, v in hparam_dict.items()}
        metric_dict = {k: to_numpy(v) for k, v in metric_dict.items()}
        exp, ssi, sei = summary.hparams(hparam_dict, metric_dict)
        if hparam_domain_discrete:
            _add_discrete_domains(exp, hparam_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w_hp:
            for s in (exp, ssi, sei):
                w_hp.file_writer.add_summary(s, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    # ------------------------------------------------------------------ distributions
    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(summary.histogram(tag, to_numpy(values), bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        s = summary.histogram_raw(tag, min, max, num, sum, sum_squares, to_numpy(bucket_limits),
                                  to_numpy(bucket_counts))
        self._add(s, global_step, walltime)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None):
        s = summary.pr_curve(tag, to_numpy(labels), to_numpy(predictions), num_thresholds, to_numpy(weights))
        self._add(s, global_step, walltime)

    # ------------------------------------------------------------------ media
    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._add(summary.image(tag, to_numpy(img_tensor), dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        self._add(summary.image(tag, to_numpy(img_tensor), dataformats=dataformats), global_step, walltime)

    def add_image_with_boxes(self, tag, img_tensor, box_tensor, global_step=None, walltime=None, rescale=1,
                             dataformats="CHW", labels=None):
        if labels is not None:
            labels = [labels] if isinstance(labels, str) else labels
            if len(labels) != box_tensor.shape[0]:
                labels = None
        s = summary.image_boxes(tag, to_numpy(img_tensor), to_numpy(box_tensor), rescale=rescale,
                                dataformats=dataformats, labels=labels)
        self._add(s, global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, as one batch) rendered to an image; needs matplotlib."""
        import matplotlib.pyplot  # noqa: F401  (torch's error when matplotlib is missing; tensorboardX only prints)

        fmt = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(tag, utils.figure_to_image(figure, close), global_step, walltime, dataformats=fmt)

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        """A (N, T, C, H, W) video as an animated GIF; needs moviepy, as torch's does."""
        self._add(summary.video(tag, to_numpy(vid_tensor), fps), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        self._add(summary.audio(tag, to_numpy(snd_tensor), sample_rate=sample_rate), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._add(summary.text(tag, text_string), global_step, walltime)

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None, global_step=None, walltime=None):
        s = summary.mesh(tag, to_numpy(vertices), to_numpy(colors), to_numpy(faces), config_dict)
        self._add(s, global_step, walltime)

    # ------------------------------------------------------------------ layouts, graphs, embeddings
    def add_custom_scalars(self, layout):
        self._get_file_writer().add_summary(summary.custom_scalars(layout))

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """The op graph of one forward call of `model`, scoped by submodule as torch's traced graph is."""
        from ._graph import graph

        g = graph(model, input_to_model, verbose)
        self._get_file_writer().add_event(proto.event_pb2.Event(graph_def=g.SerializeToString()))

    def add_onnx_graph(self, prototxt):
        raise NotImplementedError("torch.utils.tensorboard.SummaryWriter.add_onnx_graph: ONNX support (torch.onnx) "
                                  "is not implemented in facade yet")

    @staticmethod
    def _encode(rawstr):
        return rawstr.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        """Projector data: tensors.tsv (+ metadata.tsv, sprite.png) under `<log_dir>/<step>/<tag>`."""
        mat, label_img = to_numpy(mat), to_numpy(label_img)
        global_step = 0 if global_step is None else global_step
        subdir = f"{str(global_step).zfill(5)}/{self._encode(tag)}"
        logdir = self._get_file_writer().get_logdir()
        save_path = os.path.join(logdir, subdir)
        if os.path.isdir(save_path):
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        elif os.path.exists(save_path):
            raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
        else:
            os.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            embedding.make_tsv(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _make_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        embedding.make_mat(mat, save_path)
        self._projector_config = getattr(self, "_projector_config", []) + [_embedding_info(
            metadata, label_img, subdir, global_step, tag)]
        with open(os.path.join(logdir, "projector_config.pbtxt"), "w") as f:
            f.write("".join(self._projector_config))

    # ------------------------------------------------------------------ lifetime
    def flush(self):
        """Write pending events of every run of this writer to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return  # a second close is a no-op, as in torch
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _make_sprite(label_img, save_path):
    """sprite.png as torch writes it: ceil(sqrt(N)) images per row, padded square with black.

    tensorboardX's make_sprite pads with uninitialised memory (`np.ndarray`) and picks the row length from the
    pixel count, so its bytes differ from torch's and from run to run."""
    from PIL import Image

    grid = utils.make_grid(label_img, ncols=math.ceil(label_img.shape[0] ** 0.5)).transpose(1, 2, 0)
    square = np.zeros((grid.shape[1], grid.shape[1], 3))
    square[:grid.shape[0]] = grid
    Image.fromarray(np.uint8((square * 255).clip(0, 255))).save(os.path.join(save_path, "sprite.png"), format="PNG")


def _embedding_info(metadata, label_img, subdir, global_step, tag):
    """One `embeddings {...}` entry of the projector config, as torch's ProjectorConfig writes it (fields in
    proto number order: tensor_name, metadata_path, sprite, tensor_path)."""
    lines = [f'tensor_name: "{tag}:{str(global_step).zfill(5)}"']
    if metadata is not None:
        lines.append(f'metadata_path: "{subdir}/metadata.tsv"')
    if label_img is not None:
        lines += ["sprite {", f'  image_path: "{subdir}/sprite.png"', f"  single_image_dim: {label_img.shape[3]}",
                  f"  single_image_dim: {label_img.shape[2]}", "}"]
    lines.append(f'tensor_path: "{subdir}/tensors.tsv"')
    return "embeddings {\n" + "".join(f"  {line}\n" for line in lines) + "}\n"


def _add_discrete_domains(exp, hparam_dict, domains):
    """torch's `hparam_domain_discrete`: the allowed values of each named hparam, in the experiment summary."""
    from google.protobuf import struct_pb2

    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    content = exp.value[0].metadata.plugin_data
    data = proto.plugin_hparams_pb2.HParamsPluginData.FromString(content.content)
    for info in data.experiment.hparam_infos:
        if info.name in domains:
            kind = "string_value" if isinstance(hparam_dict[info.name], str) else "number_value"
            info.domain_discrete.CopyFrom(struct_pb2.ListValue(
                values=[struct_pb2.Value(**{kind: d}) for d in domains[info.name]]))
    content.content = data.SerializeToString()
