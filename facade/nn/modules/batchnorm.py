"""torch.nn.modules.batchnorm: BatchNorm1d/2d/3d, their Lazy variants and SyncBatchNorm on one _NormBase
(affine parameters, running-statistics buffers, torch's state_dict versioning); the math, and the update of
the running statistics, in functional.nn.batch_norm."""

from __future__ import annotations

from ... import _creation
from ..._dtype import int64
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]


class _NormBase(Module):
    """Common state of batch and instance norm: weight/bias (affine) and running_mean, running_var and
    num_batches_tracked buffers (track_running_stats)."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_creation.empty(num_features, **factory_kwargs))
            if bias:
                self.bias = Parameter(_creation.empty(num_features, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", _creation.ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked", _creation.tensor(0, dtype=int64, device=device))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"  # checkpoints before version 2 lack it
            if key not in state_dict:
                nbt = self.num_batches_tracked
                state_dict[key] = (nbt if nbt is not None and nbt.device.type != "meta"
                                   else _creation.tensor(0, dtype=int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _momentum(self):
        """torch's exponential_average_factor; momentum=None is the cumulative average 1 / batches seen,
        kept a tensor so a compiled step does not read it back."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / self.num_batches_tracked
        return factor

    def forward(self, input):
        self._check_input_dim(input)
        factor = self._momentum()
        # evaluation without running statistics normalizes with the batch's
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None,
                            self.running_var if use_stats else None, self.weight, self.bias, bn_training, factor,
                            self.eps)


def _dims(*ok):
    def check(self, input):
        if input.dim() not in ok:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in ok)} input (got {input.dim()}D input)")
    return check


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L); see functional.nn.batch_norm."""

    _check_input_dim = _dims(2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W); see functional.nn.batch_norm."""

    _check_input_dim = _dims(4)


class BatchNorm3d(_BatchNorm):
    """Batch normalization over (N, C, D, H, W); see functional.nn.batch_norm."""

    _check_input_dim = _dims(5)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features (and the parameter and buffer shapes) from the first input's dim 1."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = _creation.tensor(0, dtype=int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                for t in (self.weight, self.bias, self.running_mean, self.running_var):
                    if t is not None:
                        t.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d whose num_features comes from the first input."""

    cls_to_become = BatchNorm1d
    _check_input_dim = _dims(2, 3)


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d whose num_features comes from the first input."""

    cls_to_become = BatchNorm2d
    _check_input_dim = _dims(4)


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d whose num_features comes from the first input."""

    cls_to_become = BatchNorm3d
    _check_input_dim = _dims(5)


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose statistics would be reduced over a process group; with one process (all
    this library runs) it is BatchNorm over inputs of any rank >= 2."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """A copy of `module` with every BatchNorm*d replaced by a SyncBatchNorm sharing its parameters and
        buffers."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
