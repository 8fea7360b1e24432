/* test_knobs_varpack.c — KNOB_CHOICE, KNOB_INFO and VARIANT_PACK descriptors through the
 * public API only (hipdnn-api.md §1.6, §2.3.4, §2.3.6, §2.3.7).
 *
 * Owns: for every attribute of the three descriptors, the round trip after finalize, type
 * and count errors, NULL pointers, the size query, set after finalize; finalize with each
 * required attribute missing; each finalize rule broken once next to a passing case;
 * polymorphic values read back only with their stored type; VALID_VALUES_STRING appending,
 * clearing and its NUL-separated get; each variant-pack override invariant broken once.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hipdnn_backend.h"

#define OK HIPDNN_STATUS_SUCCESS
#define BAD HIPDNN_STATUS_BAD_PARAM
#define NULLP HIPDNN_STATUS_BAD_PARAM_NULL_POINTER
#define NOT_INIT HIPDNN_STATUS_NOT_INITIALIZED
#define NOT_SUP HIPDNN_STATUS_NOT_SUPPORTED

#define I64 HIPDNN_TYPE_INT64
#define F64 HIPDNN_TYPE_DOUBLE
#define CHR HIPDNN_TYPE_CHAR
#define PTR HIPDNN_TYPE_VOID_PTR

static char last_msg[HIPDNN_ERROR_STRING_MAX_LENGTH];

static const char *last_error(void)
{
    hipdnnPeekLastErrorString_ext(last_msg, sizeof last_msg);
    return last_msg;
}

/* EXPECT(call, status): the call returns status; the message shows the last error. */
#define EXPECT(call, want)                                                                      \
    do {                                                                                        \
        hipdnnStatus_t st_ = (call);                                                            \
        cr_assert_eq(st_, (want), "%s:%d: %s returned %s, expected %s (last error: %s)",        \
                     __FILE__, __LINE__, #call, hipdnnGetErrorString(st_),                      \
                     hipdnnGetErrorString(want), last_error());                                 \
    } while (0)

static hipdnnBackendDescriptor_t mk(hipdnnBackendDescriptorType_t t)
{
    hipdnnBackendDescriptor_t d = NULL;
    EXPECT(hipdnnBackendCreateDescriptor(t, &d), OK);
    return d;
}

static hipdnnStatus_t set(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                          hipdnnBackendAttributeType_t t, int64_t n, const void *p)
{
    return hipdnnBackendSetAttribute(d, a, t, n, p);
}

static hipdnnStatus_t get(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                          hipdnnBackendAttributeType_t t, int64_t req, int64_t *n, void *p)
{
    return hipdnnBackendGetAttribute(d, a, t, req, n, p);
}

static hipdnnStatus_t set_str(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              const char *s)
{
    return set(d, a, CHR, (int64_t)strlen(s), s);
}

static hipdnnStatus_t set_i64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              int64_t v)
{
    return set(d, a, I64, 1, &v);
}

static hipdnnStatus_t set_f64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              double v)
{
    return set(d, a, F64, 1, &v);
}

static hipdnnStatus_t fin(hipdnnBackendDescriptor_t d) { return hipdnnBackendFinalize(d); }

static void destroy(hipdnnBackendDescriptor_t d)
{
    EXPECT(hipdnnBackendDestroyDescriptor(d), OK);
}

/* Reads a string attribute with a size query first; checks the count includes the NUL. */
static void expect_str(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                       const char *want)
{
    int64_t n = -1;
    char buf[256];
    EXPECT(get(d, a, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, (int64_t)strlen(want) + 1);
    memset(buf, 'X', sizeof buf);
    EXPECT(get(d, a, CHR, n, &n, buf), OK);
    cr_assert_eq(n, (int64_t)strlen(want) + 1);
    cr_assert_str_eq(buf, want);
}

static int64_t get_i64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a)
{
    int64_t v = INT64_MIN, n = -1;
    EXPECT(get(d, a, I64, 1, &n, &v), OK);
    cr_assert_eq(n, 1);
    return v;
}

static double get_f64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a)
{
    double v = -12345.0;
    int64_t n = -1;
    EXPECT(get(d, a, F64, 1, &n, &v), OK);
    cr_assert_eq(n, 1);
    return v;
}

/* An attribute that is unset reads as 0 elements. */
static void expect_unset(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                         hipdnnBackendAttributeType_t t)
{
    int64_t n = -1;
    char buf[64] = {0};
    EXPECT(get(d, a, t, 0, &n, NULL), OK);
    cr_assert_eq(n, 0);
    n = -1;
    EXPECT(get(d, a, t, 1, &n, buf), OK);
    cr_assert_eq(n, 0);
}

/* ==== KNOB_CHOICE ============================================================================ */

#define KC_TYPE HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE
#define KC_VALUE HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE

