/*
 * HipdnnBackendLimits.h — fixed sizes of the hipDNN backend C API.
 */
#ifndef HIPDNN_BACKEND_LIMITS_H
#define HIPDNN_BACKEND_LIMITS_H

/* Longest per-thread error message, in bytes, including the terminating NUL.
 * A buffer of this size never truncates hipdnnGetLastErrorString(). */
#define HIPDNN_ERROR_STRING_MAX_LENGTH 2048

/* hipdnn-jit's limits (not hipDNN's): the most operations one graph holds
 * (HIPDNN_ATTR_OPERATIONGRAPH_OPS, all sets together), and the largest tensor in bytes
 * (2^48 = 256 TiB, far beyond any device's memory; with the operation limit, no sum of tensor
 * sizes, such as a workspace, can overflow int64). Larger ones are refused with BAD_PARAM. */
#define HIPDNN_MAX_GRAPH_OPERATIONS_EXT 1024
#define HIPDNN_MAX_TENSOR_BYTES_EXT (1LL << 48)

#endif /* HIPDNN_BACKEND_LIMITS_H */
