/* test_kernel_cache.c — the KERNEL_CACHE descriptor and the plan table through the public API,
 * compile-only for sm_90 (hipdnnSetCompileTarget_ext; real NVRTC, real LMDB in a fresh
 * directory per test, no GPU needed): a plan built a second time (same process, a new process,
 * a graph with other uids, a cache loaded from JSON) compiles nothing and comes from the plan
 * table; a different shape, knob or target misses; IS_ENGINECFG_KERNEL_CACHED answers both
 * ways; bad input gets clear errors. Skips without NVRTC.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/tu.h"
#include "hipdnn_jit.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static char dir[64];
static hipdnnHandle_t handle;

static void setup(void)
{
    if (hipdnnSetCompileTarget_ext("sm_90", 0) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine: %s", tu_msg());
    snprintf(dir, sizeof dir, "/tmp/hipdnn-kcdesc-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    setenv("HIPDNN_CACHE_DISABLE", "1", 1); /* nothing reaches the user's default cache */
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    if (handle != NULL)
        hipdnnDestroy(handle);
    handle = NULL;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (dir[0] != '\0' && system(cmd) != 0)
        cr_log_warn("could not remove %s", dir);
    hipdnnSetCompileTarget_ext(NULL, 0);
}

TestSuite(kernel_cache, .init = setup, .fini = teardown);

/* A finalized KERNEL_CACHE in `path` (NULL: in memory), optionally loaded from JSON. */
static hipdnnBackendDescriptor_t cache_at(const char *path, const char *json)
{
    hipdnnBackendDescriptor_t c;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &c));
    if (path != NULL)
        TU_OK(hipdnnBackendSetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT, HIPDNN_TYPE_CHAR,
                                        (int64_t)strlen(path), path));
    if (json != NULL)
        TU_OK(hipdnnBackendSetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR,
                                        (int64_t)strlen(json), json));
    TU_OK(hipdnnBackendFinalize(c));
    return c;
}

/* A finalized ENGINECFG of engine `engine` (1: jit_fused) for graph g, one knob optionally set. */
static hipdnnBackendDescriptor_t config(hipdnnBackendDescriptor_t g, int64_t engine, const char *knob, int64_t value)
{
    hipdnnBackendDescriptor_t e, cfg, choice = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, DESC, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &engine));
    TU_OK(hipdnnBackendFinalize(e));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
    if (knob != NULL) {
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &choice));
        TU_OK(hipdnnBackendSetAttribute(choice, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR,
                                        (int64_t)strlen(knob), knob));
        TU_OK(hipdnnBackendSetAttribute(choice, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, HIPDNN_TYPE_INT64, 1, &value));
        TU_OK(hipdnnBackendFinalize(choice));
        TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, DESC, 1, &choice));
    }
    TU_OK(hipdnnBackendFinalize(cfg));
    tu_destroy(&e), tu_destroy(&choice);
    return cfg;
}

typedef struct stats {
    int64_t kernels, compiled, cached, plan_cached;
} stats;

/* Finalizes a plan of cfg with cache c attached (NULL: none) and returns its cache stats. */
static stats build(hipdnnBackendDescriptor_t cfg, hipdnnBackendDescriptor_t c)
{
    hipdnnBackendDescriptor_t plan;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfg));
    if (c != NULL)
        TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, DESC, 1, &c));
    TU_OK(hipdnnBackendFinalize(plan));
    int64_t v[4] = {-1, -1, -1, -1}, n = 0;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT, HIPDNN_TYPE_INT64, 4,
                                    &n, v));
    cr_assert_eq(n, 4);
    tu_destroy(&plan);
    return (stats){v[0], v[1], v[2], v[3]};
}

static bool is_cached(hipdnnBackendDescriptor_t c, hipdnnBackendDescriptor_t cfg)
{
    int64_t n = -1;
    TU_OK(hipdnnBackendGetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, DESC, 1, &n, &cfg));
    cr_assert(n == 0 || n == 1, "count %lld", (long long)n);
    return n == 1;
}

