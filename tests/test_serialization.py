"""torch.save / torch.load in PyTorch's zip format, checked against real torch in the same process: files
written here load in torch and files torch writes load here (values, dtypes, shapes, aliasing); the
weights-only unpickler refuses malicious pickles without running them; damaged files give clear errors;
writes are atomic; safetensors and torch.hub's cache."""

from __future__ import annotations

import collections
import io
import os
import pathlib
import pickle
import signal
import subprocess
import sys
import textwrap
import warnings
import zipfile

import numpy as np
import pytest
import torch

import facade
from facade import _pickling, _safetensors, _zipformat

from ._compare import host

ROOT = pathlib.Path(__file__).resolve().parents[1]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]


def _values(name, shape, seed=0):
    rng = np.random.default_rng(seed)
    if name == "bool":
        return rng.random(shape) > 0.5
    if name in ("complex64", "complex128"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(name)
    if name.startswith(("int", "uint")):
        return rng.integers(-100 if name != "uint8" else 0, 100, shape).astype(name)
    return rng.standard_normal(shape).astype(np.float32)


def make(lib, dtype, shape, seed=0):
    """The same tensor in torch or facade (bfloat16 built from float32 values)."""
    return lib.tensor(_values(dtype, shape, seed)).to(getattr(lib, dtype))


def same_tensor(t, f, what="tensor"):
    """Two tensors (torch's or facade's, either side) agree in dtype, shape, device, requires_grad, values."""
    for x in (t, f):
        assert isinstance(x, (torch.Tensor, facade.Tensor)), f"{what}: got {type(x).__name__}"
    assert (str(f.dtype), tuple(f.shape), str(f.device), f.requires_grad) == \
        (str(t.dtype), tuple(t.shape), str(t.device), t.requires_grad), what
    if t.device.type != "meta":
        np.testing.assert_array_equal(host(f), host(t), err_msg=what)


def same_tree(t, f, what="obj"):
    """Two loaded objects agree: containers recursively, tensors by same_tensor."""
    if isinstance(t, (torch.Tensor, facade.Tensor)):
        same_tensor(t, f, what)
    elif isinstance(t, dict):
        assert type(f).__name__ == type(t).__name__ and list(f) == list(t), f"{what}: {list(f)} vs {list(t)}"
        for k in t:
            same_tree(t[k], f[k], f"{what}[{k!r}]")
    elif isinstance(t, (list, tuple)) and not isinstance(t, torch.Size):
        assert type(f).__name__ == type(t).__name__ and len(f) == len(t), what
        for i, (a, b) in enumerate(zip(t, f)):
            same_tree(a, b, f"{what}[{i}]")
    elif isinstance(t, (torch.dtype, torch.device, torch.Size, torch.layout, facade.dtype, facade.device, facade.Size,
                        facade.layout)):
        assert type(f).__name__ == type(t).__name__ and str(f) == str(t), f"{what}: {f!r} vs {t!r}"
    else:
        assert type(f) is type(t) and f == t, f"{what}: {f!r} vs {t!r}"


def rewrite(data: bytes, name: str, fn) -> bytes:
    """A copy of a checkpoint archive with record `name` (below the top folder) replaced by fn(old bytes)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.split("/", 1)[1] == name:
                body = fn(body)
                if body is None:
                    continue
            w.writestr(info.filename, body)
    return out.getvalue()


def payload_start(data: bytes, info: zipfile.ZipInfo) -> int:
    """Where a record's bytes start (its local header's name and extra field lengths, not the central one's)."""
    h = info.header_offset
    return h + 30 + int.from_bytes(data[h + 26:h + 28], "little") + int.from_bytes(data[h + 28:h + 30], "little")


def checkpoint_with_pickle(pkl: bytes) -> bytes:
    """A checkpoint archive whose data.pkl is `pkl`."""
    buf = io.BytesIO()
    facade.save(0, buf)
    return rewrite(buf.getvalue(), "data.pkl", lambda _: pkl)


def state(lib):
    """A state dict with views, a tied tensor, requires_grad, a 0-d tensor, an empty one and _metadata."""
    w = make(lib, "float32", (4, 6), 1)
    sd = collections.OrderedDict()
    sd["w"] = w
    sd["w_t"] = w.t()  # transposed view
    sd["rows"] = w[1:3]  # offset view
    sd["cols"] = w[:, 1::2]  # strided view
    sd["tied"] = w  # the same object again
    sd["b"] = make(lib, "float64", (6,), 2).requires_grad_()
    sd["scalar"] = lib.tensor(3, dtype=lib.int64)
    sd["empty"] = lib.zeros(0, 3)
    sd["half"] = make(lib, "bfloat16", (2, 3), 3)
    sd._metadata = collections.OrderedDict({"": {"version": 1}})
    return sd


def saved(lib, obj, **kw) -> bytes:
    buf = io.BytesIO()
    lib.save(obj, buf, **kw)
    return buf.getvalue()


def check_aliasing(t_sd, f_sd):
    """facade's loaded views read the base's memory, as torch's do: same offsets/strides, writes show."""
    for k in ("w_t", "rows", "cols"):
        assert f_sd[k].storage_offset() == t_sd[k].storage_offset(), k
        assert f_sd[k].stride() == t_sd[k].stride(), k
    assert f_sd["tied"] is f_sd["w"]
    with facade.no_grad():
        f_sd["w"][2, 3] = 100.0
        f_sd["cols"][0, 0] = -7.0  # cols[0, 0] is w[0, 1]
    assert f_sd["w_t"][3, 2].item() == 100.0 and f_sd["rows"][1, 3].item() == 100.0
    assert f_sd["w"][0, 1].item() == -7.0


# ---------------------------------------------------------------------------- round trips and interop


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3, 4)])
def test_every_dtype_both_ways(dtype, shape):
    t_obj = {"x": make(torch, dtype, shape)}
    t_obj["list"] = [t_obj["x"][..., :1] if shape else t_obj["x"], 1.5]
    t_obj["n"] = 7
    f_obj = {"x": make(facade, dtype, shape)}
    f_obj["list"] = [f_obj["x"][..., :1] if shape else f_obj["x"], 1.5]
    f_obj["n"] = 7
    same_tree(torch.load(io.BytesIO(saved(facade, f_obj))), f_obj)  # written here, read by torch
    same_tree(t_obj, facade.load(io.BytesIO(saved(torch, t_obj))))  # written by torch, read here
    same_tree(t_obj, facade.load(io.BytesIO(saved(facade, f_obj))))  # round trip here


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                   "float8_e5m2fnuz"])
def test_dtypes_without_a_legacy_storage_class_both_ways(dtype):
    """torch writes these as an UntypedStorage of bytes rebuilt by _rebuild_tensor_v3(..., dtype)."""
    def obj(lib):
        x = lib.arange(12).reshape(3, 4).to(getattr(lib, dtype))
        return {"x": x, "view": x[1:, ::2]}

    def values(t):  # numpy has no float8, torch no uint64 -> numpy
        lib = torch if isinstance(t, torch.Tensor) else facade
        return t.to(lib.float64 if "float" in dtype else lib.int64).tolist()

    for ref, got in ((obj(torch), facade.load(io.BytesIO(saved(torch, obj(torch))))),
                     (torch.load(io.BytesIO(saved(facade, obj(facade)))), obj(facade))):
        for k in ("x", "view"):
            assert (str(got[k].dtype), tuple(got[k].shape)) == (str(ref[k].dtype), tuple(ref[k].shape))
            assert values(got[k]) == values(ref[k])


