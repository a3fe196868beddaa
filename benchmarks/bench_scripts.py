"""Ordinary PyTorch scripts, unchanged, under real torch and under `python -m facade`: whole-run wall time.

    python benchmarks/bench_scripts.py [--quick] [--only NAME[,NAME...]] [--keep DIR] [--cold-only] [--unbucketed]

Six plain-PyTorch scripts (their source is below, written to a temporary directory, or to `--keep DIR`
to run or profile them by hand):

    mnist_cnn    an MNIST-like CNN (random 28x28 images, 10 classes), Adam, 3 epochs of batches of 32
    char_lstm    a char-level LSTM language model on this repository's README.md, random windows per batch
    gpt_sample   a char-level GPT trained a few steps, then sampling 200 tokens with a growing context
    vae          pytorch/examples' VAE (BCE + KL, reparameterized), Adam, 3 epochs of batches of 128
    siamese      a siamese CNN on random pairs from a Dataset, contrastive loss, Adadelta + StepLR, 2 epochs
    char_rnn     the PyTorch tutorial's name classifier: a manual RNN cell, one name (3-10 letters) at a time

Each runs as a subprocess (`python script.py`, then `python -m facade script.py` twice with one fresh
persistent compile cache directory: cold, then warm). Columns: whole-run wall seconds (interpreter and
library imports included), the seconds the script itself measured after its imports ("work"),
facade/torch ratios of both, and the XLA programs facade built with their seconds (trace + lowering +
XLA compile or cache load), read from the `FACADE_COMPILE_SUMMARY=1` summary printed at exit.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# ---- the scripts: ordinary PyTorch, nothing facade-specific ---------------------------------------------------------
# Each reads its size from argv[1] (a step/epoch count), prints `result <number>` and `work <seconds>`.

_HEAD = """\
import sys, time
start = time.perf_counter()
import torch
from torch import nn
import torch.nn.functional as F
torch.manual_seed(0)
"""
_TAIL = """\
print(f"result {result:.6f}")
print(f"work {time.perf_counter() - start:.3f}")
"""

MNIST_CNN = _HEAD + """\
from torch.utils.data import DataLoader, TensorDataset
epochs, n = int(sys.argv[1]), int(sys.argv[2])
x, y = torch.randn(n, 1, 28, 28), torch.randint(0, 10, (n,))
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)  # the last batch is smaller
model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # (B, 16, 14, 14)
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # (B, 32, 7, 7)
    nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Dropout(0.25), nn.Linear(64, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(epochs):
    model.train()
    total = 0.0
    for xb, yb in loader:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    model.eval()
    with torch.no_grad():
        acc = (model(x[:256]).argmax(1) == y[:256]).float().mean().item()
    print(f"epoch {epoch}: loss {total / n:.4f} acc {acc:.3f}")
result = total / n
""" + _TAIL

CHAR_LSTM = _HEAD + """\
steps, text = int(sys.argv[1]), open(sys.argv[2]).read()
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
block, batch = 32, 16

def get_batch():
    ix = torch.randint(len(data) - block - 1, (batch,))
    x = torch.stack([data[i:i + block] for i in ix])
    y = torch.stack([data[i + 1:i + block + 1] for i in ix])
    return x, y

class CharLSTM(nn.Module):
    def __init__(self, vocab, hidden=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, 64)
        self.lstm = nn.LSTM(64, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, idx):
        out, _ = self.lstm(self.emb(idx))  # (B, T, hidden)
        return self.head(out)  # (B, T, vocab)

model = CharLSTM(len(chars))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step in range(steps):
    x, y = get_batch()
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, len(chars)), y.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 50 == 0:
        print(f"step {step}: loss {loss.item():.4f}")
result = loss.item()
""" + _TAIL

GPT_SAMPLE = _HEAD + """\
steps, tokens = int(sys.argv[1]), int(sys.argv[2])
text = open(sys.argv[3]).read()
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
vocab, block, n_embd, n_head = len(chars), 256, 64, 4

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
        self.blocks = nn.Sequential(Block(), Block())
        self.ln_f, self.lm_head = nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab)

    def forward(self, idx):
        B, T = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(T))  # (B, T, n_embd)
        return self.lm_head(self.ln_f(self.blocks(x)))  # (B, T, vocab)