static const char *const graphs[] = {"layernorm.json", "rmsnorm_residual.json", "matmul_bias_gelu.json",
                                     "bn_inference_relu.json", "conv_bias_relu.json"};

Test(kernel_cache, second_build_takes_the_plan_from_the_table)
{
    hipdnnBackendDescriptor_t c = cache_at(dir, NULL), fresh = cache_at(NULL, NULL);
    for (size_t i = 0; i < sizeof graphs / sizeof graphs[0]; i++) {
        hipdnnBackendDescriptor_t g = tu_example_graph(handle, graphs[i]), cfg = config(g, 1, NULL, 0);
        cr_expect_not(is_cached(c, cfg), "%s: not cached before the first build", graphs[i]);
        stats a = build(cfg, c);
        cr_expect_gt(a.kernels, 0, "%s", graphs[i]);
        cr_expect_eq(a.compiled + a.cached, a.kernels, "%s", graphs[i]);
        cr_expect_eq(a.plan_cached, 0, "%s: first build", graphs[i]);
        if (i == 0)
            cr_expect_eq(a.compiled, a.kernels, "a fresh cache compiles every kernel");
        cr_expect(is_cached(c, cfg), "%s: cached after the build", graphs[i]);
        cr_expect_not(is_cached(fresh, cfg), "%s: another cache does not have it", graphs[i]);
        stats b = build(cfg, c);
        cr_expect(b.kernels == a.kernels && b.compiled == 0 && b.cached == a.kernels && b.plan_cached == 1,
                  "%s: second build %lld kernels, %lld compiled, %lld cached, plan %lld", graphs[i],
                  (long long)b.kernels, (long long)b.compiled, (long long)b.cached, (long long)b.plan_cached);
        tu_destroy(&cfg), tu_destroy(&g);
    }
    tu_destroy(&fresh), tu_destroy(&c);
}

/* The hipdnn-cache tool (linked with the static library) warms plans that this program (linked
 * with the shared one) then builds without lowering or codegen: both carry one source ID. */
Test(kernel_cache, plans_warmed_by_the_tool_serve_the_shared_library)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --dir '%s' warm --arch sm_90 --jobs 1 '%s/examples/graphs/layernorm.json' "
             ">/dev/null 2>&1", HIPDNN_CACHE_CLI, dir, HIPDNN_SOURCE_DIR);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    hipdnnBackendDescriptor_t c = cache_at(dir, NULL);
    hipdnnBackendDescriptor_t g = tu_example_graph(handle, "layernorm.json"), cfg = config(g, 1, NULL, 0);
    stats s = build(cfg, c);
    cr_expect(s.compiled == 0 && s.plan_cached == 1, "the tool's plan record serves this program (compiled %lld, "
              "plan %lld)", (long long)s.compiled, (long long)s.plan_cached);
    tu_destroy(&cfg), tu_destroy(&g), tu_destroy(&c);
}

Test(kernel_cache, a_new_process_builds_from_the_directory)
{
    hipdnnBackendDescriptor_t c = cache_at(dir, NULL);
    hipdnnBackendDescriptor_t g = tu_example_graph(handle, "rmsnorm_residual.json"), cfg = config(g, 1, NULL, 0);
    stats a = build(cfg, c);
    tu_destroy(&cfg), tu_destroy(&g), tu_destroy(&c);
    pid_t pid = fork();
    if (pid == 0) { /* everything afresh: descriptors, cache handle, module table */
        hipdnnBackendDescriptor_t c2 = cache_at(dir, NULL);
        hipdnnBackendDescriptor_t g2 = tu_example_graph(handle, "rmsnorm_residual.json");
        hipdnnBackendDescriptor_t cfg2 = config(g2, 1, NULL, 0);
        stats b = build(cfg2, c2);
        _exit(b.compiled == 0 && b.plan_cached == 1 && b.kernels == a.kernels ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a new process builds the plan from the cache");
}

/* Adds 1000 to every integer under a key that names uids, so the graph is the same but for uids. */
static void shift_uids(json_t *j, bool uid)
{
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v)
        {
            bool names_uid = strstr(k, "uid") != NULL;
            if (json_is_integer(v) && names_uid)
                json_integer_set(v, json_integer_value(v) + 1000);
            else
                shift_uids(v, names_uid);
        }
    } else if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++) {
            json_t *v = json_array_get(j, i);
            if (json_is_integer(v) && uid)
                json_integer_set(v, json_integer_value(v) + 1000);
            else
                shift_uids(v, uid);
        }
    }
}

