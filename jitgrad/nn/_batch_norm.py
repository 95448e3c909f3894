"""``batch_norm``: normalise each channel (dim 1) over the batch and the other dims, composed
from jitgrad ops (so gradients of gradients follow); in training the running statistics are
updated in place outside the graph (the unbiased variance, as PyTorch)."""

from __future__ import annotations


from ..autograd.grad_mode import no_grad
from ..tensor import Tensor


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """PyTorch's ``batch_norm`` for an input ``(N, C, *)``: batch statistics in training (and
    when there are no running statistics), else the running ones."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected an input of at least 2 dims (N, C, *), got {input.ndim}D")
    channels = input.shape[1]
    if training:
        count = input.numel() // channels
        if count == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {input.shape}"
            )
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(
            f"{'running_mean' if running_mean is None else 'running_var'} must be defined in evaluation mode"
        )
    dims = (0,) + tuple(range(2, input.ndim))
    shape = (1, channels) + (1,) * (input.ndim - 2)
    if training:
        mean = input.mean(dims, keepdim=True)  # type: ignore[attr-defined]
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)  # type: ignore[attr-defined]
        if running_mean is not None and running_var is not None:
            n = input.numel() // channels
            with no_grad():  # (through ``.data``: PyTorch's kernel moves no version counter)
                unbiased = var.reshape(channels).detach() * (n / (n - 1))  # type: ignore[attr-defined]
                running_mean.data.mul_(1 - momentum).add_(mean.reshape(channels).detach() * momentum)  # type: ignore[attr-defined]
                running_var.data.mul_(1 - momentum).add_(unbiased * momentum)  # type: ignore[attr-defined]
    else:
        mean = running_mean.reshape(shape)  # type: ignore[union-attr]
        var = running_var.reshape(shape)  # type: ignore[union-attr]
        centered = input - mean
    out = centered * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)  # type: ignore[attr-defined]
    if bias is not None:
        out = out + bias.reshape(shape)  # type: ignore[attr-defined]
    return out


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """PyTorch's ``instance_norm`` for an input ``(N, C, *)``: each sample's channel
    normalised over its own elements, as PyTorch computes it, a ``batch_norm`` of the input
    seen as one sample of ``N * C`` channels (per-channel statistics repeated ``N`` times,
    the running ones then set to their mean over the batch)."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    if use_input_stats:
        spatial = 1
        for n in input.shape[2:]:
            spatial *= n
        if spatial == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {input.shape}"
            )
    batch, channels = input.shape[0], input.shape[1]

    def repeated(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.repeat(batch)  # type: ignore[attr-defined]

    mean, var = repeated(running_mean), repeated(running_var)
    out = batch_norm(
        input.reshape((1, batch * channels) + tuple(input.shape[2:])),  # type: ignore[attr-defined]
        mean, var, repeated(weight), repeated(bias), use_input_stats, momentum, eps,
    )
    with no_grad():
        for running, stats in ((running_mean, mean), (running_var, var)):
            if running is not None and use_input_stats:
                running.copy_(stats.reshape(batch, channels).mean(0))  # type: ignore[union-attr,attr-defined]
    return out.view(input.shape)  # type: ignore[attr-defined,no-any-return]
