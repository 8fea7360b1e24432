/* test_hip_source.c — the built-in custom op jit.hip_source: a user's own HIP/CUDA kernel in a
 * graph, no plugin (include/hipdnn_jit_custom_op.h, README.md "Custom ops"). Public API only.
 *
 * On the reference engine (CPU CI: the kernel is built with the host C++ compiler and run on the
 * host block scheduler), each checked element by element against a formula computed here, on
 * fresh random data with the outputs poisoned:
 *   - |x| -> y = a·|x| + b -> −y: the user kernel between two built-in ops, over a strided,
 *     permuted 4-D tensor [N0, N1, N2, N3], a 2-D grid (x over N3, y over the rows), its sizes
 *     and strides passed as dim() / stride() arguments, a and b random integers in thousandths;
 *   - a per-row sum [R, C] -> [R, 1] through a static __shared__ array and __syncthreads;
 *   - a per-row max through warp shuffles (__shfl_down_sync) and dynamic shared memory
 *     (extern __shared__, shared_bytes);
 *   - two threads executing graphs of one kernel at once (one host object between them);
 *   - examples/graphs/hip_source_scale.json, read from its JSON form: relu(1.5·x − 0.25);
 *   - repeated executes and a second graph of the same kernel: built once, leaving no file in
 *     TMPDIR; a kernel that does not compile fails the
 *     execute with EXECUTION_FAILED and the compiler's first lines; no host compiler says so.
 * Refusals at graph finalize (the provider's check; reported by every engine, with the reason):
 * bad JSON, no source, an unknown key, an entry not in the source, "in5" of one input, a dim
 * index out of range, a division by zero, a block too large, an output named by no argument,
 * an unknown operation jit.nope; and the name `jit` is taken. Compile-only for sm_90 (NVRTC;
 * skips without it). On a GPU, the JIT plan against the reference engine (skips without one).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"
#include "hipdnn_jit_custom_op.h"
#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

/* ---- helpers -------------------------------------------------------------------------------------- */

/* text as a JSON string literal (quotes included) appended to out */
static void json_string(const char *text, char *out, size_t size)
{
    size_t k = strlen(out);
    out[k++] = '"';
    for (const char *c = text; *c != '\0' && k + 8 < size; c++) {
        if (*c == '"' || *c == '\\')
            out[k++] = '\\', out[k++] = *c;
        else if (*c == '\n')
            out[k++] = '\\', out[k++] = 'n';
        else
            out[k++] = *c;
    }
    out[k++] = '"';
    out[k] = '\0';
}

/* {"source": <source>, <rest>} */
static char *payload(const char *source, const char *rest)
{
    size_t size = 2 * strlen(source) + strlen(rest) + 64;
    char *p = malloc(size);
    cr_assert_not_null(p);
    snprintf(p, size, "{\"source\": ");
    json_string(source, p, size);
    snprintf(p + strlen(p), size - strlen(p), ", %s}", rest);
    return p;
}

static hipdnnBackendDescriptor_t strided(int64_t uid, int rank, const int64_t *dims, const int64_t *strides,
                                         bool is_virtual)
{
    hipdnnBackendDescriptor_t t = tu_tensor_unfinalized(uid, HIPDNN_DATA_FLOAT, rank, dims, strides, is_virtual);
    TU_OK(hipdnnBackendFinalize(t));
    return t;
}

/* The custom op `id` with its payload text, finalized. */
static hipdnnBackendDescriptor_t custom(const char *id, const char *text, hipdnnBackendDescriptor_t in,
                                        hipdnnBackendDescriptor_t out)
{
    hipdnnBackendDescriptor_t op;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, HIPDNN_TYPE_CHAR, (int64_t)strlen(id),
                                    id));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(text), text));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, DESC, 1, &in));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendFinalize(op));
    return op;
}

static hipdnnBackendDescriptor_t graph_of(hipdnnHandle_t h, hipdnnBackendDescriptor_t *ops, int n)
{
    hipdnnBackendDescriptor_t g;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n, ops));
    TU_OK(hipdnnBackendFinalize(g));
    return g;
}

static void destroy_all(hipdnnBackendDescriptor_t *d, int n)
{
    for (int i = 0; i < n; i++)
        hipdnnBackendDestroyDescriptor(d[i]);
}

static int64_t engine(hipdnnHandle_t h, const char *name)
{
    int64_t id;
    TU_OK(hipdnnGetEngineIdByName_ext(h, name, &id));
    return id;
}

/* Runs g on the named engine: uids[i] bound to host (device false) or device copies of host[i]
 * (bytes[i]); the last one is the output, copied back. The execute's status. */
