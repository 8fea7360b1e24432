/* rt_nvidia.c — the NVIDIA backend of runtime/: the CUDA driver API (libcuda.so.1) and NVRTC
 * (libnvrtc), both loaded with dlopen at first use. The only file that knows NVIDIA.
 *
 * Owns: the few driver and NVRTC types, constants and entry points it uses, declared here from
 * NVIDIA's public documentation (no CUDA header is needed to build); loading them; the device's
 * primary context (the one the CUDA runtime, and so PyTorch, uses: their device pointers and
 * streams work in our kernels as they are); turning every CUresult / nvrtcResult into a status
 * and a message that names the call and the driver's error name and text.
 * Does not own: choosing a backend, argument checks, once-only initialisation (rt.c).
 *
 * Threads: the function pointers and `dev` are written once, inside rt.c's pthread_once, and only
 * read afterwards. The primary context is bound to a calling thread that has no context bound
 * (make_current); a thread with another context bound keeps it.
 * Libraries are never dlclose'd: the driver must outlive every module and allocation.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_int.h"

/* ---- the driver API, as documented for cuda.h ------------------------------------------------ */
typedef int CUresult; /* an enum in cuda.h; 0 is CUDA_SUCCESS */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* 64-bit since the _v2 entry points */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

enum { CUDA_SUCCESS = 0, CUDA_ERROR_STUB_LIBRARY = 34 };
enum { /* CUdevice_attribute */
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 }; /* CUfunction_attribute */
enum {                                                        /* CUpointer_attribute */
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
};
enum { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2 }; /* CUmemorytype */
enum { CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0, CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1 }; /* CUtensorMapDataType */
enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };                                     /* CUtensorMapInterleave */
enum { CU_TENSOR_MAP_SWIZZLE_128B = 3 };                                        /* CUtensorMapSwizzle */
enum { CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3 };                                /* CUtensorMapL2promotion */
enum { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };                                 /* CUtensorMapFloatOOBfill */
/* cuTensorMapEncodeTiled (CUDA 12.0 and newer drivers; looked up apart from the table, so an
 * older driver still loads): fills a 128-byte CUtensorMap. */
typedef CUresult (*cuTensorMapEncodeTiled_fn)(void *map, int dtype, unsigned rank, void *base,
                                              const unsigned long long *dims,
                                              const unsigned long long *strides,
                                              const unsigned *box, const unsigned *elem_strides,
                                              int interleave, int swizzle, int l2_promotion,
                                              int oob_fill);
enum { CU_EVENT_DEFAULT = 0 };     /* CUevent_flags: timing enabled */
/* cuLaunchKernelEx's configuration (CUDA 12 and newer), as cuda.h lays it out: one attribute,
 * programmatic stream serialization (id 6, an int at the start of the 64-byte value union). */
