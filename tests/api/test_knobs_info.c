/* test_knobs_info.c — the KNOB_INFO descriptor through the public API (hipdnn-api.md §2.3.6):
 * int, double and string knobs round trip, VALID_VALUES appending and clearing, unset optionals,
 * set errors, required attributes, lifecycle, and each finalize rule broken once beside a case
 * that passes. Part of test_knobs_varpack.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "kv_util.h"

/* ==== KNOB_INFO ============================================================================== */

#define KI_TYPE HIPDNN_ATTR_KNOB_INFO_TYPE
#define KI_MAX HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE
#define KI_MIN HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE
#define KI_STRIDE HIPDNN_ATTR_KNOB_INFO_STRIDE
#define KI_DESC HIPDNN_ATTR_KNOB_INFO_DESCRIPTION
#define KI_DEFAULT HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE
#define KI_DEPRECATED HIPDNN_ATTR_KNOB_INFO_DEPRECATED
#define KI_VALID_INT HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT
#define KI_VALID_STR HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_STRING
#define KI_STRMAX HIPDNN_ATTR_KNOB_INFO_STRING_MAX_LENGTH
#define KI_DTYPE HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE_TYPE

static hipdnnBackendDescriptor_t info(const char *id)
{
    hipdnnBackendDescriptor_t d = kv_mk(HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR);
    if (id != NULL)
        EXPECT(kv_set_str(d, KI_TYPE, id), OK);
    return d;
}

Test(knob_info, int_knob_round_trip)
{
    hipdnnBackendDescriptor_t d = info("jit.tile_m");
    int64_t valid[] = {16, 32, 64, 128};
    bool dep = true;
    EXPECT(kv_set_str(d, KI_DESC, "rows of the output tile"), OK);
    EXPECT(kv_set_i64(d, KI_MIN, 16), OK);
    EXPECT(kv_set_i64(d, KI_MAX, 128), OK);
    EXPECT(kv_set_i64(d, KI_STRIDE, 16), OK);
    EXPECT(kv_set_i64(d, KI_DEFAULT, 64), OK);
    EXPECT(kv_set(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, &dep), OK);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 4, valid), OK);
    EXPECT(kv_fin(d), OK);

    kv_expect_str(d, KI_TYPE, "jit.tile_m");
    kv_expect_str(d, KI_DESC, "rows of the output tile");
    cr_assert_eq(kv_get_i64(d, KI_MIN), 16);
    cr_assert_eq(kv_get_i64(d, KI_MAX), 128);
    cr_assert_eq(kv_get_i64(d, KI_STRIDE), 16);
    cr_assert_eq(kv_get_i64(d, KI_DEFAULT), 64);
    cr_assert_eq(kv_get_i64(d, KI_DTYPE), HIPDNN_TYPE_INT64);
    bool b = false;
    int64_t n = -1;
    EXPECT(kv_get(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, &n, &b), OK);
    cr_assert(b && n == 1);

    int64_t out[8] = {0};
    EXPECT(kv_get(d, KI_VALID_INT, I64, 0, &n, NULL), OK);
    cr_assert_eq(n, 4);
    EXPECT(kv_get(d, KI_VALID_INT, I64, 8, &n, out), OK);
    cr_assert_eq(n, 4);
    cr_assert_arr_eq(out, valid, sizeof valid);
    memset(out, 0, sizeof out);
    EXPECT(kv_get(d, KI_VALID_INT, I64, 2, &n, out), OK);
    cr_assert(n == 2 && out[0] == 16 && out[1] == 32 && out[2] == 0);

    /* polymorphic values read back only with their type */
    double f;
    char s[8];
    EXPECT(kv_get(d, KI_DEFAULT, F64, 1, &n, &f), BAD);
    EXPECT(kv_get(d, KI_DEFAULT, CHR, 8, &n, s), BAD);
    EXPECT(kv_get(d, KI_MIN, F64, 1, &n, &f), BAD);
    EXPECT(kv_get(d, KI_MAX, F64, 1, &n, &f), BAD);
    EXPECT(kv_get(d, KI_MIN, CHR, 8, &n, s), BAD);
    /* string-knob attributes were never set */
    kv_expect_unset(d, KI_STRMAX, I64);
    kv_expect_unset(d, KI_VALID_STR, CHR);
    kv_destroy(d);
}

