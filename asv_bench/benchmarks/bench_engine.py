"""Autograd per-node overhead: jitgrad's recording path and engine beside PyTorch's.

A chain of ``CHAIN`` elementwise ops (``y * 1.0001`` and ``y + 0.5`` alternating) on an
8-element float32 tensor, so the arithmetic is negligible and what is timed is the cost of
one op's forward with graph recording, and of one node in the backward pass. Divide the
times by ``CHAIN`` for microseconds per node.

- ``time_forward_*``: building the graph (the ops plus ``needs_grad``/``record``).
- ``time_backward_*``: one ``backward()`` through a graph built in ``setup``. With
  ``number = 1`` asv re-runs ``setup`` before every timed call, so each call walks a fresh
  graph (and frees its saved values, as a training step does); building it is not timed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import jitgrad

from .common import random_array

CHAIN = 1000
SIZE = 8


def chain(x: Any) -> Any:
    y = x
    for i in range(CHAIN):
        y = y * 1.0001 if i % 2 == 0 else y + 0.5
    return y.sum()


class NodeOverhead:
    """``CHAIN`` recorded ops, forward and backward, jitgrad and torch."""

    number = 1
    repeat = (20, 100, 10.0)

    def setup(self) -> None:
        data = random_array((SIZE,), "float32")
        self.x_jitgrad = jitgrad.from_numpy(np.array(data)).requires_grad_()
        self.x_torch = torch.from_numpy(np.array(data)).requires_grad_()
        chain(self.x_jitgrad).backward()  # first-call costs (imports, kernel cache) untimed
        chain(self.x_torch).backward()
        self.out_jitgrad = chain(self.x_jitgrad)
        self.out_torch = chain(self.x_torch)

    def time_forward_jitgrad(self) -> None:
        chain(self.x_jitgrad)

    def time_forward_torch(self) -> None:
        chain(self.x_torch)

    def time_backward_jitgrad(self) -> None:
        self.out_jitgrad.backward()

    def time_backward_torch(self) -> None:
        self.out_torch.backward()
