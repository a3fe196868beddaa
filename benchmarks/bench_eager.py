"""Eager scripts with many values and shapes: facade vs real PyTorch (vs eager JAX), in the same run.

    python benchmarks/bench_eager.py [--quick] [--only NAME[,NAME...]] [--budget SECONDS]

The workloads of issue 11, each the same source code run once with `torch` and once with `facade`
(both in this process; `facade` never imports torch), timed cold, as a user's script meets them:

    index_loop   `s = s + t[:, i].sum()` for 200 distinct i (t is 64x256)
    write_loop   `t[i % 64, :10] = float(i)` for 200 i
    shapes       `torch.randn(n, 16).softmax(-1).sum()` for n = 1..40
    bigram       a char-level bigram LM whose get_batch stacks `data[i:i+block_size] for i in ix`
    main_job     examples/train_digits.py as a subprocess: first epoch vs later epochs
    gpt_sample   sampling 200 characters from a small char-level GPT, a new context length every token
    layer_tour   forward + backward of ~50 different nn layers, once each
    varlen       an LSTM and a transformer encoder fed 20 different sequence lengths
    cache        the main job run twice under facade with one fresh persistent compilation cache directory

Columns: wall seconds under torch, facade and (where it makes sense) eager jax.numpy, facade/torch,
and the XLA programs facade built with the seconds they took (trace + lowering + XLA compile or
persistent-cache load), from `facade.compiler.metrics()`; the note names the programs built most.
The persistent cache is off (FACADE_CACHE=0) except in `cache`, so every other row is first-seen.
A facade run stops after `--budget` seconds and is reported as "> budget" with how far it got.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("FACADE_CACHE", "0")  # first-seen programs compile; the `cache` workload measures the cache
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import torch  # noqa: E402

import facade  # noqa: E402
from facade.compiler import metrics  # noqa: E402

# Run in each subprocess under facade: `python -m facade`, then facade's compile counters at exit.
_CHILD = """
import atexit, sys, facade.__main__, facade.compiler
def report():
    m = facade.compiler.metrics()
    print(f"__compiles__ {m.compiles} {m.compile_seconds:.3f} {m.cache_hits}", file=sys.stderr)
atexit.register(report)
sys.exit(facade.__main__.main(sys.argv[1:]))
"""


class OverBudget(Exception):
    pass


class Budget:
    """`check(done, total)` in a workload's loop, or `tick()` in an inner loop, stops a run out of seconds."""

    def __init__(self, seconds):
        self.deadline, self.progress = time.perf_counter() + seconds, ""

    def check(self, done, total):
        self.progress = f"{done}/{total}"
        self.tick()

    def tick(self):
        if time.perf_counter() > self.deadline:
            raise OverBudget(f"stopped at {self.progress}")


# ---- workloads: each takes the library as `torch`, a size, and a Budget --------------------------------------------

def index_loop(torch, n, budget):
    t = torch.randn(64, 256)
    s = torch.zeros(())
    for i in range(n):
        budget.check(i, n)
        s = s + t[:, i].sum()
    return s.item()


def write_loop(torch, n, budget):
    t = torch.zeros(64, 256)
    for i in range(n):
        budget.check(i, n)
        t[i % 64, :10] = float(i)
    return t.sum().item()


def shapes(torch, n, budget):
    total = 0.0
    for k in range(1, n + 1):
        budget.check(k - 1, n)
        total += torch.randn(k, 16).softmax(-1).sum().item()
    return total


def _text(chars):
    words = ("the quick brown fox jumps over a lazy dog while seven wizards quietly hex jolly zebras and "
             "King Lear, Hamlet; Ophelia! who? said Juliet: to be or not to be").split()
    rng, out = random.Random(0), []
    while sum(map(len, out)) < chars:
        out.append(rng.choice(words) + rng.choice("  \n"))
    return "".join(out)[:chars]


