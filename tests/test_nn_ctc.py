"""F.ctc_loss / nn.CTCLoss side by side with PyTorch: losses and gradients to the bit (the
kernels follow PyTorch's CPU kernel's operations), for padded and concatenated targets,
every reduction, zero_infinity, impossible alignments, empty targets and inputs, unbatched
input, float32; the graph's node names; PyTorch's errors; a numerical gradient check."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import jitgrad
from tests.compat_helpers import both

RNG = np.random.default_rng(11)
LOGITS = RNG.normal(size=(7, 3, 5))
PADDED = [[1, 2, 2], [3, 1, 0], [4, 4, 4]]
CONCATENATED = [1, 2, 2, 3, 1, 4]


def _loss_and_grad(lib, targets, input_lengths, target_lengths, dtype="float64", log_softmax=True, **kw):
    x = lib.tensor(LOGITS, dtype=getattr(lib, dtype), requires_grad=True)
    lp = x.log_softmax(2) if log_softmax else x
    loss = lib.nn.functional.ctc_loss(lp, lib.tensor(targets), input_lengths, target_lengths, **kw)
    weights = lib.arange(1.0, loss.numel() + 1, dtype=loss.dtype).reshape(loss.shape)
    (loss * weights).sum().backward()
    return loss, x.grad


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("blank", [0, 2])
@pytest.mark.parametrize("targets, input_lengths, target_lengths", [
    (PADDED, [7, 5, 3], [3, 2, 1]),
    (PADDED, [7, 5, 1], [3, 2, 3]),      # the last alignment is impossible: an infinite loss
    (CONCATENATED, [7, 6, 4], [3, 2, 1]),
    (PADDED, [7, 0, 3], [3, 0, 0]),      # an empty input and empty targets
], ids=["padded", "impossible", "concatenated", "empty"])
def test_ctc_loss_matches_pytorch_bit_for_bit(dtype, reduction, zero_infinity, blank, targets,
                                              input_lengths, target_lengths):
    # log_softmax=False: the raw log probabilities, so the bits are CTC's alone
    both(lambda lib: _loss_and_grad(lib, targets, input_lengths, target_lengths, dtype, False,
                                    blank=blank, reduction=reduction, zero_infinity=zero_infinity))


@pytest.mark.parametrize("lengths_as", ["list", "tuple", "int64", "int32"])
def test_lengths_as_sequences_or_integer_tensors_and_targets_of_any_dtype(lengths_as):
    def program(lib):
        def make(values):
            if lengths_as in ("int64", "int32"):
                return lib.tensor(values, dtype=getattr(lib, lengths_as))
            return list(values) if lengths_as == "list" else tuple(values)

        x = lib.tensor(LOGITS, requires_grad=True)
        lp = x.log_softmax(2)
        a = lib.nn.functional.ctc_loss(lp, lib.tensor(PADDED, dtype=lib.int32), make([7, 5, 3]), make([3, 2, 1]))
        b = lib.nn.functional.ctc_loss(lp, lib.tensor(PADDED, dtype=lib.float64), make([7, 5, 3]), make([3, 2, 1]))
        (a + b).backward()
        return a, b, x.grad

    both(program)


def test_batch_first_output_transposed_and_an_unbatched_sequence():
    def program(lib):
        x = lib.tensor(LOGITS.transpose(1, 0, 2).copy(), requires_grad=True)  # (N, T, C)
        lp = x.log_softmax(-1).transpose(0, 1)                              # a non-contiguous view
        batched = lib.nn.functional.ctc_loss(lp, lib.tensor(PADDED), [7, 6, 5], [3, 2, 1], reduction="sum")
        one = lib.nn.functional.ctc_loss(lp[:, 1], lib.tensor([3, 1]), lib.tensor(6), lib.tensor(2),
                                         reduction="none")
        (batched + 2 * one).backward()
        return batched, one, x.grad

    both(program)


def test_node_names_follow_pytorch():
    def names(lib, **kw):
        lp = lib.tensor(LOGITS, requires_grad=True).log_softmax(2)
        fn = lib.nn.functional.ctc_loss(lp, lib.tensor(PADDED), [7, 5, 3], [3, 2, 1], **kw).grad_fn
        out = []
        while fn is not None and fn.name() != "LogSoftmaxBackward0":
            out.append(fn.name())
            fn = [f for f, _ in fn.next_functions if f is not None][0]
        return out

    both(lambda lib: [names(lib), names(lib, reduction="sum", zero_infinity=True),
                      names(lib, reduction="none")])


def test_module_is_the_functional():
    def program(lib):
        x = lib.tensor(LOGITS, requires_grad=True)
        loss = lib.nn.CTCLoss(blank=4, zero_infinity=True)(x.log_softmax(2), lib.tensor(PADDED), [7, 5, 1], [3, 2, 3])
        loss.backward()
        return repr(lib.nn.CTCLoss(blank=4)), loss, x.grad

    both(program)


def test_double_backward_raises_as_pytorch():
    def program(lib):
        x = lib.tensor(LOGITS, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(x.log_softmax(2), lib.tensor(PADDED), [7, 5, 3], [3, 2, 1])
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        assert g.requires_grad
        g.sum().backward()

    both(program)


def test_log_probs_written_in_place_after_the_loss_refuses_backward():
    def program(lib):
        x = lib.tensor(LOGITS, requires_grad=True)
        lp = x.log_softmax(2) * 1.0
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor(PADDED), [7, 5, 3], [3, 2, 1])
        lp.add_(0.0)
        loss.backward()

    both(program, "modified by an inplace operation")


@pytest.mark.parametrize("args, fragment", [
    (dict(input_lengths=[7, 8, 3]), "Expected input_lengths to have value at most 7, but got value 8"),
    (dict(input_lengths=[7, -1, 3]), "Expected input_lengths to have value at least 0, but got value -1"),
    (dict(target_lengths=[3, -1, 1]), "Expected target_lengths to have value at least 0, but got value -1"),
    (dict(input_lengths=[7, 5]), "input_lengths must be of size batch_size"),
    (dict(target_lengths=[3, 2, 1, 1]), "target_lengths must be of size batch_size"),
    (dict(target_lengths=[4, 2, 1]), "Expected tensor to have size at least 4 at dimension 1, but got size 3"),
    (dict(targets=[[1, 2, 2], [3, 1, 0]]), "Expected tensor to have size 3 at dimension 0, but got size 2"),
    (dict(targets=[1, 2, 3, 4]), "Expected tensor to have size 6 at dimension 0, but got size 4"),
    (dict(blank=5), "blank must be in label range"),
    (dict(reduction="avg"), "avg is not a valid value for reduction"),
    (dict(input_lengths="float"), "input_lengths must be integral"),
])
def test_bad_arguments_raise_pytorchs_errors(args, fragment):
    def program(lib):
        kw = dict(targets=PADDED, input_lengths=[7, 5, 3], target_lengths=[3, 2, 1], blank=0, reduction="mean")
        kw.update(args)
        lengths, target_lengths = kw["input_lengths"], kw["target_lengths"]
        if lengths == "float":
            lengths, target_lengths = lib.tensor([7.0, 5.0, 3.0]), lib.tensor(target_lengths)
        x = lib.tensor(LOGITS)
        return lib.nn.functional.ctc_loss(x, lib.tensor(kw["targets"]), lengths, target_lengths,
                                          blank=kw["blank"], reduction=kw["reduction"])

    both(program, fragment)


def test_lengths_mixing_a_tensor_and_a_list_are_refused():
    both(lambda lib: lib.nn.functional.ctc_loss(lib.tensor(LOGITS), lib.tensor(PADDED), lib.tensor([7, 5, 3]),
                                                [3, 2, 1]), "ctc_loss")


def test_empty_log_probs_and_half_are_refused():
    both(lambda lib: lib.nn.functional.ctc_loss(lib.zeros(0, 1, 3), lib.tensor([[1]]), [0], [1]),
         "log_probs tensor must not be empty")
    both(lambda lib: lib.nn.functional.ctc_loss(lib.zeros(2, 1, 3, dtype=lib.float16), lib.tensor([[1]]), [2], [1]),
         "not implemented for")


def test_labels_outside_the_classes_are_refused():
    """PyTorch reads past its buffer there; jitgrad refuses before any kernel runs."""
    with pytest.raises(RuntimeError, match=r"ctc_loss: target labels must be in \[0, 5\), got labels from 1 to 9"):
        jitgrad.nn.functional.ctc_loss(jitgrad.tensor(LOGITS), jitgrad.tensor([[1, 9], [2, 2], [3, 3]]),
                                       [7, 7, 7], [2, 2, 2])


def test_numerical_gradient_through_log_softmax():
    """The gradient with respect to the logits (through log_softmax, as CTC is used) is the
    derivative of the loss: central differences agree."""
    x = jitgrad.tensor(LOGITS, requires_grad=True)
    targets = jitgrad.tensor(PADDED)

    def loss_of(values):
        lp = jitgrad.tensor(values).log_softmax(2)
        return jitgrad.nn.functional.ctc_loss(lp, targets, [7, 5, 3], [3, 2, 1]).item()

    jitgrad.nn.functional.ctc_loss(x.log_softmax(2), targets, [7, 5, 3], [3, 2, 1]).backward()
    numeric = np.zeros_like(LOGITS)
    for idx in np.ndindex(*LOGITS.shape):
        step = np.zeros_like(LOGITS)
        step[idx] = 1e-6
        numeric[idx] = (loss_of(LOGITS + step) - loss_of(LOGITS - step)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), numeric, atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_problems_match_pytorch(data):
    steps = data.draw(st.integers(1, 6))
    batch = data.draw(st.integers(1, 3))
    classes = data.draw(st.integers(2, 4))
    blank = data.draw(st.integers(0, classes - 1))
    lengths = [data.draw(st.integers(0, 4)) for _ in range(batch)]
    inputs = [data.draw(st.integers(0, steps)) for _ in range(batch)]
    width = max(lengths) + data.draw(st.integers(0, 1))
    targets = [[data.draw(st.integers(0, classes - 1)) for _ in range(width)] for _ in range(batch)]
    logits = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).normal(size=(steps, batch, classes))

    def program(lib):
        x = lib.tensor(logits, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(x, lib.tensor(targets), inputs, lengths, blank=blank,
                                          reduction="none", zero_infinity=True)
        (loss * lib.arange(1.0, batch + 1, dtype=lib.float64)).sum().backward()
        return loss, x.grad

    both(program)
