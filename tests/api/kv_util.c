/* kv_util.c — the set / get wrappers and expectations shared by the test_knobs_varpack files
 * (kv_util.h). Public API only.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "kv_util.h"

char kv_last_msg[HIPDNN_ERROR_STRING_MAX_LENGTH];

const char *kv_last_error(void)
{
    hipdnnPeekLastErrorString_ext(kv_last_msg, sizeof kv_last_msg);
    return kv_last_msg;
}

hipdnnBackendDescriptor_t kv_mk(hipdnnBackendDescriptorType_t t)
{
    hipdnnBackendDescriptor_t d = NULL;
    EXPECT(hipdnnBackendCreateDescriptor(t, &d), OK);
    return d;
}

hipdnnStatus_t kv_set(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                          hipdnnBackendAttributeType_t t, int64_t n, const void *p)
{
    return hipdnnBackendSetAttribute(d, a, t, n, p);
}

hipdnnStatus_t kv_get(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                          hipdnnBackendAttributeType_t t, int64_t req, int64_t *n, void *p)
{
    return hipdnnBackendGetAttribute(d, a, t, req, n, p);
}

hipdnnStatus_t kv_set_str(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              const char *s)
{
    return kv_set(d, a, CHR, (int64_t)strlen(s), s);
}

hipdnnStatus_t kv_set_i64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              int64_t v)
{
    return kv_set(d, a, I64, 1, &v);
}

hipdnnStatus_t kv_set_f64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              double v)
{
    return kv_set(d, a, F64, 1, &v);
}

hipdnnStatus_t kv_fin(hipdnnBackendDescriptor_t d) { return hipdnnBackendFinalize(d); }

void kv_destroy(hipdnnBackendDescriptor_t d)
{
    EXPECT(hipdnnBackendDestroyDescriptor(d), OK);
}

/* Reads a string attribute with a size query first; checks the count includes the NUL. */
void kv_expect_str(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                       const char *want)
{
    int64_t n = -1;
    char buf[256];
    EXPECT(kv_get(d, a, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, (int64_t)strlen(want) + 1);
    memset(buf, 'X', sizeof buf);
    EXPECT(kv_get(d, a, CHR, n, &n, buf), OK);
    cr_assert_eq(n, (int64_t)strlen(want) + 1);
    cr_assert_str_eq(buf, want);
}

int64_t kv_get_i64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a)
{
    int64_t v = INT64_MIN, n = -1;
    EXPECT(kv_get(d, a, I64, 1, &n, &v), OK);
    cr_assert_eq(n, 1);
    return v;
}

double kv_get_f64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a)
{
    double v = -12345.0;
    int64_t n = -1;
    EXPECT(kv_get(d, a, F64, 1, &n, &v), OK);
    cr_assert_eq(n, 1);
    return v;
}

/* An attribute that is unset reads as 0 elements. */
void kv_expect_unset(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                         hipdnnBackendAttributeType_t t)
{
    int64_t n = -1;
    char buf[64] = {0};
    EXPECT(kv_get(d, a, t, 0, &n, NULL), OK);
    cr_assert_eq(n, 0);
    n = -1;
    EXPECT(kv_get(d, a, t, 1, &n, buf), OK);
    cr_assert_eq(n, 0);
}

