"""Train a small CNN on the embedded handwritten-digits dataset (8x8 images, 10 classes), eagerly and compiled.

A plain PyTorch script: nn.Sequential of Conv2d / BatchNorm2d / MaxPool2d / Dropout / Linear,
CrossEntropyLoss with label smoothing, AdamW with a OneCycleLR schedule, DataLoader over a
TensorDataset, gradient clipping and a tqdm progress bar. It trains the model twice from the same
initial weights: eagerly, then with the whole training step under `torch.compile`, and prints the
speed of each. The compiled model's checkpoint is saved, reloaded and evaluated; a loss/accuracy
plot (PNG) and TensorBoard event files are written next to it (`--out`, default runs/train_digits).

    python examples/train_digits.py              # real PyTorch
    python -m facade examples/train_digits.py    # the same script on facade (JAX)

The data (examples/data/digits.csv.gz, see examples/data/README.md) is the UCI handwritten-digits
set: 1797 rows of 64 pixels in 0..16 and a label.
"""

import argparse
import copy
import gzip
import os
import time

import matplotlib

matplotlib.use("Agg")  # files only, no window
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset, random_split  # noqa: E402
from torch.utils.tensorboard import SummaryWriter  # noqa: E402
from tqdm import tqdm  # noqa: E402

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


def train(name, model, train_loader, test_loader, args, writer, compile_step):
    """Train `model` for args.epochs; one epoch line per epoch. Returns (per-epoch history, seconds per epoch)."""
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=steps)

    def step(xb, yb):
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        optimizer.step()
        scheduler.step()
        return loss

    if compile_step:
        step = torch.compile(step)
    torch.manual_seed(1)  # both runs see the same batches and dropout draws
    history, times = [], []
    prefix = "epoch" if name == "eager" else f"{name} epoch"
    for epoch in range(args.epochs):
        model.train()
        start, running, seen = time.perf_counter(), 0.0, 0
        bar = tqdm(train_loader, desc=f"{name} {epoch + 1}/{args.epochs}", leave=False, disable=args.no_progress)
        for xb, yb in bar:
            loss = step(xb, yb)
            running += loss.item() * yb.numel()
            seen += yb.numel()
            bar.set_postfix(loss=f"{running / seen:.4f}")
        times.append(time.perf_counter() - start)
        test_loss, test_acc = evaluate(model, test_loader)
        history.append((running / seen, test_loss, test_acc))
        for tag, value in zip(("train_loss", "test_loss", "test_acc"), history[-1]):
            writer.add_scalar(f"{name}/{tag}", value, epoch + 1)
        print(f"{prefix} {epoch + 1}: train loss {running / seen:.4f}  test loss {test_loss:.4f}  "
              f"test acc {test_acc:.3f}  lr {scheduler.get_last_lr()[0]:.2e}  ({times[-1]:.1f}s)")
    return history, times


def plot(histories, path):
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(8, 3), dpi=80)
    for name, history in histories.items():
        epochs = range(1, len(history) + 1)
        ax_loss.plot(epochs, [h[0] for h in history], label=f"{name} train")
        ax_loss.plot(epochs, [h[1] for h in history], "--", label=f"{name} test")
        ax_acc.plot(epochs, [h[2] for h in history], label=name)
    ax_loss.set(xlabel="epoch", ylabel="loss", title="loss")
    ax_acc.set(xlabel="epoch", ylabel="accuracy", title="test accuracy")
    ax_loss.legend()
    ax_acc.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--out", default=os.path.join("runs", "train_digits"),
                        help="where the checkpoint, the plot and the TensorBoard events go")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-compile", action="store_true", help="train the second copy eagerly too")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    torch.manual_seed(0)
    x, y = load_digits()
    train_set, test_set = random_split(TensorDataset(x, y), [1497, 300], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=256)

    model = make_model()
    print(f"parameters: {sum(p.numel() for p in model.parameters())}")
    initial = copy.deepcopy(model.state_dict())
    histories, seconds = {}, {}
    with SummaryWriter(os.path.join(args.out, "tensorboard")) as writer:
        histories["eager"], seconds["eager"] = train("eager", model, train_loader, test_loader, args, writer, False)
        compiled = make_model()
        compiled.load_state_dict(initial)  # the same starting point, trained by one compiled program per step
        histories["compiled"], seconds["compiled"] = train("compiled", compiled, train_loader, test_loader, args,
                                                          writer, not args.no_compile)

    steps = len(train_loader)
    later = {k: sum(v[1:]) / max(len(v) - 1, 1) for k, v in seconds.items()}  # the first epoch also compiles
    for k in ("eager", "compiled"):
        print(f"{k}: first epoch {seconds[k][0]:.2f}s, then {later[k] / steps * 1e3:.2f} ms/step "
              f"({steps * args.batch_size / later[k]:.0f} samples/s)")
    print(f"speed-up of the compiled step: {later['eager'] / later['compiled']:.2f}x")

    path = os.path.join(args.out, "digits.pt")
    torch.save({"model": compiled.state_dict()}, path)
    restored = make_model()
    restored.load_state_dict(torch.load(path)["model"])
    test_loss, test_acc = evaluate(restored, test_loader)
    print(f"restored checkpoint: test loss {test_loss:.4f}  test acc {test_acc:.3f}")
    plot(histories, os.path.join(args.out, "digits.png"))
    print(f"wrote {path}, {os.path.join(args.out, 'digits.png')} and TensorBoard events in "
          f"{os.path.join(args.out, 'tensorboard')}")


if __name__ == "__main__":
    main()
