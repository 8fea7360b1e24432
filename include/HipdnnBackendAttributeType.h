/*
 * HipdnnBackendAttributeType.h — hipdnnBackendAttributeType_t, the element type a
 * caller declares in hipdnnBackendSetAttribute() / hipdnnBackendGetAttribute().
 *
 * Each attribute expects exactly one type (a few knob attributes accept several);
 * a mismatch is HIPDNN_STATUS_BAD_PARAM. The comment on each value names the C type
 * of one element of `arrayOfElements`. Enum-typed elements are C `int`-sized.
 * Slots marked "no enum" exist for cuDNN parity; hipDNN defines no values for them.
 */
#ifndef HIPDNN_BACKEND_ATTRIBUTE_TYPE_H
#define HIPDNN_BACKEND_ATTRIBUTE_TYPE_H

typedef enum
{
    HIPDNN_TYPE_HANDLE = 0,                /* hipdnnHandle_t */
    HIPDNN_TYPE_DATA_TYPE = 1,             /* hipdnnDataType_t */
    HIPDNN_TYPE_BOOLEAN = 2,               /* bool (1 byte) */
    HIPDNN_TYPE_INT64 = 3,                 /* int64_t */
    HIPDNN_TYPE_FLOAT = 4,                 /* float */
    HIPDNN_TYPE_DOUBLE = 5,                /* double */
    HIPDNN_TYPE_VOID_PTR = 6,              /* void* */
    HIPDNN_TYPE_HEUR_MODE = 7,             /* hipdnnBackendHeurMode_t */
    HIPDNN_TYPE_KNOB_TYPE = 8,             /* no enum: knob ids are strings */
    HIPDNN_TYPE_NAN_PROPOGATION = 9,       /* no enum (spelling as in hipDNN) */
    HIPDNN_TYPE_NUMERICAL_NOTE = 10,       /* no enum */
    HIPDNN_TYPE_LAYOUT_TYPE = 11,          /* no enum */
    HIPDNN_TYPE_ATTRIB_NAME = 12,          /* hipdnnBackendAttributeName_t */
    HIPDNN_TYPE_BACKEND_DESCRIPTOR = 13,   /* hipdnnBackendDescriptor_t */
    HIPDNN_TYPE_GENSTATS_MODE = 14,        /* no enum */
    HIPDNN_TYPE_BN_FINALIZE_STATS_MODE = 15, /* no enum */
    HIPDNN_TYPE_BEHAVIOR_NOTE = 16,        /* hipdnnBackendBehaviorNote_t */
    HIPDNN_TYPE_TENSOR_REORDERING_MODE = 17, /* no enum */
    HIPDNN_TYPE_INT32 = 18,                /* int32_t */
    HIPDNN_TYPE_CHAR = 19,                 /* char: strings and byte arrays */
    HIPDNN_TYPE_SIGNAL_MODE = 20,          /* no enum */
    HIPDNN_TYPE_FRACTION = 21,             /* no enum */
    HIPDNN_TYPE_NORM_FWD_PHASE = 22,       /* hipdnnNormFwdPhase_t */
    HIPDNN_TYPE_RNG_DISTRIBUTION = 23,     /* no enum */
    HIPDNN_TYPE_CONVOLUTION_MODE = 24,     /* hipdnnConvolutionMode_t */
    HIPDNN_TYPE_POINTWISE_MODE = 25,       /* hipdnnPointwiseMode_t */
    HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT = 26,       /* hipdnnDiagonalAlignment_t */
    HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT = 27, /* hipdnnAttentionImplementation_t */
    HIPDNN_TYPE_REDUCTION_OPERATOR_TYPE = 28,      /* hipdnnReduceTensorOp_t */
    HIPDNN_TYPE_RESAMPLE_MODE = 29,                /* hipdnnResampleMode_t */
    HIPDNN_TYPE_PADDING_MODE = 30,                 /* hipdnnPaddingMode_t */
    HIPDNN_TYPE_MOE_GROUPED_MATMUL_MODE = 31,      /* hipdnnMoeGroupedMatmulMode_t */

    HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT = 10000, /* hipdnnBackendFlatbufferData_t */
    HIPDNN_TYPE_OPERATION_TYPE_EXT = 10001          /* hipdnnOperationType_ext_t */
} hipdnnBackendAttributeType_t;

/* Older hipDNN spellings of the same values. */
#define HIPDNN_TYPE_DIAGONAL_ALIGNMENT HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT
#define HIPDNN_TYPE_ATTENTION_IMPLEMENTATION HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT

#endif /* HIPDNN_BACKEND_ATTRIBUTE_TYPE_H */
