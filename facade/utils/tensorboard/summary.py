"""torch.utils.tensorboard.summary: the functions that build `Summary` protobufs (tensorboardX's)."""

from ._tbx import summary as _summary

audio = _summary.audio
custom_scalars = _summary.custom_scalars
histogram = _summary.histogram
histogram_raw = _summary.histogram_raw
hparams = _summary.hparams
image = _summary.image
image_boxes = _summary.image_boxes
make_histogram = _summary.make_histogram
make_image = _summary.make_image
mesh = _summary.mesh
pr_curve = _summary.pr_curve
pr_curve_raw = _summary.pr_curve_raw
scalar = _summary.scalar
text = _summary.text
video = _summary.video

__all__ = ["audio", "custom_scalars", "histogram", "histogram_raw", "hparams", "image", "image_boxes",
           "make_histogram", "make_image", "mesh", "pr_curve", "pr_curve_raw", "scalar", "text", "video"]