static hipdnnStatus_t run(hipdnnHandle_t h, hipdnnBackendDescriptor_t g, const char *name, int n, const int64_t *uids,
                          void *const *host, const size_t *bytes, bool device)
{
    hipdnnBackendDescriptor_t plan;
    hipdnnStatus_t st = tu_try_plan(h, g, engine(h, name), &plan);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    int64_t ws_size = 0, got = 0;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &got,
                                    &ws_size));
    void *ptrs[4], *ws = NULL;
    for (int i = 0; i < n; i++) {
        ptrs[i] = host[i];
        if (device) {
            TU_OK(hipdnnDeviceMalloc_ext(&ptrs[i], bytes[i]));
            TU_OK(hipdnnMemcpyHostToDevice_ext(ptrs[i], host[i], bytes[i])); /* the output: its poison */
        }
    }
    if (ws_size > 0 && device)
        TU_OK(hipdnnDeviceMalloc_ext(&ws, (size_t)ws_size));
    else if (ws_size > 0)
        ws = malloc((size_t)ws_size);
    hipdnnBackendDescriptor_t pack = tu_pack(n, uids, ptrs, ws);
    st = hipdnnBackendExecute(h, plan, pack);
    if (device) {
        TU_OK(hipdnnStreamSynchronize_ext(h));
        TU_OK(hipdnnMemcpyDeviceToHost_ext(host[n - 1], ptrs[n - 1], bytes[n - 1]));
        for (int i = 0; i < n; i++)
            hipdnnDeviceFree_ext(ptrs[i]);
        hipdnnDeviceFree_ext(ws);
    } else {
        free(ws);
    }
    hipdnnBackendDestroyDescriptor(pack), hipdnnBackendDestroyDescriptor(plan);
    return st;
}

static bool close_to(double got, double want, double atol, double rtol)
{
    return fabs(got - want) <= atol + rtol * fabs(want);
}

/* ---- y = −(a·|x| + b) over a strided 4-D tensor --------------------------------------------------- */

enum { N0 = 2, N1 = 3, N2 = 4, N3 = 5, NX = N0 * 4 * N1 * 8 };

static const char affine_source[] =
    "extern \"C\" __global__ void affine(const float *__restrict__ x, float *__restrict__ y, long long n0,\n"
    "                                    long long n1, long long n2, long long n3, long long xs0, long long xs1,\n"
    "                                    long long xs2, long long xs3, long long ys0, long long ys1,\n"
    "                                    long long ys2, long long ys3, long long a_milli, long long b_milli)\n"
    "{\n"
    "    long long i3 = (long long)blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y; /* row: n0 n1 n2 */\n"
    "    if (i3 >= n3)\n"
    "        return;\n"
    "    long long i2 = row % n2, i1 = row / n2 % n1, i0 = row / (n1 * n2);\n"
    "    float a = (float)a_milli / 1000.0f, b = (float)b_milli / 1000.0f;\n"
    "    y[i0 * ys0 + i1 * ys1 + i2 * ys2 + i3 * ys3] = a * x[i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3] + b;\n"
    "}\n";

typedef struct affine_case {
    long long a_milli, b_milli;
    hipdnnBackendDescriptor_t d[8], g;
} affine_case;

/* x (uid 1, [N0, N1, N2, N3] in [N0][N2][N1][N3 padded to 8] memory) -> ABS -> a (virtual, channels
 * last) -> jit.hip_source -> c (virtual, packed) -> NEG -> y (uid 4, packed). */
static void affine_graph(hipdnnHandle_t h, affine_case *k)
{
    int64_t dims[] = {N0, N1, N2, N3}, xs[] = {N2 * N1 * 8, 8, N1 * 8, 1}, as[] = {N1 * N2 * N3, 1, N3 * N1, N1};
    int64_t ps[4];
    tu_packed_strides(4, dims, ps);
    k->d[0] = strided(1, 4, dims, xs, false), k->d[1] = strided(2, 4, dims, as, true);
    k->d[2] = strided(3, 4, dims, ps, true), k->d[3] = strided(4, 4, dims, ps, false);
    char rest[1024];
    snprintf(rest, sizeof rest,
             "\"entry\": \"affine\", \"block\": [4], \"grid\": [\"cdiv(dim(out0, -1), 4)\", \"numel(out0) / "
             "dim(out0, 3)\"], \"args\": [\"in0\", \"out0\", \"dim(in0, 0)\", \"dim(in0, 1)\", \"dim(in0, 2)\", "
             "\"dim(in0, -1)\", \"stride(in0, 0)\", \"stride(in0, 1)\", \"stride(in0, 2)\", \"stride(in0, 3)\", "
             "\"stride(out0, 0)\", \"stride(out0, 1)\", \"stride(out0, -2)\", \"stride(out0, -1)\", %lld, %lld]",
             k->a_milli, k->b_milli);
    char *text = payload(affine_source, rest);
    k->d[4] = tu_unary(HIPDNN_POINTWISE_ABS, k->d[0], k->d[1]);
    k->d[5] = custom("jit.hip_source", text, k->d[1], k->d[2]);
    k->d[6] = tu_unary(HIPDNN_POINTWISE_NEG, k->d[2], k->d[3]);
    free(text);
    k->g = graph_of(h, &k->d[4], 3);
}

