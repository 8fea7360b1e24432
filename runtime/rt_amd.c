/* rt_amd.c — the AMD backend of runtime/: the HIP runtime (libamdhip64) and hipRTC, both loaded
 * with dlopen at first use. The only file that knows AMD.
 *
 * NOT YET RUN ON AN AMD GPU. What has run (Debian 12's HIP 5.2 packages, no GPU): loading, the
 * compile-only path (hipRTC to a code object for gfx90a, the compiler log on errors, the ISA
 * check below) and the failures without a device (hipInit's error, NOT_SUPPORTED). Everything
 * past rt_init — the device query, modules, launches, memory, events, pointer attributes — is
 * written from AMD's documentation and headers and has never executed.
 *
 * Owns: the few HIP and hipRTC types, constants and entry points it uses, declared here from
 * AMD's public documentation (no HIP header is needed to build); loading them; the device
 * (HIP's current device of the thread that initialised, made current on other threads); turning
 * every hipError_t / hipRTC result into a status and a message naming the call and the error.
 * Does not own: choosing a backend, argument checks, once-only initialisation (rt.c).
 *
 * Version notes (what differs between HIP releases and how this file copes):
 *   - hipRTC lives in libhiprtc.so from ROCm 5.3/6 on, inside libamdhip64 before: both are tried.
 *   - hipDeviceProp_t's layout changed in HIP 6 (hipGetDevicePropertiesR0600). Only gcnArchName
 *     is read from it, at the documented offset of the layout the entry point fills, checked to
 *     look like "gfx...", and searched for in the whole struct when it does not. Every number
 *     comes from hipDeviceGetAttribute (enum values stable since HIP 5.0).
 *   - hipMemoryType's values changed in HIP 6 (device: 1 before, 2 from 6.0 on); the runtime's
 *     version picks the one to compare with.
 *   - hiprtcVersion answers 9.0 in every release, so the compiler's version is HIP's.
 *   - An old hipRTC (5.2) crashes on a target it does not know (gfx942): the target is checked
 *     against the ISA list of the code-object manager (libamd_comgr) hipRTC uses, first.
 *
 * Threads: function pointers, `dev` and `mem_type_device` are written once, inside rt.c's
 * pthread_once / compiler lock, and only read afterwards. HIP's current device is per thread;
 * make_current sets ours on a thread whose current device differs (a framework thread bound to
 * another device is switched: our modules live on ours).
 * Libraries are never dlclose'd: the runtime must outlive every module and allocation.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_int.h"

/* ---- the HIP runtime API, as documented for hip_runtime_api.h -------------------------------- */
typedef int hipError_t; /* an enum; 0 is hipSuccess */
typedef int hipDevice_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;

enum { hipSuccess = 0 };
enum { /* hipDeviceAttribute_t (values of HIP 5.0 and later) */
    hipDeviceAttributeL2CacheSize = 19,
    hipDeviceAttributeComputeCapabilityMajor = 23,
    hipDeviceAttributeComputeCapabilityMinor = 61,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
    hipDeviceAttributeSharedMemPerBlockOptin = 75,
    hipDeviceAttributeWarpSize = 87,
};
enum { /* hipPointer_attribute */
    HIP_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    HIP_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
};
/* hipMemoryTypeDevice: 1 in HIP 5 (Host, Device, Array, Unified), 2 from HIP 6.0 on
 * (Unregistered, Host, Device, Managed). */
enum { HIP_MEMORY_TYPE_DEVICE_V5 = 1, HIP_MEMORY_TYPE_DEVICE_V6 = 2 };
/* offsetof(hipDeviceProp_t, gcnArchName): the layout hipGetDeviceProperties fills before HIP 6
 * (R0000), and hipGetDevicePropertiesR0600's. The struct is smaller than PROPS_BYTES in both. */
enum { GCN_ARCH_NAME_R0000 = 396, GCN_ARCH_NAME_R0600 = 1160, GCN_ARCH_NAME_LEN = 256 };
enum { PROPS_BYTES = 8192 };