def bigram(torch, steps, budget):
    """Karpathy's bigram.py (nanoGPT lecture), shortened: AdamW, cross-entropy, a loss estimate now and then."""
    nn, F = torch.nn, torch.nn.functional
    batch_size, block_size, eval_every, eval_iters = 32, 8, 100, min(20, steps)
    text = _text(20000)
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    train_data, val_data = data[:18000], data[18000:]

    def get_batch(split):
        budget.tick()
        data = train_data if split == "train" else val_data
        ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([data[i:i + block_size] for i in ix])
        y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
        return x, y

    class Bigram(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = nn.Embedding(len(chars), len(chars))

        def forward(self, idx, targets):
            logits = self.table(idx)  # (B, T, C)
            B, T, C = logits.shape
            return F.cross_entropy(logits.view(B * T, C), targets.view(B * T))

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        out = {s: torch.stack([model(*get_batch(s)) for _ in range(eval_iters)]).mean() for s in ("train", "val")}
        model.train()
        return {s: v.item() for s, v in out.items()}

    model = Bigram()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for step in range(steps):
        budget.check(step, steps)
        if step % eval_every == 0:
            estimate_loss()
        loss = model(*get_batch("train"))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return loss.item()


def _gpt(torch, vocab=65, block=256, n_embd=64, n_head=4, n_layer=2):
    """The lecture's gpt.py at a small size: masked self-attention with a `tril[:T, :T]` buffer."""
    nn, F = torch.nn, torch.nn.functional

    class Head(nn.Module):
        def __init__(self, hs):
            super().__init__()
            self.key, self.query, self.value = (nn.Linear(n_embd, hs, bias=False) for _ in range(3))
            self.register_buffer("tril", torch.tril(torch.ones(block, block)))

        def forward(self, x):
            B, T, C = x.shape
            k, q = self.key(x), self.query(x)  # (B, T, hs)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, T)
            wei = F.softmax(wei.masked_fill(self.tril[:T, :T] == 0, float("-inf")), dim=-1)
            return wei @ self.value(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleList(Head(n_embd // n_head) for _ in range(n_head))
            self.proj = nn.Linear(n_embd, n_embd)
            self.ffwd = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.ReLU(), nn.Linear(4 * n_embd, n_embd))
            self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)

        def forward(self, x):
            h = self.ln1(x)
            x = x + self.proj(torch.cat([head(h) for head in self.heads], dim=-1))
            return x + self.ffwd(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.blocks = nn.Sequential(*(Block() for _ in range(n_layer)))
            self.ln_f, self.lm_head = nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab)

        def forward(self, idx):
            B, T = idx.shape
            x = self.tok(idx) + self.pos(torch.arange(T))  # (B, T, n_embd)
            return self.lm_head(self.ln_f(self.blocks(x)))  # (B, T, vocab)

    return GPT()


def gpt_sample(torch, n, budget):
    model = _gpt(torch).eval()
    idx = torch.zeros((1, 1), dtype=torch.long)
    with torch.no_grad():
        for k in range(n):
            budget.check(k, n)
            logits = model(idx[:, -256:])
            probs = torch.nn.functional.softmax(logits[:, -1, :], dim=-1)  # (1, vocab)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
    return idx.shape[1]


def _layers(nn, torch):
    """(layer, input shapes or a function making the inputs); every entry is a new layer at a new shape."""
    x = lambda *shape: (lambda: [torch.randn(*shape, requires_grad=True)])  # noqa: E731
    return [
        (nn.Linear(17, 9), x(3, 17)), (nn.Bilinear(5, 6, 7), lambda: [torch.randn(4, 5), torch.randn(4, 6)]),
        (nn.Conv1d(3, 5, 3), x(2, 3, 19)), (nn.Conv2d(3, 6, 3, stride=2, padding=1), x(2, 3, 13, 11)),
        (nn.Conv3d(2, 4, 2), x(1, 2, 5, 6, 7)), (nn.ConvTranspose1d(4, 3, 3, stride=2), x(2, 4, 9)),
        (nn.ConvTranspose2d(3, 2, 3, stride=2), x(2, 3, 7, 6)), (nn.MaxPool1d(2), x(2, 3, 21)),
        (nn.MaxPool2d(3, stride=2), x(2, 3, 15, 14)), (nn.AvgPool1d(3), x(2, 4, 22)),
        (nn.AvgPool2d(2), x(3, 2, 10, 12)), (nn.AdaptiveAvgPool2d((3, 4)), x(2, 3, 11, 13)),
        (nn.AdaptiveMaxPool2d(2), x(2, 2, 9, 9)), (nn.LPPool2d(2, 2), x(1, 3, 8, 10)),
        (nn.BatchNorm1d(7), x(5, 7)), (nn.BatchNorm2d(3), x(4, 3, 6, 5)), (nn.LayerNorm(23), x(3, 23)),
        (nn.GroupNorm(2, 6), x(2, 6, 5, 4)), (nn.InstanceNorm2d(3), x(2, 3, 7, 7)),
        (nn.LocalResponseNorm(2), x(2, 5, 6, 6)), (nn.RMSNorm(19), x(4, 19)), (nn.Dropout(0.3), x(6, 29)),
        (nn.Embedding(31, 8), lambda: [torch.randint(0, 31, (3, 5))]),
        (nn.RNN(6, 10, batch_first=True), x(2, 7, 6)), (nn.GRU(5, 9), x(8, 2, 5)),
        (nn.LSTM(4, 11, num_layers=2), x(6, 3, 4)),
        (nn.MultiheadAttention(16, 4, batch_first=True), lambda: [torch.randn(2, 9, 16, requires_grad=True)] * 3),
        (nn.TransformerEncoderLayer(24, 4, 48, batch_first=True), x(2, 11, 24)),
        (nn.TransformerDecoderLayer(20, 2, 40, batch_first=True),
         lambda: [torch.randn(2, 6, 20, requires_grad=True), torch.randn(2, 8, 20)]),
        (nn.ReLU(), x(37)), (nn.GELU(), x(3, 38)), (nn.SiLU(), x(39)), (nn.Mish(), x(40)), (nn.ELU(), x(41)),
        (nn.SELU(), x(42)), (nn.CELU(), x(43)), (nn.LeakyReLU(0.1), x(44)), (nn.PReLU(), x(45)),
        (nn.Softplus(), x(46)), (nn.Hardswish(), x(47)), (nn.Hardsigmoid(), x(48)), (nn.Tanh(), x(49)),
        (nn.Sigmoid(), x(50)), (nn.Softmax(-1), x(3, 17)), (nn.LogSoftmax(1), x(4, 13)), (nn.GLU(), x(5, 14)),
        (nn.Hardtanh(), x(51)), (nn.Softsign(), x(52)), (nn.Upsample(scale_factor=2, mode="bilinear"), x(1, 2, 5, 6)),
        (nn.PixelShuffle(2), x(1, 8, 3, 4)), (nn.ReflectionPad2d(2), x(1, 2, 5, 5)),
        (nn.Unfold(3), x(1, 2, 6, 7)), (nn.CosineSimilarity(), lambda: [torch.randn(4, 9, requires_grad=True)] * 2),
    ]


def layer_tour(torch, n, budget):
    layers = _layers(torch.nn, torch)[:n]
    for k, (layer, inputs) in enumerate(layers):
        budget.check(k, len(layers))
        out = layer(*inputs())
        (out[0] if isinstance(out, tuple) else out).sum().backward()
    return len(layers)


def _varlen(torch, model, head, n, budget):
    optimizer = torch.optim.SGD([*model.parameters(), *head.parameters()], lr=1e-3)
    for k in range(n):
        budget.check(k, n)
        out = model(torch.randn(8, 5 + 5 * k, 32))
        loss = head(out[0] if isinstance(out, tuple) else out).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def varlen_lstm(torch, n, budget):
    return _varlen(torch, torch.nn.LSTM(32, 64, batch_first=True), torch.nn.Linear(64, 1), n, budget)


def varlen_transformer(torch, n, budget):
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
    return _varlen(torch, torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False),
                   torch.nn.Linear(32, 1), n, budget)


# ---- pure-JAX references (eager jax.numpy, what JAX itself costs for the same loop) ---------------------------------

def jax_index_loop(n):
    t, s = jax.random.normal(jax.random.key(0), (64, 256)), jnp.zeros(())
    for i in range(n):
        s = s + t[:, i].sum()
    return float(s)


def jax_write_loop(n):
    t = jnp.zeros((64, 256))
    for i in range(n):
        t = t.at[i % 64, :10].set(float(i))
    return float(t.sum())


def jax_shapes(n):
    key, total = jax.random.key(0), 0.0
    for k in range(1, n + 1):
        key, sub = jax.random.split(key)
        total += float(jax.nn.softmax(jax.random.normal(sub, (k, 16)), -1).sum())
    return total


# ---- the harness ----------------------------------------------------------------------------------------------------

class Row:
    def __init__(self, name, torch_s, facade_s, jax_s=None, compiles=None, compile_s=None, note=""):
        self.name, self.torch_s, self.facade_s, self.jax_s = name, torch_s, facade_s, jax_s
        self.compiles, self.compile_s, self.note = compiles, compile_s, note


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def in_process(name, fn, size, budget_s, jax_fn=None):
    torch.manual_seed(0)
    torch_s = _timed(lambda: fn(torch, size, Budget(float("inf"))))
    note, jax_s = "", None
    if jax_fn:
        c0 = metrics().compiles
        jax_s = _timed(lambda: jax_fn(size))
        note = f"jax.numpy: {metrics().compiles - c0} compiles; "
    facade.manual_seed(0)
    facade.compiler.reset_metrics()
    start = time.perf_counter()
    try:
        fn(facade, size, Budget(budget_s))
    except OverBudget as e:
        note = f"facade {e} (budget {budget_s:.0f} s); " + note
    facade_s = time.perf_counter() - start
    m = metrics()
    top = sorted(m.ops.items(), key=lambda kv: -kv[1].compiles)[:3]
    note += "most: " + ", ".join(f"{k} {v.compiles}" for k, v in top)
    return [Row(name, torch_s, facade_s, jax_s, m.compiles, m.compile_seconds, note)]


def _run_script(args, under_facade, env=None, timeout=900):
    """Run a script (torch or facade) in a subprocess; (wall seconds, stdout, (compiles, seconds, cache hits))."""
    cmd = [sys.executable, "-c", _CHILD, *args] if under_facade else [sys.executable, *args]
    env = {k: v for k, v in {**os.environ, **(env or {})}.items() if not k.startswith("JAX_COMPILATION_CACHE")}
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"{' '.join(args)} failed under {'facade' if under_facade else 'torch'}:\n{proc.stderr}")
    m = re.search(r"__compiles__ (\d+) ([\d.]+) (\d+)", proc.stderr)
    return wall, proc.stdout, (int(m[1]), float(m[2]), int(m[3])) if m else (None, None, None)