Test(knob_info, double_knob_round_trip)
{
    hipdnnBackendDescriptor_t d = info("jit.alpha");
    EXPECT(kv_set_f64(d, KI_MIN, 0.0), OK);
    EXPECT(kv_set_f64(d, KI_MAX, 1.0), OK);
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(kv_fin(d), OK);
    cr_assert_eq(kv_get_f64(d, KI_MIN), 0.0);
    cr_assert_eq(kv_get_f64(d, KI_MAX), 1.0);
    cr_assert_eq(kv_get_f64(d, KI_DEFAULT), 0.5);
    cr_assert_eq(kv_get_i64(d, KI_DTYPE), HIPDNN_TYPE_DOUBLE);
    int64_t v, n;
    EXPECT(kv_get(d, KI_DEFAULT, I64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KI_MIN, I64, 1, &n, &v), BAD);
    kv_expect_unset(d, KI_STRIDE, I64);
    kv_expect_unset(d, KI_VALID_INT, I64);
    kv_expect_unset(d, KI_DESC, CHR);
    kv_destroy(d);
}

Test(knob_info, string_knob_round_trip)
{
    hipdnnBackendDescriptor_t d = info("jit.mode");
    EXPECT(kv_set_str(d, KI_DEFAULT, "fast"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "fast"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "accurate"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "balanced"), OK);
    EXPECT(kv_set_i64(d, KI_STRMAX, 16), OK);
    EXPECT(kv_fin(d), OK);
    kv_expect_str(d, KI_DEFAULT, "fast");
    cr_assert_eq(kv_get_i64(d, KI_DTYPE), HIPDNN_TYPE_CHAR);
    cr_assert_eq(kv_get_i64(d, KI_STRMAX), 16);
    static const char want[] = "fast\0accurate\0balanced"; /* + the final NUL */
    char buf[64];
    int64_t n = -1;
    EXPECT(kv_get(d, KI_VALID_STR, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, (int64_t)sizeof want);
    memset(buf, 'X', sizeof buf);
    EXPECT(kv_get(d, KI_VALID_STR, CHR, (int64_t)sizeof buf, &n, buf), OK);
    cr_assert_eq(n, (int64_t)sizeof want);
    cr_assert_arr_eq(buf, want, sizeof want);
    /* a truncated copy still ends with a NUL */
    memset(buf, 'X', sizeof buf);
    EXPECT(kv_get(d, KI_VALID_STR, CHR, 7, &n, buf), OK);
    cr_assert_eq(n, 7);
    cr_assert_arr_eq(buf, "fast\0a", 7);
    int64_t v;
    double f;
    EXPECT(kv_get(d, KI_DEFAULT, I64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KI_DEFAULT, F64, 1, &n, &f), BAD);
    kv_expect_unset(d, KI_MIN, I64);
    kv_expect_unset(d, KI_MAX, F64);
    kv_destroy(d);
}

Test(knob_info, valid_strings_append_and_clear)
{
    hipdnnBackendDescriptor_t d = info("k");
    EXPECT(kv_set_str(d, KI_VALID_STR, "a"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "b"), OK);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 0, NULL), OK); /* clears */
    EXPECT(kv_set_str(d, KI_VALID_STR, "c"), OK);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 4, "x\0y\0"), OK); /* NUL-separated: appends x and y */
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 0, ""), OK);       /* appends the empty string */
    EXPECT(kv_set_str(d, KI_DEFAULT, "y"), OK);
    EXPECT(kv_fin(d), OK);
    char buf[16];
    int64_t n = -1;
    EXPECT(kv_get(d, KI_VALID_STR, CHR, (int64_t)sizeof buf, &n, buf), OK);
    cr_assert_eq(n, 7);
    cr_assert_arr_eq(buf, "c\0x\0y\0", 7);
    kv_destroy(d);

    d = info("k"); /* the empty string can be the default */
    EXPECT(kv_set_str(d, KI_VALID_STR, "a"), OK);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 0, ""), OK);
    EXPECT(kv_set(d, KI_DEFAULT, CHR, 0, ""), OK);
    EXPECT(kv_fin(d), OK);
    kv_expect_str(d, KI_DEFAULT, "");
    kv_destroy(d);

    d = info("k"); /* cleared list: any default */
    EXPECT(kv_set_str(d, KI_VALID_STR, "a"), OK);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 0, NULL), OK);
    EXPECT(kv_set_str(d, KI_DEFAULT, "zzz"), OK);
    EXPECT(kv_fin(d), OK);
    kv_expect_unset(d, KI_VALID_STR, CHR);
    kv_destroy(d);
}