static void affine_inputs(float *x, float *y)
{
    for (int i = 0; i < NX; i++)
        x[i] = tu_float(-3.0f, 3.0f);
    for (int i = 0; i < N0 * N1 * N2 * N3; i++)
        y[i] = NAN;
}

/* y against −(a·|x| + b), in float as the kernel computes it (no contraction on the host). */
static int affine_compare(const affine_case *k, const float *x, const float *y, double tol)
{
    float a = (float)k->a_milli / 1000.0f, b = (float)k->b_milli / 1000.0f;
    int bad = 0;
    for (int i0 = 0; i0 < N0; i0++)
        for (int i1 = 0; i1 < N1; i1++)
            for (int i2 = 0; i2 < N2; i2++)
                for (int i3 = 0; i3 < N3; i3++) {
                    float xv = x[i0 * N2 * N1 * 8 + i2 * N1 * 8 + i1 * 8 + i3];
                    double want = -(double)(a * fabsf(xv) + b);
                    float got = y[((i0 * N1 + i1) * N2 + i2) * N3 + i3];
                    if (!close_to(got, want, tol, tol) && bad++ < 5)
                        cr_log_error("y[%d,%d,%d,%d] = %.9g, want %.9g (x %.9g, a %g, b %g)", i0, i1, i2, i3, got,
                                     want, xv, a, b);
                }
    return bad;
}

static void affine_random(affine_case *k)
{
    k->a_milli = tu_range(-2000, 2000), k->b_milli = tu_range(-1000, 1000);
}

Test(hip_source, a_user_kernel_between_built_in_ops_on_the_reference_engine)
{
    tu_seed("hip_source/a_user_kernel_between_built_in_ops_on_the_reference_engine");
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    affine_case k;
    affine_random(&k);
    affine_graph(h, &k);
    static float x[NX], y[N0 * N1 * N2 * N3];
    affine_inputs(x, y);
    int64_t uids[] = {1, 4};
    void *host[] = {x, y};
    size_t bytes[] = {sizeof x, sizeof y};
    TU_OK(run(h, k.g, "reference", 2, uids, host, bytes, false));
    int bad = affine_compare(&k, x, y, 1e-6);
    cr_expect_eq(bad, 0, "%d of %d elements off", bad, N0 * N1 * N2 * N3);
    hipdnnBackendDestroyDescriptor(k.g), destroy_all(k.d, 7);
    TU_OK(hipdnnDestroy(h));
}

/* ---- per-row reductions: static shared memory, shuffles, dynamic shared memory ------------------ */

enum { R = 6, C = 300 };

static const char rowsum_source[] =
    "#define THREADS 64\n"
    "extern \"C\" __global__ void rowsum(const float *x, float *s, long long cols, long long xs0, long long xs1)\n"
    "{\n"
    "    __shared__ float part[THREADS];\n"
    "    const float *row = x + blockIdx.x * xs0;\n"
    "    float acc = 0.0f;\n"
    "    for (long long c = threadIdx.x; c < cols; c += THREADS)\n"
    "        acc += row[c * xs1];\n"
    "    part[threadIdx.x] = acc;\n"
    "    __syncthreads();\n"
    "    for (int half = THREADS / 2; half > 0; half /= 2) {\n"
    "        if (threadIdx.x < half)\n"
    "            part[threadIdx.x] += part[threadIdx.x + half];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"
    "        s[blockIdx.x] = part[0];\n"
    "}\n";

