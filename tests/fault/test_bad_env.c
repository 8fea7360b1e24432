/* test_bad_env.c — bad environment values change nothing but a warning: no crash, no failed call,
 * the same results.
 *
 * Owns: every environment variable the library reads (logging, kernel cache, JIT dump, platform,
 * NVRTC search paths, HOME / XDG_CACHE_HOME), each set in turn to values a user or a broken
 * launcher might leave there: empty, garbage, negative and overflowing numbers, a 4 KiB string,
 * a relative path, a missing path, a file where a directory belongs, a world-writable directory
 * (paths inside the test's own directory, which the child also works in),
 * bytes that are not UTF-8, printf conversions. Each value gets a fresh process (the library
 * reads its environment once) running one scenario through the library:
 *   - a small layernorm graph (JSON) deserialized, finalized, planned on the reference engine and
 *     executed on fixed inputs (the output bytes are written out);
 *   - the heuristics over every engine (their ranking written out);
 *   - the process's default kernel cache: a kernel stored and read back (whatever its mode: a bad
 *     directory gives the in-memory cache, never a failure);
 *   - an sm_90 compile when NVRTC is found (its search paths are among the variables).
 * The scenario's output must equal a run with a clean environment, byte for byte, and the
 * process must exit normally. The clean run and every bad one use a private cache directory
 * unless the variable under test is the cache's own (HOME / XDG_CACHE_HOME then run with
 * HIPDNN_CACHE_DIR unset, so nothing reaches the user's cache: no bad value names a usable one).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/tu.h"
#include "cache/kc.h"
#include "runtime/rt.h"

static const char *const VARS[] = {
    "HIPDNN_LOG_LEVEL", "HIPDNN_LOG_FILE",   "HIPDNN_CACHE_DIR",     "HIPDNN_CACHE_DISABLE",
    "HIPDNN_CACHE_MAX_BYTES", "HIPDNN_JIT_DUMP_DIR", "HIPDNN_PLATFORM", "HIPDNN_NVRTC_LIBRARY",
    "XDG_CACHE_HOME", "HOME", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONUSERBASE", "PYENV_ROOT",
};

static char long_value[4097];
static char work[] = "/tmp/hipdnn_bad_env_XXXXXX";
static char missing_dir[96]; /* <work>/missing/deeper: nothing there yet */
static char public_dir[96];  /* <work>/public, mode 1777 like /tmp: another user could plant files */

static const char *bad_values[] = {
    "", "garbage", "-1", "99999999999999999999999999", "0x", "1e999", long_value, "relative/dir",
    missing_dir, "/dev/null", public_dir, "\xff\xfe\x80 not utf-8", "%s%n%x%p",
};

/* ---- the scenario, in a child process ----------------------------------------------------------- */

/* The child reports on stderr and exits 1: Criterion's assertions belong to the test's own process. */
#define C_CHECK(cond, ...)                                                                           \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                         \
            fprintf(stderr, __VA_ARGS__);                                                           \
            fputc('\n', stderr), fflush(stderr);                                                   \
            _exit(1);                                                                               \
        }                                                                                           \
    } while (0)
