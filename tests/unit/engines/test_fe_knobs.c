/* test_fe_knobs.c — unit tests of engines/fe_knob.c and desc/fe_varpack.c internals.
 *
 * Owns: fe_knob_info_make (what it sets, what it rejects, allocation failures), the
 * fe_knob_choice view for each value type, the fe_varpack view and fe_varpack_find, and
 * allocation failures while appending valid strings and finalizing a pack. The attribute
 * rules themselves are tested through the public API in tests/api/test_knobs_varpack.c.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engines/fe_engines.h"

#define OK HIPDNN_STATUS_SUCCESS

static fe_obj *new_obj(const fe_class *cls)
{
    fe_obj *o = NULL;
    cr_assert_eq(fe_obj_new(cls, &o), OK);
    return o;
}

static void set_ok(fe_obj *o, hipdnnBackendAttributeName_t a, hipdnnBackendAttributeType_t t,
                   int64_t n, const void *p)
{
    cr_assert_eq(fe_set_attr(o, a, t, n, p), OK, "attribute %d", (int)a);
}

/* ---- fe_knob_info_make ------------------------------------------------------------------------ */

Test(fe_knob_info_make, sets_every_field_and_finalizes)
{
    static const int64_t valid[] = {16, 64, 128};
    fe_knob_def def = {.id = "jit.tile_m", .description = "rows of the output tile", .min = 16,
                       .max = 256, .stride = 16, .dflt = 64, .valid = valid, .n_valid = 3};
    fe_obj *o = NULL;
    cr_assert_eq(fe_knob_info_make(&def, &o), OK);
    cr_assert(o != NULL && o->finalized && o->cls == &fe_knob_info_class);
    cr_assert_str_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_TYPE)->arr, "jit.tile_m");
    cr_assert_str_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_DESCRIPTION)->arr, "rows of the output tile");
    fe_val *min = fe_get(o, HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE);
    cr_assert(min->type == HIPDNN_TYPE_INT64 && min->one.i64 == 16);
    cr_assert_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE)->one.i64, 256);
    cr_assert_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_STRIDE)->one.i64, 16);
    cr_assert_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE)->one.i64, 64);
    fe_val *v = fe_get(o, HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT);
    cr_assert_eq(v->n, 3);
    cr_assert_arr_eq(v->arr, valid, sizeof valid);
    int64_t t = -1, n = -1;
    cr_assert_eq(fe_get_attr(o, HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE_TYPE, HIPDNN_TYPE_INT64, 1,
                             &n, &t), OK);
    cr_assert(n == 1 && t == HIPDNN_TYPE_INT64);
    cr_assert_eq(atomic_load(&o->refs), 1);
    fe_obj_unref(o);
}

Test(fe_knob_info_make, optional_fields_left_unset)
{
    fe_knob_def def = {.id = "jit.unroll", .min = 1, .max = 8, .dflt = 3};
    fe_obj *o = NULL;
    cr_assert_eq(fe_knob_info_make(&def, &o), OK);
    cr_assert_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_DESCRIPTION)->n, 0);
    cr_assert_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_STRIDE)->n, 0);
    cr_assert_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT)->n, 0);
    fe_obj_unref(o);
}

Test(fe_knob_info_make, rejects_inconsistent_definitions)
{
    static const int64_t valid[] = {1, 2, 4};
    fe_obj *sentinel = (fe_obj *)&sentinel;
    const fe_knob_def bad[] = {
        {.id = "k", .min = 0, .max = 4, .dflt = 5},                    /* default above max */
        {.id = "k", .min = 5, .max = 4, .dflt = 4},                    /* min > max */
        {.id = "k", .min = 0, .max = 8, .stride = -2, .dflt = 4},      /* stride <= 0 */
        {.id = "k", .min = 0, .max = 8, .stride = 3, .dflt = 4},       /* default off the grid */
        {.id = "k", .min = 0, .max = 8, .dflt = 3, .valid = valid, .n_valid = 3}, /* not listed */
        {.id = "", .min = 0, .max = 8, .dflt = 3},                     /* empty id */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fe_obj *o = sentinel;
        cr_assert_eq(fe_knob_info_make(&bad[i], &o), HIPDNN_STATUS_BAD_PARAM, "case %zu", i);
        cr_assert_eq(o, sentinel, "case %zu: *out written on failure", i);
    }
}

Test(fe_knob_info_make, allocation_failures_end_in_a_status)
{
    static const int64_t valid[] = {2, 4};
    fe_knob_def def = {.id = "jit.k", .description = "d", .min = 2, .max = 4, .stride = 2,
                       .dflt = 4, .valid = valid, .n_valid = 2};
    int k;
    for (k = 1; k < 100; k++) {
        fe_obj *o = NULL;
        base_alloc_fail_at(k, false);
        hipdnnStatus_t st = fe_knob_info_make(&def, &o);
        base_alloc_fail_at(0, false);
        if (st == OK) {
            cr_assert(o != NULL && o->finalized);
            fe_obj_unref(o);
            break;
        }
        cr_assert_eq(st, HIPDNN_STATUS_ALLOC_FAILED, "allocation %d", k);
    }
    cr_assert(k > 1 && k < 100, "made it only after %d allocations", k);
}

/* ---- fe_knob_choice ------------------------------------------------------------------------------ */

static fe_obj *choice(hipdnnBackendAttributeType_t t, int64_t n, const void *value)
{
    fe_obj *o = new_obj(&fe_knob_choice_class);
    set_ok(o, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR, 5, "jit.k");
    set_ok(o, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, t, n, value);
    cr_assert_eq(fe_finalize(o), OK);
    return o;
}

