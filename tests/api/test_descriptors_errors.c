/* test_descriptors_errors.c — handles (create, destroy, streams, null arguments), status names,
 * the per-thread last error (get clears, peek keeps, truncation), logging levels and user
 * callbacks, the version, Execute's argument checks and the engine list, through the public API.
 * Part of test_descriptors.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <hipdnn_backend.h>
#include <pthread.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/recipes.h"
#include "../common/tu.h"

#include "td_util.h"

/* ---- handles ------------------------------------------------------------------------------------------ */

Test(handle, create_destroy_and_streams)
{
    hipdnnHandle_t h = NULL, h2 = NULL;
    hipStream_t s = (hipStream_t)(uintptr_t)0xdead;
    TU_OK(hipdnnCreate(&h));
    TU_OK(hipdnnCreate(&h2));
    cr_expect_neq(h, NULL);
    cr_expect_neq(h, h2, "two handles are the same object");
    TU_OK(hipdnnGetStream(h, &s));
    cr_expect_eq(s, NULL, "a new handle is on the default stream");
    hipStream_t mine = (hipStream_t)(uintptr_t)(0x1000 + 16 * (uintptr_t)getpid());
    TU_OK(hipdnnSetStream(h, mine));
    TU_OK(hipdnnGetStream(h, &s));
    cr_expect_eq(s, mine);
    TU_OK(hipdnnGetStream(h2, &s));
    cr_expect_eq(s, NULL, "the stream leaked into another handle");
    TU_OK(hipdnnSetStream(h, NULL));
    TU_OK(hipdnnGetStream(h, &s));
    cr_expect_eq(s, NULL);
    TU_EQ(hipdnnGetStream(h, NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_OK(hipdnnDestroy(h));
    TU_OK(hipdnnDestroy(h2));
}

Test(handle, null_arguments)
{
    hipStream_t s;
    TU_BAD_NULL(hipdnnCreate(NULL));
    TU_BAD_NULL(hipdnnDestroy(NULL));
    TU_BAD_NULL(hipdnnSetStream(NULL, NULL));
    TU_BAD_NULL(hipdnnGetStream(NULL, &s));
}

Test(handle, graph_rejects_a_null_handle)
{
    hipdnnBackendDescriptor_t g = NULL;
    hipdnnHandle_t null_handle = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    cr_expect_neq(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE,
                                            HIPDNN_TYPE_HANDLE, 1, &null_handle),
                  HIPDNN_STATUS_SUCCESS, "a NULL hipdnnHandle_t was accepted");
    tu_destroy(&g);
}

/* ---- errors ------------------------------------------------------------------------------------------- */

Test(errors, every_status_has_its_name)
{
    static const char *const names[] = {
        "HIPDNN_STATUS_SUCCESS", "HIPDNN_STATUS_NOT_INITIALIZED", "HIPDNN_STATUS_BAD_PARAM",
        "HIPDNN_STATUS_BAD_PARAM_NULL_POINTER", "HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED",
        "HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND", "HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT",
        "HIPDNN_STATUS_BAD_PARAM_STREAM_MISMATCH", "HIPDNN_STATUS_NOT_SUPPORTED",
        "HIPDNN_STATUS_INTERNAL_ERROR", "HIPDNN_STATUS_ALLOC_FAILED",
        "HIPDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
        "HIPDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED", "HIPDNN_STATUS_EXECUTION_FAILED",
        "HIPDNN_STATUS_PLUGIN_ERROR", "HIPDNN_STATUS_VERSION_MISMATCH"};
    for (int s = 0; s < 16; s++) {
        const char *got = hipdnnGetErrorString((hipdnnStatus_t)s);
        cr_expect_not_null(got);
        if (got != NULL)
            cr_expect_str_eq(got, names[s], "status %d", s);
    }
    const int unknown[] = {16, -1, 1000};
    for (int i = 0; i < 3; i++) {
        const char *got = hipdnnGetErrorString((hipdnnStatus_t)unknown[i]);
        cr_expect_not_null(got, "status %d", unknown[i]);
        for (int s = 0; got != NULL && s < 16; s++)
            cr_expect_str_neq(got, names[s], "unknown status %d named %s", unknown[i], got);
    }
}

/* Makes the calling thread's last error say something about `tag`. */
static void fail_with(const char *tag)
{
    hipdnnBackendDescriptor_t d = NULL;
    int64_t v = 0;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(tag), tag));
    /* a tensor attribute set with the wrong type */
    cr_assert_neq(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_FLOAT, 1, &v),
                  HIPDNN_STATUS_SUCCESS);
    TU_OK(hipdnnBackendDestroyDescriptor(d));
}

