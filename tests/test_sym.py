"""torch.sym_* on plain Python numbers and 0-dim tensors, and the SymInt/SymFloat/SymBool classes."""

import pytest
import torch

import facade
from tests._compare import same

CASES = [
    ("sym_int", (3.7,)), ("sym_int", (-3.7,)), ("sym_int", (True,)), ("sym_int", ("3",)), ("sym_int", (float("inf"),)),
    ("sym_float", (3,)), ("sym_float", (True,)), ("sym_max", (2, 3.5)), ("sym_max", (3, 2)), ("sym_max", (2.0, 3)),
    ("sym_max", (True, 2)), ("sym_min", (2, 3.5)), ("sym_min", (2, 3)), ("sym_not", (True,)), ("sym_not", (0,)),
    ("sym_ite", (True, 1, 2)), ("sym_ite", (False, "a", "b")), ("sym_ite", (1, 1, 2)), ("sym_ite", (True, 1, 2.0)),
    ("sym_sum", ([1, 2, 3],)), ("sym_sum", ([1, 2.5],)), ("sym_sum", ([],)), ("sym_sum", (1, True)),
    ("sym_sqrt", (4,)), ("sym_sqrt", (2.0,)), ("sym_sqrt", (-1,)), ("sym_fresh_size", (3,)),
]


@pytest.mark.parametrize("name,args", CASES)
def test_plain_values(name, args):
    same(lambda m: getattr(m, name)(*args))


@pytest.mark.parametrize("name,arg", [("sym_int", 3.7), ("sym_float", 3), ("sym_not", True), ("sym_sqrt", 3.7),
                                      ("sym_not", [True, False])])
def test_tensor_arguments(name, arg):
    same(lambda m: getattr(m, name)(m.tensor(arg)))
    same(lambda m: m.sym_max(m.tensor(3), 2))
    same(lambda m: m.sym_ite(m.tensor(True), 1, 2))
    same(lambda m: m.sym_sum([m.tensor(3), m.tensor(3)]))


def test_symbolic_classes():
    for name in ("SymInt", "SymFloat", "SymBool"):
        assert isinstance(getattr(facade, name), type)
        assert not isinstance(3, getattr(facade, name)) and not isinstance(3, getattr(torch, name))
        with pytest.raises(NotImplementedError, match=f"torch.{name}: symbolic shapes are not supported"):
            getattr(facade, name)(3)
