/* test_default_log.c — what the default log level (HIPDNN_LOG_LEVEL unset) prints: nothing but
 * refusals, one error line per graph or execution a public call turns down, naming the call and
 * the reason (hipDNN's frontend prints only "Failed to create backend graph descriptor" and drops
 * our last-error string, so this line is what its users see). Each test runs in its own process
 * (Criterion), with HIPDNN_LOG_LEVEL removed and HIPDNN_LOG_FILE pointed at a fresh file before
 * the library's first call. Public header only.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/tu.h"

static char log_path[64];

static void setup(void)
{
    snprintf(log_path, sizeof log_path, "/tmp/hipdnn_default_log.XXXXXX");
    int fd = mkstemp(log_path);
    cr_assert_geq(fd, 0);
    close(fd);
    unsetenv("HIPDNN_LOG_LEVEL");
    setenv("HIPDNN_LOG_FILE", log_path, 1);
}

static void teardown(void) { unlink(log_path); }

TestSuite(default_log, .init = setup, .fini = teardown);

/* The log file's lines (up to max), each NUL-terminated in lines[i]; returns the count. */
static int read_lines(char lines[][1024], int max)
{
    FILE *f = fopen(log_path, "r");
    cr_assert_not_null(f);
    int n = 0;
    while (n < max && fgets(lines[n], 1024, f) != NULL)
        n++;
    fclose(f);
    return n;
}

static hipdnnStatus_t deserialize_garbage(void)
{
    static const uint8_t garbage[] = {0x10, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4};
    hipdnnBackendDescriptor_t g = NULL;
    return hipdnnBackendCreateAndDeserializeGraph_ext(&g, garbage, sizeof garbage);
}

/* A pointwise op whose output shape disagrees with its input: finalize refuses it. */
static hipdnnStatus_t finalize_bad_pointwise(void)
{
    int64_t xd[] = {2, 3}, yd[] = {3, 3};
    hipdnnBackendDescriptor_t x = tu_tensor(1, HIPDNN_DATA_FLOAT, 2, xd, false, NULL, 0);
    hipdnnBackendDescriptor_t y = tu_tensor(2, HIPDNN_DATA_FLOAT, 2, yd, false, NULL, 0), op;
    hipdnnPointwiseMode_t mode = HIPDNN_POINTWISE_RELU_FWD;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    hipdnnStatus_t st = hipdnnBackendFinalize(op);
    hipdnnBackendDestroyDescriptor(op);
    hipdnnBackendDestroyDescriptor(x);
    hipdnnBackendDestroyDescriptor(y);
    return st;
}

Test(default_log, a_refused_graph_is_one_line_naming_the_call_and_the_reason)
{
    cr_assert_eq(deserialize_garbage(), HIPDNN_STATUS_BAD_PARAM);
    char lines[8][1024];
    int n = read_lines(lines, 8);
    cr_assert_eq(n, 1, "%d lines (the first: %s)", n, n > 0 ? lines[0] : "");
    static const char want[] = "[hipdnn error] hipdnnBackendCreateAndDeserializeGraph_ext refused: "
                               "HIPDNN_STATUS_BAD_PARAM: graph FlatBuffer: ";
    cr_expect(strncmp(lines[0], want, sizeof want - 1) == 0, "%s", lines[0]);
}

Test(default_log, each_refusal_once_and_nothing_else)
{
    cr_assert_eq(deserialize_garbage(), HIPDNN_STATUS_BAD_PARAM);
    cr_assert_eq(deserialize_garbage(), HIPDNN_STATUS_BAD_PARAM); /* the same line: not repeated */
    cr_assert_eq(finalize_bad_pointwise(), HIPDNN_STATUS_BAD_PARAM);
    /* failures that refuse no graph are not logged: a getter on a NULL descriptor, an engine
     * without a graph (frameworks probe engines), a variant pack missing its pointers */
    int64_t n64 = 0;
    cr_assert_neq(hipdnnBackendGetAttribute(NULL, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n64, &n64),
                  HIPDNN_STATUS_SUCCESS);
    hipdnnBackendDescriptor_t engine, pack;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &engine));
    cr_assert_neq(hipdnnBackendFinalize(engine), HIPDNN_STATUS_SUCCESS);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    cr_assert_neq(hipdnnBackendFinalize(pack), HIPDNN_STATUS_SUCCESS);
    hipdnnBackendDestroyDescriptor(engine);
    hipdnnBackendDestroyDescriptor(pack);
    char lines[8][1024];
    int n = read_lines(lines, 8);
    cr_assert_eq(n, 2, "%d lines:\n%s%s%s", n, n > 0 ? lines[0] : "", n > 1 ? lines[1] : "",
                 n > 2 ? lines[2] : "");
    cr_expect(strstr(lines[0], "hipdnnBackendCreateAndDeserializeGraph_ext refused") != NULL, "%s", lines[0]);
    cr_expect(strstr(lines[1], "[hipdnn error] hipdnnBackendFinalize(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR) "
                               "refused: HIPDNN_STATUS_BAD_PARAM: ") == lines[1], "%s", lines[1]);
    cr_expect(strstr(lines[1], "OUT_0") != NULL, "the reason names the port: %s", lines[1]);
}

Test(default_log, an_explicit_off_silences_refusals)
{
    TU_OK(hipdnnBackendSetGlobalLogLevel_ext(HIPDNN_SEV_OFF));
    cr_assert_eq(deserialize_garbage(), HIPDNN_STATUS_BAD_PARAM);
    char lines[2][1024];
    cr_expect_eq(read_lines(lines, 2), 0);
}

Test(default_log, the_last_error_is_still_there_to_read)
{
    cr_assert_eq(deserialize_garbage(), HIPDNN_STATUS_BAD_PARAM);
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect(strstr(msg, "graph FlatBuffer") != NULL, "logging must not consume it: %s", msg);
}