Test(errors, get_clears_and_peek_keeps)
{
    char a[HIPDNN_ERROR_STRING_MAX_LENGTH], b[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(a, sizeof a); /* start clean */
    hipdnnPeekLastErrorString_ext(a, sizeof a);
    cr_expect_str_eq(a, "", "cleared message is '%s'", a);
    fail_with("x");
    hipdnnPeekLastErrorString_ext(a, sizeof a);
    hipdnnPeekLastErrorString_ext(b, sizeof b);
    cr_expect_gt(strlen(a), 0, "no message after a failure");
    cr_expect_str_eq(a, b, "peek changed the message");
    cr_expect_neq(strstr(a, "HIPDNN_ATTR_TENSOR_UNIQUE_ID"), NULL, "message '%s'", a);
    memset(b, 'z', sizeof b);
    hipdnnGetLastErrorString(b, sizeof b);
    cr_expect_str_eq(a, b);
    hipdnnGetLastErrorString(b, sizeof b);
    cr_expect_str_eq(b, "", "get did not clear: '%s'", b);
}

Test(errors, truncation_and_zero_size)
{
    char full[HIPDNN_ERROR_STRING_MAX_LENGTH], small[8];
    fail_with("x");
    hipdnnPeekLastErrorString_ext(full, sizeof full);
    cr_assert_gt(strlen(full), 7);
    memset(small, 'z', sizeof small);
    hipdnnPeekLastErrorString_ext(small, 5);
    cr_expect_eq(small[4], '\0');
    cr_expect_eq(strncmp(small, full, 4), 0);
    cr_expect_eq(small[5], 'z', "wrote past maxSize");
    /* size 0 or a NULL buffer: nothing copied, the message stays */
    hipdnnGetLastErrorString(small, 0);
    hipdnnGetLastErrorString(NULL, 100);
    char again[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnPeekLastErrorString_ext(again, sizeof again);
    cr_expect_str_eq(again, full, "the message was lost by a get of size 0 / NULL");
}

typedef struct thread_result {
    char before[HIPDNN_ERROR_STRING_MAX_LENGTH];
    char after[HIPDNN_ERROR_STRING_MAX_LENGTH];
} thread_result;

static void *other_thread(void *arg)
{
    thread_result *r = arg;
    hipdnnPeekLastErrorString_ext(r->before, sizeof r->before);
    hipdnnBackendDescriptor_t d = NULL;
    hipdnnBackendCreateDescriptor((hipdnnBackendDescriptorType_t)4242, &d); /* NOT_SUPPORTED */
    hipdnnPeekLastErrorString_ext(r->after, sizeof r->after);
    return NULL;
}

Test(errors, the_message_is_per_thread)
{
    char mine[HIPDNN_ERROR_STRING_MAX_LENGTH], later[HIPDNN_ERROR_STRING_MAX_LENGTH];
    thread_result r;
    memset(&r, 'q', sizeof r);
    fail_with("main");
    hipdnnPeekLastErrorString_ext(mine, sizeof mine);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, other_thread, &r), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_expect_str_eq(r.before, "", "a new thread sees another thread's error: '%s'", r.before);
    cr_expect_neq(strstr(r.after, "4242"), NULL, "the thread's own error: '%s'", r.after);
    hipdnnPeekLastErrorString_ext(later, sizeof later);
    cr_expect_str_eq(later, mine, "another thread's failure replaced ours");
}

/* ---- logging ------------------------------------------------------------------------------------------ */

Test(logging, level_round_trip_and_invalid_values)
{
    hipdnnSeverity_t lv;
    for (int l = HIPDNN_SEV_INFO; l <= HIPDNN_SEV_OFF; l++) {
        TU_OK(hipdnnBackendSetGlobalLogLevel_ext((hipdnnSeverity_t)l));
        TU_OK(hipdnnBackendGetGlobalLogLevel_ext(&lv));
        cr_expect_eq((int)lv, l);
    }
    TU_OK(hipdnnBackendSetGlobalLogLevel_ext(HIPDNN_SEV_WARN));
    const int bad[] = {-1, 5, 100};
    for (int i = 0; i < 3; i++)
        TU_EXPECT(hipdnnBackendSetGlobalLogLevel_ext((hipdnnSeverity_t)bad[i]),
                  HIPDNN_STATUS_BAD_PARAM, "invalid level");
    TU_OK(hipdnnBackendGetGlobalLogLevel_ext(&lv));
    cr_expect_eq(lv, HIPDNN_SEV_WARN, "an invalid level changed the level");
    TU_EQ(hipdnnBackendGetGlobalLogLevel_ext(NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_OK(hipdnnBackendSetGlobalLogLevel_ext(HIPDNN_SEV_OFF));
}

typedef struct log_sink {
    int calls, errors;
    char last[HIPDNN_ERROR_STRING_MAX_LENGTH + 128];
} log_sink;

static void on_log(hipdnnUserLogCallbackHandle_t user, hipdnnSeverity_t sev, const char *msg)
{
    log_sink *s = user;
    s->calls++;
    s->errors += sev == HIPDNN_SEV_ERROR;
    snprintf(s->last, sizeof s->last, "%s", msg != NULL ? msg : "(null)");
}

Test(logging, user_callback_receives_errors)
{
    log_sink sink = {0}, quiet = {0};
    TU_OK(hipdnnBackendSetGlobalLogLevel_ext(HIPDNN_SEV_ERROR));
    TU_OK(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_ERROR, HIPDNN_LOG_CALLBACK_SYNC, &sink));
    TU_OK(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_FATAL, HIPDNN_LOG_CALLBACK_SYNC, &quiet));
    fail_with("x");
    cr_expect_geq(sink.errors, 1, "no ERROR message reached the callback");
    cr_expect_neq(strstr(sink.last, "HIPDNN_ATTR_TENSOR_UNIQUE_ID"), NULL, "last message '%s'",
                  sink.last);
    cr_expect_eq(quiet.calls, 0, "a FATAL-only sink got %d messages", quiet.calls);
    /* hipdnnLoggingCallback_ext feeds the same sinks */
    int before = sink.calls;
    hipdnnLoggingCallback_ext(HIPDNN_SEV_ERROR, "plugin says hello");
    cr_expect_eq(sink.calls, before + 1);
    cr_expect_neq(strstr(sink.last, "plugin says hello"), NULL, "'%s'", sink.last);
    hipdnnLoggingCallback_ext(HIPDNN_SEV_WARN, "below the level");
    cr_expect_eq(sink.calls, before + 1, "a WARN passed an ERROR level");
    /* removed: silent */
    TU_OK(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_OFF, HIPDNN_LOG_CALLBACK_SYNC, &sink));
    before = sink.calls;
    fail_with("y");
    cr_expect_eq(sink.calls, before, "a removed callback was called");
    /* global level OFF silences every sink */
    TU_OK(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_INFO, HIPDNN_LOG_CALLBACK_ASYNC, &sink));
    TU_OK(hipdnnBackendSetGlobalLogLevel_ext(HIPDNN_SEV_OFF));
    fail_with("z");
    cr_expect_eq(sink.calls, before, "logging OFF still called a sink");
    TU_OK(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_OFF, HIPDNN_LOG_CALLBACK_SYNC, &sink));
    TU_OK(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_OFF, HIPDNN_LOG_CALLBACK_SYNC, &quiet));
}

