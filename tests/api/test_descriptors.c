/* test_descriptors.c — the descriptor layer through the public API only.
 *
 * Owns: creation of every descriptor type; the generic SetAttribute / GetAttribute / Finalize
 * rules of hipdnn-api.md §1.6 checked for every attribute of TENSOR, OPERATIONGRAPH and every
 * OPERATION_* type against the tests' own tables (tests/common/recipes.c); tensor-specific
 * rules (by-value scalars, layout checks at finalize); handles, error strings, the per-thread
 * last error, logging, the version string, Execute's argument checks, the engine list, and the
 * descriptor types that refuse every call (INTERMEDIATE_INFO, LAYOUT_INFO, KERNEL_CACHE).
 * Does not own: graph structure rules (test_graph.c) or per-operation shape rules.
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

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

/* NULL handles and descriptors: the library answers BAD_PARAM_NULL_POINTER, the header
 * documents plain BAD_PARAM for some functions; both are BAD_PARAM-class codes. */
#define TU_BAD_NULL(call)                                                                        \
    do {                                                                                        \
        hipdnnStatus_t s_ = (call);                                                             \
        cr_expect(s_ == HIPDNN_STATUS_BAD_PARAM || s_ == HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,  \
                  "%s -> %s, expected BAD_PARAM(_NULL_POINTER)", #call, tu_st(s_));             \
    } while (0)

/* ---- per-type parameters ---------------------------------------------------------------------- */

static int spec_index[64];

static struct criterion_test_params spec_params(void)
{
    for (int i = 0; i < rc_n_specs; i++)
        spec_index[i] = i;
    return cr_make_param_array(int, spec_index, (size_t)rc_n_specs);
}

/* A fresh handle for recipes that need one (OPERATIONGRAPH_HANDLE). */
static hipdnnHandle_t g_handle;

static void setup_handle(void)
{
    TU_OK(hipdnnCreate(&g_handle));
}

static void teardown_handle(void)
{
    if (g_handle != NULL)
        cr_expect_eq(hipdnnDestroy(g_handle), HIPDNN_STATUS_SUCCESS);
    g_handle = NULL;
}

static bool settable(const rc_attr *a)
{
    return a->kind != RC_GET_ONLY && a->kind != RC_DECLARED;
}

static bool is_desc_valued(const rc_attr *a)
{
    return a->kind == RC_TENSOR || a->kind == RC_TENSORS || a->kind == RC_OPS;
}

/* Enum-typed attribute types whose values the API checks. */
static bool is_checked_enum(hipdnnBackendAttributeType_t t)
{
    return t == HIPDNN_TYPE_DATA_TYPE || t == HIPDNN_TYPE_POINTWISE_MODE ||
           t == HIPDNN_TYPE_NORM_FWD_PHASE || t == HIPDNN_TYPE_CONVOLUTION_MODE ||
           t == HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT || t == HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT;
}

/* Two types an attribute of type t does not take. */
static hipdnnBackendAttributeType_t wrong_type(hipdnnBackendAttributeType_t t, int which)
{
    if (which == 0)
        return t == HIPDNN_TYPE_INT64 ? HIPDNN_TYPE_INT32 : HIPDNN_TYPE_INT64;
    return t == DESC ? HIPDNN_TYPE_CHAR : DESC;
}

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
ParameterizedTestParameters(attrs, full_round_trip) { return spec_params(); }
ParameterizedTest(int *k, attrs, full_round_trip, .init = setup_handle, .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::full_round_trip");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, g_handle);
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
ParameterizedTestParameters(attrs, minimal_round_trip_and_unset_optionals) { return spec_params(); }
ParameterizedTest(int *k, attrs, minimal_round_trip_and_unset_optionals, .init = setup_handle,
                  .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::minimal_round_trip_and_unset_optionals");
    rc_fill(&c, &rc_specs[*k], false, g_handle);
    hipdnnBackendDescriptor_t d = rc_build(&c);
    for (int i = 0; i < c.spec->n_attrs; i++) {
        const rc_attr *a = &c.spec->attrs[i];
        rc_check_get(&c, d, i);
        if (c.v[i].n != 0 || !settable(a))
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

ParameterizedTestParameters(attrs, get_before_finalize_is_not_initialized) { return spec_params(); }
ParameterizedTest(int *k, attrs, get_before_finalize_is_not_initialized, .init = setup_handle,
                  .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::get_before_finalize_is_not_initialized");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, g_handle);
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

ParameterizedTestParameters(attrs, set_after_finalize_is_not_initialized) { return spec_params(); }
ParameterizedTest(int *k, attrs, set_after_finalize_is_not_initialized, .init = setup_handle,
                  .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::set_after_finalize_is_not_initialized");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, g_handle);
        hipdnnBackendDescriptor_t d = rc_build(&c);
        for (int i = 0; i < c.spec->n_attrs; i++)
            if (settable(&c.spec->attrs[i]))
                TU_EXPECT(rc_set(&c, d, i), HIPDNN_STATUS_NOT_INITIALIZED, c.spec->attrs[i].name);
        TU_EXPECT(hipdnnBackendFinalize(d), HIPDNN_STATUS_BAD_PARAM, "finalize twice");
        for (int i = 0; i < c.spec->n_attrs; i++) /* nothing changed */
            rc_check_get(&c, d, i);
        tu_destroy(&d);
        rc_release(&c);
    }
}

/* Wrong element type, count and NULL arrays, on a fresh descriptor. */
ParameterizedTestParameters(attrs, set_rejects_bad_type_count_and_null) { return spec_params(); }
ParameterizedTest(int *k, attrs, set_rejects_bad_type_count_and_null, .init = setup_handle,
                  .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::set_rejects_bad_type_count_and_null");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, g_handle);
        hipdnnBackendDescriptor_t d = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(c.spec->type, &d));
        int dt = rc_index(c.spec, HIPDNN_ATTR_TENSOR_DATA_TYPE);
        if (dt >= 0) /* so that VALUE_EXT's "data type first" rule does not mask the others */
            TU_OK(rc_set(&c, d, dt));
        for (int i = 0; i < c.spec->n_attrs; i++) {
            const rc_attr *a = &c.spec->attrs[i];
            const rc_val *v = &c.v[i];
            if (!settable(a))
                continue;
            /* a buffer big enough for any count below, all zero */
            static const unsigned char zeros[512];
            for (int w = 0; w < 2; w++)
                TU_EXPECT(hipdnnBackendSetAttribute(d, a->id, wrong_type(a->type, w), v->n, zeros),
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
            if (is_checked_enum(a->type)) {
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
ParameterizedTestParameters(attrs, failed_set_keeps_previous_value) { return spec_params(); }
ParameterizedTest(int *k, attrs, failed_set_keeps_previous_value, .init = setup_handle,
                  .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::failed_set_keeps_previous_value");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, g_handle);
        hipdnnBackendDescriptor_t d = rc_create(&c, -1);
        hipdnnBackendDescriptor_t unfinalized = NULL, unfinalized_op = NULL, other_op = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &unfinalized));
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT,
                                            &unfinalized_op));
        rc_ctx oc; /* a finalized descriptor of another kind: a matmul op (or, for OPS, a tensor) */
        rc_fill(&oc, rc_spec_of(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT), false, g_handle);
        other_op = rc_build(&oc);
        static const unsigned char zeros[512];
        for (int i = 0; i < c.spec->n_attrs; i++) {
            const rc_attr *a = &c.spec->attrs[i];
            if (!settable(a))
                continue;
            hipdnnStatus_t st;
            st = hipdnnBackendSetAttribute(d, a->id, wrong_type(a->type, 0), c.v[i].n, zeros);
            cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: wrong type accepted", a->name);
            st = hipdnnBackendSetAttribute(d, a->id, a->type, c.v[i].n > 1 ? c.v[i].n : 1, NULL);
            cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: NULL accepted", a->name);
            if (a->kind == RC_SCALAR || a->kind == RC_ARRAY || a->kind == RC_TENSOR) {
                st = hipdnnBackendSetAttribute(d, a->id, a->type, 0, zeros);
                cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: count 0 accepted", a->name);
            }
            if (is_checked_enum(a->type)) {
                int bad = 4242;
                st = hipdnnBackendSetAttribute(d, a->id, a->type, 1, &bad);
                cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "%s: invalid enum accepted", a->name);
            }
            if (is_desc_valued(a)) {
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
                    rc_fill(&tc, rc_spec_of(HIPDNN_BACKEND_TENSOR_DESCRIPTOR), false, g_handle);
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
    return spec_params();
}
ParameterizedTest(int *k, attrs, finalize_names_each_missing_required_attribute,
                  .init = setup_handle, .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::finalize_names_each_missing_required_attribute");
    rc_fill(&c, &rc_specs[*k], false, g_handle);
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
    return spec_params();
}
ParameterizedTest(int *k, attrs, unknown_and_declared_attributes_are_not_supported,
                  .init = setup_handle, .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::unknown_and_declared_attributes_are_not_supported");
    const rc_desc *spec = &rc_specs[*k], *next = &rc_specs[(*k + 1) % rc_n_specs];
    rc_fill(&c, spec, false, g_handle);
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
ParameterizedTestParameters(attrs, get_size_queries_and_bad_arguments) { return spec_params(); }
ParameterizedTest(int *k, attrs, get_size_queries_and_bad_arguments, .init = setup_handle,
                  .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::get_size_queries_and_bad_arguments");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, g_handle);
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
            for (int w = 0; w < 2; w++)
                TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, wrong_type(a->type, w), 8, &n, buf),
                          HIPDNN_STATUS_BAD_PARAM, a->name);
            /* a copy with elementCount NULL is allowed (not for descriptors: we must free them) */
            if (want > 0 && !is_desc_valued(a))
                TU_EXPECT(hipdnnBackendGetAttribute(d, a->id, a->type, want, NULL, buf),
                          HIPDNN_STATUS_SUCCESS, a->name);
        }
        tu_destroy(&d);
        rc_release(&c);
    }
}

/* String attributes: truncation keeps a NUL, the empty string is not "unset". */
ParameterizedTestParameters(attrs, strings_truncate_with_nul) { return spec_params(); }
ParameterizedTest(int *k, attrs, strings_truncate_with_nul, .init = setup_handle,
                  .fini = teardown_handle)
{
    rc_ctx c;
    tu_seed("attrs::strings_truncate_with_nul");
    for (int var = 0; var < rc_variants(&rc_specs[*k]); var++) {
        rc_fill_variant(&c, &rc_specs[*k], true, var, g_handle);
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

/* ---- tensors ------------------------------------------------------------------------------------------ */

static hipdnnBackendDescriptor_t new_tensor(int rank, const int64_t *dims, const int64_t *strides,
                                            hipdnnDataType_t dt)
{
    hipdnnBackendDescriptor_t t = NULL;
    int64_t uid = tu_range(1, 1000);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    if (rank > 0) {
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank,
                                        dims));
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, rank,
                                        strides));
    }
    return t;
}

