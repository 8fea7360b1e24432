/*
 * HipdnnBackendAttributeName.h — hipdnnBackendAttributeName_t, every attribute a
 * descriptor can carry, grouped by the descriptor type it belongs to.
 *
 * Values are hipDNN's: each descriptor owns a range of 100 (100 engine heuristic,
 * 200 engine config, 300 plan, ..., 3800 MoE backward), hipDNN's own extensions
 * live at 60000 and above, and hipdnn-jit's extensions (below) at 50000..50999,
 * a range hipDNN does not use. A value never changes meaning once published.
 *
 * Notation in the comments: the element type as the `HIPDNN_TYPE_` suffix the
 * caller must pass, and the element count ("x1" scalar, "xN" array). "desc" means
 * HIPDNN_TYPE_BACKEND_DESCRIPTOR holding finalized descriptors — a TENSOR
 * descriptor unless another type is named. Operation attributes without a comment
 * are tensors ("desc x1"). "declared only" / "not supported": the name exists for
 * compatibility and set/get answers HIPDNN_STATUS_NOT_SUPPORTED. Attributes of
 * descriptor types outside this ABI (hipDNN types 31 and above) are listed so that
 * the numbering stays complete; no descriptor here accepts them.
 *
 * hipdnn-jit extensions (modelled on cuDNN's attributes of the same names):
 *
 *   On HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR — per-channel statistics of X:
 *     sum[c] = sum of x over every dim but 1;  sqsum[c] = sum of x*x likewise.
 *     _GENSTATS_MODE_EXT        50000  INT64 x1, optional (default 0). Only mode:
 *                                      HIPDNN_GENSTATS_MODE_SUM_SQSUM_EXT (0).
 *     _GENSTATS_MATH_PREC_EXT   50001  DATA_TYPE x1: accumulation type (FLOAT).
 *     _GENSTATS_XDESC_EXT       50002  desc x1: input X, e.g. [N,C,H,W].
 *     _GENSTATS_SUMDESC_EXT     50003  desc x1: output, X's dims with all but
 *                                      dim 1 set to 1, e.g. [1,C,1,1].
 *     _GENSTATS_SQSUMDESC_EXT   50004  desc x1: output, same shape as SUM.
 *     (full names: HIPDNN_ATTR_OPERATION_GENSTATS_*_EXT)
 *
 *   On HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR — gathers a paged KV
 *   cache into a dense K or V for attention:
 *     Y[b,h,s,d] = C[T[b,0,s/bs,0], h, s mod bs, d]   (bs = block size)
 *     _PAGED_CACHE_LOAD_CONTAINER_DESC_EXT  50100  desc x1: container C,
 *                                    [num_blocks, H, bs, D].
 *     _PAGED_CACHE_LOAD_YDESC_EXT           50101  desc x1: virtual output, V as
 *                                    [B,H,S,D] or K transposed as [B,H,D,S]
 *                                    (told apart by the strides).
 *     _PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT   50102  desc x1: KV length per batch,
 *                                    [B,1,1,1].
 *     _PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT 50103  desc x1: page table T,
 *                                    [B,1,ceil(S/bs),1], block ids into C.
 *     (full names: HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_*_EXT)
 *     HIPDNN_ATTR_PAGED_CACHE_LOAD_COMP_TYPE_EXT 50104  DATA_TYPE x1.
 *
 *   On HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT — a score modifier (after
 *   cuDNN 9.21's unified SDPA SUBGRAPH / SUBGRAPH_INPUT_UID / SUBGRAPH_OUTPUT_UID;
 *   numbered in the SDPA forward range, right after _SDPA_FWD_COMP_TYPE_EXT):
 *     _SDPA_FWD_SCORE_MOD_GRAPH_EXT       2642  desc x1: a finalized OPERATIONGRAPH
 *                                    whose operations are all POINTWISE.
 *     _SDPA_FWD_SCORE_MOD_INPUT_UID_EXT   2643  INT64 x1: the sub-graph tensor that
 *                                    stands for S·scale, [B,Hq,Sq,Skv] FLOAT, read
 *                                    by the sub-graph, produced by none of its ops,
 *                                    never bound in a variant pack. Declare it
 *                                    non-virtual: the sub-graph is a finalized graph
 *                                    of its own, and a graph refuses a virtual tensor
 *                                    that none of its ops produces.
 *     _SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT  2644  INT64 x1: the sub-graph's result,
 *                                    [B,Hq,Sq,Skv] FLOAT: the scores bias, masks and
 *                                    softmax then see.
 *     Every other input of the sub-graph is a one-element scalar (by value, run-time,
 *     or in memory and bound in the variant pack) or a tensor in memory that
 *     broadcasts to [B,Hq,Sq,Skv] (each dim 1 or the full size: a per-token
 *     document id [B,1,Sq,1], a per-head slope [1,Hq,1,1]), bound by uid. GEN_INDEX
 *     ops give the score's indices: their input is S or a [B,Hq,Sq,Skv] result of
 *     the sub-graph, axis 0..3 = batch, head, query row i, key column j, output
 *     INT32, INT64 or FLOAT. Exclusive with ALiBi, the causal flags, the band bounds
 *     and the padding mask. (full names: HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_*_EXT)
 *
 *   On HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT and _SDPA_BPROP_ — a mask
 *   modifier (FlexAttention's mask_mod): which scores attention may see. The
 *   backward takes the same sub-graph as its forward, so training masks alike.
 *     _SDPA_FWD_MASK_MOD_GRAPH_EXT        2645  desc x1: a finalized OPERATIONGRAPH
 *     _SDPA_BWD_MASK_MOD_GRAPH_EXT        3129  whose operations are all POINTWISE
 *                                    (GEN_INDEX, comparisons, logical ops,
 *                                    arithmetic, BINARY_SELECT, ...).
 *     _SDPA_FWD_MASK_MOD_INPUT_UID_EXT    2646  INT64 x1: the sub-graph tensor that
 *     _SDPA_BWD_MASK_MOD_INPUT_UID_EXT    3130  stands for the index space
 *                                    [B,Hq,Sq,Skv] (any type): only GEN_INDEX ops
 *                                    read it, none produces it, never bound in a
 *                                    variant pack (declare it non-virtual). A mask
 *                                    that reads no index (documents alone) may
 *                                    leave it out of the sub-graph.
 *     _SDPA_FWD_MASK_MOD_OUTPUT_UID_EXT   2647  INT64 x1: the sub-graph's result,
 *     _SDPA_BWD_MASK_MOD_OUTPUT_UID_EXT   3131  [B,Hq,Sq,Skv] BOOLEAN: false = the
 *                                    score becomes -inf.
 *     Its other inputs are those a score modifier may read (scalars and broadcast
 *     tensors in memory). The mask applies after the score modifier, the bias and
 *     ALiBi, together with (AND) the padding, causal and band masks, which it does
 *     not exclude; a row it masks whole gives O = 0 and Stats = -inf. Its uids
 *     differ from the graph's and from the score modifier's.
 *     (full names: HIPDNN_ATTR_OPERATION_SDPA_{FWD,BWD}_MASK_MOD_*_EXT)
 *
 *   On HIPDNN_BACKEND_TENSOR_DESCRIPTOR — the packed (THD) layout's offsets:
 *     HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT  50300  desc x1: the finalized
 *                                    INT32 or INT64 tensor of per-batch element
 *                                    offsets ([B+1,1,1,1]) whose uid
 *                                    HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC names
 *                                    (cuDNN's form of that attribute, which also
 *                                    takes the descriptor: BACKEND_DESCRIPTOR x1).
 *                                    Setting either sets both; a graph holds the
 *                                    offset tensor as an input of every operation
 *                                    that uses the ragged tensor. With the uid
 *                                    only (hipDNN's form), some operation of the
 *                                    graph must use a tensor of that uid, or the
 *                                    serialized graph list it among its tensors.
 *
 *   On HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR — the compiled-kernel cache a plan
 *   consults when HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE is set on it:
 *     _KERNEL_CACHE_OPERATION_GRAPH_EXT      50200  desc x1: OPERATIONGRAPH the
 *                                    cache is built for.
 *     _KERNEL_CACHE_JSON_REPRESENTATION_EXT  50201  CHAR: get serializes the
 *                                    cache (query the count first); set on an
 *                                    unfinalized descriptor deserializes.
 *     _KERNEL_CACHE_DIRECTORY_EXT            50202  CHAR: directory of the
 *                                    on-disk cache; empty = in-memory only.
 *     _KERNEL_CACHE_MAX_SIZE_EXT             50203  INT64 x1: size limit, bytes.
 *     _KERNEL_CACHE_READ_ONLY_EXT            50204  BOOLEAN x1: never write.
 *     (full names: HIPDNN_ATTR_KERNEL_CACHE_*_EXT.)
 *     Unset or "" directory: an in-memory cache private to the descriptor.
 *     A plan without HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE uses the
 *     process-wide cache ($HIPDNN_CACHE_DIR, ...; HIPDNN_CACHE_DISABLE=1: none).
 *     HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED (1100, hipDNN's):
 *     get-only query on a finalized cache. Call GetAttribute with type
 *     BACKEND_DESCRIPTOR, requestedElementCount 1 and arrayOfElements pointing
 *     at a finalized ENGINECFG (an input); *elementCount comes back 1 when a
 *     plan of that config for this process's target is in the cache with all
 *     its kernels (finalizing it compiles nothing), else 0.
 *
 *   On HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
 *     HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT  50210  get-only INT64
 *                                    x6, after finalize: kernels in the plan,
 *                                    kernels compiled by the finalize, kernels
 *                                    taken from the kernel cache, 1 when the
 *                                    plan itself came from the cache (no
 *                                    lowering or code generation ran) else 0,
 *                                    kernels compiled but not stored in the
 *                                    cache (it is full or cannot be written;
 *                                    the plan still works), and 1 when the
 *                                    plan's own record was not stored (it
 *                                    could not be, or a kernel of it was not).
 *                                    Asking for 4 or 5 gives the first ones.
 *
 *   On HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
 *     HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT  50300  get-only CHAR: the
 *                                    canonical graph key (XXH3-128) as 32
 *                                    lowercase hex digits; count 33 with the NUL.
 *                                    NOT_SUPPORTED (with the reason) for a graph
 *                                    the IR cannot express.
 */