model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(steps):  # a few training steps on fixed-length windows
    ix = torch.randint(len(data) - 65, (8,))
    x = torch.stack([data[i:i + 64] for i in ix])
    y = torch.stack([data[i + 1:i + 65] for i in ix])
    loss = F.cross_entropy(model(x).view(-1, vocab), y.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
model.eval()
idx = torch.zeros((1, 1), dtype=torch.long)
with torch.no_grad():
    for _ in range(tokens):  # the context grows by one token each time: a new sequence length
        logits = model(idx[:, -block:])
        probs = F.softmax(logits[:, -1, :], dim=-1)  # (1, vocab)
        idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
print("".join(chars[i] for i in idx[0].tolist())[:60].replace(chr(10), " "))
result = float(idx.shape[1])
""" + _TAIL

VAE = _HEAD + """\
from torch.utils.data import DataLoader, TensorDataset
epochs, n = int(sys.argv[1]), int(sys.argv[2])
images = torch.rand(n, 1, 28, 28)  # pixel intensities in [0, 1], as MNIST's ToTensor gives
loader = DataLoader(TensorDataset(images, torch.zeros(n)), batch_size=128, shuffle=True)

class VAE(nn.Module):  # pytorch/examples' vae/main.py
    def __init__(self):
        super().__init__()
        self.fc1, self.fc21, self.fc22 = nn.Linear(784, 400), nn.Linear(400, 20), nn.Linear(400, 20)
        self.fc3, self.fc4 = nn.Linear(20, 400), nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar

def loss_function(recon_x, x, mu, logvar):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld

model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(epochs):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        recon, mu, logvar = model(images[:500])
        test_loss = loss_function(recon, images[:500], mu, logvar).item() / 500
        sample = model.decode(torch.randn(64, 20)).view(64, 1, 28, 28)
    print(f"epoch {epoch}: train loss {train_loss / n:.4f} test loss {test_loss:.4f} sample {sample.mean():.4f}")
result = train_loss / n
""" + _TAIL

SIAMESE = _HEAD + """\
import random
from torch.utils.data import DataLoader, Dataset
epochs, n = int(sys.argv[1]), int(sys.argv[2])
random.seed(0)
images, labels = torch.randn(n, 1, 28, 28), torch.randint(0, 10, (n,))

class Pairs(Dataset):  # half the pairs from one class, half from two
    def __init__(self, images, labels):
        self.images, self.labels = images, labels
        self.by_class = {c: (labels == c).nonzero().flatten().tolist() for c in range(10)}

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        c = int(self.labels[i])
        same = random.random() < 0.5
        other = random.choice([k for k in range(10) if k != c])
        j = random.choice(self.by_class[c if same else other])
        return self.images[i], self.images[j], torch.tensor(float(not same))

class Siamese(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 32, 5), nn.ReLU(), nn.MaxPool2d(2),  # (B, 32, 12, 12)
            nn.Conv2d(32, 64, 5), nn.ReLU(), nn.MaxPool2d(2),  # (B, 64, 4, 4)
            nn.Flatten(), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 32))

    def forward(self, a, b):
        return self.cnn(a), self.cnn(b)

def contrastive_loss(e1, e2, label, margin=2.0):  # label 1: a different pair
    d = F.pairwise_distance(e1, e2)
    return torch.mean((1 - label) * d.pow(2) + label * torch.clamp(margin - d, min=0.0).pow(2))

model = Siamese()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
loader = DataLoader(Pairs(images, labels), batch_size=64, shuffle=True)
for epoch in range(epochs):
    model.train()
    for a, b, target in loader:
        optimizer.zero_grad()
        loss = contrastive_loss(*model(a, b), target)
        loss.backward()
        optimizer.step()
    scheduler.step()
    model.eval()
    correct = 0
    with torch.no_grad():
        for a, b, target in loader:
            d = F.pairwise_distance(*model(a, b))
            correct += ((d > 1.0).float() == target).sum().item()
    print(f"epoch {epoch}: loss {loss.item():.4f} pair accuracy {correct / n:.3f}")
result = loss.item()
""" + _TAIL

CHAR_RNN = _HEAD + """\
import random, string
iters = int(sys.argv[1])
random.seed(0)
letters = string.ascii_letters + " .,;'"
langs = ["English", "French", "German", "Italian", "Spanish"]
names = {lang: ["".join(random.choice(string.ascii_lowercase) for _ in range(random.randint(3, 10))).title()
                for _ in range(60)] for lang in langs}

def lineToTensor(line):  # the PyTorch tutorial "Classifying Names with a Character-Level RNN", one name at a time
    t = torch.zeros(len(line), 1, len(letters))
    for li, letter in enumerate(line):
        t[li][0][letters.find(letter)] = 1
    return t

class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h, self.h2h = nn.Linear(input_size, hidden_size), nn.Linear(hidden_size, hidden_size)
        self.h2o, self.softmax = nn.Linear(hidden_size, output_size), nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        hidden = torch.tanh(self.i2h(input) + self.h2h(hidden))
        return self.softmax(self.h2o(hidden)), hidden

rnn, criterion, lr = RNN(len(letters), 128, len(langs)), nn.NLLLoss(), 0.005
total = 0.0
for it in range(1, iters + 1):
    lang = random.choice(langs)
    line_tensor = lineToTensor(random.choice(names[lang]))
    hidden = torch.zeros(1, rnn.hidden_size)
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):  # a manual RNN cell: a new graph length per name length
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, torch.tensor([langs.index(lang)], dtype=torch.long))
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-lr)
    total += loss.item()
    if it % 500 == 0:
        print(f"{it}: loss {total / 500:.4f}")
        result, total = total / 500, 0.0
