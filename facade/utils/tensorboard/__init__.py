"""torch.utils.tensorboard: `SummaryWriter` writing TensorBoard event files through tensorboardX."""

from . import summary, writer
from .writer import FileWriter, RecordWriter, SummaryWriter

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter", "summary", "writer"]