enum { CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct CUlaunchAttribute {
    int id;
    char pad[8 - sizeof(int)];
    union {
        char bytes[64];
        int programmatic_stream_serialization_allowed;
    } value;
} CUlaunchAttribute;
typedef struct CUlaunchConfig {
    unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, smem;
    CUstream stream;
    CUlaunchAttribute *attrs;
    unsigned n_attrs;
} CUlaunchConfig;
typedef CUresult (*cuLaunchKernelEx_fn)(const CUlaunchConfig *config, CUfunction f, void **params, void **extra);
_Static_assert(sizeof(CUlaunchAttribute) == 72 && offsetof(CUlaunchAttribute, value) == 8, "cuda.h's CUlaunchAttribute");
_Static_assert(offsetof(CUlaunchConfig, stream) == 32 && offsetof(CUlaunchConfig, n_attrs) == 48,
               "cuda.h's CUlaunchConfig");

/* Enum parameters are passed as int: the same in the C ABI. */
#define CU_API(X)                                                                               \
    X(cuInit, (unsigned flags))                                                                 \
    X(cuDeviceGet, (CUdevice * dev, int ordinal))                                               \
    X(cuDeviceGetCount, (int *count))                                                           \
    X(cuDeviceGetAttribute, (int *value, int attrib, CUdevice dev))                             \
    X(cuDeviceGetName, (char *name, int len, CUdevice dev))                                     \
    X(cuDeviceTotalMem_v2, (size_t * bytes, CUdevice dev))                                      \
    X(cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice dev))                                \
    X(cuCtxGetCurrent, (CUcontext * ctx))                                                       \
    X(cuCtxSetCurrent, (CUcontext ctx))                                                         \
    X(cuCtxGetDevice, (CUdevice * dev))                                                         \
    X(cuCtxSynchronize, (void))                                                                 \
    X(cuModuleLoadData, (CUmodule * mod, const void *image))                                    \
    X(cuModuleUnload, (CUmodule mod))                                                           \
    X(cuModuleGetFunction, (CUfunction * f, CUmodule mod, const char *name))                    \
    X(cuFuncSetAttribute, (CUfunction f, int attrib, int value))                                \
    X(cuLaunchKernel, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,        \
                       unsigned by, unsigned bz, unsigned smem, CUstream stream, void **params, \
                       void **extra))                                                           \
    X(cuMemAlloc_v2, (CUdeviceptr * p, size_t bytes))                                           \
    X(cuMemFree_v2, (CUdeviceptr p))                                                            \
    X(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t bytes))                        \
    X(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t bytes))                              \
    X(cuMemsetD8_v2, (CUdeviceptr dst, unsigned char value, size_t n))                          \
    X(cuStreamSynchronize, (CUstream stream))                                                   \
    X(cuEventCreate, (CUevent * e, unsigned flags))                                             \
    X(cuEventRecord, (CUevent e, CUstream stream))                                              \
    X(cuEventSynchronize, (CUevent e))                                                          \
    X(cuEventElapsedTime, (float *ms, CUevent start, CUevent end))                              \
    X(cuEventDestroy_v2, (CUevent e))                                                           \
    X(cuPointerGetAttribute, (void *data, int attrib, CUdeviceptr p))                           \
    X(cuPointerGetAttributes, (unsigned n, int *attribs, void **data, CUdeviceptr p))            \
    X(cuGetErrorName, (CUresult r, const char **name))                                          \
    X(cuGetErrorString, (CUresult r, const char **text))

/* ---- NVRTC, as documented for nvrtc.h: its version here, the rest through the shared compile
 * driver (rt_rtc.c), named in `nvrtc` below ---------------------------------------------------- */
typedef int nvrtcResult; /* 0 is NVRTC_SUCCESS */
enum { NVRTC_SUCCESS = 0 };

#define NVRTC_API(X) X(nvrtcVersion, (int *major, int *minor))

#define DECLARE_CU(name, params) typedef CUresult(*name##_fn) params;
#define DECLARE_RTC(name, params) typedef nvrtcResult(*name##_fn) params;
#define FIELD(name, params) name##_fn name;
CU_API(DECLARE_CU)
NVRTC_API(DECLARE_RTC)

static struct {
    CU_API(FIELD)
} cu;
static struct {
    NVRTC_API(FIELD)
} rtc;
/* Everything else of NVRTC the shared compile driver (rt_rtc.c) calls. */
static rt_rtc nvrtc = {
    .compiler = "nvrtc", .arch_option = "--gpu-architecture=",
    .options = {"-default-device", "--std=c++17"}, .code_name = "CUBIN",
    .default_name = "hipdnn_jit.cu",
    .names = {"nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetProgramLogSize",
              "nvrtcGetProgramLog", "nvrtcGetCUBINSize", "nvrtcGetCUBIN", "nvrtcDestroyProgram",
              "nvrtcGetErrorString"},
};

static const char cuda_lib_name[] = "libcuda.so.1";
static const char *const nvrtc_lib_names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};

static void *cuda_lib;     /* dlopen handle of libcuda.so.1 */
static CUdevice dev;       /* the device rt_init picked */
static CUcontext primary;  /* its primary context, retained for the life of the process */
static cuTensorMapEncodeTiled_fn encode_tiled; /* NULL: the driver has no tensor maps */
static cuLaunchKernelEx_fn launch_ex;          /* NULL: no launch attributes (a driver before CUDA 12) */
static bool pdl;                               /* launch_ex and a device of sm_90 or newer */

