"""Fit a 2-layer MLP by hand: tensors, autograd and manual SGD, nothing else.

A plain PyTorch script. Run it with real PyTorch (`python examples/train_tiny.py`) or on
facade (`python -m facade examples/train_tiny.py`); both print the same numbers.

The data is embedded: a 2-D regression target y = sin(2 x0) * x1 + 0.5 x0^2 on a 12x12 grid.
Parameters are initialised from a fixed formula rather than the RNG so that every backend
starts from the same point.
"""

import argparse
import math

import torch


def grid_data(n=12):
    """(n*n, 2) inputs on [-1, 1]^2 and their (n*n, 1) targets."""
    pts = [(-1 + 2 * i / (n - 1), -1 + 2 * j / (n - 1)) for i in range(n) for j in range(n)]
    x = torch.tensor(pts)  # (N, 2) float32
    y = torch.tensor([[math.sin(2 * a) * b + 0.5 * a * a] for a, b in pts])  # (N, 1)
    return x, y


def init_param(*shape, bound, seed):
    """Deterministic stand-in for a uniform(-bound, bound) init: sin of a ramp, so that every
    backend starts from the same point."""
    n = math.prod(shape)
    ramp = torch.arange(n, dtype=torch.float32).reshape(*shape)
    return ((ramp * 1.618 + seed).sin() * bound).requires_grad_()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--print-every", type=int, default=50)
    args = parser.parse_args()

    x, y = grid_data()
    # Bounds 1/sqrt(fan_in) like nn.Linear. Non-zero biases matter here: with zero biases a tanh
    # MLP is an odd function of x and cannot fit this target, which is even in x.
    w1 = init_param(2, args.hidden, bound=2 ** -0.5, seed=0.3)
    b1 = init_param(args.hidden, bound=2 ** -0.5, seed=0.7)
    w2 = init_param(args.hidden, 1, bound=args.hidden ** -0.5, seed=1.1)
    b2 = init_param(1, bound=args.hidden ** -0.5, seed=1.9)
    params = [w1, b1, w2, b2]

    for step in range(1, args.steps + 1):
        h = torch.tanh(x @ w1 + b1)  # (N, hidden)
        pred = h @ w2 + b2  # (N, 1)
        loss = ((pred - y) ** 2).mean()
        loss.backward()

        # Two equivalent ways to write a manual SGD step; the script uses both.
        with torch.no_grad():
            w1 -= args.lr * w1.grad
            w2 -= args.lr * w2.grad
        for b in (b1, b2):
            b.data.add_(b.grad, alpha=-args.lr)
        for p in params:
            p.grad = None

        if step == 1 or step % args.print_every == 0:
            print(f"step {step:4d}  loss {loss.item():.6f}")

    with torch.no_grad():
        final = ((torch.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2).mean().item()
    print(f"final loss {final:.6f} after {args.steps} steps")


if __name__ == "__main__":
    main()
