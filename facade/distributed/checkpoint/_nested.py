"""A state dict as torch's checkpoint sees it: nested dicts (and lists holding tensors or dicts) flattened to
dotted keys, each remembering its path (torch's _traverse / _nested_dict rules), and the Stateful values
(objects with state_dict / load_state_dict, e.g. a module or an optimizer) taken by their state dicts."""

from __future__ import annotations

from collections.abc import Mapping

from ..._tensor import Tensor
from .stateful import Stateful


def _is_terminal(value) -> bool:
    """A leaf: anything but a mapping, or a list holding no tensor, mapping or non-terminal list."""
    if isinstance(value, Mapping):
        return False
    if not isinstance(value, list):
        return True
    return not any(isinstance(v, Tensor) or (isinstance(v, (Mapping, list)) and not _is_terminal(v)) for v in value)


def flatten_state_dict(state_dict) -> tuple[dict, dict]:
    """({'a.b.0': leaf}, {'a.b.0': ('a', 'b', 0)}): dict keys become strings, list positions ints."""
    flat, paths = {}, {}

    def visit(path, value):
        if isinstance(value, Mapping):
            for k, v in value.items():
                visit((*path, str(k)), v)
        elif _is_terminal(value):
            key = ".".join(map(str, path))
            if key in flat:
                raise ValueError(f"duplicated flatten key {key}")
            flat[key], paths[key] = value, path
        else:
            for i, v in enumerate(value):
                visit((*path, i), v)

    for k, v in state_dict.items():
        visit((str(k),), v)
    return flat, paths


def set_element(root, path, value) -> None:
    """root[path[0]][path[1]]... = value, creating the dicts and lists on the way (torch's set_element)."""
    cur = root
    for key, nxt in zip(path[:-1], path[1:]):
        if isinstance(cur, list):
            cur.extend([None] * (key + 1 - len(cur)))
        elif key not in cur:
            cur[key] = [] if isinstance(nxt, int) else {}
        if cur[key] is None:
            cur[key] = [] if isinstance(nxt, int) else {}
        cur = cur[key]
    if isinstance(cur, list):
        cur.extend([None] * (path[-1] + 1 - len(cur)))
    cur[path[-1]] = value


def is_stateful(obj) -> bool:
    return isinstance(obj, Stateful)


def stateful_to_state_dict(state_dict) -> dict:
    """The top-level Stateful values replaced by their state dicts (what torch's save and load do first)."""
    return {k: (v.state_dict() if is_stateful(v) else v) for k, v in state_dict.items()}
