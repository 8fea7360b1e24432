/* fault_rt.c — the fake GPU runtime of the fault tests (contract: fault_rt.h).
 *
 * Owns: a backend table (runtime/rt_int.h) for a device emulated in host memory — allocations,
 * copies, modules and their functions, launches that are checked and traced but run nothing,
 * events, streams (all work is done when it is issued), the per-thread context binding; the
 * numbering of every call that can fail and the one injected failure. State is behind one mutex.
 * Does not own: the compiler (fault_rtc.c), which calls the library makes (the tests drive it
 * through the public API).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_rt_int.h"

#define MAX_FNS 16
#define DEFAULT_SMEM (48u * 1024)
#define OPTIN_SMEM (227u * 1024)

const char *const fault_rt_call_names[N_CALLS] = {
    "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
    "nvrtcGetCUBINSize", "nvrtcGetCUBIN", "cuModuleLoadData", "cuModuleGetFunction",
    "cuFuncSetAttribute", "cuLaunchKernel", "cuTensorMapEncodeTiled", "cuMemAlloc", "cuMemcpyHtoD",
    "cuMemcpyDtoH", "cuMemsetD8", "cuStreamSynchronize", "cuEventCreate", "cuEventRecord",
    "cuEventElapsedTime", "cuCtxGetCurrent"};

typedef struct fake_module fake_module;
typedef struct fake_fn {
    fake_module *m;
    char name[64];
    size_t max_smem; /* dynamic shared memory it may use */
} fake_fn;
struct fake_module {
    char *code; /* NUL-terminated copy of the code object */
    fake_fn fns[MAX_FNS];
    int n_fns;
    fake_module *next;
};
typedef struct fake_alloc {
    char *p;
    size_t n;
} fake_alloc;
typedef struct fake_event {
    long stamp; /* 0: never recorded */
} fake_event;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long n_calls, fail_at, per_call[N_CALLS];
static fault_rt_fault last;
static fake_alloc *allocs;
static size_t n_allocs, cap_allocs, alloc_bytes;
static fake_module *modules;
static long n_modules, n_events, clock_ticks;
static char *trace;
static size_t trace_len, trace_cap;

/* ---- numbering and injection ----------------------------------------------------------------------- */

/* Counts a call of kind c; true when it is the one to fail (recorded with the status it raises). */
bool fault_rt_inject(int c, hipdnnStatus_t st)
{
    pthread_mutex_lock(&mu);
    per_call[c]++;
    bool fail = ++n_calls == fail_at;
    if (fail) {
        last.count++;
        last.call = fault_rt_call_names[c];
        last.status = st;
    }
    pthread_mutex_unlock(&mu);
    return fail;
}

/* The driver's failure: "<call>(<detail>): <error name> (<code>): <text>". */
static hipdnnStatus_t cu_fail(hipdnnStatus_t st, int c, const char *detail, const char *err, int code)
{
    return base_fail(st, "%s(%s): %s (%d): injected by the fault tests' runtime (call %ld)", fault_rt_call_names[c],
                     detail, err, code, n_calls);
}

#define INJECT(c, st, detail, err, code)                                                     \
    do {                                                                                     \
        if (fault_rt_inject(c, st))                                                                   \
            return cu_fail(st, c, detail, err, code);                                         \
    } while (0)

void fault_rt_fail_at(long nth)
{
    pthread_mutex_lock(&mu);
    fail_at = nth > 0 ? n_calls + nth : 0;
    pthread_mutex_unlock(&mu);
}

long fault_rt_calls(void)
{
    pthread_mutex_lock(&mu);
    long n = n_calls;
    pthread_mutex_unlock(&mu);
    return n;
}

fault_rt_fault fault_rt_last_fault(void)
{
    pthread_mutex_lock(&mu);
    fault_rt_fault f = last;
    pthread_mutex_unlock(&mu);
    return f;
}

fault_rt_live fault_rt_live_now(void)
{
    pthread_mutex_lock(&mu);
    fault_rt_live l = {.allocs = (long)n_allocs, .modules = n_modules, .events = n_events,
                       .programs = fault_rtc_programs(), .bytes = alloc_bytes};
    pthread_mutex_unlock(&mu);
    return l;
}

