"""The curated list behind ``COMPATIBILITY.md``: the public PyTorch names numeric scripts
use, by namespace, and the few where jitgrad differs on purpose (with the README's reason).

Whether a name is supported is *not* written here: ``compat_report`` looks it up in jitgrad
when it runs, so the report follows the code.
"""

from __future__ import annotations

NAMES: dict[str, list[str]] = {
    "torch": """
        tensor as_tensor from_numpy from_dlpack zeros ones empty full zeros_like ones_like
        empty_like full_like arange linspace logspace eye rand randn randint randperm rand_like
        randn_like manual_seed seed get_rng_state set_rng_state
        float32 float64 float16 bfloat16 int16 int32 int64 int8 uint8 bool complex64 complex128
        dtype device Size Tensor get_default_dtype set_default_dtype finfo iinfo
        is_tensor is_floating_point is_complex numel result_type promote_types can_cast
        no_grad enable_grad set_grad_enabled is_grad_enabled inference_mode set_warn_always
        is_warn_always_enabled set_printoptions pi e inf nan newaxis svd qr cholesky cholesky_inverse
        triangular_solve chain_matmul nuclear_norm normal poisson multinomial set_num_threads
        get_num_threads use_deterministic_algorithms are_deterministic_algorithms_enabled
        set_float32_matmul_precision get_float32_matmul_precision get_default_device set_default_device
        typename is_same_size renorm gradient vander combinations unravel_index frexp ldexp addr put i0
        select_scatter slice_scatter diagonal_scatter is_signed conv1d conv2d conv_transpose2d cosine_similarity lu_unpack
        dropout layer_norm group_norm batch_norm instance_norm pdist selu celu threshold max_pool2d
        add sub mul div true_divide floor_divide remainder fmod neg positive reciprocal pow square
        abs sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan atan2
        sinh cosh tanh asinh acosh atanh sigmoid relu erf erfc erfinv lgamma digamma igamma igammac xlogy
        logaddexp hypot floor ceil round trunc frac clamp clip maximum minimum fmax fmin
        lerp addcmul addcdiv where isnan isinf isfinite nan_to_num
        eq ne lt le gt ge equal allclose isclose logical_and logical_or logical_xor logical_not
        bitwise_and bitwise_or bitwise_xor bitwise_not
        sum mean prod std var std_mean var_mean max min amax amin argmax argmin norm
        logsumexp softmax log_softmax cumsum cumprod cummax cummin diff all any median
        sort argsort topk kthvalue unique count_nonzero
        matmul mm bmm mv dot outer inner einsum tensordot kron cross trace tril triu diag
        diag_embed diagonal cdist det inverse
        cat concat concatenate stack hstack vstack split chunk unbind flip roll rot90 repeat_interleave
        tile broadcast_to broadcast_tensors meshgrid squeeze unsqueeze flatten reshape permute
        transpose movedim narrow select gather scatter scatter_add index_select masked_fill
        masked_select take take_along_dim nonzero searchsorted bucketize histc bincount
        clone detach as_strided
        absolute arccos arcsin arctan arctan2 divide multiply subtract negative greater
        greater_equal less less_equal not_equal fix ravel is_nonzero deg2rad rad2deg sinc copysign
        argwhere isin tril_indices triu_indices tensor_split hsplit vsplit dsplit unflatten index_put
        save load conj real imag isreal resolve_conj heaviside vdot pinverse pairwise_distance
        matrix_exp trapezoid cumulative_trapezoid cartesian_prod block_diag cov corrcoef dist
        float_power quantile nanquantile bitwise_left_shift bitwise_right_shift gcd lcm
        unique_consecutive nextafter mvlgamma mode histogram histogramdd
        channels_last channels_last_3d contiguous_format preserve_format memory_format
    """.split(),
    "Tensor": """
        shape size dim ndim numel dtype device is_leaf requires_grad requires_grad_ grad grad_fn
        backward retain_grad register_hook register_post_accumulate_grad_hook detach detach_ item
        tolist numpy clone contiguous
        is_contiguous stride storage_offset data data_ptr to cpu cuda float double long int bool
        type_as view view_as reshape reshape_as flatten squeeze unsqueeze expand expand_as
        permute transpose t T mT H movedim narrow select unfold unbind split chunk diagonal
        as_strided repeat flip roll
        add add_ sub sub_ mul mul_ div div_ neg neg_ pow pow_ abs abs_ exp exp_ log log_ sqrt
        sqrt_ sin cos tanh sigmoid relu clamp clamp_ clamp_min clamp_max square sign
        log1p expm1 reciprocal floor ceil round lerp addcmul_ addcdiv_ masked_fill masked_fill_
        where eq ne lt le gt ge logical_not
        sum mean prod std var max min amax amin argmax argmin norm logsumexp softmax log_softmax
        cumsum cumprod all any sort topk
        matmul mm bmm mv dot outer
        copy_ fill_ zero_ index_put_ index_add_ index_copy_ scatter_ scatter_add_ gather
        index_select masked_select nonzero uniform_ normal_ bernoulli_ exponential_
        remainder floor_divide __mod__ __rmod__ __floordiv__ __rfloordiv__ __pos__ index_put
        nbytes itemsize is_same_size __contains__ __reversed__ tensor_split unflatten
        __getitem__ __setitem__ __len__ __iter__ __array__ __dlpack__
        set_ mode histogram igamma igamma_ igammac igammac_
    """.split(),
    "torch.nn": """
        Module Parameter Buffer ModuleList ModuleDict ParameterList ParameterDict Sequential
        Linear Bilinear Identity Flatten Unflatten Conv1d Conv2d Embedding LayerNorm BatchNorm1d
        Dropout ReLU LeakyReLU ELU GELU SiLU Tanh Sigmoid Softplus Softmax LogSoftmax Hardtanh
        MSELoss L1Loss SmoothL1Loss HuberLoss CrossEntropyLoss NLLLoss BCELoss BCEWithLogitsLoss
        KLDivLoss GaussianNLLLoss init functional utils
        BatchNorm2d ReLU6 Hardsigmoid Hardswish LogSigmoid Softsign Tanhshrink SELU CELU GLU Softmin
        Threshold Hardshrink Softshrink RMSNorm
        MaxPool1d MaxPool2d AvgPool1d AvgPool2d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveMaxPool1d
        AdaptiveMaxPool2d ConvTranspose1d ConvTranspose2d ZeroPad1d ZeroPad2d ConstantPad1d ConstantPad2d
        ReflectionPad1d ReflectionPad2d ReplicationPad1d ReplicationPad2d CircularPad1d CircularPad2d
        GroupNorm PReLU PixelShuffle PixelUnshuffle Upsample UpsamplingNearest2d UpsamplingBilinear2d
        Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout CosineSimilarity PairwiseDistance
        Softmax2d MarginRankingLoss HingeEmbeddingLoss SoftMarginLoss CosineEmbeddingLoss
        TripletMarginLoss PoissonNLLLoss MultiLabelSoftMarginLoss LPPool1d LPPool2d MaxUnpool1d
        MaxUnpool2d Fold Unfold ChannelShuffle ZeroPad3d ConstantPad3d ReflectionPad3d ReplicationPad3d
        CircularPad3d MultiMarginLoss MultiLabelMarginLoss TripletMarginWithDistanceLoss Conv3d
        ConvTranspose3d MaxPool3d AvgPool3d AdaptiveAvgPool3d AdaptiveMaxPool3d LPPool3d MaxUnpool3d
        BatchNorm3d LocalResponseNorm Mish RReLU EmbeddingBag
        RNN LSTM GRU RNNCell LSTMCell GRUCell RNNBase RNNCellBase MultiheadAttention
        TransformerEncoderLayer TransformerEncoder TransformerDecoderLayer TransformerDecoder
        Transformer CTCLoss
    """.split(),
    "torch.nn.functional": """
        linear relu leaky_relu elu gelu silu softplus sigmoid tanh hardtanh softmax log_softmax
        dropout pad avg_pool1d max_pool1d conv1d conv2d unfold normalize one_hot embedding
        layer_norm batch_norm instance_norm mse_loss l1_loss smooth_l1_loss huber_loss cross_entropy nll_loss
        binary_cross_entropy binary_cross_entropy_with_logits kl_div cosine_similarity
        pairwise_distance interpolate bilinear relu6 hardsigmoid hardswish logsigmoid softsign
        tanhshrink selu celu glu softmin threshold hardshrink softshrink rms_norm gaussian_nll_loss
        max_pool2d avg_pool2d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_max_pool1d
        adaptive_max_pool2d conv_transpose1d conv_transpose2d group_norm prelu pixel_shuffle
        pixel_unshuffle dropout1d dropout2d dropout3d alpha_dropout feature_alpha_dropout
        margin_ranking_loss hinge_embedding_loss soft_margin_loss cosine_embedding_loss
        triplet_margin_loss poisson_nll_loss multilabel_soft_margin_loss lp_pool1d lp_pool2d
        max_unpool1d max_unpool2d fold channel_shuffle max_pool1d_with_indices max_pool2d_with_indices
        adaptive_max_pool1d_with_indices adaptive_max_pool2d_with_indices multi_margin_loss
        multilabel_margin_loss triplet_margin_with_distance_loss upsample upsample_nearest upsample_bilinear
        conv3d conv_transpose3d max_pool3d avg_pool3d adaptive_avg_pool3d adaptive_max_pool3d
        max_pool3d_with_indices adaptive_max_pool3d_with_indices lp_pool3d max_unpool3d relu_ elu_
        leaky_relu_ hardtanh_ threshold_ selu_ celu_ local_response_norm pdist rrelu rrelu_
        embedding_bag gumbel_softmax affine_grid grid_sample
        scaled_dot_product_attention ctc_loss
    """.split(),
    "torch.nn.init": """
        uniform_ normal_ zeros_ ones_ constant_ eye_ xavier_uniform_ xavier_normal_
        kaiming_uniform_ kaiming_normal_ orthogonal_ trunc_normal_ calculate_gain dirac_
    """.split(),
    "torch.nn.utils": """
        clip_grad_norm_ clip_grad_value_ parameters_to_vector vector_to_parameters rnn get_total_norm
        clip_grads_with_norm_ skip_init stateless weight_norm remove_weight_norm spectral_norm remove_spectral_norm
        parametrize
        parametrizations
    """.split(),
    "torch.nn.utils.parametrizations": "orthogonal spectral_norm weight_norm".split(),
    "torch.nn.utils.rnn": """
        PackedSequence pack_padded_sequence pad_packed_sequence pad_sequence pack_sequence
        unpad_sequence unpack_sequence
    """.split(),
    "torch.linalg": """
        norm vector_norm matrix_norm det slogdet inv solve lstsq cholesky qr eigh eigvalsh svd
        svdvals pinv matrix_exp matrix_power matrix_rank cross cholesky_ex inv_ex solve_ex cond vander
        tensorinv tensorsolve diagonal solve_triangular multi_dot vecdot lu_factor lu_solve lu lu_factor_ex
    """.split(),
    "torch.autograd": """
        grad backward Function gradcheck gradgradcheck detect_anomaly set_detect_anomaly
        no_grad enable_grad set_grad_enabled forward_ad functional graph
    """.split(),
    "torch.autograd.forward_ad": "UnpackedDualTensor enter_dual_level exit_dual_level make_dual unpack_dual dual_level".split(),
    "torch.optim": "Optimizer SGD Adam AdamW RMSprop Adagrad LBFGS lr_scheduler Adamax NAdam RAdam Adadelta Rprop ASGD".split(),
    "torch.optim.lr_scheduler": """
        LRScheduler LambdaLR MultiplicativeLR StepLR MultiStepLR ConstantLR LinearLR ExponentialLR
        SequentialLR PolynomialLR CosineAnnealingLR ChainedScheduler ReduceLROnPlateau CyclicLR
        CosineAnnealingWarmRestarts OneCycleLR
    """.split(),
    "torch.special": """
        erf erfc erfinv expm1 log1p logit expit xlogy xlog1py gammaln digamma logsumexp softmax log_softmax
        ndtr ndtri log_ndtr erfcx entr multigammaln sinc round psi polygamma exp2 i0 i0e i1 i1e gammainc
        gammaincc zeta bessel_j0 bessel_j1 bessel_y0 bessel_y1 modified_bessel_i0 modified_bessel_i1
        modified_bessel_k0 modified_bessel_k1 scaled_modified_bessel_k0 scaled_modified_bessel_k1
    """.split(),
    "torch.func": "grad grad_and_value vjp jvp jacrev jacfwd hessian vmap functional_call".split(),
    "torch.utils.data": """
        Dataset IterableDataset TensorDataset StackDataset ConcatDataset ChainDataset Subset
        random_split DataLoader Sampler SequentialSampler RandomSampler SubsetRandomSampler
        WeightedRandomSampler BatchSampler default_collate default_convert get_worker_info
    """.split(),
    "torch.utils.checkpoint": "checkpoint checkpoint_sequential".split(),
    "torch.testing": "assert_close make_tensor assert_allclose".split(),
    "torch.random": "manual_seed seed initial_seed get_rng_state set_rng_state fork_rng".split(),
    "torch.distributions": """
        Distribution Normal LogNormal Uniform Laplace Exponential Poisson Gamma Chi2 Beta Bernoulli
        Binomial Categorical OneHotCategorical OneHotCategoricalStraightThrough Multinomial
        Geometric Dirichlet Cauchy HalfNormal StudentT MultivariateNormal Independent
        MixtureSameFamily kl_divergence register_kl
        constraints transforms TransformedDistribution biject_to transform_to NegativeBinomial
        Gumbel Weibull Pareto HalfCauchy RelaxedBernoulli RelaxedOneHotCategorical
        ExponentialFamily LowRankMultivariateNormal VonMises ContinuousBernoulli Kumaraswamy
        LogisticNormal InverseGamma FisherSnedecor LKJCholesky Wishart
        Transform AffineTransform ComposeTransform ExpTransform SigmoidTransform TanhTransform
        SoftplusTransform PowerTransform AbsTransform IndependentTransform StickBreakingTransform
        SoftmaxTransform LowerCholeskyTransform ReshapeTransform CatTransform StackTransform CorrCholeskyTransform
    """.split(),
}

