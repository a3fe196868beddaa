"""torch.utils.data in the main process against real torch: datasets, random_split, default_collate
and default_convert, samplers, DataLoader batches and order (num_workers=0), and the errors for bad
arguments. Worker processes are tested in test_data_workers.py."""

from __future__ import annotations

import math
import warnings
from collections import Counter, OrderedDict, namedtuple

import numpy as np
import pytest
import torch

import facade
from facade.utils import data as F
from tests.test_data_workers import plain

T = torch.utils.data
Point = namedtuple("Point", ["x", "y"])


def both(fn):
    """fn(torch, torch.utils.data) and fn(facade, facade.utils.data) as plain Python, checked equal."""
    expected, got = plain(fn(torch, T)), plain(fn(facade, F))
    assert got == expected
    return got


def same_error(fn, exc, match):
    """torch and facade both raise `exc` with a message matching `match`."""
    for lib, data in ((torch, T), (facade, F)):
        with pytest.raises(exc, match=match):
            fn(lib, data)


class Squares:
    """A map-style dataset without a base class (anything with __getitem__ and __len__ works)."""

    def __init__(self, n, lib):
        self.n, self.lib = n, lib

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return self.lib.tensor([i, i * i])


# ---------------------------------------------------------------------------- datasets

def test_tensor_dataset():
    both(lambda t, d: list(d.TensorDataset(t.arange(6).view(3, 2), t.tensor([1.0, 2.0, 3.0]))))
    both(lambda t, d: d.TensorDataset(t.arange(6).view(3, 2))[1:])
    assert len(F.TensorDataset(facade.zeros(4, 2), facade.zeros(4))) == 4
    same_error(lambda t, d: d.TensorDataset(t.zeros(3), t.zeros(4)), AssertionError, "Size mismatch between tensors")


def test_concat_and_chain_datasets():
    def concat(t, d):
        c = d.ConcatDataset([d.TensorDataset(t.arange(3)), d.TensorDataset(t.arange(10, 12))])
        return [c[i] for i in range(len(c))], c[-1], c[-5], c.cumulative_sizes, len(c + c)

    both(concat)
    same_error(lambda t, d: d.ConcatDataset([d.TensorDataset(t.arange(3))])[-4], ValueError,
               "absolute value of index should not exceed dataset length")
    same_error(lambda t, d: d.ConcatDataset([]), AssertionError, "datasets should not be an empty iterable")

    class Stream(F.IterableDataset):
        def __iter__(self):
            return iter(range(3))

        def __len__(self):
            return 3

    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        F.ConcatDataset([Stream()])
    chain = Stream() + Stream()
    assert isinstance(chain, F.ChainDataset) and list(chain) == [0, 1, 2, 0, 1, 2] and len(chain) == 6
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(F.ChainDataset([F.TensorDataset(facade.arange(2))]))


def test_subset_and_stack_dataset():
    def subset(t, d):
        s = d.Subset(d.TensorDataset(t.arange(10) * 10), [7, 2, 5])
        return [s[i] for i in range(len(s))], s.__getitems__([2, 0]), len(s)

    both(subset)

    def stack(t, d):
        a, b = d.TensorDataset(t.arange(3)), Squares(3, t)
        return (d.StackDataset(a, b)[1], d.StackDataset(x=a, y=b)[2], d.StackDataset(a, b).__getitems__([0, 2]),
                d.StackDataset(x=a, y=b).__getitems__([1]), len(d.StackDataset(a, b)))

    both(stack)
    same_error(lambda t, d: d.StackDataset(d.TensorDataset(t.arange(3)), d.TensorDataset(t.arange(4))), ValueError,
               "Size mismatch between datasets")
    same_error(lambda t, d: d.StackDataset(), ValueError, "At least one dataset should be passed")
    same_error(lambda t, d: d.StackDataset(Squares(2, t), y=Squares(2, t)), ValueError,
               "Supported either ``tuple``- \\(via ``args``\\) or``dict``- \\(via ``kwargs``\\) like input/output, but "
               "both types are given.")

    class Doubled(F.Subset):
        def __getitem__(self, i):
            return 2 * super().__getitem__(i)

    with pytest.raises(NotImplementedError, match="Doubled overrides __getitem__ but not __getitems__"):
        Doubled(F.TensorDataset(facade.arange(3)), [0])


