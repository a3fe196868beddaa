"""Bucketed lengths (facade/_ragged.py, issue 11): eager inference over a growing sequence runs on buffers padded to
a few bucket lengths, so a new length is not a new program per op; values, views, writes and errors are torch's."""

import numpy as np
import pytest
import torch

import facade
from facade import _pending, _ragged
from facade.compiler import metrics, reset_metrics

from ._compare import assert_same


def _gpt(lib, vocab=17, block=96, n_embd=16, n_head=2):
    """The lecture's masked self-attention (tril[:T, :T], softmax, wei @ v), heads joined by cat, LayerNorm,
    a ReLU MLP; weights from numpy, so torch and facade hold the same ones."""
    nn, F = lib.nn, lib.nn.functional

    class Head(nn.Module):
        def __init__(self, hs):
            super().__init__()
            self.key, self.query, self.value = (nn.Linear(n_embd, hs, bias=False) for _ in range(3))
            self.register_buffer("tril", lib.tril(lib.ones(block, block)))

        def forward(self, x):
            B, T, C = x.shape
            k, q = self.key(x), self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            wei = F.softmax(wei.masked_fill(self.tril[:T, :T] == 0, float("-inf")), dim=-1)
            return wei @ self.value(x)

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.heads = nn.ModuleList(Head(n_embd // n_head) for _ in range(n_head))
            self.ln, self.ffwd = nn.LayerNorm(n_embd), nn.Sequential(nn.Linear(n_embd, 32), nn.ReLU(),
                                                                     nn.Linear(32, n_embd))
            self.head = nn.Linear(n_embd, vocab)

        def forward(self, idx):
            B, T = idx.shape
            x = self.tok(idx) + self.pos(lib.arange(T))
            x = x + lib.cat([h(self.ln(x)) for h in self.heads], dim=-1)
            return self.head(x + self.ffwd(x))

    model = GPT().eval()
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    return model


def _generate(lib, model, steps, block=96):
    """Greedy decoding with a growing context; the last-position logits of every step."""
    idx = lib.zeros((1, 1), dtype=lib.long)
    seen = []
    with lib.no_grad():
        for _ in range(steps):
            logits = model(idx[:, -block:])[:, -1, :]
            seen.append(logits.numpy().copy())
            idx = lib.cat((idx, logits.argmax(-1, keepdim=True)), dim=1)
    return np.stack(seen), idx.tolist()


def test_generation_matches_torch_and_compiles_per_bucket():
    """Greedy sampling for 140 tokens (lengths 1..140, and past the 96-token block): the same tokens and logits as
    torch, and once a bucket was seen its other lengths (here 72..120) build no program."""
    fm, tm = _gpt(facade), _gpt(torch)
    _generate(facade, fm, 100)  # the 128 bucket seen, and its 96-token window
    reset_metrics()
    idx = facade.zeros((1, 70), dtype=facade.long)
    with facade.no_grad():
        for _ in range(2):  # the first cat of a plain tensor starts a bucketed one
            idx = facade.cat((idx, facade.zeros((1, 1), dtype=facade.long)), dim=1)
        assert idx._rg is not None
        before = metrics().compiles
        for _ in range(48):
            fm(idx[:, -96:])
            idx = facade.cat((idx, facade.zeros((1, 1), dtype=facade.long)), dim=1)
    assert metrics().compiles - before == 0, metrics()
    got, gtok = _generate(facade, fm, 140)
    want, ttok = _generate(torch, tm, 140)
    assert gtok == ttok
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_the_next_bucket_compiles_ahead_of_the_crossing(monkeypatch):
    """Greedy decoding with a 200-token block: once the context passes 8 tokens, the programs the forward runs at
    the 128 bucket compile for the 256 bucket in the background, so a loop past 128 tokens builds no program
    there, with torch's tokens and logits, and the very logits of its graph compiled when first run. A 96-token
    block keeps the model at the 128 bucket: nothing ahead."""
    fm, tm = _gpt(facade, vocab=23, block=200, n_embd=24), _gpt(torch, vocab=23, block=200, n_embd=24)
    _generate(facade, fm, 20, block=200)
    reset_metrics()  # waits for the background compiles
    assert _pending._AHEAD
    got, gtok = _generate(facade, fm, 140, block=200)
    assert metrics().compiles == 0, metrics()
    want, ttok = _generate(torch, tm, 140, block=200)
    assert gtok == ttok
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    monkeypatch.setattr(_pending, "_AHEAD", {})  # the graph at the 256 bucket compiles when it first runs
    again, _ = _generate(facade, fm, 140, block=200)
    assert metrics().ops["graph"].compiles == 1 and np.array_equal(again, got)
    _generate(facade, fm, 100, block=96)
    assert _ragged._STARTED.get(128) is False


def test_a_cropped_context_is_bucketed_from_the_first_token():
    """`idx[:, -block:]` while the context is shorter than the block starts a bucketed tensor, so the first token's
    forward builds the programs that the later lengths of its bucket run, and none of its own."""
    fm = _gpt(facade, vocab=19, n_embd=24)  # sizes no other test uses
    idx = facade.zeros((1, 1), dtype=facade.long)
    with facade.no_grad():
        assert idx[:, -96:]._rg is not None and idx[:, -1:]._rg is None  # a crop longer than the axis, or not
        first = fm(idx[:, -96:])
        for _ in range(2):
            idx = facade.cat((idx, facade.ones((1, 1), dtype=facade.long)), dim=1)
        before = metrics().compiles
        third = fm(idx[:, -96:])
    assert metrics().compiles == before, metrics()
    tm = _gpt(torch, vocab=19, n_embd=24)
    with torch.no_grad():
        assert_same(tm(torch.tensor([[0]])), first, rtol=1e-5, atol=1e-6)
        assert_same(tm(torch.tensor([[0, 1, 1]])), third, rtol=1e-5, atol=1e-6)


def test_a_forward_runs_as_one_program_with_the_values_of_its_ops(monkeypatch):
    """Bucketed ops defer (facade/_pending.py): a decoding step's forward is one program (one compile per bucket,
    no program per op), with the very logits and tokens of its ops run one by one, and torch's tokens; a deferred
    result the script holds is computed with the value read, and a chain never read runs before it passes DEPTH."""
    fm = _gpt(facade, vocab=29, n_embd=24)  # sizes no other test uses
    reset_metrics()
    deferred, dtok = _generate(facade, fm, 60)
    built = metrics().ops
    assert built["graph"].compiles == 1 and getattr(built.get("_prepared"), "compiles", 0) == 0, metrics()
    monkeypatch.setattr(_pending, "ON", False)
    eager, etok = _generate(facade, fm, 60)
    assert metrics().ops["_prepared"].compiles > 10, metrics()  # a program per op
    assert dtok == etok and np.array_equal(deferred, eager)
    monkeypatch.undo()
    want, ttok = _generate(torch, _gpt(torch, vocab=29, n_embd=24), 60)
    assert dtok == ttok
    np.testing.assert_allclose(deferred, want, rtol=1e-4, atol=1e-5)

    with facade.no_grad():
        x = facade.cat((facade.zeros((2, 5)), facade.ones((2, 1))), dim=1)
        h = x * 2 + 1
        y = (h.exp() - 1)[:, -1]  # a plain result: h's graph runs now
        assert type(h._rg.buf) is _pending.Pending and h._rg.buf.value is not None
        for _ in range(_pending.DEPTH + 10):
            x = x + 1
        assert x._rg.buf.depth <= _pending.DEPTH
    with torch.no_grad():
        tx = torch.cat((torch.zeros((2, 5)), torch.ones((2, 1))), dim=1)
        th = tx * 2 + 1
        assert_same((th.exp() - 1)[:, -1], y)
        assert_same(th, h)
        for _ in range(_pending.DEPTH + 10):
            tx = tx + 1
        assert_same(tx, x)


def test_bucketed_tensor_is_an_ordinary_tensor():
    """shape, repr, tolist, numpy, reductions over the padded axis, comparisons: all of the logical tensor."""
    ts = {}
    for lib in (torch, facade):
        with lib.no_grad():
            x = lib.tensor([[1.0, -2.0]])
            for v in (3.0, float("nan"), -0.0):
                x = lib.cat((x, lib.tensor([[v]])), dim=1)
        ts[lib] = x
    f, t = ts[facade], ts[torch]
    assert f._rg is not None and f.shape == t.shape == (1, 5) and f.size(1) == 5 and len(f[0]) == 5
    assert repr(f) == repr(t)
    assert_same(t.sum(1), f.sum(1))
    assert_same(t.exp().nansum(), f.exp().nansum())
    assert_same((t * 2).max(), (f * 2).max())
    assert_same(t.lerp(t * 2, 0.5), f.lerp(f * 2, 0.5))  # a Python number among the op's arrays
    assert_same(t + torch.arange(5.0), f + facade.arange(5.0))  # a plain tensor of the logical length: cut first
    assert_same(t[:, 1:3] * torch.arange(float(t.shape[1]))[:2], f[:, 1:3] * facade.arange(float(f.shape[1]))[:2])
    assert f.tolist()[0][:3] == t.tolist()[0][:3] and np.signbit(f.numpy()[0, 4])
    assert f._rg is None  # read as an array: cut to its logical shape


def test_a_bucketed_tensor_saves_as_torch_does(tmp_path):
    """torch.save of generated ids (bucketed and deferred, and a view of them) loads with weights_only, in facade
    and in real torch: its lengths (in sizes, or read off them) are saved as plain ints, not RaggedInts (a call of
    int, which the safe unpickler refuses)."""
    ys = {}
    for lib in (facade, torch):
        with lib.no_grad():
            ys[lib] = lib.cat((lib.arange(5).reshape(1, 5), lib.full((1, 1), 7)), dim=1) * 2
    assert ys[facade]._rg is not None
    facade.save({"y": ys[facade], "tail": ys[facade][:, 2:], "n": ys[facade].shape[1]}, tmp_path / "ids.pt")
    for lib in (facade, torch):
        got = lib.load(tmp_path / "ids.pt")
        assert got["y"].dtype == lib.int64 and got["y"].shape == ys[torch].shape
        assert got["y"].tolist() == ys[torch].tolist() and got["tail"].tolist() == ys[torch][:, 2:].tolist()
        assert type(got["n"]) is int and got["n"] == ys[torch].shape[1]


def test_softmax_and_matmul_over_the_padded_axis():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 5, 3)).astype(np.float32)
    b = rng.standard_normal((2, 1, 3)).astype(np.float32)
    out = {}
    for lib in (torch, facade):
        with lib.no_grad():
            x = lib.cat((lib.tensor(a), lib.tensor(b)), dim=1)  # (2, 6, 3), bucketed on axis 1
            w = x @ x.transpose(-2, -1)  # both axes padded
            s = lib.softmax(w, dim=-1)  # masks the padding
            y = s @ x  # contracts the padded axis
            out[lib] = (w.log_softmax(-1), s, y, lib.cat([y, y], dim=-1), y.permute(1, 0, 2))
            if lib is facade:
                assert all(t._rg is not None for t in (w, s, y))
    for f, t in zip(out[facade], out[torch]):
        assert_same(t, f, rtol=1e-5, atol=1e-6)


