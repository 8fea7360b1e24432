/* test_fault_alloc.c — every allocation failure ends in a status, leaks nothing, and can be
 * retried.
 *
 * Owns: a scenario through the public API — tensors, a LAYERNORM and a pointwise op, an
 * operation graph, finalize, OPS read back, binary and JSON serialization, both deserializers,
 * finalizing the copies — and two on examples/graphs/sdpa_softcap.json and
 * sdpa_document_mask.json (an SDPA node nesting a score or a mask modifier Graph: its JSON read,
 * lowering with the modifier, key, both forms and both ways back), each run once per allocation
 * with that allocation made to fail:
 *   - library allocations (base_alloc_fail_at, once only and "sticky"),
 *   - jansson's allocations (json_set_alloc_funcs with a failing allocator).
 * Each API call must return SUCCESS or an error status (normally ALLOC_FAILED), never crash.
 * When a call fails, injection is switched off and the same call is retried: it must now
 * succeed, which shows the failed call left its objects as they were. The scenario then runs
 * to the end and its graph must have the key and serialize exactly like a run without faults
 * (a failure "absorbed" by a call that still succeeds is counted and printed, not an error).
 * Leaks are left to LeakSanitizer (`./build.sh test`, the ASan build).
 * Not covered: serialize/fe_fb.c's builder allocates with malloc directly (its own injection
 * hook is per builder and not reachable through the API).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"
#include "base/base.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

/* ---- injection --------------------------------------------------------------------------------- */

static long json_allocs, json_fail_at; /* jansson: the allocation number that fails; 0 = none */
static bool injecting;

static void *json_malloc_faulty(size_t n)
{
    json_allocs++;
    if (json_fail_at != 0 && json_allocs == json_fail_at)
        return NULL;
    return malloc(n);
}

static void injection_off(void)
{
    base_alloc_fail_at(0, false);
    json_fail_at = 0;
    injecting = false;
}

typedef struct run {
    int failures;           /* calls that failed under injection */
    int alloc_failed;       /* ... with ALLOC_FAILED */
    hipdnnStatus_t other;   /* a failure status other than ALLOC_FAILED, if any */
    char other_call[160];
} run;

/* Runs `call`; if it fails, checks the status, switches injection off and retries once. */
#define STEP(r, call)                                                                            \
    do {                                                                                        \
        hipdnnStatus_t s_ = (call);                                                             \
        if (s_ != HIPDNN_STATUS_SUCCESS) {                                                      \
            cr_assert(injecting, "%s failed without injection: %s [%s]", #call, tu_st(s_),      \
                      tu_msg());                                                                \
            cr_assert(s_ > HIPDNN_STATUS_SUCCESS && s_ <= HIPDNN_STATUS_VERSION_MISMATCH,       \
                      "%s returned %d, not a status", #call, (int)s_);                          \
            cr_assert_neq(tu_msg()[0], '\0', "%s failed without a message", #call);           \
            (r)->failures++;                                                                    \
            if (s_ == HIPDNN_STATUS_ALLOC_FAILED)                                               \
                (r)->alloc_failed++;                                                            \
            else if ((r)->other == HIPDNN_STATUS_SUCCESS) {                                     \
                (r)->other = s_;                                                                \
                snprintf((r)->other_call, sizeof (r)->other_call, "%s", #call);                 \
            }                                                                                   \
            injection_off();                                                                    \
            s_ = (call);                                                                        \
            cr_assert_eq(s_, HIPDNN_STATUS_SUCCESS, "retrying %s after an injected failure: %s [%s]", \
                         #call, tu_st(s_), tu_msg());                                           \
        }                                                                                       \
    } while (0)

/* ---- the scenario --------------------------------------------------------------------------------- */

static int64_t rows, dim; /* chosen once per test */

static hipdnnBackendDescriptor_t tensor(run *r, int64_t uid, hipdnnDataType_t dt, int64_t d0,
                                        int64_t d1, bool is_virtual, const float *value)
{
    hipdnnBackendDescriptor_t t = NULL;
    int64_t dims[2] = {d0, d1}, strides[2] = {d1, 1};
    STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    STEP(r, hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    STEP(r, hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    STEP(r, hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2, dims));
    STEP(r, hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2, strides));
    STEP(r, hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, 6, "tensor"));
    if (value != NULL)
        STEP(r, hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, value));
    else
        STEP(r, hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1,
                                          &is_virtual));
    STEP(r, hipdnnBackendFinalize(t));
    return t;
}

static char *json_text(run *r, hipdnnBackendDescriptor_t g)
{
    size_t n = 0;
    STEP(r, hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL));
    char *text = malloc(n);
    size_t cap = n; /* a retry must see the same size the query reported */
    cr_assert_not_null(text);
    STEP(r, hipdnnBackendGetSerializedJsonGraph_ext(g, cap, &n, text));
    return text;
}

