/*
 * HipdnnBackendLimits.h — fixed sizes of the hipDNN backend C API.
 */
#ifndef HIPDNN_BACKEND_LIMITS_H
#define HIPDNN_BACKEND_LIMITS_H

/* Longest per-thread error message, in bytes, including the terminating NUL.
 * A buffer of this size never truncates hipdnnGetLastErrorString(). */
#define HIPDNN_ERROR_STRING_MAX_LENGTH 2048

#endif /* HIPDNN_BACKEND_LIMITS_H */