#define C_OK(call)                                                                                   \
    do {                                                                                            \
        hipdnnStatus_t c_s_ = (call);                                                               \
        C_CHECK(c_s_ == HIPDNN_STATUS_SUCCESS, "%s -> %s [%s]", #call, tu_st(c_s_), tu_msg());       \
    } while (0)

static void put(FILE *out, const char *what, const void *p, size_t n)
{
    fprintf(out, "%s %zu:", what, n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%02x", ((const unsigned char *)p)[i]);
    fputc('\n', out);
}

/* A layernorm (training: y, mean, inv_variance) over rows of 64 FLOATs, 4 rows: tensors x 1,
 * scale 2, bias 3, epsilon 4 (by value), y 5, mean 6, inv_variance 7. */
static const char LAYERNORM[] =
    "{\"tensors\": ["
    "{\"uid\": 1, \"data_type\": \"FLOAT\", \"dims\": [4, 64], \"strides\": [64, 1]},"
    "{\"uid\": 2, \"data_type\": \"FLOAT\", \"dims\": [1, 64], \"strides\": [64, 1]},"
    "{\"uid\": 3, \"data_type\": \"FLOAT\", \"dims\": [1, 64], \"strides\": [64, 1]},"
    "{\"uid\": 4, \"data_type\": \"FLOAT\", \"dims\": [1, 1], \"strides\": [1, 1],"
    " \"value_type\": \"Float32Value\", \"value\": {\"value\": 0.00001}},"
    "{\"uid\": 5, \"data_type\": \"FLOAT\", \"dims\": [4, 64], \"strides\": [64, 1]},"
    "{\"uid\": 6, \"data_type\": \"FLOAT\", \"dims\": [4, 1], \"strides\": [1, 1]},"
    "{\"uid\": 7, \"data_type\": \"FLOAT\", \"dims\": [4, 1], \"strides\": [1, 1]}],"
    " \"nodes\": [{\"name\": \"ln\", \"compute_data_type\": \"FLOAT\","
    " \"attributes_type\": \"LayernormAttributes\", \"attributes\": {\"x_tensor_uid\": 1,"
    " \"scale_tensor_uid\": 2, \"bias_tensor_uid\": 3, \"epsilon_tensor_uid\": 4, \"y_tensor_uid\": 5,"
    " \"normalized_dim_count\": 1, \"mean_tensor_uid\": 6, \"inv_variance_tensor_uid\": 7,"
    " \"forward_phase\": \"TRAINING\"}}]}";

static hipdnnBackendDescriptor_t layernorm_graph(hipdnnHandle_t h)
{
    hipdnnBackendDescriptor_t g;
    C_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, LAYERNORM, sizeof LAYERNORM - 1));
    C_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    C_OK(hipdnnBackendFinalize(g));
    return g;
}

/* The layernorm on the reference engine with fixed inputs; y, mean and inv_variance written out. */
static void run_layernorm(hipdnnHandle_t h, FILE *out)
{
    hipdnnBackendDescriptor_t g = layernorm_graph(h);
    int64_t id;
    C_OK(hipdnnGetEngineIdByName_ext(h, "reference", &id));
    hipdnnBackendDescriptor_t plan;
    C_OK(tu_try_plan(h, g, id, &plan));
    int64_t ws = 0, n = 0;
    C_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n,
                                    &ws));
    float x[256], scale[64], bias[64], y[256], mean[4], inv[4];
    for (int k = 0; k < 256; k++) /* fixed, varied inputs; outputs poisoned */
        x[k] = (float)((k * 37) % 101) / 25.0f - 2.0f, y[k] = NAN;
    for (int k = 0; k < 64; k++)
        scale[k] = 0.5f + (float)(k % 7) / 8.0f, bias[k] = (float)(k % 5) - 2.0f;
    for (int k = 0; k < 4; k++)
        mean[k] = inv[k] = NAN;
    int64_t uids[6] = {1, 2, 3, 5, 6, 7};
    void *ptrs[6] = {x, scale, bias, y, mean, inv};
    void *work = malloc((size_t)ws + 1);
    hipdnnBackendDescriptor_t pack;
    C_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    C_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, 6, uids));
    C_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, 6, ptrs));
    C_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &work));
    C_OK(hipdnnBackendFinalize(pack));
    C_OK(hipdnnBackendExecute(h, plan, pack));
    put(out, "layernorm y", y, sizeof y);
    put(out, "mean", mean, sizeof mean);
    put(out, "inv_variance", inv, sizeof inv);
    free(work);
    hipdnnBackendDestroyDescriptor(pack), hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
}

