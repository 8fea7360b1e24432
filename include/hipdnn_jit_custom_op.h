/*
 * hipdnn_jit_custom_op.h — custom-op providers: how a HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT
 * node gets its meaning in hipdnn-jit.
 *
 * A custom op in a graph names an id, "<provider>.<operation>" (HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT),
 * carries opaque payload bytes (..._DATA_EXT), a compute type, and its input and output tensors.
 * The provider that owns the id decides what the op computes. A provider is a table of
 * functions (hipdnnJitCustomOpProvider_t) that
 *   - checks one use of an op (the tensors' shapes and types, the payload) and says why it
 *     refuses one: called when the operation graph is finalized, so a graph a provider would
 *     refuse never gets a plan;
 *   - computes it on the host (the reference engine, and the tests' reference);
 *   - optionally gives the GPU kernel for it: HIP source, entry name, launch geometry and the
 *     kernel's arguments, compiled by the library's compile path (hipRTC / NVRTC) and cached in
 *     its kernel cache like every other kernel (the key includes the provider's name and
 *     version and the source).
 *
 * Providers come from
 *   - plugin libraries named with hipdnnSetEnginePluginPaths_ext (before hipdnnCreate): a
 *     library that exports HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL ("hipdnnJitCustomOpProviders")
 *     is loaded as a custom-op plugin;
 *   - the program itself: hipdnnJitRegisterCustomOpProvider_ext;
 *   - the library: the built-in provider "jit", always present (its name cannot be registered).
 * The provider of an op id is the first whose name equals the id's part before the last '.'.
 *
 * The built-in op "jit.hip_source" runs a kernel the program writes, with no plugin. Its payload
 * is a UTF-8 JSON object (README.md "Custom ops" gives the whole format):
 *   {"source": "<HIP/CUDA text>", "entry": "<its __global__ function>",
 *    "block": [x, y, z], "grid": [x, y, z], "shared_bytes": n, "args": [...]}
 * block: 1..3 positive ints (at most 1024 threads); grid: 1..3 entries, each a positive int or a
 * size expression; shared_bytes: optional dynamic shared memory; args, in the kernel's order: an
 * int (an int64 parameter: declare it long long), "in<N>" / "out<N>" (that tensor's address),
 * or a size expression (an int64 value). A size expression is int64 arithmetic (+ - * / %,
 * parentheses, unary minus) over numel(T), rank(T), dim(T, d), stride(T, d) (d < 0 from the end),
 * cdiv(a, b), min(a, b), max(a, b), T being in<N> or out<N>: "cdiv(numel(out0), 256)". Every
 * output must be named by an argument. The check (at graph finalize) refuses a bad payload with
 * the field and the reason. On the GPU the source is compiled as given; on the reference engine
 * the library builds it with the host C++ compiler ($HIPDNN_HOST_CXX, else c++) behind a host
 * prelude (CUDA / HIP spellings, __syncthreads and warp shuffles on a coroutine block scheduler)
 * and runs it on the CPU, so a graph holding it executes without a GPU.
 *
 * Every function gets the call's description (hipdnnJitCustomOpCall_t) and a message buffer; it
 * returns 0 on success, or non-zero after writing a NUL-terminated reason into `why` (at most
 * `why_size` bytes), which the library reports in its last-error message. Functions may be
 * called from several threads at once; a provider's table and its name and version strings must
 * stay valid while the library is loaded (plugins are not unloaded before exit); the strings
 * `kernel` gives need less (hipdnnJitKernelSource_t).
 * C17 and C++; includes hipdnn_backend.h (no HIP SDK needed).
 */
#ifndef HIPDNN_JIT_CUSTOM_OP_H
#define HIPDNN_JIT_CUSTOM_OP_H

#include <stddef.h>
#include <stdint.h>

#include "hipdnn_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface a provider is written against (hipdnnJitCustomOpProvider_t.api_version). */
#define HIPDNN_JIT_CUSTOM_OP_API_VERSION 1
/* The symbol a custom-op plugin library exports: a hipdnnJitCustomOpProvidersFn. */
#define HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL "hipdnnJitCustomOpProviders"
#define HIPDNN_JIT_CUSTOM_OP_MAX_RANK 8
#define HIPDNN_JIT_CUSTOM_OP_MAX_ARGS 32

