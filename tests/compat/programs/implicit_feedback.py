"""Matrix factorisation for implicit feedback with mixed dtypes, as recommender code is
usually written: float32 embeddings and biases, int64 user/item ids, a bool matrix of
observed interactions. Positives come from nonzero(as_tuple=True); negatives are the
unobserved pairs picked by masked_select on a fixed score; the loss is weighted BCE with
logits (pos_weight) computed in float64 from the float32 scores, minibatches come from a
DataLoader over a TensorDataset, SGD updates the float32 weights. Evaluation under no_grad
(scores in float64):
already-seen items masked to -inf, topk recommendations, hit rate with isin."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Factorisation(nn.Module):
    def __init__(self, users, items, dim):
        super().__init__()
        self.user = nn.Embedding(users, dim)
        self.item = nn.Embedding(items, dim)
        self.item_bias = nn.Parameter(torch.zeros(items))

    def forward(self, u, i):
        return (self.user(u) * self.item(i)).sum(dim=-1) + self.item_bias[i]


def run():
    rng = np.random.default_rng(31)
    users, items, dim = 6, 9, 3
    taste = rng.normal(size=(users, 2)) @ rng.normal(size=(2, items))
    seen = torch.from_numpy(taste > 0.4)
    held_out = torch.tensor([int(np.argmax(np.where(taste[u] > 0.4, -np.inf, taste[u]))) for u in range(users)])

    model = Factorisation(users, items, dim)
    with torch.no_grad():
        model.user.weight.copy_(torch.from_numpy(rng.normal(0, 0.1, (users, dim)).astype(np.float32)))
        model.item.weight.copy_(torch.from_numpy(rng.normal(0, 0.1, (items, dim)).astype(np.float32)))

    pos_u, pos_i = seen.nonzero(as_tuple=True)
    all_u = torch.arange(users).unsqueeze(1).expand(users, items)
    all_i = torch.arange(items).repeat(users, 1)
    order = torch.from_numpy(rng.permutation(users * items)).view(users, items)
    pick = ~seen & (order % 2 == 0)
    neg_u, neg_i = torch.masked_select(all_u, pick), torch.masked_select(all_i, pick)
    u = torch.cat([pos_u, neg_u])
    i = torch.cat([pos_i, neg_i])
    label = torch.cat([torch.ones(len(pos_u)), torch.zeros(len(neg_u))]).to(torch.float64)
    loader = DataLoader(TensorDataset(u, i, label), batch_size=8, shuffle=False)

    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    pos_weight = torch.tensor(len(neg_u) / len(pos_u), dtype=torch.float64)
    losses = []
    for epoch in range(3):
        for bu, bi, by in loader:
            scores = model(bu, bi)
            loss = F.binary_cross_entropy_with_logits(scores.double(), by, pos_weight=pos_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())

    with torch.no_grad():
        scores = model.user.weight.double() @ model.item.weight.double().T + model.item_bias
        scores = scores.masked_fill(seen, float("-inf"))
        top_scores, top_items = scores.topk(3, dim=1)
        hits = torch.isin(held_out, top_items[torch.arange(users), :1].flatten())
    return {"losses": losses, "user": model.user.weight, "item": model.item.weight,
            "bias": model.item_bias, "dtype_ok": float(model.user.weight.dtype == torch.float32),
            "top_scores": top_scores, "top_items": top_items, "hits": hits,
            "grad_dtype_ok": float(model.item.weight.grad.dtype == torch.float32)}


if __name__ == "__main__":
    print(run())
