"""Train a small CNN on the embedded handwritten-digits dataset (8x8 images, 10 classes).

A plain PyTorch script: nn.Sequential of Conv2d / BatchNorm2d / MaxPool2d / Dropout / Linear,
CrossEntropyLoss with label smoothing, AdamW with a OneCycleLR schedule, DataLoader over a
TensorDataset, gradient clipping, a checkpoint saved and reloaded for the final evaluation.

    python examples/train_digits.py              # real PyTorch
    python -m facade examples/train_digits.py    # the same script on facade (JAX)

The data (examples/data/digits.csv.gz, see examples/data/README.md) is the UCI handwritten-digits
set: 1797 rows of 64 pixels in 0..16 and a label.
"""

import argparse
import gzip
import os
import tempfile
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.csv.gz")


def load_digits():
    """(N, 1, 8, 8) float32 images scaled to [0, 1] and (N,) int64 labels."""
    with gzip.open(DATA, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.float32)
    x = torch.from_numpy(rows[:, :64].reshape(-1, 1, 8, 8) / 16.0)
    y = torch.from_numpy(rows[:, 64].astype(np.int64))
    return x, y


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),  # (B, 16, 8, 8)
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.Conv2d(16, 32, kernel_size=3, padding=1),  # (B, 32, 8, 8)
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),  # (B, 32, 4, 4)
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(32 * 4 * 4, 64),
        nn.ReLU(),
        nn.Linear(64, 10),
    )


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = total = 0
    loss = 0.0
    for x, y in loader:
        logits = model(x)
        loss += nn.functional.cross_entropy(logits, y, reduction="sum").item()
        correct += (logits.argmax(dim=1) == y).sum().item()
        total += y.numel()
    return loss / total, correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    x, y = load_digits()
    train_set, test_set = random_split(TensorDataset(x, y), [1497, 300], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=256)

    model = make_model()
    print(f"parameters: {sum(p.numel() for p in model.parameters())}")
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=steps)

    for epoch in range(args.epochs):
        model.train()
        start, running, seen = time.perf_counter(), 0.0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            optimizer.step()
            scheduler.step()
            running += loss.item() * yb.numel()
            seen += yb.numel()
        test_loss, test_acc = evaluate(model, test_loader)
        print(f"epoch {epoch + 1}: train loss {running / seen:.4f}  test loss {test_loss:.4f}  "
              f"test acc {test_acc:.3f}  lr {scheduler.get_last_lr()[0]:.2e}  ({time.perf_counter() - start:.1f}s)")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "digits.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
        restored = make_model()
        restored.load_state_dict(torch.load(path)["model"])
    test_loss, test_acc = evaluate(restored, test_loader)
    print(f"restored checkpoint: test loss {test_loss:.4f}  test acc {test_acc:.3f}")


if __name__ == "__main__":
    main()
