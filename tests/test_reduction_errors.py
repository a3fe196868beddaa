"""Bad input to reductions and scans: facade raises torch's exception type with torch's message.

Each case runs on real torch first; its message is the expected one."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

import facade

F32 = np.arange(12, dtype=np.float32).reshape(3, 4)
I64 = np.arange(6).reshape(2, 3)
BOOL = np.array([True, False])
EMPTY = np.zeros(0, np.float32)
EMPTY2 = np.zeros((0, 3), np.float32)

CASES = {
    "mean of int": (lambda m: m.tensor(I64).mean()),
    "mean of bool": (lambda m: m.tensor(BOOL).mean(0)),
    "nanmean of int": (lambda m: m.tensor(I64).nanmean()),
    "sum dim out of range": (lambda m: m.tensor(F32).sum(2)),
    "sum negative dim out of range": (lambda m: m.tensor(F32).sum((0, -3))),
    "sum 0-dim dim 1": (lambda m: m.tensor(1.0).sum(1)),
    "sum repeated dim": (lambda m: m.tensor(F32).sum((0, -2))),
    "count_nonzero repeated dim": (lambda m: m.count_nonzero(m.tensor(F32), (1, 1))),
    "max of empty": (lambda m: m.tensor(EMPTY).max()),
    "min of empty": (lambda m: m.min(m.tensor(EMPTY))),
    "max over empty dim": (lambda m: m.tensor(EMPTY2).max(0)),
    "max over empty negative dim": (lambda m: m.tensor(EMPTY2).max(-2)),
    "max dim out of range": (lambda m: m.tensor(F32).max(3)),
    "amax of empty": (lambda m: m.tensor(EMPTY2).amax()),
    "amax over empty negative dim": (lambda m: m.tensor(EMPTY2).amax(-2)),
    "amin over empty dims": (lambda m: m.amin(m.tensor(EMPTY2), (0, 1))),
    "argmax of empty": (lambda m: m.tensor(EMPTY).argmax()),
    "argmin over empty dim": (lambda m: m.tensor(EMPTY2).argmin(0)),
    "argmax of bool": (lambda m: m.tensor(BOOL).argmax()),
    "aminmax of empty": (lambda m: m.tensor(EMPTY).aminmax()),
    "aminmax over empty dim": (lambda m: m.aminmax(m.tensor(EMPTY2), dim=0)),
    "std of int": (lambda m: m.tensor(I64).std()),
    "var of bool": (lambda m: m.tensor(BOOL).var(0)),
    "var_mean dim out of range": (lambda m: m.var_mean(m.tensor(F32), 5)),
    "norm of int": (lambda m: m.tensor(I64).norm()),
    "nuclear norm of a vector": (lambda m: m.tensor(F32[0]).norm(p="nuc")),
    "nuclear norm of 3-d without dim": (lambda m: m.tensor(F32.reshape(1, 3, 4)).norm(p="nuc")),
    "unknown matrix norm": (lambda m: m.tensor(F32).norm(p="foo")),
    "inf norm of empty": (lambda m: m.tensor(EMPTY).norm(p=math.inf)),
    "-1 norm over empty dim": (lambda m: m.tensor(EMPTY2).norm(p=-1, dim=0)),
    "median of bool": (lambda m: m.tensor(BOOL).median()),
    "median over empty dim": (lambda m: m.tensor(EMPTY2).median(0)),
    "nanmedian over empty negative dim": (lambda m: m.tensor(EMPTY2).nanmedian(-2)),
    "aminmax over empty negative dim": (lambda m: m.tensor(EMPTY2).aminmax(dim=-2)),
    "mode over empty dim": (lambda m: m.tensor(EMPTY).mode()),
    "quantile of empty": (lambda m: m.tensor(EMPTY).quantile(0.5)),
    "quantile of int": (lambda m: m.tensor(I64).quantile(0.5)),
    "quantile q out of range": (lambda m: m.tensor(F32).quantile(1.5)),
    "nanquantile q out of range": (lambda m: m.tensor(F32).nanquantile(-0.5)),
    "quantile q tensor out of range": (lambda m: m.tensor(F32).quantile(m.tensor([0.5, 1.5]))),
    "quantile q 2-d": (lambda m: m.tensor(F32).quantile(m.tensor([[0.5]]))),
    "quantile q dtype": (lambda m: m.tensor(F32).quantile(m.tensor([0.5], dtype=m.float64))),
    "quantile interpolation": (lambda m: m.tensor(F32).quantile(0.5, interpolation="cubic")),
    "cumsum dim out of range": (lambda m: m.tensor(F32).cumsum(-3)),
    "cummax dim out of range": (lambda m: m.tensor(F32).cummax(2)),
    "logcumsumexp of int": (lambda m: m.tensor(I64).logcumsumexp(0)),
    "diff of 0-dim": (lambda m: m.tensor(1.0).diff()),
    "diff negative order": (lambda m: m.tensor(F32).diff(n=-1)),
    "diff prepend rank": (lambda m: m.tensor(F32).diff(prepend=m.tensor([1.0]))),
    "diff prepend shape": (lambda m: m.tensor(F32).diff(prepend=m.zeros(2, 1))),
}


@pytest.mark.parametrize("case", list(CASES))
def test_error_matches_torch(case):
    fn = CASES[case]
    with pytest.raises(Exception) as expected:
        fn(torch)
    with pytest.raises(expected.type, match=re.escape(str(expected.value))):
        fn(facade)

