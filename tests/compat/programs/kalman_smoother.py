"""Track a constant-velocity target from noisy positions: a Kalman filter whose log
likelihood (innovations, slogdet, linalg.solve) is differentiated with respect to the
process and measurement noise scales, a Rauch-Tung-Striebel smoother run backwards over the
filtered moments (linalg.inv), and torch.autograd.functional.hessian of the likelihood."""

import math

import numpy as np
import torch
from torch.autograd.functional import hessian


def model_matrices(log_q, log_r, dt, dtype):
    F = torch.tensor([[1.0, dt], [0.0, 1.0]], dtype=dtype)
    H = torch.tensor([[1.0, 0.0]], dtype=dtype)
    G = torch.tensor([[dt * dt / 2], [dt]], dtype=dtype)
    Q = torch.exp(2 * log_q) * (G @ G.T) + 1e-9 * torch.eye(2, dtype=dtype)
    R = torch.exp(2 * log_r).reshape(1, 1)
    return F, H, Q, R


def kalman_filter(ys, log_q, log_r, dt):
    F, H, Q, R = model_matrices(log_q, log_r, dt, ys.dtype)
    m = torch.zeros(2, dtype=ys.dtype)
    P = 10.0 * torch.eye(2, dtype=ys.dtype)
    means, covs, pred_means, pred_covs = [], [], [], []
    loglik = ys.new_zeros(())
    for y in ys:
        m_pred = F @ m
        P_pred = F @ P @ F.T + Q
        S = H @ P_pred @ H.T + R
        v = y.reshape(1) - H @ m_pred
        _, logdet = torch.linalg.slogdet(S)
        loglik = loglik - 0.5 * (v @ torch.linalg.solve(S, v) + logdet + math.log(2 * math.pi))
        K = torch.linalg.solve(S, H @ P_pred).T
        m = m_pred + K @ v
        IKH = torch.eye(2, dtype=ys.dtype) - K @ H
        P = IKH @ P_pred @ IKH.T + K @ R @ K.T  # Joseph form
        means.append(m)
        covs.append(P)
        pred_means.append(m_pred)
        pred_covs.append(P_pred)
    return loglik, torch.stack(means), torch.stack(covs), torch.stack(pred_means), torch.stack(pred_covs), F


def rts_smoother(means, covs, pred_means, pred_covs, F):
    n = means.shape[0]
    smooth_m = means.clone()
    smooth_P = covs.clone()
    for t in range(n - 2, -1, -1):
        C = covs[t] @ F.T @ torch.linalg.inv(pred_covs[t + 1])
        smooth_m[t] = means[t] + C @ (smooth_m[t + 1] - pred_means[t + 1])
        smooth_P[t] = covs[t] + C @ (smooth_P[t + 1] - pred_covs[t + 1]) @ C.T
    return smooth_m, smooth_P


def run():
    rng = np.random.default_rng(13)
    dt, n = 0.5, 20
    velocity = 1.0 + np.cumsum(0.2 * rng.standard_normal(n))
    position = np.cumsum(velocity * dt)
    ys = torch.from_numpy(position + 0.4 * rng.standard_normal(n))
    log_q = torch.tensor(math.log(0.3), dtype=torch.float64, requires_grad=True)
    log_r = torch.tensor(math.log(0.5), dtype=torch.float64, requires_grad=True)
    loglik, means, covs, pred_means, pred_covs, F = kalman_filter(ys, log_q, log_r, dt)
    smooth_m, smooth_P = rts_smoother(means, covs, pred_means, pred_covs, F)
    rough = (smooth_m[:, 1] - smooth_m[:, 1].roll(1))[1:].pow(2).sum()
    (loglik + 0.1 * rough).backward()

    def negative_loglik(params):
        return -kalman_filter(ys, params[0], params[1], dt)[0]

    h = hessian(negative_loglik, torch.stack([log_q, log_r]).detach())
    return {
        "loglik": loglik,
        "grads": [log_q.grad, log_r.grad],
        "filtered": means,
        "smoothed": smooth_m,
        "smoothed_var": torch.diagonal(smooth_P, dim1=-2, dim2=-1),
        "hessian": h,
    }


if __name__ == "__main__":
    print(run())