static const char rowmax_source[] =
    "extern __shared__ float warp_max[]; /* one per warp: shared_bytes */\n"
    "extern \"C\" __global__ void rowmax(const float *x, float *m, long long cols, long long xs0, long long xs1)\n"
    "{\n"
    "    float v = -3.0e38f;\n"
    "    for (long long c = threadIdx.x; c < cols; c += blockDim.x)\n"
    "        v = fmaxf(v, x[blockIdx.x * xs0 + c * xs1]);\n"
    "    for (int d = 16; d > 0; d /= 2)\n"
    "        v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, d));\n"
    "    if (threadIdx.x % 32 == 0)\n"
    "        warp_max[threadIdx.x / 32] = v;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) {\n"
    "        float r = warp_max[0];\n"
    "        for (unsigned w = 1; w < blockDim.x / 32; w++)\n"
    "            r = fmaxf(r, warp_max[w]);\n"
    "        m[blockIdx.x] = r;\n"
    "    }\n"
    "}\n";

/* x [R, C] (rows padded to C + 3) -> jit.hip_source -> out [R, 1]; the reference's result in out. */
static void row_reduce(const char *source, const char *entry, const char *launch, const float *x, float *out)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    int64_t xd[] = {R, C}, xs[] = {C + 3, 1}, sd[] = {R, 1}, ss[] = {1, 1};
    hipdnnBackendDescriptor_t d[3];
    d[0] = strided(1, 2, xd, xs, false), d[1] = strided(2, 2, sd, ss, false);
    char rest[512];
    snprintf(rest, sizeof rest, "\"entry\": \"%s\", %s, \"grid\": [\"dim(in0, 0)\"], \"args\": [\"in0\", \"out0\", "
             "\"dim(in0, 1)\", \"stride(in0, 0)\", \"stride(in0, 1)\"]", entry, launch);
    char *text = payload(source, rest);
    d[2] = custom("jit.hip_source", text, d[0], d[1]);
    free(text);
    hipdnnBackendDescriptor_t g = graph_of(h, &d[2], 1);
    int64_t uids[] = {1, 2};
    void *host[] = {(void *)x, out};
    size_t bytes[] = {R * (C + 3) * sizeof(float), R * sizeof(float)};
    TU_OK(run(h, g, "reference", 2, uids, host, bytes, false));
    hipdnnBackendDestroyDescriptor(g), destroy_all(d, 3);
    TU_OK(hipdnnDestroy(h));
}

Test(hip_source, static_shared_memory_and_barriers_a_row_sum)
{
    tu_seed("hip_source/static_shared_memory_and_barriers_a_row_sum");
    static float x[R * (C + 3)], s[R];
    for (int i = 0; i < R * (C + 3); i++)
        x[i] = tu_float(-1.0f, 1.0f);
    for (int r = 0; r < R; r++)
        s[r] = NAN;
    row_reduce(rowsum_source, "rowsum", "\"block\": [64]", x, s);
    for (int r = 0; r < R; r++) {
        double want = 0;
        for (int c = 0; c < C; c++)
            want += x[r * (C + 3) + c];
        cr_expect(close_to(s[r], want, 1e-5, 1e-5), "row %d: sum %.9g, want %.9g", r, s[r], want);
    }
}

Test(hip_source, warp_shuffles_and_dynamic_shared_memory_a_row_max)
{
    tu_seed("hip_source/warp_shuffles_and_dynamic_shared_memory_a_row_max");
    static float x[R * (C + 3)], m[R];
    for (int i = 0; i < R * (C + 3); i++)
        x[i] = tu_float(-100.0f, 100.0f);
    for (int r = 0; r < R; r++)
        m[r] = NAN;
    row_reduce(rowmax_source, "rowmax", "\"block\": [128], \"shared_bytes\": 16", x, m);
    for (int r = 0; r < R; r++) {
        float want = -INFINITY;
        for (int c = 0; c < C; c++)
            want = fmaxf(want, x[r * (C + 3) + c]);
        cr_expect_eq(m[r], want, "row %d: max %.9g, want %.9g", r, m[r], want);
    }
}

static void count_builds(hipdnnUserLogCallbackHandle_t user, hipdnnSeverity_t sev, const char *msg)
{
    (void)sev;
    if (strstr(msg, "host kernel object built") != NULL)
        (*(int *)user)++;
}

/* Three executes of one plan, then a second graph with the same kernel (other a, b): right each
 * time, built once, and the build leaves nothing in TMPDIR. */