static void random_shape(int rank, int64_t *dims, int64_t *strides)
{
    for (int i = 0; i < rank; i++)
        dims[i] = tu_range(1, 6);
    tu_packed_strides(rank, dims, strides);
}

Test(tensor, value_needs_the_data_type_first)
{
    hipdnnBackendDescriptor_t t = NULL;
    float f = 0.5f;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_EQ(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f),
          HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "HIPDNN_ATTR_TENSOR_DATA_TYPE"), NULL, "message: %s", tu_msg());
    tu_destroy(&t);
}

Test(tensor, value_takes_exactly_the_element_size)
{
    static const struct { hipdnnDataType_t t; int size; } types[] = {
        {HIPDNN_DATA_FLOAT, 4},    {HIPDNN_DATA_DOUBLE, 8},   {HIPDNN_DATA_HALF, 2},
        {HIPDNN_DATA_BFLOAT16, 2}, {HIPDNN_DATA_INT32, 4},    {HIPDNN_DATA_INT64, 8},
        {HIPDNN_DATA_INT8, 1},     {HIPDNN_DATA_UINT8, 1},    {HIPDNN_DATA_BOOLEAN, 1},
        {HIPDNN_DATA_FP8_E4M3, 1}, {HIPDNN_DATA_FP8_E5M2, 1}, {HIPDNN_DATA_FP8_E4M3_FNUZ, 1},
        {HIPDNN_DATA_FP8_E5M2_FNUZ, 1}};
    tu_seed("tensor::value_takes_exactly_the_element_size");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int rank = (int)tu_range(1, 8);
        int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        unsigned char value[16], back[16];
        tu_bytes(value, sizeof value);
        if (types[i].t == HIPDNN_DATA_BOOLEAN)
            value[0] &= 1;
        hipdnnBackendDescriptor_t t = new_tensor(rank, ones, ones, types[i].t);
        int wrong[] = {types[i].size - 1, types[i].size + 1, 16};
        for (int w = 0; w < 3; w++)
            if (wrong[w] > 0)
                TU_EXPECT(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT,
                                                    HIPDNN_TYPE_CHAR, wrong[w], value),
                          HIPDNN_STATUS_BAD_PARAM, "wrong value size");
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR,
                                        types[i].size, value));
        TU_OK(hipdnnBackendFinalize(t));
        bool by_value = false;
        int64_t n = 0;
        TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_BY_VALUE, HIPDNN_TYPE_BOOLEAN, 1,
                                        &n, &by_value));
        cr_expect(by_value, "data type %d: IS_BY_VALUE false", (int)types[i].t);
        memset(back, 0xee, sizeof back);
        TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR,
                                        types[i].size, &n, back));
        cr_expect_eq(n, types[i].size, "data type %d: value read back as %lld bytes",
                     (int)types[i].t, (long long)n);
        cr_expect_eq(memcmp(back, value, (size_t)types[i].size), 0,
                     "data type %d: value bytes differ", (int)types[i].t);
        tu_destroy(&t);
    }
    /* packed sub-byte types have no element size: no by-value scalar */
    int64_t one = 1;
    unsigned char b = 1;
    hipdnnBackendDescriptor_t t = new_tensor(1, &one, &one, HIPDNN_DATA_FP4_E2M1);
    TU_EQ(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 1, &b),
          HIPDNN_STATUS_BAD_PARAM);
    tu_destroy(&t);
}

