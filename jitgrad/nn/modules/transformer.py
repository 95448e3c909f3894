"""``TransformerEncoderLayer``, ``TransformerDecoderLayer``, their stacks ``TransformerEncoder``
and ``TransformerDecoder``, and ``Transformer``: PyTorch's submodules (so its state dicts
load), post-norm or ``norm_first`` residual blocks, masks passed to ``MultiheadAttention``.

There is one path: PyTorch's inference fast paths (fused kernels, nested tensors) are not
reproduced, so ``enable_nested_tensor`` is kept as an attribute and changes nothing. One
visible difference follows: in eval mode without gradients, PyTorch's ``TransformerEncoder``
with a ``src_key_padding_mask`` (and no ``mask``) outputs zeros at the padded positions;
here they are computed as while training (test_nn_attention.py, the strict xfail).
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .._attention import canonical_mask
from .activation import GELU, Dropout, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    if not isinstance(activation, str):
        return activation
    if activation in ("relu", "gelu"):
        return F.relu if activation == "relu" else F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class _FeedForwardBlocks(Module):
    """What both layers share: the feed-forward block ``linear2(dropout(act(linear1(x))))``
    and ``n_norms`` LayerNorms / dropouts (registered in PyTorch's order by the subclass)."""

    def _build_feed_forward(self, d_model: int, dim_feedforward: int, dropout: float,
                            activation: str | Callable[[Tensor], Tensor], layer_norm_eps: float,
                            norm_first: bool, bias: bool, n_norms: int, dtype: Any) -> None:
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        for k in range(1, n_norms + 1):
            setattr(self, f"norm{k}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for k in range(1, n_norms + 1):
            setattr(self, f"dropout{k}", Dropout(dropout))
        fn = _activation(activation)
        self.activation_relu_or_gelu = (
            1 if fn is F.relu or isinstance(fn, ReLU) else 2 if fn is F.gelu or isinstance(fn, GELU) else 0)
        self.activation = fn

    def _ff_block(self, x: Tensor, last_dropout: Module) -> Tensor:
        return last_dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))  # type: ignore[no-any-return]

    def _attention_block(self, attn: Module, x: Tensor, mem: Tensor, attn_mask: Tensor | None,
                         key_padding_mask: Tensor | None, is_causal: bool, drop: Module) -> Tensor:
        out = attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                   need_weights=False, is_causal=is_causal)[0]
        return drop(out)  # type: ignore[no-any-return]


class TransformerEncoderLayer(_FeedForwardBlocks):
    """Self-attention then feed-forward, each a residual block normalised after
    (``norm_first=False``) or before (``norm_first=True``)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self._build_feed_forward(d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first,
                                 bias, 2, dtype)

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        def sa(x: Tensor) -> Tensor:
            return self._attention_block(self.self_attn, x, x, src_mask, src_key_padding_mask, is_causal,
                                         self.dropout1)

        x = src
        if self.norm_first:
            x = x + sa(self.norm1(x))
            return x + self._ff_block(self.norm2(x), self.dropout2)
        x = self.norm1(x + sa(x))
        return self.norm2(x + self._ff_block(x, self.dropout2))  # type: ignore[no-any-return]


class TransformerDecoderLayer(_FeedForwardBlocks):
    """Self-attention, attention over ``memory``, then feed-forward, each a residual block
    normalised after (``norm_first=False``) or before."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, dtype=dtype)
        self._build_feed_forward(d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first,
                                 bias, 3, dtype)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        def sa(x: Tensor) -> Tensor:
            return self._attention_block(self.self_attn, x, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal,
                                         self.dropout1)

        def mha(x: Tensor) -> Tensor:
            return self._attention_block(self.multihead_attn, x, memory, memory_mask, memory_key_padding_mask,
                                         memory_is_causal, self.dropout2)

        x = tgt
        if self.norm_first:
            x = x + sa(self.norm1(x))
            x = x + mha(self.norm2(x))
            return x + self._ff_block(self.norm3(x), self.dropout3)
        x = self.norm1(x + sa(x))
        x = self.norm2(x + mha(x))
        return self.norm3(x + self._ff_block(x, self.dropout3))  # type: ignore[no-any-return]


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` in turn, then ``norm`` if given."""

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = False  # (jitgrad has no nested tensors)
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        src_key_padding_mask = canonical_mask(src_key_padding_mask, "src_key_padding_mask", mask, "mask", src.dtype)
        mask = canonical_mask(mask, "mask", None, "", src.dtype)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal is True,
                           src_key_padding_mask=src_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` in turn, then ``norm`` if given."""

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal is True, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder-decoder: ``num_encoder_layers`` encoder layers and ``num_decoder_layers``
    decoder layers, each stack closed by a LayerNorm; matrices Xavier-uniform."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, custom_encoder: Any = None,
                 custom_decoder: Any = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*args, dtype=dtype), num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*args, dtype=dtype), num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,  # type: ignore[no-any-return]
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The causal float mask: ``-inf`` above the diagonal, ``0`` elsewhere."""
        return creation.full((sz, sz), float("-inf"), dtype=dtype).triu(1)  # type: ignore[attr-defined,no-any-return]
