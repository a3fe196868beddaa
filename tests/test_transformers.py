"""`transformers` on facade: its GPT-2, BERT and Llama classes import under `python -m facade` and, with the
same weights (saved by real torch, loaded with `load_state_dict(torch.load(...))`), give torch's loss, logits
and gradient of every parameter, with eager and SDPA attention. The models run in tests/_transformers_models.py.
"""

import collections
import typing
from pathlib import Path

import numpy as np
import pytest
import torch.utils._pytree as torch_pytree

import facade
import facade.utils._pytree as facade_pytree
from tests.test_runner import _run

SCRIPT = str(Path(__file__).with_name("_transformers_models.py"))
OFFLINE = {"TRANSFORMERS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}


def _run_offline(args, cwd, facade):
    with pytest.MonkeyPatch.context() as mp:
        for k, v in OFFLINE.items():
            mp.setenv(k, v)
        result = _run(args, cwd, facade)
    assert result.returncode == 0, f"{'facade' if facade else 'real torch'} failed:\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("transformers")
    _run_offline([SCRIPT, str(out)], out, facade=False)  # writes the weights the facade run loads
    _run_offline([SCRIPT, str(out)], out, facade=True)
    return np.load(out / "torch.npz"), np.load(out / "facade.npz")


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
@pytest.mark.parametrize("model", ["gpt2", "bert", "llama"])
def test_loss_logits_and_grads_match_torch(results, model, impl):
    ref, got = results
    prefix = f"{model}/{impl}/"
    keys = sorted(k for k in ref.files if k.startswith(prefix))
    assert f"{prefix}loss" in keys and any("/grad/" in k for k in keys)
    assert keys == sorted(k for k in got.files if k.startswith(prefix))
    for k in keys:
        a, b = ref[k], got[k]
        assert (b.shape, b.dtype) == (a.shape, a.dtype), k
        # float32 rounding relative to each tensor's scale; 1e-9 for gradients that are zero in exact arithmetic
        # (BERT's key biases: softmax ignores a constant added to every score), which are rounding noise in both
        atol = max(1e-5 * float(np.abs(a).max()), 1e-9)
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=atol, err_msg=k)


def test_transformers_sees_torch_without_a_torch_distribution(tmp_path):
    # Where facade is installed without real torch, no 'torch' distribution exists: transformers falls back to
    # importing `torch` (facade) and reading its __version__.
    code = ("import importlib.metadata as m\n"
            "real = m.version\n"
            "def version(name):\n"
            "    if name == 'torch':\n"
            "        raise m.PackageNotFoundError(name)\n"
            "    return real(name)\n"
            "m.version = version\n"
            "import torch\n"
            "from transformers.utils import import_utils as u\n"
            "print(u.is_torch_available(), u.get_torch_version() == torch.__version__, torch.__name__)")
    assert _run_offline(["-c", code], tmp_path, facade=True).stdout.split() == ["True", "True", "facade"]


# ------------------------------------------------------------------ pieces transformers needed, against torch

def _trees():
    point = collections.namedtuple("Point", "x y")
    dd = collections.defaultdict(list, {"b": 1, "a": [2, None]})
    return [1, None, [], (), {}, [1, (2, 3), {"z": 4, "a": [5, None]}], point(1, [2, 3]),
            collections.OrderedDict(b=1, a=2), dd, collections.deque([1, 2], maxlen=3), {"k": point((1,), 2)}]


@pytest.mark.parametrize("i", range(len(_trees())))
def test_pytree_flatten_unflatten_map_match_torch(i):
    tree = _trees()[i]
    (ref_leaves, ref_spec), (leaves, spec) = torch_pytree.tree_flatten(tree), facade_pytree.tree_flatten(tree)
    assert leaves == ref_leaves and repr(spec) == repr(ref_spec)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children, spec.is_leaf()) == (
        ref_spec.num_leaves, ref_spec.num_nodes, ref_spec.num_children, ref_spec.is_leaf())
    back, ref_back = facade_pytree.tree_unflatten(leaves, spec), torch_pytree.tree_unflatten(leaves, ref_spec)
    assert back == ref_back and type(back) is type(ref_back)
    assert facade_pytree.tree_map(str, tree) == torch_pytree.tree_map(str, tree)
    paths = [(facade_pytree.keystr(p), v) for p, v in facade_pytree.tree_flatten_with_path(tree)[0]]
    assert paths == [(torch_pytree.keystr(p), v) for p, v in torch_pytree.tree_flatten_with_path(tree)[0]]
    assert facade_pytree.tree_map_only(int, lambda v: -v, tree) == torch_pytree.tree_map_only(int, lambda v: -v, tree)


def test_pytree_errors_match_torch():
    cases = [lambda m: m.tree_map(lambda a, b: a, [1, 2], (1, 2)),
             lambda m: m.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}),
             lambda m: m.tree_map(lambda a, b: a, [1, 2], [1]),
             lambda m: m.tree_structure([1, 2]).unflatten([1]),
             lambda m: m.register_pytree_node(list, m._list_flatten, m._list_unflatten)]
    for case in cases:
        with pytest.raises(Exception) as ref:
            case(torch_pytree)
        with pytest.raises(type(ref.value)) as got:
            case(facade_pytree)
        assert str(got.value) == str(ref.value)
    with pytest.raises(NotImplementedError, match="torch.utils._pytree.treespec_dumps"):
        facade_pytree.treespec_dumps(facade_pytree.tree_structure([1]))


