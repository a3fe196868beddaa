"""Run a PyTorch script unchanged on facade: `python -m facade script.py [args]`.

`import torch`, `import torch.linalg`, `from torch.autograd import grad` ... all resolve to
facade and its submodules (`torch.X.Y` is `facade.X.Y`). The script runs as `__main__` with
`sys.argv` and `sys.path[0]` set as `python script.py` would set them. Also:

    python -m facade -m package.module [args]   # like `python -m package.module`
    python -m facade -c "import torch; ..." [args]
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

_USAGE = "usage: python -m facade (script.py | -m module | -c command) [args ...]"


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolve `torch` and `torch.X.Y` to the already-importable `facade` and `facade.X.Y`.

    The alias is the same module object, so `torch.Tensor is facade.Tensor` and state such as the
    default dtype is shared whichever name the code used.
    """

    def __init__(self, alias="torch", target="facade"):
        self.alias, self.target = alias, target

    def _target_name(self, fullname):
        if fullname == self.alias:
            return self.target
        if fullname.startswith(self.alias + "."):
            return self.target + fullname[len(self.alias):]
        return None

    def find_spec(self, fullname, path=None, target=None):
        name = self._target_name(fullname)
        if name is None:
            return None
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            # Only our own missing module gets the explanation; a missing dependency inside facade
            # keeps its own message.
            if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
                raise ModuleNotFoundError(
                    f"No module named {fullname!r}: facade does not implement {fullname} yet "
                    f"(it would be the module {name!r})", name=fullname) from None
            raise
        spec = importlib.util.spec_from_loader(fullname, self, is_package=hasattr(module, "__path__"))
        spec.loader_state = (module, module.__spec__)
        return spec

    def create_module(self, spec):
        return spec.loader_state[0]

    def exec_module(self, module):
        # module_from_spec set __spec__ to the alias spec; the module keeps its real identity.
        module.__spec__ = module.__spec__.loader_state[1]


def install_torch_alias():
    """Make `import torch` (and every `torch.X.Y`) resolve to facade in this process."""
    if not any(isinstance(f, _TorchAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchAlias())
        # `from safetensors.torch import save_file` would import real torch: give it facade's safetensors
        sys.meta_path.insert(0, _TorchAlias("safetensors.torch", "facade._safetensors"))
        # real torchvision needs torch's C++ extension: scripts get facade's subset of it
        sys.meta_path.insert(0, _TorchAlias("torchvision", "facade.vision"))
    real = sys.modules.get("torch")
    if real is not None and getattr(real, "__name__", None) != "facade":
        raise RuntimeError("real torch is already imported in this process; facade cannot replace it")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install_torch_alias()
    if argv[0] == "-m":
        if len(argv) < 2:
            print("Argument expected for the -m option\n" + _USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]  # run_module puts the module's file in argv[0], as python -m does
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c":
        if len(argv) < 2:
            print("Argument expected for the -c option\n" + _USAGE, file=sys.stderr)
            return 2
        sys.argv = ["-c", *argv[2:]]
        sys.path[0] = ""
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    else:
        script = argv[0]
        if not os.path.exists(script):
            print(f"{sys.executable}: can't open file {os.path.abspath(script)!r}: "
                  "[Errno 2] No such file or directory", file=sys.stderr)
            return 2
        sys.argv = argv
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
