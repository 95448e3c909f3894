"""Inspect a small regression net while it trains: forward hooks record activation
statistics, full backward hooks record the gradient norm reaching each layer (and one
rescales it), a backward pre hook clips an output gradient; a running counter kept as
extra state travels through state_dict; submodules are reached by dotted name and one is
swapped for an identity; the state goes through torch.save / torch.load and the model
through copy.deepcopy."""

import copy
import io

import numpy as np
import torch
import torch.nn as nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x

    def get_extra_state(self):
        return {"calls": self.calls}

    def set_extra_state(self, state):
        self.calls = state["calls"]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.ModuleDict({
            "inp": nn.Linear(2, 6),
            "act": nn.Softplus(beta=2.0),
            "hidden": nn.Linear(6, 6),
            "act2": nn.Tanh(),
        })
        self.counter = Counter()
        self.out = nn.Linear(6, 1)
        self.register_buffer("scale", torch.tensor(2.0), persistent=False)

    def forward(self, x):
        h = self.counter(x)
        for layer in self.body.values():
            h = layer(h)
        return self.out(h).squeeze(-1) * self.scale


def run():
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(53)
    net = Net()
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, 0.4, p.shape)))
    x = torch.from_numpy(rng.uniform(-1, 1, (32, 2)))
    y = torch.sin(2 * x[:, 0]) * x[:, 1]

    stats, grad_norms = [], []
    handles = [net.get_submodule("body.act").register_forward_hook(
        lambda m, inp, out: stats.append(torch.stack([out.mean(), out.std()]).detach()))]
    handles.append(net.body["hidden"].register_full_backward_hook(
        lambda m, gin, gout: grad_norms.append(gout[0].norm().detach())))
    handles.append(net.body["act2"].register_full_backward_hook(lambda m, gin, gout: (gin[0] * 0.5,)))
    handles.append(net.out.register_full_backward_pre_hook(lambda m, gout: (gout[0].clamp(-0.05, 0.05),)))

    opt = torch.optim.SGD(net.parameters(), lr=0.2, momentum=0.5)
    losses = []
    for _ in range(6):
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    first_grad = net.get_parameter("body.inp.weight").grad.clone()
    for h in handles:
        h.remove()

    state = net.state_dict()
    clone = Net()
    clone.load_state_dict(state)
    buf = io.BytesIO()
    torch.save({"state": state, "extra": [p.detach() for p in net.parameters()]}, buf)
    buf.seek(0)
    saved = torch.load(buf)
    whole = copy.deepcopy(net)
    net.set_submodule("body.act2", nn.Identity())
    with torch.no_grad():
        swapped = net(x[:4])
    return {
        "losses": torch.tensor(losses),
        "stats": torch.stack(stats),
        "grad_norms": torch.stack(grad_norms),
        "first_grad": first_grad,
        "calls": [clone.counter.calls, whole.counter.calls],
        "keys": len(state),
        "saved": saved["extra"],
        "has_scale": float("scale" in state),
        "whole": whole(x[:4]).detach(),
        "swapped": swapped,
    }


if __name__ == "__main__":
    print(run())