/* Enum parameters are passed as int, hipDeviceptr_t (void *) as void *: the same in the C ABI. */
#define HIP_API(X)                                                                              \
    X(hipInit, (unsigned flags))                                                                \
    X(hipGetDeviceCount, (int *count))                                                          \
    X(hipGetDevice, (int *device))                                                              \
    X(hipSetDevice, (int device))                                                               \
    X(hipDeviceGetAttribute, (int *value, int attrib, int device))                              \
    X(hipDeviceGetName, (char *name, int len, hipDevice_t dev))                                 \
    X(hipDeviceTotalMem, (size_t * bytes, hipDevice_t dev))                                     \
    X(hipRuntimeGetVersion, (int *version))                                                     \
    X(hipDeviceSynchronize, (void))                                                             \
    X(hipModuleLoadData, (hipModule_t * mod, const void *image))                                \
    X(hipModuleUnload, (hipModule_t mod))                                                       \
    X(hipModuleGetFunction, (hipFunction_t * f, hipModule_t mod, const char *name))             \
    X(hipModuleLaunchKernel, (hipFunction_t f, unsigned gx, unsigned gy, unsigned gz,           \
                              unsigned bx, unsigned by, unsigned bz, unsigned smem,             \
                              hipStream_t stream, void **params, void **extra))                 \
    X(hipMalloc, (void **p, size_t bytes))                                                      \
    X(hipFree, (void *p))                                                                       \
    X(hipMemcpyHtoD, (void *dst, const void *src, size_t bytes))                                \
    X(hipMemcpyDtoH, (void *dst, void *src, size_t bytes))                                      \
    X(hipMemsetD8, (void *dst, unsigned char value, size_t n))                                  \
    X(hipStreamSynchronize, (hipStream_t stream))                                               \
    X(hipEventCreate, (hipEvent_t * e))                                                         \
    X(hipEventRecord, (hipEvent_t e, hipStream_t stream))                                       \
    X(hipEventSynchronize, (hipEvent_t e))                                                      \
    X(hipEventElapsedTime, (float *ms, hipEvent_t start, hipEvent_t end))                       \
    X(hipEventDestroy, (hipEvent_t e))                                                          \
    X(hipPointerGetAttribute, (void *data, int attrib, void *p))                                \
    X(hipGetLastError, (void))

/* ---- hipRTC, as documented for hiprtc.h: the shared compile driver's entry points (rt_rtc.c),
 * named in `hiprtc` below ------------------------------------------------------------------------ */

/* ---- the code-object manager (amd_comgr.h): only its list of targets ------------------------- */
typedef int (*comgr_isa_count_fn)(size_t *count);
typedef int (*comgr_isa_name_fn)(size_t index, const char **name);

#define DECLARE_HIP(name, params) typedef hipError_t(*name##_fn) params;
#define FIELD(name, params) name##_fn name;
HIP_API(DECLARE_HIP)

static struct {
    HIP_API(FIELD)
    const char *(*hipGetErrorName)(hipError_t r);
    const char *(*hipGetErrorString)(hipError_t r);
} hip;
static rt_rtc hiprtc = {
    .compiler = "hiprtc", .arch_option = "--offload-arch=", .options = {"-std=c++17", "-O3"},
    .code_name = "code object", .default_name = "hipdnn_jit.hip",
    .one_at_a_time = true, /* Debian's hipRTC 5.2 crashes when two threads compile at once */
    .names = {"hiprtcCreateProgram", "hiprtcCompileProgram", "hiprtcGetProgramLogSize",
              "hiprtcGetProgramLog", "hiprtcGetCodeSize", "hiprtcGetCode", "hiprtcDestroyProgram",
              "hiprtcGetErrorString"},
};
static struct {
    comgr_isa_count_fn isa_count; /* NULL: no ISA list, the target is not checked */
    comgr_isa_name_fn isa_name;
    const char *lib;              /* the library hipRTC was found in */
} rtc;

