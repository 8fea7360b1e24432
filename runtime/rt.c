/* rt.c — the vendor-neutral front of runtime/: the rt_* functions of rt.h.
 *
 * Owns: choosing a backend (rt_int.h's table), initialising its driver once and each backend's
 * compiler once (the results are immutable afterwards), checking arguments, binding the
 * device's context to the calling thread before every device call, and the module wrapper.
 * Does not own: anything vendor-specific (rt_<vendor>.c), where kernels come from (codegen/),
 * dumping sources (codegen/).
 *
 * Backend choice (the device's platform): HIPDNN_PLATFORM=nvidia|amd names it; unset, the first
 * backend in `backends` whose driver library loads (NVIDIA's libcuda.so.1, then AMD's
 * libamdhip64). When none loads (or the named one does not), every device call answers
 * NOT_SUPPORTED "no GPU driver found (tried ...)".
 * Compiling is separate: rt_compile goes to the backend whose targets the arch names ("sm_*" to
 * NVRTC, "gfx*" to hipRTC), whatever the device, and never initialises a driver (no context is
 * created just to compile), so a build machine can warm caches for any target whose compiler
 * library it has.
 * Tests only: rt_backend_override (rt_int.h) installs a table of the test's own before first use;
 * it is then the only backend, for the device and for compiling (tests/fault's fake runtime).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_int.h"

/* In order of preference when HIPDNN_PLATFORM is unset. */
static const rt_backend *(*const backends[])(void) = {rt_nvidia_backend, rt_amd_backend};
#define N_BACKENDS (sizeof backends / sizeof backends[0])

/* rt_backend_override's table (tests only): when set, the one backend, in place of `backends`. */
static const rt_backend *test_backend;
static atomic_bool picked; /* pick() has run: the backend can no longer change */

static size_t n_backends(void) { return test_backend != NULL ? 1 : N_BACKENDS; }
static const rt_backend *backend(size_t i) { return test_backend != NULL ? test_backend : backends[i](); }

struct rt_module {
    void *handle; /* the backend's module */
};

static struct {
    pthread_once_t pick_once, gpu_once;
    const rt_backend *b;     /* chosen backend; never NULL after pick */
    bool driver_found;       /* b's driver library loads */
    bool named;              /* b was named by HIPDNN_PLATFORM */
    char bad_platform[40];   /* HIPDNN_PLATFORM's value when it names no backend, else "" */
    hipdnnStatus_t gpu_st;   /* driver_init's result */
    char gpu_why[512];       /* the failure's message, raised again for each later caller */
    rt_device_info dev;
} S = {.pick_once = PTHREAD_ONCE_INIT, .gpu_once = PTHREAD_ONCE_INIT};

/* Each backend's compiler, initialised on its first use (under cc_lock; immutable once done). */
static struct {
    bool done;
    hipdnnStatus_t st;
    char why[512];
    rt_compiler_info info;
} CC[N_BACKENDS];
static pthread_mutex_t cc_lock = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local bool ran_here; /* set by gpu_init, read right after by once() */

/* ---- initialisation ------------------------------------------------------------------------ */

static void check_table(const rt_backend *b)
{
    assert(b->version == RT_BACKEND_VERSION);
    assert(b->driver_present && b->driver_init && b->compiler_init && b->compile);
    assert(b->module_load && b->module_function && b->module_unload && b->launch);
    assert(b->mem_alloc && b->mem_free && b->memcpy_h2d && b->memcpy_d2h && b->mem_set);
    assert(b->stream_sync && b->event_create && b->event_record && b->event_elapsed_ms);
    assert(b->event_destroy && b->pointer_kind);
    (void)b;
}

/* HIPDNN_PLATFORM=name: that backend, found or not. */
static bool pick_named(const char *want)
{
    for (size_t i = 0; i < n_backends(); i++) {
        const rt_backend *b = backend(i);
        if (strcmp(b->name, want) == 0) {
            S.b = b, S.named = true, S.driver_found = b->driver_present();
            return true;
        }
    }
    snprintf(S.bad_platform, sizeof S.bad_platform, "%s", want);
    return false;
}

static void pick(void)
{
    atomic_store(&picked, true);
    for (size_t i = 0; i < n_backends(); i++)
        check_table(backend(i));
    const char *want = test_backend == NULL ? getenv("HIPDNN_PLATFORM") : NULL;
    if (want != NULL && want[0] != '\0' && pick_named(want))
        return;
    if (S.bad_platform[0] != '\0')
        base_log(HIPDNN_SEV_WARN, "HIPDNN_PLATFORM=\"%s\" names no platform (nvidia or amd): no GPU "
                 "will be used; compiling for a named target still works", S.bad_platform);
    for (size_t i = 0; i < n_backends() && S.bad_platform[0] == '\0'; i++) {
        const rt_backend *b = backend(i);
        if (b->driver_present()) {
            S.b = b, S.driver_found = true;
            return;
        }
    }
    S.b = backend(0);
}

