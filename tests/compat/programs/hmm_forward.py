"""HMM log-likelihood by the forward recursion in log space, written into rows of a table."""

import numpy as np
import torch


def run():
    rng = np.random.default_rng(1)
    K, T, V = 3, 12, 4
    logits_pi = torch.tensor(rng.standard_normal(K), requires_grad=True)
    logits_A = torch.tensor(rng.standard_normal((K, K)), requires_grad=True)
    logits_B = torch.tensor(rng.standard_normal((K, V)), requires_grad=True)
    obs = rng.integers(0, V, T).tolist()

    log_pi = torch.log_softmax(logits_pi, dim=0)
    log_A = torch.log_softmax(logits_A, dim=1)
    log_B = torch.log_softmax(logits_B, dim=1)

    log_alpha = torch.zeros(T, K, dtype=torch.float64)
    log_alpha[0] = log_pi + log_B[:, obs[0]]
    for t in range(1, T):
        log_alpha[t] = torch.logsumexp(log_alpha[t - 1].unsqueeze(1) + log_A, dim=0) + log_B[:, obs[t]]
    loglik = torch.logsumexp(log_alpha[-1], dim=0)
    loglik.backward()
    return {"loglik": loglik, "alpha": log_alpha, "g_pi": logits_pi.grad, "g_A": logits_A.grad,
            "g_B": logits_B.grad}


if __name__ == "__main__":
    print(run())
