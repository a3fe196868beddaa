"""Preloaded by the DataLoader's forkserver under `python -m facade`: the worker processes it forks
then resolve the script's `import torch` to facade, as the main process does."""

from facade.__main__ import install_torch_alias

install_torch_alias()