def _epochs(stdout):
    return [float(s) for s in re.findall(r"^epoch \d+:.*\(([\d.]+)s\)$", stdout, re.M)]


def _later(epochs):
    return sum(epochs[1:]) / len(epochs[1:]) if len(epochs) > 1 else None


def _main_job_args(epochs, out):
    """The README's main job, eager only (its compiled half is bench_compile's subject, and real torch's inductor
    build of the step takes minutes here), writing its files to `out`."""
    return ["examples/train_digits.py", "--epochs", str(epochs), "--no-compile", "--no-progress", "--out", out]


def main_job(epochs, budget_s):
    with tempfile.TemporaryDirectory() as d:
        args = _main_job_args(epochs, d)
        t_wall, t_out, _ = _run_script(args, False)
        f_wall, f_out, (n, secs, _) = _run_script(args, True)
    te, fe = _epochs(t_out), _epochs(f_out)
    return [Row("main_job: first epoch", te[0], fe[0], note="epoch times as printed (0.1 s resolution)"),
            Row("main_job: a later epoch (mean)", _later(te), _later(fe)),
            Row(f"main_job: whole run ({epochs} epochs, subprocess)", t_wall, f_wall, compiles=n, compile_s=secs,
                note="includes interpreter and library imports")]


def cache(epochs, budget_s):
    rows = []
    with tempfile.TemporaryDirectory() as d:
        args = _main_job_args(epochs, d)
        t_wall, t_out, _ = _run_script(args, False)
        env = {"FACADE_CACHE": "1", "FACADE_CACHE_DIR": d}  # facade's default cache, in a fresh directory
        for run in ("first run, empty cache", "second run, warm cache"):
            wall, out, (n, secs, hits) = _run_script(args, True, env)
            te, fe = _epochs(t_out), _epochs(out)
            rows.append(Row(f"cache: {run} (whole run)", t_wall, wall, compiles=n, compile_s=secs,
                            note=f"{hits} persistent-cache hits; epochs: first {fe[0]} s, later {_fmt(_later(fe))} s "
                                 f"(torch {te[0]} s, {_fmt(_later(te))} s)"))
    return rows