@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (10, [0.3, 0.7]), (11, [0.5, 0.5]), (10, [0.33, 0.33, 0.34]),
                                       (5, [0.1, 0.9]), (30, [0.3, 0.3, 0.4])])
def test_random_split_sizes_and_coverage(n, lengths):
    def sizes(t, d):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            parts = d.random_split(range(n), lengths, generator=t.Generator().manual_seed(0))
        return [len(p) for p in parts], [str(x.message) for x in w]

    both(sizes)
    parts = F.random_split(range(n), lengths, generator=facade.Generator().manual_seed(0))
    assert sorted(i for p in parts for i in p) == list(range(n))
    again = F.random_split(range(n), lengths, generator=facade.Generator().manual_seed(0))
    assert [list(p) for p in parts] == [list(p) for p in again]


def test_random_split_errors_and_default_generator():
    same_error(lambda t, d: d.random_split(range(10), [3, 6]), ValueError,
               "Sum of input lengths does not equal the length of the input dataset!")
    same_error(lambda t, d: d.random_split(range(10), [1.2, -0.2]), ValueError, "Fraction at index 0 is not between 0 "
               "and 1")
    facade.manual_seed(5)
    a = [list(p) for p in F.random_split(range(8), [4, 4])]
    facade.manual_seed(5)
    assert [list(p) for p in F.random_split(range(8), [4, 4])] == a


# ---------------------------------------------------------------------------- collation

def test_default_collate_follows_torchs_rules():
    cases = [
        lambda t: [t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0])],
        lambda t: [t.tensor(1), t.tensor(2)],
        lambda t: [t.from_numpy(np.ones((2, 2), np.float32)), t.from_numpy(np.zeros((2, 2), np.float32))],
        lambda t: [0, 1, 2],
        lambda t: [0.5, 1.5],
        lambda t: [True, False],
        lambda t: ["a", "b"],
        lambda t: [b"x", b"y"],
        lambda t: [np.arange(3, dtype=np.float32), np.ones(3, np.float32)],
        lambda t: [np.int32(3), np.int32(4)],
        lambda t: [np.float16(0.5), np.float16(1.5)],
        lambda t: [np.bool_(True), np.bool_(False)],
        lambda t: [{"a": t.tensor([1]), "b": 1.0, "c": {"d": "x"}}, {"a": t.tensor([2]), "b": 2.0, "c": {"d": "y"}}],
        lambda t: [OrderedDict(z=1, a=2), OrderedDict(z=3, a=4)],
        lambda t: [Point(t.tensor(1.0), "p"), Point(t.tensor(2.0), "q")],
        lambda t: [(1, [2.0, 3.0]), (4, [5.0, 6.0])],
        lambda t: [[t.zeros(2), 1], [t.ones(2), 2]],
        lambda t: [t.zeros(0, 3), t.zeros(0, 3)],
        lambda t: [t.tensor([1, 2], dtype=t.uint8), t.tensor([3, 4], dtype=t.uint8)],
    ]
    for k, case in enumerate(cases):
        expected, got = plain(T.default_collate(case(torch))), plain(F.default_collate(case(facade)))
        assert got == expected, f"case {k}"



def test_collate_of_samples_in_host_memory_stacks_them_without_a_program():
    """Samples that are CPU device arrays (a Dataset's `x[i]`) are stacked with numpy and copied once: torch's batch
    (values, dtype, shape), and no stack program of batch-size arguments to compile; samples that need grad still
    stack with autograd, as torch's do."""
    from facade.compiler import metrics, reset_metrics

    for dtype in ("float32", "int64", "bfloat16", "bool"):
        def samples(t, dtype=dtype):
            x = (t.arange(7 * 5 * 3).view(7, 5, 3) % 4).to(getattr(t, dtype))
            return [x[i] for i in (6, 0, 3, 3, 1)]

        want = T.default_collate(samples(torch))
        rows = samples(facade)
        assert all(r._np is None for r in rows)  # device arrays, not numpy-backed samples
        reset_metrics()
        got = F.default_collate(rows)
        assert metrics().compiles == 0, metrics()
        assert str(got.dtype) == str(want.dtype) and got.float().tolist() == want.float().tolist()
    leaves = [facade.ones(3, requires_grad=True), facade.zeros(3, requires_grad=True)]
    assert F.default_collate(leaves).grad_fn.name() == T.default_collate(
        [torch.ones(3, requires_grad=True), torch.zeros(3, requires_grad=True)]).grad_fn.name() == "StackBackward0"


