/* test_jit_info_api.c — through the public header only: hipdnnGetCompilers_ext (the run-time
 * compilers, found or not, agreeing with hipdnnSetCompileTarget_ext on whether a target can be
 * compiled), hipdnnKernelCacheGetSchema_ext (the versions), and hipdnnKernelCacheGetPlan_ext's
 * argument checks and misses on an empty cache (a real plan record: test_kc_warm's
 * ls_and_show_describe_both_record_kinds, through hipdnn-cache). Each bad call returns its status
 * and leaves a message; each good one leaves none.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"

static void expect_no_message(const char *what)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    cr_expect_str_empty(msg, "%s leaves no message: %s", what, msg);
}

static void expect_message(const char *what, const char *needle)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect_not_null(strstr(msg, needle), "%s: the message names '%s': %s", what, needle, msg);
}

Test(jit_info, compilers_found_or_not)
{
    int n = -1;
    cr_assert_eq(hipdnnGetCompilers_ext(NULL, 0, &n), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(n, 2, "NVRTC and hipRTC");
    hipdnnCompilerInfo_ext_t cc[3];
    memset(cc, 0x7f, sizeof cc);
    int m = -1;
    cr_assert_eq(hipdnnGetCompilers_ext(cc, 1, &m), HIPDNN_STATUS_SUCCESS);
    cr_expect_eq(m, 2, "the count, though only one fits");
    cr_expect_eq(cc[1].found, 0x7f7f7f7f, "nothing past capacity is written");
    cr_assert_eq(hipdnnGetCompilers_ext(cc, 3, &m), HIPDNN_STATUS_SUCCESS);
    expect_no_message("hipdnnGetCompilers_ext");
    const char *ids[] = {"nvrtc", "hiprtc"}, *targets[] = {"sm_", "gfx"}, *probe[] = {"sm_90", "gfx90a"};
    for (int i = 0; i < 2; i++) {
        cr_expect_str_eq(cc[i].id, ids[i]);
        cr_expect_str_eq(cc[i].targets, targets[i]);
        bool can = hipdnnSetCompileTarget_ext(probe[i], 0) == HIPDNN_STATUS_SUCCESS;
        char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
        hipdnnGetLastErrorString(msg, sizeof msg);
        cr_expect_eq(cc[i].found != 0, can, "%s found (%d) exactly when %s compiles (%s)", ids[i], cc[i].found, probe[i],
                     msg);
        if (cc[i].found)
            cr_expect(cc[i].major > 0 && cc[i].reason[0] == '\0', "%s %d.%d", ids[i], cc[i].major, cc[i].minor);
        else
            cr_expect(cc[i].major == 0 && cc[i].reason[0] != '\0', "%s not found says why", ids[i]);
    }
    cr_expect_eq(hipdnnSetCompileTarget_ext(NULL, 0), HIPDNN_STATUS_SUCCESS);
    cr_expect_eq(hipdnnGetCompilers_ext(cc, 1, NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    expect_message("count NULL", "count");
    cr_expect_eq(hipdnnGetCompilers_ext(NULL, 2, &m), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    expect_message("compilers NULL", "compilers");
    cr_expect_eq(hipdnnGetCompilers_ext(cc, -1, &m), HIPDNN_STATUS_BAD_PARAM);
    expect_message("a negative capacity", "-1");
}

Test(jit_info, cache_schema)
{
    hipdnnKernelCacheSchema_ext_t s;
    memset(&s, 0, sizeof s);
    cr_assert_eq(hipdnnKernelCacheGetSchema_ext(&s), HIPDNN_STATUS_SUCCESS);
    /* the versions this library writes today; a change to any of them must change these */
    cr_expect_eq(s.record_format, 2);
    cr_expect_eq(s.kernel_key, 1);
    cr_expect_eq(s.plan_key, 1);
    cr_expect_eq(s.plan_recipe, 4);
    cr_expect_eq(s.bundle_format, 1);
    cr_expect_eq(hipdnnKernelCacheGetSchema_ext(NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    expect_message("schema NULL", "schema");
}

Test(jit_info, get_plan_checks_and_misses)
{
    char dir[] = "/tmp/jit_info_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    hipdnnKernelCache_ext_t c = NULL;
    cr_assert_eq(hipdnnKernelCacheOpen_ext(dir, &c), HIPDNN_STATUS_SUCCESS);
    hipdnnKernelCachePlan_ext_t *p = (hipdnnKernelCachePlan_ext_t *)1;
    cr_expect_eq(hipdnnKernelCacheGetPlan_ext(c, "00112233445566778899aabbccddeeff", &p), HIPDNN_STATUS_SUCCESS);
    cr_expect_null(p, "no such plan: NULL");
    expect_no_message("a miss");
    p = (hipdnnKernelCachePlan_ext_t *)1;
    cr_expect_eq(hipdnnKernelCacheGetPlan_ext(c, "0011zz", &p), HIPDNN_STATUS_BAD_PARAM);
    expect_message("not a key", "'0011zz' is not a key");
    cr_expect_null(p);
    cr_expect_eq(hipdnnKernelCacheGetPlan_ext(NULL, "00", &p), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    expect_message("cache NULL", "cache is NULL");
    cr_expect_eq(hipdnnKernelCacheGetPlan_ext(c, NULL, &p), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    expect_message("key NULL", "key is NULL");
    cr_expect_eq(hipdnnKernelCacheGetPlan_ext(c, "00112233445566778899aabbccddeeff", NULL),
                 HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    expect_message("plan NULL", "plan is NULL");
    hipdnnKernelCacheClose_ext(c);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}
