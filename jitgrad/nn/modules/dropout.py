"""Channel-wise and self-normalising dropout modules: ``Dropout1d/2d/3d``, ``AlphaDropout``,
``FeatureAlphaDropout`` (``p`` checked and kept as ``Dropout``'s; the identity in ``eval()``)."""

from __future__ import annotations

from ...tensor import Tensor
from .. import _dropout
from .activation import Dropout


class Dropout1d(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return _dropout.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return _dropout.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return _dropout.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return _dropout.alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(Dropout):
    def forward(self, input: Tensor) -> Tensor:
        return _dropout.feature_alpha_dropout(input, self.p, self.training, self.inplace)