Test(fe_knob_choice, view_of_each_value_type)
{
    int64_t i = -42;
    double f = 2.5;
    fe_obj *o = choice(HIPDNN_TYPE_INT64, 1, &i);
    fe_knob_choice_view v = fe_knob_choice(o);
    cr_assert_str_eq(v.id, "jit.k");
    cr_assert(v.type == HIPDNN_TYPE_INT64 && v.i64 == -42 && v.str == NULL);
    fe_obj_unref(o);

    o = choice(HIPDNN_TYPE_DOUBLE, 1, &f);
    v = fe_knob_choice(o);
    cr_assert(v.type == HIPDNN_TYPE_DOUBLE && v.f64 == 2.5 && v.i64 == 0 && v.str == NULL);
    fe_obj_unref(o);

    o = choice(HIPDNN_TYPE_CHAR, 3, "abc");
    v = fe_knob_choice(o);
    cr_assert(v.type == HIPDNN_TYPE_CHAR && v.i64 == 0);
    cr_assert_str_eq(v.str, "abc");
    fe_obj_unref(o);

    o = choice(HIPDNN_TYPE_CHAR, 0, "");
    v = fe_knob_choice(o);
    cr_assert(v.type == HIPDNN_TYPE_CHAR && v.str != NULL && v.str[0] == '\0');
    fe_obj_unref(o);
}

Test(fe_knob_info, failed_append_keeps_the_list)
{
    fe_obj *o = new_obj(&fe_knob_info_class);
    const hipdnnBackendAttributeName_t vs = HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_STRING;
    set_ok(o, vs, HIPDNN_TYPE_CHAR, 1, "a");
    base_alloc_fail_at(1, false);
    hipdnnStatus_t st = fe_set_attr(o, vs, HIPDNN_TYPE_CHAR, 2, "bc");
    base_alloc_fail_at(0, false);
    cr_assert_eq(st, HIPDNN_STATUS_ALLOC_FAILED);
    fe_val *v = fe_get(o, vs);
    cr_assert_eq(v->n, 2);
    cr_assert_arr_eq(v->arr, "a", 2);
    base_alloc_fail_at(1, false);
    st = fe_set_attr(o, HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE, HIPDNN_TYPE_CHAR, 1, "a");
    base_alloc_fail_at(0, false);
    cr_assert_eq(st, HIPDNN_STATUS_ALLOC_FAILED);
    cr_assert_eq(fe_get(o, HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE)->arr, NULL);
    fe_obj_unref(o);
}

/* ---- fe_varpack ----------------------------------------------------------------------------------- */

static char mem[3][16];

static fe_obj *pack(bool overrides)
{
    static const int64_t uids[] = {5, 9, 2}, ov_uids[] = {9}, len[] = {2}, shp[] = {3, 4},
                         str[] = {4, 1};
    void *ptrs[] = {mem[0], mem[1], mem[2]};
    fe_obj *o = new_obj(&fe_variant_pack_class);
    set_ok(o, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, 3, uids);
    set_ok(o, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, 3, ptrs);
    if (overrides) {
        void *ws = mem;
        set_ok(o, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &ws);
        set_ok(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS_EXT, HIPDNN_TYPE_INT64, 1, ov_uids);
        set_ok(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_LENGTHS_EXT, HIPDNN_TYPE_INT64, 1, len);
        set_ok(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES_EXT, HIPDNN_TYPE_INT64, 2, shp);
        set_ok(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES_EXT, HIPDNN_TYPE_INT64, 2, str);
    }
    return o;
}

Test(fe_varpack, view_and_find)
{
    fe_obj *o = pack(true);
    cr_assert_eq(fe_finalize(o), OK);
    fe_varpack_view v = fe_varpack(o);
    cr_assert(v.n == 3 && v.uids[0] == 5 && v.uids[1] == 9 && v.uids[2] == 2);
    cr_assert(v.ptrs[0] == mem[0] && v.ptrs[1] == mem[1] && v.ptrs[2] == mem[2]);
    cr_assert_eq(v.workspace, (void *)mem);
    cr_assert(v.n_overrides == 1 && v.override_uids[0] == 9 && v.override_lengths[0] == 2);
    cr_assert(v.override_shapes[0] == 3 && v.override_shapes[1] == 4);
    cr_assert(v.override_strides[0] == 4 && v.override_strides[1] == 1);
    void *p = NULL;
    cr_assert(fe_varpack_find(&v, 9, &p) && p == mem[1]);
    cr_assert(fe_varpack_find(&v, 2, &p) && p == mem[2]);
    cr_assert(fe_varpack_find(&v, 5, NULL));
    p = mem;
    cr_assert(!fe_varpack_find(&v, 7, &p) && p == NULL);
    cr_assert(!fe_varpack_find(&v, 7, NULL));
    fe_obj_unref(o);
}

Test(fe_varpack, view_without_optionals)
{
    fe_obj *o = pack(false);
    cr_assert_eq(fe_finalize(o), OK);
    fe_varpack_view v = fe_varpack(o);
    cr_assert(v.n == 3 && v.workspace == NULL && v.n_overrides == 0);
    fe_obj_unref(o);
}

Test(fe_varpack, finalize_allocation_failures)
{
    int k;
    for (k = 1; k < 20; k++) {
        fe_obj *o = pack(true);
        base_alloc_fail_at(k, false);
        hipdnnStatus_t st = fe_finalize(o);
        base_alloc_fail_at(0, false);
        cr_assert(st == OK || st == HIPDNN_STATUS_ALLOC_FAILED, "allocation %d", k);
        cr_assert_eq(o->finalized, st == OK);
        fe_obj_unref(o);
        if (st == OK)
            break;
    }
    cr_assert(k > 1 && k < 20, "finalized only after %d allocations", k);
}
