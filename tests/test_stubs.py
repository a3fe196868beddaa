"""The checked-in type stubs (facade/**/*.pyi) are what tools/gen_stubs.py makes of the op table now, they declare
every name of the module they replace, and a type checker sees the table's functions and Tensor methods through them."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pathlib
import subprocess
import sys
import textwrap

import facade

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "tools" / "gen_stubs.py")
gen_stubs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_stubs)


def test_stubs_are_up_to_date():
    bad = [str(p.relative_to(ROOT)) for p in gen_stubs.check()]
    assert not bad, f"type stubs out of date with the op table: {bad}; regenerate with `{gen_stubs.COMMAND}`"


def _bound(body):
    """Names a stub's statements bind: defs, classes, annotated names, `import x as y` aliases."""
    out = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            out.update({t.id: node for t in node.targets})
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update({a.asname: node for a in node.names if a.asname})  # only `as` re-exports
    return out


def _stubs():
    modules, _ = gen_stubs.installed()
    for name in sorted({*modules, "facade._tensor"}):
        mod = importlib.import_module(name)
        path = pathlib.Path(mod.__file__).with_suffix(".pyi")
        yield mod, _bound(ast.parse(path.read_text()).body)


def _args(fn):
    a = fn.args
    return [x.arg for x in (*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
                            *([a.kwarg] if a.kwarg else []))]


def test_each_stub_declares_its_module():
    """A stub replaces its module for type checkers: every public name is there, a function with its signature."""
    for mod, names in _stubs():
        public = getattr(mod, "__all__", None) or [n for n in dir(mod)
                                                    if not n.startswith("_") and n not in gen_stubs._NOT_TORCH]
        missing = sorted(set(public) - set(names))
        assert not missing, f"{mod.__name__}: stub lacks {missing}; regenerate with `{gen_stubs.COMMAND}`"
        for n, node in names.items():
            if isinstance(node, ast.FunctionDef) and n in public:
                want = list(inspect.signature(getattr(mod, n)).parameters)
                assert _args(node) == want, f"{mod.__name__}.{n}: stub has {_args(node)}, module {want}"


def test_tensor_stub_has_every_member():
    tensor = dict(_stubs())[sys.modules["facade._tensor"]]["Tensor"]
    members = set(_bound(tensor.body))
    want = {n for n in vars(facade.Tensor) if not n.startswith("__") or callable(vars(facade.Tensor)[n])}
    want -= gen_stubs._SKIP
    assert want <= members, f"Tensor stub lacks {sorted(want - members)}"
    assert {"add", "add_", "__add__", "__radd__", "__iadd__", "sum", "real", "backward", "shape"} <= members


SAMPLE = """
import facade as torch
import facade.nn.functional as F

x: torch.Tensor = torch.ones(3, requires_grad=True)
reveal_type(torch.sin(x))
reveal_type(F.linear)
reveal_type(x.sum())
reveal_type(x + 1)
reveal_type(x.add_(1))
reveal_type(x.real)
reveal_type(torch.unbind(x))
reveal_type(torch.float32)
torch.no_such_function(x)
x.no_such_method()
"""
MYPY_INI = """
[mypy]
follow_imports = silent
[mypy-jax.*,jaxlib.*,numpy.*,optax.*,flax.*,ml_dtypes.*,functional.*,tensorboardX.*,tqdm.*,cloudpickle.*]
follow_imports = skip
"""


def test_mypy_sees_the_table(tmp_path):
    (tmp_path / "sample.py").write_text(SAMPLE)
    (tmp_path / "mypy.ini").write_text(MYPY_INI)
    args = ["--config-file", tmp_path / "mypy.ini", "--cache-dir", tmp_path / "cache", "--no-error-summary",
            "--hide-error-context", tmp_path / "sample.py"]
    run = subprocess.run([sys.executable, "-m", "mypy", *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    got = [line.split(": ", 1)[1] for line in run.stdout.splitlines() if line.startswith(str(tmp_path))]
    T = "facade._tensor.Tensor"
    assert got == textwrap.dedent(f"""\
        note: Revealed type is "{T}"
        note: Revealed type is "def (input: {T}, weight: Any, bias: Any =) -> {T}"
        note: Revealed type is "{T}"
        note: Revealed type is "{T}"
        note: Revealed type is "{T}"
        note: Revealed type is "{T}"
        note: Revealed type is "tuple[{T}, ...]"
        note: Revealed type is "facade._dtype.dtype"
        error: Module has no attribute "no_such_function"  [attr-defined]
        error: "Tensor" has no attribute "no_such_method"  [attr-defined]""").splitlines(), run.stdout + run.stderr
