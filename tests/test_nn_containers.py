"""Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict against real torch: indexing,
slicing, mutation, arithmetic, naming, printed form and errors."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .test_nn_module import both, classes


def _layers(lib, n=4):
    Affine = classes(lib)[0]
    return [Affine(2, 2, seed=i) if i % 2 == 0 else classes(lib)[2]() for i in range(n)]


def _state(m):
    return [type(m).__name__, list(m._modules), [type(c).__name__ for c in m.children()], repr(m)]


def test_sequential_indexing_and_forward():
    def run(lib):
        s = lib.nn.Sequential(*_layers(lib))
        x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2))
        return (_state(s), type(s[0]).__name__, type(s[-1]).__name__, _state(s[1:3]), _state(s[::-2]), len(s),
                [type(m).__name__ for m in s], s(x), list(s.state_dict()), "0" not in dir(s), "forward" in dir(s))

    both(run)
    for bad in (lambda lib: lib.nn.Sequential(*_layers(lib))[4], lambda lib: lib.nn.Sequential()[-1],
                lambda lib: lib.nn.Sequential(*_layers(lib))["a"], lambda lib: lib.nn.Sequential(*_layers(lib))[1.0]):
        assert both(bad)[0] == "raised"


def test_sequential_mutation():
    def run(lib):
        Affine = classes(lib)[0]
        out = []
        s = lib.nn.Sequential(*_layers(lib))
        s[1] = Affine(2, 2, seed=9)
        s[-1] = lib.nn.Sequential()
        out.append(_state(s))
        del s[0]
        out.append(_state(s))
        del s[::2]
        out.append(_state(s))
        s.append(Affine(2, 3)).extend([Affine(3, 3), Affine(3, 1)])
        s.insert(0, lib.nn.Sequential())
        s.insert(-1, Affine(1, 1))
        out.append(_state(s))
        popped = s.pop(1)
        out += [type(popped).__name__, _state(s), _state(s.pop(slice(0, 2)))]
        od = lib.nn.Sequential(OrderedDict([("conv", Affine(1, 1)), ("act", classes(lib)[2]())]))
        out += [_state(od), _state(od[1:]), type(od.conv).__name__]
        return out

    both(run)
    for bad in (lambda lib: lib.nn.Sequential().insert(2, lib.nn.Module()),
                lambda lib: lib.nn.Sequential().insert(0, 3),
                lambda lib: lib.nn.Sequential(lib.nn.Module()).__setitem__(3, lib.nn.Module())):
        assert both(bad)[0] == "raised"


def test_sequential_arithmetic():
    def run(lib):
        a = lib.nn.Sequential(*_layers(lib, 2))
        b = lib.nn.Sequential(*_layers(lib, 3))
        c = a + b
        out = [_state(c), c[0] is a[0], _state(a * 2), _state(2 * a), (a * 2)[2] is a[0]]
        a += b
        out.append(_state(a))
        b *= 2
        out += [_state(b), b[3] is b[0]]
        for bad in (lambda: a + lib.nn.ModuleList(), lambda: a * 0, lambda: a * 1.5, lambda: a.__iadd__(1)):
            try:
                bad()
            except (TypeError, ValueError) as e:
                out.append((type(e).__name__, str(e).replace("facade", "torch")))
        return out

    both(run)


def test_module_list():
    def run(lib):
        Affine = classes(lib)[0]
        ml = lib.nn.ModuleList(_layers(lib))
        out = [_state(ml), _state(ml[1:]), type(ml[-1]).__name__, len(ml)]
        ml.append(Affine(2, 2, seed=0))
        ml.extend([Affine(2, 2, seed=0), Affine(2, 2, seed=0)])
        ml += [classes(lib)[2]()]
        ml.insert(1, Affine(5, 5))
        out.append(_state(ml))
        ml[0] = lib.nn.Sequential()
        del ml[1]
        del ml[-2:]
        out += [_state(ml), type(ml.pop(0)).__name__, _state(ml), _state(ml + lib.nn.ModuleList([Affine(1, 1)]))]
        out += [_state(lib.nn.ModuleList()), [n for n, _ in ml.named_parameters()]]
        for bad in (lambda: ml[10], lambda: ml.extend(3), lambda: ml(1), lambda: ml["0"]):
            try:
                bad()
            except (TypeError, IndexError, NotImplementedError) as e:
                out.append((type(e).__name__, str(e)))
        return out

    both(run)


def test_module_list_repr_groups_repeats():
    def run(lib):
        Affine = classes(lib)[0]
        inner = lib.nn.ModuleList([Affine(2, 2), Affine(2, 2)])
        return repr(lib.nn.ModuleList([Affine(2, 2), Affine(2, 2), Affine(2, 2), Affine(3, 3), Affine(2, 2),
                                       inner, lib.nn.ModuleList([Affine(2, 2), Affine(2, 2)])]))

    both(run)


def test_module_dict():
    def run(lib):
        Affine = classes(lib)[0]
        md = lib.nn.ModuleDict({"b": Affine(1, 1), "a": Affine(2, 2)})
        out = [_state(md), list(md), list(md.keys()), [type(v).__name__ for v in md.values()], "a" in md, len(md)]
        md["c"] = lib.nn.Sequential()
        md.update([("d", Affine(3, 3)), ("a", Affine(4, 4))])
        md.update(lib.nn.ModuleDict({"e": lib.nn.Sequential()}))
        md.update(OrderedDict(f=Affine(1, 1)))
        del md["b"]
        out += [_state(md), type(md.pop("c")).__name__, [k for k, _ in md.items()], list(md.state_dict())]
        md.clear()
        out.append(_state(md))
        for bad in (lambda: md.update(3), lambda: md.update([("a",)]), lambda: md.update([3]), lambda: md["zz"],
                    lambda: md.__setitem__("x", 3), lambda: md.__setitem__("a.b", lib.nn.Module())):
            try:
                bad()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out

    both(run)


def test_parameter_list():
    def run(lib):
        nn = lib.nn
        pl = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(2, 3, dtype=lib.float64)])
        out = [repr(pl), [type(p).__name__ for p in pl], list(pl.state_dict()), len(pl)]
        pl.append(lib.ones(1, requires_grad=False))
        pl.extend([nn.Parameter(lib.ones(4), requires_grad=False)])
        pl += [lib.ones(1)]
        pl.append("text")
        pl[0] = lib.full((2,), 3.0)
        out += [repr(pl), [n for n, _ in pl.named_parameters()], repr(pl[1:3]), len(pl[::2]), pl[-1], pl[0]]
        out.append([p.requires_grad for p in pl.parameters()])
        for bad in (lambda: pl(1), lambda: pl[20], lambda: pl.extend(lib.ones(2)), lambda: pl.extend(1)):
            try:
                bad()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out

    both(run)


def test_parameter_dict():
    def run(lib):
        nn = lib.nn
        pd = nn.ParameterDict({"b": lib.ones(2), "a": nn.Parameter(lib.zeros(1, dtype=lib.float64))})
        out = [repr(pd), list(pd), list(pd.keys()), list(pd.state_dict()), "a" in pd, len(pd)]
        pd["c"] = lib.ones(3)
        pd.update([("d", lib.ones(1)), ("e", "obj")])
        pd.update(OrderedDict(z=lib.ones(1), y=lib.ones(1)))
        out += [repr(pd), list(pd), [k for k, _ in pd.items()], type(pd.get("nope", 5)).__name__,
                pd.setdefault("a") is pd["a"], list(reversed(pd)), pd.pop("b"), pd.popitem()[0]]
        cp = pd.copy()
        out += [list(cp), cp["a"] is pd["a"], list(pd | nn.ParameterDict({"q": lib.ones(1)})),
                list(nn.ParameterDict({"q": lib.ones(1)}) | pd), list(pd.fromkeys(["u", "v"]))]
        pd |= {"w": lib.ones(1)}
        del pd["c"]
        out.append(list(pd))
        pd.clear()
        out.append(repr(pd))
        for bad in (lambda: pd(1), lambda: pd[1], lambda: pd["missing"], lambda: pd.update(3),
                    lambda: pd.update([(1, 2, 3)])):
            try:
                bad()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out

    both(run)


def test_containers_in_a_model_train_and_convert():
    def run(lib):
        nn = lib.nn
        m = nn.Sequential(nn.ModuleList([nn.Sequential()]), nn.ParameterList([lib.ones(2)]),
                          nn.ParameterDict({"k": lib.ones(1)}))
        m.eval()
        m.double()
        return [x.training for x in m.modules()], [str(p.dtype) for p in m.parameters()], m.state_dict()

    both(run)
