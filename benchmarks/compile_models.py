"""The three models of benchmarks/bench_compile.py, written once for `torch` and `facade` (pass either as `torch`),
and the batch each trains on. Shared with tests/test_compile_models.py; imports neither library itself."""

from __future__ import annotations

import functools

import numpy as np


def mlp(torch, dims, batch):
    nn, layers = torch.nn, []
    for i, (a, b) in enumerate(zip(dims, dims[1:])):
        layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i < len(dims) - 2 else [])
    return nn.Sequential(*layers), functools.partial(torch.optim.Adam, lr=1e-3)


def cnn(torch, chans, size, classes, batch):
    nn, layers = torch.nn, []
    for a, b in zip(chans, chans[1:]):
        layers += [nn.Conv2d(a, b, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(chans[-1], classes))
    return model, functools.partial(torch.optim.SGD, lr=0.01, momentum=0.9)


def gpt(torch, layers, heads, dim, block, vocab, batch, p):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.attn, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.fc, self.gelu, self.fc2 = nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)
            self.drop_attn, self.drop_proj, self.drop_mlp = nn.Dropout(p), nn.Dropout(p), nn.Dropout(p)
            self.register_buffer("mask", torch.tril(torch.ones(block, block, dtype=torch.bool)))

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.attn(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
            att = (q @ k.transpose(-2, -1)) * (C // heads) ** -0.5
            att = self.drop_attn(att.masked_fill(~self.mask[:T, :T], float("-inf")).softmax(dim=-1))
            y = (att @ v).transpose(1, 2).reshape(B, T, C)
            x = x + self.drop_proj(self.proj(y))
            return x + self.drop_mlp(self.fc2(self.gelu(self.fc(self.ln2(x)))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos, self.drop = nn.Embedding(vocab, dim), nn.Embedding(block, dim), nn.Dropout(p)
            self.blocks = nn.Sequential(*(Block() for _ in range(layers)))
            self.ln_f, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab, bias=False)

        def forward(self, idx):
            x = self.drop(self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device)))
            return self.head(self.ln_f(self.blocks(x)))  # (B, T, vocab)

    return GPT(), functools.partial(torch.optim.AdamW, lr=1e-3)  # weight decay 0.01 by default


MODELS = {"mlp": mlp, "cnn": cnn, "gpt": gpt}


def train_step(torch, model, opt):
    """The training step every variant runs: zero_grad, forward, cross-entropy over all positions, backward,
    optimizer step; returns the loss."""

    def step(x, y):
        opt.zero_grad()
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss

    return step


def batch(name, cfg):
    """One (inputs, targets) batch as numpy arrays; every variant trains on it."""
    rng = np.random.default_rng(0)
    if name == "mlp":
        return rng.standard_normal((cfg["batch"], cfg["dims"][0]), np.float32), rng.integers(0, cfg["dims"][-1],
                                                                                             cfg["batch"])
    if name == "cnn":
        s = cfg["size"]
        return rng.standard_normal((cfg["batch"], 1, s, s), np.float32), rng.integers(0, cfg["classes"], cfg["batch"])
    tokens = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["block"] + 1))
    return tokens[:, :-1], tokens[:, 1:]
