/* test_fault_hip_source.c — jit.hip_source's host reference under allocation failures: every
 * library allocation, and every jansson allocation, of one reference-engine execute of a graph
 * holding the op is made to fail in turn (once). The execute ends in ALLOC_FAILED, or in
 * EXECUTION_FAILED saying "out of memory" (a provider's reference failing is EXECUTION_FAILED),
 * or absorbs the failure; retried without injection it succeeds, and the output is right either
 * way. For the library sweep each execute's kernel source differs by a comment, so the host
 * build (the text, the object table's entry) runs under injection every time; the jansson sweep
 * reuses one kernel (its allocations are all in the payload's read). Leaks are left to
 * LeakSanitizer (the sanitizer build). Not covered: the check at finalize (a failing jansson
 * allocation there reads as a refused payload, NOT_SUPPORTED, as any provider's refusal does).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"
#include "base/base.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
enum { ROWS = 3, COLS = 40 };

static long json_allocs, json_fail_at; /* the jansson allocation number that fails; 0 = none */

static void *json_malloc_faulty(size_t n)
{
    json_allocs++;
    return json_fail_at != 0 && json_allocs == json_fail_at ? NULL : malloc(n);
}

typedef struct graph {
    hipdnnBackendDescriptor_t d[3], g, plan, pack;
} graph;

static float x[ROWS * COLS], y[ROWS * COLS];

/* x [ROWS, COLS] -> jit.hip_source: y = 2x − 1 -> y; the source carries `variant` in a comment. */
static void make(hipdnnHandle_t h, long variant, graph *k)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"source\": \"// variant %ld\\nextern \\\"C\\\" __global__ void twice(const float *x, float *y, "
             "long long n) { long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = "
             "2.0f * x[i] - 1.0f; }\", \"entry\": \"twice\", \"block\": [32], \"grid\": [\"cdiv(numel(out0), 32)\"], "
             "\"args\": [\"in0\", \"out0\", \"numel(out0)\"]}",
             variant);
    int64_t dims[] = {ROWS, COLS};
    k->d[0] = tu_tensor(1, HIPDNN_DATA_FLOAT, 2, dims, false, NULL, 0);
    k->d[1] = tu_tensor(2, HIPDNN_DATA_FLOAT, 2, dims, false, NULL, 0);
    const char *id = "jit.hip_source";
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT, &k->d[2]));
    TU_OK(hipdnnBackendSetAttribute(k->d[2], HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(id), id));
    TU_OK(hipdnnBackendSetAttribute(k->d[2], HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(text), text));
    TU_OK(hipdnnBackendSetAttribute(k->d[2], HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, DESC, 1, &k->d[0]));
    TU_OK(hipdnnBackendSetAttribute(k->d[2], HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, DESC, 1, &k->d[1]));
    TU_OK(hipdnnBackendFinalize(k->d[2]));
    k->g = tu_graph_of(h, k->d[2]);
    int64_t engine;
    TU_OK(hipdnnGetEngineIdByName_ext(h, "reference", &engine));
    TU_OK(tu_try_plan(h, k->g, engine, &k->plan));
    int64_t uids[] = {1, 2};
    void *ptrs[] = {x, y};
    k->pack = tu_pack(2, uids, ptrs, NULL);
}

static void destroy(graph *k)
{
    hipdnnBackendDestroyDescriptor(k->pack);
    hipdnnBackendDestroyDescriptor(k->plan), hipdnnBackendDestroyDescriptor(k->g);
    for (int i = 0; i < 3; i++)
        hipdnnBackendDestroyDescriptor(k->d[i]);
}

/* y poisoned, then the plan executed over x and y. */
static hipdnnStatus_t execute(hipdnnHandle_t h, const graph *k)
{
    for (int i = 0; i < ROWS * COLS; i++)
        y[i] = NAN;
    return hipdnnBackendExecute(h, k->plan, k->pack);
}

static void expect_right(long nth)
{
    int bad = 0;
    for (int i = 0; i < ROWS * COLS; i++)
        bad += !(fabsf(y[i] - (2.0f * x[i] - 1.0f)) <= 1e-6f);
    cr_expect_eq(bad, 0, "allocation %ld: %d elements off", nth, bad);
}

/* A failed execute: an out-of-memory status or message, then a retry that succeeds. */
static void expect_failure(hipdnnHandle_t h, const graph *k, hipdnnStatus_t st, long nth)
{
    cr_expect(st == HIPDNN_STATUS_ALLOC_FAILED ||
                  (st == HIPDNN_STATUS_EXECUTION_FAILED && strstr(tu_msg(), "out of memory") != NULL),
              "allocation %ld: %s [%s]", nth, tu_st(st), tu_msg());
    TU_OK(execute(h, k));
}

Test(fault_hip_source, every_library_allocation_of_an_execute_fails_in_turn, .timeout = 600)
{
    tu_seed("fault_hip_source/every_library_allocation_of_an_execute_fails_in_turn");
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    for (int i = 0; i < ROWS * COLS; i++)
        x[i] = tu_float(-2.0f, 2.0f);
    long failed = 0, total = 0;
    for (long nth = 1;; nth++) {
        graph k;
        make(h, nth, &k);
        long before = base_alloc_count();
        base_alloc_fail_at(nth, false);
        hipdnnStatus_t st = execute(h, &k);
        long used = base_alloc_count() - before;
        base_alloc_fail_at(0, false);
        if (st != HIPDNN_STATUS_SUCCESS)
            failed++, expect_failure(h, &k, st, nth);
        expect_right(nth);
        destroy(&k);
        if (st == HIPDNN_STATUS_SUCCESS && used < nth) {
            total = used;
            break;
        }
        cr_assert_lt(nth, 1000, "the sweep does not end");
    }
    cr_log_info("library: %ld allocations per execute, %ld executes failed", total, failed);
    cr_expect_geq(total, 3, "only %ld allocations: is injection wired?", total);
    cr_expect_gt(failed, 0, "no execute failed");
    TU_OK(hipdnnDestroy(h));
}

Test(fault_hip_source, every_jansson_allocation_of_an_execute_fails_in_turn)
{
    tu_seed("fault_hip_source/every_jansson_allocation_of_an_execute_fails_in_turn");
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    for (int i = 0; i < ROWS * COLS; i++)
        x[i] = tu_float(-2.0f, 2.0f);
    graph k;
    make(h, 0, &k);
    TU_OK(execute(h, &k)); /* built once: the sweep reuses the object */
    json_set_alloc_funcs(json_malloc_faulty, free);
    long failed = 0, total = 0;
    for (long nth = 1;; nth++) {
        json_allocs = 0, json_fail_at = nth;
        hipdnnStatus_t st = execute(h, &k);
        long used = json_allocs;
        json_fail_at = 0;
        if (st != HIPDNN_STATUS_SUCCESS)
            failed++, expect_failure(h, &k, st, nth);
        expect_right(nth);
        if (st == HIPDNN_STATUS_SUCCESS && used < nth) {
            total = used;
            break;
        }
        cr_assert_lt(nth, 10000, "the sweep does not end");
    }
    json_set_alloc_funcs(malloc, free);
    cr_log_info("jansson: %ld allocations per execute, %ld executes failed", total, failed);
    cr_expect_gt(total, 3, "only %ld allocations: is injection wired?", total);
    cr_expect_gt(failed, 0, "no execute failed");
    destroy(&k);
    TU_OK(hipdnnDestroy(h));
}