static hipdnnBackendDescriptor_t choice(const char *id)
{
    hipdnnBackendDescriptor_t d = mk(HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    if (id != NULL)
        EXPECT(set_str(d, KC_TYPE, id), OK);
    return d;
}

Test(knob_choice, int_value_round_trip)
{
    hipdnnBackendDescriptor_t d = choice("jit.tile_m");
    EXPECT(set_i64(d, KC_VALUE, 64), OK);
    EXPECT(fin(d), OK);
    expect_str(d, KC_TYPE, "jit.tile_m");
    cr_assert_eq(get_i64(d, KC_VALUE), 64);
    int64_t n = -1;
    EXPECT(get(d, KC_VALUE, I64, 0, &n, NULL), OK);
    cr_assert_eq(n, 1);
    double f;
    char s[8];
    EXPECT(get(d, KC_VALUE, F64, 1, &n, &f), BAD);
    EXPECT(get(d, KC_VALUE, CHR, 8, &n, s), BAD);
    EXPECT(get(d, KC_VALUE, HIPDNN_TYPE_FLOAT, 1, &n, &f), BAD);
    destroy(d);
}

Test(knob_choice, double_value_round_trip)
{
    hipdnnBackendDescriptor_t d = choice("jit.ratio");
    EXPECT(set_f64(d, KC_VALUE, 0.25), OK);
    EXPECT(fin(d), OK);
    cr_assert_eq(get_f64(d, KC_VALUE), 0.25);
    int64_t v, n;
    EXPECT(get(d, KC_VALUE, I64, 1, &n, &v), BAD);
    EXPECT(get(d, KC_VALUE, CHR, 1, &n, &v), BAD);
    destroy(d);
}

Test(knob_choice, string_value_round_trip_and_truncation)
{
    hipdnnBackendDescriptor_t d = choice("jit.mode");
    EXPECT(set_str(d, KC_VALUE, "fast"), OK);
    EXPECT(fin(d), OK);
    expect_str(d, KC_VALUE, "fast");
    char buf[8];
    int64_t n = -1;
    memset(buf, 'X', sizeof buf);
    EXPECT(get(d, KC_VALUE, CHR, 3, &n, buf), OK);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(buf, "fa");
    int64_t v;
    double f;
    EXPECT(get(d, KC_VALUE, I64, 1, &n, &v), BAD);
    EXPECT(get(d, KC_VALUE, F64, 1, &n, &f), BAD);
    destroy(d);
}

Test(knob_choice, empty_string_value_is_a_value)
{
    hipdnnBackendDescriptor_t d = choice("jit.mode");
    EXPECT(set(d, KC_VALUE, CHR, 0, ""), OK);
    EXPECT(fin(d), OK);
    expect_str(d, KC_VALUE, "");
    destroy(d);
}

Test(knob_choice, last_set_decides_the_type)
{
    hipdnnBackendDescriptor_t d = choice("k");
    EXPECT(set_str(d, KC_VALUE, "text"), OK);
    EXPECT(set_i64(d, KC_VALUE, 3), OK);
    EXPECT(set_f64(d, KC_VALUE, 1.5), OK);
    EXPECT(fin(d), OK);
    cr_assert_eq(get_f64(d, KC_VALUE), 1.5);
    int64_t v, n;
    EXPECT(get(d, KC_VALUE, I64, 1, &n, &v), BAD);
    destroy(d);
}

Test(knob_choice, set_errors)
{
    hipdnnBackendDescriptor_t d = choice(NULL);
    int64_t one = 1, two[2] = {1, 2};
    char big[65537];
    memset(big, 'a', sizeof big);
    EXPECT(set(d, KC_TYPE, I64, 1, &one), BAD);
    EXPECT(set(d, KC_TYPE, CHR, 0, "x"), BAD);
    EXPECT(set(d, KC_TYPE, CHR, 4097, big), BAD);
    EXPECT(set(d, KC_TYPE, CHR, 3, NULL), NULLP);
    EXPECT(set(d, KC_TYPE, CHR, -1, "x"), BAD);
    EXPECT(set(d, KC_TYPE, CHR, 4096, big), OK);
    EXPECT(set(d, KC_VALUE, HIPDNN_TYPE_FLOAT, 1, &one), BAD);
    EXPECT(set(d, KC_VALUE, HIPDNN_TYPE_INT32, 1, &one), BAD);
    EXPECT(set(d, KC_VALUE, I64, 2, two), BAD);
    EXPECT(set(d, KC_VALUE, I64, 0, two), BAD);
    EXPECT(set(d, KC_VALUE, F64, 2, two), BAD);
    EXPECT(set(d, KC_VALUE, I64, 1, NULL), NULLP);
    EXPECT(set(d, KC_VALUE, CHR, 2, NULL), NULLP);
    EXPECT(set(d, KC_VALUE, CHR, -1, "x"), BAD);
    EXPECT(set(d, KC_VALUE, CHR, 65537, big), BAD);
    EXPECT(set(d, HIPDNN_ATTR_KNOB_INFO_TYPE, CHR, 1, "x"), NOT_SUP);
    /* none of the failures stored anything: the value is still unset */
    EXPECT(fin(d), BAD);
    EXPECT(set(d, KC_VALUE, CHR, 65536, big), OK);
    EXPECT(fin(d), OK);
    int64_t n = -1;
    EXPECT(get(d, KC_VALUE, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, 65537);
    EXPECT(get(d, KC_TYPE, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, 4097);
    destroy(d);
}

Test(knob_choice, required_attributes)
{
    hipdnnBackendDescriptor_t d = choice(NULL);
    EXPECT(set_i64(d, KC_VALUE, 1), OK);
    EXPECT(fin(d), BAD);
    cr_assert(strstr(last_error(), "HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE") != NULL, "%s", last_msg);
    EXPECT(set_str(d, KC_TYPE, "k"), OK);
    EXPECT(fin(d), OK);
    destroy(d);

    d = choice("k");
    EXPECT(fin(d), BAD);
    cr_assert(strstr(last_error(), "HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE") != NULL, "%s", last_msg);
    destroy(d);
}

Test(knob_choice, lifecycle_and_queries)
{
    hipdnnBackendDescriptor_t d = choice("k");
    EXPECT(set_i64(d, KC_VALUE, 7), OK);
    int64_t n, v;
    EXPECT(get(d, KC_VALUE, I64, 1, &n, &v), NOT_INIT);
    EXPECT(get(d, KC_TYPE, CHR, 0, &n, NULL), NOT_INIT);
    EXPECT(fin(d), OK);
    EXPECT(fin(d), BAD);
    EXPECT(set_i64(d, KC_VALUE, 8), NOT_INIT);
    EXPECT(set_str(d, KC_TYPE, "other"), NOT_INIT);
    EXPECT(get(d, KC_VALUE, I64, 0, NULL, NULL), NULLP);
    EXPECT(get(d, KC_TYPE, CHR, 0, NULL, NULL), NULLP);
    EXPECT(get(d, KC_VALUE, I64, -1, &n, &v), BAD);
    EXPECT(get(d, KC_TYPE, I64, 1, &n, &v), BAD);
    EXPECT(get(d, HIPDNN_ATTR_KNOB_INFO_TYPE, CHR, 0, &n, NULL), NOT_SUP);
    /* a copy without elementCount still works */
    v = 0;
    EXPECT(get(d, KC_VALUE, I64, 1, NULL, &v), OK);
    cr_assert_eq(v, 7);
    destroy(d);
}

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
    hipdnnBackendDescriptor_t d = mk(HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR);
    if (id != NULL)
        EXPECT(set_str(d, KI_TYPE, id), OK);
    return d;
}

Test(knob_info, int_knob_round_trip)
{
    hipdnnBackendDescriptor_t d = info("jit.tile_m");
    int64_t valid[] = {16, 32, 64, 128};
    bool dep = true;
    EXPECT(set_str(d, KI_DESC, "rows of the output tile"), OK);
    EXPECT(set_i64(d, KI_MIN, 16), OK);
    EXPECT(set_i64(d, KI_MAX, 128), OK);
    EXPECT(set_i64(d, KI_STRIDE, 16), OK);
    EXPECT(set_i64(d, KI_DEFAULT, 64), OK);
    EXPECT(set(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, &dep), OK);
    EXPECT(set(d, KI_VALID_INT, I64, 4, valid), OK);
    EXPECT(fin(d), OK);

    expect_str(d, KI_TYPE, "jit.tile_m");
    expect_str(d, KI_DESC, "rows of the output tile");
    cr_assert_eq(get_i64(d, KI_MIN), 16);
    cr_assert_eq(get_i64(d, KI_MAX), 128);
    cr_assert_eq(get_i64(d, KI_STRIDE), 16);
    cr_assert_eq(get_i64(d, KI_DEFAULT), 64);
    cr_assert_eq(get_i64(d, KI_DTYPE), HIPDNN_TYPE_INT64);
    bool b = false;
    int64_t n = -1;
    EXPECT(get(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, &n, &b), OK);
    cr_assert(b && n == 1);

    int64_t out[8] = {0};
    EXPECT(get(d, KI_VALID_INT, I64, 0, &n, NULL), OK);
    cr_assert_eq(n, 4);
    EXPECT(get(d, KI_VALID_INT, I64, 8, &n, out), OK);
    cr_assert_eq(n, 4);
    cr_assert_arr_eq(out, valid, sizeof valid);
    memset(out, 0, sizeof out);
    EXPECT(get(d, KI_VALID_INT, I64, 2, &n, out), OK);
    cr_assert(n == 2 && out[0] == 16 && out[1] == 32 && out[2] == 0);

    /* polymorphic values read back only with their type */
    double f;
    char s[8];
    EXPECT(get(d, KI_DEFAULT, F64, 1, &n, &f), BAD);
    EXPECT(get(d, KI_DEFAULT, CHR, 8, &n, s), BAD);
    EXPECT(get(d, KI_MIN, F64, 1, &n, &f), BAD);
    EXPECT(get(d, KI_MAX, F64, 1, &n, &f), BAD);
    EXPECT(get(d, KI_MIN, CHR, 8, &n, s), BAD);
    /* string-knob attributes were never set */
    expect_unset(d, KI_STRMAX, I64);
    expect_unset(d, KI_VALID_STR, CHR);
    destroy(d);
}

Test(knob_info, double_knob_round_trip)
{
    hipdnnBackendDescriptor_t d = info("jit.alpha");
    EXPECT(set_f64(d, KI_MIN, 0.0), OK);
    EXPECT(set_f64(d, KI_MAX, 1.0), OK);
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(fin(d), OK);
    cr_assert_eq(get_f64(d, KI_MIN), 0.0);
    cr_assert_eq(get_f64(d, KI_MAX), 1.0);
    cr_assert_eq(get_f64(d, KI_DEFAULT), 0.5);
    cr_assert_eq(get_i64(d, KI_DTYPE), HIPDNN_TYPE_DOUBLE);
    int64_t v, n;
    EXPECT(get(d, KI_DEFAULT, I64, 1, &n, &v), BAD);
    EXPECT(get(d, KI_MIN, I64, 1, &n, &v), BAD);
    expect_unset(d, KI_STRIDE, I64);
    expect_unset(d, KI_VALID_INT, I64);
    expect_unset(d, KI_DESC, CHR);
    destroy(d);
}

Test(knob_info, string_knob_round_trip)
{
    hipdnnBackendDescriptor_t d = info("jit.mode");
    EXPECT(set_str(d, KI_DEFAULT, "fast"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "fast"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "accurate"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "balanced"), OK);
    EXPECT(set_i64(d, KI_STRMAX, 16), OK);
    EXPECT(fin(d), OK);
    expect_str(d, KI_DEFAULT, "fast");
    cr_assert_eq(get_i64(d, KI_DTYPE), HIPDNN_TYPE_CHAR);
    cr_assert_eq(get_i64(d, KI_STRMAX), 16);
    static const char want[] = "fast\0accurate\0balanced"; /* + the final NUL */
    char buf[64];
    int64_t n = -1;
    EXPECT(get(d, KI_VALID_STR, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, (int64_t)sizeof want);
    memset(buf, 'X', sizeof buf);
    EXPECT(get(d, KI_VALID_STR, CHR, (int64_t)sizeof buf, &n, buf), OK);
    cr_assert_eq(n, (int64_t)sizeof want);
    cr_assert_arr_eq(buf, want, sizeof want);
    /* a truncated copy still ends with a NUL */
    memset(buf, 'X', sizeof buf);
    EXPECT(get(d, KI_VALID_STR, CHR, 7, &n, buf), OK);
    cr_assert_eq(n, 7);
    cr_assert_arr_eq(buf, "fast\0a", 7);
    int64_t v;
    double f;
    EXPECT(get(d, KI_DEFAULT, I64, 1, &n, &v), BAD);
    EXPECT(get(d, KI_DEFAULT, F64, 1, &n, &f), BAD);
    expect_unset(d, KI_MIN, I64);
    expect_unset(d, KI_MAX, F64);
    destroy(d);
}

Test(knob_info, valid_strings_append_and_clear)
{
    hipdnnBackendDescriptor_t d = info("k");
    EXPECT(set_str(d, KI_VALID_STR, "a"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "b"), OK);
    EXPECT(set(d, KI_VALID_STR, CHR, 0, NULL), OK); /* clears */
    EXPECT(set_str(d, KI_VALID_STR, "c"), OK);
    EXPECT(set(d, KI_VALID_STR, CHR, 4, "x\0y\0"), OK); /* NUL-separated: appends x and y */
    EXPECT(set(d, KI_VALID_STR, CHR, 0, ""), OK);       /* appends the empty string */
    EXPECT(set_str(d, KI_DEFAULT, "y"), OK);
    EXPECT(fin(d), OK);
    char buf[16];
    int64_t n = -1;
    EXPECT(get(d, KI_VALID_STR, CHR, (int64_t)sizeof buf, &n, buf), OK);
    cr_assert_eq(n, 7);
    cr_assert_arr_eq(buf, "c\0x\0y\0", 7);
    destroy(d);

    d = info("k"); /* the empty string can be the default */
    EXPECT(set_str(d, KI_VALID_STR, "a"), OK);
    EXPECT(set(d, KI_VALID_STR, CHR, 0, ""), OK);
    EXPECT(set(d, KI_DEFAULT, CHR, 0, ""), OK);
    EXPECT(fin(d), OK);
    expect_str(d, KI_DEFAULT, "");
    destroy(d);

    d = info("k"); /* cleared list: any default */
    EXPECT(set_str(d, KI_VALID_STR, "a"), OK);
    EXPECT(set(d, KI_VALID_STR, CHR, 0, NULL), OK);
    EXPECT(set_str(d, KI_DEFAULT, "zzz"), OK);
    EXPECT(fin(d), OK);
    expect_unset(d, KI_VALID_STR, CHR);
    destroy(d);
}

Test(knob_info, valid_ints_count_zero_clears)
{
    hipdnnBackendDescriptor_t d = info("k");
    int64_t valid[] = {1, 2};
    EXPECT(set(d, KI_VALID_INT, I64, 2, valid), OK);
    EXPECT(set(d, KI_VALID_INT, I64, 0, NULL), OK);
    EXPECT(set_i64(d, KI_DEFAULT, 5), OK);
    EXPECT(fin(d), OK);
    expect_unset(d, KI_VALID_INT, I64);
    destroy(d);
}

Test(knob_info, unset_optionals)
{
    hipdnnBackendDescriptor_t d = info("k");
    EXPECT(set_i64(d, KI_DEFAULT, 1), OK);
    EXPECT(fin(d), OK);
    bool b = true;
    int64_t n = -1;
    EXPECT(get(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, &n, &b), OK); /* reads false */
    cr_assert(n == 1 && !b);
    expect_unset(d, KI_MIN, I64);
    expect_unset(d, KI_MAX, I64);
    expect_unset(d, KI_STRIDE, I64);
    expect_unset(d, KI_DESC, CHR);
    expect_unset(d, KI_VALID_INT, I64);
    expect_unset(d, KI_VALID_STR, CHR);
    expect_unset(d, KI_STRMAX, I64);
    destroy(d);
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
    EXPECT(set(d, KI_TYPE, I64, 1, &one), BAD);
    EXPECT(set(d, KI_TYPE, CHR, 0, "x"), BAD);
    EXPECT(set(d, KI_TYPE, CHR, 4097, big), BAD);
    EXPECT(set(d, KI_TYPE, CHR, 2, NULL), NULLP);
    EXPECT(set(d, KI_MIN, HIPDNN_TYPE_FLOAT, 1, &f32), BAD);
    EXPECT(set(d, KI_MIN, CHR, 1, "1"), BAD);
    EXPECT(set(d, KI_MAX, HIPDNN_TYPE_INT32, 1, &i32), BAD);
    EXPECT(set(d, KI_MIN, I64, 2, two), BAD);
    EXPECT(set(d, KI_MAX, F64, 0, two), BAD);
    EXPECT(set(d, KI_MIN, I64, 1, NULL), NULLP);
    EXPECT(set(d, KI_MAX, F64, 1, NULL), NULLP);
    EXPECT(set(d, KI_STRIDE, I64, 1, &zero), BAD);
    EXPECT(set(d, KI_STRIDE, I64, 1, &neg), BAD);
    EXPECT(set(d, KI_STRIDE, F64, 1, &one), BAD);
    EXPECT(set(d, KI_STRIDE, I64, 2, two), BAD);
    EXPECT(set(d, KI_STRIDE, I64, 1, NULL), NULLP);
    EXPECT(set(d, KI_DESC, I64, 1, &one), BAD);
    EXPECT(set(d, KI_DESC, CHR, 65537, big), BAD);
    EXPECT(set(d, KI_DESC, CHR, 3, NULL), NULLP);
    EXPECT(set(d, KI_DEFAULT, HIPDNN_TYPE_FLOAT, 1, &f32), BAD);
    EXPECT(set(d, KI_DEFAULT, HIPDNN_TYPE_BOOLEAN, 1, &b), BAD);
    EXPECT(set(d, KI_DEFAULT, I64, 2, two), BAD);
    EXPECT(set(d, KI_DEFAULT, CHR, 65537, big), BAD);
    EXPECT(set(d, KI_DEFAULT, CHR, -1, "x"), BAD);
    EXPECT(set(d, KI_DEFAULT, I64, 1, NULL), NULLP);
    EXPECT(set(d, KI_DEPRECATED, I64, 1, &one), BAD);
    EXPECT(set(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 2, two), BAD);
    EXPECT(set(d, KI_DEPRECATED, HIPDNN_TYPE_BOOLEAN, 1, NULL), NULLP);
    EXPECT(set(d, KI_VALID_INT, F64, 1, &one), BAD);
    EXPECT(set(d, KI_VALID_INT, I64, -1, two), BAD);
    EXPECT(set(d, KI_VALID_INT, I64, 2, NULL), NULLP);
    EXPECT(set(d, KI_VALID_STR, I64, 1, &one), BAD);
    EXPECT(set(d, KI_VALID_STR, CHR, -1, "x"), BAD);
    EXPECT(set(d, KI_VALID_STR, CHR, 3, NULL), NULLP);
    EXPECT(set(d, KI_VALID_STR, CHR, 65537, big), BAD);
    EXPECT(set(d, KI_STRMAX, I64, 1, &zero), BAD);
    EXPECT(set(d, KI_STRMAX, HIPDNN_TYPE_INT32, 1, &i32), BAD);
    EXPECT(set(d, KI_STRMAX, I64, 2, two), BAD);
    EXPECT(set(d, KI_DTYPE, I64, 1, &one), NOT_SUP);
    EXPECT(set(d, KC_VALUE, I64, 1, &one), NOT_SUP);
    /* nothing above was stored: TYPE and DEFAULT are still missing */
    EXPECT(fin(d), BAD);
    EXPECT(set(d, KI_TYPE, CHR, 4096, big), OK);
    EXPECT(set(d, KI_DEFAULT, CHR, 65536, big), OK);
    EXPECT(set(d, KI_DESC, CHR, 65536, big), OK);
    EXPECT(fin(d), OK);
    int64_t n = -1;
    EXPECT(get(d, KI_DEFAULT, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, 65537);
    destroy(d);
}

Test(knob_info, required_attributes)
{
    hipdnnBackendDescriptor_t d = info(NULL);
    EXPECT(set_i64(d, KI_DEFAULT, 1), OK);
    EXPECT(fin(d), BAD);
    cr_assert(strstr(last_error(), "HIPDNN_ATTR_KNOB_INFO_TYPE") != NULL, "%s", last_msg);
    destroy(d);
    d = info("k");
    EXPECT(set_i64(d, KI_MIN, 0), OK);
    EXPECT(set_i64(d, KI_MAX, 4), OK);
    EXPECT(fin(d), BAD);
    cr_assert(strstr(last_error(), "HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE") != NULL, "%s", last_msg);
    EXPECT(set_i64(d, KI_DEFAULT, 2), OK); /* a failed finalize leaves it open */
    EXPECT(fin(d), OK);
    destroy(d);
}

Test(knob_info, lifecycle_and_queries)
{
    hipdnnBackendDescriptor_t d = info("knob");
    EXPECT(set_i64(d, KI_DEFAULT, 3), OK);
    int64_t n, v;
    EXPECT(get(d, KI_TYPE, CHR, 0, &n, NULL), NOT_INIT);
    EXPECT(get(d, KI_DEFAULT, I64, 1, &n, &v), NOT_INIT);
    EXPECT(get(d, KI_DTYPE, I64, 1, &n, &v), NOT_INIT);
    EXPECT(fin(d), OK);
    EXPECT(fin(d), BAD);
    EXPECT(set_i64(d, KI_DEFAULT, 4), NOT_INIT);
    EXPECT(set_str(d, KI_VALID_STR, "a"), NOT_INIT);
    EXPECT(set(d, KI_VALID_STR, CHR, 0, NULL), NOT_INIT);
    EXPECT(set_i64(d, KI_STRIDE, 1), NOT_INIT);
    EXPECT(get(d, KI_TYPE, CHR, 0, NULL, NULL), NULLP);
    EXPECT(get(d, KI_DEFAULT, I64, 0, NULL, NULL), NULLP);
    EXPECT(get(d, KI_DTYPE, I64, 0, NULL, NULL), NULLP);
    EXPECT(get(d, KI_DEFAULT, I64, -1, &n, &v), BAD);
    EXPECT(get(d, KI_DTYPE, F64, 1, &n, &v), BAD);
    EXPECT(get(d, KI_STRIDE, F64, 1, &n, &v), BAD);
    EXPECT(get(d, KI_VALID_INT, F64, 1, &n, &v), BAD);
    EXPECT(get(d, KI_VALID_STR, I64, 1, &n, &v), BAD);
    EXPECT(get(d, KI_DEPRECATED, I64, 1, &n, &v), BAD);
    EXPECT(get(d, KC_TYPE, CHR, 0, &n, NULL), NOT_SUP);
    cr_assert_eq(get_i64(d, KI_DEFAULT), 3);
    EXPECT(get(d, KI_DTYPE, I64, 0, &n, NULL), OK);
    cr_assert_eq(n, 1);
    destroy(d);
}

/* ---- finalize rules: each broken once, beside a case that passes --------------------------- */

typedef void (*knob_setup)(hipdnnBackendDescriptor_t d);

static hipdnnStatus_t finalize_with(knob_setup f)
{
    hipdnnBackendDescriptor_t d = info("jit.k");
    f(d);
    hipdnnStatus_t st = fin(d);
    destroy(d);
    return st;
}

static void int_default(hipdnnBackendDescriptor_t d, int64_t v)
{
    EXPECT(set_i64(d, KI_DEFAULT, v), OK);
}

static void int_range(hipdnnBackendDescriptor_t d, int64_t lo, int64_t hi)
{
    EXPECT(set_i64(d, KI_MIN, lo), OK);
    EXPECT(set_i64(d, KI_MAX, hi), OK);
}

static void f64_range(hipdnnBackendDescriptor_t d, double lo, double hi)
{
    EXPECT(set_f64(d, KI_MIN, lo), OK);
    EXPECT(set_f64(d, KI_MAX, hi), OK);
}

static void i_ok(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {0, 8, 16};
    int_range(d, 0, 16);
    EXPECT(set_i64(d, KI_STRIDE, 8), OK);
    EXPECT(set(d, KI_VALID_INT, I64, 3, valid), OK);
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
    EXPECT(set_i64(d, KI_MIN, 0), OK);
}

static void i_max_only(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(set_i64(d, KI_MAX, 2), OK);
}

static void i_mixed_range(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(set_i64(d, KI_MIN, 0), OK);
    EXPECT(set_f64(d, KI_MAX, 2.0), OK);
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
    EXPECT(set_i64(d, KI_STRIDE, 2), OK);
}

static void i_on_grid_extremes(hipdnnBackendDescriptor_t d)
{
    int_default(d, INT64_MAX);
    int_range(d, INT64_MIN + 1, INT64_MAX);
    EXPECT(set_i64(d, KI_STRIDE, 2), OK);
}

static void i_not_listed(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {1, 2, 4};
    int_default(d, 3);
    EXPECT(set(d, KI_VALID_INT, I64, 3, valid), OK);
}

static void i_listed_out_of_range(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {1, 2, 40};
    int_default(d, 2);
    int_range(d, 0, 10);
    EXPECT(set(d, KI_VALID_INT, I64, 3, valid), OK);
}

static void i_valid_strings(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(set_str(d, KI_VALID_STR, "1"), OK);
}

static void i_strmax(hipdnnBackendDescriptor_t d)
{
    int_default(d, 1);
    EXPECT(set_i64(d, KI_STRMAX, 4), OK);
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
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    f64_range(d, 0, 1);
}

static void d_edge(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 1.0), OK);
    f64_range(d, 0, 1);
}

static void d_int_range(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    int_range(d, 0, 1);
}

static void d_min_gt_max(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    f64_range(d, 1, 0);
}

static void d_outside(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 1.5), OK);
    f64_range(d, 0, 1);
}

