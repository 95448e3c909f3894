"""Beam search for a small LSTMCell decoder: log-probabilities over a flattened (beam x vocab)
table, topk picks the next beams, their hidden states are reordered with index_select,
back-pointers and tokens are written into preallocated int64 buffers column by column,
finished beams can only extend with the end token (masked_fill with -inf elsewhere), and
the final hypotheses are ranked with a length penalty. The best sequence is then scored by
teacher forcing and its log-likelihood differentiated with respect to the decoder."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, EOS, BOS = 7, 0, 1


class Decoder(nn.Module):
    def __init__(self, dim=5):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.cell = nn.LSTMCell(dim, dim)
        self.out = nn.Linear(dim, VOCAB)

    def step(self, tokens, state):
        h, c = self.cell(self.embed(tokens), state)
        return F.log_softmax(self.out(h), dim=-1), (h, c)


@torch.no_grad()
def beam_search(model, beams=3, steps=6, alpha=0.7):
    tokens = torch.full((beams,), BOS, dtype=torch.long)
    state = (torch.zeros(beams, 5, dtype=torch.float64), torch.zeros(beams, 5, dtype=torch.float64))
    scores = torch.tensor([0.0] + [float("-inf")] * (beams - 1), dtype=torch.float64)
    finished = torch.zeros(beams, dtype=torch.bool)
    lengths = torch.zeros(beams, dtype=torch.long)
    history = torch.zeros(beams, steps, dtype=torch.long)
    back = torch.zeros(beams, steps, dtype=torch.long)
    for t in range(steps):
        logp, state = model.step(tokens, state)
        logp[finished] = logp[finished].masked_fill(torch.arange(VOCAB) != EOS, float("-inf"))
        logp[finished, EOS] = 0.0
        total = (scores.unsqueeze(1) + logp).view(-1)
        scores, flat = total.topk(beams)
        parent = flat // VOCAB
        tokens = flat % VOCAB
        state = (state[0].index_select(0, parent), state[1].index_select(0, parent))
        history = history.index_select(0, parent)
        history[:, t] = tokens
        back[:, t] = parent
        lengths = lengths.index_select(0, parent) + (~finished.index_select(0, parent)).long()
        finished = finished.index_select(0, parent) | (tokens == EOS)
    penalty = ((5 + lengths.double()) / 6) ** alpha
    ranked = (scores / penalty).argsort(descending=True)
    return history[ranked], scores[ranked], lengths[ranked], back


def sequence_log_likelihood(model, seq):
    tokens = torch.cat([torch.tensor([BOS]), seq[:-1]])
    state = None
    total = torch.zeros((), dtype=torch.float64)
    for tok, nxt in zip(tokens, seq):
        logp, state = model.step(tok.view(1), state)
        total = total + logp[0, nxt]
        if nxt.item() == EOS:
            break
    return total


def run():
    rng = np.random.default_rng(11)
    model = Decoder().double()
    model.load_state_dict({k: torch.tensor(rng.normal(0, 0.8, tuple(v.shape))) for k, v in model.state_dict().items()})
    with torch.no_grad():
        model.out.bias[EOS] += 0.9  # some hypotheses end early
    hyps, scores, lengths, back = beam_search(model)
    best = hyps[0, :int(lengths[0]) + (1 if int(lengths[0]) < hyps.shape[1] else 0)]
    ll = sequence_log_likelihood(model, best)
    ll.backward()
    return {"hyps": hyps, "scores": scores, "lengths": lengths, "back": back, "ll": ll,
            "g_out": model.out.weight.grad, "g_embed": model.embed.weight.grad,
            "g_cell": model.cell.weight_hh.grad}


if __name__ == "__main__":
    print(run())
