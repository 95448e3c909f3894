"""The layers and containers of ``jitgrad.nn``."""

from .activation import (
    ELU, GELU, Dropout, Hardtanh, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus,
    Tanh,
)
from .activation_more import (
    CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid, ReLU6, RMSNorm, Softmin,
    Softshrink, Softsign, Tanhshrink, Threshold,
)
from .attention import MultiheadAttention
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Flatten, Identity, Linear
from .loss import (
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, GaussianNLLLoss, HuberLoss, KLDivLoss, L1Loss,
    MSELoss, NLLLoss, SmoothL1Loss,
)
from .module import Module
from .normalization import Embedding, LayerNorm, Unflatten
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .padding import (
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d,
    ReplicationPad1d, ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)
from .dropout import (
    AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout,
)
from .embedding_bag import EmbeddingBag
from .layers_extra import LocalResponseNorm, Mish, RReLU
from .layers_extra import (
    CosineSimilarity, GroupNorm, PairwiseDistance, PixelShuffle, PixelUnshuffle, PReLU, Softmax2d,
    Upsample, UpsamplingBilinear2d, UpsamplingNearest2d,
)
from .loss_more import (
    CosineEmbeddingLoss, HingeEmbeddingLoss, MarginRankingLoss, MultiLabelSoftMarginLoss,
    PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
)
from .loss_more import CTCLoss, MultiLabelMarginLoss, MultiMarginLoss, TripletMarginWithDistanceLoss
from .pooling_extra import ChannelShuffle, Fold, LPPool1d, LPPool2d, MaxUnpool1d, MaxUnpool2d, Unfold
from .pooling_extra import LPPool3d, MaxUnpool3d
from .padding import CircularPad3d, ConstantPad3d, ReflectionPad3d, ReplicationPad3d, ZeroPad3d
from .pooling import AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d
from .pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
    MaxPool1d, MaxPool2d,
)
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .transformer import (
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten",
    "GELU", "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear",
    "LogSoftmax", "MSELoss", "Module", "ModuleDict", "ModuleList", "NLLLoss", "ParameterDict",
    "ParameterList",
    "ReLU", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax", "Softplus", "Tanh",
    "Unflatten", "KLDivLoss", "GaussianNLLLoss", "BatchNorm1d", "BatchNorm2d", "Bilinear", "Conv1d", "Conv2d",
    "CELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "LogSigmoid", "ReLU6", "RMSNorm", "SELU", "Softmin", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AvgPool1d",
    "AvgPool2d", "MaxPool1d", "MaxPool2d", "ConvTranspose1d", "ConvTranspose2d",
    "CircularPad1d", "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
    "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d",
    "AlphaDropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout",
    "CosineSimilarity", "GroupNorm", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle", "PReLU",
    "Softmax2d", "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "CosineEmbeddingLoss",
    "HingeEmbeddingLoss", "CTCLoss", "MarginRankingLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss",
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
