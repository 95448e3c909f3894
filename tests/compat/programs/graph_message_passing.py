"""A two-layer message-passing network on a small random graph, written from scratch:
messages gathered along edges, attention logits normalised per receiving node (a segment
softmax by scatter_reduce 'amax', exp, index_add_), neighbourhood means by scatter_add and
degree counts, max pooling by scatter_reduce, a graph-level readout by index_select; node
regression targets, gradients of every weight and of the input features."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MessageLayer(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.msg = nn.Linear(2 * dim_in, dim_out)
        self.att = nn.Linear(2 * dim_in, 1, bias=False)
        self.self_loop = nn.Linear(dim_in, dim_out)

    def forward(self, h, src, dst):
        n = h.shape[0]
        pair = torch.cat([h[src], h.index_select(0, dst)], dim=1)
        logits = F.leaky_relu(self.att(pair).squeeze(-1), 0.2)
        top = torch.full((n,), float("-inf"), dtype=h.dtype).scatter_reduce(0, dst, logits, reduce="amax")
        weights = torch.exp(logits - top[dst])
        total = torch.zeros(n, dtype=h.dtype).index_add_(0, dst, weights)
        alpha = weights / total[dst]
        messages = alpha.unsqueeze(1) * self.msg(pair)
        agg = torch.zeros(n, messages.shape[1], dtype=h.dtype).scatter_add(
            0, dst.unsqueeze(1).expand(-1, messages.shape[1]), messages)
        degree = torch.bincount(dst, minlength=n).clamp(min=1).to(h.dtype)
        mean = torch.zeros_like(agg).index_add_(0, dst, self.msg(pair)) / degree.unsqueeze(1)
        peak = torch.zeros_like(agg).scatter_reduce(0, dst.unsqueeze(1).expand_as(messages), self.msg(pair),
                                                    reduce="amax", include_self=False)
        return F.elu(agg + 0.5 * mean + 0.1 * peak + self.self_loop(h))


def run():
    rng = np.random.default_rng(71)
    n, dim = 12, 4
    edges = set()
    while len(edges) < 30:
        a, b = rng.integers(0, n, 2)
        if a != b:
            edges.add((int(a), int(b)))
    src, dst = (torch.tensor(v) for v in zip(*sorted(edges)))
    x = torch.from_numpy(rng.standard_normal((n, dim))).requires_grad_()
    y = torch.from_numpy(rng.standard_normal(n))
    layers = nn.ModuleList([MessageLayer(dim, 8), MessageLayer(8, 8)]).double()
    head = nn.Linear(8, 1).double()
    with torch.no_grad():
        for p in list(layers.parameters()) + list(head.parameters()):
            p.copy_(torch.from_numpy(rng.normal(0, 0.3, p.shape)))
    h = x
    for layer in layers:
        h = layer(h, src, dst)
    pred = head(h).squeeze(-1)
    graph_readout = h.index_select(0, torch.arange(0, n, 3)).mean(0)
    loss = F.smooth_l1_loss(pred, y, beta=0.5) + 0.01 * graph_readout.pow(2).sum()
    loss.backward()
    out = {"loss": loss, "pred": pred, "x_grad": x.grad, "readout": graph_readout}
    out.update({name: p.grad for name, p in layers.named_parameters()})
    return out


if __name__ == "__main__":
    print(run())