const char *fault_rt_counts(void)
{
    static char buf[1024];
    size_t used = 0;
    pthread_mutex_lock(&mu);
    for (int c = 0; c < N_CALLS && used < sizeof buf; c++)
        if (per_call[c] > 0)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s %ld", used ? ", " : "",
                                     fault_rt_call_names[c], per_call[c]);
    pthread_mutex_unlock(&mu);
    return buf;
}

/* ---- the device ----------------------------------------------------------------------------------------- */

static bool fake_driver_present(void) { return true; }

static hipdnnStatus_t fake_driver_init(rt_device_info *info)
{
    *info = (rt_device_info){.cc_major = 9, .cc_minor = 0, .sm_count = 132, .warp_size = 32,
                             .smem_per_block = DEFAULT_SMEM, .smem_per_block_optin = OPTIN_SMEM,
                             .l2_bytes = 50u << 20, .total_mem = (size_t)80 << 30};
    snprintf(info->name, sizeof info->name, "fault_rt emulated H200");
    snprintf(info->arch, sizeof info->arch, "sm_90");
    return HIPDNN_STATUS_SUCCESS;
}

/* The live allocation holding [p, p + n), or NULL (mu held). */
static fake_alloc *alloc_of(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    for (size_t i = 0; i < n_allocs; i++) {
        uintptr_t lo = (uintptr_t)allocs[i].p;
        if (a >= lo && a - lo <= allocs[i].n && allocs[i].n - (a - lo) >= n && (n > 0 || a < lo + allocs[i].n))
            return &allocs[i];
    }
    return NULL;
}

static hipdnnStatus_t fake_mem_alloc(void **p, size_t bytes)
{
    *p = NULL;
    char detail[48];
    snprintf(detail, sizeof detail, "%zu bytes", bytes);
    INJECT(C_MEM_ALLOC, HIPDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, detail, "CUDA_ERROR_OUT_OF_MEMORY", 2);
    char *m = malloc(bytes);
    pthread_mutex_lock(&mu);
    bool room = n_allocs < cap_allocs;
    if (!room && m != NULL) {
        size_t cap = cap_allocs ? 2 * cap_allocs : 64;
        fake_alloc *v = realloc(allocs, cap * sizeof *v);
        if (v != NULL)
            allocs = v, cap_allocs = cap, room = true;
    }
    if (m != NULL && room) {
        allocs[n_allocs++] = (fake_alloc){m, bytes};
        alloc_bytes += bytes;
        *p = m;
    }
    pthread_mutex_unlock(&mu);
    if (*p == NULL) {
        free(m);
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, "cuMemAlloc(%zu bytes): host "
                         "memory for the emulated device ran out", bytes);
    }
    return HIPDNN_STATUS_SUCCESS;
}

static void fake_mem_free(void *p)
{
    pthread_mutex_lock(&mu);
    fake_alloc *a = alloc_of(p, 0);
    bool start = a != NULL && a->p == p;
    if (start) {
        alloc_bytes -= a->n;
        *a = allocs[--n_allocs];
    }
    pthread_mutex_unlock(&mu);
    cr_assert(start, "cuMemFree(%p): not an allocation of the emulated device", p);
    free(p);
}

/* A copy or fill (src NULL: fill with `byte`) whose device side, dev, must lie inside one live
 * allocation. */
