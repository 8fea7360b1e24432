/* test_log_env.c — logging as the environment configures it, and the last-error slot's lifetime.
 *
 * Owns: HIPDNN_LOG_LEVEL's names and numbers (they follow hipdnnSeverity_t: 0 info .. 4 off), the
 * debug and verbose detail levels (per plan: heuristics, engine, knobs; per execute at verbose),
 * an unopenable HIPDNN_LOG_FILE (said once on stderr, logging falls back to stderr), an
 * environment problem met on every call logged once, and the last error's lifetime (a successful
 * call leaves no message of its own). Each test runs in its own process (Criterion), its environment set before the
 * library's first call. Public header only.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/tu.h"
#include "hipdnn_jit.h"

static char log_path[64];

static void setup(void)
{
    snprintf(log_path, sizeof log_path, "/tmp/hipdnn_log_env.XXXXXX");
    int fd = mkstemp(log_path);
    cr_assert_geq(fd, 0);
    close(fd);
    setenv("HIPDNN_LOG_FILE", log_path, 1);
}

static void teardown(void) { unlink(log_path); }

TestSuite(log_env, .init = setup, .fini = teardown);

/* How many lines of the file at path contain `needle`. */
static int count_lines(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f) != NULL)
        n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

static hipdnnSeverity_t level_for(const char *value)
{
    setenv("HIPDNN_LOG_LEVEL", value, 1);
    hipdnnSeverity_t lv = (hipdnnSeverity_t)-1;
    TU_OK(hipdnnBackendGetGlobalLogLevel_ext(&lv));
    return lv;
}

/* One process per value: the library reads its environment once. */
Test(log_env, number_0_is_info) { cr_expect_eq(level_for("0"), HIPDNN_SEV_INFO); }
Test(log_env, number_1_is_warn) { cr_expect_eq(level_for("1"), HIPDNN_SEV_WARN); }
Test(log_env, number_2_is_error) { cr_expect_eq(level_for("2"), HIPDNN_SEV_ERROR); }
Test(log_env, number_3_is_fatal) { cr_expect_eq(level_for("3"), HIPDNN_SEV_FATAL); }
Test(log_env, number_4_is_off) { cr_expect_eq(level_for("4"), HIPDNN_SEV_OFF); }
Test(log_env, name_warn) { cr_expect_eq(level_for("WARN"), HIPDNN_SEV_WARN); }
Test(log_env, name_debug_is_info_with_detail) { cr_expect_eq(level_for("debug"), HIPDNN_SEV_INFO); }

/* x -> relu -> y, [2,3] float, finalized with a handle. */
static hipdnnBackendDescriptor_t relu_graph(hipdnnHandle_t h)
{
    int64_t d[] = {2, 3};
    hipdnnBackendDescriptor_t x = tu_tensor(1, HIPDNN_DATA_FLOAT, 2, d, false, NULL, 0);
    hipdnnBackendDescriptor_t y = tu_tensor(2, HIPDNN_DATA_FLOAT, 2, d, false, NULL, 0), op, g;
    hipdnnPointwiseMode_t mode = HIPDNN_POINTWISE_RELU_FWD;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    TU_OK(hipdnnBackendFinalize(op));
    g = tu_graph_of(h, op);
    tu_destroy(&op), tu_destroy(&x), tu_destroy(&y);
    return g;
}

/* The reference engine's plan of relu_graph, executed once on host memory. */
static void plan_and_execute(void)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t g = relu_graph(h), heur, plan;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendFinalize(heur));
    int64_t ref = 0;
    TU_OK(hipdnnGetEngineIdByName_ext(h, "reference", &ref));
    TU_OK(tu_try_plan(h, g, ref, &plan));
    float x[6] = {-1, 2, -3, 4, -5, 6}, y[6] = {0};
    int64_t uids[] = {1, 2};
    void *ptrs[] = {x, y};
    hipdnnBackendDescriptor_t pack = tu_pack(2, uids, ptrs, NULL);
    TU_OK(hipdnnBackendExecute(h, plan, pack));
    cr_expect_eq(y[1], 2.0f);
    cr_expect_eq(y[0], 0.0f);
    tu_destroy(&pack), tu_destroy(&plan), tu_destroy(&heur), tu_destroy(&g);
    TU_OK(hipdnnDestroy(h));
}

Test(log_env, debug_says_which_engine_and_why_per_plan_but_nothing_per_execute)
{
    setenv("HIPDNN_LOG_LEVEL", "debug", 1);
    plan_and_execute();
    cr_expect_eq(count_lines(log_path, "[hipdnn debug] heuristics for graph "), 3,
                 "one line per engine (jit_fused, jit_unfused, reference)");
    cr_expect_eq(count_lines(log_path, "engine 'reference' supports it"), 1);
    cr_expect_eq(count_lines(log_path, "[hipdnn debug] plan for graph "), 1);
    cr_expect_eq(count_lines(log_path, "engine 'reference' (host"), 1);
    cr_expect_eq(count_lines(log_path, "pointwise(RELU_FWD)"), 1, "the partition, modes by name");
    cr_expect_eq(count_lines(log_path, "[hipdnn verbose]"), 0);
}

Test(log_env, verbose_adds_a_line_per_execute)
{
    setenv("HIPDNN_LOG_LEVEL", "verbose", 1);
    plan_and_execute();
    cr_expect_eq(count_lines(log_path, "[hipdnn verbose] execute: graph "), 1);
    cr_expect_eq(count_lines(log_path, "on engine 'reference', 2 tensor(s) bound"), 1);
    cr_expect_eq(count_lines(log_path, "[hipdnn debug] plan for graph "), 1);
}

