/*
 * HipdnnStatus.h — hipdnnStatus_t, the status every hipDNN backend call returns.
 *
 * Values are part of the ABI (hipDNN numbering, not cuDNN's). Codes 2..7 refine
 * HIPDNN_STATUS_BAD_PARAM, codes 10..12 refine allocation and internal failures.
 * The readable name of a status comes from hipdnnGetErrorString(); the reason for
 * the last failure on the calling thread from hipdnnGetLastErrorString().
 */
#ifndef HIPDNN_STATUS_H
#define HIPDNN_STATUS_H

typedef enum
{
    HIPDNN_STATUS_SUCCESS = 0,
    HIPDNN_STATUS_NOT_INITIALIZED = 1, /* descriptor not finalized, or set after finalize */
    HIPDNN_STATUS_BAD_PARAM = 2,       /* invalid argument (general category) */
    HIPDNN_STATUS_BAD_PARAM_NULL_POINTER = 3,
    HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED = 4, /* a descriptor argument is not finalized */
    HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND = 5,
    HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT = 6, /* caller's buffer too small */
    HIPDNN_STATUS_BAD_PARAM_STREAM_MISMATCH = 7,
    HIPDNN_STATUS_NOT_SUPPORTED = 8,  /* valid request this library does not handle */
    HIPDNN_STATUS_INTERNAL_ERROR = 9, /* internal failure (general category) */
    HIPDNN_STATUS_ALLOC_FAILED = 10,
    HIPDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED = 11,
    HIPDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED = 12,
    HIPDNN_STATUS_EXECUTION_FAILED = 13, /* kernel launch or device failure */
    HIPDNN_STATUS_PLUGIN_ERROR = 14,     /* an engine or heuristic plugin failed */
    HIPDNN_STATUS_VERSION_MISMATCH = 15  /* backend lacks symbols a frontend needs */
} hipdnnStatus_t;

#endif /* HIPDNN_STATUS_H */
