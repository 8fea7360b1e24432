/* rt.c — the vendor-neutral front of runtime/: the rt_* functions of rt.h.
 *
 * Owns: choosing a backend (rt_int.h's table), initialising its driver and its compiler once
 * each (pthread_once; the results are immutable afterwards), checking arguments, binding the
 * device's context to the calling thread before every device call, and the module wrapper.
 * Does not own: anything vendor-specific (rt_<vendor>.c), where kernels come from (codegen/),
 * dumping sources (codegen/).
 *
 * Backend choice: the first backend in `backends` whose driver library loads; when none loads,
 * the first one still serves the compiler (so a build machine can warm caches) and every device
 * call answers NOT_SUPPORTED "no GPU driver found (tried ...)". Compiling never initialises the
 * driver (no context is created just to compile).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_int.h"

/* An AMD backend (rt_amd.c: libamdhip64.so + libhiprtc.so, arch prefix "gfx") would be listed
 * after NVIDIA's: it is then chosen when libcuda.so.1 is absent and libamdhip64.so is present. */
static const rt_backend *(*const backends[])(void) = {rt_nvidia_backend};
#define N_BACKENDS (sizeof backends / sizeof backends[0])

struct rt_module {
    void *handle; /* the backend's module */
};

static struct {
    pthread_once_t pick_once, gpu_once, cc_once;
    const rt_backend *b;     /* chosen backend; never NULL after pick */
    bool driver_found;       /* b's driver library loads */
    hipdnnStatus_t gpu_st;   /* driver_init's result */
    hipdnnStatus_t cc_st;    /* compiler_init's result */
    char gpu_why[512];       /* the failure's message, raised again for each later caller */
    char cc_why[512];
    rt_device_info dev;
    rt_compiler_info cc;
} S = {.pick_once = PTHREAD_ONCE_INIT, .gpu_once = PTHREAD_ONCE_INIT, .cc_once = PTHREAD_ONCE_INIT};

static _Thread_local bool ran_here; /* set by gpu_init / cc_init, read right after by once() */

/* ---- initialisation ------------------------------------------------------------------------ */

static void check_table(const rt_backend *b)
{
    assert(b->version == RT_BACKEND_VERSION);
    assert(b->driver_present && b->driver_init && b->compiler_init && b->compile);
    assert(b->module_load && b->module_function && b->module_unload && b->launch);
    assert(b->mem_alloc && b->mem_free && b->memcpy_h2d && b->memcpy_d2h && b->mem_set);
    assert(b->stream_sync && b->event_create && b->event_record && b->event_elapsed_ms);
    assert(b->event_destroy && b->is_device_pointer);
    (void)b;
}

static void pick(void)
{
    for (size_t i = 0; i < N_BACKENDS; i++) {
        const rt_backend *b = backends[i]();
        check_table(b);
        if (b->driver_present()) {
            S.b = b, S.driver_found = true;
            return;
        }
    }
    S.b = backends[0]();
}

static void driver_libs(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_BACKENDS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "",
                                 backends[i]()->driver_libs);
}

static void gpu_init(void)
{
    ran_here = true;
    pthread_once(&S.pick_once, pick);
    if (!S.driver_found) {
        char libs[256];
        driver_libs(libs, sizeof libs);
        S.gpu_st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "no GPU driver found (tried %s)", libs);
    } else {
        S.gpu_st = S.b->driver_init(&S.dev);
    }
    if (S.gpu_st != HIPDNN_STATUS_SUCCESS) {
        base_last_error(S.gpu_why, sizeof S.gpu_why, false);
        return;
    }
    base_log(HIPDNN_SEV_INFO, "runtime: %s %s, %d multiprocessors, %zu MiB (%s backend)",
             S.dev.name, S.dev.arch, S.dev.sm_count, S.dev.total_mem >> 20, S.b->name);
}

static void cc_init(void)
{
    ran_here = true;
    pthread_once(&S.pick_once, pick);
    S.cc_st = S.b->compiler_init(&S.cc);
    if (S.cc_st != HIPDNN_STATUS_SUCCESS)
        base_last_error(S.cc_why, sizeof S.cc_why, false);
}

/* Runs init once per process; true when this very call ran it. */
static bool once(pthread_once_t *o, void (*init)(void))
{
    ran_here = false;
    pthread_once(o, init);
    return ran_here;
}

/* Runs init once; its cached failure is recorded in this thread's last-error slot unless this
 * call ran init (which raised it already). */
static hipdnnStatus_t once_result(pthread_once_t *o, void (*init)(void), const hipdnnStatus_t *st,
                                  const char *why)
{
    bool fresh = once(o, init);
    return fresh || *st == HIPDNN_STATUS_SUCCESS ? *st : base_fail(*st, "%s", why);
}