Test(log_env, info_has_no_detail_lines)
{
    setenv("HIPDNN_LOG_LEVEL", "info", 1);
    plan_and_execute();
    cr_expect_eq(count_lines(log_path, "[hipdnn debug]"), 0);
    cr_expect_eq(count_lines(log_path, "[hipdnn verbose]"), 0);
    cr_expect_geq(count_lines(log_path, "[hipdnn info] hipdnnCreate"), 1);
}

/* stderr goes to a file of its own for the rest of this process. */
static void capture_stderr(char *path, size_t n)
{
    snprintf(path, n, "/tmp/hipdnn_log_env_err.XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stderr);
    cr_assert_geq(dup2(fd, 2), 0);
    close(fd);
}

Test(log_env, an_unopenable_log_file_is_said_once_on_stderr_and_logging_goes_there)
{
    char err[64];
    capture_stderr(err, sizeof err);
    setenv("HIPDNN_LOG_FILE", "/nonexistent-dir-hipdnn/sub/log.txt", 1);
    setenv("HIPDNN_LOG_LEVEL", "info", 1);
    for (int i = 0; i < 3; i++) {
        hipdnnHandle_t h;
        TU_OK(hipdnnCreate(&h));
        TU_OK(hipdnnDestroy(h));
    }
    fflush(stderr);
    cr_expect_eq(count_lines(err, "HIPDNN_LOG_FILE=\"/nonexistent-dir-hipdnn/sub/log.txt\" cannot be opened"), 1);
    cr_expect_eq(count_lines(err, "[hipdnn info] hipdnnCreate: handle"), 3);
    unlink(err);
}

Test(log_env, a_level_it_does_not_know_is_said_once_on_stderr)
{
    char err[64];
    capture_stderr(err, sizeof err);
    hipdnnSeverity_t lv = level_for("loud");
    TU_OK(hipdnnBackendGetGlobalLogLevel_ext(&lv));
    fflush(stderr);
    cr_expect_eq(lv, HIPDNN_SEV_OFF, "the default stays");
    cr_expect_eq(count_lines(err, "HIPDNN_LOG_LEVEL=\"loud\" is not a level"), 1);
    unlink(err);
}

/* Without a GPU each call below fails the same way; the runtime's own reason (its first try to
 * initialise) is logged once, each call's failure once. Skipped on a machine with a GPU. */
Test(log_env, a_missing_gpu_is_logged_once)
{
    setenv("HIPDNN_LOG_LEVEL", "info", 1);
    void *p = NULL;
    if (hipdnnDeviceMalloc_ext(&p, 64) == HIPDNN_STATUS_SUCCESS) {
        hipdnnDeviceFree_ext(p);
        cr_skip_test("a GPU is present");
    }
    for (int i = 0; i < 3; i++)
        cr_expect_neq(hipdnnDeviceMalloc_ext(&p, 64), HIPDNN_STATUS_SUCCESS);
    int calls = count_lines(log_path, "hipdnnDeviceMalloc_ext: no GPU");
    cr_expect_eq(calls, 4, "each failed call once");
    FILE *f = fopen(log_path, "r");
    cr_assert_not_null(f);
    char lines[64][1024];
    int n = 0;
    while (n < 64 && fgets(lines[n], sizeof lines[n], f) != NULL)
        n++;
    fclose(f);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strstr(lines[i], "hipdnnDeviceMalloc_ext") == NULL)
                cr_expect_str_neq(lines[i], lines[j], "logged twice: %s", lines[i]);
}

/* The slot describes the thread's last call: a successful call clears it, and in particular
 * leaves behind no failure it met and got past (the heuristics probe the GPU engines' device:
 * without a GPU that probe fails, the call succeeds with the reference engine, and no "no GPU"
 * message may be left). hipDNN keeps a message until it is read; we differ on purpose. */
Test(log_env, a_successful_call_leaves_no_message_of_its_own)
{
    char msg[256];
    hipdnnGetLastErrorString(msg, sizeof msg);
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t g = relu_graph(h), heur;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendFinalize(heur));
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    cr_expect_str_eq(msg, "", "a successful heuristics finalize left: %s", msg);
    tu_destroy(&heur), tu_destroy(&g);
    TU_OK(hipdnnDestroy(h));
}

Test(log_env, a_successful_call_clears_the_last_failure)
{
    char msg[256], again[256];
    hipdnnHandle_t h;
    cr_assert_eq(hipdnnCreate(NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    hipdnnPeekLastErrorString_ext(msg, sizeof msg); /* peeking does not clear */
    cr_expect(strstr(msg, "hipdnnCreate: handle is NULL") != NULL, "%s", msg);
    hipdnnPeekLastErrorString_ext(again, sizeof again);
    cr_expect_str_eq(again, msg);
    hipdnnGetLastErrorString(again, sizeof again); /* reads and clears */
    cr_expect_str_eq(again, msg);
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    cr_expect_str_eq(msg, "");

    cr_assert_eq(hipdnnCreate(NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    hipdnnBackendDescriptor_t d = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    cr_expect_str_eq(msg, "", "a successful call left the earlier failure: %s", msg);
    TU_OK(hipdnnCreate(&h));
    /* a failed call after a successful one: its own message, not a leftover */
    cr_assert_eq(hipdnnBackendFinalize(NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    cr_expect(msg[0] != '\0' && strstr(msg, "hipdnnCreate") == NULL, "%s", msg);
    /* releasing calls keep it, so "fail, clean up, then report" still reads the failure */
    tu_destroy(&d);
    hipdnnPeekLastErrorString_ext(again, sizeof again);
    cr_expect_str_eq(again, msg);
    TU_OK(hipdnnDestroy(h));
    hipdnnPeekLastErrorString_ext(again, sizeof again);
    cr_expect_str_eq(again, msg);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    cr_expect_str_eq(msg, "", "%s", msg);
    tu_destroy(&d);
}