/* The heuristics' ranking of the layernorm: engine ids, best first. */
static void run_heuristics(hipdnnHandle_t h, FILE *out)
{
    hipdnnBackendDescriptor_t g = layernorm_graph(h), heur, cfgs[16];
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    C_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    C_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
                                    1, &g));
    C_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    C_OK(hipdnnBackendFinalize(heur));
    int64_t n = 0;
    C_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n,
                                    NULL));
    C_CHECK(n > 0 && n <= 16, "%lld configs", (long long)n);
    for (int64_t i = 0; i < n; i++)
        C_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    C_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, n, &n,
                                    cfgs));
    int64_t ids[16];
    for (int64_t i = 0; i < n; i++) {
        hipdnnBackendDescriptor_t e = NULL;
        int64_t one = 0;
        C_OK(hipdnnBackendFinalize(cfgs[i]));
        C_OK(hipdnnBackendGetAttribute(cfgs[i], HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                        &one, &e));
        C_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &one, &ids[i]));
        hipdnnBackendDestroyDescriptor(e), hipdnnBackendDestroyDescriptor(cfgs[i]);
    }
    put(out, "ranking", ids, (size_t)n * sizeof ids[0]);
    hipdnnBackendDestroyDescriptor(heur), hipdnnBackendDestroyDescriptor(g);
}

/* The default cache, whatever its mode: a kernel stored is found again. */
static void run_cache(FILE *out)
{
    kc_cache *c = kc_default();
    if (c == NULL && kc_disabled_by_env()) { /* HIPDNN_CACHE_DISABLE's purpose */
        fprintf(out, "cache disabled\n");
        return;
    }
    C_CHECK(c != NULL, "the default cache is NULL without HIPDNN_CACHE_DISABLE");
    static const char code[] = "code object bytes";
    kc_kernel k = {.arch = "sm_90", .compiler = "nvrtc", .compiler_version = "12.0", .entry = "k",
                   .meta = "m", .meta_size = 1, .code = code, .code_size = sizeof code};
    memset(&k.key, 0x5a, sizeof k.key);
    C_OK(kc_put_kernel(c, &k));
    kc_kernel got;
    C_CHECK(kc_get_kernel(c, &k.key, &got), "a stored kernel is found (mode %s)", kc_mode_name(kc_get_mode(c)));
    put(out, "cached code", got.code, got.code_size);
    kc_kernel_release(&got);
}

/* An sm_90 compile when NVRTC is found here (clean and bad runs must agree on whether it is). */
static void run_compile(FILE *out)
{
    rt_compiler_info ci;
    bool have = rt_compiler_for("sm_90", &ci) == HIPDNN_STATUS_SUCCESS;
    fprintf(out, "nvrtc found: %d\n", have);
    if (!have)
        return;
    static const char src[] = "extern \"C\" __global__ void twice(float *p) { p[threadIdx.x] *= 2.0f; }\n";
    void *code = NULL;
    size_t len = 0;
    C_OK(rt_compile(src, "twice.cu", "sm_90", NULL, 0, &code, &len, NULL));
    fprintf(out, "compiled: %d\n", len > 0);
    free(code);
}

/* The child: the scenario with the environment as the parent left it; output to path. */
static void scenario(const char *path)
{
    FILE *out = fopen(path, "w");
    C_CHECK(out != NULL, "cannot write %s", path);
    hipdnnHandle_t h;
    C_OK(hipdnnCreate(&h));
    run_layernorm(h, out);
    run_heuristics(h, out);
    run_cache(out);
    run_compile(out);
    C_OK(hipdnnDestroy(h));
    fclose(out);
}

/* ---- the parent ----------------------------------------------------------------------------------- */

static char cache_dir[96];

