/* rt.h — the contract of runtime/: the GPU vendor's driver and run-time compiler, loaded with
 * dlopen at first use. Code above runtime/ speaks HIP terms only (streams are hipStream_t,
 * functions are opaque handles); only runtime/rt_<vendor>.c touches a vendor library.
 *
 *   NVIDIA: libcuda.so.1 (driver API, the device's primary context, as the CUDA runtime and
 *           PyTorch use it, so framework pointers and streams work as they are) + libnvrtc.so
 *   AMD:    libamdhip64.so (the HIP runtime, the thread's current device, as PyTorch uses it)
 *           + libhiprtc.so (hipRTC; inside libamdhip64 before ROCm 6). Not yet run on an AMD GPU:
 *           see rt_amd.c.
 *
 * The platform: HIPDNN_PLATFORM=nvidia or HIPDNN_PLATFORM=amd picks it; unset, NVIDIA when
 * libcuda.so.1 loads, else AMD when libamdhip64 loads. Another value makes every device call
 * fail with BAD_PARAM. Compiling does not depend on it: rt_compile takes any target whose
 * compiler library is there ("sm_*": NVRTC, "gfx*": hipRTC).
 *
 * Without a GPU the library still loads: rt_have_gpu() is false and every device call returns
 * HIPDNN_STATUS_NOT_SUPPORTED with a message, but compiling (rt_compile) works wherever the
 * compiler library exists, so caches can be warmed for a named architecture on a build machine.
 * Every failure records a last-error message naming the call and the driver's error string;
 * compile failures carry the compiler's log.
 */
#ifndef HIPDNN_RT_H
#define HIPDNN_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

typedef struct rt_device_info {
    const char *platform; /* "nvidia" / "amd" (a static string): the prelude codegen uses */
    char name[128];       /* "NVIDIA H200" */
    char arch[32];        /* compile target: "sm_90", "gfx942" */
    int cc_major, cc_minor;
    int sm_count;         /* multiprocessors / compute units */
    int warp_size;
    size_t smem_per_block;       /* default limit per block */
    size_t smem_per_block_optin; /* what a kernel may opt in to */
    size_t l2_bytes;
    size_t total_mem;
    bool pageable_access; /* kernels may read any host memory (HMM / ATS systems) */
} rt_device_info;

typedef struct rt_compiler_info {
    char id[16];          /* "nvrtc" / "hiprtc" */
    int major, minor;     /* compiler version */
} rt_compiler_info;

typedef struct rt_module rt_module;  /* a loaded code object */
typedef void *rt_function;           /* a kernel of a loaded module */
typedef void *rt_event;

/* ---- platform ---------------------------------------------------------------------------------- */

/* Loads the driver and picks the device: the current context's device if a framework made one
 * current on this thread, else device 0; retains its primary context and makes it current.
 * Idempotent and thread safe. NOT_SUPPORTED (with the reason) when there is no usable GPU. */
hipdnnStatus_t rt_init(void);
bool rt_have_gpu(void);
hipdnnStatus_t rt_device(rt_device_info *out);

/* ---- compiler (works without a GPU) ------------------------------------------------------------- */

/* The compiler for the platform's targets (HIPDNN_PLATFORM's, or the first found driver's, or
 * NVIDIA's without one). */
hipdnnStatus_t rt_compiler(rt_compiler_info *out);
/* The compiler rt_compile uses for `arch`: NOT_SUPPORTED when no backend compiles such targets
 * or its compiler library is absent. Its id and version belong in a cache key for that arch.
 * For hipRTC the version is HIP's (hiprtcVersion says 9.0 in every release). */
hipdnnStatus_t rt_compiler_for(const char *arch, rt_compiler_info *out);
/* The compiler for `arch` when this process has already loaded it (never loads it: loading
 * NVRTC or hipRTC costs milliseconds); false otherwise. */
bool rt_compiler_loaded(const char *arch, rt_compiler_info *out);
/* Every run-time compiler this library can use, found on this machine or not (hipdnn-cache
 * --version): backend i's platform, the targets it compiles ("sm_", "gfx"), whether its library
 * loads (loading it if this process has not yet: milliseconds) and then its id and version, else
 * why not. Returns SUCCESS; BAD_PARAM (i >= rt_compiler_count()). */
typedef struct rt_compiler_entry {
    const char *platform, *arch_prefix; /* static strings */
    bool found;
    rt_compiler_info info;              /* when found */
    char why[512];                      /* when not */
} rt_compiler_entry;
size_t rt_compiler_count(void);
hipdnnStatus_t rt_compiler_at(size_t i, rt_compiler_entry *out);
/* Compiles HIP/CUDA C++ source for `arch` ("sm_90", "sm_90a", "sm_80", "gfx942") with extra
 * options (may be NULL), with the compiler for that arch (rt_compiler_for). On success *code
 * (malloc'd, caller frees) holds the code object (CUBIN / HSACO). On a compile error: HIPDNN_STATUS_INTERNAL_ERROR, the last-error message
 * holds the compiler's log (truncated), and *log (if log != NULL) the whole log (caller frees);
 * *log is NULL on success. Never initialises the driver: no GPU or context is needed. */