Test(hip_source, repeated_executes_build_once_and_leave_no_files)
{
    tu_seed("hip_source/repeated_executes_build_once_and_leave_no_files");
    char dir[] = "/tmp/hipdnn-hs-tmp-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    setenv("TMPDIR", dir, 1);
    static int builds;
    TU_OK(hipdnnBackendSetGlobalLogLevel_ext(HIPDNN_SEV_INFO));
    TU_OK(hipdnnSetUserLogCallback_ext(count_builds, HIPDNN_SEV_INFO, HIPDNN_LOG_CALLBACK_SYNC, &builds));
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    for (int graph = 0; graph < 2; graph++) {
        affine_case k;
        affine_random(&k);
        affine_graph(h, &k);
        for (int rep = 0; rep < (graph == 0 ? 3 : 1); rep++) {
            static float x[NX], y[N0 * N1 * N2 * N3];
            affine_inputs(x, y);
            int64_t uids[] = {1, 4};
            void *host[] = {x, y};
            size_t bytes[] = {sizeof x, sizeof y};
            TU_OK(run(h, k.g, "reference", 2, uids, host, bytes, false));
            cr_expect_eq(affine_compare(&k, x, y, 1e-6), 0, "graph %d, execute %d", graph, rep);
        }
        hipdnnBackendDestroyDescriptor(k.g), destroy_all(k.d, 7);
    }
    TU_OK(hipdnnDestroy(h));
    TU_OK(hipdnnSetUserLogCallback_ext(count_builds, HIPDNN_SEV_OFF, HIPDNN_LOG_CALLBACK_SYNC, &builds));
    cr_expect_eq(builds, 1, "the kernel's host object was built %d times", builds);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int left = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            cr_log_error("left in TMPDIR: %s", e->d_name), left++;
    closedir(d);
    cr_expect_eq(left, 0, "%d entries left in %s", left, dir);
    cr_expect_eq(rmdir(dir), 0);
}

/* Two threads, each with its own handle and graph of one kernel, executing at once: they share
 * the kernel's host object (its scheduler and its static __shared__ array are the object's). The
 * kernel rotates each block's 64 values by one place ITERS times between barriers, so an execute
 * takes long enough to overlap the other thread's, and any mixing of the two shows. */
enum { SPIN_BLOCKS = 16, SPIN_ITERS = 61, SPIN_N = SPIN_BLOCKS * 64 };

static const char spin_source[] =
    "extern \"C\" __global__ void spin(const float *x, float *y, long long iters)\n"
    "{\n"
    "    __shared__ float ring[64];\n"
    "    ring[threadIdx.x] = x[blockIdx.x * 64 + threadIdx.x];\n"
    "    for (long long i = 0; i < iters; i++) {\n"
    "        __syncthreads();\n"
    "        float v = ring[(threadIdx.x + 1) % 64];\n"
    "        __syncthreads();\n"
    "        ring[threadIdx.x] = v;\n"
    "    }\n"
    "    y[blockIdx.x * 64 + threadIdx.x] = ring[threadIdx.x];\n"
    "}\n";

typedef struct spin_job {
    hipdnnHandle_t h;
    float x[SPIN_N], y[SPIN_N];
    int bad;
    hipdnnStatus_t st;
} spin_job;

static void *spin_thread(void *arg)
{
    spin_job *j = arg;
    hipdnnHandle_t h = j->h;
    int64_t dims[] = {SPIN_N};
    hipdnnBackendDescriptor_t d[3];
    d[0] = tu_tensor(1, HIPDNN_DATA_FLOAT, 1, dims, false, NULL, 0);
    d[1] = tu_tensor(2, HIPDNN_DATA_FLOAT, 1, dims, false, NULL, 0);
    char rest[256];
    snprintf(rest, sizeof rest, "\"entry\": \"spin\", \"block\": [64], \"grid\": [\"numel(in0) / 64\"], "
             "\"args\": [\"in0\", \"out0\", %d]", SPIN_ITERS);
    char *text = payload(spin_source, rest);
    d[2] = custom("jit.hip_source", text, d[0], d[1]);
    free(text);
    hipdnnBackendDescriptor_t g = graph_of(h, &d[2], 1);
    int64_t uids[] = {1, 2};
    void *host[] = {j->x, j->y};
    size_t bytes[] = {sizeof j->x, sizeof j->y};
    for (int rep = 0; rep < 3 && j->st == HIPDNN_STATUS_SUCCESS; rep++) {
        for (int i = 0; i < SPIN_N; i++)
            j->y[i] = NAN;
        j->st = run(h, g, "reference", 2, uids, host, bytes, false);
        for (int b = 0; b < SPIN_BLOCKS; b++)
            for (int t = 0; t < 64; t++)
                j->bad += j->y[b * 64 + t] != j->x[b * 64 + (t + SPIN_ITERS) % 64];
    }
    hipdnnBackendDestroyDescriptor(g), destroy_all(d, 3);
    return NULL;
}