Test(knob_info, valid_ints_count_zero_clears)
{
    hipdnnBackendDescriptor_t d = info("k");
    int64_t valid[] = {1, 2};
    EXPECT(kv_set(d, KI_VALID_INT, I64, 2, valid), OK);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 0, NULL), OK);
    EXPECT(kv_set_i64(d, KI_DEFAULT, 5), OK);
    EXPECT(kv_fin(d), OK);
    kv_expect_unset(d, KI_VALID_INT, I64);
    kv_destroy(d);
}

Test(knob_info, unset_optionals)
{
    hipdnnBackendDescriptor_t d = info("k");
    EXPECT(kv_set_i64(d, KI_DEFAULT, 1), OK);
    EXPECT(kv_fin(d), OK);
    bool b = true;
    int64_t n = -1;
    EXPECT(kv_get(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, &n, &b), OK); /* reads false */
    cr_assert(n == 1 && !b);
    kv_expect_unset(d, KI_MIN, I64);
    kv_expect_unset(d, KI_MAX, I64);
    kv_expect_unset(d, KI_STRIDE, I64);
    kv_expect_unset(d, KI_DESC, CHR);
    kv_expect_unset(d, KI_VALID_INT, I64);
    kv_expect_unset(d, KI_VALID_STR, CHR);
    kv_expect_unset(d, KI_STRMAX, I64);
    kv_destroy(d);
}

Test(knob_info, set_errors)
{
    hipdnnBackendDescriptor_t d = info(NULL);
    int64_t one = 1, zero = 0, neg = -1, two[2] = {1, 2};
    int32_t i32 = 4;
    float f32 = 1.0f;
    bool b = true;
    char big[65537];
    memset(big, 'a', sizeof big);
    EXPECT(kv_set(d, KI_TYPE, I64, 1, &one), BAD);
    EXPECT(kv_set(d, KI_TYPE, CHR, 0, "x"), BAD);
    EXPECT(kv_set(d, KI_TYPE, CHR, 4097, big), BAD);
    EXPECT(kv_set(d, KI_TYPE, CHR, 2, NULL), NULLP);
    EXPECT(kv_set(d, KI_MIN, HIPDNN_TYPE_FLOAT, 1, &f32), BAD);
    EXPECT(kv_set(d, KI_MIN, CHR, 1, "1"), BAD);
    EXPECT(kv_set(d, KI_MAX, HIPDNN_TYPE_INT32, 1, &i32), BAD);
    EXPECT(kv_set(d, KI_MIN, I64, 2, two), BAD);
    EXPECT(kv_set(d, KI_MAX, F64, 0, two), BAD);
    EXPECT(kv_set(d, KI_MIN, I64, 1, NULL), NULLP);
    EXPECT(kv_set(d, KI_MAX, F64, 1, NULL), NULLP);
    EXPECT(kv_set(d, KI_STRIDE, I64, 1, &zero), BAD);
    EXPECT(kv_set(d, KI_STRIDE, I64, 1, &neg), BAD);
    EXPECT(kv_set(d, KI_STRIDE, F64, 1, &one), BAD);
    EXPECT(kv_set(d, KI_STRIDE, I64, 2, two), BAD);
    EXPECT(kv_set(d, KI_STRIDE, I64, 1, NULL), NULLP);
    EXPECT(kv_set(d, KI_DESC, I64, 1, &one), BAD);
    EXPECT(kv_set(d, KI_DESC, CHR, 65537, big), BAD);
    EXPECT(kv_set(d, KI_DESC, CHR, 3, NULL), NULLP);
    EXPECT(kv_set(d, KI_DEFAULT, HIPDNN_TYPE_FLOAT, 1, &f32), BAD);
    EXPECT(kv_set(d, KI_DEFAULT, HIPDNN_TYPE_BOOLEAN, 1, &b), BAD);
    EXPECT(kv_set(d, KI_DEFAULT, I64, 2, two), BAD);
    EXPECT(kv_set(d, KI_DEFAULT, CHR, 65537, big), BAD);
    EXPECT(kv_set(d, KI_DEFAULT, CHR, -1, "x"), BAD);
    EXPECT(kv_set(d, KI_DEFAULT, I64, 1, NULL), NULLP);
    EXPECT(kv_set(d, KI_DEPRECATED, I64, 1, &one), BAD);
    EXPECT(kv_set(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 2, two), BAD);
    EXPECT(kv_set(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, NULL), NULLP);
    EXPECT(kv_set(d, KI_VALID_INT, F64, 1, &one), BAD);
    EXPECT(kv_set(d, KI_VALID_INT, I64, -1, two), BAD);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 2, NULL), NULLP);
    EXPECT(kv_set(d, KI_VALID_STR, I64, 1, &one), BAD);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, -1, "x"), BAD);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 3, NULL), NULLP);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 65537, big), BAD);
    EXPECT(kv_set(d, KI_STRMAX, I64, 1, &zero), BAD);
    EXPECT(kv_set(d, KI_STRMAX, HIPDNN_TYPE_INT32, 1, &i32), BAD);
    EXPECT(kv_set(d, KI_STRMAX, I64, 2, two), BAD);
    EXPECT(kv_set(d, KI_DTYPE, I64, 1, &one), NOT_SUP);
    EXPECT(kv_set(d, KC_VALUE, I64, 1, &one), NOT_SUP);
    /* nothing above was stored: TYPE and DEFAULT are still missing */
    EXPECT(kv_fin(d), BAD);
    EXPECT(kv_set(d, KI_TYPE, CHR, 4096, big), OK);
    EXPECT(kv_set(d, KI_DEFAULT, CHR, 65536, big), OK);
    EXPECT(kv_set(d, KI_DESC, CHR, 65536, big), OK);
    EXPECT(kv_fin(d), OK);
    int64_t n = -1;
    EXPECT(kv_get(d, KI_DEFAULT, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, 65537);
    kv_destroy(d);
}