static void d_nan(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, NAN), OK);
    f64_range(d, 0, 1);
}

static void d_min_only(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(set_f64(d, KI_MIN, 0), OK);
}

static void d_stride(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(set_i64(d, KI_STRIDE, 1), OK);
}

static void d_valid_ints(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {0, 1};
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(set(d, KI_VALID_INT, I64, 2, valid), OK);
}

static void d_valid_strings(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(set_str(d, KI_VALID_STR, "a"), OK);
}

static void d_strmax(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_f64(d, KI_DEFAULT, 0.5), OK);
    EXPECT(set_i64(d, KI_STRMAX, 3), OK);
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
    EXPECT(set_str(d, KI_DEFAULT, "abc"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "abc"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "de"), OK);
    EXPECT(set_i64(d, KI_STRMAX, 3), OK);
}

static void s_not_listed(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_str(d, KI_DEFAULT, "ab"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "abc"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "a"), OK);
}

static void s_default_too_long(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_str(d, KI_DEFAULT, "abcd"), OK);
    EXPECT(set_i64(d, KI_STRMAX, 3), OK);
}

static void s_valid_too_long(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_str(d, KI_DEFAULT, "ab"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "ab"), OK);
    EXPECT(set_str(d, KI_VALID_STR, "abcd"), OK);
    EXPECT(set_i64(d, KI_STRMAX, 3), OK);
}

