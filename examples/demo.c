/* demo.c — the README's main job until the JIT engine lands.
 *
 * 1. Builds a layernorm graph through the backend API the way a framework does (tensor
 *    descriptors, an operation descriptor, an operation graph), finalizes it and prints the
 *    graph as JSON; then runs it: heuristics -> engine config -> plan -> variant pack ->
 *    hipdnnBackendExecute, on the host with the reference engine and — when a GPU is present —
 *    on the GPU with the first engine the heuristics rank (the fused JIT engine: its kernel is
 *    generated, compiled at plan finalize and launched), each checked against the same math
 *    written out here.
 * 2. For every graph file named on the command line (JSON files under examples/graphs/):
 *    deserializes it, finalizes it, serializes it to hipDNN's FlatBuffer form and back, and
 *    prints one line per graph.
 * Uses nothing but the public header.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"

#define CHECK(call)                                                                              \
    do {                                                                                        \
        hipdnnStatus_t st_ = (call);                                                            \
        if (st_ != HIPDNN_STATUS_SUCCESS) {                                                     \
            char msg_[HIPDNN_ERROR_STRING_MAX_LENGTH];                                          \
            hipdnnGetLastErrorString(msg_, sizeof msg_);                                        \
            fprintf(stderr, "%s failed: %s\n  %s\n", #call, hipdnnGetErrorString(st_), msg_);   \
            return st_;                                                                         \
        }                                                                                       \
    } while (0)

/* A finalized tensor descriptor with packed row-major strides. */
static hipdnnStatus_t make_tensor(int64_t uid, hipdnnDataType_t dt, int rank, const int64_t *dims,
                                  bool is_virtual, hipdnnBackendDescriptor_t *out)
{
    int64_t strides[8];
    strides[rank - 1] = 1;
    for (int i = rank - 2; i >= 0; i--)
        strides[i] = strides[i + 1] * dims[i + 1];
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, out));
    CHECK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    CHECK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    CHECK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank, dims));
    CHECK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, rank, strides));
    CHECK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &is_virtual));
    return hipdnnBackendFinalize(*out);
}

#define ROWS 64
#define COLS 256