def test_state_dict_written_here_loads_in_torch_with_aliasing():
    t_sd = torch.load(io.BytesIO(saved(facade, state(facade))))  # weights_only=True, torch's default
    same_tree(state(torch), t_sd)
    assert t_sd._metadata == {"": {"version": 1}}
    ptr = t_sd["w"].untyped_storage().data_ptr()
    assert all(t_sd[k].untyped_storage().data_ptr() == ptr for k in ("w_t", "rows", "cols", "tied"))
    assert t_sd["tied"] is t_sd["w"]
    ref = state(torch)
    for k in ("w_t", "rows", "cols"):
        assert (t_sd[k].storage_offset(), t_sd[k].stride()) == (ref[k].storage_offset(), ref[k].stride()), k


def test_state_dict_written_by_torch_loads_here_with_aliasing():
    t_sd = state(torch)
    f_sd = facade.load(io.BytesIO(saved(torch, t_sd)))
    same_tree(t_sd, f_sd)
    assert f_sd._metadata == {"": {"version": 1}}
    check_aliasing(t_sd, f_sd)


def test_round_trip_here_keeps_aliasing_and_leafness():
    f_sd = facade.load(io.BytesIO(saved(facade, state(facade))))
    same_tree(state(torch), f_sd)
    check_aliasing(state(torch), f_sd)
    assert f_sd["b"].is_leaf and f_sd["b"].requires_grad


def test_view_saved_without_its_base_keeps_the_whole_storage():
    def view(lib):
        return make(lib, "float32", (4, 6), 1)[1:, ::2]

    t = torch.load(io.BytesIO(saved(facade, view(facade))))
    same_tensor(view(torch), t)
    assert (t.untyped_storage().nbytes(), t.storage_offset(), t.stride()) == (96, 6, (6, 2))
    f = facade.load(io.BytesIO(saved(torch, view(torch))))
    same_tensor(view(torch), f)
    assert (f.storage_offset(), f.stride()) == (6, (6, 2))


def test_pickle_bytes_identical_to_torch():
    def data_pkl(b):
        z = zipfile.ZipFile(io.BytesIO(b))
        return z.read(z.namelist()[0])

    assert data_pkl(saved(facade, state(facade))) == data_pkl(saved(torch, state(torch)))


def test_archive_layout_matches_torch(tmp_path):
    facade.save(state(facade), tmp_path / "mine.pt")
    torch.save(state(torch), tmp_path / "ref.pt")
    mine, ref = (zipfile.ZipFile(tmp_path / n).infolist() for n in ("mine.pt", "ref.pt"))
    assert [i.filename.replace("mine/", "") for i in mine] == [i.filename.replace("ref/", "") for i in ref]
    assert [(i.header_offset, i.file_size, i.flag_bits) for i in mine] == \
        [(i.header_offset, i.file_size, i.flag_bits) for i in ref]
    data = (tmp_path / "mine.pt").read_bytes()
    assert all(payload_start(data, i) % 64 == 0 for i in mine)


def test_torch_mmap_load_computes_our_offsets(tmp_path, monkeypatch):
    from torch.utils.serialization import config

    facade.save(state(facade), tmp_path / "m.pt")
    monkeypatch.setenv("TORCH_SERIALIZATION_DEBUG", "1")  # torch asserts each computed offset against the zip
    with config.patch({"load.calculate_storage_offsets": True}):  # monkeypatch's undo deletes torch's option
        same_tree(state(torch), torch.load(tmp_path / "m.pt", mmap=True))


