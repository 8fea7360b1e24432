/*
 * HipdnnReduceTensorOp.h — hipdnnReduceTensorOp_t, the operator of a reduction
 * operation (HIPDNN_ATTR_REDUCTION_OPERATOR). Value 0 is unused.
 */
#ifndef HIPDNN_REDUCE_TENSOR_OP_H
#define HIPDNN_REDUCE_TENSOR_OP_H

typedef enum
{
    HIPDNN_REDUCE_TENSOR_ADD = 1,
    HIPDNN_REDUCE_TENSOR_MUL = 2,
    HIPDNN_REDUCE_TENSOR_MIN = 3,
    HIPDNN_REDUCE_TENSOR_MAX = 4,
    HIPDNN_REDUCE_TENSOR_AMAX = 5,        /* max of absolute values */
    HIPDNN_REDUCE_TENSOR_AVG = 6,
    HIPDNN_REDUCE_TENSOR_NORM1 = 7,       /* sum of absolute values */
    HIPDNN_REDUCE_TENSOR_NORM2 = 8,       /* square root of the sum of squares */
    HIPDNN_REDUCE_TENSOR_MUL_NO_ZEROS = 9 /* product of the non-zero elements */
} hipdnnReduceTensorOp_t;

#endif /* HIPDNN_REDUCE_TENSOR_OP_H */