/* layernorm over the last dim of x [ROWS, COLS] (fp32), scale/bias [1, COLS], eps by value. */
static hipdnnStatus_t build_layernorm(hipdnnHandle_t handle, hipdnnBackendDescriptor_t *graph)
{
    const int64_t rows = ROWS, d = COLS, x_dims[] = {rows, d}, w_dims[] = {1, d};
    const int64_t stat_dims[] = {rows, 1}, one[] = {1, 1};
    hipdnnBackendDescriptor_t x, scale, bias, eps, y, mean, inv, op;
    CHECK(make_tensor(1, HIPDNN_DATA_FLOAT, 2, x_dims, false, &x));
    CHECK(make_tensor(2, HIPDNN_DATA_FLOAT, 2, w_dims, false, &scale));
    CHECK(make_tensor(3, HIPDNN_DATA_FLOAT, 2, w_dims, false, &bias));
    CHECK(make_tensor(5, HIPDNN_DATA_FLOAT, 2, x_dims, false, &y));
    CHECK(make_tensor(6, HIPDNN_DATA_FLOAT, 2, stat_dims, false, &mean));
    CHECK(make_tensor(7, HIPDNN_DATA_FLOAT, 2, stat_dims, false, &inv));
    /* epsilon: a by-value scalar, its value baked into the graph */
    float epsilon = 1e-5f;
    int64_t eps_uid = 4, eps_strides[] = {1, 1};
    hipdnnDataType_t f32 = HIPDNN_DATA_FLOAT;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &eps));
    CHECK(hipdnnBackendSetAttribute(eps, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &eps_uid));
    CHECK(hipdnnBackendSetAttribute(eps, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &f32));
    CHECK(hipdnnBackendSetAttribute(eps, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2, one));
    CHECK(hipdnnBackendSetAttribute(eps, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2, eps_strides));
    CHECK(hipdnnBackendSetAttribute(eps, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &epsilon));
    CHECK(hipdnnBackendFinalize(eps));

    hipdnnNormFwdPhase_t phase = HIPDNN_NORM_FWD_TRAINING;
    int64_t norm_dims = 1;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT, &op));
    struct { hipdnnBackendAttributeName_t name; hipdnnBackendDescriptor_t t; } ports[] = {
        {HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, x}, {HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT, scale},
        {HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, bias}, {HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT, eps},
        {HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT, y}, {HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT, mean},
        {HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT, inv}};
    for (size_t i = 0; i < sizeof ports / sizeof ports[0]; i++) {
        CHECK(hipdnnBackendSetAttribute(op, ports[i].name, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ports[i].t));
        CHECK(hipdnnBackendDestroyDescriptor(ports[i].t)); /* the op keeps its own reference */
    }
    CHECK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT,
                                    HIPDNN_TYPE_NORM_FWD_PHASE, 1, &phase));
    CHECK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT,
                                    HIPDNN_TYPE_INT64, 1, &norm_dims));
    CHECK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT, HIPDNN_TYPE_DATA_TYPE, 1, &f32));
    CHECK(hipdnnBackendFinalize(op));

    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph));
    CHECK(hipdnnBackendSetAttribute(*graph, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    CHECK(hipdnnBackendSetAttribute(*graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    CHECK(hipdnnBackendDestroyDescriptor(op));
    return hipdnnBackendFinalize(*graph);
}

/* A finalized plan for `engine` ("reference", or NULL for the heuristics' first choice). */
static hipdnnStatus_t make_plan(hipdnnHandle_t handle, hipdnnBackendDescriptor_t graph,
                                const char *engine, hipdnnBackendDescriptor_t *plan,
                                int64_t *workspace, char *engine_name, size_t name_len)
{
    hipdnnBackendDescriptor_t heur, cfg, eng;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    int64_t n = 0, id = 0;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    if (engine == NULL) {
        CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
        CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
        CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph));
        CHECK(hipdnnBackendFinalize(heur));
        CHECK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg));
        hipdnnBackendDestroyDescriptor(heur);
    } else {
        CHECK(hipdnnGetEngineIdByName_ext(handle, engine, &id));
        CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &eng));
        CHECK(hipdnnBackendSetAttribute(eng, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph));
        CHECK(hipdnnBackendSetAttribute(eng, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
        CHECK(hipdnnBackendFinalize(eng));
        CHECK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng));
        hipdnnBackendDestroyDescriptor(eng);
    }
    CHECK(hipdnnBackendFinalize(cfg));
    CHECK(hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng));
    CHECK(hipdnnBackendGetAttribute(eng, HIPDNN_ATTR_ENGINE_NAME_EXT, HIPDNN_TYPE_CHAR, (int64_t)name_len, &n, engine_name));
    hipdnnBackendDestroyDescriptor(eng);
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, plan));
    CHECK(hipdnnBackendSetAttribute(*plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    CHECK(hipdnnBackendFinalize(*plan));
    CHECK(hipdnnBackendGetAttribute(*plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, workspace));
    hipdnnBackendDestroyDescriptor(cfg);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t bind_and_execute(hipdnnHandle_t handle, hipdnnBackendDescriptor_t plan,
                                       int n, const int64_t *uids, void **ptrs, void *workspace)
{
    hipdnnBackendDescriptor_t pack;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    CHECK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, n, uids));
    CHECK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, n, ptrs));
    CHECK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &workspace));
    CHECK(hipdnnBackendFinalize(pack));
    CHECK(hipdnnBackendExecute(handle, plan, pack));
    return hipdnnBackendDestroyDescriptor(pack);
}

static float x[ROWS * COLS], y[ROWS * COLS], scale[COLS], bias[COLS], mean[ROWS], inv[ROWS];