static void driver_libs(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n_backends() && used < n; i++)
        if (!S.named || backend(i) == S.b)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                                     backend(i)->driver_libs);
}

/* The reason no driver is used: a bad HIPDNN_PLATFORM, or no library found. */
static hipdnnStatus_t no_driver(void)
{
    if (S.bad_platform[0] != '\0')
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "HIPDNN_PLATFORM=\"%s\" names no platform (nvidia or amd)", S.bad_platform);
    char libs[256];
    driver_libs(libs, sizeof libs);
    return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "no GPU driver found (tried %s%s%s)", libs,
                     S.named ? "; HIPDNN_PLATFORM=" : "", S.named ? S.b->name : "");
}

static void gpu_init(void)
{
    ran_here = true;
    pthread_once(&S.pick_once, pick);
    S.gpu_st = S.driver_found ? S.b->driver_init(&S.dev) : no_driver();
    if (S.gpu_st != HIPDNN_STATUS_SUCCESS) {
        base_last_error(S.gpu_why, sizeof S.gpu_why, false);
        return;
    }
    S.dev.platform = S.b->name;
    base_log(HIPDNN_SEV_INFO, "runtime: %s %s, %d multiprocessors, %zu MiB (%s backend)",
             S.dev.name, S.dev.arch, S.dev.sm_count, S.dev.total_mem >> 20, S.b->name);
}

bool rt_backend_override(const rt_backend *b)
{
    if (b == NULL || atomic_load(&picked))
        return false;
    check_table(b);
    test_backend = b;
    return true;
}

/* Runs init once per process; true when this very call ran it. */
static bool once(pthread_once_t *o, void (*init)(void))
{
    ran_here = false;
    pthread_once(o, init);
    return ran_here;
}

/* Runs init once; its cached failure is recorded in this thread's last-error slot unless this
 * call ran init (which raised and logged it already): recorded again, not logged again. */
static hipdnnStatus_t once_result(pthread_once_t *o, void (*init)(void), const hipdnnStatus_t *st,
                                  const char *why)
{
    bool fresh = once(o, init);
    return fresh || *st == HIPDNN_STATUS_SUCCESS ? *st : base_fail_quiet(*st, "%s", why);
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

/* Backend i's compiler, initialised on first use; its cached failure is raised again for later
 * callers (the first one got it from compiler_init itself). */
static hipdnnStatus_t compiler_ready(size_t i)
{
    pthread_mutex_lock(&cc_lock);
    bool fresh = !CC[i].done;
    if (fresh) {
        CC[i].st = backend(i)->compiler_init(&CC[i].info);
        if (CC[i].st != HIPDNN_STATUS_SUCCESS)
            base_last_error(CC[i].why, sizeof CC[i].why, false);
        CC[i].done = true;
    }
    hipdnnStatus_t st = CC[i].st;
    pthread_mutex_unlock(&cc_lock);
    return fresh || st == HIPDNN_STATUS_SUCCESS ? st : base_fail(st, "%s", CC[i].why);
}

/* The backend compiling for arch, or NOT_SUPPORTED naming the targets there are. */
static hipdnnStatus_t backend_for_arch(const char *arch, size_t *out)
{
    char known[64] = "";
    size_t used = 0;
    for (size_t i = 0; i < n_backends(); i++) {
        const char *prefix = backend(i)->arch_prefix;
        if (strncmp(arch, prefix, strlen(prefix)) == 0) {
            *out = i;
            return HIPDNN_STATUS_SUCCESS;
        }
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s*", i ? ", " : "", prefix);
    }
    return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                     "rt_compile: no compiler for arch \"%s\" (targets are %s)", arch, known);
}

static size_t chosen_index(void)
{
    pthread_once(&S.pick_once, pick);
    for (size_t i = 0; i < n_backends(); i++)
        if (backend(i) == S.b)
            return i;
    assert(!"the chosen backend is listed");
    return 0;
}

size_t rt_compiler_count(void) { return n_backends(); }