Test(tensor, is_by_value_is_false_without_a_value)
{
    int64_t dims[8], strides[8];
    tu_seed("tensor::is_by_value_is_false_without_a_value");
    int rank = (int)tu_range(1, 8);
    random_shape(rank, dims, strides);
    hipdnnBackendDescriptor_t t = new_tensor(rank, dims, strides, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendFinalize(t));
    bool by_value = true;
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_BY_VALUE, HIPDNN_TYPE_BOOLEAN, 1, &n,
                                    &by_value));
    cr_expect_eq(n, 1);
    cr_expect_not(by_value);
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 0, &n, NULL));
    cr_expect_eq(n, 0, "no value: count %lld", (long long)n);
    tu_destroy(&t);
}

/* A BOOLEAN element is one byte; a caller's byte other than 0 or 1 (here 0x84, found by
 * tests/fuzz/fuzz_api_calls: finalize read it as a C bool, undefined behaviour) is true, and
 * reads back as 1. */
Test(tensor, a_boolean_byte_other_than_0_or_1_is_true)
{
    int64_t dims[] = {2, 3}, strides[] = {3, 1}, n = 0;
    hipdnnBackendDescriptor_t t = new_tensor(2, dims, strides, HIPDNN_DATA_FLOAT);
    uint8_t byte = 0x84, back = 0x55;
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &byte));
    TU_OK(hipdnnBackendFinalize(t));
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &n, &back));
    cr_expect_eq(n, 1);
    cr_expect_eq(back, 1, "IS_VIRTUAL set as byte 0x84 reads back as 0x%x", back);
    tu_destroy(&t);
}