/* max |y - layernorm(x)| over every element (NaN if any was not written). */
static double max_error(void)
{
    double max_err = 0;
    for (int r = 0; r < ROWS; r++) {
        double mu = 0, var = 0;
        for (int c = 0; c < COLS; c++)
            mu += x[r * COLS + c] / (double)COLS;
        for (int c = 0; c < COLS; c++)
            var += (x[r * COLS + c] - mu) * (x[r * COLS + c] - mu) / COLS;
        for (int c = 0; c < COLS; c++) {
            double want = (x[r * COLS + c] - mu) / sqrt(var + 1e-5f) * scale[c] + bias[c];
            double err = fabs(y[r * COLS + c] - want);
            max_err = err > max_err || err != err ? err : max_err;
        }
    }
    return max_err;
}

/* Runs the layernorm on the host with the reference engine. */
static hipdnnStatus_t run_on_host(hipdnnHandle_t handle, hipdnnBackendDescriptor_t graph)
{
    hipdnnBackendDescriptor_t plan;
    int64_t ws_size = 0;
    char name[32];
    CHECK(make_plan(handle, graph, "reference", &plan, &ws_size, name, sizeof name));
    for (int i = 0; i < ROWS * COLS; i++)
        y[i] = NAN;
    int64_t uids[] = {1, 2, 3, 5, 6, 7};
    void *ptrs[] = {x, scale, bias, y, mean, inv};
    void *ws = malloc((size_t)ws_size + 1);
    hipdnnStatus_t st = bind_and_execute(handle, plan, 6, uids, ptrs, ws);
    free(ws);
    hipdnnBackendDestroyDescriptor(plan);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    double err = max_error();
    printf("executed on the host by engine '%s': layernorm [%d x %d], max |y - y_ref| = %.2e %s\n",
           name, ROWS, COLS, err, err < 1e-5 ? "(ok)" : "(WRONG)");
    return err < 1e-5 ? HIPDNN_STATUS_SUCCESS : HIPDNN_STATUS_EXECUTION_FAILED;
}

/* Runs the layernorm on the GPU with the heuristics' first engine (the fused JIT engine). */
static hipdnnStatus_t run_on_gpu(hipdnnHandle_t handle, hipdnnBackendDescriptor_t graph)
{
    void *d[6] = {NULL}, *dws = NULL;
    size_t bytes[6] = {sizeof x, sizeof scale, sizeof bias, sizeof y, sizeof mean, sizeof inv};
    const void *src[3] = {x, scale, bias};
    if (hipdnnDeviceMalloc_ext(&d[0], bytes[0]) != HIPDNN_STATUS_SUCCESS) {
        char msg[256];
        hipdnnGetLastErrorString(msg, sizeof msg);
        printf("no GPU, so the fused JIT engine was not run (%s)\n", msg);
        return HIPDNN_STATUS_SUCCESS;
    }
    hipdnnBackendDescriptor_t plan;
    int64_t ws_size = 0;
    char name[32];
    CHECK(make_plan(handle, graph, NULL, &plan, &ws_size, name, sizeof name));
    for (int i = 1; i < 6; i++)
        CHECK(hipdnnDeviceMalloc_ext(&d[i], bytes[i]));
    CHECK(hipdnnDeviceMalloc_ext(&dws, (size_t)ws_size));
    for (int i = 0; i < 3; i++)
        CHECK(hipdnnMemcpyHostToDevice_ext(d[i], src[i], bytes[i]));
    for (int i = 0; i < ROWS * COLS; i++)
        y[i] = NAN;
    CHECK(hipdnnMemcpyHostToDevice_ext(d[3], y, sizeof y)); /* poisoned output */
    int64_t uids[] = {1, 2, 3, 5, 6, 7};
    CHECK(bind_and_execute(handle, plan, 6, uids, d, dws));
    CHECK(hipdnnStreamSynchronize_ext(handle));
    CHECK(hipdnnMemcpyDeviceToHost_ext(y, d[3], sizeof y));
    for (int i = 0; i < 6; i++)
        hipdnnDeviceFree_ext(d[i]);
    hipdnnDeviceFree_ext(dws);
    hipdnnBackendDestroyDescriptor(plan);
    double err = max_error();
    printf("executed on the GPU by engine '%s' (kernel generated, compiled and launched): max |y - "
           "y_ref| = %.2e %s\n", name, err, err < 1e-4 ? "(ok)" : "(WRONG)");
    return err < 1e-4 ? HIPDNN_STATUS_SUCCESS : HIPDNN_STATUS_EXECUTION_FAILED;
}

