"""DistributedSampler (torch/utils/data/distributed.py): each of `num_replicas` processes reads its
own slice of the (shuffled, padded or truncated) indices."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TypeVar

from ... import Generator, randperm
from .dataset import Dataset
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class DistributedSampler(Sampler[_T_co]):
    """Indices for replica `rank` of `num_replicas`: every `num_replicas`-th index from `rank` on.

    With `shuffle` the order is one randperm seeded by `seed + epoch` (call `set_epoch` each epoch);
    the indices are padded by repeating the first ones to a multiple of `num_replicas`, or, with
    `drop_last`, the tail is dropped instead. `num_replicas` and `rank` default to the world size and
    rank of the initialized process group.
    """

    def __init__(self, dataset: Dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        from ... import distributed as dist  # facade.distributed imports facade.utils

        if num_replicas is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # the largest length that splits evenly: no replica gets padding
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[_T_co]:
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                                 f"({self.num_samples})")
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch that seeds the shuffle: call it before each epoch, or every epoch has the same order."""
        self.epoch = epoch