hipdnnStatus_t rt_init(void)
{
    hipdnnStatus_t st = once_result(&S.gpu_once, gpu_init, &S.gpu_st, S.gpu_why);
    if (st != HIPDNN_STATUS_SUCCESS || S.b->make_current == NULL)
        return st;
    return S.b->make_current();
}

bool rt_have_gpu(void)
{
    once(&S.gpu_once, gpu_init);
    return S.gpu_st == HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t rt_device(rt_device_info *out)
{
    if (out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_device: out is NULL");
    hipdnnStatus_t st = rt_init();
    if (st == HIPDNN_STATUS_SUCCESS)
        *out = S.dev;
    return st;
}

/* ---- compiler ------------------------------------------------------------------------------ */

static hipdnnStatus_t compiler_ready(void)
{
    return once_result(&S.cc_once, cc_init, &S.cc_st, S.cc_why);
}

hipdnnStatus_t rt_compiler(rt_compiler_info *out)
{
    if (out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_compiler: out is NULL");
    hipdnnStatus_t st = compiler_ready();
    if (st == HIPDNN_STATUS_SUCCESS)
        *out = S.cc;
    return st;
}

static hipdnnStatus_t check_compile_args(const char *source, const char *arch,
                                         const char *const *options, int n_options, void **code,
                                         size_t *code_len)
{
    if (source == NULL || arch == NULL || code == NULL || code_len == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "rt_compile: source, arch, code and code_len must not be NULL");
    if (n_options < 0 || (n_options > 0 && options == NULL))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_compile: %d options at %p", n_options,
                         (const void *)options);
    for (int i = 0; i < n_options; i++)
        if (options[i] == NULL)
            return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_compile: option %d is NULL",
                             i);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t rt_compile(const char *source, const char *program_name, const char *arch,
                          const char *const *options, int n_options, void **code, size_t *code_len,
                          char **log)
{
    if (log != NULL)
        *log = NULL;
    if (code != NULL)
        *code = NULL;
    if (code_len != NULL)
        *code_len = 0;
    hipdnnStatus_t st = check_compile_args(source, arch, options, n_options, code, code_len);
    if (st != HIPDNN_STATUS_SUCCESS || (st = compiler_ready()) != HIPDNN_STATUS_SUCCESS)
        return st;
    const char *prefix = S.b->arch_prefix;
    if (strncmp(arch, prefix, strlen(prefix)) != 0)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "rt_compile: no compiler for arch \"%s\" (the %s backend compiles %s*)",
                         arch, S.b->name, prefix);
    return S.b->compile(source, program_name, arch, options, n_options, code, code_len, log);
}

/* ---- modules and launch -------------------------------------------------------------------- */

hipdnnStatus_t rt_module_load(const void *code, size_t code_len, rt_module **out)
{
    if (code == NULL || out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_module_load: NULL argument");
    *out = NULL;
    if (code_len == 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_module_load: empty code object");
    hipdnnStatus_t st = rt_init();
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    rt_module *m = base_malloc(sizeof *m);
    if (m == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "rt_module_load: out of host memory");
    st = S.b->module_load(code, code_len, &m->handle);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(m);
        return st;
    }
    *out = m;
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t rt_module_function(rt_module *m, const char *name, rt_function *out)
{
    if (m == NULL || name == NULL || out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "rt_module_function: NULL argument");
    *out = NULL;
    hipdnnStatus_t st = rt_init();
    return st != HIPDNN_STATUS_SUCCESS ? st : S.b->module_function(m->handle, name, out);
}

/* For the void calls: a failure is logged, not raised, so it cannot overwrite the error that
 * led the caller to clean up. */
static bool ready_quietly(const char *what)
{
    if (rt_have_gpu() &&
        (S.b->make_current == NULL || S.b->make_current() == HIPDNN_STATUS_SUCCESS))
        return true;
    base_log(HIPDNN_SEV_WARN, "%s: no usable GPU; nothing released", what);
    return false;
}

void rt_module_unload(rt_module *m)
{
    if (m == NULL)
        return;
    if (ready_quietly("rt_module_unload"))
        S.b->module_unload(m->handle);
    base_free(m);
}

hipdnnStatus_t rt_function_set_max_smem(rt_function f, size_t bytes)
{
    if (f == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_function_set_max_smem: NULL");
    hipdnnStatus_t st = rt_init();
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (bytes > S.dev.smem_per_block_optin)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND,
                         "rt_function_set_max_smem: %zu bytes of shared memory asked, the device "
                         "allows %zu per block", bytes, S.dev.smem_per_block_optin);
    return S.b->set_max_smem ? S.b->set_max_smem(f, bytes) : HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t rt_tensor_map(void *map, const void *base, int rank, int elem_bytes,
                             const uint64_t *dims, const uint64_t *strides, const uint32_t *box)
{
    if (map == NULL || base == NULL || dims == NULL || box == NULL || (rank > 1 && strides == NULL))
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_tensor_map: NULL argument");
    if ((uintptr_t)map % RT_TENSOR_MAP_ALIGN != 0 || (uintptr_t)base % 16 != 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_tensor_map: the map must be %d-byte and "
                         "the tensor 16-byte aligned", RT_TENSOR_MAP_ALIGN);
    if (rank < 1 || rank > RT_TENSOR_MAP_MAX_RANK || (elem_bytes != 1 && elem_bytes != 2))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_tensor_map: rank %d / element size %d "
                         "(1 .. %d dims of 1- or 2-byte elements)", rank, elem_bytes,
                         RT_TENSOR_MAP_MAX_RANK);
    hipdnnStatus_t st = rt_init();
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (S.b->tensor_map == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "rt_tensor_map: the %s platform has no "
                         "tensor maps", S.b->name);
    return S.b->tensor_map(map, base, rank, elem_bytes, dims, strides, box);
}

hipdnnStatus_t rt_launch(rt_function f, const unsigned grid[3], const unsigned block[3],
                         size_t smem_bytes, void *stream, void **args)
{
    if (f == NULL || grid == NULL || block == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "rt_launch: function, grid and block must not be NULL");
    hipdnnStatus_t st = rt_init();
    return st != HIPDNN_STATUS_SUCCESS ? st
                                       : S.b->launch(f, grid, block, smem_bytes, stream, args);
}

/* ---- memory, streams, events --------------------------------------------------------------- */

hipdnnStatus_t rt_malloc(void **p, size_t bytes)
{
    if (p == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_malloc: p is NULL");
    *p = NULL;
    hipdnnStatus_t st = rt_init();
    if (st != HIPDNN_STATUS_SUCCESS || bytes == 0)
        return st;
    return S.b->mem_alloc(p, bytes);
}

void rt_free(void *p)
{
    if (p != NULL && ready_quietly("rt_free"))
        S.b->mem_free(p);
}

static hipdnnStatus_t copy_ready(const char *what, const void *dst, const void *src,
                                 size_t bytes)
{
    hipdnnStatus_t st = rt_init();
    if (st == HIPDNN_STATUS_SUCCESS && bytes > 0 && (dst == NULL || src == NULL))
        st = base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: NULL pointer for %zu bytes",
                       what, bytes);
    return st;
}

hipdnnStatus_t rt_memcpy_h2d(void *dst, const void *src, size_t bytes)
{
    hipdnnStatus_t st = copy_ready("rt_memcpy_h2d", dst, src, bytes);
    if (st != HIPDNN_STATUS_SUCCESS || bytes == 0)
        return st;
    return S.b->memcpy_h2d(dst, src, bytes);
}

hipdnnStatus_t rt_memcpy_d2h(void *dst, const void *src, size_t bytes)
{
    hipdnnStatus_t st = copy_ready("rt_memcpy_d2h", dst, src, bytes);
    if (st != HIPDNN_STATUS_SUCCESS || bytes == 0)
        return st;
    return S.b->memcpy_d2h(dst, src, bytes);
}

hipdnnStatus_t rt_memset(void *dst, int byte, size_t bytes)
{
    hipdnnStatus_t st = copy_ready("rt_memset", dst, "" /* no source */, bytes);
    if (st != HIPDNN_STATUS_SUCCESS || bytes == 0)
        return st;
    return S.b->mem_set(dst, byte, bytes);
}

hipdnnStatus_t rt_stream_sync(void *stream)
{
    hipdnnStatus_t st = rt_init();
    return st != HIPDNN_STATUS_SUCCESS ? st : S.b->stream_sync(stream);
}

hipdnnStatus_t rt_event_create(rt_event *e)
{
    if (e == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_event_create: e is NULL");
    *e = NULL;
    hipdnnStatus_t st = rt_init();
    return st != HIPDNN_STATUS_SUCCESS ? st : S.b->event_create(e);
}

hipdnnStatus_t rt_event_record(rt_event e, void *stream)
{
    if (e == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_event_record: e is NULL");
    hipdnnStatus_t st = rt_init();
    return st != HIPDNN_STATUS_SUCCESS ? st : S.b->event_record(e, stream);
}

hipdnnStatus_t rt_event_elapsed_ms(rt_event start, rt_event end, float *ms)
{
    if (start == NULL || end == NULL || ms == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_event_elapsed_ms: NULL");
    *ms = 0.0f;
    hipdnnStatus_t st = rt_init();
    return st != HIPDNN_STATUS_SUCCESS ? st : S.b->event_elapsed_ms(start, end, ms);
}

void rt_event_destroy(rt_event e)
{
    if (e != NULL && ready_quietly("rt_event_destroy"))
        S.b->event_destroy(e);
}

bool rt_is_device_pointer(const void *p)
{
    if (p == NULL || !rt_have_gpu())
        return false;
    if (S.b->make_current != NULL && S.b->make_current() != HIPDNN_STATUS_SUCCESS)
        return false;
    return S.b->is_device_pointer(p);
}