static hipdnnStatus_t transfer(int c, void *dst, const void *src, int byte, size_t bytes, const void *dev)
{
    INJECT(c, HIPDNN_STATUS_EXECUTION_FAILED, "", "CUDA_ERROR_LAUNCH_FAILED", 719);
    pthread_mutex_lock(&mu);
    bool ok = alloc_of(dev, bytes) != NULL;
    pthread_mutex_unlock(&mu);
    if (!ok)
        return base_fail(HIPDNN_STATUS_EXECUTION_FAILED, "%s(%p, %zu bytes): CUDA_ERROR_INVALID_VALUE (1): not "
                         "inside one allocation of the emulated device", fault_rt_call_names[c], dev, bytes);
    if (src != NULL)
        memcpy(dst, src, bytes);
    else
        memset(dst, byte, bytes);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t fake_memcpy_h2d(void *dst, const void *src, size_t bytes)
{
    return transfer(C_MEMCPY_H2D, dst, src, 0, bytes, dst);
}

static hipdnnStatus_t fake_memcpy_d2h(void *dst, const void *src, size_t bytes)
{
    return transfer(C_MEMCPY_D2H, dst, src, 0, bytes, src);
}

static hipdnnStatus_t fake_mem_set(void *dst, int byte, size_t bytes)
{
    return transfer(C_MEMSET, dst, NULL, byte, bytes, dst);
}

static hipdnnStatus_t fake_stream_sync(void *stream)
{
    (void)stream; /* work is done when it is issued */
    INJECT(C_STREAM_SYNC, HIPDNN_STATUS_EXECUTION_FAILED, "", "CUDA_ERROR_LAUNCH_FAILED", 719);
    return HIPDNN_STATUS_SUCCESS;
}

/* rt.c binds the context before every device call; as with NVIDIA's primary context, only a
 * thread that has none bound does any work, and only that work can fail. */
static _Thread_local bool bound;

static hipdnnStatus_t fake_make_current(void)
{
    if (bound)
        return HIPDNN_STATUS_SUCCESS;
    INJECT(C_MAKE_CURRENT, HIPDNN_STATUS_INTERNAL_ERROR, "", "CUDA_ERROR_CONTEXT_IS_DESTROYED", 709);
    bound = true;
    return HIPDNN_STATUS_SUCCESS;
}

void fault_rt_unbind(void) { bound = false; }

static rt_ptr_kind fake_pointer_kind(const void *p)
{
    pthread_mutex_lock(&mu);
    bool dev = alloc_of(p, 0) != NULL;
    pthread_mutex_unlock(&mu);
    return dev ? RT_PTR_DEVICE : RT_PTR_HOST;
}

/* ---- modules and launches --------------------------------------------------------------------------- */

static hipdnnStatus_t fake_module_load(const void *code, size_t code_len, void **module)
{
    *module = NULL;
    char detail[48];
    snprintf(detail, sizeof detail, "%zu bytes", code_len);
    INJECT(C_MODULE_LOAD, HIPDNN_STATUS_INTERNAL_ERROR, detail, "CUDA_ERROR_OUT_OF_MEMORY", 2);
    size_t magic = strlen(FAULT_RT_CODE_MAGIC);
    if (code_len < magic || memcmp(code, FAULT_RT_CODE_MAGIC, magic) != 0 || memchr(code, '\0', code_len) != NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "cuModuleLoadData(%zu bytes): CUDA_ERROR_INVALID_IMAGE "
                         "(200): not a code object of the emulated device", code_len);
    fake_module *m = calloc(1, sizeof *m);
    if (m == NULL || (m->code = malloc(code_len + 1)) == NULL) {
        free(m);
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "cuModuleLoadData: out of host memory");
    }
    memcpy(m->code, code, code_len);
    m->code[code_len] = '\0';
    pthread_mutex_lock(&mu);
    m->next = modules, modules = m;
    n_modules++;
    pthread_mutex_unlock(&mu);
    *module = m;
    return HIPDNN_STATUS_SUCCESS;
}

/* Does the source define kernel `name` (the name, then an opening parenthesis)? */
static bool defines(const char *code, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = strstr(code, name); s != NULL; s = strstr(s + 1, name)) {
        const char *after = s + n;
        while (*after == ' ')
            after++;
        bool starts = s == code || !(s[-1] == '_' || (s[-1] >= '0' && s[-1] <= '9') ||
                                     ((s[-1] | 32) >= 'a' && (s[-1] | 32) <= 'z'));
        if (starts && *after == '(')
            return true;
    }
    return false;
}

static hipdnnStatus_t fake_module_function(void *module, const char *name, void **function)
{
    *function = NULL;
    INJECT(C_MODULE_FUNCTION, HIPDNN_STATUS_INTERNAL_ERROR, name, "CUDA_ERROR_NOT_FOUND", 500);
    fake_module *m = module;
    if (!defines(m->code, name) || strlen(name) >= sizeof m->fns[0].name)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "cuModuleGetFunction(\"%s\"): CUDA_ERROR_NOT_FOUND "
                         "(500): the module's source defines no such kernel", name);
    pthread_mutex_lock(&mu);
    fake_fn *f = NULL;
    for (int i = 0; i < m->n_fns && f == NULL; i++)
        if (strcmp(m->fns[i].name, name) == 0)
            f = &m->fns[i];
    if (f == NULL && m->n_fns < MAX_FNS) {
        f = &m->fns[m->n_fns++];
        *f = (fake_fn){.m = m, .max_smem = DEFAULT_SMEM};
        strcpy(f->name, name);
    }
    pthread_mutex_unlock(&mu);
    cr_assert_not_null(f, "the emulated device holds %d functions per module", MAX_FNS);
    *function = f;
    return HIPDNN_STATUS_SUCCESS;
}