def test_pytree_register_custom_node_matches_torch():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __eq__(self, other):
            return (self.a, self.b) == (other.a, other.b)

    def flatten(p):
        return [p.a, p.b], "ctx"

    def unflatten(values, context):
        return Pair(*values)

    def with_keys(p):
        return [(m.GetAttrKey("a"), p.a), (m.GetAttrKey("b"), p.b)], "ctx"

    tree = [Pair(1, {"x": 2}), 3]
    results = []
    for m in (torch_pytree, facade_pytree):
        m.register_pytree_node(Pair, flatten, unflatten, flatten_with_keys_fn=with_keys)
        try:
            leaves, spec = m.tree_flatten(tree)
            results.append((leaves, m.tree_unflatten(leaves, spec), Pair in m.SUPPORTED_NODES,
                            [m.keystr(p) for p, _ in m.tree_leaves_with_path(tree)]))
        finally:
            m._deregister_pytree_node(Pair)
    assert results[0] == results[1]


def _custom_ops(t, ns):
    """The same custom ops, written for torch module `t`, in library namespace `ns`."""
    def scale(x: t.Tensor, n: int, s: float = 2.0) -> t.Tensor:
        return x.sin() * n * s

    def plain(x: t.Tensor) -> t.Tensor:
        return x * 3

    op = t.library.custom_op(f"{ns}::scale", scale, mutates_args=())
    t.library.register_autograd(f"{ns}::scale", lambda ctx, g: (g * ctx.x.cos() * ctx.n * ctx.s, None, None),
                                setup_context=lambda ctx, inputs, output: ctx.__dict__.update(
                                    x=inputs[0], n=inputs[1], s=inputs[2]))
    return op, t.library.custom_op(f"{ns}::plain", plain, mutates_args=(), schema="(Tensor x) -> Tensor")


def _custom_op_errors(t, plain, x):
    errors = []
    for bad in (lambda: plain(x).sum().backward(), lambda: plain(x, x), lambda: t.ops.facade_test.nope,
                lambda: t.library.register_fake("facade_test::nope", lambda x: x)):
        with pytest.raises(Exception) as e:
            bad()
        errors.append((type(e.value), str(e.value)))
    return errors


def test_library_custom_op_forward_backward_and_errors_match_torch():
    import torch

    results = []
    for t in (torch, facade):
        scale, plain = _custom_ops(t, "facade_test")
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = scale(x, 3)
        y.sum().backward()
        via_ops = t.ops.facade_test.scale(x, n=3).detach()
        results.append((y.detach().numpy(), x.grad.numpy(), via_ops.numpy(), y.grad_fn.name(), repr(scale),
                        _custom_op_errors(t, plain, x)))
    for ref, got in zip(*results):
        if isinstance(ref, np.ndarray):
            np.testing.assert_allclose(got, ref, rtol=1e-6)
        else:
            assert got == ref


def test_library_infer_schema_matches_torch():
    import torch

    def annotated(t):
        def f(x: t.Tensor, y: typing.Optional[t.Tensor], xs: list[t.Tensor], n: int, s: float = 1.5,  # noqa: UP045
              b: bool = False, name: str = "a") -> tuple[t.Tensor, t.Tensor]:
            raise AssertionError("never called")
        return f

    for mutates in ((), ("x",)):
        assert facade.library.infer_schema(annotated(facade), mutates_args=mutates) == torch.library.infer_schema(
            annotated(torch), mutates_args=mutates)
    with pytest.raises(ValueError, match=r"infer_schema\(func\): Parameter x must have a type annotation"):
        facade.library.infer_schema(lambda x: x, mutates_args=())


def test_check_functions_match_torch():
    import torch

    cases = [lambda t: t._check(False), lambda t: t._check(False, lambda: "custom"),
             lambda t: t._check_with(KeyError, 1 > 2, lambda: "why"), lambda t: t._check_value(False),
             lambda t: t._check(t.tensor(True)), lambda t: t._check(1), lambda t: t._check(False, "not callable"),
             lambda t: t._check_tensor_all(t.tensor([True, False]), lambda: "some false"),
             lambda t: t._check_tensor_all(t.tensor([1, 0])), lambda t: t._check_tensor_all(True),
             lambda t: t._check_with(UserWarning, False, lambda: "w"), lambda t: t._check_with(ValueError, False)]
    for case in cases:
        with pytest.raises(Exception) as ref:
            case(torch)
        with pytest.raises(type(ref.value)) as got:
            case(facade)
        assert str(got.value) == str(ref.value)
    for ok in (lambda t: t._check(True), lambda t: t._check_tensor_all(t.tensor([True, True]))):
        assert ok(facade) is None and ok(torch) is None


@pytest.mark.parametrize("api", ["torch.fx.symbolic_trace", "torch.fx.GraphModule",
                                 "torch._dynamo.export", "torch.distributions.Wishart",
                                 "torch.library.Library", "torch.cuda.CUDAGraph", "torch.utils._pytree.treespec_loads"])
def test_later_issue_names_raise_not_implemented(api):
    import importlib

    module, _, name = api.replace("torch", "facade", 1).rpartition(".")
    with pytest.raises(NotImplementedError, match=api.replace(".", r"\.")):
        getattr(importlib.import_module(module), name)("x")


def test_probes_answer_truthfully():
    import facade.fx

    assert not isinstance(facade.ones(1), facade.fx.Proxy)
    assert facade._dynamo.is_compiling() is False and facade.cuda.is_current_stream_capturing() is False
    with facade._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex():
        x = facade.arange(5)
        assert x[facade.tensor(3)].item() == 3
    import torch

    for m in (facade.eye(2), -facade.eye(2)):  # a real check now, as torch answers it
        ref = torch.distributions.constraints.positive_definite.check(torch.from_numpy(m.numpy()))
        assert facade.distributions.constraints.positive_definite.check(m).item() == ref.item()