/* ---- errors ---------------------------------------------------------------------------------- */

/* Raises st with "<what>: <CUDA_ERROR_NAME> (<code>): <text>" unless r is success. */
static hipdnnStatus_t cu_check(CUresult r, hipdnnStatus_t st, const char *fmt, ...)
    BASE_PRINTF(3, 4);
static hipdnnStatus_t cu_check(CUresult r, hipdnnStatus_t st, const char *fmt, ...)
{
    if (r == CUDA_SUCCESS)
        return HIPDNN_STATUS_SUCCESS;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *name = NULL, *text = NULL;
    if (cu.cuGetErrorName == NULL || cu.cuGetErrorName(r, &name) != CUDA_SUCCESS || name == NULL)
        name = r == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY" : "CUDA error";
    if (cu.cuGetErrorString == NULL || cu.cuGetErrorString(r, &text) != CUDA_SUCCESS ||
        text == NULL)
        text = r == CUDA_ERROR_STUB_LIBRARY ? "the toolkit's stub libcuda was loaded, not the "
                                              "driver's" : "no description";
    return base_fail(st, "%s: %s (%d): %s", what, name, r, text);
}

/* ---- loading --------------------------------------------------------------------------------- */

/* Fills the table from h; the name of the first missing entry point, or NULL. */
#define LOAD(table, name)                                    \
    if ((table.name = (name##_fn)dlsym(h, #name)) == NULL) \
        return #name;
#define LOAD_CU(name, params) LOAD(cu, name)
#define LOAD_RTC(name, params) LOAD(rtc, name)

static const char *load_cu(void *h)
{
    CU_API(LOAD_CU)
    return NULL;
}

static const char *load_rtc(void *h)
{
    NVRTC_API(LOAD_RTC)
    return rt_rtc_load(&nvrtc, h);
}

static bool nv_driver_present(void)
{
    cuda_lib = dlopen(cuda_lib_name, RTLD_NOW | RTLD_LOCAL);
    if (cuda_lib == NULL)
        base_log_once(HIPDNN_SEV_INFO, "runtime: %s", dlerror());
    return cuda_lib != NULL;
}

/* ---- device and context ---------------------------------------------------------------------- */

static hipdnnStatus_t bind_primary(hipdnnStatus_t st_on_error)
{
    CUcontext cur = NULL;
    hipdnnStatus_t st = cu_check(cu.cuCtxGetCurrent(&cur), st_on_error, "cuCtxGetCurrent");
    if (st != HIPDNN_STATUS_SUCCESS || cur != NULL)
        return st;
    return cu_check(cu.cuCtxSetCurrent(primary), st_on_error,
                    "cuCtxSetCurrent(primary context of device %d)", dev);
}

static hipdnnStatus_t nv_make_current(void) { return bind_primary(HIPDNN_STATUS_INTERNAL_ERROR); }

/* The current context's device when this thread has one bound, else device 0. */
static hipdnnStatus_t pick_device(void)
{
    const hipdnnStatus_t ns = HIPDNN_STATUS_NOT_SUPPORTED;
    int n = 0;
    CUcontext cur = NULL;
    hipdnnStatus_t st = cu_check(cu.cuDeviceGetCount(&n), ns, "cuDeviceGetCount");
    if (st == HIPDNN_STATUS_SUCCESS && n <= 0)
        return base_fail(ns, "no CUDA device (cuDeviceGetCount gives %d)", n);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = cu_check(cu.cuCtxGetCurrent(&cur), ns, "cuCtxGetCurrent");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (cur != NULL)
        return cu_check(cu.cuCtxGetDevice(&dev), ns, "cuCtxGetDevice");
    return cu_check(cu.cuDeviceGet(&dev, 0), ns, "cuDeviceGet(0)");
}

static const struct {
    int attrib;
    const char *name;
} dev_attrs[] = {
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR"},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR"},
    {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT"},
    {CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE"},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"},
    {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE"},
    {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, "PAGEABLE_MEMORY_ACCESS"},
};
enum { N_DEV_ATTRS = sizeof dev_attrs / sizeof dev_attrs[0] };

static hipdnnStatus_t query_device(rt_device_info *o)
{
    const hipdnnStatus_t ns = HIPDNN_STATUS_NOT_SUPPORTED;
    int v[N_DEV_ATTRS];
    memset(o, 0, sizeof *o);
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < N_DEV_ATTRS && st == HIPDNN_STATUS_SUCCESS; i++)
        st = cu_check(cu.cuDeviceGetAttribute(&v[i], dev_attrs[i].attrib, dev), ns,
                      "cuDeviceGetAttribute(%s, device %d)", dev_attrs[i].name, dev);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = cu_check(cu.cuDeviceGetName(o->name, (int)sizeof o->name, dev), ns,
                      "cuDeviceGetName(device %d)", dev);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = cu_check(cu.cuDeviceTotalMem_v2(&o->total_mem, dev), ns,
                      "cuDeviceTotalMem(device %d)", dev);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    o->cc_major = v[0], o->cc_minor = v[1], o->sm_count = v[2], o->warp_size = v[3];
    o->smem_per_block = (size_t)v[4], o->smem_per_block_optin = (size_t)v[5];
    o->l2_bytes = (size_t)v[6];
    o->pageable_access = v[7] != 0;
    snprintf(o->arch, sizeof o->arch, "sm_%d%d", o->cc_major, o->cc_minor);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t nv_driver_init(rt_device_info *info)
{
    const hipdnnStatus_t ns = HIPDNN_STATUS_NOT_SUPPORTED;
    const char *missing = load_cu(cuda_lib);
    if (missing != NULL)
        return base_fail(ns, "%s has no %s (driver too old?)", cuda_lib_name, missing);
    encode_tiled = (cuTensorMapEncodeTiled_fn)dlsym(cuda_lib, "cuTensorMapEncodeTiled");
    launch_ex = (cuLaunchKernelEx_fn)dlsym(cuda_lib, "cuLaunchKernelEx");
    hipdnnStatus_t st = cu_check(cu.cuInit(0), ns, "cuInit");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = pick_device();
    if (st == HIPDNN_STATUS_SUCCESS)
        st = query_device(info);
    pdl = st == HIPDNN_STATUS_SUCCESS && launch_ex != NULL && info->cc_major >= 9;
    if (st == HIPDNN_STATUS_SUCCESS)
        st = cu_check(cu.cuDevicePrimaryCtxRetain(&primary, dev), ns,
                      "cuDevicePrimaryCtxRetain(device %d)", dev);
    return st == HIPDNN_STATUS_SUCCESS ? bind_primary(ns) : st;
}

/* ---- compiler -------------------------------------------------------------------------------- */

/* Opens NVRTC from `name` (a soname or a path); true when every entry point is there. */
static bool try_nvrtc(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        return false;
    const char *missing = load_rtc(h);
    if (missing == NULL) {
        base_log_once(HIPDNN_SEV_INFO, "runtime: NVRTC from %s", name);
        return true;
    }
    base_log_once(HIPDNN_SEV_INFO, "runtime: %s has no %s", name, missing);
    dlclose(h);
    return false;
}

/* The loader's search path (ldconfig, LD_LIBRARY_PATH, a CUDA toolkit), then the files
 * rt_nvrtc_candidates names (HIPDNN_NVRTC_LIBRARY, pip's NVRTC wheels). */
static bool open_nvrtc(void)
{
    for (size_t i = 0; i < sizeof nvrtc_lib_names / sizeof nvrtc_lib_names[0]; i++)
        if (try_nvrtc(nvrtc_lib_names[i]))
            return true;
    char paths[16][PATH_MAX];
    int n = rt_nvrtc_candidates(paths, 16);
    for (int i = 0; i < n; i++)
        if (try_nvrtc(paths[i]))
            return true;
    return false;
}

static hipdnnStatus_t nv_compiler_init(rt_compiler_info *info)
{
    if (!open_nvrtc())
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "no run-time compiler found (tried libnvrtc.so, libnvrtc.so.13, "
                         "libnvrtc.so.12 on the loader's path, HIPDNN_NVRTC_LIBRARY, and pip's "
                         "nvidia-cuda-nvrtc wheels in virtualenv, conda, ~/.local, pyenv and "
                         "system site-packages)");
    memset(info, 0, sizeof *info);
    strcpy(info->id, "nvrtc");
    nvrtcResult r = rtc.nvrtcVersion(&info->major, &info->minor);
    return r == NVRTC_SUCCESS ? HIPDNN_STATUS_SUCCESS
                              : base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "nvrtcVersion: %s (%d)",
                                          nvrtc.error_string(r), r);
}

static hipdnnStatus_t nv_compile(const char *source, const char *program_name, const char *arch,
                                 const char *const *options, int n_options, void **code,
                                 size_t *code_len, char **log)
{
    return rt_rtc_compile(&nvrtc, source, program_name, arch, options, n_options, code, code_len, log);
}

/* ---- modules and launch ---------------------------------------------------------------------- */

static hipdnnStatus_t nv_module_load(const void *code, size_t code_len, void **module)
{
    CUmodule m = NULL;
    hipdnnStatus_t st = cu_check(cu.cuModuleLoadData(&m, code), HIPDNN_STATUS_INTERNAL_ERROR,
                                 "cuModuleLoadData(%zu bytes)", code_len);
    *module = m;
    return st;
}

static hipdnnStatus_t nv_module_function(void *module, const char *name, void **function)
{
    CUfunction f = NULL;
    hipdnnStatus_t st = cu_check(cu.cuModuleGetFunction(&f, module, name),
                                 HIPDNN_STATUS_INTERNAL_ERROR, "cuModuleGetFunction(\"%s\")", name);
    *function = f;
    return st;
}

static void nv_module_unload(void *module)
{
    CUresult r = cu.cuModuleUnload(module);
    if (r != CUDA_SUCCESS)
        base_log(HIPDNN_SEV_WARN, "runtime: cuModuleUnload failed (%d)", r);
}

static hipdnnStatus_t nv_set_max_smem(void *function, size_t bytes)
{
    return cu_check(cu.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          (int)bytes),
                    HIPDNN_STATUS_INTERNAL_ERROR,
                    "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %zu)", bytes);
}

static hipdnnStatus_t nv_launch(void *function, const unsigned g[3], const unsigned b[3],
                                size_t smem, void *stream, void **args)
{
    if (smem > UINT_MAX)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_launch: %zu bytes of shared memory", smem);
    return cu_check(cu.cuLaunchKernel(function, g[0], g[1], g[2], b[0], b[1], b[2],
                                      (unsigned)smem, stream, args, NULL),
                    HIPDNN_STATUS_EXECUTION_FAILED,
                    "cuLaunchKernel(grid %ux%ux%u, block %ux%ux%u, %zu B shared memory)", g[0],
                    g[1], g[2], b[0], b[1], b[2], smem);
}

/* Programmatic dependent launch (sm_90 and newer): the launch may begin while the stream's
 * previous kernel runs; the kernel's griddepcontrol.wait orders its reads after that kernel. */
static hipdnnStatus_t nv_launch_dependent(void *function, const unsigned g[3], const unsigned b[3],
                                          size_t smem, void *stream, void **args)
{
    if (!pdl)
        return nv_launch(function, g, b, smem, stream, args);
    if (smem > UINT_MAX)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_launch_dependent: %zu bytes of shared memory", smem);
    CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    attr.value.programmatic_stream_serialization_allowed = 1;
    CUlaunchConfig cfg = {.grid_x = g[0], .grid_y = g[1], .grid_z = g[2], .block_x = b[0], .block_y = b[1],
                          .block_z = b[2], .smem = (unsigned)smem, .stream = stream, .attrs = &attr, .n_attrs = 1};
    return cu_check(launch_ex(&cfg, function, args, NULL), HIPDNN_STATUS_EXECUTION_FAILED,
                    "cuLaunchKernelEx(programmatic stream serialization, grid %ux%ux%u, block %ux%ux%u, "
                    "%zu B shared memory)", g[0], g[1], g[2], b[0], b[1], b[2], smem);
}

/* A tiled tensor map of 1- or 2-byte elements, 128-byte swizzle, zeros out of range. */
static hipdnnStatus_t nv_tensor_map(void *map, const void *base, int rank, int elem_bytes,
                                    const uint64_t *dims, const uint64_t *strides,
                                    const uint32_t *box)
{
    if (encode_tiled == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "rt_tensor_map: %s has no "
                         "cuTensorMapEncodeTiled (a CUDA 12 driver or newer is needed)",
                         cuda_lib_name);
    unsigned long long d[RT_TENSOR_MAP_MAX_RANK] = {0}, s[RT_TENSOR_MAP_MAX_RANK] = {0};
    unsigned b[RT_TENSOR_MAP_MAX_RANK] = {0}, one[RT_TENSOR_MAP_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++) {
        d[i] = dims[i], b[i] = box[i], one[i] = 1;
        s[i] = i + 1 < rank ? strides[i] : 0;
    }
    int dtype = elem_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    return cu_check(encode_tiled(map, dtype, (unsigned)rank, (void *)base, d, s, b, one,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                    HIPDNN_STATUS_BAD_PARAM,
                    "cuTensorMapEncodeTiled(rank %d, dims %llu x %llu x %llu, strides %llu %llu "
                    "bytes, box %u x %u x %u)", rank, d[0], rank > 1 ? d[1] : 1,
                    rank > 2 ? d[2] : 1, rank > 1 ? s[0] : 0, rank > 2 ? s[1] : 0, b[0],
                    rank > 1 ? b[1] : 1, rank > 2 ? b[2] : 1);
}

/* ---- memory, streams, events --------------------------------------------------------------- */

static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

static hipdnnStatus_t nv_mem_alloc(void **p, size_t bytes)
{
    CUdeviceptr d = 0;
    hipdnnStatus_t st = cu_check(cu.cuMemAlloc_v2(&d, bytes),
                                 HIPDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED,
                                 "cuMemAlloc(%zu bytes)", bytes);
    *p = (void *)(uintptr_t)d;
    return st;
}

static void nv_mem_free(void *p)
{
    CUresult r = cu.cuMemFree_v2(dptr(p));
    if (r != CUDA_SUCCESS)
        base_log(HIPDNN_SEV_WARN, "runtime: cuMemFree(%p) failed (%d)", p, r);
}

static hipdnnStatus_t nv_memcpy_h2d(void *dst, const void *src, size_t bytes)
{
    return cu_check(cu.cuMemcpyHtoD_v2(dptr(dst), src, bytes), HIPDNN_STATUS_EXECUTION_FAILED,
                    "cuMemcpyHtoD(%p <- %p, %zu bytes)", dst, src, bytes);
}

static hipdnnStatus_t nv_memcpy_d2h(void *dst, const void *src, size_t bytes)
{
    return cu_check(cu.cuMemcpyDtoH_v2(dst, dptr(src), bytes), HIPDNN_STATUS_EXECUTION_FAILED,
                    "cuMemcpyDtoH(%p <- %p, %zu bytes)", dst, src, bytes);
}

static hipdnnStatus_t nv_mem_set(void *dst, int byte, size_t bytes)
{
    return cu_check(cu.cuMemsetD8_v2(dptr(dst), (unsigned char)byte, bytes),
                    HIPDNN_STATUS_EXECUTION_FAILED, "cuMemsetD8(%p, 0x%02x, %zu bytes)", dst,
                    (unsigned char)byte, bytes);
}

static hipdnnStatus_t nv_stream_sync(void *stream)
{
    if (stream == NULL)
        return cu_check(cu.cuCtxSynchronize(), HIPDNN_STATUS_EXECUTION_FAILED, "cuCtxSynchronize");
    return cu_check(cu.cuStreamSynchronize(stream), HIPDNN_STATUS_EXECUTION_FAILED,
                    "cuStreamSynchronize(%p)", stream);
}

static hipdnnStatus_t nv_event_create(void **event)
{
    CUevent e = NULL;
    hipdnnStatus_t st = cu_check(cu.cuEventCreate(&e, CU_EVENT_DEFAULT),
                                 HIPDNN_STATUS_INTERNAL_ERROR, "cuEventCreate");
    *event = e;
    return st;
}

static hipdnnStatus_t nv_event_record(void *event, void *stream)
{
    return cu_check(cu.cuEventRecord(event, stream), HIPDNN_STATUS_EXECUTION_FAILED,
                    "cuEventRecord(stream %p)", stream);
}

static hipdnnStatus_t nv_event_elapsed_ms(void *start, void *end, float *ms)
{
    hipdnnStatus_t st = cu_check(cu.cuEventSynchronize(end), HIPDNN_STATUS_EXECUTION_FAILED,
                                 "cuEventSynchronize");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    return cu_check(cu.cuEventElapsedTime(ms, start, end), HIPDNN_STATUS_EXECUTION_FAILED,
                    "cuEventElapsedTime");
}

static void nv_event_destroy(void *event)
{
    CUresult r = cu.cuEventDestroy_v2(event);
    if (r != CUDA_SUCCESS)
        base_log(HIPDNN_SEV_WARN, "runtime: cuEventDestroy failed (%d)", r);
}

/* One driver call: cuPointerGetAttributes answers every pointer, giving zeroes for memory it
 * does not know. Each attribute lands in a zeroed 8-byte slot: the driver writes a bool, an int
 * or an enum (little-endian, so the value reads the same whatever its width). */
static rt_ptr_kind nv_pointer_kind(const void *p)
{
    int attribs[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                      CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned long long type = 0, managed = 0, ordinal = 0;
    void *data[3] = {&type, &managed, &ordinal};
    if (cu.cuPointerGetAttributes(3, attribs, data, dptr(p)) != CUDA_SUCCESS)
        return RT_PTR_HOST;
    if (managed != 0)
        return RT_PTR_DEVICE;
    if (type == CU_MEMORYTYPE_DEVICE)
        return (int)ordinal == dev ? RT_PTR_DEVICE : RT_PTR_OTHER_DEVICE;
    return type == CU_MEMORYTYPE_HOST ? RT_PTR_HOST_MAPPED : RT_PTR_HOST;
}

/* ---- the table ------------------------------------------------------------------------------- */

static const rt_backend nvidia = {
    .version = RT_BACKEND_VERSION,
    .name = "nvidia",
    .driver_libs = cuda_lib_name,
    .arch_prefix = "sm_",
    .driver_present = nv_driver_present,
    .driver_init = nv_driver_init,
    .compiler_init = nv_compiler_init,
    .compile = nv_compile,
    .module_load = nv_module_load,
    .module_function = nv_module_function,
    .module_unload = nv_module_unload,
    .launch = nv_launch,
    .mem_alloc = nv_mem_alloc,
    .mem_free = nv_mem_free,
    .memcpy_h2d = nv_memcpy_h2d,
    .memcpy_d2h = nv_memcpy_d2h,
    .mem_set = nv_mem_set,
    .stream_sync = nv_stream_sync,
    .event_create = nv_event_create,
    .event_record = nv_event_record,
    .event_elapsed_ms = nv_event_elapsed_ms,
    .event_destroy = nv_event_destroy,
    .pointer_kind = nv_pointer_kind,
    .make_current = nv_make_current,
    .set_max_smem = nv_set_max_smem,
    .launch_dependent = nv_launch_dependent,
    .tensor_map = nv_tensor_map,
};

const rt_backend *rt_nvidia_backend(void) { return &nvidia; }
