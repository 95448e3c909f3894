"""The compatibility suite: PyTorch-style programs run unchanged on torch and on jitgrad
(``torch`` mapped to jitgrad by ``runner.torch_is_jitgrad``) and must agree in float64."""

from __future__ import annotations

import importlib
import sys

import pytest

from . import runner

# program -> None if it runs unchanged on this branch, else the branch expected to bring
# what it lacks (the missing names themselves are found by ``runner.missing_names``)
PROGRAMS: dict[str, str | None] = {
    "soft_dtw": None,
    "hmm_forward": None,
    "ctc_forward": None,
    "heat2d": None,
    "thomas": None,
    "mlp_fit": None,
    "smoothing_fit": None,
    "bag_of_words": None,
    "defaults_gather": None,
    "hessian_vector": None,
    "gp_likelihood": None,
    "probit_special": None,
    "segment_sum": None,
    "conv_checkpoint": None,
    "sequence_tagger": None,
    "causal_transformer": None,
    "minibatch_sgd": None,
    "gp_regression_adam": None,
    "oscillator_lbfgs": None,
    "logistic_sgd": None,
    "image_classifier": None,
    "mixture_em": None,
    "kalman_smoother": None,
    "normalizing_flow": None,
    "wave_inverse": None,
    "vae": None,
    "probit_laplace": None,
    "shape_alignment": None,
    "activation_probe": None,
    "optimizer_zoo": None,
    "graph_message_passing": None,
    "gradient_penalty": None,
    "residual_ridge": None,
    "mixture_density": None,
    "trend_smoothing": None,
    "particle_springs": None,
    "soft_alignment": None,
    "red_black_sor": None,
    "crank_nicolson": None,
    "masked_attention": None,
    "crf_viterbi": None,
    "sinkhorn_transport": None,
    "implicit_euler": None,
    "dopri_stages": None,
    "newton_cg": None,
    "gru_language_model": None,
    "implicit_feedback": None,
    "skipgram_embeddings": None,
    "ctc_recognizer": None,
    "super_resolution": None,
    "pinn_poisson": None,
    "stn_digits": None,
    "isotonic_calibration": None,
    "beam_search": None,
    "ppo_update": None,
}


def _param(name: str) -> object:
    branch = PROGRAMS[name]
    marks = []
    if branch:
        reason = f"needs branch {branch}; jitgrad lacks {', '.join(runner.missing_names(name))}"
        marks.append(pytest.mark.xfail(strict=False, reason=reason))
    return pytest.param(name, marks=marks, id=name)


def test_marks_match_missing_names():
    """A program runs unmarked exactly when jitgrad has every name it uses: once a merge
    brings the missing names, this fails until the program's mark is removed."""
    for name, branch in PROGRAMS.items():
        missing = runner.missing_names(name)
        assert bool(missing) == bool(branch), f"{name}: marked {branch!r}, missing {missing}"


def test_every_program_is_listed():
    on_disk = sorted(p.stem for p in runner.PROGRAMS.glob("*.py"))
    assert sorted([*PROGRAMS, "thomas_saved_view"]) == sorted(on_disk)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_runs_on_torch(name):
    results = runner.run_with_torch(name)
    assert results and "torch" in sys.modules and sys.modules["torch"].__name__ == "torch"


@pytest.mark.parametrize("name", [_param(n) for n in sorted(PROGRAMS)])
def test_program_same_on_jitgrad(name):
    runner.compare(name)


def test_saved_view_modified_in_place_raises_on_both():
    errors = []
    for run in (runner.run_with_torch, runner.run_with_jitgrad):
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            run("thomas_saved_view")
        errors.append(info.value)
    assert "__setitem__" in str(errors[1])  # jitgrad also says which write did it


def test_torch_is_jitgrad_maps_submodules_and_restores_sys_modules():
    import torch

    import jitgrad

    before = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    with runner.torch_is_jitgrad():
        import torch as mapped
        import torch.nn.functional as mapped_f
        from torch import nn as mapped_nn

        assert mapped is jitgrad and mapped_f is jitgrad.nn.functional and mapped_nn is jitgrad.nn
        assert importlib.import_module("torch.optim") is jitgrad.optim
        with pytest.raises(ModuleNotFoundError, match="jitgrad has no module 'jitgrad.no_such_module'"):
            importlib.import_module("torch.no_such_module")
    after = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    assert after == before
    import torch as again

    assert again is torch


def test_comparison_can_fail():
    with pytest.raises(AssertionError):
        runner.assert_same_results({"a": runner.to_numpy([1.0])}, {"a": runner.to_numpy([1.0 + 1e-6])})
    with pytest.raises(AssertionError):
        runner.assert_same_results({"a": 1.0}, {"b": 1.0})