def test_views_and_writes_follow_torch():
    """A slice of a bucketed tensor is a view: writes through either side show in the other."""
    res = {}
    for lib in (torch, facade):
        with lib.no_grad():
            x = lib.zeros((2, 1))
            for k in range(4):
                x = lib.cat((x, lib.full((2, 1), float(k + 1))), dim=1)
            v, last, tail = x[:, :], x[:, -1], x[:, 2:]
            x[0, 0] = 7.0
            v[1, 1] = 8.0
            last.mul_(10)
            res[lib] = (x.clone(), v.clone(), last.clone(), tail.clone(), x._version)
    for f, t in zip(res[facade], res[torch]):
        assert_same(t, f)


def test_errors_are_torchs():
    for lib in (torch, facade):
        with lib.no_grad():
            x = lib.cat((lib.zeros((1, 3)), lib.ones((1, 1))), dim=1)
            with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
                x[:, 4]
            with pytest.raises(IndexError, match="index out of range in self"):
                lib.nn.functional.embedding(lib.cat((lib.zeros((1, 2), dtype=lib.long),
                                                     lib.full((1, 1), 9, dtype=lib.long)), 1), lib.zeros(5, 2))


def test_value_checks_read_the_logical_values_and_leave_the_tensor_bucketed():
    res = {}
    for lib in (torch, facade):
        with lib.no_grad():
            d = lib.cat((lib.full((1, 3), 2, dtype=lib.long), lib.ones((1, 1), dtype=lib.long)), dim=1)  # pads with 0
            res[lib] = ((d * 7) // d, d % d, lib.nn.functional.embedding(d, lib.arange(6.0).reshape(3, 2)))
            if lib is facade:
                assert d._rg is not None  # the checks (division by zero, index range) made no plain copy of d
    for f, t in zip(res[facade], res[torch]):
        assert_same(t, f)


def test_autograd_and_switch_keep_the_plain_path():
    x = facade.zeros((1, 3), requires_grad=True)
    y = facade.cat((x, facade.ones((1, 1))), dim=1)  # records autograd: never bucketed
    assert y._rg is None and y.grad_fn is not None
    with facade.no_grad():
        z = facade.cat((facade.zeros((1, 3)), facade.ones((1, 1))), dim=1)
    assert z._rg is not None
    T = z.shape[1]
    assert type(T) is _ragged.RaggedInt and T + 1 == 5 and type(T + 1) is int
    import pickle

    assert pickle.loads(pickle.dumps(T)) == 4 and type(pickle.loads(pickle.dumps(T))) is int


def _nano(lib, n_embd=16, n_head=2, block=40, vocab=11):
    """nanoGPT's generate(): split of c_attn, view to heads, scaled_dot_product_attention(is_causal=True),
    transpose().contiguous().view(B, T, C), logits of x[:, [-1], :], top-k masking, a cropped context."""
    nn, F = lib.nn, lib.nn.functional

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.c_attn, self.c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)
            self.ln, self.mlp = nn.LayerNorm(n_embd), nn.Sequential(nn.Linear(n_embd, 32), nn.GELU(),
                                                                  nn.Linear(32, n_embd), nn.Dropout(0.1))
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx):
            B, T = idx.size()
            x = self.wte(idx) + self.wpe(lib.arange(0, T, dtype=lib.long))
            q, k, v = self.c_attn(self.ln(x)).split(n_embd, dim=2)
            q, k, v = (t.view(B, T, n_head, n_embd // n_head).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, n_embd))
            x = x + self.mlp(x)
            return self.lm_head(x[:, [-1], :])

    model = GPT().eval()
    rng = np.random.default_rng(2)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    out, idx = [], lib.zeros((1, 1), dtype=lib.long)
    with lib.no_grad():
        for _ in range(60):
            logits = model(idx if idx.size(1) <= block else idx[:, -block:])[:, -1, :] / 0.8
            v, _ = lib.topk(logits, 3)
            logits[logits < v[:, [-1]]] = -float("Inf")
            out.append(F.softmax(logits, dim=-1).numpy().copy())
            idx = lib.cat((idx, lib.argmax(out[-1] if lib is np else logits, dim=-1, keepdim=True)), dim=1)
    return np.stack(out), idx.tolist()


def test_nanogpt_generate_matches_torch():
    reset_metrics()
    got, gtok = _nano(facade)
    assert metrics().compiles < 120, metrics()  # a program per op and length would be thousands
    want, ttok = _nano(torch)
    assert gtok == ttok
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
