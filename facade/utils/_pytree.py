"""torch.utils._pytree: torch's Python pytree registry, flatten/unflatten and tree maps.

The semantics are torch's, which differ from `jax.tree_util` in ways libraries rely on: `None` is a
leaf (not an empty node), every namedtuple flattens as the one node type `namedtuple` with the class
as context, dict keys keep insertion order (no sorting), and `TreeSpec`/`LeafSpec` print and compare
as torch's do. JSON serialization of specs (`treespec_dumps`/`treespec_loads`) belongs to the export
issue and raises NotImplementedError until it lands.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

from .._unsupported import unsupported

__all__ = [
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get", "register_pytree_node",
    "tree_is_leaf", "tree_flatten", "tree_flatten_with_path", "tree_unflatten", "tree_iter", "tree_leaves",
    "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_with_path", "tree_map_", "tree_map_only",
    "tree_map_only_", "tree_all", "tree_any", "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads",
    "treespec_pprint", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
]

PyTree = Any
Context = Any
DumpableContext = Any
FlattenFn = Callable[[PyTree], "tuple[list[Any], Context]"]
UnflattenFn = Callable[[Any, Context], PyTree]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
FlattenWithKeysFn = Callable[[PyTree], "tuple[list[tuple[Any, Any]], Context]"]
KeyPath = tuple

NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


class NodeDef(NamedTuple):
    type: type
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: FlattenWithKeysFn | None


class _SerializeNodeDef(NamedTuple):
    typ: type
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict[type, NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[type, _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, type] = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None) -> None:
    """Register a container-like type as a pytree node (ValueError if it already is one)."""
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
                                  to_dumpable_context=to_dumpable_context,
                                  from_dumpable_context=from_dumpable_context,
                                  flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None) -> None:
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(f"{cls} is already registered as pytree node. Overwriting the previous registration.",
                          stacklevel=2)
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) ^ (from_dumpable_context is None):
            raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                             "be None or registered.")
        name = NO_SERIALIZED_TYPE_NAME_FOUND if serialized_type_name is None else serialized_type_name
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context, from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None, **kwargs) -> None:
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. "
                      "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
                      FutureWarning, stacklevel=2)
    _private_register_pytree_node(cls, flatten_fn, unflatten_fn, **kwargs)


def _deregister_pytree_node(cls) -> None:
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        node_def = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        del SERIALIZED_TYPE_TO_PYTHON_TYPE[node_def.serialized_type_name]


def register_dataclass(cls, *, field_names=None, drop_field_names=None, serialized_type_name=None) -> None:
    """Register a dataclass (or a class with its semantics) whose fields are its children."""
    if field_names is None:
        if not dataclasses.is_dataclass(cls):
            raise ValueError(f"field_names must be specified with a list of all fields used to initialize {cls}, "
                             "as it is not a dataclass.")
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    names = [n for n in field_names if n not in (drop_field_names or ())]

    def flatten(obj):
        return [getattr(obj, n) for n in names], names

    def unflatten(values, context):
        return cls(**dict(zip(context, values, strict=True)))

    def flatten_with_keys(obj):
        return [(GetAttrKey(n), getattr(obj, n)) for n in names], names

    register_pytree_node(cls, flatten, unflatten, serialized_type_name=serialized_type_name,
                         flatten_with_keys_fn=flatten_with_keys)


# ----------------------------------------------------------------------------------------- key paths

@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp: KeyPath) -> str:
    """Given a key path, return a pretty-printed representation."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp: KeyPath):
    """Given an object and a key path, return the value at the key path."""
    for k in kp:
        obj = k.get(obj)
    return obj