def test_containers_numbers_strings_and_torch_objects():
    def obj(lib):
        return {"t": (1, 2.5, -3, 2**70, True, None, "s", b"bytes", bytearray(b"ba"), 1 + 2j),
                "set": {1, 2}, "list": [[], {}, ()], "od": collections.OrderedDict(a=lib.ones(2)),
                "counter": collections.Counter("aab"), "dtype": lib.bfloat16, "device": lib.device("cpu"),
                "cuda_device": lib.device("cuda", 1), "size": lib.Size([2, 3]), "x": lib.arange(3),
                "layouts": [lib.strided, lib.sparse_coo]}

    same_tree(torch.load(io.BytesIO(saved(facade, obj(facade)))), obj(facade))
    same_tree(obj(torch), facade.load(io.BytesIO(saved(torch, obj(torch)))))


def test_paths_pathlib_and_file_objects(tmp_path):
    x = make(facade, "float32", (3,))
    facade.save(x, str(tmp_path / "a.pt"))
    facade.save(x, tmp_path / "b.pt")
    with open(tmp_path / "c.pt", "wb") as fh:
        facade.save(x, fh)
    for n in ("a.pt", "b.pt", "c.pt"):
        same_tensor(torch.load(tmp_path / n), facade.load(tmp_path / n))
        with open(tmp_path / n, "rb") as fh:
            same_tensor(torch.load(tmp_path / n), facade.load(fh))
    assert zipfile.ZipFile(tmp_path / "b.pt").namelist()[0] == "b/data.pkl"


def test_parameters_from_torch_load_as_leaves_requiring_grad():
    p = torch.nn.Parameter(torch.arange(4.0))
    sd = {"p": p, "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False)}
    f = facade.load(io.BytesIO(saved(torch, sd)))
    assert f["p"].requires_grad and f["p"].is_leaf and not f["frozen"].requires_grad
    np.testing.assert_array_equal(f["p"].detach().numpy(), np.arange(4.0, dtype=np.float32))
    cls = _pickling.parameter_class()
    if cls is not None:  # once facade.nn exists, parameters come back as facade's Parameter
        assert isinstance(f["p"], cls)


def test_tensor_python_attributes_travel_both_ways():
    t = torch.ones(2)
    t.note = "hi"
    assert facade.load(io.BytesIO(saved(torch, t))).note == "hi"
    f = facade.ones(2)
    f.note = "hi"
    assert torch.load(io.BytesIO(saved(facade, f))).note == "hi"


def test_meta_tensors_both_ways():
    f = facade.load(io.BytesIO(saved(torch, torch.empty(2, 3, device="meta"))))
    assert f.device.type == "meta" and tuple(f.shape) == (2, 3)
    t = torch.load(io.BytesIO(saved(facade, facade.empty(4, device="meta", dtype=facade.float16))))
    assert t.device.type == "meta" and t.shape == (4,) and t.dtype == torch.float16


def test_optimizer_state_dict_from_torch_and_back():
    lin = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(lin.parameters(), lr=0.1)
    lin(torch.ones(4, 3)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    f = facade.load(io.BytesIO(saved(torch, sd)))
    same_tree(sd, f)
    back = torch.load(io.BytesIO(saved(facade, f)))
    same_tree(sd, back)
    opt2 = torch.optim.Adam(lin.parameters(), lr=0.1)
    opt2.load_state_dict(back)  # torch continues from state that went through facade
    assert opt2.state_dict()["state"][0]["step"] == sd["state"][0]["step"]


def test_module_state_dict_from_torch_keeps_metadata():
    sd = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)).state_dict()
    f = facade.load(io.BytesIO(saved(torch, sd)))
    same_tree(sd, f)
    assert f._metadata == sd._metadata


def test_conj_and_neg_bits_from_torch_are_resolved():
    x = torch.tensor([1 + 2j, 3 - 1j])
    sd = {"conj": x.conj(), "neg": torch._neg_view(torch.tensor([1.0, -2.0]))}
    assert sd["conj"].is_conj() and sd["neg"].is_neg()
    f = facade.load(io.BytesIO(saved(torch, sd)))
    same_tree({k: v.resolve_conj().resolve_neg() for k, v in sd.items()}, f)


def test_pickle_protocol_4_round_trip():
    x = make(facade, "float32", (2, 2))
    out = facade.load(io.BytesIO(saved(facade, {"x": x}, pickle_protocol=4)))
    same_tensor(make(torch, "float32", (2, 2)), out["x"])


def test_big_endian_checkpoint(tmp_path):
    """A file whose byteorder record says big: torch and facade both swap the bytes back."""
    sd = {"f": make(torch, "float32", (5,)), "c": make(torch, "complex128", (2,)), "h": make(torch, "bfloat16", (3,))}
    data = saved(torch, sd)
    keys = {"f": "0", "c": "1", "h": "2"}
    sizes = {"f": 4, "c": 8, "h": 2}
    for name, key in keys.items():
        data = rewrite(data, f"data/{key}", lambda b, n=name: np.frombuffer(b, f"u{sizes[n]}").byteswap().tobytes())
    data = rewrite(data, "byteorder", lambda _: b"big")
    same_tree(torch.load(io.BytesIO(data)), facade.load(io.BytesIO(data)))
    same_tree(sd, facade.load(io.BytesIO(data)))