hipdnnStatus_t rt_compile(const char *source, const char *program_name, const char *arch,
                          const char *const *options, int n_options, void **code, size_t *code_len,
                          char **log);

/* ---- modules and launch ------------------------------------------------------------------------- */

hipdnnStatus_t rt_module_load(const void *code, size_t code_len, rt_module **out);
hipdnnStatus_t rt_module_function(rt_module *m, const char *name, rt_function *out);
void rt_module_unload(rt_module *m);
/* Raises the dynamic shared-memory limit of f (needed above 48 KiB). */
hipdnnStatus_t rt_function_set_max_smem(rt_function f, size_t bytes);
/* Launches f with the kernel parameters `args` (an array of pointers to each argument) on
 * stream (NULL = the default stream) and checks the launch. */
hipdnnStatus_t rt_launch(rt_function f, const unsigned grid[3], const unsigned block[3],
                         size_t smem_bytes, void *stream, void **args);
/* As rt_launch, and f may start while the previous kernel on the stream is still running
 * (programmatic dependent launch: NVIDIA sm_90 and newer, with a driver that has
 * cuLaunchKernelEx; elsewhere exactly rt_launch). f must wait for that kernel before it reads
 * what the kernel wrote (hd_grid_wait in the preludes: griddepcontrol.wait, which returns once the
 * previous grid has finished and its memory is visible); the previous kernel may let f start
 * before it ends (hd_grid_launch_dependents). */
hipdnnStatus_t rt_launch_dependent(rt_function f, const unsigned grid[3], const unsigned block[3],
                                   size_t smem_bytes, void *stream, void **args);

/* Tensor maps: the description of a strided tensor in device memory that a kernel's bulk tensor
 * copies (NVIDIA TMA, sm_90 and newer) read tiles of; passed to the kernel by value. */
#define RT_TENSOR_MAP_BYTES 128
#define RT_TENSOR_MAP_ALIGN 64
#define RT_TENSOR_MAP_MAX_RANK 5
/* Fills `map` (RT_TENSOR_MAP_BYTES, RT_TENSOR_MAP_ALIGN-aligned) for `rank` (1 ..
 * RT_TENSOR_MAP_MAX_RANK) dims of elem_bytes-byte (1 or 2) elements at base (16-byte aligned):
 * dims innermost first (elements, 1 .. 2^32), strides of dims 1 .. rank-1 in bytes (multiples of
 * 16, below 2^40), box: elements a copy moves along each dim (1 .. 256; box[0] * elem_bytes a
 * multiple of 16, at most 128). Shared memory gets the 128-byte swizzle; elements outside the
 * tensor read as zero. BAD_PARAM naming the values when the driver refuses them;
 * NOT_SUPPORTED on a platform or driver without tensor maps. */
hipdnnStatus_t rt_tensor_map(void *map, const void *base, int rank, int elem_bytes,
                             const uint64_t *dims, const uint64_t *strides, const uint32_t *box);

/* ---- memory, streams, events (the engines' workspace, tests and benchmarks) ------------------------ */

/* bytes == 0 gives *p = NULL and SUCCESS. */
hipdnnStatus_t rt_malloc(void **p, size_t bytes);
void rt_free(void *p);
hipdnnStatus_t rt_memcpy_h2d(void *dst, const void *src, size_t bytes);
hipdnnStatus_t rt_memcpy_d2h(void *dst, const void *src, size_t bytes);
hipdnnStatus_t rt_memset(void *dst, int byte, size_t bytes);
/* stream NULL: waits for all work on the device, not only the default stream's. */
hipdnnStatus_t rt_stream_sync(void *stream);
hipdnnStatus_t rt_event_create(rt_event *e);
hipdnnStatus_t rt_event_record(rt_event e, void *stream);
/* Milliseconds between two recorded events (waits for `end`). */
hipdnnStatus_t rt_event_elapsed_ms(rt_event start, rt_event end, float *ms);
void rt_event_destroy(rt_event e);
/* What p points at, as the driver sees it. */
typedef enum rt_ptr_kind {
    RT_PTR_HOST,         /* unknown to the driver: pageable host memory (or no memory at all) */
    RT_PTR_HOST_MAPPED,  /* host memory the driver allocated or registered: kernels may read it */
    RT_PTR_DEVICE,       /* device memory of our device, or managed memory */
    RT_PTR_OTHER_DEVICE, /* device memory of another device */
} rt_ptr_kind;
/* RT_PTR_HOST without a GPU or for NULL. */
rt_ptr_kind rt_pointer_kind(const void *p);
/* True when p is device (or managed) memory of the current device. */
bool rt_is_device_pointer(const void *p);
/* True when our kernels may dereference p: device or managed memory of our device, host memory
 * the driver maps, or any host memory on a device with pageable memory access. */
bool rt_kernel_can_read(const void *p);

#endif