Test(hip_source, two_threads_execute_one_kernel_at_once)
{
    tu_seed("hip_source/two_threads_execute_one_kernel_at_once");
    static spin_job jobs[2];
    /* the GPU runtime is looked for here, on the main thread (the first device query does it):
     * libamdhip64's constructor leaks when it is loaded from a thread that then exits */
    void *probe = NULL;
    if (hipdnnDeviceMalloc_ext(&probe, 16) == HIPDNN_STATUS_SUCCESS)
        hipdnnDeviceFree_ext(probe);
    for (int t = 0; t < 2; t++) {
        TU_OK(hipdnnCreate(&jobs[t].h));
        for (int i = 0; i < SPIN_N; i++)
            jobs[t].x[i] = tu_float(-1.0f, 1.0f);
    }
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, spin_thread, &jobs[t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++) {
        cr_expect_eq(jobs[t].st, HIPDNN_STATUS_SUCCESS, "thread %d: %s", t, tu_st(jobs[t].st));
        cr_expect_eq(jobs[t].bad, 0, "thread %d: %d of %d elements off in 3 executes", t, jobs[t].bad, 3 * SPIN_N);
        TU_OK(hipdnnDestroy(jobs[t].h));
    }
}

/* x [R, C] -> jit.hip_source(text) -> y [R, 1] executed on the reference engine: the status. */
static hipdnnStatus_t execute_one(const char *text)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    int64_t xd[] = {R, C}, sd[] = {R, 1};
    hipdnnBackendDescriptor_t d[3];
    d[0] = tu_tensor(1, HIPDNN_DATA_FLOAT, 2, xd, false, NULL, 0);
    d[1] = tu_tensor(2, HIPDNN_DATA_FLOAT, 2, sd, false, NULL, 0);
    d[2] = custom("jit.hip_source", text, d[0], d[1]);
    hipdnnBackendDescriptor_t g = graph_of(h, &d[2], 1);
    static float x[R * C], y[R];
    int64_t uids[] = {1, 2};
    void *host[] = {x, y};
    size_t bytes[] = {sizeof x, sizeof y};
    hipdnnStatus_t st = run(h, g, "reference", 2, uids, host, bytes, false);
    hipdnnBackendDestroyDescriptor(g), destroy_all(d, 3);
    hipdnnDestroy(h);
    return st;
}

Test(hip_source, a_kernel_that_does_not_compile_fails_the_execute_with_the_compilers_lines)
{
    char *text = payload("extern \"C\" __global__ void broken(float *y)\n{\n    y[0] = undeclared_name;\n}\n",
                         "\"entry\": \"broken\", \"block\": [1], \"grid\": [1], \"args\": [\"out0\"]");
    hipdnnStatus_t st = execute_one(text);
    free(text);
    cr_expect_eq(st, HIPDNN_STATUS_EXECUTION_FAILED, "%s", tu_st(st));
    const char *want[] = {"custom op 'jit.hip_source'", "was not built", "undeclared_name", "jit.hip_source:3"};
    for (int i = 0; i < 4; i++)
        cr_expect(strstr(tu_msg(), want[i]) != NULL, "want '%s' in: %s", want[i], tu_msg());
}

Test(hip_source, no_host_compiler_is_a_clear_refusal_at_execute)
{
    setenv("HIPDNN_HOST_CXX", "/nonexistent/hipdnn-no-such-c++", 1);
    char *text = payload("extern \"C\" __global__ void one(float *y) { y[threadIdx.x] = 1.0f; }",
                         "\"entry\": \"one\", \"block\": [6], \"grid\": [1], \"args\": [\"out0\"]");
    hipdnnStatus_t st = execute_one(text);
    free(text);
    cr_expect_eq(st, HIPDNN_STATUS_EXECUTION_FAILED, "%s", tu_st(st));
    cr_expect(strstr(tu_msg(), "no host C++ compiler") != NULL && strstr(tu_msg(), "HIPDNN_HOST_CXX") != NULL, "%s",
              tu_msg());
}