def test_default_convert_follows_torchs_rules():
    cases = [
        lambda t: np.arange(4),
        lambda t: np.float64(2.5),
        lambda t: {"a": np.ones(2, np.float32), "b": [np.int64(1), "s"]},
        lambda t: Point(np.zeros(1), 3),
        lambda t: (np.ones(1), 2),
        lambda t: np.array(["a", "b"]),
        lambda t: t.tensor([1, 2]),
        lambda t: "text",
        lambda t: 7,
    ]
    for k, case in enumerate(cases):
        expected, got = plain(T.default_convert(case(torch))), plain(F.default_convert(case(facade)))
        assert got == expected, f"case {k}"


def test_collate_errors():
    same_error(lambda t, d: d.default_collate([t.zeros(3), t.zeros(4)]), RuntimeError,
               r"^stack expects each tensor to be equal size, but got \[3\] at entry 0 and \[4\] at entry 1")
    same_error(lambda t, d: d.default_collate([[1, 2], [3]]), RuntimeError,
               "^each element in list of batch should be of equal size$")
    same_error(lambda t, d: d.default_collate([object(), object()]), TypeError,
               r"^default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class "
               r"'object'>$")
    same_error(lambda t, d: d.default_collate([np.array(["a"]), np.array(["b"])]), TypeError,
               r"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <U1")
    same_error(lambda t, d: d.DataLoader([t.zeros(3), t.zeros(4)], batch_size=2).__iter__().__next__(),
               RuntimeError, r"stack expects each tensor to be equal size, but got \[3\] at entry 0 and \[4\] at "
               r"entry 1")


# ---------------------------------------------------------------------------- samplers

@pytest.mark.parametrize("n", [1, 7, 32, 33])
def test_sequential_and_batch_samplers(n):
    both(lambda t, d: list(d.SequentialSampler(range(n))))
    for bs, drop in ((1, False), (3, False), (3, True), (40, False), (40, True)):
        both(lambda t, d, bs=bs, drop=drop: (list(d.BatchSampler(d.SequentialSampler(range(n)), bs, drop)),
                                             len(d.BatchSampler(range(n), bs, drop))))


def test_sampler_argument_errors():
    same_error(lambda t, d: d.BatchSampler(range(3), 0, False), ValueError,
               "batch_size should be a positive integer value, but got batch_size=0")
    same_error(lambda t, d: d.BatchSampler(range(3), True, False), ValueError,
               "batch_size should be a positive integer value, but got batch_size=True")
    same_error(lambda t, d: d.BatchSampler(range(3), 2, 1), ValueError,
               "drop_last should be a boolean value, but got drop_last=1")
    same_error(lambda t, d: d.RandomSampler(range(3), replacement=1), TypeError,
               "replacement should be a boolean value, but got replacement=1")
    same_error(lambda t, d: d.RandomSampler(range(3), num_samples=0), ValueError,
               "num_samples should be a positive integer value, but got num_samples=0")
    same_error(lambda t, d: d.RandomSampler([]), ValueError,
               "num_samples should be a positive integer value, but got num_samples=0")
    same_error(lambda t, d: d.WeightedRandomSampler([1.0, 2.0], 0), ValueError,
               "num_samples should be a positive integer value, but got num_samples=0")
    same_error(lambda t, d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=None), ValueError,
               "replacement should be a boolean value, but got replacement=None")
    same_error(lambda t, d: d.WeightedRandomSampler([[1.0, 2.0]], 2), ValueError,
               r"weights should be a 1d sequence but given weights have shape \(1, 2\)")
    same_error(lambda t, d: d.DistributedSampler(range(4), num_replicas=2, rank=2), ValueError,
               r"Invalid rank 2, rank should be in the interval \[0, 1\]")


@pytest.mark.parametrize("replacement,num_samples", [(False, None), (False, 25), (False, 4), (True, None),
                                                     (True, 70)])