/* The graph copy from `make`, given a handle and finalized; its JSON must equal `want`. */
static void check_copy(run *r, hipdnnHandle_t h, hipdnnBackendDescriptor_t copy, const char *want)
{
    STEP(r, hipdnnBackendSetAttribute(copy, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                      &h));
    STEP(r, hipdnnBackendFinalize(copy));
    char *text = json_text(r, copy);
    if (strcmp(text, want) != 0) {
        static int shown;
        if (shown++ < 2)
            fprintf(stderr, "---- want:\n%s\n---- got:\n%s\n", want, text);
        cr_expect_fail("a deserialized copy differs (first ones printed on stderr)");
    }
    free(text);
    STEP(r, hipdnnBackendDestroyDescriptor(copy));
}

/* Both serialized forms of finalized graph g and both ways back, then g and h destroyed;
 * returns "key <key>\n<graph JSON>" (free it). */
static char *finish(run *r, hipdnnHandle_t h, hipdnnBackendDescriptor_t g, const char *key)
{
    char *text = json_text(r, g);
    size_t len = 0;
    STEP(r, hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &len, NULL));
    uint8_t *bin = malloc(len);
    size_t cap = len;
    cr_assert_not_null(bin);
    STEP(r, hipdnnBackendGetSerializedBinaryGraph_ext(g, cap, &len, bin));
    hipdnnBackendDescriptor_t from_bin = NULL, from_json = NULL;
    STEP(r, hipdnnBackendCreateAndDeserializeGraph_ext(&from_bin, bin, len));
    check_copy(r, h, from_bin, text);
    STEP(r, hipdnnBackendCreateAndDeserializeJsonGraph_ext(&from_json, text, strlen(text)));
    check_copy(r, h, from_json, text);
    free(bin);
    STEP(r, hipdnnBackendDestroyDescriptor(g));
    STEP(r, hipdnnDestroy(h));
    char *result = malloc(strlen(text) + strlen(key) + 8);
    cr_assert_not_null(result);
    sprintf(result, "key %s\n%s", key, text);
    free(text);
    return result;
}