static void s_int_range(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_str(d, KI_DEFAULT, "a"), OK);
    int_range(d, 0, 1);
}

static void s_double_range(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_str(d, KI_DEFAULT, "a"), OK);
    f64_range(d, 0, 1);
}

static void s_stride(hipdnnBackendDescriptor_t d)
{
    EXPECT(set_str(d, KI_DEFAULT, "a"), OK);
    EXPECT(set_i64(d, KI_STRIDE, 1), OK);
}

static void s_valid_ints(hipdnnBackendDescriptor_t d)
{
    int64_t valid[] = {0, 1};
    EXPECT(set_str(d, KI_DEFAULT, "a"), OK);
    EXPECT(set(d, KI_VALID_INT, I64, 2, valid), OK);
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
    EXPECT(set_i64(d, KI_DEFAULT, 1), OK);
    EXPECT(set_str(d, KI_DEFAULT, "one"), OK);
    EXPECT(fin(d), OK);
    cr_assert_eq(get_i64(d, KI_DTYPE), HIPDNN_TYPE_CHAR);
    expect_str(d, KI_DEFAULT, "one");
    destroy(d);
}

/* ==== VARIANT_PACK ============================================================================ */

#define VP_UIDS HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS
#define VP_PTRS HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS
#define VP_INTER HIPDNN_ATTR_VARIANT_PACK_INTERMEDIATES
#define VP_WS HIPDNN_ATTR_VARIANT_PACK_WORKSPACE
#define VP_OV_UIDS HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS_EXT
#define VP_OV_SHAPES HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES_EXT
#define VP_OV_STRIDES HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES_EXT
#define VP_OV_LENGTHS HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_LENGTHS_EXT

