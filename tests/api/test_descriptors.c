/* test_descriptors.c — the descriptor layer through the public API only.
 *
 * Owns: creation of every descriptor type; the generic SetAttribute / GetAttribute / Finalize
 * rules of hipdnn-api.md §1.6 checked for every attribute of TENSOR, OPERATIONGRAPH and every
 * OPERATION_* type against the tests' own tables (tests/common/recipes*.c); tensor-specific
 * rules (by-value scalars, layout checks at finalize); handles, error strings, the per-thread
 * last error, logging, the version string, Execute's argument checks, the engine list, and the
 * descriptor types that refuse every call (INTERMEDIATE_INFO, LAYOUT_INFO, KERNEL_CACHE).
 * Does not own: graph structure rules (test_graph.c) or per-operation shape rules.
 *
 * This file: creation, the generic attribute rules per descriptor type, the tables, every op's
 * name and type. Tensors are in test_descriptors_tensor.c; handles, errors, logging, version
 * and engines in test_descriptors_errors.c; shared helpers in td_util.c.
 *
 * "Parameterized" tests run once per descriptor type of rc_specs; failure messages name the
 * descriptor and attribute. Random sizes and values: the seed is printed per test.
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

/* ---- creation ----------------------------------------------------------------------------------- */

Test(create, every_type_1_to_30_creates_and_destroys)
{
    for (int t = 1; t <= 30; t++) {
        hipdnnBackendDescriptor_t d = NULL;
        hipdnnStatus_t st = hipdnnBackendCreateDescriptor((hipdnnBackendDescriptorType_t)t, &d);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "create type %d -> %s [%s]", t, tu_st(st),
                     tu_msg());
        cr_expect_neq(d, NULL, "type %d: no descriptor", t);
        if (d != NULL)
            cr_expect_eq(hipdnnBackendDestroyDescriptor(d), HIPDNN_STATUS_SUCCESS, "type %d", t);
    }
}

Test(create, invalid_types_are_not_supported_and_leave_output_alone)
{
    const int bad[] = {HIPDNN_INVALID_TYPE, 31, -1, 1000, 0x7fffffff};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hipdnnBackendDescriptor_t d = (hipdnnBackendDescriptor_t)(uintptr_t)0x1234;
        hipdnnStatus_t st = hipdnnBackendCreateDescriptor((hipdnnBackendDescriptorType_t)bad[i], &d);
        cr_expect_eq(st, HIPDNN_STATUS_NOT_SUPPORTED, "type %d -> %s", bad[i], tu_st(st));
        cr_expect_eq(d, (hipdnnBackendDescriptor_t)(uintptr_t)0x1234, "type %d: output written",
                     bad[i]);
    }
}

Test(create, null_arguments)
{
    TU_EQ(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, NULL),
          HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_BAD_NULL(hipdnnBackendDestroyDescriptor(NULL));
    TU_BAD_NULL(hipdnnBackendFinalize(NULL));
    int64_t v = 1, n = 0;
    TU_BAD_NULL(hipdnnBackendSetAttribute(NULL, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64,
                                          1, &v));
    TU_BAD_NULL(hipdnnBackendGetAttribute(NULL, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64,
                                          1, &n, &v));
}

/* Types with nothing to describe here (or not built yet) exist, and refuse everything else
 * with NOT_SUPPORTED and a reason. */
Test(create, refused_types_say_why)
{
    int64_t v = 1, n = 0;
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    for (int i = 0; i < rc_n_refused_types; i++) {
        const rc_refused *r = &rc_refused_types[i];
        hipdnnBackendDescriptor_t d = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(r->type, &d));
        for (int call = 0; call < 3; call++) {
            hipdnnGetLastErrorString(msg, sizeof msg);
            hipdnnStatus_t st =
                call == 0 ? hipdnnBackendSetAttribute(d, r->attr, HIPDNN_TYPE_INT64, 1, &v)
                : call == 1 ? hipdnnBackendGetAttribute(d, r->attr, HIPDNN_TYPE_INT64, 1, &n, &v)
                            : hipdnnBackendFinalize(d);
            hipdnnGetLastErrorString(msg, sizeof msg);
            cr_expect_eq(st, HIPDNN_STATUS_NOT_SUPPORTED, "type %d, call %d: %s", (int)r->type,
                         call, tu_st(st));
            cr_expect_neq(strstr(msg, r->phrase), NULL, "type %d, call %d: message '%s' lacks '%s'",
                          (int)r->type, call, msg, r->phrase);
        }
        TU_OK(hipdnnBackendDestroyDescriptor(d));
    }
}

