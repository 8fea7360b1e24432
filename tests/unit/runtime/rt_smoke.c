/* rt_smoke.c — a quick look at runtime/ on a GPU machine (not a test): prints the device and
 * the compiler, then compiles, loads and runs y = 2x + 1 on 10^6 fresh random floats with y
 * poisoned (NaN) first, compares exactly and times the kernel with events.
 * Exit status: 0 right, 1 wrong or an error (the message printed), 2 no usable GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/rt.h"

static const char src[] = "extern \"C\" __global__ void k(float *y, const float *x, int n)\n"
                          "{\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    if (i < n)\n"
                          "        y[i] = 2.0f * x[i] + 1.0f;\n"
                          "}\n";

static int fail(const char *what, hipdnnStatus_t st)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    base_last_error(msg, sizeof msg, true);
    printf("FAIL %s: %s: %s\n", what, base_status_name(st), msg);
    return 1;
}

#define TRY(call)                                                                                 \
    do {                                                                                          \
        hipdnnStatus_t st_ = (call);                                                              \
        if (st_ != HIPDNN_STATUS_SUCCESS)                                                         \
            return fail(#call, st_);                                                              \
    } while (0)

static void print_info(const rt_device_info *d, const rt_compiler_info *c)
{
    printf("device    %s (%s)\n", d->name, d->platform);
    printf("arch      %s (compute capability %d.%d)\n", d->arch, d->cc_major, d->cc_minor);
    printf("SMs       %d, warp %d\n", d->sm_count, d->warp_size);
    printf("smem      %zu B per block, %zu B opt-in\n", d->smem_per_block, d->smem_per_block_optin);
    printf("L2        %zu KiB\n", d->l2_bytes >> 10);
    printf("memory    %.1f GiB\n", (double)d->total_mem / (1 << 30));
    printf("compiler  %s %d.%d\n", c->id, c->major, c->minor);
}

/* Launches k on (y, x, n) `reps` times between two events; *ms is the total. */
static int run(rt_function f, float *y, float *x, int n, int reps, float *ms)
{
    void *args[] = {&y, &x, &n};
    unsigned grid[3] = {(unsigned)(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
    rt_event e0 = NULL, e1 = NULL;
    TRY(rt_event_create(&e0));
    TRY(rt_event_create(&e1));
    TRY(rt_event_record(e0, NULL));
    for (int r = 0; r < reps; r++)
        TRY(rt_launch(f, grid, block, 0, NULL, args));
    TRY(rt_event_record(e1, NULL));
    TRY(rt_event_elapsed_ms(e0, e1, ms));
    rt_event_destroy(e0);
    rt_event_destroy(e1);
    return 0;
}

static int check(const float *x, const float *y, int n)
{
    for (int i = 0; i < n; i++)
        if (y[i] != 2.0f * x[i] + 1.0f) {
            printf("FAIL y[%d] = %a, want %a\n", i, (double)y[i], (double)(2.0f * x[i] + 1.0f));
            return 1;
        }
    return 0;
}

static int smoke(const rt_device_info *d)
{
    enum { N = 1000000 };
    size_t bytes = sizeof(float) * N, len = 0;
    void *code = NULL;
    rt_module *m = NULL;
    rt_function f = NULL;
    float *x = NULL, *y = NULL, ms = 0.0f;
    float *hx = malloc(bytes), *hy = malloc(bytes);
    srand((unsigned)time(NULL));
    for (int i = 0; i < N; i++)
        hx[i] = (float)rand() / (float)RAND_MAX * 200.0f - 100.0f;
    TRY(rt_compile(src, "smoke.cu", d->arch, NULL, 0, &code, &len, NULL));
    TRY(rt_module_load(code, len, &m));
    free(code);
    TRY(rt_module_function(m, "k", &f));
    TRY(rt_malloc((void **)&x, bytes));
    TRY(rt_malloc((void **)&y, bytes));
    TRY(rt_memcpy_h2d(x, hx, bytes));
    TRY(rt_memset(y, 0xff, bytes));
    if (run(f, y, x, N, 1, &ms) != 0)
        return 1;
    TRY(rt_memcpy_d2h(hy, y, bytes));
    int bad = check(hx, hy, N);
    if (bad == 0 && (bad = run(f, y, x, N, 100, &ms)) == 0)
        printf("y = 2x+1  OK on %d floats (%zu B cubin); %.2f us per launch, %.0f GB/s\n", N,
               len, 1e3 * ms / 100, 2.0 * bytes * 100 / (ms * 1e-3) / 1e9);
    rt_free(x);
    rt_free(y);
    rt_module_unload(m);
    free(hx);
    free(hy);
    return bad;
}

int main(void)
{
    rt_device_info d;
    rt_compiler_info c;
    hipdnnStatus_t st = rt_init();
    if (st != HIPDNN_STATUS_SUCCESS) {
        fail("rt_init", st);
        return 2;
    }
    TRY(rt_device(&d));
    TRY(rt_compiler(&c));
    print_info(&d, &c);
    return smoke(&d);
}