Test(knob_info, required_attributes)
{
    hipdnnBackendDescriptor_t d = info(NULL);
    EXPECT(kv_set_i64(d, KI_DEFAULT, 1), OK);
    EXPECT(kv_fin(d), BAD);
    cr_assert(strstr(kv_last_error(), "HIPDNN_ATTR_KNOB_INFO_TYPE") != NULL, "%s", kv_last_msg);
    kv_destroy(d);
    d = info("k");
    EXPECT(kv_set_i64(d, KI_MIN, 0), OK);
    EXPECT(kv_set_i64(d, KI_MAX, 4), OK);
    EXPECT(kv_fin(d), BAD);
    cr_assert(strstr(kv_last_error(), "HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE") != NULL, "%s", kv_last_msg);
    EXPECT(kv_set_i64(d, KI_DEFAULT, 2), OK); /* a failed finalize leaves it open */
    EXPECT(kv_fin(d), OK);
    kv_destroy(d);
}

Test(knob_info, lifecycle_and_queries)
{
    hipdnnBackendDescriptor_t d = info("knob");
    EXPECT(kv_set_i64(d, KI_DEFAULT, 3), OK);
    int64_t n, v;
    EXPECT(kv_get(d, KI_TYPE, CHR, 0, &n, NULL), NOT_INIT);
    EXPECT(kv_get(d, KI_DEFAULT, I64, 1, &n, &v), NOT_INIT);
    EXPECT(kv_get(d, KI_DTYPE, I64, 1, &n, &v), NOT_INIT);
    EXPECT(kv_fin(d), OK);
    EXPECT(kv_fin(d), BAD);
    EXPECT(kv_set_i64(d, KI_DEFAULT, 4), NOT_INIT);
    EXPECT(kv_set_str(d, KI_VALID_STR, "a"), NOT_INIT);
    EXPECT(kv_set(d, KI_VALID_STR, CHR, 0, NULL), NOT_INIT);
    EXPECT(kv_set_i64(d, KI_STRIDE, 1), NOT_INIT);
    EXPECT(kv_get(d, KI_TYPE, CHR, 0, NULL, NULL), NULLP);
    EXPECT(kv_get(d, KI_DEFAULT, I64, 0, NULL, NULL), NULLP);
    EXPECT(kv_get(d, KI_DTYPE, I64, 0, NULL, NULL), NULLP);
    EXPECT(kv_get(d, KI_DEFAULT, I64, -1, &n, &v), BAD);
    EXPECT(kv_get(d, KI_DTYPE, F64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KI_STRIDE, F64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KI_VALID_INT, F64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KI_VALID_STR, I64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KI_DEPRECATED, I64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KC_TYPE, CHR, 0, &n, NULL), NOT_SUP);
    cr_assert_eq(kv_get_i64(d, KI_DEFAULT), 3);
    EXPECT(kv_get(d, KI_DTYPE, I64, 0, &n, NULL), OK);
    cr_assert_eq(n, 1);
    kv_destroy(d);
}

