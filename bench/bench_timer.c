/* bench_timer.c — GPU event timing for the benchmark programs, from the vendor's runtime as a
 * framework would time its own work: the CUDA driver (libcuda.so.1) or the HIP runtime
 * (libamdhip64.so), loaded with dlopen, so the benchmarks need no GPU SDK to build and use
 * nothing of the library but its public headers.
 *
 * Owns: loading the runtime (HIPDNN_PLATFORM=nvidia|amd picks one, as it does for the library;
 * else NVIDIA first), device 0's primary context made current (the context the library's
 * kernels and hipdnnDeviceMalloc_ext use), events recorded on the default stream (the stream
 * of a handle whose stream was never set). Any failure prints one line and exits (1).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/* The calls used, spelled as both runtimes declare them: status 0 is success. */
typedef struct timer_api {
    const char *name;
    int (*create)(void **e);
    int (*record)(void *e, void *stream);
    int (*sync)(void *e);
    int (*elapsed)(float *ms, void *start, void *end);
    int (*destroy)(void *e);
} timer_api;

static timer_api api;

static void fail(const char *what, int code)
{
    fprintf(stderr, "bench: %s %s failed (%d)\n", api.name, what, code);
    exit(1);
}

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (p == NULL) {
        fprintf(stderr, "bench: %s has no %s\n", api.name, name);
        exit(1);
    }
    return p;
}

/* cuEventCreate takes flags; 0 is CU_EVENT_DEFAULT (timing enabled). */
static int (*cu_event_create)(void **e, unsigned flags);
static int cu_create(void **e) { return cu_event_create(e, 0); }

static bool load_cuda(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return false;
    api.name = "CUDA driver";
    int (*init)(unsigned) = (int (*)(unsigned))sym(lib, "cuInit");
    int (*device_get)(int *, int) = (int (*)(int *, int))sym(lib, "cuDeviceGet");
    int (*retain)(void **, int) = (int (*)(void **, int))sym(lib, "cuDevicePrimaryCtxRetain");
    int (*set_current)(void *) = (int (*)(void *))sym(lib, "cuCtxSetCurrent");
    int dev = 0, rc;
    void *ctx = NULL;
    if ((rc = init(0)) != 0 || (rc = device_get(&dev, 0)) != 0 || (rc = retain(&ctx, dev)) != 0 ||
        (rc = set_current(ctx)) != 0)
        fail("context setup", rc);
    cu_event_create = (int (*)(void **, unsigned))sym(lib, "cuEventCreate");
    api.create = cu_create;
    api.record = (int (*)(void *, void *))sym(lib, "cuEventRecord");
    api.sync = (int (*)(void *))sym(lib, "cuEventSynchronize");
    api.elapsed = (int (*)(float *, void *, void *))sym(lib, "cuEventElapsedTime");
    api.destroy = (int (*)(void *))sym(lib, "cuEventDestroy_v2");
    return true;
}

static bool load_hip(void)
{
    static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    void *lib = NULL;
    for (size_t i = 0; lib == NULL && i < sizeof names / sizeof names[0]; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return false;
    api.name = "HIP runtime";
    int (*set_device)(int) = (int (*)(int))sym(lib, "hipSetDevice");
    int rc = set_device(0);
    if (rc != 0)
        fail("hipSetDevice(0)", rc);
    api.create = (int (*)(void **))sym(lib, "hipEventCreate");
    api.record = (int (*)(void *, void *))sym(lib, "hipEventRecord");
    api.sync = (int (*)(void *))sym(lib, "hipEventSynchronize");
    api.elapsed = (int (*)(float *, void *, void *))sym(lib, "hipEventElapsedTime");
    api.destroy = (int (*)(void *))sym(lib, "hipEventDestroy");
    return true;
}

void bench_timer_init(void)
{
    const char *want = getenv("HIPDNN_PLATFORM");
    bool amd = want != NULL && strcmp(want, "amd") == 0, nv = want != NULL && strcmp(want, "nvidia") == 0;
    if ((!amd && load_cuda()) || (!nv && load_hip()))
        return;
    fprintf(stderr, "bench: neither libcuda.so.1 nor libamdhip64.so can be loaded for event timing\n");
    exit(1);
}

void *bench_event_create(void)
{
    void *e = NULL;
    int rc = api.create(&e);
    if (rc != 0)
        fail("event create", rc);
    return e;
}

void bench_event_record(void *e)
{
    int rc = api.record(e, NULL);
    if (rc != 0)
        fail("event record", rc);
}

float bench_event_ms(void *start, void *end)
{
    float ms = 0;
    int rc = api.sync(end);
    if (rc != 0 || (rc = api.elapsed(&ms, start, end)) != 0)
        fail("event elapsed time", rc);
    return ms;
}

void bench_event_destroy(void *e) { api.destroy(e); }
