/* bench_execute.c — the host-side cost of hipdnnBackendExecute for a small graph.
 *
 * y = relu(x + b), x and y [R, C] fp32, b [1, C]: one fused kernel of a few microseconds, so the
 * time per call is the library's own work (binding, pointer checks, argument packing) plus the
 * driver's launch. Two patterns, 20000 calls each after a warm-up, median of 5 rounds:
 *   reused pack   one finalized variant pack, executed again and again (cuDNN-style caching);
 *   pack per call create + set + finalize + execute + destroy, as hipDNN's frontend does.
 * Reported per call: enqueue (the loop of calls, before the stream is synchronized) and end to
 * end (including the wait for the last kernel).
 * Usage: bench_execute [R C]   (default 256 256)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct run {
    hipdnnBackendDescriptor_t plan, pack;
    int64_t uids[3];
    void *ptrs[3];
} run;

static void call(const run *r, bool new_pack)
{
    if (!new_pack) {
        CHECK(hipdnnBackendExecute(bench_handle, r->plan, r->pack));
        return;
    }
    hipdnnBackendDescriptor_t pack = bench_pack(3, (int64_t *)r->uids, (void **)r->ptrs);
    CHECK(hipdnnBackendExecute(bench_handle, r->plan, pack));
    CHECK(hipdnnBackendDestroyDescriptor(pack));
}

/* Median over rounds of (enqueue, end-to-end) microseconds per call. */
static void measure(const run *r, bool new_pack, int calls, double *enqueue, double *total)
{
    enum { ROUNDS = 5 };
    double e[ROUNDS], t[ROUNDS];
    for (int i = 0; i < 200; i++)
        call(r, new_pack);
    CHECK(hipdnnStreamSynchronize_ext(bench_handle));
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = now_us();
        for (int i = 0; i < calls; i++)
            call(r, new_pack);
        double t1 = now_us();
        CHECK(hipdnnStreamSynchronize_ext(bench_handle));
        double t2 = now_us();
        e[k] = (t1 - t0) / calls;
        t[k] = (t2 - t0) / calls;
    }
    qsort(e, ROUNDS, sizeof e[0], cmp_double);
    qsort(t, ROUNDS, sizeof t[0], cmp_double);
    *enqueue = e[ROUNDS / 2];
    *total = t[ROUNDS / 2];
}

int main(int argc, char **argv)
{
    int64_t R = argc > 2 ? atoll(argv[1]) : 256, C = argc > 2 ? atoll(argv[2]) : 256;
    bench_init("bench_execute");
    json_t *tensors = json_pack("[{s:i,s:s,s:[I,I],s:[I,I]}, {s:i,s:s,s:[I,I],s:[I,I]},"
                                " {s:i,s:s,s:[I,I],s:[I,I],s:b}, {s:i,s:s,s:[I,I],s:[I,I]}]",
                                "uid", 1, "data_type", "FLOAT", "dims", R, C, "strides", C, (json_int_t)1,
                                "uid", 2, "data_type", "FLOAT", "dims", (json_int_t)1, C, "strides", C, (json_int_t)1,
                                "uid", 3, "data_type", "FLOAT", "dims", R, C, "strides", C, (json_int_t)1, "virtual", 1,
                                "uid", 4, "data_type", "FLOAT", "dims", R, C, "strides", C, (json_int_t)1);
    json_t *nodes = json_pack("[o, o]",
                              bench_node("PointwiseAttributes", json_pack("{s:s,s:i,s:i,s:i}", "operation", "ADD",
                                                                          "in_0_tensor_uid", 1, "in_1_tensor_uid", 2,
                                                                          "out_0_tensor_uid", 3)),
                              bench_node("PointwiseAttributes", json_pack("{s:s,s:i,s:i}", "operation", "RELU_FWD",
                                                                          "in_0_tensor_uid", 3, "out_0_tensor_uid", 4)));
    hipdnnBackendDescriptor_t graph = bench_graph(tensors, nodes);
    run r = {.plan = bench_jit_plan(graph), .uids = {1, 2, 4}};
    size_t sizes[3] = {(size_t)(R * C), (size_t)C, (size_t)(R * C)};
    for (int i = 0; i < 3; i++)
        CHECK(hipdnnDeviceMalloc_ext(&r.ptrs[i], sizes[i] * sizeof(float)));
    r.pack = bench_pack(3, r.uids, r.ptrs);

    const int calls = 20000;
    printf("# bench_execute: y = relu(x + b), [%lld x %lld] fp32, one fused kernel; us per call, "
           "median of 5 x %d calls\n", (long long)R, (long long)C, calls);
    printf("%-14s %12s %12s\n", "pattern", "enqueue_us", "end2end_us");
    const char *names[] = {"reused pack", "pack per call"};
    for (int p = 0; p < 2; p++) {
        double e, t;
        measure(&r, p == 1, calls, &e, &t);
        printf("%-14s %12.2f %12.2f\n", names[p], e, t);
    }
    for (int i = 0; i < 3; i++)
        hipdnnDeviceFree_ext(r.ptrs[i]);
    hipdnnBackendDestroyDescriptor(r.pack);
    hipdnnBackendDestroyDescriptor(r.plan);
    hipdnnBackendDestroyDescriptor(graph);
    hipdnnDestroy(bench_handle);
    return 0;
}
