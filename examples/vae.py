"""A variational autoencoder on the embedded handwritten digits (8x8 images, 64 pixels in [0, 1]).

A plain PyTorch script: an MLP encoder to the mean and log-variance of q(z|x), the reparameterisation
z = mu + exp(logvar / 2) * eps, an MLP decoder to pixel logits, and the negative ELBO: binary cross-entropy
of the reconstruction plus KL(q(z|x) || N(0, I)) in closed form. Adam; the test ELBO at the end, and the
pixel means of images decoded from the prior.

    python examples/vae.py                  # real PyTorch
    python -m facade examples/vae.py        # the same script on facade (JAX)
    python -m facade examples/vae.py --epochs 50 --latent 2

The weights, the split, the batch order and the noise eps all come from one seeded numpy generator, so
real torch and facade print the same numbers. The data is examples/data/digits.csv.gz.
"""

import argparse

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from train_digits import load_digits  # examples/ is sys.path[0] when a script there runs


class VAE(nn.Module):
    def __init__(self, latent, hidden=128):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, 64))

    def forward(self, x, eps):
        """x: (B, 64) pixels, eps: (B, latent) standard normal noise -> (B, 64) logits, mu, logvar."""
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        z = mu + torch.exp(0.5 * logvar) * eps  # the reparameterisation: gradients flow to mu and logvar
        return self.decoder(z), mu, logvar


def neg_elbo(x, logits, mu, logvar):
    """Per-example means of (reconstruction BCE summed over pixels, KL to the standard normal prior)."""
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
    return recon, kl


def init_linear_(model, rng):
    """nn.Linear's default uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), drawn from numpy instead of torch's RNG."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                for p in (m.weight, m.bias):
                    bound = m.in_features ** -0.5
                    p.copy_(torch.from_numpy(rng.uniform(-bound, bound, p.shape).astype(np.float32)))


def normal(rng, *shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--latent", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    x, _ = load_digits()
    x = x.reshape(-1, 64)
    order = torch.from_numpy(rng.permutation(len(x)))
    x_train, x_test = x[order[:1497]], x[order[1497:]]

    model = VAE(args.latent)
    init_linear_(model, rng)
    print(f"parameters: {sum(p.numel() for p in model.parameters())}")
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    n_batches = len(x_train) // args.batch_size  # drop the last partial batch: one shape, one program

    for epoch in range(1, args.epochs + 1):
        perm = torch.from_numpy(rng.permutation(len(x_train)))
        sums = np.zeros(2)
        for b in range(n_batches):
            xb = x_train[perm[b * args.batch_size:(b + 1) * args.batch_size]]
            logits, mu, logvar = model(xb, normal(rng, len(xb), args.latent))
            recon, kl = neg_elbo(xb, logits, mu, logvar)
            optimizer.zero_grad()
            (recon + kl).backward()
            optimizer.step()
            sums += [recon.item(), kl.item()]
        recon, kl = sums / n_batches
        print(f"epoch {epoch}: loss {recon + kl:.4f}  recon {recon:.4f}  kl {kl:.4f}")

    model.eval()
    with torch.no_grad():
        recon, kl = neg_elbo(x_test, *model(x_test, normal(rng, len(x_test), args.latent)))
        print(f"test: loss {(recon + kl).item():.4f}  recon {recon.item():.4f}  kl {kl.item():.4f}")
        samples = torch.sigmoid(model.decoder(normal(rng, 4, args.latent)))  # (4, 64) images from the prior
        print("prior samples, mean pixel:", [round(v, 4) for v in samples.mean(dim=1).tolist()])


if __name__ == "__main__":
    main()