Test(logging, callback_argument_checks)
{
    int user;
    TU_EQ(hipdnnSetUserLogCallback_ext(NULL, HIPDNN_SEV_ERROR, HIPDNN_LOG_CALLBACK_SYNC, &user),
          HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_ERROR, HIPDNN_LOG_CALLBACK_SYNC, NULL),
          HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnSetUserLogCallback_ext(on_log, (hipdnnSeverity_t)9, HIPDNN_LOG_CALLBACK_SYNC, &user),
          HIPDNN_STATUS_BAD_PARAM);
    TU_EQ(hipdnnSetUserLogCallback_ext(on_log, HIPDNN_SEV_ERROR, (hipdnnLogCallbackMode_t)7, &user),
          HIPDNN_STATUS_BAD_PARAM);
}

/* ---- version, execution and engines ------------------------------------------------------------------ */

Test(version, major_minor_patch_tweak)
{
    const char *v = hipdnnVersionString_ext();
    cr_assert_not_null(v);
    cr_expect_eq(v, hipdnnVersionString_ext(), "not a static string");
    unsigned major, minor, patch;
    int used = 0;
    cr_assert_eq(sscanf(v, "%u.%u.%u.%n", &major, &minor, &patch, &used), 3, "'%s'", v);
    cr_assert_gt(used, 0, "'%s' has no TWEAK", v);
    cr_expect_eq(major, HIPDNN_JIT_VERSION_MAJOR, "'%s'", v);
    cr_expect_eq(minor, HIPDNN_JIT_VERSION_MINOR, "'%s'", v);
    cr_expect_eq(patch, HIPDNN_JIT_VERSION_PATCH, "'%s'", v);
    const char *tweak = v + used;
    bool hex = strlen(tweak) > 0;
    for (const char *p = tweak; *p; p++)
        hex &= (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');
    cr_expect(hex || strcmp(tweak, "unknown") == 0, "TWEAK '%s' is neither a hash nor unknown",
              tweak);
}

/* Argument checks of Execute, and the engine list is self-consistent. */
Test(engines, execute_argument_checks_and_engine_list)
{
    hipdnnHandle_t h = NULL;
    hipdnnBackendDescriptor_t plan = NULL, pack = NULL, tensor = NULL;
    TU_OK(hipdnnCreate(&h));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    int64_t one = 1;
    tensor = td_new_tensor(1, &one, &one, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendFinalize(tensor));
    TU_EQ(hipdnnBackendExecute(h, plan, pack), HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
    TU_EQ(hipdnnBackendExecute(h, tensor, pack), HIPDNN_STATUS_BAD_PARAM);
    TU_BAD_NULL(hipdnnBackendExecute(NULL, plan, pack));
    TU_BAD_NULL(hipdnnBackendExecute(h, NULL, pack));
    hipdnnStatus_t st = hipdnnBackendExecute(h, plan, NULL); /* two problems: either is named */
    cr_expect(st >= HIPDNN_STATUS_BAD_PARAM && st <= HIPDNN_STATUS_BAD_PARAM_STREAM_MISMATCH, "%s",
              tu_st(st));

    size_t n = 99;
    TU_OK(hipdnnGetEngineCount_ext(h, &n));
    TU_EQ(hipdnnGetEngineCount_ext(h, NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_BAD_NULL(hipdnnGetEngineCount_ext(NULL, &n));
    for (size_t i = 0; i < n; i++) { /* every listed engine has a name that finds its id */
        int64_t id = 0, by_name = 0;
        char name[256] = "";
        size_t len = sizeof name;
        TU_OK(hipdnnGetEngineInfo_ext(h, i, &id, name, &len, NULL, NULL, NULL, NULL, NULL, NULL));
        cr_expect_gt(strlen(name), 0, "engine %zu has no name", i);
        TU_OK(hipdnnGetEngineIdByName_ext(h, name, &by_name));
        cr_expect_eq(by_name, id, "engine '%s': id %lld by index, %lld by name", name,
                     (long long)id, (long long)by_name);
    }
    int64_t id = 7;
    TU_EQ(hipdnnGetEngineInfo_ext(h, n, &id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND);
    TU_EQ(hipdnnGetEngineIdByName_ext(h, "NO_SUCH_ENGINE_z9", &id), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_expect_eq(id, 7, "engine id written on failure");
    tu_destroy(&plan);
    tu_destroy(&pack);
    tu_destroy(&tensor);
    TU_OK(hipdnnDestroy(h));
}
