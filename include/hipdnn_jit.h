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
/* Frees memory from hipdnnDeviceMalloc_ext (NULL is ignored). When the device cannot be bound to
 * the calling thread, nothing is freed and that failure is returned: the call may be repeated. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnDeviceFree_ext(void *ptr);
/* Synchronous copies between host and device memory. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnMemcpyHostToDevice_ext(void *dst, const void *src, size_t bytes);
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnMemcpyDeviceToHost_ext(void *dst, const void *src, size_t bytes);
/* Waits for all work queued on the handle's stream. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnStreamSynchronize_ext(hipdnnHandle_t handle);

/* Ahead-of-time compilation (warming a kernel cache, also on a machine without a GPU). From
 * this call on, the JIT engines of this process generate and compile kernels for `arch`
 * ("sm_90", "sm_80", "gfx90a", "gfx942", ...) as if a device of that arch with `sm_count`
 * multiprocessors were present (0: the arch's usual count: sm_90 132, sm_80 108, sm_89 128,
 * gfx942 304, gfx90a 110, else 100), whether or not a GPU is present. Heuristics rank configs
 * for that target; plan finalize compiles into the plan's kernel cache and records the plan
 * there, but loads nothing: executing such a plan returns HIPDNN_STATUS_NOT_SUPPORTED. A warm
 * cache hits on a real device of the same arch, multiprocessor count and compiler version.
 * NULL or "" returns to the process's own device. Process-wide: call it before building plans,
 * not while other threads build them.
 * Returns SUCCESS; BAD_PARAM (an arch no run-time compiler of this machine targets, named in
 * the message, or sm_count < 0). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnSetCompileTarget_ext(const char *arch, int sm_count);

#ifdef __cplusplus
}
#endif

#endif