def test_random_sampler(replacement, num_samples):
    """torch draws randperm/randint from the generator; our generator's numbers differ, so the order
    differs, but the sizes, the multiset (without replacement) and reproducibility match."""
    n = 10

    def run(t, d, seed):
        return list(d.RandomSampler(range(n), replacement, num_samples, generator=t.Generator().manual_seed(seed)))

    ref, got = run(torch, T, 0), run(facade, F, 0)
    assert len(got) == len(ref) == len(F.RandomSampler(range(n), replacement, num_samples))
    assert all(isinstance(i, int) and 0 <= i < n for i in got)
    if not replacement:  # whole passes are permutations, the rest is part of one
        assert sorted(Counter(got).values()) == sorted(Counter(ref).values())
        for start in range(0, len(got), n):
            assert len(set(got[start:start + n])) == len(got[start:start + n])
    assert run(facade, F, 0) == got and run(facade, F, 1) != got


def test_random_sampler_without_generator_follows_the_default_seed():
    facade.manual_seed(3)
    a = list(F.RandomSampler(range(20)))
    b = list(F.RandomSampler(range(20)))
    facade.manual_seed(3)
    assert list(F.RandomSampler(range(20))) == a and a != b and sorted(a) == list(range(20))


def test_subset_and_weighted_random_samplers():
    idx = [3, 9, 4, 11]
    got = list(F.SubsetRandomSampler(idx, generator=facade.Generator().manual_seed(0)))
    assert sorted(got) == sorted(idx) and len(F.SubsetRandomSampler(idx)) == 4
    assert list(F.SubsetRandomSampler(idx, generator=facade.Generator().manual_seed(0))) == got

    w = [0.0, 1.0, 3.0, 0.0]
    draws = list(F.WeightedRandomSampler(w, 400, generator=facade.Generator().manual_seed(0)))
    counts = Counter(draws)
    assert len(draws) == 400 and set(counts) == {1, 2} and 0.6 < counts[2] / 400 < 0.9
    once = list(F.WeightedRandomSampler(w, 2, replacement=False, generator=facade.Generator().manual_seed(0)))
    assert sorted(once) == [1, 2]
    sampler = F.WeightedRandomSampler(w, 5)
    assert sampler.weights.dtype == facade.float64 and len(sampler) == 5


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 4, False),
                                                  (11, 4, True)])
def test_distributed_sampler(n, replicas, drop_last):
    for rank in range(replicas):
        both(lambda t, d, rank=rank: (
            list(d.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)),
            len(d.DistributedSampler(range(n), replicas, rank, drop_last=drop_last))))

    def shuffled(lib, d, epoch):
        parts = []
        for rank in range(replicas):
            s = d.DistributedSampler(range(n), replicas, rank, shuffle=True, seed=4, drop_last=drop_last)
            s.set_epoch(epoch)
            parts.append(list(s))
        return parts

    ref, got = shuffled(torch, T, 0), shuffled(facade, F, 0)
    assert [len(p) for p in got] == [len(p) for p in ref]
    flat = [i for p in got for i in p]
    if drop_last:  # disjoint, no padding
        assert len(set(flat)) == len(flat) == replicas * len(got[0])
    else:  # every index at least once; padding repeats the first ones of the permutation
        assert set(flat) == set(range(n)) and len(flat) == replicas * math.ceil(n / replicas)
    assert shuffled(facade, F, 0) == got
    if n > 2:
        assert shuffled(facade, F, 1) != got


def test_distributed_sampler_needs_num_replicas_and_rank():
    """Without them it asks the default process group, which is not initialized here: torch's error."""
    with pytest.raises(ValueError) as want:
        torch.utils.data.DistributedSampler(range(4))
    with pytest.raises(ValueError, match=f"^{want.value}$"):
        F.DistributedSampler(range(4))


# ---------------------------------------------------------------------------- DataLoader (main process)

def _loaders(**kwargs):
    return lambda t, d: list(d.DataLoader(Squares(7, t), **kwargs))


@pytest.mark.parametrize("kwargs", [
    {}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}, {"batch_size": 7},
    {"batch_size": 2, "collate_fn": lambda b: [x.sum() for x in b]},
])
def test_dataloader_batches_equal_torchs(kwargs):
    both(_loaders(**kwargs))
    both(lambda t, d: len(d.DataLoader(Squares(7, t), **kwargs)))