hipdnnStatus_t rt_compiler_at(size_t i, rt_compiler_entry *out)
{
    if (out == NULL || i >= n_backends())
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_compiler_at: no compiler %zu (there are %zu)", i,
                         n_backends());
    const rt_backend *b = backend(i);
    *out = (rt_compiler_entry){.platform = b->name, .arch_prefix = b->arch_prefix};
    out->found = compiler_ready(i) == HIPDNN_STATUS_SUCCESS;
    pthread_mutex_lock(&cc_lock);
    out->info = CC[i].info;
    if (!out->found) /* named by the targets' vendor */
        snprintf(out->info.id, sizeof out->info.id, "%s",
                 strcmp(b->name, "nvidia") == 0 ? "nvrtc" : strcmp(b->name, "amd") == 0 ? "hiprtc" : b->name);
    snprintf(out->why, sizeof out->why, "%s", out->found ? "" : CC[i].why);
    pthread_mutex_unlock(&cc_lock);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t rt_compiler(rt_compiler_info *out)
{
    if (out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_compiler: out is NULL");
    size_t i = chosen_index();
    if (S.bad_platform[0] != '\0')
        return no_driver();
    hipdnnStatus_t st = compiler_ready(i);
    if (st == HIPDNN_STATUS_SUCCESS)
        *out = CC[i].info;
    return st;
}

hipdnnStatus_t rt_compiler_for(const char *arch, rt_compiler_info *out)
{
    if (arch == NULL || out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "rt_compiler_for: NULL argument");
    size_t i = 0;
    hipdnnStatus_t st = backend_for_arch(arch, &i);
    if (st == HIPDNN_STATUS_SUCCESS && (st = compiler_ready(i)) == HIPDNN_STATUS_SUCCESS)
        *out = CC[i].info;
    return st;
}

bool rt_compiler_loaded(const char *arch, rt_compiler_info *out)
{
    size_t i = 0;
    bool names_one = false;
    for (; i < n_backends() && !names_one; i++)
        names_one = strncmp(arch, backend(i)->arch_prefix, strlen(backend(i)->arch_prefix)) == 0;
    if (!names_one)
        return false;
    i--;
    pthread_mutex_lock(&cc_lock);
    bool loaded = CC[i].done && CC[i].st == HIPDNN_STATUS_SUCCESS;
    if (loaded)
        *out = CC[i].info;
    pthread_mutex_unlock(&cc_lock);
    return loaded;
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
    size_t i = 0;
    hipdnnStatus_t st = check_compile_args(source, arch, options, n_options, code, code_len);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = backend_for_arch(arch, &i);
    if (st != HIPDNN_STATUS_SUCCESS || (st = compiler_ready(i)) != HIPDNN_STATUS_SUCCESS)
        return st;
    return backend(i)->compile(source, program_name, arch, options, n_options, code, code_len,
                                  log);
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

/* rt_launch and rt_launch_dependent: the arguments checked, then the backend's launch. */
static hipdnnStatus_t launch(const char *what, bool dependent, rt_function f, const unsigned grid[3],
                             const unsigned block[3], size_t smem_bytes, void *stream, void **args)
{
    if (f == NULL || grid == NULL || block == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: function, grid and block must not be NULL", what);
    hipdnnStatus_t st = rt_init();
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (dependent && S.b->launch_dependent != NULL)
        return S.b->launch_dependent(f, grid, block, smem_bytes, stream, args);
    return S.b->launch(f, grid, block, smem_bytes, stream, args);
}

hipdnnStatus_t rt_launch(rt_function f, const unsigned grid[3], const unsigned block[3],
                         size_t smem_bytes, void *stream, void **args)
{
    return launch("rt_launch", false, f, grid, block, smem_bytes, stream, args);
}

hipdnnStatus_t rt_launch_dependent(rt_function f, const unsigned grid[3], const unsigned block[3],
                                   size_t smem_bytes, void *stream, void **args)
{
    return launch("rt_launch_dependent", true, f, grid, block, smem_bytes, stream, args);
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

rt_ptr_kind rt_pointer_kind(const void *p)
{
    if (p == NULL || !rt_have_gpu())
        return RT_PTR_HOST;
    if (S.b->make_current != NULL && S.b->make_current() != HIPDNN_STATUS_SUCCESS)
        return RT_PTR_HOST;
    return S.b->pointer_kind(p);
}

bool rt_is_device_pointer(const void *p) { return rt_pointer_kind(p) == RT_PTR_DEVICE; }

bool rt_kernel_can_read(const void *p)
{
    rt_ptr_kind k = rt_pointer_kind(p);
    return k == RT_PTR_DEVICE || k == RT_PTR_HOST_MAPPED ||
           (k == RT_PTR_HOST && rt_have_gpu() && S.dev.pageable_access);
}