/* Runs the scenario; returns "key <graph key>\n<graph JSON>" (free it). */
static char *scenario(run *r)
{
    hipdnnHandle_t h = NULL;
    STEP(r, hipdnnCreate(&h));
    float eps = 1e-5f;
    hipdnnDataType_t bf16 = HIPDNN_DATA_BFLOAT16, f32 = HIPDNN_DATA_FLOAT;
    enum { X, SCALE, BIAS, EPS, Y, MEAN, INV, Z, N };
    hipdnnBackendDescriptor_t t[N];
    t[X] = tensor(r, 1, bf16, rows, dim, false, NULL);
    t[SCALE] = tensor(r, 2, f32, 1, dim, false, NULL);
    t[BIAS] = tensor(r, 3, f32, 1, dim, false, NULL);
    t[EPS] = tensor(r, 4, f32, 1, 1, false, &eps);
    t[Y] = tensor(r, 5, bf16, rows, dim, true, NULL);
    t[MEAN] = tensor(r, 6, f32, rows, 1, false, NULL);
    t[INV] = tensor(r, 7, f32, rows, 1, false, NULL);
    t[Z] = tensor(r, 8, bf16, rows, dim, false, NULL);

    const hipdnnBackendAttributeName_t ports[7] = {
        HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT,    HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT,
        HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT,
        HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT,    HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT,
        HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT};
    hipdnnBackendDescriptor_t ln = NULL, relu = NULL, g = NULL;
    hipdnnNormFwdPhase_t phase = HIPDNN_NORM_FWD_TRAINING;
    hipdnnPointwiseMode_t mode = HIPDNN_POINTWISE_RELU_FWD;
    int64_t one = 1;
    STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT, &ln));
    for (int i = 0; i < 7; i++)
        STEP(r, hipdnnBackendSetAttribute(ln, ports[i], DESC, 1, &t[i]));
    STEP(r, hipdnnBackendSetAttribute(ln, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT,
                                      HIPDNN_TYPE_NORM_FWD_PHASE, 1, &phase));
    STEP(r, hipdnnBackendSetAttribute(ln, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT,
                                      HIPDNN_TYPE_INT64, 1, &one));
    STEP(r, hipdnnBackendSetAttribute(ln, HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT, HIPDNN_TYPE_DATA_TYPE, 1,
                                      &f32));
    STEP(r, hipdnnBackendSetAttribute(ln, HIPDNN_ATTR_OPERATION_NAME_EXT, HIPDNN_TYPE_CHAR, 2, "ln"));
    STEP(r, hipdnnBackendFinalize(ln));
    STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &relu));
    STEP(r, hipdnnBackendSetAttribute(relu, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &t[Y]));
    STEP(r, hipdnnBackendSetAttribute(relu, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &t[Z]));
    STEP(r, hipdnnBackendSetAttribute(relu, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1,
                                      &mode));
    STEP(r, hipdnnBackendFinalize(relu));
    for (int i = 0; i < N; i++)
        STEP(r, hipdnnBackendDestroyDescriptor(t[i]));

    /* the graph, ops appended in two calls, consumer first */
    STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    STEP(r, hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    STEP(r, hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &relu));
    STEP(r, hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &ln));
    STEP(r, hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, HIPDNN_TYPE_CHAR, 5,
                                      "fault"));
    STEP(r, hipdnnBackendDestroyDescriptor(ln));
    STEP(r, hipdnnBackendDestroyDescriptor(relu));
    STEP(r, hipdnnBackendFinalize(g));

    /* OPS read back */
    hipdnnBackendDescriptor_t ops[2] = {NULL, NULL};
    int64_t n = 0;
    STEP(r, hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 0, &n, NULL));
    cr_assert_eq(n, 2);
    STEP(r, hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 2, &n, ops));
    for (int i = 0; i < 2; i++) {
        hipdnnBackendDescriptor_t x = NULL;
        if (i == 0)
            STEP(r, hipdnnBackendGetAttribute(ops[i], HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1,
                                              &n, &x));
        else
            STEP(r, hipdnnBackendGetAttribute(ops[i], HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, DESC, 1, &n,
                                              &x));
        STEP(r, hipdnnBackendDestroyDescriptor(x));
        STEP(r, hipdnnBackendDestroyDescriptor(ops[i]));
    }

    /* the graph key: the same as without faults (appended to the text compared below) */
    char key[40] = "";
    STEP(r, hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR,
                                      sizeof key, &n, key));

    return finish(r, h, g, key);
}

/* An example graph through JSON, finalize, the key and both serialized forms. */
static char *scenario_file(run *r, const char *path)
{
    static char src[1 << 16];
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    size_t src_len = fread(src, 1, sizeof src, f);
    fclose(f);
    hipdnnHandle_t h = NULL;
    hipdnnBackendDescriptor_t g = NULL;
    STEP(r, hipdnnCreate(&h));
    STEP(r, hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, src, src_len));
    STEP(r, hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    STEP(r, hipdnnBackendFinalize(g));
    char key[40] = "";
    int64_t n = 0;
    STEP(r, hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR,
                                      sizeof key, &n, key));
    return finish(r, h, g, key);
}

/* The score modifier example; the mask modifier example (an SDPA node nesting a mask Graph of
 * GEN_INDEX, comparisons and tensors in memory). */