static void fake_module_unload(void *module)
{
    pthread_mutex_lock(&mu);
    fake_module **at = &modules;
    while (*at != NULL && *at != module)
        at = &(*at)->next;
    bool live = *at != NULL;
    if (live) {
        *at = (*at)->next;
        n_modules--;
    }
    pthread_mutex_unlock(&mu);
    cr_assert(live, "cuModuleUnload(%p): not a loaded module", module);
    free(((fake_module *)module)->code);
    free(module);
}

/* Is f a function of a loaded module? (mu held) */
static bool live_fn(const void *f)
{
    for (fake_module *m = modules; m != NULL; m = m->next)
        if ((const char *)f >= (const char *)m->fns && (const char *)f < (const char *)(m->fns + m->n_fns))
            return true;
    return false;
}

static hipdnnStatus_t fake_set_max_smem(void *function, size_t bytes)
{
    INJECT(C_SET_MAX_SMEM, HIPDNN_STATUS_INTERNAL_ERROR, "MAX_DYNAMIC_SHARED_SIZE_BYTES",
           "CUDA_ERROR_INVALID_VALUE", 1);
    pthread_mutex_lock(&mu);
    bool live = live_fn(function);
    if (live)
        ((fake_fn *)function)->max_smem = bytes;
    pthread_mutex_unlock(&mu);
    return live ? HIPDNN_STATUS_SUCCESS
                : base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "cuFuncSetAttribute: CUDA_ERROR_INVALID_HANDLE (400)");
}

static void trace_add(const char *line)
{
    size_t n = strlen(line);
    if (trace_len + n + 1 > trace_cap) {
        size_t cap = (trace_len + n + 1) * 2;
        char *t = realloc(trace, cap);
        cr_assert_not_null(t);
        trace = t, trace_cap = cap;
    }
    memcpy(trace + trace_len, line, n + 1);
    trace_len += n;
}