# name: (runner, full size, quick size, pure-JAX reference)
WORKLOADS = {
    "index_loop": (index_loop, 200, 20, jax_index_loop),
    "write_loop": (write_loop, 200, 20, jax_write_loop),
    "shapes": (shapes, 40, 5, jax_shapes),
    "bigram": (bigram, 300, 20, None),
    "main_job": (main_job, 8, 2, None),
    "gpt_sample": (gpt_sample, 200, 10, None),
    "layer_tour": (layer_tour, 53, 6, None),  # all 53 layers of _layers
    "varlen_lstm": (varlen_lstm, 20, 3, None),
    "varlen_transformer": (varlen_transformer, 20, 3, None),
    "cache": (cache, 3, 2, None),
}
COLUMNS = ("workload", "torch s", "facade s", "jax s", "facade/torch", "compiles", "compile s", "note")


def _fmt(v, prefix=""):
    if v is None:
        return "-"
    return prefix + (str(v) if isinstance(v, int) else f"{v:.3g}" if v < 100 else f"{v:.0f}")


def print_table(rows):
    cells = [COLUMNS]
    for r in rows:
        over = "> " if "stopped at" in r.note else ""
        ratio = r.facade_s / r.torch_s if r.torch_s and r.facade_s is not None else None
        cells.append((r.name, _fmt(r.torch_s), _fmt(r.facade_s, over), _fmt(r.jax_s), _fmt(ratio, over),
                      _fmt(r.compiles), _fmt(r.compile_s), r.note.rstrip("; ")))
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS) - 1)]
    for c in cells:
        print("  ".join([c[0].ljust(widths[0]), *(v.rjust(w) for v, w in zip(c[1:], widths[1:])), c[-1]]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--only", help="comma-separated workload names: " + ", ".join(WORKLOADS))
    parser.add_argument("--budget", type=float, default=120.0, help="seconds before a facade run is stopped")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}")
    rows = []
    for name in names:
        fn, full, quick, jax_fn = WORKLOADS[name]
        size = quick if args.quick else full
        if name in ("main_job", "cache"):
            rows += fn(size, args.budget)
        else:
            rows += in_process(f"{name} ({size})", fn, size, args.budget, jax_fn)
        print(f"# done {name}", file=sys.stderr, flush=True)
    print_table(rows)


if __name__ == "__main__":
    main()
