"""Word vectors by skip-gram with negative sampling on a toy corpus: centre and context
tables as nn.Embedding with max_norm (rows renormalised in place at each lookup) and
scale_grad_by_freq, negatives drawn once in NumPy from the unigram^0.75 distribution,
logsigmoid losses, Adagrad. The trained vectors are frozen into a new table with
Embedding.from_pretrained for an analogy-style nearest-neighbour query (cosine similarity,
topk); the in-place renorm's version bumps are read along the way."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = ("king rules the land queen rules the land man walks the road woman walks the road "
          "king and queen man and woman the land and the road king man queen woman").split()


def pairs(ids, window):
    centre, context = [], []
    for i, c in enumerate(ids):
        for j in range(max(0, i - window), min(len(ids), i + window + 1)):
            if j != i:
                centre.append(c)
                context.append(ids[j])
    return torch.tensor(centre), torch.tensor(context)


class SkipGram(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.centre = nn.Embedding(vocab, dim, max_norm=1.0, scale_grad_by_freq=True)
        self.context = nn.Embedding(vocab, dim, max_norm=1.0)

    def forward(self, centre, context, negatives):
        c = self.centre(centre)
        pos = (c * self.context(context)).sum(-1)
        neg = torch.bmm(self.context(negatives), c.unsqueeze(2)).squeeze(2)
        return -(F.logsigmoid(pos) + F.logsigmoid(-neg).sum(-1)).mean()


def run():
    rng = np.random.default_rng(12)
    vocab = sorted(set(CORPUS))
    ids = [vocab.index(w) for w in CORPUS]
    centre, context = pairs(ids, window=2)
    counts = np.bincount(ids, minlength=len(vocab)) ** 0.75
    negatives = torch.tensor(rng.choice(len(vocab), size=(len(centre), 3), p=counts / counts.sum()))

    model = SkipGram(len(vocab), 6).double()
    with torch.no_grad():
        model.centre.weight.copy_(torch.tensor(rng.normal(0, 0.8, (len(vocab), 6))))
        model.context.weight.copy_(torch.tensor(rng.normal(0, 0.8, (len(vocab), 6))))
    opt = torch.optim.Adagrad(model.parameters(), lr=0.3)
    losses, versions = [], []
    for epoch in range(4):
        for start in range(0, len(centre), 32):
            sl = slice(start, start + 32)
            loss = model(centre[sl], context[sl], negatives[sl])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        versions.append(model.centre.weight._version)
    norms = model.centre.weight.detach().norm(dim=1)

    frozen = nn.Embedding.from_pretrained(model.centre.weight.detach().clone())
    q = torch.tensor([vocab.index("king"), vocab.index("man"), vocab.index("woman")])
    king, man, woman = frozen(q).unbind(0)
    query = king - man + woman
    sims = F.cosine_similarity(frozen.weight, query.unsqueeze(0), dim=1)
    sims[q] = -2.0
    best, where = sims.topk(3)
    return {"losses": losses, "versions": versions, "norms": norms, "sims": sims,
            "best": best, "where": where, "frozen": float(frozen.weight.requires_grad),
            "centre_grad": model.centre.weight.grad, "context": model.context.weight}


if __name__ == "__main__":
    print(run())