def is_namedtuple_class(cls) -> bool:
    """Return whether the class is a subclass of namedtuple."""
    return (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple(obj) -> bool:
    """Return whether the object is an instance of namedtuple or a subclass of namedtuple."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj) -> bool:
    """Return whether the object is an instance of namedtuple."""
    return is_namedtuple_class(type(obj))


# ------------------------------------------------------------------------------- builtin containers

def _sequence_with_keys(flatten):
    def with_keys(d):
        values, context = flatten(d)
        return [(SequenceKey(i), v) for i, v in enumerate(values)], context
    return with_keys


def _tuple_flatten(d):
    return list(d), None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(d):
    return d, None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    values, context = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context, values, strict=True)], context


def _dict_unflatten(values, context):
    return dict(zip(context, values, strict=True))


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d):
    values, context = _namedtuple_flatten(d)
    return [(GetAttrKey(f), v) for f, v in zip(context._fields, values, strict=True)], context


def _namedtuple_unflatten(values, context):
    return context(*values)


def _ordereddict_flatten(d):
    return list(d.values()), list(d.keys())


def _ordereddict_unflatten(values, context):
    return OrderedDict((k, v) for k, v in zip(context, values, strict=True))


def _defaultdict_flatten(d):
    values, dict_context = _dict_flatten(d)
    return values, [d.default_factory, dict_context]


def _defaultdict_flatten_with_keys(d):
    values, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], values, strict=True)], context


def _defaultdict_unflatten(values, context):
    default_factory, dict_context = context
    return defaultdict(default_factory, _dict_unflatten(values, dict_context))


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


_odict_flatten, _odict_unflatten = _ordereddict_flatten, _ordereddict_unflatten

for _cls, _flat, _unflat, _keys in (
    (tuple, _tuple_flatten, _tuple_unflatten, _sequence_with_keys(_tuple_flatten)),
    (list, _list_flatten, _list_unflatten, _sequence_with_keys(_list_flatten)),
    (dict, _dict_flatten, _dict_unflatten, _dict_flatten_with_keys),
    (namedtuple, _namedtuple_flatten, _namedtuple_unflatten, _namedtuple_flatten_with_keys),
    (OrderedDict, _ordereddict_flatten, _ordereddict_unflatten, _dict_flatten_with_keys),
    (defaultdict, _defaultdict_flatten, _defaultdict_unflatten, _defaultdict_flatten_with_keys),
    (deque, _deque_flatten, _deque_unflatten, _sequence_with_keys(_deque_flatten)),
):
    _private_register_pytree_node(_cls, _flat, _unflat, flatten_with_keys_fn=_keys,
                                  serialized_type_name=f"{_cls.__module__}.{_cls.__name__}")

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


def _get_node_type(tree):
    # every namedtuple class is the one node type `namedtuple`, even where registered explicitly
    node_type = type(tree)
    return namedtuple if is_namedtuple_class(node_type) else node_type


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """A leaf is anything that is not a registered node (`None` is a leaf)."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# ------------------------------------------------------------------------------------------ TreeSpec

class TreeSpec:
    """The structure of a pytree: the root's node type, its context and the children's specs."""

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs):
        self.type, self._context, self._children = type, context, children_specs
        if type is None:
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if children_specs:
                raise AssertionError("leaf node should not have children")
            self.num_nodes, self.num_leaves, self.num_children = 1, 1, 0
        else:
            self.num_nodes = 1 + sum(c.num_nodes for c in children_specs)
            self.num_leaves = sum(c.num_leaves for c in children_specs)
            self.num_children = len(children_specs)

    def __repr__(self, indent: int = 0) -> str:
        children = ""
        if self.num_children > 0:
            indent += 2
            children = self._children[0].__repr__(indent) + ("," if self.num_children > 1 else "")
            children += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        node_type, context = self.type, self._context
        if node_type is defaultdict:
            context = (context[0], tuple(context[1]))
        elif node_type in (dict, OrderedDict):
            context = tuple(context)
        elif node_type is not None and node_type not in BUILTIN_TYPES:
            context = None  # a user node's context may be unhashable; equal specs still hash equal
        return hash((node_type, context, tuple(self._children)))

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        return self._children

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return self._children.copy()

    def child(self, index: int):
        return self._children[index]

    def flatten_up_to(self, tree):
        """Flatten the subtrees in `tree` up to the structure of this spec."""
        subtrees = []
        self._flatten_up_to(tree, subtrees)
        return subtrees

    def _flatten_up_to(self, node, subtrees):
        if self.is_leaf():
            subtrees.append(node)
            return
        node_type = _get_node_type(node)
        both_dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
        if not both_dicts and node_type != self.type:
            raise ValueError(f"{'Node type' if self.type in BUILTIN_TYPES else 'Type'} mismatch; "
                             f"expected {self.type!r}, but got {node_type!r}.")
        if both_dicts:
            expected = self._context if self.type is not defaultdict else self._context[1]
            got, want = set(node), set(expected)
            if got != want:
                missing, extra = want - got, got - want
                raise ValueError("Node keys mismatch" + (f"; missing key(s): {missing}" if missing else "")
                                 + (f"; extra key(s): {extra}" if extra else "") + ".")
            children = [node[k] for k in expected]
        else:
            children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
            if node_type is not deque and context != self._context:
                raise ValueError(f"Node context mismatch for node type {self.type!r}; "
                                 f"expected {self._context!r}, but got {context!r}.")
        for subtree, subspec in zip(children, self._children, strict=True):
            subspec._flatten_up_to(subtree, subtrees)

    def unflatten(self, leaves):
        """Reconstruct a pytree from the leaves."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self._children:
            children.append(spec.unflatten(leaves[start:start + spec.num_leaves]))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


class LeafSpec(TreeSpec):
    """The spec of a single leaf (prints as `*`)."""

    __slots__ = ()

    def __init__(self):
        super().__init__(None, None, [])

    def __repr__(self, indent: int = 0) -> str:
        return "*"


PyTreeSpec = TreeSpec
_LEAF_SPEC = LeafSpec()


def treespec_leaf() -> LeafSpec:
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /) -> TreeSpec:
    children = list(iterable)
    if any(not isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs) -> TreeSpec:
    dct = dict(mapping, **kwargs)
    if any(not isinstance(c, TreeSpec) for c in dct.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {dct!r}.")
    return TreeSpec(dict, list(dct), list(dct.values()))


_SERIALIZATION = "TreeSpec JSON serialization belongs to the torch.export issue"
treespec_dumps = unsupported("torch.utils._pytree.treespec_dumps", _SERIALIZATION)
treespec_loads = unsupported("torch.utils._pytree.treespec_loads", _SERIALIZATION)


def treespec_pprint(treespec: TreeSpec) -> str:
    dummy = treespec.unflatten([_DummyLeaf() for _ in range(treespec.num_leaves)])
    return repr(dummy)


class _DummyLeaf:
    def __repr__(self):
        return "*"


# -------------------------------------------------------------------------------------- tree functions

def tree_flatten(tree, is_leaf=None):
    """Flatten a pytree into (leaves, TreeSpec)."""
    leaves = []

    def helper(node):
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _get_node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [helper(c) for c in children])

    spec = helper(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The inverse of `tree_flatten` (the two arguments may come in either order, like torch)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type "
                            f"{type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """Iterate over the leaves of a pytree."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    for child in SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """Map `func` over the leaves of `tree` (and the matching subtrees of `rests`)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    return spec.unflatten(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call `func` on each leaf for its side effect; return `tree` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    deque(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)), maxlen=0)
    return tree


def map_only(type_or_types_or_pred, /):
    """Decorator: apply the function only to leaves of the given type(s) (or passing the predicate)."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _generate_key_paths(key_path, tree, is_leaf=None):
    if is_leaf and is_leaf(tree):
        yield key_path, tree
        return
    node_type = _get_node_type(tree)
    handler = SUPPORTED_NODES.get(node_type)
    if not handler:
        yield key_path, tree
        return
    if not handler.flatten_with_keys_fn:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. "
                         "Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    for k, c in handler.flatten_with_keys_fn(tree)[0]:
        yield from _generate_key_paths((*key_path, k), c, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """Like `tree_flatten`, but the leaves come as (key path, leaf) pairs."""
    return list(_generate_key_paths((), tree, is_leaf)), tree_flatten(tree, is_leaf)[1]


def tree_leaves_with_path(tree, is_leaf=None):
    return list(_generate_key_paths((), tree, is_leaf))


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """Like `tree_map`, but `func` also receives each leaf's key path first."""
    keypath_leaves, spec = tree_flatten_with_path(tree, is_leaf)
    columns = list(zip(*keypath_leaves, strict=True)) + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(*columns, strict=True))