static hipdnnBackendDescriptor_t graph_from(json_t *doc)
{
    char *text = json_dumps(doc, 0);
    hipdnnBackendDescriptor_t g;
    TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, strlen(text)));
    free(text);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendFinalize(g));
    return g;
}

Test(kernel_cache, other_uids_hit_other_shapes_knobs_and_targets_miss)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/graphs/layernorm.json", HIPDNN_SOURCE_DIR);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    cr_assert_not_null(doc, "%s: %s", path, err.text);
    hipdnnBackendDescriptor_t c = cache_at(dir, NULL);
    hipdnnBackendDescriptor_t g = graph_from(doc), cfg = config(g, 1, NULL, 0);
    stats a = build(cfg, c);
    cr_expect_eq(a.plan_cached, 0);

    shift_uids(doc, false);
    hipdnnBackendDescriptor_t g2 = graph_from(doc), cfg2 = config(g2, 1, NULL, 0);
    stats b = build(cfg2, c);
    cr_expect(b.plan_cached == 1 && b.compiled == 0, "the same graph with other uids takes the cached plan");

    json_t *tensors = json_object_get(doc, "tensors");
    for (size_t i = 0; i < json_array_size(tensors); i++) { /* fewer rows */
        json_t *dims = json_object_get(json_array_get(tensors, i), "dims");
        if (json_integer_value(json_array_get(dims, 0)) == 8192)
            json_array_set_new(dims, 0, json_integer(4096));
    }
    hipdnnBackendDescriptor_t g3 = graph_from(doc), cfg3 = config(g3, 1, NULL, 0);
    cr_expect_not(is_cached(c, cfg3), "another shape is another plan");
    cr_expect_eq(build(cfg3, c).plan_cached, 0, "another shape misses the plan table");

    hipdnnBackendDescriptor_t cfg4 = config(g, 1, "jit.loads_per_thread", 2);
    cr_expect_not(is_cached(c, cfg4), "another knob value is another plan");
    cr_expect_eq(build(cfg4, c).plan_cached, 0, "another knob value misses the plan table");

    TU_OK(hipdnnSetCompileTarget_ext("sm_90", 114)); /* an H100 PCIe's SM count */
    cr_expect_not(is_cached(c, cfg), "another target is another plan");
    cr_expect_eq(build(cfg, c).plan_cached, 0, "another SM count misses the plan table");
    TU_OK(hipdnnSetCompileTarget_ext("sm_90", 0));
    cr_expect_eq(build(cfg, c).plan_cached, 1, "the first target's plan is still there");
    json_decref(doc);
    tu_destroy(&cfg4), tu_destroy(&cfg3), tu_destroy(&g3), tu_destroy(&cfg2), tu_destroy(&g2);
    tu_destroy(&cfg), tu_destroy(&g), tu_destroy(&c);
}

/* The JSON representation of a finalized cache (malloc'd). */
static char *json_of(hipdnnBackendDescriptor_t c)
{
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR, 0, &n,
                                    NULL));
    cr_assert_gt(n, 1);
    char *text = malloc((size_t)n);
    cr_assert_eq(hipdnnBackendGetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR,
                                           n - 1, &n, text),
                 HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, "a short buffer is refused, not truncated");
    TU_OK(hipdnnBackendGetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR, n, &n,
                                    text));
    cr_assert_eq((int64_t)strlen(text) + 1, n);
    return text;
}

static hipdnnStatus_t finalize_with_json(const char *json)
{
    hipdnnBackendDescriptor_t c;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &c));
    TU_OK(hipdnnBackendSetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(json), json));
    hipdnnStatus_t st = hipdnnBackendFinalize(c);
    tu_destroy(&c);
    return st;
}