/* Launches are checked as the driver checks them and traced; nothing runs. */
static hipdnnStatus_t fake_launch(void *function, const unsigned g[3], const unsigned b[3], size_t smem,
                                  void *stream, void **args)
{
    (void)stream;
    char detail[96];
    snprintf(detail, sizeof detail, "grid %ux%ux%u, block %ux%ux%u, %zu B shared memory", g[0], g[1], g[2], b[0],
             b[1], b[2], smem);
    INJECT(C_LAUNCH, HIPDNN_STATUS_EXECUTION_FAILED, detail, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", 701);
    pthread_mutex_lock(&mu);
    bool live = live_fn(function);
    const fake_fn *f = function;
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
    const char *bad = !live ? "CUDA_ERROR_INVALID_HANDLE (400): not a function of a loaded module"
                    : args == NULL ? "CUDA_ERROR_INVALID_VALUE (1): no kernel arguments"
                    : g[0] * g[1] * g[2] == 0 || threads == 0 || threads > 1024 ? "CUDA_ERROR_INVALID_VALUE (1): grid or block"
                    : smem > f->max_smem ? "CUDA_ERROR_INVALID_VALUE (1): more dynamic shared memory than the "
                                           "function's limit" : NULL;
    if (bad == NULL) {
        char line[160];
        snprintf(line, sizeof line, "%s grid %ux%ux%u block %ux%ux%u smem %zu\n", f->name, g[0], g[1], g[2],
                 b[0], b[1], b[2], smem);
        trace_add(line);
    }
    pthread_mutex_unlock(&mu);
    return bad == NULL ? HIPDNN_STATUS_SUCCESS
                       : base_fail(HIPDNN_STATUS_EXECUTION_FAILED, "cuLaunchKernel(%s): %s", detail, bad);
}

const char *fault_rt_trace(void) { return trace != NULL ? trace : ""; }

void fault_rt_trace_reset(void)
{
    pthread_mutex_lock(&mu);
    trace_len = 0;
    if (trace != NULL)
        trace[0] = '\0';
    pthread_mutex_unlock(&mu);
}

/* A map records what it describes; the kernel never reads it here. */
static hipdnnStatus_t fake_tensor_map(void *map, const void *base, int rank, int elem_bytes, const uint64_t *dims,
                                      const uint64_t *strides, const uint32_t *box)
{
    (void)strides;
    INJECT(C_TENSOR_MAP, HIPDNN_STATUS_BAD_PARAM, "", "CUDA_ERROR_INVALID_VALUE", 1);
    memset(map, 0, RT_TENSOR_MAP_BYTES);
    memcpy(map, &base, sizeof base);
    snprintf((char *)map + 8, RT_TENSOR_MAP_BYTES - 8, "rank %d elem %d dim0 %llu box0 %u", rank, elem_bytes,
             (unsigned long long)dims[0], box[0]);
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- events --------------------------------------------------------------------------------------------- */

static hipdnnStatus_t fake_event_create(void **event)
{
    *event = NULL;
    INJECT(C_EVENT_CREATE, HIPDNN_STATUS_INTERNAL_ERROR, "", "CUDA_ERROR_OUT_OF_MEMORY", 2);
    fake_event *e = calloc(1, sizeof *e);
    if (e == NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "cuEventCreate: out of host memory");
    pthread_mutex_lock(&mu);
    n_events++;
    pthread_mutex_unlock(&mu);
    *event = e;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t fake_event_record(void *event, void *stream)
{
    (void)stream;
    INJECT(C_EVENT_RECORD, HIPDNN_STATUS_EXECUTION_FAILED, "", "CUDA_ERROR_LAUNCH_FAILED", 719);
    pthread_mutex_lock(&mu);
    ((fake_event *)event)->stamp = ++clock_ticks;
    pthread_mutex_unlock(&mu);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t fake_event_elapsed_ms(void *start, void *end, float *ms)
{
    INJECT(C_EVENT_ELAPSED, HIPDNN_STATUS_EXECUTION_FAILED, "", "CUDA_ERROR_LAUNCH_FAILED", 719);
    const fake_event *a = start, *b = end;
    if (a->stamp == 0 || b->stamp == 0)
        return base_fail(HIPDNN_STATUS_EXECUTION_FAILED, "cuEventElapsedTime: CUDA_ERROR_INVALID_HANDLE (400): "
                         "an event was never recorded");
    *ms = (float)(b->stamp - a->stamp) * 0.001f;
    return HIPDNN_STATUS_SUCCESS;
}

static void fake_event_destroy(void *event)
{
    pthread_mutex_lock(&mu);
    n_events--;
    pthread_mutex_unlock(&mu);
    free(event);
}

/* ---- the table ------------------------------------------------------------------------------------------ */

static const rt_backend fake = {
    .version = RT_BACKEND_VERSION,
    .name = "nvidia", /* codegen's NVIDIA prelude and sm_* targets */
    .driver_libs = "fault_rt (the fault tests' emulated device)",
    .arch_prefix = "sm_",
    .driver_present = fake_driver_present,
    .driver_init = fake_driver_init,
    .compiler_init = fault_rtc_init,
    .compile = fault_rtc_compile,
    .module_load = fake_module_load,
    .module_function = fake_module_function,
    .module_unload = fake_module_unload,
    .launch = fake_launch,
    .mem_alloc = fake_mem_alloc,
    .mem_free = fake_mem_free,
    .memcpy_h2d = fake_memcpy_h2d,
    .memcpy_d2h = fake_memcpy_d2h,
    .mem_set = fake_mem_set,
    .stream_sync = fake_stream_sync,
    .event_create = fake_event_create,
    .event_record = fake_event_record,
    .event_elapsed_ms = fake_event_elapsed_ms,
    .event_destroy = fake_event_destroy,
    .pointer_kind = fake_pointer_kind,
    .make_current = fake_make_current,
    .set_max_smem = fake_set_max_smem,
    .tensor_map = fake_tensor_map,
};

void fault_rt_install(void)
{
    cr_assert(rt_backend_override(&fake), "the runtime chose its backend before the fake was installed");
}