/* A name set from no characters and no array (count 0, NULL) is the empty name (found by
 * tests/fuzz/fuzz_api_calls: the NUL check passed the NULL array to memchr, undefined
 * behaviour even for 0 bytes). */
Test(tensor, an_empty_name_from_a_null_array)
{
    int64_t dims[] = {4}, strides[] = {1}, n = -1;
    hipdnnBackendDescriptor_t t = new_tensor(1, dims, strides, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, 3, "abc"));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, 0, NULL));
    TU_OK(hipdnnBackendFinalize(t));
    char name[8] = "xyz";
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof name, &n, name));
    cr_expect(n == 1 && name[0] == '\0', "the name reads back as \"%s\" (count %lld)", name, (long long)n);
    tu_destroy(&t);
}

/* Finalize with a broken layout: BAD_PARAM, and the tensor stays unfinalized and fixable. */
static void expect_finalize_fails(hipdnnBackendDescriptor_t t, const char *what)
{
    TU_EXPECT(hipdnnBackendFinalize(t), HIPDNN_STATUS_BAD_PARAM, what);
    int64_t n = 0, uid;
    TU_EXPECT(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n,
                                        &uid),
              HIPDNN_STATUS_NOT_INITIALIZED, what);
}

Test(tensor, finalize_rejects_bad_dims_and_strides)
{
    tu_seed("tensor::finalize_rejects_bad_dims_and_strides");
    for (int round = 0; round < 20; round++) {
        int64_t dims[8], strides[8];
        int rank = (int)tu_range(1, 8), at = (int)tu_range(0, rank - 1);
        random_shape(rank, dims, strides);
        int64_t bad_dim = tu_rand() & 1 ? 0 : -tu_range(1, 100);
        int64_t saved = dims[at];
        dims[at] = bad_dim;
        hipdnnBackendDescriptor_t t = new_tensor(rank, dims, strides, HIPDNN_DATA_HALF);
        expect_finalize_fails(t, "dimension <= 0");
        dims[at] = saved; /* fixed: finalize works */
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank,
                                        dims));
        TU_OK(hipdnnBackendFinalize(t));
        tu_destroy(&t);

        strides[at] = -tu_range(1, 100);
        t = new_tensor(rank, dims, strides, HIPDNN_DATA_HALF);
        expect_finalize_fails(t, "negative stride");
        tu_destroy(&t);
        tu_packed_strides(rank, dims, strides);

        /* strides of another rank */
        int other = rank == 8 ? 7 : rank + 1;
        int64_t more[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        t = new_tensor(rank, dims, strides, HIPDNN_DATA_HALF);
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, other,
                                        more));
        expect_finalize_fails(t, "rank of strides differs");
        tu_destroy(&t);
    }
}