/* ---- generic attribute rules, per descriptor type ------------------------------------------------ */

/* Every attribute set (the caller's descriptor handles destroyed right after), finalize, and
 * every attribute read back equal; descriptor values come back as new handles with the uid. */
ParameterizedTestParameters(attrs, full_round_trip) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, full_round_trip, .init = td_setup_handle, .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::full_round_trip");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, td_handle);
        hipdnnBackendDescriptor_t d = rc_create(&c, -1);
        rc_release(&c); /* the descriptor holds its own references */
        TU_OK(hipdnnBackendFinalize(d));
        for (int i = 0; i < c.spec->n_attrs; i++)
            rc_check_get(&c, d, i);
        for (int i = 0; i < c.spec->n_attrs; i++) /* handles from the first round were independent */
            rc_check_get(&c, d, i);
        tu_destroy(&d);
    }
}

/* Only the required attributes: optional ones report count 0 and write nothing. */
ParameterizedTestParameters(attrs, minimal_round_trip_and_unset_optionals) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, minimal_round_trip_and_unset_optionals, .init = td_setup_handle,
                  .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::minimal_round_trip_and_unset_optionals");
    rc_fill(&c, &rc_specs[*k], false, td_handle);
    hipdnnBackendDescriptor_t d = rc_build(&c);
    for (int i = 0; i < c.spec->n_attrs; i++) {
        const rc_attr *a = &c.spec->attrs[i];
        rc_check_get(&c, d, i);
        if (c.v[i].n != 0 || !td_settable(a))
            continue;
        unsigned char buf[64];
        int64_t n = -7;
        memset(buf, 0x5a, sizeof buf);
        hipdnnStatus_t st = hipdnnBackendGetAttribute(d, a->id, a->type, 1, &n, buf);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s unset: get -> %s", c.spec->name, a->name,
                     tu_st(st));
        cr_expect_eq(n, 0, "%s %s unset: count %lld", c.spec->name, a->name, (long long)n);
        cr_expect_eq(buf[0], 0x5a, "%s %s unset: the get wrote something", c.spec->name, a->name);
    }
    tu_destroy(&d);
    rc_release(&c);
}

ParameterizedTestParameters(attrs, get_before_finalize_is_not_initialized) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, get_before_finalize_is_not_initialized, .init = td_setup_handle,
                  .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::get_before_finalize_is_not_initialized");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, td_handle);
        hipdnnBackendDescriptor_t d = rc_create(&c, -1);
        for (int i = 0; i < c.spec->n_attrs; i++) {
            const rc_attr *a = &c.spec->attrs[i];
            unsigned char buf[256];
            int64_t n = 0;
            hipdnnStatus_t st = hipdnnBackendGetAttribute(d, a->id, a->type, 8, &n, buf);
            if (a->kind == RC_DECLARED) {
                cr_expect_eq(st, HIPDNN_STATUS_NOT_SUPPORTED, "%s %s: %s", c.spec->name, a->name,
                             tu_st(st));
            } else if (a->id == HIPDNN_ATTR_OPERATION_TYPE_EXT || a->id == HIPDNN_ATTR_OPERATION_NAME_EXT) {
                /* readable early in this library (a frontend names ops while building); if so,
                 * the value must already be right */
                cr_expect(st == HIPDNN_STATUS_SUCCESS || st == HIPDNN_STATUS_NOT_INITIALIZED,
                          "%s %s: %s", c.spec->name, a->name, tu_st(st));
                if (st == HIPDNN_STATUS_SUCCESS && a->id == HIPDNN_ATTR_OPERATION_TYPE_EXT) {
                    int type;
                    memcpy(&type, buf, sizeof type);
                    cr_expect_eq(type, c.spec->op_type, "%s: operation type %d before finalize",
                                 c.spec->name, type);
                }
            } else {
                cr_expect_eq(st, HIPDNN_STATUS_NOT_INITIALIZED, "%s %s: get before finalize -> %s",
                             c.spec->name, a->name, tu_st(st));
            }
        }
        tu_destroy(&d);
        rc_release(&c);
    }
}