#ifndef HIPDNN_BACKEND_ATTRIBUTE_NAME_H
#define HIPDNN_BACKEND_ATTRIBUTE_NAME_H

typedef enum
{
    /* ---- Engine heuristic (HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR) */
    HIPDNN_ATTR_ENGINEHEUR_MODE = 100,                              /* HEUR_MODE x1; required */
    HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 101,                   /* desc: OPERATIONGRAPH x1; required */
    HIPDNN_ATTR_ENGINEHEUR_RESULTS = 102,                           /* get-only; fills caller-made ENGINECFGs */
    HIPDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET = 103,                   /* not supported */
    HIPDNN_ATTR_ENGINEHEUR_DEVICEPROP = 104,                        /* not supported */
    HIPDNN_ATTR_ENGINEHEUR_FIND_FIRST_EXT = 105,                    /* BOOLEAN x1; stop at first applicable */
    HIPDNN_ATTR_ENGINEHEUR_POLICY_ORDER_EXT = 106,                  /* INT64 xN policy ids */

    /* ---- Engine config (HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR) */
    HIPDNN_ATTR_ENGINECFG_ENGINE = 200,                             /* desc: ENGINE x1; required */
    HIPDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO = 201,                  /* not supported */
    HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES = 202,                       /* desc: KNOB_CHOICE xN; appends */
    HIPDNN_ATTR_ENGINECFG_WORKSPACE_SIZE = 203,                     /* get-only INT64 x1 (bytes) */

    /* ---- Execution plan (HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR) */
    HIPDNN_ATTR_EXECUTION_PLAN_HANDLE = 300,                        /* HANDLE x1; deprecated, ignored */
    HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 301,                 /* desc: ENGINECFG x1; required */
    HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 302,                /* get-only INT64 x1 (bytes) */
    HIPDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS = 303,    /* not supported */
    HIPDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS = 304,    /* not supported */
    HIPDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION = 305,           /* not supported */
    HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE = 306,                  /* desc: KERNEL_CACHE x1; optional */
    HIPDNN_ATTR_EXECUTION_PLAN_DEVICEPROP = 307,                    /* not supported */
    HIPDNN_ATTR_EXECUTION_PLAN_TENSOR_UIDS_EXT = 308,               /* get-only INT64 xN: every tensor UID */
    HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_GLOBAL_INDEX_EXT = 309,       /* get-only INT64 x1: engine id */
    HIPDNN_ATTR_EXECUTION_PLAN_IS_OVERRIDE_SHAPE_ENABLED_EXT = 310, /* get-only BOOLEAN x1 */

    /* ---- Intermediate info (HIPDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR) */
    HIPDNN_ATTR_INTERMEDIATE_INFO_UNIQUE_ID = 400,                  /* declared only */
    HIPDNN_ATTR_INTERMEDIATE_INFO_SIZE = 401,                       /* declared only */
    HIPDNN_ATTR_INTERMEDIATE_INFO_DEPENDENT_DATA_UIDS = 402,        /* declared only */
    HIPDNN_ATTR_INTERMEDIATE_INFO_DEPENDENT_ATTRIBUTES = 403,       /* declared only */

    /* ---- Knob choice (HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR) */
    HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE = 500,                        /* CHAR: knob id, 1..4096 chars; required */
    HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE = 501,                       /* INT64 x1 | DOUBLE x1 | CHAR; required */

    /* ---- Operation graph (HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR) */
    HIPDNN_ATTR_OPERATIONGRAPH_HANDLE = 600,                        /* HANDLE x1; required */
    HIPDNN_ATTR_OPERATIONGRAPH_OPS = 601,                           /* desc: operations xN; appends; >= 1 required */
    HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT = 602,           /* get-only INT64 x1: engine count */
    HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED = 603,      /* BOOLEAN x1 (stored; used by the kernel cache) */
    HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT = 604,         /* DATA_TYPE x1 */
    HIPDNN_ATTR_OPERATIONGRAPH_INTERMEDIATE_DATA_TYPE_EXT = 605,    /* DATA_TYPE x1 */
    HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT = 606,              /* DATA_TYPE x1 */
    HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT = 607,       /* INT64 x1; optional */
    HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT = 608,                      /* CHAR */
    HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT = 609, /* BOOLEAN x1 */

    /* ---- Variant pack (HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR) */
    HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 700,                      /* INT64 xN tensor UIDs */
    HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 701,                   /* VOID_PTR xN, parallel to UNIQUE_IDS */
    HIPDNN_ATTR_VARIANT_PACK_INTERMEDIATES = 702,                   /* not supported */
    HIPDNN_ATTR_VARIANT_PACK_WORKSPACE = 703,                       /* VOID_PTR x1 */
    HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS_EXT = 704,         /* INT64 xK, each also in UNIQUE_IDS */
    HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES_EXT = 705,             /* INT64: K shapes, concatenated */
    HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES_EXT = 706,            /* INT64: K stride vectors, concatenated */
    HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_LENGTHS_EXT = 707,            /* INT64 xK: rank of each override */

    /* ---- Layout info (HIPDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR) */
    HIPDNN_ATTR_LAYOUT_INFO_TENSOR_UID = 800,                       /* declared only */
    HIPDNN_ATTR_LAYOUT_INFO_TYPES = 801,                            /* declared only */

    /* ---- Knob info (HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR) */
    HIPDNN_ATTR_KNOB_INFO_TYPE = 900,                               /* CHAR: knob id; required */
    HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE = 901,                      /* INT64 | DOUBLE x1 */
    HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE = 902,                      /* INT64 | DOUBLE x1 */
    HIPDNN_ATTR_KNOB_INFO_STRIDE = 903,                             /* INT64 x1, > 0 */
    HIPDNN_ATTR_KNOB_INFO_DESCRIPTION = 904,                        /* CHAR */
    HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE = 905,                      /* INT64 | DOUBLE | CHAR; required */
    HIPDNN_ATTR_KNOB_INFO_DEPRECATED = 906,                         /* BOOLEAN x1 */
    HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT = 907,                   /* INT64 xN */
    HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_STRING = 908,                /* CHAR; each set appends one */
    HIPDNN_ATTR_KNOB_INFO_STRING_MAX_LENGTH = 909,                  /* INT64 x1 */
    HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE_TYPE = 910,                 /* get-only INT64 x1: an attribute type */

    /* ---- Engine (HIPDNN_BACKEND_ENGINE_DESCRIPTOR) */
    HIPDNN_ATTR_ENGINE_OPERATION_GRAPH = 1000,                      /* desc: OPERATIONGRAPH x1; required */
    HIPDNN_ATTR_ENGINE_GLOBAL_INDEX = 1001,                         /* INT64 x1: engine id; required */
    HIPDNN_ATTR_ENGINE_KNOB_INFO = 1002,                            /* get-only desc: KNOB_INFO xN */
    HIPDNN_ATTR_ENGINE_NUMERICAL_NOTE = 1003,                       /* not supported */
    HIPDNN_ATTR_ENGINE_LAYOUT_INFO = 1004,                          /* not supported */
    HIPDNN_ATTR_ENGINE_BEHAVIOR_NOTE = 1005,                        /* get-only BEHAVIOR_NOTE xN */
    HIPDNN_ATTR_ENGINE_CU_COUNT_TARGET_EXT = 1006,                  /* not supported */
    HIPDNN_ATTR_ENGINE_DEVICEPROP = 1007,                           /* not supported */
    HIPDNN_ATTR_ENGINE_NAME_EXT = 1008,                             /* get-only CHAR; unique */

    /* ---- Kernel cache (HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR); hipdnn-jit extensions at 50200 */
    HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED = 1100,     /* calling convention unspecified */

    /* ---- Device properties (no descriptor type carries these) */
    HIPDNN_ATTR_DEVICEPROP_DEVICE_ID = 1200,                        /* declared only */
    HIPDNN_ATTR_DEVICEPROP_HANDLE = 1201,                           /* declared only */
    HIPDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION = 1202,              /* declared only */

    /* ---- Tensor (HIPDNN_BACKEND_TENSOR_DESCRIPTOR) */
    HIPDNN_ATTR_TENSOR_UNIQUE_ID = 1300,                            /* INT64 x1 */
    HIPDNN_ATTR_TENSOR_NAME_EXT = 1301,                             /* CHAR */
    HIPDNN_ATTR_TENSOR_DATA_TYPE = 1302,                            /* DATA_TYPE x1; required */
    HIPDNN_ATTR_TENSOR_DIMENSIONS = 1303,                           /* INT64 x rank; required */
    HIPDNN_ATTR_TENSOR_STRIDES = 1304,                              /* INT64 x rank; required */
    HIPDNN_ATTR_TENSOR_IS_VIRTUAL = 1305,                           /* BOOLEAN x1 */
    HIPDNN_ATTR_TENSOR_VALUE_EXT = 1306,                            /* CHAR x sizeof(element): by-value scalar */
    HIPDNN_ATTR_TENSOR_IS_BY_VALUE = 1307,                          /* get-only BOOLEAN x1 */
    HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT = 1308,         /* BOOLEAN x1 */
    HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 1309,                       /* INT64 x1 */
    HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC = 1310,                   /* INT64 x1: UID of the ragged-offset tensor */
    HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER = 1311,             /* INT64 x1 (assumed); offset scale, default 1 */
    HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT = 50300,            /* desc x1: the ragged-offset tensor itself */

    /* ---- Convolution forward (HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR) */
    HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W = 1400,
    HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X = 1401,
    HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y = 1402,

    /* ---- Convolution parameters, set on each of the three convolution operations */
    HIPDNN_ATTR_CONVOLUTION_COMP_TYPE = 1500,                       /* DATA_TYPE x1; required */
    HIPDNN_ATTR_CONVOLUTION_CONV_MODE = 1501,                       /* CONVOLUTION_MODE x1; required */
    HIPDNN_ATTR_CONVOLUTION_DILATIONS = 1502,                       /* INT64 x spatial dims; required */
    HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES = 1503,                  /* INT64 x spatial dims; required */
    HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS = 1504,                   /* INT64 x spatial dims; required */
    HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS = 1505,                    /* INT64 x spatial dims; required */

    /* ---- Convolution backward filter (HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR) */
    HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X = 1600,
    HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY = 1601,
    HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW = 1602,

    /* ---- Convolution backward data (HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR) */
    HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY = 1700,
    HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W = 1701,
    HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX = 1702,

    /* ---- Batchnorm inference (HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT = 1800,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT = 1801,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT = 1802,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT = 1803,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT = 1804,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT = 1805,
    HIPDNN_ATTR_BATCHNORM_INF_COMP_TYPE_EXT = 1806,                 /* DATA_TYPE x1 */

    /* ---- Batchnorm inference from variance (..._BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT = 1900,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT = 1901,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT = 1902,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT = 1903,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT = 1904,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT = 1905,
    HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT = 1906, /* desc: epsilon tensor */
    HIPDNN_ATTR_BATCHNORM_INF_VAR_COMP_TYPE_EXT = 1907,             /* DATA_TYPE x1 */

    /* ---- Batchnorm backward (HIPDNN_BACKEND_OPERATION_BATCHNORM_BACKWARD_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT = 2000,
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT = 2001,
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT = 2002,
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT = 2003,
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT = 2004,
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT = 2005,
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT = 2006,       /* desc; optional */
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT = 2007, /* desc; optional */
    HIPDNN_ATTR_BATCHNORM_BACKWARD_COMP_TYPE_EXT = 2100,            /* DATA_TYPE x1 */
    HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_PEER_STATS_EXT = 2101, /* desc xN */

    /* ---- Pointwise operation (HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR) */
    HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT = 2200,                /* desc; required */
    HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT = 2201,               /* desc; required */
    HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT = 2202,                /* desc; optional */
    HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT = 2203,                /* desc; optional */

    /* ---- Pointwise parameters, set on the pointwise operation */
    HIPDNN_ATTR_POINTWISE_MODE = 2300,                              /* POINTWISE_MODE x1; required */
    HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP = 2301,                   /* FLOAT x1 */
    HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP = 2302,                   /* FLOAT x1 */
    HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE = 2303,             /* FLOAT x1 */
    HIPDNN_ATTR_POINTWISE_SWISH_BETA = 2304,                        /* FLOAT x1 */
    HIPDNN_ATTR_POINTWISE_ELU_ALPHA = 2305,                         /* FLOAT x1 */
    HIPDNN_ATTR_POINTWISE_SOFTPLUS_BETA = 2306,                     /* FLOAT x1 */
    HIPDNN_ATTR_POINTWISE_MATH_PREC = 2307,                         /* DATA_TYPE x1 */
    HIPDNN_ATTR_POINTWISE_AXIS = 2308,                              /* INT64 x1: GEN_INDEX axis */

    /* ---- RMSNorm forward (HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT = 2400,
    HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT = 2401,
    HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT = 2402,
    HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT = 2403,
    HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT = 2404,                  /* desc; optional */
    HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT = 2405,               /* desc; optional */
    HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT = 2406,             /* NORM_FWD_PHASE x1 */
    HIPDNN_ATTR_RMSNORM_COMP_TYPE_EXT = 2407,                       /* DATA_TYPE x1 */

    /* ---- Matmul (HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_MATMUL_ADESC = 2500,
    HIPDNN_ATTR_OPERATION_MATMUL_BDESC = 2501,
    HIPDNN_ATTR_OPERATION_MATMUL_CDESC = 2502,
    HIPDNN_ATTR_MATMUL_COMP_TYPE = 2503,                            /* DATA_TYPE x1 */

    /* ---- SDPA forward (HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC = 2600,                    /* desc; required */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC = 2601,                    /* desc; required */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC = 2602,                    /* desc; required */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC = 2603,                    /* desc; required */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT = 2604,            /* desc: additive bias */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC = 2605,                /* desc: attention scale */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC = 2606,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC = 2607,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT = 2608,                 /* desc: dropout RNG */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT = 2609,               /* desc: dropout RNG */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT = 2610,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT = 2611,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC = 2612,         /* desc: paged K/V cache */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC = 2613,         /* desc: paged K/V cache */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC = 2614,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT = 2615,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT = 2616,            /* desc: FP8 scale, input */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT = 2617,            /* desc: FP8 scale, input */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT = 2618,            /* desc: FP8 scale, input */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT = 2619,            /* desc: FP8 scale, input */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT = 2620,              /* desc: FP8 scale, input */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT = 2621,              /* desc: FP8 scale, input */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC = 2622,                /* desc: output */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT = 2623,                  /* desc: optional output */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT = 2624,              /* desc: optional output */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT = 2625,             /* desc: optional output */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT = 2626,               /* desc: optional output */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT = 2627,               /* desc: optional output */
    HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT = 2628,                 /* BOOLEAN x1 */
    HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT = 2629,                     /* BOOLEAN x1 */
    HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT = 2630,                   /* BOOLEAN x1 */
    HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT = 2631,                    /* BOOLEAN x1; deprecated: use bounds */
    HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT = 2632,       /* BOOLEAN x1; deprecated: use bounds */
    HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT = 2633,            /* FLOAT x1 */
    HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT = 2634,               /* FLOAT x1 */
    HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT = 2635,                     /* INT64 x1: diagonal band */
    HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT = 2636,                    /* INT64 x1: diagonal band */
    HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT = 2637,                 /* INT32 x1 */
    HIPDNN_ATTR_SDPA_FWD_DIAGONAL_ALIGNMENT_EXT = 2638,             /* DIAGONAL_ALIGNMENT_EXT x1 */
    HIPDNN_ATTR_SDPA_FWD_MMA_CORE_MODE_EXT = 2639,                  /* DATA_TYPE x1 */
    HIPDNN_ATTR_SDPA_FWD_IMPLEMENTATION_EXT = 2640,                 /* ATTENTION_IMPLEMENTATION_EXT x1 */
    HIPDNN_ATTR_SDPA_FWD_COMP_TYPE_EXT = 2641,                      /* DATA_TYPE x1 */
    /* score modifier (op-semantics.md §4.3 step 3): a finalized OPERATIONGRAPH of POINTWISE ops
     * applied to each scaled score S = Q·Kᵀ·scale before bias, ALiBi and the masks; exclusive
     * with ALiBi, the causal flags, the band bounds and the padding mask */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT = 2642,      /* desc: OPERATIONGRAPH */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT = 2643,  /* INT64 x1: S, [B,Hq,Sq,Skv] FLOAT */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT = 2644, /* INT64 x1: the modified S */
    /* mask modifier (FlexAttention's mask_mod): a finalized OPERATIONGRAPH of POINTWISE ops giving
     * a BOOLEAN [B,Hq,Sq,Skv] keep mask from GEN_INDEX indices, scalars and broadcast tensors in
     * memory; false = -inf; ANDed with the padding, causal and band masks */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_GRAPH_EXT = 2645,       /* desc: OPERATIONGRAPH */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_INPUT_UID_EXT = 2646,   /* INT64 x1: the index space */
    HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_OUTPUT_UID_EXT = 2647,  /* INT64 x1: the keep mask, BOOLEAN */

    /* ---- LayerNorm forward (HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT = 2700,
    HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT = 2701,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT = 2702,
    HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT = 2703,
    HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT = 2704,
    HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT = 2705,                /* desc; optional */
    HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT = 2706,        /* desc; optional */
    HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT = 2707,           /* NORM_FWD_PHASE x1 */
    HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT = 2708,                     /* DATA_TYPE x1 */
    HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT = 2709, /* INT64 x1; 0 = infer from SCALE */

    /* ---- Block-scale quantize (HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC = 2800,
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC = 2801,
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC = 2802,   /* desc: output scales */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE = 2803,   /* INT32 x1 */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT = 2804,     /* INT64 x1; optional */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_TRANSPOSE_EXT = 2805, /* BOOLEAN x1 */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_MATH_PREC = 2806,    /* DATA_TYPE x1 */

    /* ---- Block-scale dequantize (HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC = 2807,
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC = 2808,
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC = 2809,
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE = 2810, /* INT32 xN, per dim */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE = 2811,  /* BOOLEAN x1 */
    HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC = 2812,  /* DATA_TYPE x1 */

    /* ---- Batchnorm training forward (HIPDNN_BACKEND_OPERATION_BATCHNORM_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT = 2900,
    HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT = 2901,
    HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT = 2902,
    HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT = 2903,             /* desc: epsilon tensor */
    HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT = 2904,
    HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT = 2905,   /* desc; optional */
    HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT = 2906, /* desc; optional */
    HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT = 2907,            /* desc; optional */
    HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT = 2908,                /* desc; optional */
    HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT = 2909,        /* desc; optional */
    HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT = 2910,   /* desc; optional */
    HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT = 2911, /* desc; optional */
    HIPDNN_ATTR_BATCHNORM_COMP_TYPE_EXT = 2912,                     /* DATA_TYPE x1 */
    HIPDNN_ATTR_OPERATION_BATCHNORM_PEER_STATS_EXT = 2913,          /* desc xN */

    /* ---- Custom operation (HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT = 3000,              /* desc xN */
    HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT = 3001,             /* desc xN */
    HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT = 3002,                  /* CHAR: dotted id */
    HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT = 3003,                /* CHAR: opaque bytes */
    HIPDNN_ATTR_CUSTOM_OP_COMP_TYPE_EXT = 3004,                     /* DATA_TYPE x1 */

    /* ---- SDPA backward (HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT) */
    HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT = 3100,                    /* desc; Q..STATS, DQ..DV required */
    HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT = 3101,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT = 3102,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT = 3103,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT = 3104,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT = 3105,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT = 3106,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT = 3107,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT = 3108,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT = 3109,                /* desc; SCALE..DBIAS optional */
    HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT = 3110,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT = 3111,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT = 3112,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT = 3113,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT = 3114,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT = 3115,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT = 3116,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT = 3117,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT = 3118,
    HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT = 3119,                     /* BOOLEAN x1 */
    HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT = 3120,                   /* BOOLEAN x1 */
    HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT = 3121,                    /* BOOLEAN x1; deprecated: use bounds */
    HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT = 3122,       /* BOOLEAN x1; deprecated: use bounds */
    HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT = 3123,            /* FLOAT x1 */
    HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT = 3124,               /* FLOAT x1 */
    HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT = 3125,                     /* INT64 x1: diagonal band */
    HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT = 3126,                    /* INT64 x1: diagonal band */
    HIPDNN_ATTR_SDPA_BWD_DIAGONAL_ALIGNMENT_EXT = 3127,             /* DIAGONAL_ALIGNMENT_EXT x1 */
    HIPDNN_ATTR_SDPA_BWD_COMP_TYPE_EXT = 3128,                      /* DATA_TYPE x1 */
    /* the forward's mask modifier, for the backward (see _SDPA_FWD_MASK_MOD_*_EXT) */
    HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_GRAPH_EXT = 3129,       /* desc: OPERATIONGRAPH */
    HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_INPUT_UID_EXT = 3130,   /* INT64 x1: the index space */
    HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_OUTPUT_UID_EXT = 3131,  /* INT64 x1: the keep mask, BOOLEAN */

    /* ---- Reduction (hipDNN type 31; not creatable in this ABI) */
    HIPDNN_ATTR_OPERATION_REDUCTION_XDESC = 3200,
    HIPDNN_ATTR_OPERATION_REDUCTION_YDESC = 3201,
    HIPDNN_ATTR_REDUCTION_OPERATOR = 3202,                          /* REDUCTION_OPERATOR_TYPE x1 */
    HIPDNN_ATTR_REDUCTION_COMP_TYPE = 3203,                         /* DATA_TYPE x1 */
    HIPDNN_ATTR_REDUCTION_IS_DETERMINISTIC = 3204,                  /* BOOLEAN x1 */

    /* ---- Resample forward (hipDNN type 32; not creatable in this ABI) */
    HIPDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC = 3300,
    HIPDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC = 3301,
    HIPDNN_ATTR_OPERATION_RESAMPLE_FWD_IDXDESC = 3302,              /* desc; optional output */

    /* ---- Resample parameters, shared by resample forward and backward */
    HIPDNN_ATTR_RESAMPLE_MODE = 3400,                               /* RESAMPLE_MODE x1 */
    HIPDNN_ATTR_RESAMPLE_PRE_PADDINGS = 3401,                       /* INT64 x spatial dims */
    HIPDNN_ATTR_RESAMPLE_POST_PADDINGS = 3402,                      /* INT64 x spatial dims */
    HIPDNN_ATTR_RESAMPLE_STRIDES = 3403,                            /* INT64 x spatial dims */
    HIPDNN_ATTR_RESAMPLE_WINDOW_DIMS = 3404,                        /* INT64 x spatial dims */
    HIPDNN_ATTR_RESAMPLE_PADDING_MODE = 3405,                       /* PADDING_MODE x1 */
    HIPDNN_ATTR_RESAMPLE_GENERATE_INDEX_EXT = 3406,                 /* BOOLEAN x1 */
    HIPDNN_ATTR_RESAMPLE_COMP_TYPE = 3407,                          /* DATA_TYPE x1 */

    /* ---- Resample backward (hipDNN type 36; not creatable in this ABI) */
    HIPDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC = 3408,
    HIPDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC = 3409,
    HIPDNN_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC = 3410,              /* desc; optional input */

    /* ---- RMSNorm backward (hipDNN type 33; not creatable in this ABI) */
    HIPDNN_ATTR_OPERATION_RMSNORM_BACKWARD_DY_EXT = 3500,
    HIPDNN_ATTR_OPERATION_RMSNORM_BACKWARD_X_EXT = 3501,
    HIPDNN_ATTR_OPERATION_RMSNORM_BACKWARD_SCALE_EXT = 3502,
    HIPDNN_ATTR_OPERATION_RMSNORM_BACKWARD_INV_RMS_EXT = 3503,
    HIPDNN_ATTR_OPERATION_RMSNORM_BACKWARD_DX_EXT = 3504,
    HIPDNN_ATTR_OPERATION_RMSNORM_BACKWARD_DSCALE_EXT = 3505,
    HIPDNN_ATTR_OPERATION_RMSNORM_BACKWARD_DBIAS_EXT = 3506,        /* desc; optional */
    HIPDNN_ATTR_RMSNORM_BACKWARD_COMP_TYPE_EXT = 3507,              /* DATA_TYPE x1 */

    /* ---- LayerNorm backward (hipDNN type 35; not creatable in this ABI) */
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_DY_EXT = 3600,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_X_EXT = 3601,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_SCALE_EXT = 3602,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_MEAN_EXT = 3603,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_INV_VARIANCE_EXT = 3604,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_EPSILON_EXT = 3605,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_DX_EXT = 3606,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_DSCALE_EXT = 3607,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BACKWARD_DBIAS_EXT = 3608,
    HIPDNN_ATTR_LAYERNORM_BACKWARD_NORMALIZED_DIM_COUNT_EXT = 3609, /* INT64 x1 */
    HIPDNN_ATTR_LAYERNORM_BACKWARD_COMP_TYPE_EXT = 3610,            /* DATA_TYPE x1 */

    /* ---- MoE grouped matmul (hipDNN type 37; not creatable in this ABI) */
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_DESC = 3700,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_WEIGHT_DESC = 3701,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_FIRST_TOKEN_OFFSET_DESC = 3702,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_INDEX_DESC = 3703, /* desc; mode dependent */
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_KS_DESC = 3704,  /* desc; mode dependent */
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_OUTPUT_DESC = 3705,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MODE = 3706,           /* MOE_GROUPED_MATMUL_MODE x1 */
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOP_K = 3707,          /* INT32 x1 */
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MATH_PREC = 3708,      /* DATA_TYPE x1 */

    /* ---- MoE grouped matmul backward (hipDNN type 38; not creatable in this ABI) */
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_BWD_DOUTPUT_DESC = 3800,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_BWD_TOKEN_DESC = 3801,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_BWD_FIRST_TOKEN_OFFSET_DESC = 3802,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_BWD_DWEIGHT_DESC = 3803,
    HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_BWD_MATH_PREC = 3804,  /* DATA_TYPE x1 */

    /* ---- hipdnn-jit: GenStats (HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR) -- see table above */
    HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT = 50000,                /* INT64 x1; optional, 0 = SUM_SQSUM */
    HIPDNN_ATTR_OPERATION_GENSTATS_MATH_PREC_EXT = 50001,           /* DATA_TYPE x1 */
    HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT = 50002,               /* desc: X, input */
    HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT = 50003,             /* desc: per-channel sum, output */
    HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT = 50004,           /* desc: per-channel sum of squares, output */

    /* ---- hipdnn-jit: paged cache load (HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR) -- see table above */
    HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT = 50100, /* desc: paged K or V store, input */
    HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT = 50101,       /* desc: gathered K or V, virtual output */
    HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT = 50102, /* desc: per-batch KV length, input */
    HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT = 50103, /* desc: block ids, input */
    HIPDNN_ATTR_PAGED_CACHE_LOAD_COMP_TYPE_EXT = 50104,             /* DATA_TYPE x1 */

    /* ---- hipdnn-jit: kernel cache (HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR) -- see table above */
    HIPDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH_EXT = 50200,           /* desc: OPERATIONGRAPH x1 */
    HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT = 50201,       /* CHAR: get serializes, set deserializes */
    HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT = 50202,                 /* CHAR: path; empty = in-memory only */
    HIPDNN_ATTR_KERNEL_CACHE_MAX_SIZE_EXT = 50203,                  /* INT64 x1 (bytes) */
    HIPDNN_ATTR_KERNEL_CACHE_READ_ONLY_EXT = 50204,                 /* BOOLEAN x1 */
    HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT = 50210,      /* get-only INT64 x6 */

    /* ---- hipdnn-jit: operation graph -- see table above */
    HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT = 50300,               /* get-only CHAR: 32 hex digits */

    /* ---- Serialized knobs (FlatBuffer): read from an ENGINE, given to an ENGINECFG */
    HIPDNN_ATTR_KNOB_INFO_SERIALIZED_VALUE = 60000,                 /* get-only FLATBUFFER_DATA_STRUCT_EXT xN, on ENGINE */
    HIPDNN_ATTR_KNOB_CHOICE_SERIALIZED_VALUE = 60100,               /* FLATBUFFER_DATA_STRUCT_EXT xN, on ENGINECFG; appends */

    /* ---- Every operation descriptor */
    HIPDNN_ATTR_OPERATION_TYPE_EXT = 60200,                         /* get-only OPERATION_TYPE_EXT x1 */
    HIPDNN_ATTR_OPERATION_NAME_EXT = 60300,                         /* CHAR */

    /* ---- Profiling control (hipDNN type 34; not creatable in this ABI) */
    HIPDNN_ATTR_PROFILING_HANDLE_EXT = 60400,                       /* HANDLE x1: stream source */
    HIPDNN_ATTR_PROFILING_START_EXT = 60401,                        /* set-only BOOLEAN x1: record an event */
    HIPDNN_ATTR_PROFILING_STOP_EXT = 60402,                         /* set-only BOOLEAN x1: record an event */
    HIPDNN_ATTR_PROFILING_ELAPSED_MS_EXT = 60403,                   /* get-only FLOAT x1 */
    HIPDNN_ATTR_PROFILING_DEVICE_SYNC_EXT = 60404                   /* set-only BOOLEAN x1 */
} hipdnnBackendAttributeName_t;

/* Older hipDNN spelling of the same value. */
#define HIPDNN_ATTR_TENSOR_CONSTANT_VALUE HIPDNN_ATTR_TENSOR_VALUE_EXT

/* Values of HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT (hipDNN defines no enum for it). */
#define HIPDNN_GENSTATS_MODE_SUM_SQSUM_EXT 0

#endif /* HIPDNN_BACKEND_ATTRIBUTE_NAME_H */
