"""A sequence tagger over sentences of different lengths: Embedding, a two-layer
bidirectional LSTM over packed sequences, a GRU cell stepping over the LSTM's output, a
linear read-out; masked cross-entropy and Adam. Weights loaded through load_state_dict."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence


class Tagger(nn.Module):
    def __init__(self, vocab, dim, hidden, tags):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.cell = nn.GRUCell(2 * hidden, hidden)
        self.out = nn.Linear(hidden, tags)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        seq, (h, c) = self.lstm(packed)
        seq, _ = pad_packed_sequence(seq, batch_first=True)
        state = h[-1]
        steps = []
        for t in range(seq.shape[1]):
            state = self.cell(seq[:, t], state)
            steps.append(state)
        return self.out(torch.stack(steps, 1)), c


def run():
    rng = np.random.default_rng(11)
    model = Tagger(10, 4, 3, 5).double()
    model.load_state_dict({k: torch.from_numpy(rng.standard_normal(tuple(v.shape)) * 0.5)
                           for k, v in model.state_dict().items()})
    lengths = [4, 2, 5, 3]
    sentences = [torch.from_numpy(rng.integers(1, 10, n)) for n in lengths]
    tags = pad_sequence([torch.from_numpy(rng.integers(0, 5, n)) for n in lengths], batch_first=True,
                        padding_value=-100)
    tokens = pad_sequence(sentences, batch_first=True)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        logits, cells = model(tokens, torch.tensor(lengths))
        loss = F.cross_entropy(logits.reshape(-1, 5), tags.reshape(-1), ignore_index=-100)
        loss = loss + 0.01 * (cells ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    out = {"losses": torch.stack(losses), "logits": logits.detach()}
    out.update(model.state_dict())
    return out


if __name__ == "__main__":
    print(run())
