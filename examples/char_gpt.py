"""Train a character-level GPT on Shakespeare's sonnets with torch.compile, then sample from it.

A plain PyTorch script in the style of nanoGPT: token and position embeddings, pre-norm transformer
blocks with causal self-attention (F.scaled_dot_product_attention), AdamW, gradient clipping.

    python examples/char_gpt.py                  # real PyTorch
    python -m facade examples/char_gpt.py        # the same script on facade (JAX)
    python -m facade examples/char_gpt.py --steps 2000 --n-layer 4 --n-embd 128 --block-size 64

Everything random comes from one seeded numpy generator (the weights, the batch offsets, the
sampling draws), so real torch and facade print the same losses and the same sample. The text is
examples/data/sonnets.txt (see examples/data/README.md).
"""

import argparse
import os

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sonnets.txt")


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_embd, n_head, n_layer):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        T = idx.shape[1]
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(T))  # (B, T, C)
        logits = self.head(self.ln_f(self.blocks(x)))  # (B, T, vocab)
        if targets is None:
            return logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def init_weights(model, rng):
    """GPT-2's init (normal, std 0.02; zero biases; unit LayerNorm gains) drawn from numpy, not torch's RNG."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.zero_()
            elif p.dim() == 1:
                p.fill_(1.0)
            else:
                p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32) * 0.02))


def get_batch(data, rng, batch_size, block_size):
    """(B, T) inputs and the (B, T) next characters, at random offsets into `data`."""
    ix = rng.integers(0, len(data) - block_size - 1, size=batch_size)[:, None] + np.arange(block_size)
    return torch.from_numpy(data[ix]), torch.from_numpy(data[ix + 1])


@torch.no_grad()
def sample(model, context, n_chars, rng, temperature=0.8):
    """Extend `context` (1-D int64 array of block_size ids) by n_chars ids, drawn by inverse CDF from numpy
    uniforms. The model always sees a full window, so every call has the same shape."""
    model.eval()
    out = list(context)
    for _ in range(n_chars):
        window = torch.from_numpy(np.array(out[-len(context):], dtype=np.int64))[None]
        probs = F.softmax(model(window)[0, -1] / temperature, dim=-1).numpy().astype(np.float64)
        out.append(min(int(np.searchsorted(np.cumsum(probs), rng.random() * probs.sum())), len(probs) - 1))
    model.train()
    return out[len(context):]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--block-size", type=int, default=32)
    parser.add_argument("--n-layer", type=int, default=2)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--n-embd", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--print-every", type=int, default=10)
    parser.add_argument("--sample-chars", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-compile", action="store_true", help="train the eager model (same numbers, no XLA/"
                        "inductor compile)")
    args = parser.parse_args()

    with open(DATA) as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    split = int(0.9 * len(data))
    train_data, val_data = data[:split], data[split:]
    rng = np.random.default_rng(args.seed)

    model = GPT(len(chars), args.block_size, args.n_embd, args.n_head, args.n_layer)
    init_weights(model, rng)
    print(f"{len(text)} characters, vocabulary {len(chars)}, parameters {sum(p.numel() for p in model.parameters())}")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    # The compiled module shares its parameters with `model`; sampling below uses the eager model.
    train_model = model if args.no_compile else torch.compile(model)

    for step in range(1, args.steps + 1):
        x, y = get_batch(train_data, rng, args.batch_size, args.block_size)
        loss = train_model(x, y)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step == 1 or step % args.print_every == 0:
            print(f"step {step:4d}  train loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        val_rng = np.random.default_rng(args.seed + 1)  # the same held-out batches whatever the training length
        val = [model(*get_batch(val_data, val_rng, args.batch_size, args.block_size)).item() for _ in range(4)]
    print(f"val loss {sum(val) / len(val):.4f}")
    ids = sample(model, val_data[:args.block_size], args.sample_chars, rng)
    print("sample:", repr("".join(chars[i] for i in ids)))


if __name__ == "__main__":
    main()
