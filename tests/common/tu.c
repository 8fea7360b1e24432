/* tu.c — the shared test helpers declared in tu.h (random numbers, last-error text, example
 * graphs, tensor descriptors). */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "hipdnn_jit.h"
#include "tu.h"

static uint64_t rng_state;

uint64_t tu_rand(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t tu_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(tu_rand() % (uint64_t)(hi - lo + 1));
}

float tu_float(float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(tu_rand() >> 11) / (double)(1ull << 53));
}

void tu_bytes(void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)p)[i] = (unsigned char)tu_rand();
}

uint64_t tu_seed(const char *test)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                    (uint64_t)getpid() << 40;
    const char *env = getenv("HIPDNN_TEST_SEED");
    if (env != NULL && *env != '\0')
        seed = strtoull(env, NULL, 0);
    rng_state = seed;
    fprintf(stderr, "%s: seed %llu (HIPDNN_TEST_SEED=%llu replays it)\n", test,
            (unsigned long long)seed, (unsigned long long)seed);
    return seed;
}

const char *tu_msg(void)
{
    static _Thread_local char buf[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnPeekLastErrorString_ext(buf, sizeof buf);
    return buf;
}

hipdnnBackendDescriptor_t tu_tensor_unfinalized(int64_t uid, hipdnnDataType_t dt, int rank, const int64_t *dims,
                                                const int64_t *strides, bool is_virtual)
{
    hipdnnBackendDescriptor_t t = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank, dims));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, rank, strides));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &is_virtual));
    return t;
}

hipdnnBackendDescriptor_t tu_tensor(int64_t uid, hipdnnDataType_t dt, int rank, const int64_t *dims,
                                    bool is_virtual, const void *value, int64_t value_len)
{
    int64_t strides[8];
    cr_assert(rank >= 1 && rank <= 8);
    tu_packed_strides(rank, dims, strides);
    hipdnnBackendDescriptor_t t = tu_tensor_unfinalized(uid, dt, rank, dims, strides, is_virtual);
    if (value != NULL)
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, value_len, value));
    TU_OK(hipdnnBackendFinalize(t));
    return t;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    *len = buf != NULL ? (size_t)n : 0;
    return buf;
}

hipdnnBackendDescriptor_t tu_example_graph(hipdnnHandle_t handle, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/graphs/%.63s", HIPDNN_SOURCE_DIR, file);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    return tu_json_graph(handle, text, n, file);
}

hipdnnBackendDescriptor_t tu_json_graph(hipdnnHandle_t handle, const char *text, size_t len, const char *what)
{
    hipdnnBackendDescriptor_t g;
    cr_assert_eq(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, len), HIPDNN_STATUS_SUCCESS, "%s: %s",
                 what, tu_msg());
    cr_assert_eq(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle),
                 HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(hipdnnBackendFinalize(g), HIPDNN_STATUS_SUCCESS, "%s: %s", what, tu_msg());
    return g;
}

hipdnnStatus_t tu_try_plan(hipdnnHandle_t handle, hipdnnBackendDescriptor_t g, int64_t engine_id,
                           hipdnnBackendDescriptor_t *plan)
{
    const hipdnnBackendAttributeType_t DESC = HIPDNN_TYPE_BACKEND_DESCRIPTOR;
    hipdnnBackendDescriptor_t e = NULL, cfg = NULL, p = NULL;
    hipdnnStatus_t st = hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e);
#define TU_STEP(call) (st = st == HIPDNN_STATUS_SUCCESS ? (call) : st)
    TU_STEP(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, DESC, 1, &g));
    TU_STEP(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &engine_id));
    TU_STEP(hipdnnBackendFinalize(e));
    TU_STEP(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    TU_STEP(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
    TU_STEP(hipdnnBackendFinalize(cfg));
    TU_STEP(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &p));
    TU_STEP(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_STEP(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfg));
    TU_STEP(hipdnnBackendFinalize(p));
#undef TU_STEP
    if (e != NULL)
        hipdnnBackendDestroyDescriptor(e);
    if (cfg != NULL)
        hipdnnBackendDestroyDescriptor(cfg);
    if (st != HIPDNN_STATUS_SUCCESS && p != NULL)
        hipdnnBackendDestroyDescriptor(p), p = NULL;
    *plan = p;
    return st;
}

hipdnnBackendDescriptor_t tu_pack(int n, const int64_t *uids, void *const *ptrs, void *ws)
{
    hipdnnBackendDescriptor_t pack = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, n, uids));
    TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, n, ptrs));
    TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &ws));
    TU_OK(hipdnnBackendFinalize(pack));
    return pack;
}

hipdnnBackendDescriptor_t tu_graph_of(hipdnnHandle_t handle, hipdnnBackendDescriptor_t op)
{
    hipdnnBackendDescriptor_t g;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    TU_OK(hipdnnBackendFinalize(g));
    return g;
}

const hipdnnBackendAttributeName_t tu_sdpa_fwd_attrs[5] = {
    HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC};
const hipdnnBackendAttributeName_t tu_sdpa_bwd_attrs[9] = {
    HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT};

hipdnnBackendDescriptor_t tu_unary(hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t in,
                                   hipdnnBackendDescriptor_t out)
{
    const hipdnnBackendAttributeType_t DESC = HIPDNN_TYPE_BACKEND_DESCRIPTOR;
    hipdnnBackendDescriptor_t op;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &in));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendFinalize(op));
    return op;
}

/* ---- descriptors kept until the test's end --------------------------------------------------------- */

static hipdnnBackendDescriptor_t kept[TU_MAX_KEPT];
static int n_kept;

hipdnnBackendDescriptor_t tu_keep(hipdnnBackendDescriptor_t d)
{
    cr_assert_lt(n_kept, TU_MAX_KEPT);
    kept[n_kept++] = d;
    return d;
}

void tu_kept_release(void)
{
    while (n_kept > 0)
        tu_destroy(&kept[--n_kept]);
}

void tu_need_gpu(void)
{
    void *probe = NULL;
    if (hipdnnDeviceMalloc_ext(&probe, 16) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no GPU: %s", tu_msg());
    hipdnnDeviceFree_ext(probe);
}
