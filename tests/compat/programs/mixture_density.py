"""A mixture density network for a multi-valued inverse problem: an MLP outputs mixture
logits, component means and log scales; the negative log likelihood goes through
MixtureSameFamily(Categorical, Independent(Normal)); then the fitted conditional density's
mean, variance and cdf, a KL divergence between two of its components, and a bounded
output head through TransformedDistribution with a SigmoidTransform and an AffineTransform."""

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import (AffineTransform, Categorical, Independent, MixtureSameFamily, Normal,
                                 SigmoidTransform, TransformedDistribution, kl_divergence)


class MDN(nn.Module):
    def __init__(self, k=3, hidden=12):
        super().__init__()
        self.k = k
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.logits = nn.Linear(hidden, k)
        self.means = nn.Linear(hidden, k)
        self.log_scales = nn.Linear(hidden, k)

    def forward(self, x):
        h = self.body(x)
        mix = Categorical(logits=self.logits(h))
        comp = Independent(Normal(self.means(h).unsqueeze(-1), self.log_scales(h).clamp(-4, 2).exp().unsqueeze(-1)), 1)
        return MixtureSameFamily(mix, comp)


def run():
    rng = np.random.default_rng(101)
    y = rng.uniform(0.05, 0.95, (80, 1))
    x = y + 0.3 * np.sin(2 * np.pi * y) + 0.02 * rng.standard_normal((80, 1))  # invert x(y): several branches
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    model = MDN().double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.6, p.shape)))
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    nll = []
    for _ in range(12):
        opt.zero_grad()
        loss = -model(x).log_prob(y).mean()
        loss.backward()
        opt.step()
        nll.append(loss.item())
    grid = torch.linspace(0.1, 0.9, 5, dtype=torch.float64).unsqueeze(1)
    with torch.no_grad():
        dist = model(grid)
        comps = dist.component_distribution.base_dist
        kl = kl_divergence(Normal(comps.loc[:, 0], comps.scale[:, 0]), Normal(comps.loc[:, 1], comps.scale[:, 1]))
        bounded = TransformedDistribution(Normal(comps.loc[:, :, 0], comps.scale[:, :, 0]),
                                          [SigmoidTransform(), AffineTransform(-1.0, 2.0)])
        univariate = MixtureSameFamily(dist.mixture_distribution, Normal(comps.loc[..., 0], comps.scale[..., 0]))
        probe = torch.tensor([-0.5, 0.0, 0.5], dtype=torch.float64).view(3, 1, 1)
    return {
        "nll": torch.tensor(nll),
        "mean": dist.mean,
        "variance": dist.variance,
        "cdf": univariate.cdf(torch.full((5,), 0.5, dtype=torch.float64)),
        "weights": dist.mixture_distribution.probs,
        "entropy": dist.mixture_distribution.entropy(),
        "kl": kl,
        "bounded_log_prob": bounded.log_prob(probe.expand(3, 5, 3)),
        "grads": [p.grad for p in model.parameters()],
    }


if __name__ == "__main__":
    print(run())
