"""``jitgrad.nn``: modules, parameters, layers, losses, ``init`` and ``functional``, with the
API of ``torch.nn``."""

from . import functional, init, utils
from .modules import (
    ELU, GELU, BatchNorm1d, BatchNorm2d, BCELoss, Bilinear, Conv1d, Conv2d, BCEWithLogitsLoss, CrossEntropyLoss, Dropout,
    Embedding, Flatten,
    GaussianNLLLoss, Hardtanh, HuberLoss, Identity, KLDivLoss, L1Loss, LayerNorm, LeakyReLU,
    Linear, LogSoftmax, Module,
    ModuleDict, ModuleList, MSELoss, NLLLoss, ParameterDict, ParameterList, ReLU, Sequential,
    Sigmoid, SiLU, SmoothL1Loss, Softmax, Softplus, Tanh, Unflatten,
)
from .modules import (
    CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid, ReLU6, RMSNorm, Softmin,
    Softshrink, Softsign, Tanhshrink, Threshold,
)
from .modules import (
    GRU, LSTM, RNN, GRUCell, LSTMCell, MultiheadAttention, RNNBase, RNNCell, RNNCellBase, Transformer,
    TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
from .modules import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
    MaxPool1d, MaxPool2d,
)
from .modules import Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .modules import (
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d,
    ReplicationPad1d, ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)
from .modules import (
    AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout, CosineSimilarity, GroupNorm,
    PairwiseDistance, PixelShuffle, PixelUnshuffle, PReLU, Softmax2d, Upsample,
    UpsamplingBilinear2d, UpsamplingNearest2d, CosineEmbeddingLoss, HingeEmbeddingLoss,
    MarginRankingLoss, MultiLabelSoftMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
)
from .modules import (
    ChannelShuffle, CircularPad3d, ConstantPad3d, Fold, LPPool1d, LPPool2d, MaxUnpool1d,
    MaxUnpool2d, ReflectionPad3d, ReplicationPad3d, Unfold, ZeroPad3d,
)
from .modules import MultiLabelMarginLoss, MultiMarginLoss, TripletMarginWithDistanceLoss
from .modules import AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d
from .modules import LPPool3d, MaxUnpool3d
from .modules import BatchNorm3d
from .modules import EmbeddingBag, LocalResponseNorm, Mish, RReLU
from .parameter import Buffer, Parameter

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten",
    "GELU", "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleDict", "ModuleList", "NLLLoss", "Parameter",
    "ParameterDict", "ParameterList", "ReLU", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss",
    "Softmax", "Softplus", "Tanh", "Unflatten", "functional", "init", "utils", "KLDivLoss",
    "GaussianNLLLoss", "Buffer", "BatchNorm1d", "BatchNorm2d",
    "Bilinear", "Conv1d", "Conv2d", "CELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "LogSigmoid", "ReLU6", "RMSNorm", "SELU", "Softmin", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AvgPool1d",
    "AvgPool2d", "MaxPool1d", "MaxPool2d", "ConvTranspose1d", "ConvTranspose2d",
    "CircularPad1d", "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
    "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d",
    "AlphaDropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout",
    "CosineSimilarity", "GroupNorm", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle", "PReLU",
    "Softmax2d", "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "CosineEmbeddingLoss",
    "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss",
    "ChannelShuffle", "CircularPad3d", "ConstantPad3d", "Fold", "LPPool1d", "LPPool2d",
    "MaxUnpool1d", "MaxUnpool2d", "ReflectionPad3d", "ReplicationPad3d", "Unfold", "ZeroPad3d",
    "MultiLabelMarginLoss", "MultiMarginLoss", "TripletMarginWithDistanceLoss",
    "Conv3d", "ConvTranspose3d",
    "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "AvgPool3d", "MaxPool3d",
    "LPPool3d", "MaxUnpool3d",
    "BatchNorm3d",
    "LocalResponseNorm", "Mish", "RReLU", "EmbeddingBag",
    "GRU", "LSTM", "RNN", "RNNBase", "GRUCell", "LSTMCell", "RNNCell", "RNNCellBase",
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer",
]