ParameterizedTestParameters(attrs, set_after_finalize_is_not_initialized) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, set_after_finalize_is_not_initialized, .init = td_setup_handle,
                  .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::set_after_finalize_is_not_initialized");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, td_handle);
        hipdnnBackendDescriptor_t d = rc_build(&c);
        for (int i = 0; i < c.spec->n_attrs; i++)
            if (td_settable(&c.spec->attrs[i]))
                TU_EXPECT(rc_set(&c, d, i), HIPDNN_STATUS_NOT_INITIALIZED, c.spec->attrs[i].name);
        TU_EXPECT(hipdnnBackendFinalize(d), HIPDNN_STATUS_BAD_PARAM, "finalize twice");
        for (int i = 0; i < c.spec->n_attrs; i++) /* nothing changed */
            rc_check_get(&c, d, i);
        tu_destroy(&d);
        rc_release(&c);
    }
}

/* Wrong element type, count and NULL arrays, on a fresh descriptor. */
ParameterizedTestParameters(attrs, set_rejects_bad_type_count_and_null) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, set_rejects_bad_type_count_and_null, .init = td_setup_handle,
                  .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::set_rejects_bad_type_count_and_null");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, td_handle);
        hipdnnBackendDescriptor_t d = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(c.spec->type, &d));
        int dt = rc_index(c.spec, HIPDNN_ATTR_TENSOR_DATA_TYPE);
        if (dt >= 0) /* so that VALUE_EXT's "data type first" rule does not mask the others */
            TU_OK(rc_set(&c, d, dt));
        for (int i = 0; i < c.spec->n_attrs; i++) {
            const rc_attr *a = &c.spec->attrs[i];
            const rc_val *v = &c.v[i];
            if (!td_settable(a))
                continue;
            /* a buffer big enough for any count below, all zero */
            static const unsigned char zeros[512];
            for (int w = 0; w < 2; w++)
                TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, td_wrong_type(a->type, w), v->n, zeros),
                          HIPDNN_STATUS_BAD_PARAM, a->name);
            /* a count that is right for the attribute, with no array */
            TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, a->type, v->n > 1 ? v->n : 1, NULL),
                      HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, a->name);
            TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, a->type, -1, zeros), HIPDNN_STATUS_BAD_PARAM,
                      a->name);
            const void *two = a->type == DESC ? (const void *)c.v[i].d : (const void *)zeros;
            if (a->kind == RC_SCALAR || a->kind == RC_TENSOR) {
                TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, a->type, 0, zeros),
                          HIPDNN_STATUS_BAD_PARAM, a->name);
                hipdnnBackendDescriptor_t pair[2] = {v->d[0], v->d[0]};
                TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, a->type, 2, a->type == DESC ? pair : two),
                          HIPDNN_STATUS_BAD_PARAM, a->name);
            }
            if (a->kind == RC_ARRAY)
                TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, a->type, 0, zeros),
                          HIPDNN_STATUS_BAD_PARAM, a->name);
            if (td_is_checked_enum(a->type)) {
                int bad[] = {-1, 1000};
                for (int b = 0; b < 2; b++)
                    TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, a->type, 1, &bad[b]),
                              HIPDNN_STATUS_BAD_PARAM, a->name);
            }
        }
        tu_destroy(&d);
        rc_release(&c);
    }
}