_REAL_DTYPES = ("real dtypes only (bool, uint8, int8, int16, int32, int64, float16, float32, "
                "float64): NumPy has no bfloat16, and jitgrad no complex")

# names jitgrad leaves out on purpose (the scope the README states) -> why
ABSENT_BY_DESIGN: dict[str, str] = {
    **{f"torch.{name}": _REAL_DTYPES for name in ("bfloat16", "complex64", "complex128")},
    "Tensor.cuda": "CPU only (NumPy buffers)",
}

# names jitgrad has but that behave differently on purpose (README: "Where jitgrad
# deliberately differs from PyTorch") -> how. A name listed here that jitgrad does not have
# yet is reported as "not yet".
DIFFERENCES: dict[str, str] = {
    "torch.autograd.forward_ad": "tangents from each op's backward (double-vjp): ops without a PyTorch forward "
                                 "derivative get one; a backward inside a level gives no tangents (README)",
    "torch.autograd.forward_ad.make_dual": "every op called with the dual gets the Jacobian-vector product of its "
                                           "backward as tangent, equal to PyTorch's up to rounding (README)",
    "torch.manual_seed": "seeds jitgrad's NumPy generator: reproducible, but not PyTorch's numbers",
    "torch.rand": "jitgrad's NumPy generator: not PyTorch's random numbers",
    "torch.randn": "jitgrad's NumPy generator: not PyTorch's random numbers",
    **{f"torch.{name}": "jitgrad's NumPy generator: not PyTorch's random numbers"
       for name in ("normal", "poisson", "multinomial")},
    **{f"torch.nn.init.{name}": "random fills use jitgrad's generator: not PyTorch's numbers"
       for name in ("uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                    "kaiming_normal_", "orthogonal_", "trunc_normal_")},
    "torch.nn.Module": "a load_state_dict that raises has copied nothing (PyTorch has already "
                       "copied the matching keys)",
    "torch.linalg.det": "the gradient at a singular matrix is the cofactor matrix (PyTorch 2.13 "
                        "returns zeros there)",
    "torch.distributions.VonMises": "the log normaliser uses the exact Bessel function (PyTorch's polynomial "
                                    "approximation errs by up to 6e-7 relative); samples from jitgrad's generator",
    "torch.linalg.cond": "differentiable for every norm (PyTorch 2.13's backward raises for 'fro', inf, -inf, "
                         "1 and -1)",
    "torch.linalg.cholesky_ex": "where info is nonzero, L holds an unblocked factorization stopped at the failing "
                                "column (not LAPACK's blocked one's values)",
    "torch.det": "the gradient at a singular matrix is the cofactor matrix (PyTorch 2.13 "
                 "returns zeros there)",
    "torch.nn.Linear": "initial weights come from jitgrad's generator: not PyTorch's numbers",
    **{f"torch.optim.{name}": "fused=True is kept in the groups (and a float32 step) as PyTorch's, but the "
                              "step is the single-tensor update (PyTorch's fused kernel may round differently)"
       for name in ("Adam", "AdamW", "Adagrad")},
    "torch.optim.SGD": "fused=True is kept in the groups as PyTorch's, but the step is the single-tensor "
                       "update (PyTorch's fused kernel may round differently)",
    "torch.optim.Optimizer": "differentiable=True (every optimizer that takes it) is refused at step with "
                             "NotImplementedError: updates run under no_grad",
    "torch.nn.Embedding": "initial weights come from jitgrad's generator: not PyTorch's numbers",
    "torch.nn.EmbeddingBag": "initial weights come from jitgrad's generator: not PyTorch's numbers",
    **{f"torch.nn.{name}": "initial weights come from jitgrad's generator: not PyTorch's numbers"
       for name in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention",
                    "TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer")},
    "torch.nn.TransformerEncoder": "no nested-tensor fast path: in eval mode without gradients, with a "
                                   "src_key_padding_mask and no mask, PyTorch outputs zeros at padded "
                                   "positions (before the final norm); jitgrad computes them as PyTorch "
                                   "does while training. enable_nested_tensor is kept and changes "
                                   "nothing (no warning)",
    "torch.nn.utils.rnn.unpad_sequence": "leaves its argument as it was (PyTorch transposes a "
                                         "batch_first=False argument in place)",
    "torch.nn.functional.dropout": "the mask comes from jitgrad's generator: not PyTorch's numbers",
    "torch.nn.Dropout": "the mask comes from jitgrad's generator: not PyTorch's numbers",
    **{f"torch.nn.{name}": "the mask comes from jitgrad's generator: not PyTorch's numbers"
       for name in ("Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")},
    **{f"torch.nn.functional.{name}": "the mask comes from jitgrad's generator: not PyTorch's numbers"
       for name in ("dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")},
    "torch.nn.RReLU": "the training slopes come from jitgrad's generator: not PyTorch's numbers",
    "torch.nn.functional.rrelu": "the training slopes come from jitgrad's generator: not PyTorch's numbers",
    "torch.nn.functional.rrelu_": "the training slopes come from jitgrad's generator: not PyTorch's numbers",
    "torch.nn.functional.gumbel_softmax": "the noise comes from jitgrad's generator: not PyTorch's numbers",
    "torch.from_numpy": "read-only NumPy memory refuses writes (PyTorch only warns)",
    "Tensor.unfold": "in-place writes whose result depends on write order (overlapping windows) "
                     "are refused; order-independent ones get correct gradients",
    "Tensor.as_strided": "in-place writes through self-overlapping views are refused when the "
                         "result would depend on write order",
    "torch.as_strided": "in-place writes through self-overlapping views are refused when the "
                        "result would depend on write order",
    "Tensor.register_hook": "hooks on views survive in-place writes to the base (PyTorch loses "
                            "them: pytorch/pytorch#8874)",
    "Tensor.retain_grad": "keeps working after the base is written in place (pytorch/pytorch#8874)",
    "Tensor.backward": "a failing backward changes no .grad (leaf gradients commit at the end)",
    "torch.empty": "negative sizes are always refused (PyTorch accepts one beside a size 0)",
    "torch.floor_divide": "differentiable with a zero gradient, as div(rounding_mode='floor') "
                          "(PyTorch raises 'derivative for floor_divide is not implemented')",
    "torch.remainder": "remainder(number, tensor) (and number % tensor) is differentiable "
                       "(PyTorch records a NotImplemented node there)",
    "torch.sort": "ties keep their index order (PyTorch's order with stable=True; its order "
                  "without is not reproduced)",
    "torch.topk": "ties: the lower index first (PyTorch's order among equal values is not "
                  "reproduced)",
    **{f"torch.special.{name}": "exact to float64 round-off (PyTorch 2.13's errs by up to ~1e-6 relative "
                                "on [2, 25], loses the phase above ~1e8, and is nan at +-inf)"
       for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")},
    **{f"torch.special.{name}": "the limits at +-inf (PyTorch 2.13: nan)"
       for name in ("modified_bessel_i0", "modified_bessel_i1")},
    "torch.nn.utils.spectral_norm": "the power iteration starts from jitgrad's generator: not PyTorch's "
                                    "numbers (from the same u and v, PyTorch's weights and gradients)",
    "torch.nn.utils.parametrizations.spectral_norm": "the power iteration starts from jitgrad's generator: not "
                                                     "PyTorch's numbers (from the same u and v, PyTorch's weights "
                                                     "and gradients)",
    "torch.nn.utils.parametrizations.orthogonal": "a non-square weight's base is completed with draws from "
                                                  "jitgrad's generator: not PyTorch's numbers",
    "torch.distributions.LKJCholesky": "samples come from jitgrad's generator: not PyTorch's numbers",
    "torch.distributions.Wishart": "rsample refuses a gradient with respect to df (sample works); samples are "
                                   "not PyTorch's numbers; 'Singular sample detected.' is warned only for a "
                                   "singular sample (PyTorch 2.13 warns at every rsample)",
    **{f"{space}.mode": "the index is the mode's last position (PyTorch's with at most 16 elements "
                        "along dim; above that, and with NaN, PyTorch's order is its sort's)"
       for space in ("torch", "Tensor")},
    "Tensor.sort": "ties keep their index order (PyTorch's order with stable=True; its order "
                   "without is not reproduced)",
    "Tensor.topk": "ties: the lower index first (PyTorch's order among equal values is not "
                   "reproduced)",
    "torch.seed": "seeds jitgrad's NumPy generator: reproducible, but not PyTorch's numbers",
    "torch.get_rng_state": "the state of jitgrad's NumPy generator (PCG64, 40 bytes), not PyTorch's",
    "torch.set_rng_state": "takes only a state from jitgrad's get_rng_state",
    "torch.func.vmap": "runs the function once per index of the mapped dimension and stacks the "
    "results (the same values; a mapped dimension of size 0 is refused)",
    "torch.func.jacfwd": "computed in reverse mode (the same Jacobian up to rounding)",
    "torch.func.jvp": "computed in reverse mode, by the double-vjp trick (the same values up to rounding)",
    **{f"Tensor.{name}": "draws from jitgrad's generator: not PyTorch's numbers"
       for name in ("uniform_", "normal_", "bernoulli_", "exponential_")},
    # torch.utils.data, torch.testing, torch.random
    "torch.utils.data.DataLoader": "num_workers > 0 loads in the main process, with a warning (the "
                                   "same batches; refused for an IterableDataset); shuffled orders "
                                   "come from jitgrad's generator: not PyTorch's",
    "torch.utils.data.get_worker_info": "always None: no worker processes",
    **{f"torch.utils.data.{name}": "orders come from jitgrad's generator: not PyTorch's"
       for name in ("random_split", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler")},
    "torch.testing.make_tensor": "values come from jitgrad's generator: not PyTorch's numbers",
    **{f"torch.distributions.{name}": "samples come from jitgrad's generator: not PyTorch's "
                                      "numbers" for name in (
        "Normal", "LogNormal", "Uniform", "Laplace", "Exponential", "Poisson", "Bernoulli", "Binomial",
        "Categorical", "OneHotCategorical", "Multinomial", "Geometric", "Cauchy", "HalfNormal",
        "MultivariateNormal", "MixtureSameFamily", "NegativeBinomial", "Gumbel", "Weibull", "Pareto",
        "HalfCauchy", "RelaxedBernoulli", "RelaxedOneHotCategorical", "TransformedDistribution",
        "LogisticNormal", "LowRankMultivariateNormal", "Kumaraswamy", "ContinuousBernoulli",
        "OneHotCategoricalStraightThrough")},
    **{f"torch.distributions.{name}": f"rsample refuses a gradient with respect to {param} (sample "
                                      "works); samples are not PyTorch's numbers" + more
       for name, param, more in (
        ("Gamma", "concentration", ""), ("Chi2", "df", ""),
        ("Beta", "a concentration", ""), ("Dirichlet", "concentration", ""), ("StudentT", "df", ""),
        ("InverseGamma", "concentration", ""), ("FisherSnedecor", "df1 or df2", ""))},
}
# torch.random's functions are jitgrad's top-level ones: the same differences
DIFFERENCES.update({f"torch.random.{name}": DIFFERENCES[f"torch.{name}"]
                    for name in ("manual_seed", "seed", "get_rng_state", "set_rng_state")})