/* ---- finalize rules: each broken once, beside a case that passes --------------------------- */

typedef void (*knob_setup)(hipdnnBackendDescriptor_t d);

static hipdnnStatus_t finalize_with(knob_setup f)
{
    hipdnnBackendDescriptor_t d = info("jit.k");
    f(d);
    hipdnnStatus_t st = kv_fin(d);
    kv_destroy(d);
    return st;
}

static void int_default(hipdnnBackendDescriptor_t d, int64_t v)
{
    EXPECT(kv_set_i64(d, KI_DEFAULT, v), OK);
}

static void int_range(hipdnnBackendDescriptor_t d, int64_t lo, int64_t hi)
{
    EXPECT(kv_set_i64(d, KI_MIN, lo), OK);
    EXPECT(kv_set_i64(d, KI_MAX, hi), OK);
}

static void f64_range(hipdnnBackendDescriptor_t d, double lo, double hi)
{
    EXPECT(kv_set_f64(d, KI_MIN, lo), OK);
    EXPECT(kv_set_f64(d, KI_MAX, hi), OK);
}

static void i_ok(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {0, 8, 16};
    int_range(d, 0, 16);
    EXPECT(kv_set_i64(d, KI_STRIDE, 8), OK);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 3, valid), OK);
    int_default(d, 8);
}

static void i_double_range(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    f64_range(d, 0, 2);
}

static void i_min_only(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(kv_set_i64(d, KI_MIN, 0), OK);
}

static void i_max_only(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(kv_set_i64(d, KI_MAX, 2), OK);
}

static void i_mixed_range(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(kv_set_i64(d, KI_MIN, 0), OK);
    EXPECT(kv_set_f64(d, KI_MAX, 2.0), OK);
}

static void i_min_gt_max(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    int_range(d, 3, 2);
}

static void i_below(hipdnnBackendDescriptor_t d)
{
    int_default(d, -1);
    int_range(d, 0, 2);
}

static void i_above(hipdnnBackendDescriptor_t d)
{
    int_default(d, 3);
    int_range(d, 0, 2);
}

static void i_off_grid(hipdnnBackendDescriptor_t d)
{
    int_default(d, 4);
    int_range(d, 1, 9);
    EXPECT(kv_set_i64(d, KI_STRIDE, 2), OK);
}

static void i_on_grid_extremes(hipdnnBackendDescriptor_t d)
{
    int_default(d, INT64_MAX);
    int_range(d, INT64_MIN + 1, INT64_MAX);
    EXPECT(kv_set_i64(d, KI_STRIDE, 2), OK);
}

static void i_not_listed(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {1, 2, 4};
    int_default(d, 3);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 3, valid), OK);
}

static void i_listed_out_of_range(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {1, 2, 40};
    int_default(d, 2);
    int_range(d, 0, 10);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 3, valid), OK);
}

static void i_valid_strings(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(kv_set_str(d, KI_VALID_STR, "1"), OK);
}

static void i_strmax(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(kv_set_i64(d, KI_STRMAX, 4), OK);
}

Test(knob_info, finalize_rules_int_knob)
{
    EXPECT(finalize_with(i_ok), OK);
    EXPECT(finalize_with(i_on_grid_extremes), OK);
    EXPECT(finalize_with(i_double_range), BAD);
    EXPECT(finalize_with(i_mixed_range), BAD);
    EXPECT(finalize_with(i_min_only), BAD);
    EXPECT(finalize_with(i_max_only), BAD);
    EXPECT(finalize_with(i_min_gt_max), BAD);
    EXPECT(finalize_with(i_below), BAD);
    EXPECT(finalize_with(i_above), BAD);
    EXPECT(finalize_with(i_off_grid), BAD);
    EXPECT(finalize_with(i_not_listed), BAD);
    EXPECT(finalize_with(i_listed_out_of_range), BAD);
    EXPECT(finalize_with(i_valid_strings), BAD);
    EXPECT(finalize_with(i_strmax), BAD);
}

