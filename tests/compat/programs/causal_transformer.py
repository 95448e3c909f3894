"""A next-token model: Embedding plus positions, a two-layer pre-norm TransformerEncoder with
a causal mask and a key padding mask, a decoder layer attending to a summary, attention
weights read from a MultiheadAttention; cross-entropy and SGD with momentum. Weights loaded
through load_state_dict; dropout off in eval mode."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab, dim, heads):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(8, dim, dtype=torch.float64))
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.1,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(dim), enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.1,
                                                  batch_first=True)
        self.pool = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, tokens, padding):
        n = tokens.shape[1]
        x = self.embed(tokens) + self.pos[:n]
        causal = nn.Transformer.generate_square_subsequent_mask(n, dtype=torch.float64)
        padding_float = torch.zeros(padding.shape, dtype=torch.float64).masked_fill(padding, float("-inf"))
        h = self.encoder(x, mask=causal, src_key_padding_mask=padding_float)
        summary, weights = self.pool(h[:, :1], h, h, key_padding_mask=padding)
        h = self.decoder(h, summary, tgt_mask=causal)
        return self.out(h), weights


def run():
    rng = np.random.default_rng(12)
    model = TinyLM(7, 4, 2).double().eval()
    model.load_state_dict({k: torch.from_numpy(rng.standard_normal(tuple(v.shape)) * 0.4)
                           for k, v in model.state_dict().items()})
    tokens = torch.from_numpy(rng.integers(0, 7, (3, 6)))
    padding = torch.from_numpy(np.arange(6)[None, :] >= np.array([6, 4, 5])[:, None])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        logits, weights = model(tokens, padding)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, 7), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    out = {"losses": torch.stack(losses), "weights": weights.detach()}
    out.update(model.state_dict())
    return out


if __name__ == "__main__":
    print(run())