/* examples/graphs/hip_source_scale.json: relu(1.5·x − 0.25) over [512, 1024], from the JSON form. */
Test(hip_source, the_example_graph_runs_on_the_reference_engine)
{
    tu_seed("hip_source/the_example_graph_runs_on_the_reference_engine");
    enum { ROWS = 512, COLS = 1024 };
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t g = tu_example_graph(h, "hip_source_scale.json");
    static float x[ROWS * COLS], y[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++)
        x[i] = tu_float(-1.0f, 1.0f), y[i] = NAN;
    int64_t uids[] = {1, 3};
    void *host[] = {x, y};
    size_t bytes[] = {sizeof x, sizeof y};
    TU_OK(run(h, g, "reference", 2, uids, host, bytes, false));
    int bad = 0;
    for (int i = 0; i < ROWS * COLS; i++) {
        float want = fmaxf(0.0f, 1500.0f / 1000.0f * x[i] + -250.0f / 1000.0f);
        if (!close_to(y[i], want, 1e-6, 1e-6) && bad++ < 5)
            cr_log_error("y[%d] = %.9g, want %.9g (x %.9g)", i, y[i], want, x[i]);
    }
    cr_expect_eq(bad, 0, "%d of %d elements off", bad, ROWS * COLS);
    hipdnnBackendDestroyDescriptor(g);
    TU_OK(hipdnnDestroy(h));
}

/* ---- refusals at finalize --------------------------------------------------------------------------- */

static const char tiny_source[] = "extern \"C\" __global__ void k(const float *x, float *y, long long n) {}";

Test(hip_source, bad_payloads_are_refused_at_finalize_with_the_reason)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    char *good = payload(tiny_source, "\"entry\": \"k\", \"block\": [64], \"grid\": [1], \"args\": [\"in0\", "
                         "\"out0\", \"numel(in0)\"]");
    char *cases[][3] = {
        {"jit.hip_source", good, NULL}, /* accepted: the cases below differ from it in one thing */
        {"jit.hip_source", strdup("{\"source\": \"x\", "), "not valid JSON"},
        {"jit.hip_source", strdup("{\"entry\": \"k\", \"block\": [1], \"grid\": [1], \"args\": [\"out0\"]}"),
         "\"source\" is missing"},
        {"jit.hip_source", payload(tiny_source, "\"entry\": \"k\", \"blocks\": [1], \"block\": [1], \"grid\": [1], "
                                   "\"args\": [\"out0\"]"), "unknown key \"blocks\""},
        {"jit.hip_source", payload(tiny_source, "\"entry\": \"scale\", \"block\": [1], \"grid\": [1], \"args\": "
                                   "[\"out0\"]"), "\"entry\" \"scale\" does not occur in \"source\""},
        {"jit.hip_source", payload(tiny_source, "\"entry\": \"k\", \"block\": [1], \"grid\": [1], \"args\": "
                                   "[\"in5\", \"out0\"]"), "args[0] \"in5\": the op has 1 input"},
        {"jit.hip_source", payload(tiny_source, "\"entry\": \"k\", \"block\": [1], \"grid\": [1], \"args\": "
                                   "[\"in0\", \"out0\", \"dim(in0, 9)\"]"), "args[2] \"dim(in0, 9)\": in0 has rank 2"},
        {"jit.hip_source", payload(tiny_source, "\"entry\": \"k\", \"block\": [1], \"grid\": [\"numel(out0) / "
                                   "(dim(in0, 0) - 6)\"], \"args\": [\"out0\"]"),
         "grid[0] \"numel(out0) / (dim(in0, 0) - 6)\": division by zero"},
        {"jit.hip_source", payload(tiny_source, "\"entry\": \"k\", \"block\": [64, 32], \"grid\": [1], \"args\": "
                                   "[\"out0\"]"), "has 2048 threads: at most 1024"},
        {"jit.hip_source", payload(tiny_source, "\"entry\": \"k\", \"block\": [1], \"grid\": [1], \"args\": "
                                   "[\"in0\", 3]"), "output 0 (out0, uid 2) is named by no argument"},
        {"jit.nope", strdup(good), "jit has no operation 'jit.nope' (it has: hip_source"},
    };
    enum { N_CASES = sizeof cases / sizeof cases[0] };
    for (int k = 0; k < N_CASES; k++) {
        int64_t xd[] = {R, C}, sd[] = {R, 1};
        hipdnnBackendDescriptor_t d[3], plan = NULL;
        d[0] = tu_tensor(1, HIPDNN_DATA_FLOAT, 2, xd, false, NULL, 0);
        d[1] = tu_tensor(2, HIPDNN_DATA_FLOAT, 2, sd, false, NULL, 0);
        d[2] = custom(cases[k][0], cases[k][1], d[0], d[1]);
        hipdnnBackendDescriptor_t g = graph_of(h, &d[2], 1); /* the graph holds what was said (hipDNN's rule) */
        char key[40];
        int64_t n = 0;
        hipdnnStatus_t key_st = hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT,
                                                          HIPDNN_TYPE_CHAR, sizeof key, &n, key);
        if (cases[k][2] == NULL) {
            TU_OK(key_st);
            TU_OK(tu_try_plan(h, g, engine(h, "reference"), &plan));
            hipdnnBackendDestroyDescriptor(plan);
        } else {
            /* finalize ran the check: the graph has no IR, and says why */
            cr_expect_eq(key_st, HIPDNN_STATUS_NOT_SUPPORTED, "case %d: the graph key: %s", k, tu_st(key_st));
            cr_expect(strstr(tu_msg(), cases[k][2]) != NULL, "case %d: want '%s' in: %s", k, cases[k][2], tu_msg());
            TU_EQ(tu_try_plan(h, g, engine(h, "reference"), &plan), HIPDNN_STATUS_NOT_SUPPORTED);
            const char *want[] = {"provider 'jit' refuses it", cases[k][2]};
            for (int w = 0; w < 2; w++)
                cr_expect(strstr(tu_msg(), want[w]) != NULL, "case %d: want '%s' in: %s", k, want[w], tu_msg());
            cr_expect_null(plan);
        }
        hipdnnBackendDestroyDescriptor(g), destroy_all(d, 3);
        free(cases[k][1]);
    }
    TU_OK(hipdnnDestroy(h));
}

