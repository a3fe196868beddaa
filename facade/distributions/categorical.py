"""torch.distributions.Categorical: parametrised by `probs` (normalised) or `logits` (log-normalised); the
other one is a lazy_property."""

from __future__ import annotations

import math

import facade as torch

from . import constraints
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


def _set_param(self, probs, logits, is_binary):
    """Store exactly one of probs/logits (torch's ValueError otherwise); returns it."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name = "probs" if probs is not None else "logits"
    param = probs if probs is not None else logits
    if not is_binary:
        if param.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        param = param / param.sum(-1, keepdim=True) if name == "probs" else param - param.logsumexp(-1, keepdim=True)
    setattr(self, name, param)
    self._param = param
    return param


def _expand_param(self, cls, batch_shape, _instance, event_shape=(), **extra):
    """expand for the probs/logits families: only the parametrisation in use is expanded."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = torch.Size(batch_shape)
    for name in ("probs", "logits"):
        if name in self.__dict__:
            setattr(new, name, self.__dict__[name].expand(batch_shape + tuple(event_shape)))
            new._param = getattr(new, name)
    new.__dict__.update(extra)
    Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


class Categorical(Distribution):
    """A distribution over {0, ..., K-1} given by the last dimension of probs or logits."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = _set_param(self, probs, logits, is_binary=False)
        self._num_events = param.size()[-1]
        super().__init__(param.size()[:-1] if param.ndimension() > 1 else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_param(self, Categorical, batch_shape, _instance, (self._num_events,),
                             _num_events=self._num_events)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        sample_shape = torch.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = torch.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, log_pmf = torch.broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = torch.clamp(self.logits, min=torch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = torch.arange(self._num_events, dtype=torch.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