/* A failed set leaves the previous value exactly as it was. */
ParameterizedTestParameters(attrs, failed_set_keeps_previous_value) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, failed_set_keeps_previous_value, .init = td_setup_handle,
                  .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::failed_set_keeps_previous_value");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, td_handle);
        hipdnnBackendDescriptor_t d = rc_create(&c, -1);
        hipdnnBackendDescriptor_t unfinalized = NULL, unfinalized_op = NULL, other_op = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &unfinalized));
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT,
                                            &unfinalized_op));
        rc_ctx oc; /* a finalized descriptor of another kind: a matmul op (or, for OPS, a tensor) */
        rc_fill(&oc, rc_spec_of(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT), false, td_handle);
        other_op = rc_build(&oc);
        static const unsigned char zeros[512];
        for (int i = 0; i < c.spec->n_attrs; i++) {
            const rc_attr *a = &c.spec->attrs[i];
            if (!td_settable(a))
                continue;
            hipdnnStatus_t st;
            st = hipdnnBackendSetAttribute(d, a->id, td_wrong_type(a->type, 0), c.v[i].n, zeros);
            cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: wrong type accepted", a->name);
            st = hipdnnBackendSetAttribute(d, a->id, a->type, c.v[i].n > 1 ? c.v[i].n : 1, NULL);
            cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: NULL accepted", a->name);
            if (a->kind == RC_SCALAR || a->kind == RC_ARRAY || a->kind == RC_TENSOR) {
                st = hipdnnBackendSetAttribute(d, a->id, a->type, 0, zeros);
                cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: count 0 accepted", a->name);
            }
            if (td_is_checked_enum(a->type)) {
                int bad = 4242;
                st = hipdnnBackendSetAttribute(d, a->id, a->type, 1, &bad);
                cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: invalid enum accepted", a->name);
            }
            if (td_is_desc_valued(a)) {
                /* a valid first element followed by a bad one must not be half-applied */
                hipdnnBackendDescriptor_t good = c.v[i].d[0];
                hipdnnBackendDescriptor_t unfin = a->kind == RC_OPS ? unfinalized_op : unfinalized;
                hipdnnBackendDescriptor_t mixed[2] = {good, unfin};
                int64_t n = a->kind == RC_TENSOR ? 1 : 2;
                st = hipdnnBackendSetAttribute(d, a->id, DESC, 1, &unfin);
                cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "%s: unfinalized -> %s",
                             a->name, tu_st(st));
                st = hipdnnBackendSetAttribute(d, a->id, DESC, n, n == 1 ? &unfin : mixed);
                cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: mixed array accepted", a->name);
                if (a->kind == RC_OPS) { /* an operation graph takes operations, not tensors */
                    rc_ctx tc;
                    rc_fill(&tc, rc_spec_of(HIPDNN_BACKEND_TENSOR_DESCRIPTOR), false, td_handle);
                    hipdnnBackendDescriptor_t t = rc_build(&tc);
                    st = hipdnnBackendSetAttribute(d, a->id, DESC, 1, &t);
                    cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s: a tensor -> %s", a->name, tu_st(st));
                    tu_destroy(&t);
                    rc_release(&tc);
                } else {
                    st = hipdnnBackendSetAttribute(d, a->id, DESC, 1, &other_op);
                    cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s: a %s -> %s", a->name,
                                 "finalized matmul op", tu_st(st));
                }
            }
        }
        rc_release(&c); /* also proves the descriptor holds its own references */
        TU_OK(hipdnnBackendFinalize(d));
        for (int i = 0; i < c.spec->n_attrs; i++)
            rc_check_get(&c, d, i);
        tu_destroy(&d);
        tu_destroy(&unfinalized);
        tu_destroy(&unfinalized_op);
        tu_destroy(&other_op);
        rc_release(&oc);
    }
}

ParameterizedTestParameters(attrs, finalize_names_each_missing_required_attribute)
{
    return td_spec_params();
}
ParameterizedTest(int *k, attrs, finalize_names_each_missing_required_attribute,
                  .init = td_setup_handle, .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::finalize_names_each_missing_required_attribute");
    rc_fill(&c, &rc_specs[*k], false, td_handle);
    int n_required = 0;
    for (int i = 0; i < c.spec->n_attrs; i++) {
        const rc_attr *a = &c.spec->attrs[i];
        if (!a->required)
            continue;
        n_required++;
        hipdnnBackendDescriptor_t d = rc_create(&c, i);
        char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
        hipdnnGetLastErrorString(msg, sizeof msg);
        TU_EXPECT(hipdnnBackendFinalize(d), HIPDNN_STATUS_BAD_PARAM, a->name);
        hipdnnGetLastErrorString(msg, sizeof msg);
        cr_expect_neq(strstr(msg, a->name), NULL, "%s without %s: message '%s' does not name it",
                      c.spec->name, a->name, msg);
        /* still usable: set the missing attribute and finalize */
        TU_EXPECT(rc_set(&c, d, i), HIPDNN_STATUS_SUCCESS, a->name);
        TU_EXPECT(hipdnnBackendFinalize(d), HIPDNN_STATUS_SUCCESS, a->name);
        tu_destroy(&d);
    }
    cr_expect_gt(n_required, 0, "%s has no required attribute in the table", c.spec->name);
    rc_release(&c);
}