/* One input or output tensor of a custom op. In check and kernel, data is NULL. */
typedef struct hipdnnJitCustomTensor {
    int64_t uid;
    hipdnnDataType_t data_type;
    int32_t rank;
    int64_t dims[HIPDNN_JIT_CUSTOM_OP_MAX_RANK];
    int64_t strides[HIPDNN_JIT_CUSTOM_OP_MAX_RANK]; /* in elements */
    void* data;                                     /* reference: host memory laid out as above */
} hipdnnJitCustomTensor_t;

/* One use of a custom op in a graph. */
typedef struct hipdnnJitCustomOpCall {
    const char* op_id;          /* "<provider>.<operation>", NUL-terminated */
    const uint8_t* payload;     /* the op's DATA bytes (may be NULL when payload_size is 0) */
    size_t payload_size;
    hipdnnDataType_t compute_type;
    int32_t num_inputs;
    const hipdnnJitCustomTensor_t* inputs;
    int32_t num_outputs;
    const hipdnnJitCustomTensor_t* outputs;
} hipdnnJitCustomOpCall_t;

/* One kernel argument: a tensor's device address or a 64-bit integer value (sizes, strides;
 * a kernel that wants a narrower type or a float takes int64_t and converts). */
typedef enum hipdnnJitKernelArgKind {
    HIPDNN_JIT_ARG_INPUT = 0,  /* index: which input's address (a pointer parameter) */
    HIPDNN_JIT_ARG_OUTPUT = 1, /* index: which output's address */
    HIPDNN_JIT_ARG_INT64 = 2,  /* value: an int64_t parameter */
} hipdnnJitKernelArgKind_t;

typedef struct hipdnnJitKernelArg {
    hipdnnJitKernelArgKind_t kind;
    int32_t index;
    int64_t value;
} hipdnnJitKernelArg_t;

/* The GPU side of one use of an op. The library copies the strings as soon as `kernel` returns,
 * before it calls the provider again from that thread: they must stay valid until then (static
 * text, or a per-thread buffer the next call replaces). The source is compiled as given, with
 * hipRTC (AMD) or NVRTC (NVIDIA) and no prelude: write it in the subset both take (__global__,
 * extern "C", threadIdx / blockIdx / blockDim, plain C types). */
typedef struct hipdnnJitKernelSource {
    const char* source;  /* the kernel's source, NUL-terminated; the entry is extern "C" */
    const char* entry;   /* the __global__ function's name */
    uint32_t grid[3];    /* blocks */
    uint32_t block[3];   /* threads per block */
    uint32_t shared_bytes; /* dynamic shared memory */
    int32_t num_args;
    hipdnnJitKernelArg_t args[HIPDNN_JIT_CUSTOM_OP_MAX_ARGS];
} hipdnnJitKernelSource_t;

typedef struct hipdnnJitCustomOpProvider {
    uint32_t api_version; /* HIPDNN_JIT_CUSTOM_OP_API_VERSION */
    const char* name;     /* the ids it owns start with "<name>." */
    const char* version;  /* part of every kernel-cache key of its ops */
    /* Accepts or refuses one use of an op (unknown operation names included). Required. */
    int (*check)(const hipdnnJitCustomOpCall_t* call, char* why, size_t why_size);
    /* Computes the op on the host: inputs' and outputs' data are host memory. Required. */
    int (*reference)(const hipdnnJitCustomOpCall_t* call, char* why, size_t why_size);
    /* Fills *kernel for a GPU of architecture `arch` ("sm_90", "gfx942"). NULL: host only. */
    int (*kernel)(const hipdnnJitCustomOpCall_t* call, const char* arch, hipdnnJitKernelSource_t* kernel,
                  char* why, size_t why_size);
} hipdnnJitCustomOpProvider_t;

/* What a plugin exports under HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL: its providers (*count of
 * them; the array stays valid while the library is loaded). */
typedef const hipdnnJitCustomOpProvider_t* (*hipdnnJitCustomOpProvidersFn)(int32_t* count);

/*
 * hipdnnJitRegisterCustomOpProvider_ext — adds a provider from the program itself. The table is
 * used in place (not copied): keep it alive. A provider whose name is already registered
 * is refused.
 * Returns SUCCESS, BAD_PARAM_NULL_POINTER (provider, its name, version, check or reference
 *   NULL), BAD_PARAM (a name that is empty or holds a '.', a name already taken),
 *   VERSION_MISMATCH (api_version is not one this library speaks).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnJitRegisterCustomOpProvider_ext(const hipdnnJitCustomOpProvider_t* provider);

#ifdef __cplusplus
}
#endif

#endif /* HIPDNN_JIT_CUSTOM_OP_H */