Test(kernel_cache, json_representation_round_trip)
{
    hipdnnBackendDescriptor_t a = cache_at(NULL, NULL);
    hipdnnBackendDescriptor_t g = tu_example_graph(handle, "matmul_bias_gelu.json"), cfg = config(g, 1, NULL, 0);
    stats first = build(cfg, a);
    char *json = json_of(a);
    json_error_t err;
    json_t *doc = json_loads(json, 0, &err);
    cr_assert_not_null(doc, "the representation is JSON: %s", err.text);
    cr_expect_gt(json_integer_value(json_object_get(doc, "records")), first.kernels, "kernels and the plan");
    json_decref(doc);
    hipdnnBackendDescriptor_t b = cache_at(NULL, json);
    cr_expect(is_cached(b, cfg), "the loaded cache has the plan");
    stats second = build(cfg, b);
    cr_expect(second.plan_cached == 1 && second.compiled == 0, "built from the loaded cache");
    cr_expect_neq(hipdnnBackendSetAttribute(b, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR,
                                            (int64_t)strlen(json), json),
                  HIPDNN_STATUS_SUCCESS, "loading onto a finalized cache fails");

    TU_EQ(finalize_with_json("{not json"), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "JSON_REPRESENTATION"), NULL, "%s", tu_msg());
    TU_EQ(finalize_with_json("{\"format\": \"other\", \"version\": 1, \"bundle\": \"\"}"), HIPDNN_STATUS_BAD_PARAM);
    size_t n = strlen(json);
    char *bad = strdup(json);
    char *body = strstr(bad, "\"bundle\": \"") + 11;
    body[(bad + n - body) / 2] = '#'; /* not base64 */
    TU_EQ(finalize_with_json(bad), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "base64"), NULL, "%s", tu_msg());
    strcpy(bad, json);
    memcpy(body + 8, "AAAA", 4); /* base64, but a damaged bundle */
    cr_expect_neq(finalize_with_json(bad), HIPDNN_STATUS_SUCCESS, "a damaged bundle is refused");
    free(bad), free(json);
    tu_destroy(&cfg), tu_destroy(&g), tu_destroy(&b), tu_destroy(&a);
}

Test(kernel_cache, bad_input_is_refused_with_a_reason)
{
    TU_EQ(hipdnnSetCompileTarget_ext("xyz_1", 0), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "xyz_1"), NULL, "%s", tu_msg());
    TU_EQ(hipdnnSetCompileTarget_ext("sm_90", -1), HIPDNN_STATUS_BAD_PARAM);

    hipdnnBackendDescriptor_t c;
    int64_t zero = 0;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &c));
    TU_OK(hipdnnBackendSetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_MAX_SIZE_EXT, HIPDNN_TYPE_INT64, 1, &zero));
    TU_EQ(hipdnnBackendFinalize(c), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "MAX_SIZE"), NULL, "%s", tu_msg());
    tu_destroy(&c);

    hipdnnBackendDescriptor_t unfinalized, cache = cache_at(NULL, NULL);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &unfinalized));
    hipdnnBackendDescriptor_t g = tu_example_graph(handle, "layernorm.json"), cfg = config(g, 1, NULL, 0);
    hipdnnBackendDescriptor_t plan;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    cr_expect_neq(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, DESC, 1, &unfinalized),
                  HIPDNN_STATUS_SUCCESS, "an unfinalized cache cannot be attached");
    int64_t n = -1;
    TU_EQ(hipdnnBackendGetAttribute(cache, HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, DESC, 1, &n, &g),
          HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "ENGINECFG"), NULL, "%s", tu_msg());
    TU_EQ(hipdnnBackendGetAttribute(cache, HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, DESC, 0, &n, NULL),
          HIPDNN_STATUS_BAD_PARAM);
    TU_EQ(hipdnnBackendGetAttribute(unfinalized, HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, DESC, 1, &n,
                                    &cfg),
          HIPDNN_STATUS_NOT_INITIALIZED);
    tu_destroy(&plan), tu_destroy(&cfg), tu_destroy(&g), tu_destroy(&cache), tu_destroy(&unfinalized);
}
