"""torch.storage: Tensor.storage()/untyped_storage()/storage_type(), TypedStorage, UntypedStorage and the legacy
FloatStorage & co., against real torch."""

import warnings

import pytest
import torch

import facade
import facade.storage as FS
from tests._compare import same

LEGACY = ["FloatStorage", "DoubleStorage", "LongStorage", "IntStorage", "ShortStorage", "CharStorage",
          "ByteStorage", "BoolStorage", "HalfStorage", "BFloat16Storage"]


def _views(m):
    base = m.arange(6.0).reshape(2, 3)
    return base, base[1], base.t()


@pytest.mark.parametrize("which", [0, 1, 2])
def test_storage_of_tensor_and_views(which):
    same(lambda m: _views(m)[which].storage().tolist())
    same(lambda m: repr(_views(m)[which].storage()))
    same(lambda m: repr(_views(m)[which].untyped_storage()))
    for attr in ("size", "nbytes", "element_size"):
        same(lambda m, attr=attr: getattr(_views(m)[which].storage(), attr)())
        same(lambda m, attr=attr: getattr(_views(m)[which].untyped_storage(), attr)())
    same(lambda m: _views(m)[which].untyped_storage().tolist())
    same(lambda m: (str(_views(m)[which].storage().dtype), str(_views(m)[which].storage().device)))
    same(lambda m: len(_views(m)[which].storage()))
    same(lambda m: _views(m)[which].storage().data_ptr() == _views(m)[0].data_ptr())


def test_shared_identity_and_writes():
    def run(m):
        base, row, tt = _views(m)
        s = row.storage()
        s[0] = 10.0
        s[4:6] = 7.0
        return (base.clone(), row.untyped_storage().data_ptr() == tt.untyped_storage().data_ptr(),
                s.untyped() is base.untyped_storage(), s[1], s.type(), m.is_storage(s),
                m.is_storage(base), isinstance(s, m.FloatStorage), isinstance(s, m.LongStorage))
    same(run)
    same(lambda m: m.arange(4).storage().fill_(3).tolist())
    same(lambda m: repr(m.arange(3.0).storage().long()))


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_classes(name):
    same(lambda m: repr(getattr(m, name)([1, 0, 1])))
    same(lambda m: getattr(m, name)(4).size())
    same(lambda m: str(getattr(m, name).dtype))
    dt = str(getattr(torch, name.replace("Storage", "Tensor"))().dtype)[6:]
    assert FS.tensor_storage_type(facade.ones(2, dtype=getattr(facade, dt))) is getattr(facade, name)
    assert torch.ones(2, dtype=getattr(torch, dt)).storage_type() is getattr(torch, name)
    same(lambda m: getattr(m, name)(2, dtype=m.float32))


def test_constructors_and_errors():
    same(lambda m: repr(m.TypedStorage([1, 2], dtype=m.int64)))
    same(lambda m: repr(m.UntypedStorage([1, 2, 3])))
    same(lambda m: repr(m.FloatStorage(0)))
    same(lambda m: m.TypedStorage(wrap_storage=m.arange(6.0).untyped_storage(), dtype=m.int32).size())
    same(lambda m: m.TypedStorage(wrap_storage=m.arange(6.0).untyped_storage(), dtype=m.int32)[1])
    same(lambda m: m.TypedStorage(3, wrap_storage=m.arange(6.0).untyped_storage(), dtype=m.float32))
    same(lambda m: m.FloatStorage("a"))
    same(lambda m: m.UntypedStorage([1.5]))
    same(lambda m: m.arange(6.0).storage()[10])


def test_deprecation_warning_once(monkeypatch):
    for m, reset in ((torch, torch.storage._reset_warn_typed_storage_removal),
                     (facade, FS._reset_warn_typed_storage_removal)):
        reset()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.ones(2).storage()
            m.ones(2).storage()
            m.FloatStorage(2)
        assert [str(w.message) for w in caught] == [
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
            "storage class. This should only matter to you if you are using storages directly.  To access "
            "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()"]
        assert caught[0].filename == __file__
    facade.ones(2).untyped_storage()  # no warning: not a TypedStorage
