/* hipdnn_jit.h — hipdnn-jit extensions beyond the hipDNN backend API.
 *
 * Device memory helpers for programs that have no GPU runtime of their own (tools, samples,
 * benchmarks): they use the same driver and the device's primary context as the library, so
 * the pointers they return work in variant packs. Without a GPU every call returns
 * HIPDNN_STATUS_NOT_SUPPORTED with a last-error message saying so.
 */
#ifndef HIPDNN_JIT_H
#define HIPDNN_JIT_H

#include "hipdnn_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates `bytes` of device memory (*ptr = NULL for 0 bytes). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnDeviceMalloc_ext(void **ptr, size_t bytes);
/* Frees memory from hipdnnDeviceMalloc_ext (NULL is ignored). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnDeviceFree_ext(void *ptr);
/* Synchronous copies between host and device memory. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnMemcpyHostToDevice_ext(void *dst, const void *src, size_t bytes);
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnMemcpyDeviceToHost_ext(void *dst, const void *src, size_t bytes);
/* Waits for all work queued on the handle's stream. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnStreamSynchronize_ext(hipdnnHandle_t handle);

#ifdef __cplusplus
}
#endif

#endif