ParameterizedTestParameters(attrs, unknown_and_declared_attributes_are_not_supported)
{
    return td_spec_params();
}
ParameterizedTest(int *k, attrs, unknown_and_declared_attributes_are_not_supported,
                  .init = td_setup_handle, .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::unknown_and_declared_attributes_are_not_supported");
    const rc_desc *spec = &rc_specs[*k], *next = &rc_specs[(*k + 1) % rc_n_specs];
    rc_fill(&c, spec, false, td_handle);
    /* ids no descriptor has, and the first attribute of another type this one lacks */
    hipdnnBackendAttributeName_t unknown[4] = {
        (hipdnnBackendAttributeName_t)0, (hipdnnBackendAttributeName_t)99999,
        (hipdnnBackendAttributeName_t)-5, HIPDNN_ATTR_ENGINEHEUR_MODE};
    for (int i = 0; i < next->n_attrs; i++)
        if (rc_index(spec, next->attrs[i].id) < 0) {
            unknown[3] = next->attrs[i].id;
            break;
        }
    int64_t v = 0, n = 0;
    hipdnnBackendDescriptor_t fresh = NULL, d = rc_build(&c);
    TU_OK(hipdnnBackendCreateDescriptor(spec->type, &fresh));
    for (int u = 0; u < 4; u++) {
        TU_EXPECT(hipdnnBackendSetAttribute(fresh, unknown[u], HIPDNN_TYPE_INT64, 1, &v),
                  HIPDNN_STATUS_NOT_SUPPORTED, spec->name);
        TU_EXPECT(hipdnnBackendGetAttribute(d, unknown[u], HIPDNN_TYPE_INT64, 1, &n, &v),
                  HIPDNN_STATUS_NOT_SUPPORTED, spec->name);
    }
    for (int i = 0; i < spec->n_attrs; i++) {
        const rc_attr *a = &spec->attrs[i];
        unsigned char buf[64] = {0};
        if (a->kind == RC_DECLARED) {
            TU_EXPECT(hipdnnBackendSetAttribute(fresh, a->id, a->type, 1, buf),
                      HIPDNN_STATUS_NOT_SUPPORTED, a->name);
            TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, a->type, 1, &n, buf),
                      HIPDNN_STATUS_NOT_SUPPORTED, a->name);
        }
        if (a->kind == RC_GET_ONLY)
            TU_EXPECT(hipdnnBackendSetAttribute(fresh, a->id, a->type, 1, buf),
                      HIPDNN_STATUS_NOT_SUPPORTED, a->name);
    }
    tu_destroy(&fresh);
    tu_destroy(&d);
    rc_release(&c);
}