def test_dataloader_with_samplers_equals_torchs():
    both(lambda t, d: list(d.DataLoader(Squares(7, t), batch_sampler=[[3, 1], [0], [6, 5, 4]])))
    both(lambda t, d: list(d.DataLoader(Squares(7, t), sampler=[6, 0, 3], batch_size=2)))
    both(lambda t, d: list(d.DataLoader(Squares(9, t), batch_size=2,
                                        sampler=d.DistributedSampler(range(9), 2, 1, shuffle=False))))
    both(lambda t, d: list(d.DataLoader(d.TensorDataset(t.arange(8.0).view(4, 2), t.arange(4)), batch_size=3)))
    both(lambda t, d: list(d.DataLoader(d.StackDataset(a=Squares(3, t), b=range(3)), batch_size=2)))



def test_tensor_dataset_batches_are_its_rows_gathered_as_torch_stacks_them(monkeypatch):
    """A TensorDataset (or Subsets of one) is batched by one index op per tensor, not by a program per sample and a
    stack of them: torch's batches (values, dtypes, shapes, a list), the last one short; a subclass's own
    __getitem__ is still what builds its samples."""
    def run(t, d):
        ds = d.TensorDataset(t.arange(60, dtype=t.float32).view(20, 3), t.arange(20) % 3, t.arange(20.0).double(),
                             t.from_numpy(np.arange(40, dtype=np.int16).reshape(20, 2)))  # numpy-backed rows too
        sub = d.Subset(d.Subset(ds, list(range(19, -1, -1))), [0, 5, 7, 2, 11, 3, 9])
        loaders = (d.DataLoader(ds, batch_size=4, sampler=[7, 3, 19, 0, 12, 5, 5, 18, 1]),
                   d.DataLoader(sub, batch_size=3))
        return [[[type(batch).__name__] + [(b.tolist(), str(b.dtype), tuple(b.shape)) for b in batch]
                 for batch in loader] for loader in loaders]

    calls = []
    monkeypatch.setattr(F.TensorDataset, "__getitem__",
                        lambda self, i: calls.append(i) or tuple(t[i] for t in self.tensors))
    both(run)
    assert calls == []  # no sample was made one by one

    from facade.compiler import metrics, reset_metrics

    reset_metrics()
    (batch,) = F.DataLoader(F.TensorDataset(facade.from_numpy(np.ones((5, 3), np.float32))), batch_size=5)
    assert batch[0]._np is not None and metrics().compiles == 0  # numpy rows are taken with numpy

    class Doubled(F.TensorDataset):
        def __getitem__(self, i):
            return tuple(2 * t[i] for t in self.tensors)

    (batch,) = F.DataLoader(Doubled(facade.arange(3.0)), batch_size=3)
    assert batch[0].tolist() == [0.0, 2.0, 4.0]


def test_dataloader_shuffle():
    def run(t, d, seed):
        return [b.tolist() for b in d.DataLoader(Squares(9, t), batch_size=4, shuffle=True,
                                                 generator=t.Generator().manual_seed(seed))]

    ref, got = run(torch, T, 0), run(facade, F, 0)
    assert [len(b) for b in got] == [len(b) for b in ref] == [4, 4, 1]
    assert Counter(tuple(r) for b in got for r in b) == Counter(tuple(r) for b in ref for r in b)
    assert run(facade, F, 0) == got and run(facade, F, 1) != got
    facade.manual_seed(0)
    epoch = [b.tolist() for b in F.DataLoader(Squares(9, facade), batch_size=4, shuffle=True)]
    facade.manual_seed(0)
    assert [b.tolist() for b in F.DataLoader(Squares(9, facade), batch_size=4, shuffle=True)] == epoch


