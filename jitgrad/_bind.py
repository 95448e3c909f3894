"""Attach the functions of the layers above ``tensor.py`` to ``Tensor`` as methods.

One explicit assignment per method, so every method can be found with grep.
"""

from __future__ import annotations

from . import copying, indexing, views
from .tensor import Tensor

# views (views.py)
Tensor.as_strided = views.as_strided  # type: ignore[attr-defined]
Tensor.narrow = views.narrow  # type: ignore[attr-defined]
Tensor.select = views.select  # type: ignore[attr-defined]
Tensor.transpose = views.transpose  # type: ignore[attr-defined]
Tensor.t = views.t  # type: ignore[attr-defined]
Tensor.T = property(views.T)  # type: ignore[attr-defined]
Tensor.permute = views.permute  # type: ignore[attr-defined]
Tensor.movedim = views.movedim  # type: ignore[attr-defined]
Tensor.view = views.view  # type: ignore[attr-defined]
Tensor.view_as = views.view_as  # type: ignore[attr-defined]
Tensor.reshape = views.reshape  # type: ignore[attr-defined]
Tensor.flatten = views.flatten  # type: ignore[attr-defined]
Tensor.expand = views.expand  # type: ignore[attr-defined]
Tensor.expand_as = views.expand_as  # type: ignore[attr-defined]
Tensor.unsqueeze = views.unsqueeze  # type: ignore[attr-defined]
Tensor.squeeze = views.squeeze  # type: ignore[attr-defined]
Tensor.diagonal = views.diagonal  # type: ignore[attr-defined]
Tensor.unfold = views.unfold  # type: ignore[attr-defined]
Tensor.unbind = views.unbind  # type: ignore[attr-defined]
Tensor.split = views.split  # type: ignore[attr-defined]
Tensor.chunk = views.chunk  # type: ignore[attr-defined]
Tensor.detach = views.detach  # type: ignore[attr-defined]

# indexing (indexing.py)
Tensor.__getitem__ = indexing.getitem  # type: ignore[attr-defined]
Tensor.__setitem__ = indexing.setitem  # type: ignore[attr-defined]

# copies and in-place writes (copying.py)
Tensor.clone = copying.clone  # type: ignore[attr-defined]
Tensor.contiguous = copying.contiguous  # type: ignore[attr-defined]
Tensor.copy_ = copying.copy_  # type: ignore[attr-defined]
Tensor.fill_ = copying.fill_  # type: ignore[attr-defined]
Tensor.zero_ = copying.zero_  # type: ignore[attr-defined]