static hipdnnStatus_t run_layernorm(hipdnnHandle_t handle, hipdnnBackendDescriptor_t graph)
{
    srand(7);
    for (int i = 0; i < ROWS * COLS; i++)
        x[i] = (float)rand() / (float)RAND_MAX * 4 - 2;
    for (int i = 0; i < COLS; i++)
        scale[i] = (float)rand() / (float)RAND_MAX + 0.5f, bias[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    hipdnnStatus_t st = run_on_host(handle, graph);
    return st == HIPDNN_STATUS_SUCCESS ? run_on_gpu(handle, graph) : st;
}

static hipdnnStatus_t print_json(hipdnnBackendDescriptor_t graph)
{
    size_t n = 0;
    CHECK(hipdnnBackendGetSerializedJsonGraph_ext(graph, 0, &n, NULL));
    char *text = malloc(n);
    if (text == NULL)
        return HIPDNN_STATUS_ALLOC_FAILED;
    hipdnnStatus_t st = hipdnnBackendGetSerializedJsonGraph_ext(graph, n, &n, text);
    if (st == HIPDNN_STATUS_SUCCESS)
        printf("%s\n", text);
    free(text);
    return st;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf != NULL)
        *len = (size_t)n;
    if (f != NULL)
        fclose(f);
    return buf;
}

/* Loads a JSON graph, finalizes it, and round-trips it through the binary form. */
static hipdnnStatus_t show_file(hipdnnHandle_t handle, const char *path)
{
    size_t len = 0, bin_len = 0;
    char *text = read_file(path, &len);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        return HIPDNN_STATUS_BAD_PARAM;
    }
    hipdnnBackendDescriptor_t g, g2;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, len);
    free(text);
    CHECK(st);
    CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    CHECK(hipdnnBackendFinalize(g));
    int64_t n_ops = 0;
    CHECK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
                                    0, &n_ops, NULL));
    char key[33] = "(none)";
    int64_t key_len = 0;
    if (hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR,
                                  sizeof key, &key_len, key) != HIPDNN_STATUS_SUCCESS)
        hipdnnGetLastErrorString(key, sizeof key);
    CHECK(hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &bin_len, NULL));
    uint8_t *bin = malloc(bin_len);
    st = bin == NULL ? HIPDNN_STATUS_ALLOC_FAILED
                     : hipdnnBackendGetSerializedBinaryGraph_ext(g, bin_len, &bin_len, bin);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hipdnnBackendCreateAndDeserializeGraph_ext(&g2, bin, bin_len);
    free(bin);
    CHECK(st);
    printf("%-40s %lld ops, key %s, %zu bytes as FlatBuffer, round trip ok\n", path,
           (long long)n_ops, key, bin_len);
    hipdnnBackendDestroyDescriptor(g2);
    hipdnnBackendDestroyDescriptor(g);
    return HIPDNN_STATUS_SUCCESS;
}

int main(int argc, char **argv)
{
    hipdnnHandle_t handle;
    hipdnnBackendDescriptor_t graph;
    printf("hipdnn-jit %s\n", hipdnnVersionString_ext());
    if (hipdnnCreate(&handle) != HIPDNN_STATUS_SUCCESS || build_layernorm(handle, &graph) != 0)
        return 1;
    printf("A layernorm graph built through the backend API:\n");
    int rc = print_json(graph) != HIPDNN_STATUS_SUCCESS;
    rc |= run_layernorm(handle, graph) != HIPDNN_STATUS_SUCCESS;
    hipdnnBackendDestroyDescriptor(graph);
    for (int i = 1; i < argc; i++)
        rc |= show_file(handle, argv[i]) != HIPDNN_STATUS_SUCCESS;
    hipdnnDestroy(handle);
    return rc;
}