static int no_op(const hipdnnJitCustomOpCall_t *c, char *why, size_t n) { return (void)c, (void)why, (void)n, 0; }

Test(hip_source, the_name_jit_is_the_librarys)
{
    hipdnnJitCustomOpProvider_t p = {.api_version = HIPDNN_JIT_CUSTOM_OP_API_VERSION, .name = "jit",
                                     .version = "9", .check = no_op, .reference = no_op};
    TU_EQ(hipdnnJitRegisterCustomOpProvider_ext(&p), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "the name is taken (built into the library)") != NULL, "%s", tu_msg());
}

/* ---- the GPU side ----------------------------------------------------------------------------------- */

Test(hip_source, compiles_for_sm_90)
{
    if (hipdnnSetCompileTarget_ext("sm_90", 0) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine: %s", tu_msg());
    tu_seed("hip_source/compiles_for_sm_90");
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    affine_case k;
    affine_random(&k);
    affine_graph(h, &k);
    hipdnnBackendDescriptor_t plan;
    TU_OK(tu_try_plan(h, k.g, engine(h, "jit_fused"), &plan)); /* the built-in kernels and the user's */
    int64_t st[4] = {0}, n = 0;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT, HIPDNN_TYPE_INT64, 4, &n,
                                    st));
    cr_expect_geq(st[0], 3, "three kernels: abs, the user's, neg (%lld)", (long long)st[0]);
    cr_expect_eq(st[1], st[0], "all compiled (%lld of %lld)", (long long)st[1], (long long)st[0]);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(k.g), destroy_all(k.d, 7);
    TU_OK(hipdnnDestroy(h));
    hipdnnSetCompileTarget_ext(NULL, 0);
}

Test(hip_source, the_gpu_plan_matches_the_reference_engine)
{
    tu_need_gpu();
    tu_seed("hip_source/the_gpu_plan_matches_the_reference_engine");
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    affine_case k;
    affine_random(&k);
    affine_graph(h, &k);
    static float x[NX], want[N0 * N1 * N2 * N3], got[N0 * N1 * N2 * N3];
    affine_inputs(x, want);
    for (int i = 0; i < N0 * N1 * N2 * N3; i++)
        got[i] = NAN;
    int64_t uids[] = {1, 4};
    size_t bytes[] = {sizeof x, sizeof want};
    void *host_ref[] = {x, want}, *host_gpu[] = {x, got};
    TU_OK(run(h, k.g, "reference", 2, uids, host_ref, bytes, false));
    TU_OK(run(h, k.g, "jit_fused", 2, uids, host_gpu, bytes, true));
    int bad = 0;
    for (int i = 0; i < N0 * N1 * N2 * N3; i++)
        if (!close_to(got[i], want[i], 1e-5, 1e-5) && bad++ < 5)
            cr_log_error("element %d: GPU %.9g, reference %.9g", i, got[i], want[i]);
    cr_expect_eq(bad, 0, "%d of %d elements off", bad, N0 * N1 * N2 * N3);
    cr_expect_eq(affine_compare(&k, x, got, 1e-5), 0, "the GPU's result against the formula");
    hipdnnBackendDestroyDescriptor(k.g), destroy_all(k.d, 7);
    TU_OK(hipdnnDestroy(h));
}
