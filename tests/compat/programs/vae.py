"""A variational autoencoder on binary 12-pixel patterns: an encoder giving the mean and log
variance of a 2-D latent, the reparameterization trick with noise drawn once in NumPy,
a Bernoulli decoder (binary_cross_entropy_with_logits), the KL term both in closed form
and by torch.distributions.kl_divergence, a beta warm-up, Adam with amsgrad; then the
importance-weighted bound on held-out patterns under torch.no_grad."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence


class VAE(nn.Module):
    def __init__(self, pixels=12, hidden=16, latent=2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(pixels, hidden), nn.SiLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.LeakyReLU(0.1), nn.Linear(hidden, pixels))

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h).clamp(-6.0, 6.0)

    def forward(self, x, eps):
        mu, logvar = self.encode(x)
        z = mu + torch.exp(0.5 * logvar) * eps
        return self.dec(z), mu, logvar


def patterns(rng, n):
    kinds = rng.integers(0, 3, n)
    base = np.array([[1] * 6 + [0] * 6, [0, 1] * 6, [1, 1, 0] * 4], dtype=np.float64)
    flips = rng.random((n, 12)) < 0.05
    return torch.from_numpy(np.abs(base[kinds] - flips))


def run():
    rng = np.random.default_rng(29)
    train, held_out = patterns(rng, 48), patterns(rng, 8)
    model = VAE().double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.normal(0.0, 0.3, p.shape)))
    opt = torch.optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
    noise = torch.from_numpy(rng.standard_normal((10, 48, 2)))
    elbos, kls = [], []
    for epoch in range(10):
        beta = min(1.0, 0.2 + 0.1 * epoch)
        opt.zero_grad()
        logits, mu, logvar = model(train, noise[epoch])
        recon = F.binary_cross_entropy_with_logits(logits, train, reduction="sum") / len(train)
        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1).mean()
        posterior = Normal(mu, torch.exp(0.5 * logvar))
        prior = Normal(torch.zeros_like(mu), torch.ones_like(mu))
        kl_check = kl_divergence(posterior, prior).sum(1).mean()
        loss = recon + beta * kl
        loss.backward()
        opt.step()
        elbos.append(-(recon + kl).item())
        kls.append((kl - kl_check).abs().item())

    with torch.no_grad():
        k = 16
        mu, logvar = model.encode(held_out)
        q = Normal(mu, torch.exp(0.5 * logvar))
        eps = torch.from_numpy(rng.standard_normal((k,) + tuple(mu.shape)))
        z = q.loc + q.scale * eps
        logits = model.dec(z)
        log_px = -F.binary_cross_entropy_with_logits(logits, held_out.expand(k, -1, -1), reduction="none").sum(-1)
        log_w = log_px + Normal(0.0, 1.0).log_prob(z).sum(-1) - q.log_prob(z).sum(-1)
        iwae = (torch.logsumexp(log_w, 0) - math.log(k)).mean()
    return {
        "elbos": torch.tensor(elbos),
        "kl_gap": max(kls),
        "iwae": iwae,
        "codes": mu,
        "max_exp_avg_sq": opt.state[model.mu.weight]["max_exp_avg_sq"],
        "dec_bias": model.dec[2].bias,
    }


if __name__ == "__main__":
    print(run())