""" + _TAIL

README = str(ROOT / "README.md")
# name: (source, full-size arguments, quick arguments)
SCRIPTS = {
    "mnist_cnn": (MNIST_CNN, ["3", "2000"], ["1", "64"]),
    "char_lstm": (CHAR_LSTM, ["300", README], ["3", README]),
    "gpt_sample": (GPT_SAMPLE, ["50", "200", README], ["2", "5", README]),
    "vae": (VAE, ["3", "6000"], ["1", "256"]),
    "siamese": (SIAMESE, ["2", "2000"], ["1", "128"]),
    "char_rnn": (CHAR_RNN, ["1000"], ["500"]),
}

# ---- the harness ----------------------------------------------------------------------------------------------------

_SUMMARY = re.compile(r"facade: (\d+) XLA programs built in ([\d.]+) s.*?(?:(\d+) hits|cache off)")


class Run:
    """One subprocess run: wall and work seconds, the script's result, and facade's compile summary."""

    def __init__(self, wall, stdout, stderr):
        self.wall = wall
        self.work = float(re.search(r"^work ([\d.]+)$", stdout, re.M)[1])
        self.result = float(re.search(r"^result (\S+)$", stdout, re.M)[1])
        m = _SUMMARY.search(stderr)
        self.compiles, self.compile_s = (int(m[1]), float(m[2])) if m else (None, None)
        self.hits = int(m[3]) if m and m[3] else None
        self.summary = stderr[m.start():].strip() if m else ""


def run_script(path, args, under_facade, env=None, timeout=1800):
    """`python path args` (or `python -m facade path args`) in a subprocess, from the repository root."""
    cmd = [sys.executable, *(["-m", "facade"] if under_facade else []), str(path), *args]
    env = {k: v for k, v in {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}.items()
           if not k.startswith("JAX_COMPILATION_CACHE")}
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return Run(wall, proc.stdout, proc.stderr)


def bench(name, directory, quick=False, warm=True):
    """torch, then facade with a fresh cache directory (cold), then again (warm): a list of (label, Run)."""
    source, full, small = SCRIPTS[name]
    path = Path(directory) / f"{name}.py"
    path.write_text(source)
    args = small if quick else full
    runs = [("torch", run_script(path, args, False))]
    with tempfile.TemporaryDirectory() as cache:
        env = {"FACADE_CACHE": "1", "FACADE_CACHE_DIR": cache, "FACADE_COMPILE_SUMMARY": "1"}
        runs.append(("facade, cold cache", run_script(path, args, True, env)))
        if warm:
            runs.append(("facade, warm cache", run_script(path, args, True, env)))
    return runs


COLUMNS = ("script", "run", "wall s", "work s", "wall ratio", "work ratio", "compiles", "compile s", "cache hits",
           "result")


def _fmt(v):
    return "-" if v is None else str(v) if isinstance(v, int) else f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def print_table(rows):
    cells = [COLUMNS]
    for name, runs in rows:
        base = runs[0][1]
        for label, r in runs:
            cells.append((name, label, _fmt(r.wall), _fmt(r.work), _fmt(r.wall / base.wall), _fmt(r.work / base.work),
                          _fmt(r.compiles), _fmt(r.compile_s), _fmt(r.hits), _fmt(r.result)))
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]
    for c in cells:
        left = [c[0].ljust(widths[0]), c[1].ljust(widths[1])]
        print("  ".join([*left, *(v.rjust(w) for v, w in zip(c[2:], widths[2:]))]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a smoke test")
    parser.add_argument("--only", help="comma-separated script names: " + ", ".join(SCRIPTS))
    parser.add_argument("--keep", help="write the scripts into this directory (kept) instead of a temporary one")
    parser.add_argument("--cold-only", action="store_true", help="skip the second (warm cache) facade run")
    parser.add_argument("--verbose", action="store_true", help="also print facade's compile summaries")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(SCRIPTS)
    unknown = [n for n in names if n not in SCRIPTS]
    if unknown:
        parser.error(f"unknown script(s) {unknown}; choose from {list(SCRIPTS)}")
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.keep or tmp
        os.makedirs(directory, exist_ok=True)
        rows = []
        for name in names:
            rows.append((name, bench(name, directory, args.quick, not args.cold_only)))
            print(f"# done {name}", file=sys.stderr, flush=True)
            if args.verbose:
                for label, r in rows[-1][1][1:]:
                    print(f"# {name}, {label}:\n{r.summary}", file=sys.stderr)
    print_table(rows)


if __name__ == "__main__":
    main()