static char *scenario_score_mod(run *r) { return scenario_file(r, HIPDNN_SOURCE_DIR "/examples/graphs/sdpa_softcap.json"); }
static char *scenario_mask_mod(run *r)
{
    return scenario_file(r, HIPDNN_SOURCE_DIR "/examples/graphs/sdpa_document_mask.json");
}

/* ---- the sweeps ------------------------------------------------------------------------------------- */

static void sweep_library(bool sticky, char *(*scenario)(run *))
{
    tu_seed(sticky ? "fault::library_allocations_sticky" : "fault::library_allocations");
    rows = tu_range(1, 512);
    dim = tu_range(1, 4096);
    run clean = {0};
    char *want = scenario(&clean);
    cr_assert_eq(clean.failures, 0);
    long total = 0, swallowed = 0, points = 0;
    run all = {0};
    for (long nth = 1;; nth++) {
        run r = {0};
        long before = base_alloc_count();
        base_alloc_fail_at(nth, sticky);
        injecting = true;
        char *got = scenario(&r);
        long used = base_alloc_count() - before;
        bool fired = r.failures > 0;
        injection_off();
        cr_assert_str_eq(got, want, "failing allocation %ld changed the resulting graph", nth);
        free(got);
        all.failures += r.failures;
        all.alloc_failed += r.alloc_failed;
        if (r.other != HIPDNN_STATUS_SUCCESS && all.other == HIPDNN_STATUS_SUCCESS) {
            all.other = r.other;
            memcpy(all.other_call, r.other_call, sizeof all.other_call);
        }
        points++;
        if (!fired && used >= nth) /* the allocation failed and every call still succeeded */
            swallowed++;
        if (!fired && used < nth) {
            total = used;
            break;
        }
        cr_assert_lt(nth, 200000, "the sweep does not end");
    }
    fprintf(stderr,
            "fault (library%s): %ld allocations per run, %ld injection points: %d calls failed "
            "(%d ALLOC_FAILED), %ld failures absorbed without an error%s%s%s\n",
            sticky ? ", sticky" : "", total, points - 1, all.failures, all.alloc_failed, swallowed,
            all.other != HIPDNN_STATUS_SUCCESS ? "; first other status: " : "",
            all.other != HIPDNN_STATUS_SUCCESS ? tu_st(all.other) : "",
            all.other != HIPDNN_STATUS_SUCCESS ? all.other_call : "");
    cr_expect_gt(total, 50, "only %ld allocations: is injection wired?", total);
    cr_expect_gt(all.alloc_failed, 0, "no call ever reported ALLOC_FAILED");
    free(want);
}

Test(fault, library_allocations_fail_once)
{
    sweep_library(false, scenario);
}

Test(fault, library_allocations_fail_from_n_on)
{
    sweep_library(true, scenario);
}

Test(fault, score_modifier_library_allocations_fail_once)
{
    sweep_library(false, scenario_score_mod);
}

Test(fault, mask_modifier_library_allocations_fail_once)
{
    sweep_library(false, scenario_mask_mod);
}

Test(fault, jansson_allocations)
{
    tu_seed("fault::jansson_allocations");
    rows = tu_range(1, 512);
    dim = tu_range(1, 4096);
    json_set_alloc_funcs(json_malloc_faulty, free);
    run clean = {0};
    long before = json_allocs;
    char *want = scenario(&clean);
    long total = json_allocs - before;
    cr_assert_gt(total, 20, "jansson allocated only %ld times", total);
    int failed = 0, other = 0;
    for (long nth = 1; nth <= total; nth++) {
        run r = {0};
        json_fail_at = json_allocs + nth;
        injecting = true;
        char *got = scenario(&r);
        injection_off();
        cr_assert_str_eq(got, want, "failing jansson allocation %ld changed the graph", nth);
        free(got);
        failed += r.failures;
        other += r.failures - r.alloc_failed;
    }
    fprintf(stderr, "fault (jansson): %ld allocations per run: %d calls failed, %d not ALLOC_FAILED\n",
            total, failed, other);
    cr_expect_gt(failed, 0, "no jansson allocation failure reached the caller");
    free(want);
}
