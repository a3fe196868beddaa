"""Classify handwritten digits with an LSTM that reads each 8x8 image one row at a time.

A plain PyTorch script: a 2-layer nn.LSTM (batch_first) over 8 steps of 8 pixels, a linear head on the
last layer's final hidden state, CrossEntropyLoss, Adam, gradient clipping.

    python examples/lstm.py                  # real PyTorch
    python -m facade examples/lstm.py        # the same script on facade (JAX)
    python -m facade examples/lstm.py --epochs 20 --hidden 64

The weights (torch's uniform(-1/sqrt(fan), 1/sqrt(fan)) rule), the train/test split and the batch order
come from one seeded numpy generator, so real torch and facade print the same losses and accuracies.
The data is examples/data/digits.csv.gz (see examples/data/README.md).
"""

import argparse

import numpy as np
import torch
from torch import nn
from train_digits import load_digits  # examples/ is sys.path[0] when a script there runs


class RowLSTM(nn.Module):
    def __init__(self, hidden, num_layers):
        super().__init__()
        self.lstm = nn.LSTM(input_size=8, hidden_size=hidden, num_layers=num_layers, batch_first=True)
        self.head = nn.Linear(hidden, 10)

    def forward(self, images):
        rows = images.reshape(-1, 8, 8)  # (B, T=8 rows, 8 pixels)
        _, (h_n, _) = self.lstm(rows)  # h_n: (num_layers, B, hidden)
        return self.head(h_n[-1])  # (B, 10)


def init_uniform_(model, rng):
    """torch's default init (uniform(-1/sqrt(hidden), ..) for LSTMs, uniform(-1/sqrt(fan_in), ..) for Linear),
    drawn from numpy instead of torch's RNG."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (nn.LSTM, nn.Linear)):
                fan = module.hidden_size if isinstance(module, nn.LSTM) else module.in_features
                for p in module.parameters():
                    p.copy_(torch.from_numpy(rng.uniform(-fan ** -0.5, fan ** -0.5, p.shape).astype(np.float32)))


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    logits = model(x)
    model.train()
    return nn.functional.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--num-layers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    x, y = load_digits()
    order = torch.from_numpy(rng.permutation(len(y)))
    train_idx, test_idx = order[:1497], order[1497:]
    x_test, y_test = x[test_idx], y[test_idx]

    model = RowLSTM(args.hidden, args.num_layers)
    init_uniform_(model, rng)
    print(f"parameters: {sum(p.numel() for p in model.parameters())}")
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    n_batches = len(train_idx) // args.batch_size  # drop the last partial batch: one shape, one program

    for epoch in range(1, args.epochs + 1):
        perm = train_idx[torch.from_numpy(rng.permutation(len(train_idx)))]
        total = 0.0
        for b in range(n_batches):
            idx = perm[b * args.batch_size:(b + 1) * args.batch_size]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += loss.item()
        test_loss, test_acc = evaluate(model, x_test, y_test)
        print(f"epoch {epoch}: train loss {total / n_batches:.4f}  test loss {test_loss:.4f}  test acc {test_acc:.4f}")


if __name__ == "__main__":
    main()
