"""Align two noisy 2-D outlines: principal axes by the old torch.svd (which returns V),
orthogonal Procrustes (rotation from the SVD of the cross-covariance), a smooth radial
profile fitted by least squares on a Vandermonde basis (linalg.vander + lstsq), the
alignment error differentiated with respect to the rotation angle and scale; the script
first pins down threads and determinism as reproducible scripts do."""

import numpy as np
import torch


def outline(n, wobble, phase):
    t = torch.linspace(0, 2 * torch.pi, n + 1, dtype=torch.float64)[:-1]
    r = 1 + wobble * torch.cos(3 * t + phase)
    return torch.stack([r * torch.cos(t), 1.5 * r * torch.sin(t)], dim=1)


def rotation(angle):
    c, s = torch.cos(angle), torch.sin(angle)
    return torch.stack([torch.stack([c, -s]), torch.stack([s, c])])


def run():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        return align()
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(False)


def align():
    rng = np.random.default_rng(41)
    a = outline(40, 0.2, 0.0)
    true_angle = torch.tensor(0.7, dtype=torch.float64)
    b = 1.3 * a @ rotation(true_angle).T + torch.tensor([0.5, -0.2], dtype=torch.float64)
    b = b + 0.01 * torch.from_numpy(rng.standard_normal(b.shape))

    ac, bc = a - a.mean(0), b - b.mean(0)
    U, S, V = torch.svd(ac)
    axes = V * torch.sign(V[0:1, :])
    M = bc.T @ ac
    Um, Sm, Vm = torch.svd(M)
    R = Um @ Vm.T
    scale = Sm.sum() / (ac * ac).sum()
    angle_est = torch.atan2(R[1, 0], R[0, 0])

    angle = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    log_s = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([angle, log_s], lr=0.1)
    errors = []
    for _ in range(30):
        opt.zero_grad()
        err = ((log_s.exp() * ac @ rotation(angle).T - bc) ** 2).mean()
        err.backward()
        opt.step()
        errors.append(err.item())

    radius = bc.norm(dim=1)
    theta = torch.atan2(bc[:, 1], bc[:, 0]) / torch.pi
    basis = torch.linalg.vander(theta, N=5)
    coef = torch.linalg.lstsq(basis, radius.unsqueeze(1)).solution.squeeze(1)
    return {
        "singular": S,
        "axes": axes,
        "rotation": R,
        "scale": scale,
        "angle_est": angle_est,
        "errors": torch.tensor(errors),
        "fitted": torch.stack([angle, log_s.exp()]).detach(),
        "coef": coef,
        "cond": torch.linalg.cond(basis),
        "deterministic": float(torch.are_deterministic_algorithms_enabled()),
        "threads": torch.get_num_threads(),  # (1, set above)
    }


if __name__ == "__main__":
    print(run())
