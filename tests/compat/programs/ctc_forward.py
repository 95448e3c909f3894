"""A CTC-style forward recursion: blanks interleaved with labels, alpha[t] written per step,
skip transitions masked with where, -inf padding made by cat."""

import numpy as np
import torch


def ctc_nll(log_probs, labels, blank=0):
    T = log_probs.shape[0]
    ext = [blank]
    for label in labels:
        ext += [label, blank]
    S = len(ext)
    allow_skip = torch.tensor(
        [s >= 2 and ext[s] != blank and ext[s] != ext[s - 2] for s in range(S)]
    )
    neg_inf = torch.full((1,), float("-inf"), dtype=log_probs.dtype)
    alpha = torch.full((T, S), float("-inf"), dtype=log_probs.dtype)
    alpha[0, 0] = log_probs[0, ext[0]]
    alpha[0, 1] = log_probs[0, ext[1]]
    emit = log_probs[:, ext]
    for t in range(1, T):
        prev = alpha[t - 1]
        shift1 = torch.cat([neg_inf, prev[:-1]])
        shift2 = torch.cat([neg_inf, neg_inf, prev[:-2]])
        shift2 = torch.where(allow_skip, shift2, torch.full_like(shift2, float("-inf")))
        alpha[t] = torch.logsumexp(torch.stack([prev, shift1, shift2]), dim=0) + emit[t]
    return -torch.logsumexp(alpha[-1, -2:], dim=0)


def run():
    rng = np.random.default_rng(2)
    logits = torch.tensor(rng.standard_normal((9, 5)), requires_grad=True)
    log_probs = torch.log_softmax(logits, dim=1)
    loss = ctc_nll(log_probs, [1, 3, 3, 2])
    loss.backward()
    return {"loss": loss, "grad": logits.grad}


if __name__ == "__main__":
    print(run())