def test_dataloader_iterable_dataset():
    class Stream(F.IterableDataset):
        def __init__(self, n, lib):
            self.n, self.lib = n, lib

        def __iter__(self):
            return (self.lib.tensor([i, -i]) for i in range(self.n))

        def __len__(self):
            return self.n

    for kwargs in ({"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None}):
        expected = plain(list(T.DataLoader(_as_torch_stream(Stream, 5), **kwargs)))
        assert plain(list(F.DataLoader(Stream(5, facade), **kwargs))) == expected
        assert len(F.DataLoader(Stream(5, facade), **kwargs)) == len(T.DataLoader(_as_torch_stream(Stream, 5),
                                                                                  **kwargs))


def _as_torch_stream(cls, n):
    """The same stream as a torch IterableDataset (torch checks the base class)."""
    class TorchStream(T.IterableDataset):
        def __iter__(self):
            return iter(cls(n, torch))

        def __len__(self):
            return n

    return TorchStream()


def test_pin_memory_without_accelerator_warns_like_torch():
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found, then "
                                         "device pinned memory won't be used."):
        batches = list(F.DataLoader(Squares(3, facade), batch_size=2, pin_memory=True))
    assert plain(batches) == plain(list(T.DataLoader(Squares(3, torch), batch_size=2)))


def test_dataloader_argument_errors():
    same_error(lambda t, d: d.DataLoader(Squares(4, t), batch_size=2, batch_sampler=[[0]]), ValueError,
               "^batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), shuffle=True, batch_sampler=[[0]]), ValueError,
               "batch_sampler option is mutually exclusive")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), sampler=[0], shuffle=True), ValueError,
               "^sampler option is mutually exclusive with shuffle$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), batch_size=None, drop_last=True), ValueError,
               "^batch_size=None option disables auto-batching and is mutually exclusive with drop_last$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), num_workers=-1), ValueError,
               "^num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), timeout=-1), ValueError,
               "^timeout option should be non-negative$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), prefetch_factor=2), ValueError,
               r"^prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
               r"multiprocessing, otherwise set prefetch_factor to None.$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), num_workers=1, prefetch_factor=-1), ValueError,
               "^prefetch_factor option should be non-negative$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), persistent_workers=True), ValueError,
               "^persistent_workers option needs num_workers > 0$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), multiprocessing_context="fork"), ValueError,
               r"^multiprocessing_context can only be used with multi-process loading \(num_workers > 0\), but got "
               r"num_workers=0$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), num_workers=1, multiprocessing_context="thread"), ValueError,
               r"^multiprocessing_context option should specify a valid start method in \[.*\], but got "
               r"multiprocessing_context='thread'$")
    same_error(lambda t, d: d.DataLoader(Squares(4, t), num_workers=1, multiprocessing_context=3), TypeError,
               "^multiprocessing_context option should be a valid context object or a string specifying the start "
               "method, but got multiprocessing_context=3$")
    same_error(lambda t, d: iter(d.DataLoader(Squares(4, t), timeout=1)), AssertionError,
               "^_SingleProcessDataLoaderIter requires timeout == 0$")

    def after_init(t, d):
        loader = d.DataLoader(Squares(4, t))
        loader.batch_size = 2

    same_error(after_init, ValueError, "^batch_size attribute should not be set after DataLoader is initialized$")

    class Stream(F.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    for kwargs, what in (({"shuffle": True}, "shuffle option, but got shuffle=True"),
                         ({"sampler": [0]}, r"sampler option, but got sampler=\[0\]"),
                         ({"batch_sampler": [[0]]}, r"batch_sampler option, but got batch_sampler=\[\[0\]\]")):
        with pytest.raises(ValueError, match=f"DataLoader with IterableDataset: expected unspecified {what}"):
            F.DataLoader(Stream(), **kwargs)


def test_worker_info_is_none_in_the_main_process():
    assert F.get_worker_info() is None and T.get_worker_info() is None


def test_module_layout_is_torchs():
    from facade.utils.data import dataloader, dataset, distributed, sampler
    from facade.utils.data._utils import collate, worker

    assert facade.utils.data.DataLoader is dataloader.DataLoader
    assert F.RandomSampler is sampler.RandomSampler and F.BatchSampler is sampler.BatchSampler
    assert F.TensorDataset is dataset.TensorDataset and F.DistributedSampler is distributed.DistributedSampler
    assert F.default_collate is collate.default_collate and F.get_worker_info is worker.get_worker_info
    assert sorted(set(T.__all__) - set(F.__all__)) == [
        "DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe", "argument_validation", "functional_datapipe",
        "guaranteed_datapipes_determinism", "non_deterministic", "runtime_validation", "runtime_validation_disabled"]
