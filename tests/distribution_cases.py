"""The distributions the ``test_distributions*`` files run on PyTorch and on jitgrad: each
case makes the same distribution from the same float64 parameters with either library,
plus a value inside its support (broadcasting against the batch) to score.

``compare`` checks a jitgrad result against PyTorch's within floating-point tolerance (the
formulas are ours, so they are not bit for bit), NaN matching NaN."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

import jitgrad

R = np.random.default_rng(7)
SPD = (lambda a: a @ a.T + 3 * np.eye(3))(R.normal(size=(3, 3)))
SPD_BATCH = np.stack([SPD, SPD + np.diag([1.0, 2.0, 0.5])])
CORR_TRIL = (lambda d: np.linalg.cholesky(SPD / np.sqrt(np.outer(d, d))))(np.diag(SPD))


@dataclass
class Case:
    name: str
    params: dict[str, Any]  # name -> float64 array (becomes a tensor that requires grad) or a number
    make: Callable[[Any, dict[str, Any]], Any]  # (lib.distributions, tensors) -> distribution
    value: Any  # a value to score (broadcasts against batch_shape + event_shape)
    fixed: tuple[str, ...] = ()  # params that are not differentiated (counts)

    def build(self, lib: Any, dtype: str = "float64") -> tuple[Any, dict[str, Any]]:
        tensors = {k: (lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=k not in self.fixed)
                       if isinstance(v, np.ndarray) else v) for k, v in self.params.items()}
        return self.make(lib.distributions, tensors), tensors

    def value_of(self, lib: Any, dtype: str = "float64") -> Any:
        return lib.tensor(self.value, dtype=getattr(lib, dtype))


def _a(*values: Any) -> np.ndarray:
    return np.array(values, dtype=np.float64)


CASES = [
    Case("Normal", {"loc": _a(0.3, -1.2, 2.0), "scale": _a(0.5, 1.0, 2.5)},
         lambda D, p: D.Normal(p["loc"], p["scale"]), [[0.1, -0.7, 4.0], [1.0, 2.0, -3.0]]),
    Case("Normal(numbers)", {"loc": 0.5, "scale": 2.0}, lambda D, p: D.Normal(p["loc"], p["scale"]), 1.25),
    Case("Normal(broadcast)", {"loc": _a([0.0], [1.0]), "scale": _a(0.5, 1.5, 3.0)},
         lambda D, p: D.Normal(p["loc"], p["scale"]), [0.2, -0.4, 1.0]),
    Case("LogNormal", {"loc": _a(0.1, -0.5), "scale": _a(0.4, 1.3)},
         lambda D, p: D.LogNormal(p["loc"], p["scale"]), [0.7, 2.5]),
    Case("Uniform", {"low": _a(-1.0, 0.5), "high": _a(2.0, 0.75)},
         lambda D, p: D.Uniform(p["low"], p["high"]), [0.3, 0.6]),
    Case("Laplace", {"loc": _a(0.0, 1.5), "scale": _a(1.0, 0.25)},
         lambda D, p: D.Laplace(p["loc"], p["scale"]), [[-0.5, 1.75], [0.5, 1.0]]),
    Case("Exponential", {"rate": _a(0.5, 2.0, 7.0)}, lambda D, p: D.Exponential(p["rate"]), [0.2, 1.5, 0.01]),
    Case("Poisson", {"rate": _a(0.5, 3.0, 12.0)}, lambda D, p: D.Poisson(p["rate"]), [0.0, 2.0, 15.0]),
    Case("Gamma", {"concentration": _a(0.5, 2.0, 9.0), "rate": _a(1.0, 0.3, 4.0)},
         lambda D, p: D.Gamma(p["concentration"], p["rate"]), [0.4, 5.0, 2.2]),
    Case("Beta", {"concentration1": _a(0.5, 2.0, 3.0), "concentration0": _a(0.7, 5.0, 1.0)},
         lambda D, p: D.Beta(p["concentration1"], p["concentration0"]), [0.2, 0.3, 0.9]),
    Case("Bernoulli(probs)", {"probs": _a(0.1, 0.5, 0.9)}, lambda D, p: D.Bernoulli(probs=p["probs"]),
         [[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]),
    Case("Bernoulli(logits)", {"logits": _a(-2.0, 0.3, 30.0)}, lambda D, p: D.Bernoulli(logits=p["logits"]),
         [0.0, 1.0, 1.0]),
    Case("Binomial(probs)", {"total_count": _a(10.0, 10.0), "probs": _a(0.2, 0.7)},
         lambda D, p: D.Binomial(p["total_count"], probs=p["probs"]), [3.0, 10.0], fixed=("total_count",)),
    Case("Binomial(logits)", {"total_count": _a(5.0, 5.0), "logits": _a(-1.0, 2.0)},
         lambda D, p: D.Binomial(p["total_count"], logits=p["logits"]), [0.0, 4.0], fixed=("total_count",)),
    Case("Categorical(probs)", {"probs": _a([0.2, 0.3, 0.5], [0.6, 0.1, 0.3])},
         lambda D, p: D.Categorical(probs=p["probs"]), [2.0, 0.0]),
    Case("Categorical(logits)", {"logits": _a([0.0, 1.0, -1.0, 2.0])},
         lambda D, p: D.Categorical(logits=p["logits"]), [[3.0], [1.0]]),
    Case("MultivariateNormal(cov)", {"loc": _a(0.5, -1.0, 2.0), "cov": SPD},
         lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
         [[0.0, 0.0, 0.0], [1.0, -2.0, 3.0]]),
    Case("MultivariateNormal(scale_tril)", {"loc": _a([0.5, -1.0, 2.0], [0.0, 0.0, 1.0]),
                                            "tril": np.linalg.cholesky(SPD)},
         lambda D, p: D.MultivariateNormal(p["loc"], scale_tril=p["tril"]), [1.0, 0.5, 0.25]),
    Case("MultivariateNormal(precision)", {"loc": _a(0.5, -1.0, 2.0), "precision": SPD_BATCH},
         lambda D, p: D.MultivariateNormal(p["loc"], precision_matrix=p["precision"]), [0.3, 0.2, 0.1]),
    Case("Chi2", {"df": _a(1.0, 4.5)}, lambda D, p: D.Chi2(p["df"]), [0.3, 6.0]),
    Case("HalfNormal", {"scale": _a(0.5, 2.0)}, lambda D, p: D.HalfNormal(p["scale"]), [0.25, 3.0]),
    Case("Cauchy", {"loc": _a(0.0, -2.0), "scale": _a(1.0, 0.5)}, lambda D, p: D.Cauchy(p["loc"], p["scale"]),
         [0.5, -1.0]),
    Case("StudentT", {"df": _a(0.8, 1.5, 5.0), "loc": _a(0.0, 1.0, -1.0), "scale": _a(1.0, 2.0, 0.5)},
         lambda D, p: D.StudentT(p["df"], p["loc"], p["scale"]), [0.3, -2.0, 1.0]),
    Case("Geometric(probs)", {"probs": _a(0.2, 0.9, 1.0)}, lambda D, p: D.Geometric(probs=p["probs"]),
         [3.0, 0.0, 0.0]),
    Case("Geometric(logits)", {"logits": _a(-1.0, 2.0)}, lambda D, p: D.Geometric(logits=p["logits"]), [1.0, 4.0]),
    Case("Dirichlet", {"concentration": _a([0.5, 2.0, 3.0], [0.3, 0.6, 0.9])},
         lambda D, p: D.Dirichlet(p["concentration"]), [0.2, 0.3, 0.5]),
    Case("OneHotCategorical", {"probs": _a([0.2, 0.3, 0.5], [0.6, 0.1, 0.3])},
         lambda D, p: D.OneHotCategorical(probs=p["probs"]), [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    Case("OneHotCategoricalStraightThrough", {"logits": _a([0.2, -0.3, 0.5], [1.0, 0.0, 0.0])},
         lambda D, p: D.OneHotCategoricalStraightThrough(logits=p["logits"]), [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    Case("Multinomial", {"logits": _a([0.0, 1.0, -1.0], [2.0, 0.0, 0.5])},
         lambda D, p: D.Multinomial(6, logits=p["logits"]), [1.0, 3.0, 2.0]),
    Case("MixtureSameFamily(Normal)", {"weights": _a([0.2, 0.5, 0.3], [1.0, 1.0, 2.0]),
                                       "loc": _a([-1.0, 0.0, 2.0], [0.0, 0.5, 1.0]), "scale": _a(0.5, 1.0, 0.7)},
         lambda D, p: D.MixtureSameFamily(D.Categorical(probs=p["weights"]), D.Normal(p["loc"], p["scale"])),
         [[0.3], [-1.0]]),
    Case("MixtureSameFamily(MVN)", {"logits": _a(0.0, 1.0), "loc": _a([0.0, 0.0, 0.0], [1.0, -1.0, 2.0]),
                                    "tril": np.linalg.cholesky(SPD_BATCH)},
         lambda D, p: D.MixtureSameFamily(D.Categorical(logits=p["logits"]),
                                          D.MultivariateNormal(p["loc"], scale_tril=p["tril"])),
         [0.5, 0.5, 0.5]),
    Case("HalfCauchy", {"scale": _a(0.5, 2.0)}, lambda D, p: D.HalfCauchy(p["scale"]), [0.25, 3.0]),
    Case("Gumbel", {"loc": _a(0.0, -2.0), "scale": _a(1.0, 0.5)}, lambda D, p: D.Gumbel(p["loc"], p["scale"]),
         [0.5, -1.0]),
    Case("Gumbel(numbers)", {"loc": 1.0, "scale": 2.0}, lambda D, p: D.Gumbel(p["loc"], p["scale"]), [0.5, -1.0]),
    Case("Weibull", {"scale": _a(1.0, 2.0, 0.5), "concentration": _a(0.5, 1.5, 4.0)},
         lambda D, p: D.Weibull(p["scale"], p["concentration"]), [0.3, 2.0, 0.5]),
    Case("Pareto", {"scale": _a(1.0, 2.0, 0.5), "alpha": _a(0.5, 1.5, 4.0)},
         lambda D, p: D.Pareto(p["scale"], p["alpha"]), [1.3, 2.5, 0.9]),
    Case("NegativeBinomial(probs)", {"total_count": _a(3.0, 0.5, 10.0), "probs": _a(0.2, 0.6, 0.0)},
         lambda D, p: D.NegativeBinomial(p["total_count"], probs=p["probs"]), [2.0, 0.0, 0.0]),
    Case("NegativeBinomial(logits)", {"total_count": _a(3.0, 4.5), "logits": _a(-1.0, 2.0)},
         lambda D, p: D.NegativeBinomial(p["total_count"], logits=p["logits"]), [5.0, 1.0]),
    Case("RelaxedBernoulli", {"temperature": _a(0.5), "probs": _a(0.2, 0.7)},
         lambda D, p: D.RelaxedBernoulli(p["temperature"], probs=p["probs"]), [0.3, 0.9]),
    Case("RelaxedOneHotCategorical", {"temperature": _a(0.7), "logits": _a([0.0, 1.0, -1.0], [2.0, 0.0, 0.5])},
         lambda D, p: D.RelaxedOneHotCategorical(p["temperature"], logits=p["logits"]), [0.2, 0.5, 0.3]),
    Case("InverseGamma", {"concentration": _a(0.5, 1.5, 3.0), "rate": _a(1.0, 2.0, 0.5)},
         lambda D, p: D.InverseGamma(p["concentration"], p["rate"]), [0.3, 2.0, 0.9]),
    Case("FisherSnedecor", {"df1": _a(1.0, 3.0, 6.0), "df2": _a(1.5, 5.0, 12.0)},
         lambda D, p: D.FisherSnedecor(p["df1"], p["df2"]), [0.3, 2.0, 0.9]),
    Case("LogisticNormal", {"loc": _a([0.0, 1.0], [0.5, -0.5]), "scale": _a(1.0, 0.5)},
         lambda D, p: D.LogisticNormal(p["loc"], p["scale"]), [0.2, 0.3, 0.5]),
    Case("LowRankMultivariateNormal", {"loc": _a([0.5, -1.0, 2.0], [0.0, 0.0, 1.0]),
                                       "W": _a([1.0, 0.5], [-0.3, 0.2], [0.0, 1.5]), "D": _a(0.5, 1.0, 2.0)},
         lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["D"]), [1.0, 0.5, 0.25]),
    Case("Kumaraswamy", {"concentration1": _a(0.5, 2.0, 3.0), "concentration0": _a(0.7, 5.0, 1.5)},
         lambda D, p: D.Kumaraswamy(p["concentration1"], p["concentration0"]), [0.2, 0.3, 0.9]),
    Case("ContinuousBernoulli(probs)", {"probs": _a(0.1, 0.4995, 0.5, 0.7, 0.999)},
         lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), [0.2, 0.3, 0.9, 0.5, 1.0]),
    Case("ContinuousBernoulli(logits)", {"logits": _a(-2.0, 0.001, 3.0)},
         lambda D, p: D.ContinuousBernoulli(logits=p["logits"]), [0.0, 0.3, 0.9]),
    Case("LKJCholesky", {"concentration": _a(0.5, 1.0, 3.0)}, lambda D, p: D.LKJCholesky(3, p["concentration"]),
         CORR_TRIL),
    Case("LKJCholesky(number)", {"concentration": 2.0}, lambda D, p: D.LKJCholesky(4, p["concentration"]),
         np.linalg.cholesky(np.eye(4) * 0.7 + 0.3)),
    Case("Wishart", {"df": _a(4.0, 6.5), "cov": SPD}, lambda D, p: D.Wishart(p["df"], covariance_matrix=p["cov"]),
         SPD_BATCH),
    Case("Wishart(scale_tril)", {"df": _a(3.5), "tril": np.linalg.cholesky(SPD_BATCH)},
         lambda D, p: D.Wishart(p["df"], scale_tril=p["tril"]), SPD + np.eye(3), fixed=("df",)),
    Case("Wishart(precision, number df)", {"df": 5.0, "precision": SPD},
         lambda D, p: D.Wishart(p["df"], precision_matrix=p["precision"]), SPD_BATCH / 3),
    Case("Independent(Normal)", {"loc": _a([0.0, 1.0, 2.0], [1.0, 1.0, 1.0]), "scale": _a(1.0, 0.5, 2.0)},
         lambda D, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1), [0.5, 0.5, 0.5]),
]
IDS = [c.name for c in CASES]
# a gradient of a sample with respect to a concentration (or df) is not implemented
CONCENTRATIONS = {"Gamma": ("concentration",), "Chi2": ("df",), "Beta": ("concentration1", "concentration0"),
                  "Dirichlet": ("concentration",), "StudentT": ("df",), "InverseGamma": ("concentration",),
                  "FisherSnedecor": ("df1", "df2"), "Wishart": ("df",)}


def compare(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    """``ours`` (jitgrad) matches ``theirs`` (PyTorch): tensors by shape, dtype and value."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, jitgrad.Tensor), ours
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert tuple(ours.shape) == tuple(theirs.shape)
        a, b = ours.detach().numpy(), theirs.detach().numpy()
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(a, b)
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            compare(a, b, rtol, atol)
    else:
        assert ours == theirs


def same_text(ours: str, theirs: str) -> None:
    """Messages and reprs match once jitgrad's names (``jitgrad.float64``, ``jitgrad.Size``)
    read as PyTorch's."""
    assert ours.replace("jitgrad.", "torch.") == theirs, (ours, theirs)
