/* hip_runtime_api.h — a host-only stand-in for the few HIP runtime names that hipDNN's
 * frontend and SDK headers use, so they compile with g++ on a machine without ROCm.
 * Memory calls are plain host memory: enough for programs that run on host pointers
 * (the reference engine). Ours, written for the compatibility check; not HIP's header. */
#pragma once
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct ihipStream_t *hipStream_t;
typedef enum hipError_t { hipSuccess = 0, hipErrorOutOfMemory = 2 } hipError_t;
typedef enum hipMemcpyKind {
    hipMemcpyHostToHost, hipMemcpyHostToDevice, hipMemcpyDeviceToHost,
    hipMemcpyDeviceToDevice, hipMemcpyDefault
} hipMemcpyKind;

static inline const char *hipGetErrorString(hipError_t e) { return e == hipSuccess ? "hipSuccess" : "hipError"; }
static inline hipError_t hipMalloc(void **p, size_t n) { *p = malloc(n ? n : 1); return *p ? hipSuccess : hipErrorOutOfMemory; }
static inline hipError_t hipHostMalloc(void **p, size_t n, unsigned flags = 0) { (void)flags; return hipMalloc(p, n); }
static inline hipError_t hipFree(void *p) { free(p); return hipSuccess; }
static inline hipError_t hipHostFree(void *p) { free(p); return hipSuccess; }
static inline hipError_t hipMemcpy(void *d, const void *s, size_t n, hipMemcpyKind k) { (void)k; memmove(d, s, n); return hipSuccess; }
static inline hipError_t hipMemcpyAsync(void *d, const void *s, size_t n, hipMemcpyKind k, hipStream_t st = nullptr) { (void)st; return hipMemcpy(d, s, n, k); }
static inline hipError_t hipMemcpyWithStream(void *d, const void *s, size_t n, hipMemcpyKind k, hipStream_t st) { return hipMemcpyAsync(d, s, n, k, st); }
static inline hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
static inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