def test_zip64_records_read_by_torch_and_here(monkeypatch):
    monkeypatch.setattr(_zipformat, "_LIM", 100)  # every size/offset past 100 bytes takes the zip64 path
    f_sd = state(facade)
    data = saved(facade, f_sd)
    assert any(i.extra.startswith(b"\x01\x00") for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    same_tree(state(torch), torch.load(io.BytesIO(data)))
    same_tree(state(torch), facade.load(io.BytesIO(data)))


def test_torch_only_dtypes_and_quantized_give_clear_errors():
    with pytest.raises(RuntimeError, match="dtype torch.complex32, which facade does not have"):
        facade.load(io.BytesIO(saved(torch, torch.ones(2, dtype=torch.complex32))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # quantized tensors are deprecated in torch
        q = torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.quint8)
    with pytest.raises(RuntimeError, match="quantized"):
        facade.load(io.BytesIO(saved(torch, q)), weights_only=False)


def test_facade_never_imports_torch(tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "t.pt")
    code = textwrap.dedent(f"""
        import sys, facade
        sd = facade.load({str(tmp_path / 't.pt')!r})
        facade.save(sd, {str(tmp_path / 'u.pt')!r})
        facade.load({str(tmp_path / 'u.pt')!r}, weights_only=False)
        assert 'torch' not in sys.modules, 'facade imported real torch'
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"})


# ---------------------------------------------------------------------------- map_location and mmap


def cuda_checkpoint():
    """A checkpoint whose storage is tagged 'cuda:0' (written here, then retagged: no GPU is needed)."""
    data = saved(facade, {"x": make(facade, "float32", (3,))})
    return rewrite(data, "data.pkl", lambda b: b.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0"))


def test_cuda_checkpoint_without_gpu_gives_torchs_error():
    data = cuda_checkpoint()
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(data))
    with pytest.raises(RuntimeError) as ours:
        facade.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)
    assert "torch.cuda.is_available() is False" in str(ours.value)


@pytest.mark.parametrize("map_location", ["cpu", "string_device", "device", "dict", "callable", "callable_none"])
def test_map_location_forms(map_location):
    data = cuda_checkpoint() if map_location != "callable_none" else saved(facade, {"x": make(facade, "float32", (3,))})
    seen = []

    def keep(storage, location):
        seen.append(location)
        return storage

    ml = {"cpu": "cpu", "string_device": "cpu", "device": facade.device("cpu"), "dict": {"cuda:0": "cpu"},
          "callable": keep, "callable_none": lambda s, loc: None}[map_location]
    out = facade.load(io.BytesIO(data), map_location=ml)
    same_tensor(make(torch, "float32", (3,)), out["x"])
    if map_location == "callable":
        assert seen == ["cuda:0"]


def test_map_location_meta_and_unknown_tags():
    data = saved(facade, {"x": make(facade, "float32", (2, 3))})
    out = facade.load(io.BytesIO(data), map_location="meta")
    assert out["x"].device.type == "meta" and tuple(out["x"].shape) == (2, 3)
    xla = rewrite(data, "data.pkl", lambda b: b.replace(b"X\x03\x00\x00\x00cpu", b"X\x05\x00\x00\x00xla:0"))
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(xla))
    with pytest.raises(RuntimeError) as ours:
        facade.load(io.BytesIO(xla))
    assert str(ours.value) == str(theirs.value)


def test_mmap_maps_the_file(tmp_path):
    t_sd = state(torch)
    torch.save(t_sd, tmp_path / "m.pt")
    f_sd = facade.load(tmp_path / "m.pt", mmap=True)
    same_tree(t_sd, f_sd)
    check_aliasing(t_sd, f_sd)
    torch.save(t_sd, tmp_path / "m.pt")  # copy-on-write mapping: our writes never reached the file
    same_tree(t_sd, torch.load(tmp_path / "m.pt"))


def test_mmap_errors(tmp_path):
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        facade.load(io.BytesIO(saved(facade, facade.ones(1))), mmap=True)
    torch.save(torch.ones(1), tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
        facade.load(str(tmp_path / "legacy.pt"), mmap=True)


# ---------------------------------------------------------------------------- weights_only and malicious pickles


class Probe:
    """An arbitrary class: creating it leaves a file behind."""

    def __init__(self, path):
        pathlib.Path(path).touch()

    def __reduce__(self):
        return (Probe, (self.path,))


class _Reduce:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


def malicious(kind, probe, tmp_path):
    """Pickle bytes whose loading would create `probe`."""
    p = str(probe)
    if kind == "os.system":
        return pickle.dumps(_Reduce(os.system, (f"touch {p}",)), protocol=2)
    if kind == "eval":
        return pickle.dumps(_Reduce(eval, (f"open({p!r}, 'w').close()",)), protocol=2)
    if kind == "exec":
        return pickle.dumps(_Reduce(exec, (f"open({p!r}, 'w').close()",)), protocol=2)
    if kind == "subprocess.Popen":
        return pickle.dumps(_Reduce(subprocess.Popen, (["touch", p],)), protocol=2)
    if kind == "builtins.getattr":  # getattr(__import__('os'), 'system')('touch probe')
        return (b"\x80\x02cbuiltins\ngetattr\n(cbuiltins\n__import__\n(X\x02\x00\x00\x00ostRX\x06\x00\x00\x00"
                b"systemtR(X" + len(f"touch {p}").to_bytes(4, "little") + f"touch {p}".encode() + b"tR.")
    if kind == "importlib.import_module":  # importing this module creates the probe
        (tmp_path / "probe_mod.py").write_text(f"open({p!r}, 'w').close()\n")
        sys.path.insert(0, str(tmp_path))
        return pickle.dumps(_Reduce(__import__("importlib").import_module, ("probe_mod",)), protocol=2)
    if kind == "arbitrary class":
        obj = Probe.__new__(Probe)
        obj.path = p
        return pickle.dumps(obj, protocol=2)
    raise AssertionError(kind)


MALICIOUS = ["os.system", "eval", "exec", "subprocess.Popen", "builtins.getattr", "importlib.import_module",
             "arbitrary class"]
NAMED = {"os.system": "posix.system", "eval": "GLOBAL eval", "exec": "GLOBAL exec",
         "subprocess.Popen": "Popen", "builtins.getattr": "GLOBAL getattr",
         "importlib.import_module": "GLOBAL importlib.import_module",
         "arbitrary class": "GLOBAL tests.test_serialization.Probe"}


@pytest.mark.parametrize("kind", MALICIOUS)
def test_malicious_pickle_refused_and_nothing_runs(kind, tmp_path):
    probe = tmp_path / "probe"
    data = checkpoint_with_pickle(malicious(kind, probe, tmp_path))
    try:
        with pytest.raises(pickle.UnpicklingError) as ours:
            facade.load(io.BytesIO(data))
        assert not probe.exists(), "the payload ran"
        assert NAMED[kind] in str(ours.value)
        with pytest.raises(pickle.UnpicklingError) as theirs:
            torch.load(io.BytesIO(data))
        assert str(ours.value) == str(theirs.value)  # torch's message, word for word
        assert not probe.exists()
        assert "probe_mod" not in sys.modules
    finally:
        if str(tmp_path) in sys.path:
            sys.path.remove(str(tmp_path))


def test_weights_only_false_runs_arbitrary_pickles(tmp_path):
    probe = tmp_path / "probe"
    facade.load(io.BytesIO(checkpoint_with_pickle(malicious("arbitrary class", probe, tmp_path))), weights_only=False)
    assert probe.exists()


def test_unsafe_globals_listed_without_running(tmp_path):
    data = checkpoint_with_pickle(malicious("eval", tmp_path / "p", tmp_path))
    assert facade.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == ["builtins.eval"]
    assert facade.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(saved(facade, state(facade)))) == []


class Point:
    def __init__(self, x):
        self.x = x


def test_safe_globals_allow_listed_classes():
    data = saved(facade, {"p": Point(facade.ones(2))})
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL tests.test_serialization.Point was not an allowed"):
        facade.load(io.BytesIO(data))
    with facade.serialization.safe_globals([Point]):
        assert facade.serialization.get_safe_globals() == [Point]
        out = facade.load(io.BytesIO(data))
    assert isinstance(out["p"], Point) and out["p"].x.tolist() == [1.0, 1.0]
    assert facade.serialization.get_safe_globals() == []
    facade.serialization.add_safe_globals([(Point, "tests.test_serialization.Point")])
    try:
        assert isinstance(facade.load(io.BytesIO(data))["p"], Point)
    finally:
        facade.serialization.clear_safe_globals()
    assert facade.serialization.get_safe_globals() == []


def test_blocked_modules_stay_blocked_even_if_allow_listed():
    data = checkpoint_with_pickle(pickle.dumps(_Reduce(os.getcwd, ()), protocol=2))
    with facade.serialization.safe_globals([os.getcwd]):
        with pytest.raises(pickle.UnpicklingError, match="whose module posix is blocked"):
            facade.load(io.BytesIO(data))


def test_numpy_arrays_need_weights_only_false():
    data = saved(facade, {"a": np.arange(3)})
    with pytest.raises(pickle.UnpicklingError) as ours:
        facade.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)
    assert "weights_only` set to `False` will likely succeed" in str(ours.value)
    np.testing.assert_array_equal(facade.load(io.BytesIO(data), weights_only=False)["a"], np.arange(3))


def test_crafted_pickle_cannot_write_into_non_containers():
    # SETITEMS on a tensor: only dict/OrderedDict/Counter may receive items
    evil = rewrite(saved(facade, facade.ones(1)), "data.pkl", lambda b: b[:-1] + b"(X\x01\x00\x00\x00kK\x01u.")
    with pytest.raises(pickle.UnpicklingError, match="Can only SETITEMS for dict"):
        facade.load(io.BytesIO(evil))


def test_out_of_bounds_geometry_refused():
    data = saved(facade, facade.arange(4.0))
    evil = rewrite(data, "data.pkl", lambda b: b.replace(b"K\x04\x85", b"K\x09\x85", 1))
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        facade.load(io.BytesIO(evil))


def test_env_vars_force_weights_only(monkeypatch):
    data = saved(facade, {"a": np.arange(3)})
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        facade.load(io.BytesIO(data), weights_only=False)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or"):
        facade.load(io.BytesIO(data))
    monkeypatch.delenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD")
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
        out = facade.load(io.BytesIO(data))
    np.testing.assert_array_equal(out["a"], np.arange(3))
    with pytest.raises(pickle.UnpicklingError):  # an explicit weights_only=True is not overridden
        facade.load(io.BytesIO(data), weights_only=True)


def test_pickle_module_with_weights_only_refused():
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        facade.load(io.BytesIO(saved(facade, 1)), pickle_module=pickle)
    assert facade.load(io.BytesIO(saved(facade, 1)), pickle_module=pickle, weights_only=False) == 1


# ---------------------------------------------------------------------------- damaged files


def good_file():
    return saved(facade, {"w": make(facade, "float32", (1000,))})


@pytest.mark.parametrize("cut", [10, 200, 0.5, -30, -5])
def test_truncated_archive(cut):
    data = good_file()
    n = int(len(data) * cut) if isinstance(cut, float) else cut
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
        facade.load(io.BytesIO(data[:n]))


def test_truncated_inside_a_storage():
    data = good_file()
    info = [i for i in zipfile.ZipFile(io.BytesIO(data)).infolist() if i.filename.endswith("data/0")][0]
    cut = rewrite(data, "data/0", lambda b: b[:100])  # the record shrinks: the pickle wants 4000 bytes
    with pytest.raises(RuntimeError, match="storage record data/0 holds 100 bytes but the checkpoint's pickle"):
        facade.load(io.BytesIO(cut))
    assert info.file_size == 4000


def test_corrupted_storage_bytes_fail_the_crc():
    data = bytearray(good_file())
    info = [i for i in zipfile.ZipFile(io.BytesIO(bytes(data))).infolist() if i.filename.endswith("data/0")][0]
    data[payload_start(bytes(data), info) + 123] ^= 0xFF
    with pytest.raises(RuntimeError, match="failed reading file data/0: CRC-32 mismatch"):
        facade.load(io.BytesIO(bytes(data)))


def test_corrupted_pickle():
    data = bytearray(good_file())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()[0]
    data[payload_start(bytes(data), info) + 2] = 0xEE  # an opcode that does not exist
    with pytest.raises(RuntimeError, match="failed reading file data.pkl"):  # the zip's CRC catches it
        facade.load(io.BytesIO(bytes(data)))
    bad = checkpoint_with_pickle(b"\x80\x02\xee.")
    with pytest.raises(pickle.UnpicklingError, match="Unsupported operand 238"):
        facade.load(io.BytesIO(bad))
    short = checkpoint_with_pickle(b"\x80\x02(X\x05\x00\x00")
    with pytest.raises(pickle.UnpicklingError, match="truncated or corrupted"):
        facade.load(io.BytesIO(short))


def test_missing_storage_record():
    data = rewrite(good_file(), "data/0", lambda b: None)
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed locating file data/0: file not found"):
        facade.load(io.BytesIO(data))


def test_not_a_checkpoint(tmp_path):
    (tmp_path / "t.txt").write_text("hello world this is not a checkpoint\n")
    with pytest.raises(RuntimeError, match="is not a checkpoint: it is neither a zip archive"):
        facade.load(tmp_path / "t.txt")
    (tmp_path / "e.pt").write_bytes(b"")
    with pytest.raises(EOFError, match="is empty"):
        facade.load(tmp_path / "e.pt")
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed locating file data.pkl"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("x/readme.txt", "hi")
        facade.load(io.BytesIO(buf.getvalue()))


def test_wrong_magic_number():
    data = pickle.dumps(123, protocol=2) + pickle.dumps(1001, protocol=2)
    with pytest.raises(RuntimeError, match="Invalid magic number; corrupt file"):
        facade.load(io.BytesIO(data))
    with pytest.raises(RuntimeError, match="Invalid magic number; corrupt file"):
        torch.load(io.BytesIO(data))


def test_unseekable_file():
    class Pipe(io.RawIOBase):
        def readable(self):
            return True

        def seekable(self):
            return False

        def seek(self, *a):
            raise io.UnsupportedOperation("seek")

    with pytest.raises(io.UnsupportedOperation, match="You can only torch.load from a file that is seekable"):
        facade.load(Pipe())


# ---------------------------------------------------------------------------- legacy format


def test_legacy_format_written_by_torch(tmp_path):
    t_sd = state(torch)
    torch.save(t_sd, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    for wo in (True, False):
        f_sd = facade.load(tmp_path / "old.pt", weights_only=wo)
        same_tree(t_sd, f_sd)
    assert f_sd["tied"] is f_sd["w"]
    with pytest.raises(RuntimeError, match="legacy .pre-1.6. format is not supported for writing"):
        facade.save(1, tmp_path / "x.pt", _use_new_zipfile_serialization=False)


# ---------------------------------------------------------------------------- atomic writes


def test_failed_save_keeps_previous_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    facade.save({"v": facade.ones(3)}, path)
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        facade.save({"v": facade.zeros(3), "bad": lambda: 0}, path)
    assert facade.load(path)["v"].tolist() == [1.0, 1.0, 1.0]
    assert os.listdir(tmp_path) == ["ckpt.pt"]  # no temporary file left behind
    with pytest.raises(RuntimeError, match="Parent directory .* does not exist"):
        facade.save(1, tmp_path / "nope" / "x.pt")


def test_kill_9_mid_write_keeps_previous_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    facade.save({"v": facade.ones(3)}, path)
    code = textwrap.dedent(f"""
        import os, signal, facade
        from facade import _zipformat
        real = _zipformat.ZipWriter.write_record
        def write_record(self, name, data):
            if name.startswith("data/"):
                self._write(b"partial bytes")
                self.f.flush()
                os.kill(os.getpid(), signal.SIGKILL)
            real(self, name, data)
        _zipformat.ZipWriter.write_record = write_record
        facade.save({{"v": facade.zeros(1000)}}, {str(path)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == -signal.SIGKILL
    assert facade.load(path)["v"].tolist() == [1.0, 1.0, 1.0]
    assert torch.load(path)["v"].tolist() == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------------------- safetensors


def test_safetensors_both_ways(tmp_path):
    from safetensors.torch import load_file as t_load_file
    from safetensors.torch import save_file as t_save_file

    names = [d for d in DTYPES if d != "complex128"]
    t_sd = {d: make(torch, d, (2, 3)) for d in names}
    t_sd["scalar"], t_sd["empty"] = torch.tensor(2.5), torch.zeros(0, 4)
    f_sd = {d: make(facade, d, (2, 3)) for d in names}
    f_sd["scalar"], f_sd["empty"] = facade.tensor(2.5), facade.zeros(0, 4)
    _safetensors.save_file(f_sd, tmp_path / "mine.safetensors", metadata={"format": "pt"})
    t_sd = dict(sorted(t_sd.items()))

    def same(a, b):
        same_tree(a, dict(sorted(b.items())))

    same(t_sd, t_load_file(tmp_path / "mine.safetensors"))
    t_save_file(t_sd, tmp_path / "ref.safetensors", metadata={"format": "pt"})
    same(t_sd, _safetensors.load_file(tmp_path / "ref.safetensors"))
    same(t_sd, facade.load(tmp_path / "ref.safetensors"))  # torch.load dispatches on the suffix
    with _safetensors.safe_open(tmp_path / "ref.safetensors") as f:
        assert f.metadata() == {"format": "pt"} and f.keys() == sorted(t_sd)
        same_tensor(t_sd["float32"], f.get_tensor("float32"))
    from safetensors.torch import load as t_load

    same(t_sd, t_load(_safetensors.save(f_sd)))


def test_safetensors_errors(tmp_path):
    w = facade.ones(4, 4)
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        _safetensors.save_file({"a": w, "b": w[1]}, tmp_path / "x.safetensors")
    with pytest.raises(ValueError, match="You are trying to save a non contiguous tensor: `t`"):
        _safetensors.save_file({"t": w.t()}, tmp_path / "x.safetensors")
    _safetensors.save_file({"a": w}, tmp_path / "ok.safetensors")
    data = (tmp_path / "ok.safetensors").read_bytes()
    (tmp_path / "cut.safetensors").write_bytes(data[:-4])
    with pytest.raises(_safetensors.SafetensorError, match="MetadataIncompleteBuffer"):
        _safetensors.load_file(tmp_path / "cut.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"\xff" * 16)
    with pytest.raises(_safetensors.SafetensorError, match="HeaderTooLarge"):
        _safetensors.load_file(tmp_path / "junk.safetensors")
    with pytest.raises(RuntimeError, match="with dict map_location is not supported"):
        facade.load(tmp_path / "ok.safetensors", map_location={"cpu": "cpu"})


# ---------------------------------------------------------------------------- torch.hub


def test_hub_load_state_dict_from_url(tmp_path, monkeypatch, capsys):
    import hashlib

    src = tmp_path / "src"
    src.mkdir()
    torch.save({"w": torch.arange(3.0)}, src / "weights.pth")
    digest = hashlib.sha256((src / "weights.pth").read_bytes()).hexdigest()
    named = src / f"weights-{digest[:8]}.pth"
    named.write_bytes((src / "weights.pth").read_bytes())
    facade.hub.set_dir(tmp_path / "hub")
    try:
        assert facade.hub.get_dir() == str(tmp_path / "hub")
        out = facade.hub.load_state_dict_from_url(named.as_uri(), check_hash=True)
        assert out["w"].tolist() == [0.0, 1.0, 2.0]
        cached = tmp_path / "hub" / "checkpoints" / named.name
        assert cached.exists() and "Downloading" in capsys.readouterr().out
        named.write_bytes(b"changed")  # the cache is used, not the URL
        assert facade.hub.load_state_dict_from_url(named.as_uri())["w"].tolist() == [0.0, 1.0, 2.0]
        bad = src / "weights-deadbeef.pth"
        bad.write_bytes((src / "weights.pth").read_bytes())
        with pytest.raises(RuntimeError, match='invalid hash value .expected "deadbeef"'):
            facade.hub.load_state_dict_from_url(bad.as_uri(), model_dir=str(tmp_path / "other"), check_hash=True)
        assert not (tmp_path / "other" / bad.name).exists()
    finally:
        facade.hub._hub_dir = None
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert facade.hub.get_dir() == str(tmp_path / "th" / "hub")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert facade.hub.get_dir() == torch.hub.get_dir()


class _Tied:
    """The same small model in either library: an embedding whose weight the output layer reuses."""

    def __new__(cls, lib):
        class Tied(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = lib.nn.Parameter(lib.zeros(5, 3))
                self.out = lib.nn.Module()
                self.out.weight = self.emb  # tied
                self.out.bias = lib.nn.Parameter(lib.zeros(5))
                self.register_buffer("scale", lib.ones(3))

        return Tied()


def test_safetensors_save_model_load_model_both_ways(tmp_path):
    from safetensors.torch import load_model as t_load_model
    from safetensors.torch import save_model as t_save_model

    rng = np.random.default_rng(0)
    values = {"emb": rng.standard_normal((5, 3)), "out.bias": rng.standard_normal(5), "scale": rng.random(3)}
    tm, fm = _Tied(torch), _Tied(facade)
    for lib, m in ((torch, tm), (facade, fm)):
        with lib.no_grad():
            for k, v in values.items():
                m.get_parameter(k).copy_(lib.tensor(v)) if k != "scale" else m.scale.copy_(lib.tensor(v))
    t_save_model(tm, tmp_path / "ref.safetensors")
    _safetensors.save_model(fm, tmp_path / "mine.safetensors")
    with _safetensors.safe_open(tmp_path / "mine.safetensors") as f:  # the tied name is dropped, as torch's
        with _safetensors.safe_open(tmp_path / "ref.safetensors") as g:
            assert f.keys() == g.keys() and f.metadata() == g.metadata()
    t2, f2 = _Tied(torch), _Tied(facade)
    assert t_load_model(t2, tmp_path / "mine.safetensors") == (set(), [])
    assert _safetensors.load_model(f2, tmp_path / "ref.safetensors") == (set(), [])
    for k, v in t2.state_dict().items():
        np.testing.assert_array_equal(host(f2.state_dict()[k]), v.numpy(), err_msg=k)
        np.testing.assert_array_equal(v.numpy(), host(fm.state_dict()[k]), err_msg=k)
    assert f2.out.weight is f2.emb


def test_safetensors_load_model_errors(tmp_path):
    fm = _Tied(facade)
    _safetensors.save_file({"emb": facade.zeros(5, 3), "extra": facade.zeros(1)}, tmp_path / "x.safetensors")
    tm = _Tied(torch)
    from safetensors.torch import load_model as t_load_model

    with pytest.raises(RuntimeError) as ref:
        t_load_model(tm, tmp_path / "x.safetensors")
    with pytest.raises(RuntimeError) as got:
        _safetensors.load_model(fm, tmp_path / "x.safetensors")
    assert str(got.value) == str(ref.value)
    assert _safetensors.load_model(fm, tmp_path / "x.safetensors", strict=False) == (
        t_load_model(tm, tmp_path / "x.safetensors", strict=False))


# ---------------------------------------------------------------------------- whole modules and optimizers

def _layers(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3), lib.nn.BatchNorm2d(4), lib.nn.ReLU(), lib.nn.Flatten(),
                             lib.nn.Linear(4 * 6 * 6, 5), lib.nn.Dropout(0.1)).eval()


def _close(a, b):
    np.testing.assert_allclose(host(a), host(b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("build,shape", [(_layers, (2, 1, 8, 8)),
                                         (lambda lib: lib.nn.LSTM(3, 4, num_layers=2, batch_first=True), (2, 5, 3))])
def test_whole_module_pickles_both_ways(build, shape):
    """torch.save(model) in real torch loads here (weights_only=False) as facade's classes, found by torch's deep
    paths, and computes the same; facade.save(model) loads in real torch as torch's classes."""
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    tm = build(torch)
    buf = io.BytesIO()
    torch.save(tm, buf)
    fm = facade.load(io.BytesIO(buf.getvalue()), weights_only=False)
    assert type(fm).__module__ == type(tm).__module__.replace("torch", "facade", 1)
    first = (lambda out: out[0]) if isinstance(tm, torch.nn.LSTM) else (lambda out: out)
    with torch.no_grad(), facade.no_grad():
        want = first(tm(torch.tensor(x)))
        _close(want, first(fm(facade.tensor(x))))
        out = io.BytesIO()
        facade.save(fm, out)
        back = torch.load(io.BytesIO(out.getvalue()), weights_only=False)
        assert type(back) is type(tm)
        _close(want, first(back(torch.tensor(x))))
    assert all(type(p) is facade.nn.Parameter for p in fm.parameters())


_FUNCTION_ATTRS = {"act": "nn.functional.relu", "tanh": "tanh", "gelu": "nn.functional.gelu",
                   "softmax": "nn.functional.softmax", "sigmoid": "sigmoid", "norm": "linalg.vector_norm",
                   "atleast": "atleast_2d"}


def _lookup(lib, path):
    for part in path.split("."):
        lib = getattr(lib, part)
    return lib


def _with_functions(lib):
    lib.manual_seed(0)
    m = lib.nn.Linear(3, 2)
    for attr, path in _FUNCTION_ATTRS.items():
        setattr(m, attr, _lookup(lib, path))
    return m


def test_whole_module_with_function_attributes_pickles_both_ways():
    """A module holding torch functions (self.act = F.relu) pickles them by torch's names, both ways."""
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    buf, original = io.BytesIO(), _with_functions(torch)
    torch.save(original, buf)
    fm = facade.load(io.BytesIO(buf.getvalue()), weights_only=False)
    out = io.BytesIO()
    facade.save(fm, out)
    tm = torch.load(io.BytesIO(out.getvalue()), weights_only=False)
    for attr, path in _FUNCTION_ATTRS.items():
        assert getattr(fm, attr) is _lookup(facade, path), attr
        assert getattr(tm, attr) is _lookup(torch, path), attr
    with torch.no_grad(), facade.no_grad():
        want = original.act(original(torch.tensor(x)))
        _close(want, fm.act(fm(facade.tensor(x))))
        _close(want, tm.act(tm(torch.tensor(x))))
    out = io.BytesIO()
    facade.save(_with_functions(facade), out)  # built here: its functions are facade's table functions
    built = torch.load(io.BytesIO(out.getvalue()), weights_only=False)
    assert all(getattr(built, a) is _lookup(torch, p) for a, p in _FUNCTION_ATTRS.items())


def test_whole_module_under_safe_globals():
    buf = io.BytesIO()
    torch.save(_layers(torch), buf)
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        facade.load(io.BytesIO(buf.getvalue()))
    nn = facade.nn
    allowed = [nn.Sequential, nn.Conv2d, nn.BatchNorm2d, nn.ReLU, nn.Flatten, nn.Linear, nn.Dropout]
    with facade.serialization.safe_globals(allowed):
        fm = facade.load(io.BytesIO(buf.getvalue()))
    assert isinstance(fm, nn.Sequential) and isinstance(fm[0], nn.Conv2d)


def test_whole_optimizer_round_trip():
    model = _layers(facade)
    opt = facade.optim.AdamW(model.parameters(), lr=1e-2)
    model(facade.randn(2, 1, 8, 8)).sum().backward()
    opt.step()
    buf = io.BytesIO()
    facade.save({"model": model, "opt": opt}, buf)
    loaded = facade.load(io.BytesIO(buf.getvalue()), weights_only=False)
    m2, o2 = loaded["model"], loaded["opt"]
    assert [id(p) for g in o2.param_groups for p in g["params"]] == [id(p) for p in m2.parameters()]
    for a, b in zip(opt.state_dict()["state"].values(), o2.state_dict()["state"].values()):
        for name in a:
            _close(a[name], b[name])