/* Runs the scenario in a child with var = value (var NULL: the clean environment); its output. */
static char *run_child(const char *var, const char *value, int n)
{
    char path[96], err[96];
    snprintf(path, sizeof path, "%s/out.%d", work, n);
    snprintf(err, sizeof err, "%s/err.%d", work, n);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        bool cache_var = var != NULL && (strcmp(var, "HOME") == 0 || strcmp(var, "XDG_CACHE_HOME") == 0);
        if (cache_var)
            unsetenv("HIPDNN_CACHE_DIR");
        if (var != NULL)
            setenv(var, value, 1);
        if (var != NULL && strcmp(var, "HIPDNN_LOG_FILE") != 0)
            setenv("HIPDNN_LOG_FILE", "/dev/null", 1); /* warnings are expected: keep the log short */
        if (chdir(work) != 0 || !freopen(err, "w", stderr)) /* relative paths land in the work dir */
            _exit(3);
        scenario(path);
        _exit(0);
    }
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        char why[2048] = "(no stderr)";
        FILE *f = fopen(err, "r");
        if (f != NULL)
            why[fread(why, 1, sizeof why - 1, f)] = '\0', fclose(f);
        cr_assert_fail("%s=\"%.40s\": the scenario %s %d: %s", var ? var : "(clean)", value ? value : "",
                       WIFSIGNALED(ws) ? "died by signal" : "failed: exit",
                       WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws), why);
    }
    size_t len;
    char *text = tu_read_file(path, &len);
    cr_assert_not_null(text, "%s", path);
    return text;
}

/* The scenario's outputs equal, line by line, but for the line that starts with `differs` in
 * want (NULL: none), which var is there to change. */
static bool same_results(const char *got, const char *want, const char *differs)
{
    while (*got != '\0' && *want != '\0') {
        size_t lg = strcspn(got, "\n"), lw = strcspn(want, "\n");
        bool skip = differs != NULL && strncmp(want, differs, strlen(differs)) == 0;
        if (!skip && (lg != lw || memcmp(got, want, lg) != 0))
            return false;
        got += lg + (got[lg] == '\n'), want += lw + (want[lw] == '\n');
    }
    return *got == *want;
}

Test(bad_env, every_variable_every_value, .timeout = 600)
{
    cr_assert_not_null(mkdtemp(work));
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", work);
    snprintf(missing_dir, sizeof missing_dir, "%s/missing/deeper", work);
    snprintf(public_dir, sizeof public_dir, "%s/public", work);
    cr_assert_eq(mkdir(cache_dir, 0700), 0);
    cr_assert_eq(mkdir(public_dir, 0777), 0);
    cr_assert_eq(chmod(public_dir, 01777), 0);
    memset(long_value, 'a', sizeof long_value - 1);
    for (size_t v = 0; v < sizeof VARS / sizeof VARS[0]; v++)
        unsetenv(VARS[v]);
    setenv("HOME", work, 1); /* the clean run's HOME: nothing of the user's */
    setenv("HIPDNN_CACHE_DIR", cache_dir, 1);
    char *clean = run_child(NULL, NULL, 0);
    cr_assert_not_null(strstr(clean, "layernorm y"));
    int runs = 0;
    for (size_t v = 0; v < sizeof VARS / sizeof VARS[0]; v++)
        for (size_t b = 0; b < sizeof bad_values / sizeof bad_values[0]; b++) {
            char *got = run_child(VARS[v], bad_values[b], ++runs);
            /* a platform that names no driver leaves a GPU's engines out of the ranking; any
             * value but "" and "0" disables the cache */
            const char *differs = strcmp(VARS[v], "HIPDNN_PLATFORM") == 0        ? "ranking"
                                  : strcmp(VARS[v], "HIPDNN_CACHE_DISABLE") == 0 ? "cached code"
                                                                                  : NULL;
            cr_expect(same_results(got, clean, differs), "%s=\"%.40s\" changed the scenario's results:\n%s\n"
                      "clean:\n%s", VARS[v], bad_values[b], got, clean);
            free(got);
        }
    const char *nv = strstr(clean, "nvrtc found");
    cr_log_info("%d bad values, each in its own process: the same results as the clean run (%.16s)", runs,
                nv != NULL ? nv : "no compile line");
    free(clean);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    cr_expect_eq(system(cmd), 0);
}