#define HIP_LIB_NAMES "libamdhip64.so, libamdhip64.so.7, libamdhip64.so.6, libamdhip64.so.5"
static const char *const hip_lib_names[] = {"libamdhip64.so", "libamdhip64.so.7",
                                            "libamdhip64.so.6", "libamdhip64.so.5"};
static const char *const hiprtc_lib_names[] = {"libhiprtc.so", "libhiprtc.so.7", "libhiprtc.so.6",
                                               "libhiprtc.so.5"};
static const char *const comgr_lib_names[] = {"libamd_comgr.so.3", "libamd_comgr.so.2"};
enum { N_HIP_LIBS = sizeof hip_lib_names / sizeof hip_lib_names[0] };
enum { N_RTC_LIBS = sizeof hiprtc_lib_names / sizeof hiprtc_lib_names[0] };
enum { N_COMGR_LIBS = sizeof comgr_lib_names / sizeof comgr_lib_names[0] };

static pthread_once_t hip_open_once = PTHREAD_ONCE_INIT;
static void *hip_lib;            /* dlopen handle of libamdhip64, NULL when none loads */
static const char *hip_lib_name; /* which name loaded */
static int dev;                  /* the device rt_init picked */
static int mem_type_device;      /* hipMemoryTypeDevice of the loaded runtime */

/* ---- errors ---------------------------------------------------------------------------------- */

static const char *hip_error_name(hipError_t r)
{
    const char *s = hip.hipGetErrorName != NULL ? hip.hipGetErrorName(r) : NULL;
    return s != NULL ? s : "HIP error";
}

/* Raises st with "<what>: <hipErrorName> (<code>): <text>" unless r is success. The runtime's
 * per-thread last error is consumed: the failure is reported here, and a framework checking
 * hipGetLastError after its own launches must not take it for its own. */
static hipdnnStatus_t hip_check(hipError_t r, hipdnnStatus_t st, const char *fmt, ...)
    BASE_PRINTF(3, 4);
static hipdnnStatus_t hip_check(hipError_t r, hipdnnStatus_t st, const char *fmt, ...)
{
    if (r == hipSuccess)
        return HIPDNN_STATUS_SUCCESS;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *name = hip_error_name(r);
    const char *text = hip.hipGetErrorString != NULL ? hip.hipGetErrorString(r) : NULL;
    if (hip.hipGetLastError != NULL)
        (void)hip.hipGetLastError();
    if (text == NULL || strcmp(text, name) == 0)
        return base_fail(st, "%s: %s (%d)", what, name, r);
    return base_fail(st, "%s: %s (%d): %s", what, name, r, text);
}

/* ---- loading --------------------------------------------------------------------------------- */

