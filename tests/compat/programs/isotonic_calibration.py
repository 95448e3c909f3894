"""Probability calibration of a small classifier: isotonic regression of (smoothed) labels on
the scores by pool-adjacent-violators, written with in-place writes into slices of the
sorted fit (a block's mean written over the block as blocks merge), differentiated back to
the raw scores through the writes and the sort permutation (argsort / gather / scatter_);
temperature scaling (temperature and bias fitted by LBFGS with a strong-Wolfe line search);
expected calibration error by bucketize over bins with scatter_add_, and the reliability
curve."""

import numpy as np
import torch
import torch.nn.functional as F


def pool_adjacent_violators(y, w):
    """Non-decreasing least-squares fit of y (sorted by score) with weights w."""
    fit = y.clone()
    weight = w.clone()
    blocks = [[i, i] for i in range(len(y))]  # [start, end] inclusive
    i = 0
    while i < len(blocks) - 1:
        a, b = blocks[i], blocks[i + 1]
        if fit[a[0]] > fit[b[0]]:
            lo, hi = a[0], b[1]
            total = weight[lo:hi + 1].sum()
            mean = (fit[lo:hi + 1] * weight[lo:hi + 1]).sum() / total
            fit[lo:hi + 1] = mean
            blocks[i] = [lo, hi]
            del blocks[i + 1]
            i = max(i - 1, 0)
        else:
            i += 1
    return fit


def expected_calibration_error(p, y, bins=5):
    edges = torch.linspace(0, 1, bins + 1, dtype=p.dtype)[1:-1]
    which = torch.bucketize(p, edges)
    count = torch.zeros(bins, dtype=p.dtype).scatter_add_(0, which, torch.ones_like(p))
    conf = torch.zeros(bins, dtype=p.dtype).scatter_add_(0, which, p)
    acc = torch.zeros(bins, dtype=p.dtype).scatter_add_(0, which, y)
    gap = (conf - acc).abs()
    return gap.sum() / p.numel(), conf / count.clamp(min=1), acc / count.clamp(min=1)


def run():
    rng = np.random.default_rng(43)
    n = 40
    raw = torch.tensor(rng.normal(0, 2, n), requires_grad=True)
    truth = 1 / (1 + np.exp(-0.5 * raw.detach().numpy() - 0.3))
    y = torch.tensor((rng.uniform(size=n) < truth).astype(np.float64))

    order = torch.argsort(raw.detach())
    sorted_scores = raw.gather(0, order)
    target = 0.8 * y[order] + 0.2 * torch.sigmoid(sorted_scores)
    iso = pool_adjacent_violators(target, torch.ones(n, dtype=torch.float64))
    iso_probs = torch.empty(n, dtype=torch.float64).scatter_(0, order, iso)
    (g_iso,) = torch.autograd.grad(((iso_probs - 0.5) ** 3).sum(), raw)

    log_t = torch.zeros((), dtype=torch.float64, requires_grad=True)
    bias = torch.zeros((), dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([log_t, bias], lr=0.5, max_iter=20, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(raw.detach() / log_t.exp() + bias, y)
        loss.backward()
        return loss

    opt.step(closure)
    calibrated = torch.sigmoid(raw / log_t.exp() + bias)
    nll = F.binary_cross_entropy(calibrated, y)
    nll.backward()
    ece_raw, conf_raw, acc_raw = expected_calibration_error(torch.sigmoid(raw.detach()), y)
    ece_cal, conf_cal, acc_cal = expected_calibration_error(calibrated.detach(), y)
    return {"iso": iso, "iso_probs": iso_probs, "g_iso": g_iso, "monotone": float(bool((iso[1:] >= iso[:-1]).all())),
            "log_t": log_t, "bias": bias, "nll": nll, "g_raw": raw.grad,
            "ece": [ece_raw, ece_cal], "curve": [conf_raw, acc_raw, conf_cal, acc_cal]}


if __name__ == "__main__":
    print(run())