/* The query forms of GetAttribute and its argument checks. */
ParameterizedTestParameters(attrs, get_size_queries_and_bad_arguments) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, get_size_queries_and_bad_arguments, .init = td_setup_handle,
                  .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::get_size_queries_and_bad_arguments");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, td_handle);
        hipdnnBackendDescriptor_t d = rc_build(&c);
        for (int i = 0; i < c.spec->n_attrs; i++) {
            const rc_attr *a = &c.spec->attrs[i];
            if (a->kind == RC_DECLARED)
                continue;
            int64_t want = rc_count(&c, i);
            int64_t n = -7;
            unsigned char buf[256];
            memset(buf, 0x33, sizeof buf);
            /* NULL array with any requested count is a query */
            TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, a->type, 5, &n, NULL), HIPDNN_STATUS_SUCCESS,
                      a->name);
            cr_expect_eq(n, want, "%s %s: query(NULL) %lld, expected %lld", c.spec->name, a->name,
                         (long long)n, (long long)want);
            /* requested 0 with a buffer is a query that writes nothing */
            n = -7;
            TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, a->type, 0, &n, buf), HIPDNN_STATUS_SUCCESS,
                      a->name);
            cr_expect_eq(n, want, "%s %s: query(0) %lld", c.spec->name, a->name, (long long)n);
            cr_expect_eq(buf[0], 0x33, "%s %s: query(0) wrote", c.spec->name, a->name);
            TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, a->type, 0, NULL, NULL),
                      HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, a->name);
            TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, a->type, -1, &n, buf),
                      HIPDNN_STATUS_BAD_PARAM, a->name);
            for (int w = 0; w < 2; w++) {
                hipdnnBackendAttributeType_t wrong = td_wrong_type(a->type, w);
                /* RAGGED_OFFSET_DESC also takes the offset tensor's descriptor (test_ragged.c) */
                if (a->id == HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC && wrong == HIPDNN_TYPE_BACKEND_DESCRIPTOR)
                    wrong = HIPDNN_TYPE_CHAR;
                TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, wrong, 8, &n, buf), HIPDNN_STATUS_BAD_PARAM, a->name);
            }
            /* a copy with elementCount NULL is allowed (not for descriptors: we must free them) */
            if (want > 0 && !td_is_desc_valued(a))
                TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, a->type, want, NULL, buf),
                          HIPDNN_STATUS_SUCCESS, a->name);
        }
        tu_destroy(&d);
        rc_release(&c);
    }
}

/* String attributes: truncation keeps a NUL, the empty string is not "unset". */
ParameterizedTestParameters(attrs, strings_truncate_with_nul) { return td_spec_params(); }
ParameterizedTest(int *k, attrs, strings_truncate_with_nul, .init = td_setup_handle,
                  .fini = td_teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::strings_truncate_with_nul");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, td_handle);
        int strings = 0;
        for (int i = 0; i < c.spec->n_attrs; i++) {
            const rc_attr *a = &c.spec->attrs[i];
            if (a->kind != RC_STRING)
                continue;
            strings++;
            /* a fresh printable value, length 1..60 */
            char s[64];
            int len = (int)tu_range(1, 60);
            for (int j = 0; j < len; j++)
                s[j] = (char)tu_range('!', '~');
            hipdnnBackendDescriptor_t d = rc_create(&c, i);
            TU_OK(hipdnnBackendSetAttribute(d, a->id, HIPDNN_TYPE_CHAR, len, s));
            TU_OK(hipdnnBackendFinalize(d));
            for (int req = 1; req <= len + 2; req++) {
                char buf[80];
                int64_t n = -7;
                memset(buf, 0x7f, sizeof buf);
                TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, HIPDNN_TYPE_CHAR, req, &n, buf),
                          HIPDNN_STATUS_SUCCESS, a->name);
                int64_t copied = req - 1 < len ? req - 1 : len;
                cr_expect_eq(n, copied + 1, "%s %s requested %d: count %lld", c.spec->name, a->name,
                             req, (long long)n);
                cr_expect_eq(memcmp(buf, s, (size_t)copied), 0, "%s %s: prefix differs", c.spec->name,
                             a->name);
                cr_expect_eq(buf[copied], '\0', "%s %s requested %d: no NUL", c.spec->name, a->name,
                             req);
                cr_expect_eq((unsigned char)buf[req], 0x7f, "%s %s requested %d: wrote past it",
                             c.spec->name, a->name, req);
            }
            tu_destroy(&d);
            if (a->required) /* an empty required string (a custom op id) may well be refused */
                continue;
            /* "" is set (count 1), not unset (count 0) */
            d = rc_create(&c, i);
            TU_OK(hipdnnBackendSetAttribute(d, a->id, HIPDNN_TYPE_CHAR, 0, ""));
            TU_OK(hipdnnBackendFinalize(d));
            int64_t n = -7;
            char one[4] = "xyz";
            TU_OK(hipdnnBackendGetAttribute(d, a->id, HIPDNN_TYPE_CHAR, 0, &n, NULL));
            cr_expect_eq(n, 1, "%s %s = \"\": count %lld", c.spec->name, a->name, (long long)n);
            TU_OK(hipdnnBackendGetAttribute(d, a->id, HIPDNN_TYPE_CHAR, 4, &n, one));
            cr_expect_eq(one[0], '\0');
            tu_destroy(&d);
        }
        if (c.spec->op_type >= 0)
            cr_expect_geq(strings, 1, "%s: every operation takes OPERATION_NAME_EXT", c.spec->name);
        rc_release(&c);
    }
}