static char mem[4][64]; /* stand-ins for device buffers: only the addresses matter */
static int64_t uids3[3] = {10, 20, 30};
static void *ptrs3[3] = {mem[0], mem[1], mem[2]};

static hipdnnBackendDescriptor_t pack3(void)
{
    hipdnnBackendDescriptor_t d = mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(set(d, VP_UIDS, I64, 3, uids3), OK);
    EXPECT(set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    return d;
}

static void set_i64s(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a, int n,
                     const int64_t *v)
{
    EXPECT(set(d, a, I64, n, v), OK);
}

static void expect_i64s(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a, int n,
                        const int64_t *want)
{
    int64_t got[16], cnt = -1;
    EXPECT(get(d, a, I64, 0, &cnt, NULL), OK);
    cr_assert_eq(cnt, n);
    EXPECT(get(d, a, I64, 16, &cnt, got), OK);
    cr_assert_eq(cnt, n);
    cr_assert_arr_eq(got, want, (size_t)n * sizeof *want);
}

Test(variant_pack, round_trip)
{
    hipdnnBackendDescriptor_t d = pack3();
    void *ws = mem[3];
    EXPECT(set(d, VP_WS, PTR, 1, &ws), OK);
    set_i64s(d, VP_OV_UIDS, 2, (int64_t[]){30, 10});
    set_i64s(d, VP_OV_LENGTHS, 2, (int64_t[]){2, 1});
    set_i64s(d, VP_OV_SHAPES, 3, (int64_t[]){4, 8, 5});
    set_i64s(d, VP_OV_STRIDES, 3, (int64_t[]){8, 0, 1});
    EXPECT(fin(d), OK);

    expect_i64s(d, VP_UIDS, 3, uids3);
    expect_i64s(d, VP_OV_UIDS, 2, (int64_t[]){30, 10});
    expect_i64s(d, VP_OV_LENGTHS, 2, (int64_t[]){2, 1});
    expect_i64s(d, VP_OV_SHAPES, 3, (int64_t[]){4, 8, 5});
    expect_i64s(d, VP_OV_STRIDES, 3, (int64_t[]){8, 0, 1});
    void *p[4] = {0};
    int64_t n = -1;
    EXPECT(get(d, VP_PTRS, PTR, 0, &n, NULL), OK);
    cr_assert_eq(n, 3);
    EXPECT(get(d, VP_PTRS, PTR, 4, &n, p), OK);
    cr_assert(n == 3 && p[0] == mem[0] && p[1] == mem[1] && p[2] == mem[2] && p[3] == NULL);
    memset(p, 0, sizeof p);
    EXPECT(get(d, VP_PTRS, PTR, 2, &n, p), OK);
    cr_assert(n == 2 && p[1] == mem[1] && p[2] == NULL);
    void *w = NULL;
    EXPECT(get(d, VP_WS, PTR, 1, &n, &w), OK);
    cr_assert(n == 1 && w == mem[3]);
    int64_t u[3];
    EXPECT(get(d, VP_UIDS, F64, 3, &n, u), BAD);
    EXPECT(get(d, VP_PTRS, I64, 3, &n, u), BAD);
    EXPECT(get(d, VP_WS, I64, 1, &n, u), BAD);
    EXPECT(get(d, VP_UIDS, I64, 0, NULL, NULL), NULLP);
    EXPECT(get(d, VP_UIDS, I64, -1, &n, u), BAD);
    destroy(d);
}

Test(variant_pack, minimal_pack_and_unset_optionals)
{
    hipdnnBackendDescriptor_t d = pack3();
    EXPECT(fin(d), OK);
    expect_unset(d, VP_WS, PTR);
    expect_unset(d, VP_OV_UIDS, I64);
    expect_unset(d, VP_OV_SHAPES, I64);
    expect_unset(d, VP_OV_STRIDES, I64);
    expect_unset(d, VP_OV_LENGTHS, I64);
    destroy(d);

    d = pack3(); /* a NULL workspace (plan needs none) is a value */
    void *ws = NULL;
    EXPECT(set(d, VP_WS, PTR, 1, &ws), OK);
    EXPECT(fin(d), OK);
    int64_t n = -1;
    void *w = mem[0];
    EXPECT(get(d, VP_WS, PTR, 1, &n, &w), OK);
    cr_assert(n == 1 && w == NULL);
    destroy(d);
}

Test(variant_pack, set_errors)
{
    hipdnnBackendDescriptor_t d = mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    int32_t u32[2] = {1, 2};
    double f[2] = {1, 2};
    void *p[2] = {mem[0], mem[1]};
    EXPECT(set(d, VP_UIDS, HIPDNN_TYPE_INT32, 2, u32), BAD);
    EXPECT(set(d, VP_UIDS, F64, 2, f), BAD);
    EXPECT(set(d, VP_UIDS, I64, 0, uids3), BAD);
    EXPECT(set(d, VP_UIDS, I64, -1, uids3), BAD);
    EXPECT(set(d, VP_UIDS, I64, 2, NULL), NULLP);
    EXPECT(set(d, VP_PTRS, I64, 2, uids3), BAD);
    EXPECT(set(d, VP_PTRS, PTR, 0, p), BAD);
    EXPECT(set(d, VP_PTRS, PTR, 2, NULL), NULLP);
    EXPECT(set(d, VP_WS, PTR, 2, p), BAD);
    EXPECT(set(d, VP_WS, PTR, 0, p), BAD);
    EXPECT(set(d, VP_WS, I64, 1, uids3), BAD);
    EXPECT(set(d, VP_WS, PTR, 1, NULL), NULLP);
    hipdnnBackendAttributeName_t ov[] = {VP_OV_UIDS, VP_OV_SHAPES, VP_OV_STRIDES, VP_OV_LENGTHS};
    for (int i = 0; i < 4; i++) {
        EXPECT(set(d, ov[i], F64, 2, f), BAD);
        EXPECT(set(d, ov[i], HIPDNN_TYPE_INT32, 2, u32), BAD);
        EXPECT(set(d, ov[i], I64, 2, NULL), NULLP);
        EXPECT(set(d, ov[i], I64, -1, uids3), BAD);
    }
    EXPECT(set(d, HIPDNN_ATTR_KNOB_INFO_TYPE, CHR, 1, "x"), NOT_SUP);
    EXPECT(fin(d), BAD); /* nothing was stored */
    destroy(d);
}

Test(variant_pack, intermediates_not_supported)
{
    hipdnnBackendDescriptor_t d = pack3();
    void *p = mem[0];
    int64_t n;
    EXPECT(set(d, VP_INTER, PTR, 1, &p), NOT_SUP);
    cr_assert(strstr(last_error(), "INTERMEDIATES") != NULL, "%s", last_msg);
    EXPECT(set(d, VP_INTER, I64, 1, uids3), NOT_SUP);
    EXPECT(get(d, VP_INTER, PTR, 1, &n, &p), NOT_SUP);
    EXPECT(fin(d), OK);
    EXPECT(get(d, VP_INTER, PTR, 1, &n, &p), NOT_SUP);
    EXPECT(get(d, VP_INTER, I64, 0, &n, NULL), NOT_SUP);
    destroy(d);
}

Test(variant_pack, required_attributes)
{
    hipdnnBackendDescriptor_t d = mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    EXPECT(fin(d), BAD);
    cr_assert(strstr(last_error(), "HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS") != NULL, "%s", last_msg);
    destroy(d);
    d = mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(set(d, VP_UIDS, I64, 3, uids3), OK);
    EXPECT(fin(d), BAD);
    cr_assert(strstr(last_error(), "HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS") != NULL, "%s",
              last_msg);
    destroy(d);
}

Test(variant_pack, lifecycle)
{
    hipdnnBackendDescriptor_t d = pack3();
    int64_t n, u[3];
    EXPECT(get(d, VP_UIDS, I64, 3, &n, u), NOT_INIT);
    EXPECT(fin(d), OK);
    EXPECT(fin(d), BAD);
    EXPECT(set(d, VP_UIDS, I64, 3, uids3), NOT_INIT);
    void *ws = mem[3];
    EXPECT(set(d, VP_WS, PTR, 1, &ws), NOT_INIT);
    EXPECT(set(d, VP_OV_UIDS, I64, 1, uids3), NOT_INIT);
    destroy(d);
}

Test(variant_pack, finalize_pointer_rules)
{
    hipdnnBackendDescriptor_t d = mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(set(d, VP_UIDS, I64, 3, uids3), OK);
    EXPECT(set(d, VP_PTRS, PTR, 2, ptrs3), OK);
    EXPECT(fin(d), BAD); /* fewer pointers than uids */
    EXPECT(set(d, VP_UIDS, I64, 2, uids3), OK);
    EXPECT(set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    EXPECT(fin(d), BAD); /* more pointers than uids */
    EXPECT(set(d, VP_UIDS, I64, 3, (int64_t[]){10, 20, 10}), OK);
    EXPECT(fin(d), BAD); /* a uid twice */
    cr_assert(strstr(last_error(), "uid 10") != NULL, "%s", last_msg);
    EXPECT(set(d, VP_UIDS, I64, 3, (int64_t[]){10, 20, 7}), OK);
    EXPECT(set(d, VP_PTRS, PTR, 3, (void *[]){mem[0], mem[1], NULL}), OK);
    EXPECT(fin(d), BAD); /* a NULL data pointer, named by its uid */
    cr_assert(strstr(last_error(), "uid 7") != NULL, "%s", last_msg);
    EXPECT(set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    EXPECT(fin(d), OK);
    destroy(d);
}

/* Builds pack3 with the given overrides (n < 0: leave the attribute unset) and finalizes. */
typedef struct ov_case {
    int n_uids, n_len, n_shp, n_str;
    int64_t uids[4], len[4], shp[16], str[16];
} ov_case;

static hipdnnStatus_t finalize_overrides(const ov_case *c)
{
    hipdnnBackendDescriptor_t d = pack3();
    if (c->n_uids >= 0)
        set_i64s(d, VP_OV_UIDS, c->n_uids, c->uids);
    if (c->n_len >= 0)
        set_i64s(d, VP_OV_LENGTHS, c->n_len, c->len);
    if (c->n_shp >= 0)
        set_i64s(d, VP_OV_SHAPES, c->n_shp, c->shp);
    if (c->n_str >= 0)
        set_i64s(d, VP_OV_STRIDES, c->n_str, c->str);
    hipdnnStatus_t st = fin(d);
    destroy(d);
    return st;
}

Test(variant_pack, override_invariants)
{
    const ov_case ok = {2, 2, 3, 3, {20, 30}, {1, 2}, {7, 2, 3}, {1, 3, 1}};
    EXPECT(finalize_overrides(&ok), OK);
    const ov_case none = {-1, -1, -1, -1, {0}, {0}, {0}, {0}};
    EXPECT(finalize_overrides(&none), OK);
    const ov_case cleared = {0, 0, 0, 0, {0}, {0}, {0}, {0}};
    EXPECT(finalize_overrides(&cleared), OK);

    ov_case c;
    c = ok, c.uids[1] = 99; /* not in UNIQUE_IDS */
    EXPECT(finalize_overrides(&c), BAD);
    cr_assert(strstr(last_error(), "99") != NULL, "%s", last_msg);
    c = ok, c.uids[1] = 20; /* an override uid twice */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_len = 1, c.n_shp = 1, c.n_str = 1; /* one length for two uids */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_len = -1; /* lengths missing */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.len[0] = 0, c.n_shp = 2, c.n_str = 2; /* rank 0 */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.len[0] = 9, c.n_shp = 11, c.n_str = 11; /* rank 9 > 8 */
    for (int i = 0; i < 11; i++)
        c.shp[i] = 1, c.str[i] = 1;
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_shp = 2; /* shapes total != sum of lengths */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_str = 4; /* strides total != sum of lengths */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_str = -1; /* strides missing */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.shp[1] = 0; /* a dimension 0 */
    EXPECT(finalize_overrides(&c), BAD);
    cr_assert(strstr(last_error(), "uid 30") != NULL, "%s", last_msg);
    c = ok, c.shp[2] = -3; /* a negative dimension */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.str[0] = -1; /* a negative stride */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_uids = -1; /* shapes without uids */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_uids = 0;
    EXPECT(finalize_overrides(&c), BAD);
}
