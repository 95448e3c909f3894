"""A tiny sequence recognizer trained with CTC: synthetic 'utterances' (each symbol held for
a few noisy frames, utterances of different lengths padded into one batch), a Conv1d front
end, a bidirectional GRU over packed sequences, a linear read-out and log_softmax; nn.CTCLoss
with the targets concatenated in one 1-D tensor, AdamW with gradient clipping. Then greedy
decoding under no_grad (argmax, unique_consecutive, blanks dropped) and the edit distance to
the truth, filled into a DP table in place; a sum-reduced loss with an impossible short
input checks zero_infinity."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

SYMBOLS = 4  # labels 1..4; 0 is the CTC blank


def utterances(rng, count, feat):
    centres = rng.normal(0, 1.5, (SYMBOLS + 1, feat))
    frames, labels = [], []
    for _ in range(count):
        seq = rng.integers(1, SYMBOLS + 1, rng.integers(2, 5))
        parts = [centres[0] + 0.3 * rng.normal(size=(1, feat))]
        for s in seq:
            parts.append(centres[s] + 0.3 * rng.normal(size=(rng.integers(2, 4), feat)))
            parts.append(centres[0] + 0.3 * rng.normal(size=(1, feat)))
        frames.append(np.concatenate(parts))
        labels.append(seq)
    return frames, labels


class Recognizer(nn.Module):
    def __init__(self, feat, hidden):
        super().__init__()
        self.conv = nn.Conv1d(feat, hidden, kernel_size=3, padding=1)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, SYMBOLS + 1)

    def forward(self, x, lengths):
        h = torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        packed = pack_padded_sequence(h, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return self.out(out).log_softmax(-1).transpose(0, 1)  # (T, N, C) for the loss


def edit_distance(a, b):
    D = torch.zeros(len(a) + 1, len(b) + 1, dtype=torch.long)
    D[:, 0] = torch.arange(len(a) + 1)
    D[0, :] = torch.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + int(a[i - 1] != b[j - 1]))
    return int(D[-1, -1])


def run():
    rng = np.random.default_rng(23)
    feat, hidden = 3, 6
    frames, labels = utterances(rng, 5, feat)
    lengths = torch.tensor([len(f) for f in frames])
    batch = torch.zeros(len(frames), int(lengths.max()), feat, dtype=torch.float64)
    for i, f in enumerate(frames):
        batch[i, :len(f)] = torch.from_numpy(f)
    targets = torch.cat([torch.from_numpy(seq) for seq in labels])
    target_lengths = torch.tensor([len(seq) for seq in labels])

    model = Recognizer(feat, hidden).double()
    model.load_state_dict({k: torch.tensor(rng.uniform(-0.4, 0.4, tuple(v.shape)))
                           for k, v in model.state_dict().items()})
    criterion = nn.CTCLoss(blank=0, zero_infinity=True)
    opt = torch.optim.AdamW(model.parameters(), lr=0.03, weight_decay=0.01)
    losses = []
    for _ in range(6):
        opt.zero_grad()
        loss = criterion(model(batch, lengths), targets, lengths, target_lengths)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        losses.append(loss.item())

    with torch.no_grad():
        log_probs = model(batch, lengths)
        best = log_probs.argmax(dim=-1).T
        decoded, distances = [], []
        for i in range(len(frames)):
            path = torch.unique_consecutive(best[i, :lengths[i]])
            hyp = path[path != 0].tolist()
            decoded.append(hyp)
            distances.append(edit_distance(hyp, labels[i].tolist()))
    short = lengths.clone()
    short[0] = 1  # no alignment fits: an infinite loss, zeroed
    summed = F.ctc_loss(model(batch, lengths), targets, short, target_lengths, reduction="sum",
                        zero_infinity=True)
    summed.backward()
    return {"losses": losses, "log_probs": log_probs, "distances": distances,
            "decoded": [len(d) for d in decoded], "summed": summed,
            "g_out": model.out.weight.grad, "g_conv": model.conv.weight.grad}


if __name__ == "__main__":
    print(run())
