"""Eager forward + backward of small nn models: facade vs real PyTorch, in the same run.

    python benchmarks/bench_nn.py [--reps 30] [--warmup 5]

Cases: (a) a small CNN (two 3x3 convs with batch norm and ReLU, max pooling, a linear head) on a
batch of 32 28x28 images with cross-entropy; (b) a 2-layer LSTM (input 32, hidden 64, sequence 20,
batch 16) with a linear head and MSE. One timed call is zero_grad + forward + loss + backward, with
the parameter gradients synced. Both libraries start from the same weights (copied from torch). For the
CNN, a jitted `jax.grad` of the same model written with functional.nn shows what XLA itself costs.
Each number is the median of `reps` timed calls after `warmup` calls.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from bench_ops import median_us  # noqa: E402  (this directory is on sys.path when run as a script)

import facade  # noqa: E402
import functional.nn as N  # noqa: E402


def cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),  # (B, 16, 14, 14)
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # (B, 32, 7, 7)
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


class LSTMNet:
    """Built for either library: a 2-layer LSTM and a linear head on the last step."""

    def __new__(cls, lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = lib.nn.LSTM(32, 64, num_layers=2, batch_first=True)
                self.head = lib.nn.Linear(64, 1)

            def forward(self, x):
                out, _ = self.lstm(x)  # (B, T, 64)
                return self.head(out[:, -1])

        return Net()


def _jax_cnn_loss(params, x, y):
    """The same CNN as one pure function of functional.nn (what a hand-written JAX program would do)."""
    p = params
    h = x
    for conv, bn in ((0, 1), (4, 5)):  # the Sequential indices of each conv and its batch norm
        h = N.conv2d(h, p[f"{conv}.weight"], p[f"{conv}.bias"], padding=1)
        h, _, _ = N.batch_norm(h, p[f"{bn}.running_mean"], p[f"{bn}.running_var"], p[f"{bn}.weight"],
                               p[f"{bn}.bias"], training=True)
        h = N.max_pool2d(N.relu(h), 2)
    h = N.linear(h.reshape(h.shape[0], -1), p["9.weight"], p["9.bias"])
    return N.cross_entropy(h, y)


def bench_jax_cnn(tm, xs, warmup, reps):
    params = {k: jnp.asarray(v.detach().numpy()) for k, v in tm.state_dict().items() if v.is_floating_point()}
    grad = jax.jit(jax.grad(_jax_cnn_loss))
    x, y = jnp.asarray(xs[0]), jnp.asarray(xs[1])
    return median_us(lambda: grad(params, x, y), jax.block_until_ready, warmup, reps)


def bench(name, build, make_inputs, loss_fn, warmup, reps, jax_ref=None):
    tm = build(torch)
    fm = build(facade)
    fm.load_state_dict({k: facade.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(0)
    xs = make_inputs(rng)
    xt = [torch.tensor(a) for a in xs]
    xf = [facade.tensor(a) for a in xs]

    def step(lib, m, inputs):
        def run():
            m.zero_grad()
            loss = loss_fn(lib, m, *inputs)
            loss.backward()
            return [p.grad for p in m.parameters()]
        return run

    def sync_t(grads):
        pass

    def sync_f(grads):
        jax.block_until_ready([g.__jax_array__() for g in grads])

    t_us = median_us(step(torch, tm, xt), sync_t, warmup, reps)
    f_us = median_us(step(facade, fm, xf), sync_f, warmup, reps)
    line = f"{name:<34} facade {f_us:9.0f} us   torch {t_us:9.0f} us   facade/torch {f_us / t_us:5.2f}"
    if jax_ref is not None:
        j_us = jax_ref(tm, xs, warmup, reps)
        line += f"   jitted JAX {j_us:8.0f} us   facade/JAX {f_us / j_us:5.2f}"
    print(line)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    torch.manual_seed(0)
    bench("CNN fwd+bwd (32x1x28x28)", lambda lib: cnn(lib.nn),
          lambda rng: [rng.standard_normal((32, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 32)],
          lambda lib, m, x, y: lib.nn.functional.cross_entropy(m(x), y), args.warmup, args.reps, bench_jax_cnn)
    bench("2-layer LSTM fwd+bwd (16x20x32)", LSTMNet,
          lambda rng: [rng.standard_normal((16, 20, 32)).astype(np.float32),
                       rng.standard_normal((16, 1)).astype(np.float32)],
          lambda lib, m, x, y: lib.nn.functional.mse_loss(m(x), y), args.warmup, args.reps)


if __name__ == "__main__":
    main()
