"""torch.nn.modules.dropout: each module calls its torch.nn.functional function with (p, training, inplace)."""

from ... import _random
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace
        if p > 0:
            _random.warm_split()  # its first training forward draws a key

    def forward(self, input):
        return getattr(F, self._fn)(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


def _dropout(name, fn, doc):
    cls = type(name, (_DropoutNd,), {"_fn": fn, "__module__": __name__, "__doc__": f"torch.nn.{name}: {doc} "
                                     f"(torch.nn.functional.{fn}); the identity in eval mode."})
    cls.__qualname__ = name
    return cls


Dropout = _dropout("Dropout", "dropout", "zeroes elements with probability p, scales the rest by 1 / (1 - p)")
Dropout1d = _dropout("Dropout1d", "dropout1d", "zeroes whole channels of (N, C, L) or (C, L) inputs")
Dropout2d = _dropout("Dropout2d", "dropout2d", "zeroes whole channels of (N, C, H, W) inputs")
Dropout3d = _dropout("Dropout3d", "dropout3d", "zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs")
AlphaDropout = _dropout("AlphaDropout", "alpha_dropout", "dropout keeping the mean and variance of SELU activations")
FeatureAlphaDropout = _dropout("FeatureAlphaDropout", "feature_alpha_dropout", "alpha dropout of whole channels")
