"""A bag-of-embeddings classifier: Embedding with padding, LayerNorm, dropout in eval mode,
cross-entropy with label smoothing, gradient clipping and AdamW; weights loaded through
load_state_dict."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class BagClassifier(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.norm = nn.LayerNorm(dim)
        self.drop = nn.Dropout(0.5)
        self.out = nn.Linear(dim, classes)

    def forward(self, tokens):
        mask = (tokens != 0).to(torch.float64).unsqueeze(-1)
        pooled = (self.embed(tokens) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.out(self.drop(F.gelu(self.norm(pooled))))


def run():
    rng = np.random.default_rng(10)
    model = BagClassifier(12, 6, 3).double()
    state = {k: torch.from_numpy(rng.standard_normal(tuple(v.shape))) for k, v in model.state_dict().items()}
    state["embed.weight"][0] = 0.0
    result = model.load_state_dict(state)
    model.eval()
    tokens = torch.from_numpy(rng.integers(0, 12, (8, 5)))
    labels = torch.from_numpy(rng.integers(0, 3, 8))
    opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.1)
    losses, norms = [], []
    for _ in range(6):
        opt.zero_grad()
        loss = F.cross_entropy(model(tokens), labels, label_smoothing=0.1)
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        opt.step()
        losses.append(loss.detach())
    out = {"missing": torch.tensor(len(result.missing_keys)), "losses": torch.stack(losses),
           "norms": torch.stack(norms)}
    out.update(model.state_dict())
    return out


if __name__ == "__main__":
    print(run())
