/* test_knobs_varpack.c — KNOB_CHOICE, KNOB_INFO and VARIANT_PACK descriptors through the
 * public API only (hipdnn-api.md §1.6, §2.3.4, §2.3.6, §2.3.7).
 *
 * Owns: for every attribute of the three descriptors, the round trip after finalize, type
 * and count errors, NULL pointers, the size query, set after finalize; finalize with each
 * required attribute missing; each finalize rule broken once next to a passing case;
 * polymorphic values read back only with their stored type; VALID_VALUES_STRING appending,
 * clearing and its NUL-separated get; each variant-pack override invariant broken once.
 *
 * This file: KNOB_CHOICE and VARIANT_PACK; KNOB_INFO is in test_knobs_info.c, the shared
 * helpers in kv_util.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "kv_util.h"

/* ==== KNOB_CHOICE ============================================================================ */

static hipdnnBackendDescriptor_t choice(const char *id)
{
    hipdnnBackendDescriptor_t d = kv_mk(HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    if (id != NULL)
        EXPECT(kv_set_str(d, KC_TYPE, id), OK);
    return d;
}

Test(knob_choice, int_value_round_trip)
{
    hipdnnBackendDescriptor_t d = choice("jit.tile_m");
    EXPECT(kv_set_i64(d, KC_VALUE, 64), OK);
    EXPECT(kv_fin(d), OK);
    kv_expect_str(d, KC_TYPE, "jit.tile_m");
    cr_assert_eq(kv_get_i64(d, KC_VALUE), 64);
    int64_t n = -1;
    EXPECT(kv_get(d, KC_VALUE, I64, 0, &n, NULL), OK);
    cr_assert_eq(n, 1);
    double f;
    char s[8];
    EXPECT(kv_get(d, KC_VALUE, F64, 1, &n, &f), BAD);
    EXPECT(kv_get(d, KC_VALUE, CHR, 8, &n, s), BAD);
    EXPECT(kv_get(d, KC_VALUE, HIPDNN_TYPE_FLOAT, 1, &n, &f), BAD);
    kv_destroy(d);
}

Test(knob_choice, double_value_round_trip)
{
    hipdnnBackendDescriptor_t d = choice("jit.ratio");
    EXPECT(kv_set_f64(d, KC_VALUE, 0.25), OK);
    EXPECT(kv_fin(d), OK);
    cr_assert_eq(kv_get_f64(d, KC_VALUE), 0.25);
    int64_t v, n;
    EXPECT(kv_get(d, KC_VALUE, I64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KC_VALUE, CHR, 1, &n, &v), BAD);
    kv_destroy(d);
}

Test(knob_choice, string_value_round_trip_and_truncation)
{
    hipdnnBackendDescriptor_t d = choice("jit.mode");
    EXPECT(kv_set_str(d, KC_VALUE, "fast"), OK);
    EXPECT(kv_fin(d), OK);
    kv_expect_str(d, KC_VALUE, "fast");
    char buf[8];
    int64_t n = -1;
    memset(buf, 'X', sizeof buf);
    EXPECT(kv_get(d, KC_VALUE, CHR, 3, &n, buf), OK);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(buf, "fa");
    int64_t v;
    double f;
    EXPECT(kv_get(d, KC_VALUE, I64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, KC_VALUE, F64, 1, &n, &f), BAD);
    kv_destroy(d);
}

Test(knob_choice, empty_string_value_is_a_value)
{
    hipdnnBackendDescriptor_t d = choice("jit.mode");
    EXPECT(kv_set(d, KC_VALUE, CHR, 0, ""), OK);
    EXPECT(kv_fin(d), OK);
    kv_expect_str(d, KC_VALUE, "");
    kv_destroy(d);
}

Test(knob_choice, last_set_decides_the_type)
{
    hipdnnBackendDescriptor_t d = choice("k");
    EXPECT(kv_set_str(d, KC_VALUE, "text"), OK);
    EXPECT(kv_set_i64(d, KC_VALUE, 3), OK);
    EXPECT(kv_set_f64(d, KC_VALUE, 1.5), OK);
    EXPECT(kv_fin(d), OK);
    cr_assert_eq(kv_get_f64(d, KC_VALUE), 1.5);
    int64_t v, n;
    EXPECT(kv_get(d, KC_VALUE, I64, 1, &n, &v), BAD);
    kv_destroy(d);
}

Test(knob_choice, set_errors)
{
    hipdnnBackendDescriptor_t d = choice(NULL);
    int64_t one = 1, two[2] = {1, 2};
    char big[65537];
    memset(big, 'a', sizeof big);
    EXPECT(kv_set(d, KC_TYPE, I64, 1, &one), BAD);
    EXPECT(kv_set(d, KC_TYPE, CHR, 0, "x"), BAD);
    EXPECT(kv_set(d, KC_TYPE, CHR, 4097, big), BAD);
    EXPECT(kv_set(d, KC_TYPE, CHR, 3, NULL), NULLP);
    EXPECT(kv_set(d, KC_TYPE, CHR, -1, "x"), BAD);
    EXPECT(kv_set(d, KC_TYPE, CHR, 4096, big), OK);
    EXPECT(kv_set(d, KC_VALUE, HIPDNN_TYPE_FLOAT, 1, &one), BAD);
    EXPECT(kv_set(d, KC_VALUE, HIPDNN_TYPE_INT32, 1, &one), BAD);
    EXPECT(kv_set(d, KC_VALUE, I64, 2, two), BAD);
    EXPECT(kv_set(d, KC_VALUE, I64, 0, two), BAD);
    EXPECT(kv_set(d, KC_VALUE, F64, 2, two), BAD);
    EXPECT(kv_set(d, KC_VALUE, I64, 1, NULL), NULLP);
    EXPECT(kv_set(d, KC_VALUE, CHR, 2, NULL), NULLP);
    EXPECT(kv_set(d, KC_VALUE, CHR, -1, "x"), BAD);
    EXPECT(kv_set(d, KC_VALUE, CHR, 65537, big), BAD);
    EXPECT(kv_set(d, HIPDNN_ATTR_KNOB_INFO_TYPE, CHR, 1, "x"), NOT_SUP);
    /* none of the failures stored anything: the value is still unset */
    EXPECT(kv_fin(d), BAD);
    EXPECT(kv_set(d, KC_VALUE, CHR, 65536, big), OK);
    EXPECT(kv_fin(d), OK);
    int64_t n = -1;
    EXPECT(kv_get(d, KC_VALUE, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, 65537);
    EXPECT(kv_get(d, KC_TYPE, CHR, 0, &n, NULL), OK);
    cr_assert_eq(n, 4097);
    kv_destroy(d);
}

Test(knob_choice, required_attributes)
{
    hipdnnBackendDescriptor_t d = choice(NULL);
    EXPECT(kv_set_i64(d, KC_VALUE, 1), OK);
    EXPECT(kv_fin(d), BAD);
    cr_assert(strstr(kv_last_error(), "HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE") != NULL, "%s", kv_last_msg);
    EXPECT(kv_set_str(d, KC_TYPE, "k"), OK);
    EXPECT(kv_fin(d), OK);
    kv_destroy(d);

    d = choice("k");
    EXPECT(kv_fin(d), BAD);
    cr_assert(strstr(kv_last_error(), "HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE") != NULL, "%s", kv_last_msg);
    kv_destroy(d);
}

Test(knob_choice, lifecycle_and_queries)
{
    hipdnnBackendDescriptor_t d = choice("k");
    EXPECT(kv_set_i64(d, KC_VALUE, 7), OK);
    int64_t n, v;
    EXPECT(kv_get(d, KC_VALUE, I64, 1, &n, &v), NOT_INIT);
    EXPECT(kv_get(d, KC_TYPE, CHR, 0, &n, NULL), NOT_INIT);
    EXPECT(kv_fin(d), OK);
    EXPECT(kv_fin(d), BAD);
    EXPECT(kv_set_i64(d, KC_VALUE, 8), NOT_INIT);
    EXPECT(kv_set_str(d, KC_TYPE, "other"), NOT_INIT);
    EXPECT(kv_get(d, KC_VALUE, I64, 0, NULL, NULL), NULLP);
    EXPECT(kv_get(d, KC_TYPE, CHR, 0, NULL, NULL), NULLP);
    EXPECT(kv_get(d, KC_VALUE, I64, -1, &n, &v), BAD);
    EXPECT(kv_get(d, KC_TYPE, I64, 1, &n, &v), BAD);
    EXPECT(kv_get(d, HIPDNN_ATTR_KNOB_INFO_TYPE, CHR, 0, &n, NULL), NOT_SUP);
    /* a copy without elementCount still works */
    v = 0;
    EXPECT(kv_get(d, KC_VALUE, I64, 1, NULL, &v), OK);
    cr_assert_eq(v, 7);
    kv_destroy(d);
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
    hipdnnBackendDescriptor_t d = kv_mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(kv_set(d, VP_UIDS, I64, 3, uids3), OK);
    EXPECT(kv_set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    return d;
}

static void set_i64s(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a, int n,
                     const int64_t *v)
{
    EXPECT(kv_set(d, a, I64, n, v), OK);
}

static void expect_i64s(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a, int n,
                        const int64_t *want)
{
    int64_t got[16], cnt = -1;
    EXPECT(kv_get(d, a, I64, 0, &cnt, NULL), OK);
    cr_assert_eq(cnt, n);
    EXPECT(kv_get(d, a, I64, 16, &cnt, got), OK);
    cr_assert_eq(cnt, n);
    cr_assert_arr_eq(got, want, (size_t)n * sizeof *want);
}

Test(variant_pack, round_trip)
{
    hipdnnBackendDescriptor_t d = pack3();
    void *ws = mem[3];
    EXPECT(kv_set(d, VP_WS, PTR, 1, &ws), OK);
    set_i64s(d, VP_OV_UIDS, 2, (int64_t[]){30, 10});
    set_i64s(d, VP_OV_LENGTHS, 2, (int64_t[]){2, 1});
    set_i64s(d, VP_OV_SHAPES, 3, (int64_t[]){4, 8, 5});
    set_i64s(d, VP_OV_STRIDES, 3, (int64_t[]){8, 0, 1});
    EXPECT(kv_fin(d), OK);

    expect_i64s(d, VP_UIDS, 3, uids3);
    expect_i64s(d, VP_OV_UIDS, 2, (int64_t[]){30, 10});
    expect_i64s(d, VP_OV_LENGTHS, 2, (int64_t[]){2, 1});
    expect_i64s(d, VP_OV_SHAPES, 3, (int64_t[]){4, 8, 5});
    expect_i64s(d, VP_OV_STRIDES, 3, (int64_t[]){8, 0, 1});
    void *p[4] = {0};
    int64_t n = -1;
    EXPECT(kv_get(d, VP_PTRS, PTR, 0, &n, NULL), OK);
    cr_assert_eq(n, 3);
    EXPECT(kv_get(d, VP_PTRS, PTR, 4, &n, p), OK);
    cr_assert(n == 3 && p[0] == mem[0] && p[1] == mem[1] && p[2] == mem[2] && p[3] == NULL);
    memset(p, 0, sizeof p);
    EXPECT(kv_get(d, VP_PTRS, PTR, 2, &n, p), OK);
    cr_assert(n == 2 && p[1] == mem[1] && p[2] == NULL);
    void *w = NULL;
    EXPECT(kv_get(d, VP_WS, PTR, 1, &n, &w), OK);
    cr_assert(n == 1 && w == mem[3]);
    int64_t u[3];
    EXPECT(kv_get(d, VP_UIDS, F64, 3, &n, u), BAD);
    EXPECT(kv_get(d, VP_PTRS, I64, 3, &n, u), BAD);
    EXPECT(kv_get(d, VP_WS, I64, 1, &n, u), BAD);
    EXPECT(kv_get(d, VP_UIDS, I64, 0, NULL, NULL), NULLP);
    EXPECT(kv_get(d, VP_UIDS, I64, -1, &n, u), BAD);
    kv_destroy(d);
}

Test(variant_pack, minimal_pack_and_unset_optionals)
{
    hipdnnBackendDescriptor_t d = pack3();
    EXPECT(kv_fin(d), OK);
    kv_expect_unset(d, VP_WS, PTR);
    kv_expect_unset(d, VP_OV_UIDS, I64);
    kv_expect_unset(d, VP_OV_SHAPES, I64);
    kv_expect_unset(d, VP_OV_STRIDES, I64);
    kv_expect_unset(d, VP_OV_LENGTHS, I64);
    kv_destroy(d);

    d = pack3(); /* a NULL workspace (plan needs none) is a value */
    void *ws = NULL;
    EXPECT(kv_set(d, VP_WS, PTR, 1, &ws), OK);
    EXPECT(kv_fin(d), OK);
    int64_t n = -1;
    void *w = mem[0];
    EXPECT(kv_get(d, VP_WS, PTR, 1, &n, &w), OK);
    cr_assert(n == 1 && w == NULL);
    kv_destroy(d);
}

Test(variant_pack, set_errors)
{
    hipdnnBackendDescriptor_t d = kv_mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    int32_t u32[2] = {1, 2};
    double f[2] = {1, 2};
    void *p[2] = {mem[0], mem[1]};
    EXPECT(kv_set(d, VP_UIDS, HIPDNN_TYPE_INT32, 2, u32), BAD);
    EXPECT(kv_set(d, VP_UIDS, F64, 2, f), BAD);
    EXPECT(kv_set(d, VP_UIDS, I64, 0, uids3), BAD);
    EXPECT(kv_set(d, VP_UIDS, I64, -1, uids3), BAD);
    EXPECT(kv_set(d, VP_UIDS, I64, 2, NULL), NULLP);
    EXPECT(kv_set(d, VP_PTRS, I64, 2, uids3), BAD);
    EXPECT(kv_set(d, VP_PTRS, PTR, 0, p), BAD);
    EXPECT(kv_set(d, VP_PTRS, PTR, 2, NULL), NULLP);
    EXPECT(kv_set(d, VP_WS, PTR, 2, p), BAD);
    EXPECT(kv_set(d, VP_WS, PTR, 0, p), BAD);
    EXPECT(kv_set(d, VP_WS, I64, 1, uids3), BAD);
    EXPECT(kv_set(d, VP_WS, PTR, 1, NULL), NULLP);
    hipdnnBackendAttributeName_t ov[] = {VP_OV_UIDS, VP_OV_SHAPES, VP_OV_STRIDES, VP_OV_LENGTHS};
    for (int i = 0; i < 4; i++) {
        EXPECT(kv_set(d, ov[i], F64, 2, f), BAD);
        EXPECT(kv_set(d, ov[i], HIPDNN_TYPE_INT32, 2, u32), BAD);
        EXPECT(kv_set(d, ov[i], I64, 2, NULL), NULLP);
        EXPECT(kv_set(d, ov[i], I64, -1, uids3), BAD);
    }
    EXPECT(kv_set(d, HIPDNN_ATTR_KNOB_INFO_TYPE, CHR, 1, "x"), NOT_SUP);
    EXPECT(kv_fin(d), BAD); /* nothing was stored */
    kv_destroy(d);
}

Test(variant_pack, intermediates_not_supported)
{
    hipdnnBackendDescriptor_t d = pack3();
    void *p = mem[0];
    int64_t n;
    EXPECT(kv_set(d, VP_INTER, PTR, 1, &p), NOT_SUP);
    cr_assert(strstr(kv_last_error(), "INTERMEDIATES") != NULL, "%s", kv_last_msg);
    EXPECT(kv_set(d, VP_INTER, I64, 1, uids3), NOT_SUP);
    EXPECT(kv_get(d, VP_INTER, PTR, 1, &n, &p), NOT_SUP);
    EXPECT(kv_fin(d), OK);
    EXPECT(kv_get(d, VP_INTER, PTR, 1, &n, &p), NOT_SUP);
    EXPECT(kv_get(d, VP_INTER, I64, 0, &n, NULL), NOT_SUP);
    kv_destroy(d);
}

Test(variant_pack, required_attributes)
{
    hipdnnBackendDescriptor_t d = kv_mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(kv_set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    EXPECT(kv_fin(d), BAD);
    cr_assert(strstr(kv_last_error(), "HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS") != NULL, "%s", kv_last_msg);
    kv_destroy(d);
    d = kv_mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(kv_set(d, VP_UIDS, I64, 3, uids3), OK);
    EXPECT(kv_fin(d), BAD);
    cr_assert(strstr(kv_last_error(), "HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS") != NULL, "%s",
              kv_last_msg);
    kv_destroy(d);
}

Test(variant_pack, lifecycle)
{
    hipdnnBackendDescriptor_t d = pack3();
    int64_t n, u[3];
    EXPECT(kv_get(d, VP_UIDS, I64, 3, &n, u), NOT_INIT);
    EXPECT(kv_fin(d), OK);
    EXPECT(kv_fin(d), BAD);
    EXPECT(kv_set(d, VP_UIDS, I64, 3, uids3), NOT_INIT);
    void *ws = mem[3];
    EXPECT(kv_set(d, VP_WS, PTR, 1, &ws), NOT_INIT);
    EXPECT(kv_set(d, VP_OV_UIDS, I64, 1, uids3), NOT_INIT);
    kv_destroy(d);
}

Test(variant_pack, finalize_pointer_rules)
{
    hipdnnBackendDescriptor_t d = kv_mk(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT(kv_set(d, VP_UIDS, I64, 3, uids3), OK);
    EXPECT(kv_set(d, VP_PTRS, PTR, 2, ptrs3), OK);
    EXPECT(kv_fin(d), BAD); /* fewer pointers than uids */
    EXPECT(kv_set(d, VP_UIDS, I64, 2, uids3), OK);
    EXPECT(kv_set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    EXPECT(kv_fin(d), BAD); /* more pointers than uids */
    EXPECT(kv_set(d, VP_UIDS, I64, 3, (int64_t[]){10, 20, 10}), OK);
    EXPECT(kv_fin(d), BAD); /* a uid twice */
    cr_assert(strstr(kv_last_error(), "uid 10") != NULL, "%s", kv_last_msg);
    EXPECT(kv_set(d, VP_UIDS, I64, 3, (int64_t[]){10, 20, 7}), OK);
    EXPECT(kv_set(d, VP_PTRS, PTR, 3, (void *[]){mem[0], mem[1], NULL}), OK);
    EXPECT(kv_fin(d), BAD); /* a NULL data pointer, named by its uid */
    cr_assert(strstr(kv_last_error(), "uid 7") != NULL, "%s", kv_last_msg);
    EXPECT(kv_set(d, VP_PTRS, PTR, 3, ptrs3), OK);
    EXPECT(kv_fin(d), OK);
    kv_destroy(d);
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
    hipdnnStatus_t st = kv_fin(d);
    kv_destroy(d);
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
    cr_assert(strstr(kv_last_error(), "99") != NULL, "%s", kv_last_msg);
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
    cr_assert(strstr(kv_last_error(), "uid 30") != NULL, "%s", kv_last_msg);
    c = ok, c.shp[2] = -3; /* a negative dimension */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.str[0] = -1; /* a negative stride */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_uids = -1; /* shapes without uids */
    EXPECT(finalize_overrides(&c), BAD);
    c = ok, c.n_uids = 0;
    EXPECT(finalize_overrides(&c), BAD);
}
