"""A linear-chain CRF over padded tag sequences: the log partition by the forward algorithm
(logsumexp over broadcast scores, rows of padded steps kept by torch.where), the gold path
score with gather and transition lookups by paired index tensors, trained a few Adam steps;
then Viterbi decoding under no_grad with max(dim) and back-pointers written into a
preallocated int64 table, back-tracked with gather."""

import numpy as np
import torch
import torch.nn as nn


class CRF(nn.Module):
    def __init__(self, features, tags):
        super().__init__()
        self.emit = nn.Linear(features, tags)
        self.trans = nn.Parameter(torch.zeros(tags, tags))
        self.start = nn.Parameter(torch.zeros(tags))
        self.end = nn.Parameter(torch.zeros(tags))

    def log_partition(self, emissions, mask):
        T = emissions.shape[1]
        alpha = self.start + emissions[:, 0]
        for t in range(1, T):
            step = torch.logsumexp(alpha.unsqueeze(2) + self.trans + emissions[:, t].unsqueeze(1), dim=1)
            alpha = torch.where(mask[:, t].unsqueeze(1), step, alpha)
        return torch.logsumexp(alpha + self.end, dim=1)

    def path_score(self, emissions, tags, mask):
        fmask = mask.to(emissions.dtype)
        emitted = emissions.gather(2, tags.unsqueeze(2)).squeeze(2)
        moves = self.trans[tags[:, :-1], tags[:, 1:]] * fmask[:, 1:]
        last = tags.gather(1, (mask.sum(1) - 1).unsqueeze(1)).squeeze(1)
        return self.start[tags[:, 0]] + (emitted * fmask).sum(1) + moves.sum(1) + self.end[last]

    def nll(self, x, tags, mask):
        emissions = self.emit(x)
        return (self.log_partition(emissions, mask) - self.path_score(emissions, tags, mask)).mean()

    @torch.no_grad()
    def decode(self, x, mask):
        emissions = self.emit(x)
        B, T, K = emissions.shape
        back = torch.zeros(B, T, K, dtype=torch.int64)
        score = self.start + emissions[:, 0]
        for t in range(1, T):
            best, arg = (score.unsqueeze(2) + self.trans).max(dim=1)
            back[:, t] = arg
            score = torch.where(mask[:, t].unsqueeze(1), best + emissions[:, t], score)
        score = score + self.end
        lengths = mask.sum(1)
        paths = torch.full((B, T), -1, dtype=torch.long)
        current = score.argmax(dim=1)
        for t in range(T - 1, -1, -1):
            inside = t < lengths
            paths[:, t] = torch.where(inside, current, paths[:, t])
            previous = back[:, t].gather(1, current.unsqueeze(1)).squeeze(1)
            current = torch.where(inside & (t > 0), previous, current)
        return score.max(dim=1).values, paths


def run():
    rng = np.random.default_rng(8)
    B, T, F, K = 3, 6, 4, 3
    x = torch.tensor(rng.normal(size=(B, T, F)))
    tags = torch.tensor(rng.integers(0, K, (B, T)))
    lengths = torch.tensor([6, 4, 2])
    mask = torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)
    tags = tags.masked_fill(~mask, 0)
    crf = CRF(F, K).to(torch.float64)
    with torch.no_grad():
        crf.emit.weight.copy_(torch.tensor(rng.normal(0, 0.5, (K, F))))
        crf.emit.bias.zero_()
        crf.trans.copy_(torch.tensor(rng.normal(0, 0.1, (K, K))))
    first = crf.nll(x, tags, mask)
    first.backward()
    grads = [p.grad.clone() for p in crf.parameters()]
    opt = torch.optim.Adam(crf.parameters(), lr=0.1)
    losses = []
    for _ in range(6):
        opt.zero_grad()
        loss = crf.nll(x, tags, mask)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    best, paths = crf.decode(x, mask)
    return {"first": first, "grads": grads, "losses": losses, "best": best, "paths": paths,
            "accuracy": ((paths == tags) & mask).sum() / mask.sum()}


if __name__ == "__main__":
    print(run())