/* ---- the tables themselves ------------------------------------------------------------------------ */

/* Each table lists an id once, every operation has the two common attributes, and the full
 * recipes (over their variants) set every settable attribute: otherwise a row goes untested. */
Test(tables, recipes_cover_every_settable_attribute)
{
    hipdnnHandle_t h = NULL;
    tu_seed("tables::recipes_cover_every_settable_attribute");
    TU_OK(hipdnnCreate(&h));
    for (int k = 0; k < rc_n_specs; k++) {
        const rc_desc *spec = &rc_specs[k];
        bool covered[RC_MAX_ATTRS] = {false};
        for (int i = 0; i < spec->n_attrs; i++)
            for (int j = i + 1; j < spec->n_attrs; j++)
                cr_expect_neq(spec->attrs[i].id, spec->attrs[j].id, "%s lists %s twice",
                              spec->name, spec->attrs[i].name);
        if (spec->op_type >= 0) {
            cr_expect_geq(rc_index(spec, HIPDNN_ATTR_OPERATION_NAME_EXT), 0, "%s", spec->name);
            cr_expect_geq(rc_index(spec, HIPDNN_ATTR_OPERATION_TYPE_EXT), 0, "%s", spec->name);
        }
        for (int var = 0; var < rc_variants(spec); var++) {
            rc_ctx c;
            rc_fill_variant(&c, spec, true, var, h);
            for (int i = 0; i < spec->n_attrs; i++)
                covered[i] |= c.v[i].n > 0;
            rc_release(&c);
        }
        for (int i = 0; i < spec->n_attrs; i++)
            if (spec->attrs[i].kind != RC_DECLARED)
                cr_expect(covered[i], "%s: no full recipe sets %s", spec->name, spec->attrs[i].name);
    }
    TU_OK(hipdnnDestroy(h));
}

/* ---- operations: name and type on every op ------------------------------------------------------ */

Test(ops, every_operation_reports_its_type_and_name)
{
    hipdnnHandle_t h = NULL;
    tu_seed("ops::every_operation_reports_its_type_and_name");
    TU_OK(hipdnnCreate(&h));
    int ops = 0;
    for (int k = 0; k < rc_n_specs; k++) {
        const rc_desc *spec = &rc_specs[k];
        if (spec->op_type < 0)
            continue;
        ops++;
        rc_ctx c;
        rc_fill(&c, spec, true, h);
        hipdnnBackendDescriptor_t d = rc_build(&c);
        int type = -1;
        int64_t n = 0;
        TU_OK(hipdnnBackendGetAttribute(d, HIPDNN_ATTR_OPERATION_TYPE_EXT,
                                        HIPDNN_TYPE_OPERATION_TYPE_EXT, 1, &n, &type));
        cr_expect_eq(n, 1);
        cr_expect_eq(type, spec->op_type, "%s: type %d, expected %d", spec->name, type,
                     spec->op_type);
        const rc_val *name = &c.v[rc_index(spec, HIPDNN_ATTR_OPERATION_NAME_EXT)];
        char buf[RC_STR_MAX + 1];
        TU_OK(hipdnnBackendGetAttribute(d, HIPDNN_ATTR_OPERATION_NAME_EXT, HIPDNN_TYPE_CHAR,
                                        sizeof buf, &n, buf));
        cr_expect_eq(n, name->n + 1);
        cr_expect_eq(strncmp(buf, name->u.s, (size_t)name->n), 0, "%s: name '%s'", spec->name, buf);
        int v = type;
        TU_EXPECT(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATION_TYPE_EXT,
                                            HIPDNN_TYPE_OPERATION_TYPE_EXT, 1, &v),
                  HIPDNN_STATUS_NOT_INITIALIZED, spec->name); /* finalized: set refused */
        tu_destroy(&d);
        rc_release(&c);
    }
    cr_expect_eq(ops, 18, "the tables cover %d operation types", ops);
    TU_OK(hipdnnDestroy(h));
}

