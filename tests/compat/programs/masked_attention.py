"""A pre-norm transformer block written by hand: one fused QKV projection split by view and
permute, scores by einsum, a causal mask (triu) and a key-padding mask combined with | and
applied by masked_fill, softmax, attention dropout (eval: identity), the heads merged back
by transpose + reshape; a tanh-GELU feed-forward; F.layer_norm with explicit weights. The
hand-written attention is checked against F.scaled_dot_product_attention, and gradients
taken for the input and every weight (loaded from NumPy through load_state_dict)."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim, heads, p_drop=0.1):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim, bias=False)
        self.ln1_w = nn.Parameter(torch.ones(dim))
        self.ln1_b = nn.Parameter(torch.zeros(dim))
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(approximate="tanh"),
                                nn.Linear(2 * dim, dim))
        self.ln2 = nn.LayerNorm(dim, eps=1e-6)
        self.drop = nn.Dropout(p_drop)

    def attention(self, x, pad):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        blocked = causal | pad[:, None, None, :]
        weights = self.drop(scores.masked_fill(blocked, float("-inf")).softmax(dim=-1))
        mixed = torch.einsum("bhqk,bhkd->bhqd", weights, v)
        allowed = ~blocked
        reference = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        return self.out(mixed.transpose(1, 2).reshape(B, T, D)), weights, mixed, reference

    def forward(self, x, pad):
        h = F.layer_norm(x, (x.shape[-1],), self.ln1_w, self.ln1_b)
        a, weights, mixed, reference = self.attention(h, pad)
        x = x + a
        return x + self.ff(self.ln2(x)), weights, mixed, reference


def run():
    rng = np.random.default_rng(17)
    B, T, D, H = 2, 5, 8, 2
    block = Block(D, H).double()
    state = {k: torch.tensor(rng.normal(0, 0.3, tuple(v.shape))) for k, v in block.state_dict().items()}
    block.load_state_dict(state)
    block.eval()
    x = torch.tensor(rng.normal(size=(B, T, D)), requires_grad=True)
    lengths = torch.tensor([5, 3])
    pad = torch.arange(T)[None, :] >= lengths[:, None]
    y, weights, mixed, reference = block(x, pad)
    keep = (~pad).unsqueeze(-1).to(y.dtype)
    loss = ((y * keep) ** 2).sum() / keep.sum()
    loss.backward()
    grads = {f"g_{name}": p.grad for name, p in block.named_parameters()}
    return {"y": y, "weights": weights, "mixed": mixed, "reference": reference,
            "loss": loss, "g_x": x.grad, **grads}


if __name__ == "__main__":
    print(run())