/* Fills the table from h; the name of the first missing entry point, or NULL. */
#define LOAD(table, name)                                    \
    if ((table.name = (name##_fn)dlsym(h, #name)) == NULL) \
        return #name;
#define LOAD_HIP(name, params) LOAD(hip, name)

static const char *load_hip(void *h)
{
    HIP_API(LOAD_HIP)
    hip.hipGetErrorName = (const char *(*)(hipError_t))dlsym(h, "hipGetErrorName");
    hip.hipGetErrorString = (const char *(*)(hipError_t))dlsym(h, "hipGetErrorString");
    return hip.hipGetErrorName == NULL ? "hipGetErrorName" : NULL;
}

static void open_hip(void)
{
    for (int i = 0; i < N_HIP_LIBS && hip_lib == NULL; i++)
        if ((hip_lib = dlopen(hip_lib_names[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
            hip_lib_name = hip_lib_names[i];
    if (hip_lib == NULL)
        base_log_once(HIPDNN_SEV_INFO, "runtime: no HIP runtime (tried " HIP_LIB_NAMES ")");
}

static bool amd_driver_present(void)
{
    pthread_once(&hip_open_once, open_hip);
    return hip_lib != NULL;
}

/* ---- device ---------------------------------------------------------------------------------- */

static hipdnnStatus_t amd_make_current(void)
{
    int cur = -1;
    hipdnnStatus_t st = hip_check(hip.hipGetDevice(&cur), HIPDNN_STATUS_INTERNAL_ERROR,
                                  "hipGetDevice");
    if (st != HIPDNN_STATUS_SUCCESS || cur == dev)
        return st;
    return hip_check(hip.hipSetDevice(dev), HIPDNN_STATUS_INTERNAL_ERROR, "hipSetDevice(%d)", dev);
}

/* "gfx942" from "gfx942:sramecc+:xnack-" at s (at most n bytes); false when s is not a target. */
static bool arch_from(const char *s, size_t n, char *out, size_t out_len)
{
    size_t len = 0;
    if (n < 4 || strncmp(s, "gfx", 3) != 0 || !isalnum((unsigned char)s[3]))
        return false;
    while (len < n && isalnum((unsigned char)s[len]))
        len++;
    if (len == n || (s[len] != '\0' && s[len] != ':') || len >= out_len)
        return false;
    memcpy(out, s, len);
    out[len] = '\0';
    return true;
}

/* The first NUL-preceded "gfx..." string in the struct: for a layout this file does not know. */
static bool arch_search(const char *props, size_t n, char *out, size_t out_len)
{
    for (size_t i = 0; i + 4 < n; i++)
        if ((i == 0 || props[i - 1] == '\0') && arch_from(props + i, n - i, out, out_len))
            return true;
    return false;
}

/* gcnArchName of the device, without its feature suffixes. */
static hipdnnStatus_t query_arch(char *arch, size_t arch_len)
{
    typedef hipError_t (*props_fn)(void *props, int device);
    static const struct {
        const char *entry;
        size_t offset;
    } layouts[] = {{"hipGetDevicePropertiesR0600", GCN_ARCH_NAME_R0600},
                   {"hipGetDevicePropertiesR0000", GCN_ARCH_NAME_R0000},
                   {"hipGetDeviceProperties", GCN_ARCH_NAME_R0000}};
    static char props[PROPS_BYTES]; /* only touched inside rt.c's pthread_once */
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        props_fn get = (props_fn)dlsym(hip_lib, layouts[i].entry);
        if (get == NULL)
            continue;
        memset(props, 0, sizeof props);
        hipdnnStatus_t st = hip_check(get(props, dev), HIPDNN_STATUS_NOT_SUPPORTED, "%s(device %d)",
                                      layouts[i].entry, dev);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        if (arch_from(props + layouts[i].offset, GCN_ARCH_NAME_LEN, arch, arch_len))
            return HIPDNN_STATUS_SUCCESS;
        if (arch_search(props, sizeof props, arch, arch_len)) {
            base_log(HIPDNN_SEV_WARN, "runtime: %s: gcnArchName not at its documented offset %zu; "
                     "found \"%s\" elsewhere", layouts[i].entry, layouts[i].offset, arch);
            return HIPDNN_STATUS_SUCCESS;
        }
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "%s(device %d) gave no gcnArchName (\"gfx...\")", layouts[i].entry, dev);
    }
    return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s has no hipGetDeviceProperties", hip_lib_name);
}

static const struct {
    int attrib;
    const char *name;
} dev_attrs[] = {
    {hipDeviceAttributeComputeCapabilityMajor, "ComputeCapabilityMajor"},
    {hipDeviceAttributeComputeCapabilityMinor, "ComputeCapabilityMinor"},
    {hipDeviceAttributeMultiprocessorCount, "MultiprocessorCount"},
    {hipDeviceAttributeWarpSize, "WarpSize"},
    {hipDeviceAttributeMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock"},
    {hipDeviceAttributeL2CacheSize, "L2CacheSize"},
};
enum { N_DEV_ATTRS = sizeof dev_attrs / sizeof dev_attrs[0] };

static hipdnnStatus_t query_device(rt_device_info *o)
{
    const hipdnnStatus_t ns = HIPDNN_STATUS_NOT_SUPPORTED;
    int v[N_DEV_ATTRS], optin = 0;
    memset(o, 0, sizeof *o);
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < N_DEV_ATTRS && st == HIPDNN_STATUS_SUCCESS; i++)
        st = hip_check(hip.hipDeviceGetAttribute(&v[i], dev_attrs[i].attrib, dev), ns,
                       "hipDeviceGetAttribute(%s, device %d)", dev_attrs[i].name, dev);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hip_check(hip.hipDeviceGetName(o->name, (int)sizeof o->name, dev), ns,
                       "hipDeviceGetName(device %d)", dev);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hip_check(hip.hipDeviceTotalMem(&o->total_mem, dev), ns,
                       "hipDeviceTotalMem(device %d)", dev);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = query_arch(o->arch, sizeof o->arch);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    o->cc_major = v[0], o->cc_minor = v[1], o->sm_count = v[2], o->warp_size = v[3];
    o->smem_per_block = (size_t)v[4], o->l2_bytes = (size_t)v[5];
    /* AMD needs no opt-in: a kernel may use what the device allows per block (the larger
     * answer, where a runtime gives SharedMemPerBlockOptin at all). */
    if (hip.hipDeviceGetAttribute(&optin, hipDeviceAttributeSharedMemPerBlockOptin, dev) != hipSuccess) {
        (void)hip.hipGetLastError();
        optin = 0;
    }
    o->smem_per_block_optin = (size_t)optin > o->smem_per_block ? (size_t)optin : o->smem_per_block;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t pick_device(void)
{
    const hipdnnStatus_t ns = HIPDNN_STATUS_NOT_SUPPORTED;
    int n = 0;
    hipdnnStatus_t st = hip_check(hip.hipGetDeviceCount(&n), ns, "hipGetDeviceCount");
    if (st == HIPDNN_STATUS_SUCCESS && n <= 0)
        return base_fail(ns, "no AMD GPU (hipGetDeviceCount gives %d)", n);
    /* The calling thread's current device: 0 unless a framework chose another. */
    return st != HIPDNN_STATUS_SUCCESS ? st : hip_check(hip.hipGetDevice(&dev), ns, "hipGetDevice");
}

static hipdnnStatus_t amd_driver_init(rt_device_info *info)
{
    const hipdnnStatus_t ns = HIPDNN_STATUS_NOT_SUPPORTED;
    const char *missing = load_hip(hip_lib);
    if (missing != NULL)
        return base_fail(ns, "%s has no %s (HIP too old?)", hip_lib_name, missing);
    int version = 0;
    hipdnnStatus_t st = hip_check(hip.hipInit(0), ns, "hipInit (%s loaded; no usable AMD GPU?)",
                                  hip_lib_name);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hip_check(hip.hipRuntimeGetVersion(&version), ns, "hipRuntimeGetVersion");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = pick_device();
    if (st == HIPDNN_STATUS_SUCCESS)
        st = query_device(info);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    mem_type_device = version >= 60000000 ? HIP_MEMORY_TYPE_DEVICE_V6 : HIP_MEMORY_TYPE_DEVICE_V5;
    return hip_check(hip.hipSetDevice(dev), ns, "hipSetDevice(%d)", dev);
}

/* ---- compiler -------------------------------------------------------------------------------- */

/* hipRTC: its own library, else inside libamdhip64 (HIP 5). The library's name, or NULL. */
static const char *open_hiprtc(void)
{
    const char *missing = NULL;
    for (int i = 0; i < N_RTC_LIBS + N_HIP_LIBS; i++) {
        const char *name = i < N_RTC_LIBS ? hiprtc_lib_names[i] : hip_lib_names[i - N_RTC_LIBS];
        void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL)
            continue;
        if ((missing = rt_rtc_load(&hiprtc, h)) == NULL)
            return name;
        if (i < N_RTC_LIBS)
            base_log_once(HIPDNN_SEV_INFO, "runtime: %s has no %s", name, missing);
        dlclose(h);
    }
    return NULL;
}

/* The ISA list of the code-object manager hipRTC loaded (else of the one installed). */
static void open_comgr(void)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < N_COMGR_LIBS; i++) {
            void *h = dlopen(comgr_lib_names[i], RTLD_NOW | RTLD_LOCAL | (pass ? 0 : RTLD_NOLOAD));
            if (h == NULL)
                continue;
            rtc.isa_count = (comgr_isa_count_fn)dlsym(h, "amd_comgr_get_isa_count");
            rtc.isa_name = (comgr_isa_name_fn)dlsym(h, "amd_comgr_get_isa_name");
            if (rtc.isa_count != NULL && rtc.isa_name != NULL)
                return;
            rtc.isa_count = NULL, rtc.isa_name = NULL;
            dlclose(h);
        }
}

/* HIP's version (major, minor): hiprtcVersion answers 9.0 whatever the release. */
static void hip_version(rt_compiler_info *info)
{
    typedef hipError_t (*version_fn)(int *v);
    pthread_once(&hip_open_once, open_hip);
    version_fn get = hip_lib != NULL ? (version_fn)dlsym(hip_lib, "hipRuntimeGetVersion") : NULL;
    int v = 0;
    if (get != NULL && get(&v) == hipSuccess && v > 0) {
        info->major = v / 10000000, info->minor = v / 100000 % 100;
        return;
    }
    base_log(HIPDNN_SEV_WARN, "runtime: HIP's version is unknown; compiler version 0.0");
}

static hipdnnStatus_t amd_compiler_init(rt_compiler_info *info)
{
    if ((rtc.lib = open_hiprtc()) == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "no run-time compiler found (tried libhiprtc.so, libhiprtc.so.7, "
                         "libhiprtc.so.6, libhiprtc.so.5 and hipRTC inside " HIP_LIB_NAMES ")");
    open_comgr();
    memset(info, 0, sizeof *info);
    strcpy(info->id, "hiprtc");
    hip_version(info);
    base_log_once(HIPDNN_SEV_INFO, "runtime: hipRTC from %s, HIP %d.%d%s", rtc.lib, info->major,
             info->minor, rtc.isa_count ? "" : " (no ISA list: targets are not checked)");
    return HIPDNN_STATUS_SUCCESS;
}

/* Whether the compiler knows the target (its ISA list names amdgcn-amd-amdhsa--<arch>[:...]). */
static bool known_target(const char *arch)
{
    static const char prefix[] = "amdgcn-amd-amdhsa--";
    size_t n = 0, len = strcspn(arch, ":");
    if (rtc.isa_count == NULL || rtc.isa_count(&n) != 0)
        return true; /* no list: hipRTC decides */
    for (size_t i = 0; i < n; i++) {
        const char *isa = NULL;
        if (rtc.isa_name(i, &isa) != 0 || isa == NULL || strncmp(isa, prefix, sizeof prefix - 1))
            continue;
        isa += sizeof prefix - 1;
        if (strncmp(isa, arch, len) == 0 && (isa[len] == '\0' || isa[len] == ':'))
            return true;
    }
    return false;
}

static hipdnnStatus_t amd_compile(const char *source, const char *program_name, const char *arch,
                                  const char *const *options, int n_options, void **code,
                                  size_t *code_len, char **log)
{
    if (!known_target(arch))
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "hiprtc (%s): the code-object manager knows no target \"%s\" (ROCm too "
                         "old for it?)", rtc.lib, arch);
    return rt_rtc_compile(&hiprtc, source, program_name, arch, options, n_options, code, code_len, log);
}

/* ---- modules and launch ---------------------------------------------------------------------- */

static hipdnnStatus_t amd_module_load(const void *code, size_t code_len, void **module)
{
    hipModule_t m = NULL;
    hipdnnStatus_t st = hip_check(hip.hipModuleLoadData(&m, code), HIPDNN_STATUS_INTERNAL_ERROR,
                                  "hipModuleLoadData(%zu bytes)", code_len);
    *module = st == HIPDNN_STATUS_SUCCESS ? m : NULL;
    return st;
}

static hipdnnStatus_t amd_module_function(void *module, const char *name, void **function)
{
    hipFunction_t f = NULL;
    hipdnnStatus_t st = hip_check(hip.hipModuleGetFunction(&f, module, name),
                                  HIPDNN_STATUS_INTERNAL_ERROR, "hipModuleGetFunction(\"%s\")", name);
    *function = st == HIPDNN_STATUS_SUCCESS ? f : NULL;
    return st;
}

static void amd_module_unload(void *module)
{
    hipError_t r = hip.hipModuleUnload(module);
    if (r != hipSuccess)
        base_log(HIPDNN_SEV_WARN, "runtime: hipModuleUnload failed: %s (%d)", hip_error_name(r), r);
}

static hipdnnStatus_t amd_launch(void *function, const unsigned g[3], const unsigned b[3],
                                 size_t smem, void *stream, void **args)
{
    if (smem > UINT_MAX)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_launch: %zu bytes of shared memory", smem);
    return hip_check(hip.hipModuleLaunchKernel(function, g[0], g[1], g[2], b[0], b[1], b[2],
                                               (unsigned)smem, stream, args, NULL),
                     HIPDNN_STATUS_EXECUTION_FAILED,
                     "hipModuleLaunchKernel(grid %ux%ux%u, block %ux%ux%u, %zu B shared memory)",
                     g[0], g[1], g[2], b[0], b[1], b[2], smem);
}

/* ---- memory, streams, events --------------------------------------------------------------- */

static hipdnnStatus_t amd_mem_alloc(void **p, size_t bytes)
{
    hipdnnStatus_t st = hip_check(hip.hipMalloc(p, bytes),
                                  HIPDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED,
                                  "hipMalloc(%zu bytes)", bytes);
    if (st != HIPDNN_STATUS_SUCCESS)
        *p = NULL;
    return st;
}

static void amd_mem_free(void *p)
{
    hipError_t r = hip.hipFree(p);
    if (r != hipSuccess)
        base_log(HIPDNN_SEV_WARN, "runtime: hipFree(%p) failed: %s (%d)", p, hip_error_name(r), r);
}

static hipdnnStatus_t amd_memcpy_h2d(void *dst, const void *src, size_t bytes)
{
    return hip_check(hip.hipMemcpyHtoD(dst, src, bytes), HIPDNN_STATUS_EXECUTION_FAILED,
                     "hipMemcpyHtoD(%p <- %p, %zu bytes)", dst, src, bytes);
}

static hipdnnStatus_t amd_memcpy_d2h(void *dst, const void *src, size_t bytes)
{
    return hip_check(hip.hipMemcpyDtoH(dst, (void *)(uintptr_t)src, bytes),
                     HIPDNN_STATUS_EXECUTION_FAILED, "hipMemcpyDtoH(%p <- %p, %zu bytes)", dst, src,
                     bytes);
}

static hipdnnStatus_t amd_mem_set(void *dst, int byte, size_t bytes)
{
    return hip_check(hip.hipMemsetD8(dst, (unsigned char)byte, bytes),
                     HIPDNN_STATUS_EXECUTION_FAILED, "hipMemsetD8(%p, 0x%02x, %zu bytes)", dst,
                     (unsigned char)byte, bytes);
}

static hipdnnStatus_t amd_stream_sync(void *stream)
{
    if (stream == NULL)
        return hip_check(hip.hipDeviceSynchronize(), HIPDNN_STATUS_EXECUTION_FAILED,
                         "hipDeviceSynchronize");
    return hip_check(hip.hipStreamSynchronize(stream), HIPDNN_STATUS_EXECUTION_FAILED,
                     "hipStreamSynchronize(%p)", stream);
}

static hipdnnStatus_t amd_event_create(void **event)
{
    hipEvent_t e = NULL; /* hipEventCreate: timing enabled */
    hipdnnStatus_t st = hip_check(hip.hipEventCreate(&e), HIPDNN_STATUS_INTERNAL_ERROR,
                                  "hipEventCreate");
    *event = st == HIPDNN_STATUS_SUCCESS ? e : NULL;
    return st;
}

static hipdnnStatus_t amd_event_record(void *event, void *stream)
{
    return hip_check(hip.hipEventRecord(event, stream), HIPDNN_STATUS_EXECUTION_FAILED,
                     "hipEventRecord(stream %p)", stream);
}

static hipdnnStatus_t amd_event_elapsed_ms(void *start, void *end, float *ms)
{
    hipdnnStatus_t st = hip_check(hip.hipEventSynchronize(end), HIPDNN_STATUS_EXECUTION_FAILED,
                                  "hipEventSynchronize");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    return hip_check(hip.hipEventElapsedTime(ms, start, end), HIPDNN_STATUS_EXECUTION_FAILED,
                     "hipEventElapsedTime");
}

static void amd_event_destroy(void *event)
{
    hipError_t r = hip.hipEventDestroy(event);
    if (r != hipSuccess)
        base_log(HIPDNN_SEV_WARN, "runtime: hipEventDestroy failed: %s (%d)", hip_error_name(r), r);
}

/* An attribute read into a zeroed 8-byte slot: the runtime writes an int, a bool or an enum
 * (little-endian, so the value reads the same whatever its width). Plain host memory is an
 * error; it is consumed, not left for a framework's hipGetLastError. */
static bool ptr_attr(const void *p, int attrib, unsigned long long *v)
{
    *v = 0;
    if (hip.hipPointerGetAttribute(v, attrib, (void *)(uintptr_t)p) == hipSuccess)
        return true;
    (void)hip.hipGetLastError();
    return false;
}

/* hipMemoryTypeHost is one below hipMemoryTypeDevice in HIP 5 (0) and 6 (1); plain host memory
 * is an error for hipPointerGetAttribute. Pageable-memory access is not queried (off). */
static rt_ptr_kind amd_pointer_kind(const void *p)
{
    unsigned long long v = 0;
    if (ptr_attr(p, HIP_POINTER_ATTRIBUTE_IS_MANAGED, &v) && v != 0)
        return RT_PTR_DEVICE;
    if (!ptr_attr(p, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, &v))
        return RT_PTR_HOST;
    if (v == (unsigned)mem_type_device - 1)
        return RT_PTR_HOST_MAPPED;
    if (v != (unsigned)mem_type_device)
        return RT_PTR_HOST;
    return ptr_attr(p, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, &v) && (int)v == dev ? RT_PTR_DEVICE
                                                                                  : RT_PTR_OTHER_DEVICE;
}

/* ---- the table ------------------------------------------------------------------------------- */

static const rt_backend amd = {
    .version = RT_BACKEND_VERSION,
    .name = "amd",
    .driver_libs = HIP_LIB_NAMES,
    .arch_prefix = "gfx",
    .driver_present = amd_driver_present,
    .driver_init = amd_driver_init,
    .compiler_init = amd_compiler_init,
    .compile = amd_compile,
    .module_load = amd_module_load,
    .module_function = amd_module_function,
    .module_unload = amd_module_unload,
    .launch = amd_launch,
    .mem_alloc = amd_mem_alloc,
    .mem_free = amd_mem_free,
    .memcpy_h2d = amd_memcpy_h2d,
    .memcpy_d2h = amd_memcpy_d2h,
    .mem_set = amd_mem_set,
    .stream_sync = amd_stream_sync,
    .event_create = amd_event_create,
    .event_record = amd_event_record,
    .event_elapsed_ms = amd_event_elapsed_ms,
    .event_destroy = amd_event_destroy,
    .pointer_kind = amd_pointer_kind,
    .make_current = amd_make_current,
    .set_max_smem = NULL, /* no opt-in on AMD */
};

const rt_backend *rt_amd_backend(void) { return &amd; }