static void d_ok(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    f64_range(d, 0, 1);
}

static void d_edge(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 1.0), OK);
    f64_range(d, 0, 1);
}

static void d_int_range(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    int_range(d, 0, 1);
}

static void d_min_gt_max(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    f64_range(d, 1, 0);
}

static void d_outside(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 1.5), OK);
    f64_range(d, 0, 1);
}

static void d_nan(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, NAN), OK);
    f64_range(d, 0, 1);
}

static void d_min_only(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(kv_set_f64(d, KI_MIN, 0), OK);
}

static void d_stride(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(kv_set_i64(d, KI_STRIDE, 1), OK);
}

static void d_valid_ints(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {0, 1};
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 2, valid), OK);
}

static void d_valid_strings(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "a"), OK);
}

static void d_strmax(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(kv_set_i64(d, KI_STRMAX, 3), OK);
}

Test(knob_info, finalize_rules_double_knob)
{
    EXPECT(finalize_with(d_ok), OK);
    EXPECT(finalize_with(d_edge), OK);
    EXPECT(finalize_with(d_int_range), BAD);
    EXPECT(finalize_with(d_min_gt_max), BAD);
    EXPECT(finalize_with(d_outside), BAD);
    EXPECT(finalize_with(d_nan), BAD);
    EXPECT(finalize_with(d_min_only), BAD);
    EXPECT(finalize_with(d_stride), BAD);
    EXPECT(finalize_with(d_valid_ints), BAD);
    EXPECT(finalize_with(d_valid_strings), BAD);
    EXPECT(finalize_with(d_strmax), BAD);
}

static void s_ok(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_str(d, KI_DEFAULT, "abc"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "abc"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "de"), OK);
    EXPECT(kv_set_i64(d, KI_STRMAX, 3), OK);
}

static void s_not_listed(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_str(d, KI_DEFAULT, "ab"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "abc"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "a"), OK);
}

static void s_default_too_long(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_str(d, KI_DEFAULT, "abcd"), OK);
    EXPECT(kv_set_i64(d, KI_STRMAX, 3), OK);
}

static void s_valid_too_long(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_str(d, KI_DEFAULT, "ab"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "ab"), OK);
    EXPECT(kv_set_str(d, KI_VALID_STR, "abcd"), OK);
    EXPECT(kv_set_i64(d, KI_STRMAX, 3), OK);
}

static void s_int_range(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_str(d, KI_DEFAULT, "a"), OK);
    int_range(d, 0, 1);
}

static void s_double_range(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_str(d, KI_DEFAULT, "a"), OK);
    f64_range(d, 0, 1);
}

static void s_stride(hipdnnBackendDescriptor_t d)
{
    EXPECT(kv_set_str(d, KI_DEFAULT, "a"), OK);
    EXPECT(kv_set_i64(d, KI_STRIDE, 1), OK);
}

static void s_valid_ints(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {0, 1};
    EXPECT(kv_set_str(d, KI_DEFAULT, "a"), OK);
    EXPECT(kv_set(d, KI_VALID_INT, I64, 2, valid), OK);
}

Test(knob_info, finalize_rules_string_knob)
{
    EXPECT(finalize_with(s_ok), OK);
    EXPECT(finalize_with(s_not_listed), BAD);
    EXPECT(finalize_with(s_default_too_long), BAD);
    EXPECT(finalize_with(s_valid_too_long), BAD);
    EXPECT(finalize_with(s_int_range), BAD);
    EXPECT(finalize_with(s_double_range), BAD);
    EXPECT(finalize_with(s_stride), BAD);
    EXPECT(finalize_with(s_valid_ints), BAD);
}

Test(knob_info, default_type_follows_last_set)
{
    hipdnnBackendDescriptor_t d = info("k");
    EXPECT(kv_set_i64(d, KI_DEFAULT, 1), OK);
    EXPECT(kv_set_str(d, KI_DEFAULT, "one"), OK);
    EXPECT(kv_fin(d), OK);
    cr_assert_eq(kv_get_i64(d, KI_DTYPE), HIPDNN_TYPE_CHAR);
    kv_expect_str(d, KI_DEFAULT, "one");
    kv_destroy(d);
}