Test(tensor, rank_above_8_is_refused)
{
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    hipdnnBackendDescriptor_t t = new_tensor(0, NULL, NULL, HIPDNN_DATA_FLOAT);
    hipdnnStatus_t a = hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS,
                                                 HIPDNN_TYPE_INT64, 9, nine);
    hipdnnStatus_t b = hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64,
                                                 9, nine);
    /* refused when set, or else at finalize */
    if (a == HIPDNN_STATUS_SUCCESS && b == HIPDNN_STATUS_SUCCESS)
        TU_EQ(hipdnnBackendFinalize(t), HIPDNN_STATUS_BAD_PARAM);
    else
        cr_expect(a == HIPDNN_STATUS_BAD_PARAM || b == HIPDNN_STATUS_BAD_PARAM, "%s / %s",
                  tu_st(a), tu_st(b));
    cr_expect_neq(hipdnnBackendFinalize(t), HIPDNN_STATUS_SUCCESS, "rank 9 finalized");
    tu_destroy(&t);
}

Test(tensor, by_value_must_be_real_and_scalar)
{
    tu_seed("tensor::by_value_must_be_real_and_scalar");
    float f = tu_float(-1, 1);
    bool yes = true;
    int rank = (int)tu_range(1, 8);
    int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, dims[8], strides[8];
    /* virtual and by value */
    hipdnnBackendDescriptor_t t = new_tensor(rank, ones, ones, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &yes));
    expect_finalize_fails(t, "virtual by-value");
    tu_destroy(&t);
    /* by value with a dimension other than 1 */
    memcpy(dims, ones, sizeof dims);
    dims[tu_range(0, rank - 1)] = tu_range(2, 9);
    tu_packed_strides(rank, dims, strides);
    t = new_tensor(rank, dims, strides, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f));
    expect_finalize_fails(t, "by-value with a dim != 1");
    tu_destroy(&t);
    /* a compile-time value that is also a run-time parameter */
    t = new_tensor(rank, ones, ones, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT,
                                    HIPDNN_TYPE_BOOLEAN, 1, &yes));
    expect_finalize_fails(t, "constant and run-time by-value");
    tu_destroy(&t);
}

Test(tensor, required_attributes)
{
    int64_t dims[2] = {3, 4}, strides[2] = {4, 1};
    hipdnnDataType_t dt = HIPDNN_DATA_HALF;
    struct { bool dt, dims, strides; const char *missing; } cases[] = {
        {false, true, true, "HIPDNN_ATTR_TENSOR_DATA_TYPE"},
        {true, false, true, "HIPDNN_ATTR_TENSOR_DIMENSIONS"},
        {true, true, false, "HIPDNN_ATTR_TENSOR_STRIDES"},
    };
    for (int i = 0; i < 3; i++) {
        hipdnnBackendDescriptor_t t = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
        if (cases[i].dt)
            TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE,
                                            1, &dt));
        if (cases[i].dims)
            TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2,
                                            dims));
        if (cases[i].strides)
            TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2,
                                            strides));
        TU_EXPECT(hipdnnBackendFinalize(t), HIPDNN_STATUS_BAD_PARAM, cases[i].missing);
        cr_expect_neq(strstr(tu_msg(), cases[i].missing), NULL, "message '%s'", tu_msg());
        tu_destroy(&t);
    }
}

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
    tensor = new_tensor(1, &one, &one, HIPDNN_DATA_FLOAT);
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
