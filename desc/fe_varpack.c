/* fe_varpack.c — HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: the device pointer bound to each
 * tensor uid for one execution, the workspace, and optional per-tensor shape overrides.
 *
 * Owns: the attribute table and the finalize rules of hipdnn-api.md §2.3.6 — as many data
 * pointers as uids, uids unique, no NULL data pointer; overrides: uids unique and each bound
 * in the pack, one rank (1..FE_MAX_RANK) per override uid, shapes and strides each holding
 * exactly the sum of the ranks, dims > 0, strides >= 0 — and the read-only view the executor
 * uses (fe_varpack, fe_varpack_find).
 * Does not own: whether the uids cover a plan's tensors or an override fits the graph; those
 * are checked at execute, against the plan.
 */
#include <stdlib.h>

#include "desc/fe_desc.h"

#define PACK_MAX_UIDS (1 << 20)

#define P_FAIL(...) base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR " __VA_ARGS__)

/* INTERMEDIATES: declared by hipDNN, implemented by nobody; any call says so. */
static hipdnnStatus_t no_intermediates(const fe_attr *a)
{
    return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                     "HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR %s: not supported (hipDNN declares "
                     "it but implements no intermediates); intermediate buffers live in the "
                     "workspace, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE", a->name);
}

static hipdnnStatus_t set_intermediates(fe_obj *o, const fe_attr *a,
                                        hipdnnBackendAttributeType_t type, int64_t n,
                                        const void *elems)
{
    (void)o, (void)type, (void)n, (void)elems;
    return no_intermediates(a);
}

static hipdnnStatus_t get_intermediates(fe_obj *o, const fe_attr *a,
                                        hipdnnBackendAttributeType_t type, int64_t requested,
                                        int64_t *count, void *elems)
{
    (void)o, (void)type, (void)requested, (void)count, (void)elems;
    return no_intermediates(a);
}

#define I64 HIPDNN_TYPE_INT64
#define PTR HIPDNN_TYPE_VOID_PTR
#define INT64S(ID, FLAGS, MIN) ARRAY(ID, I64, FE_W_NONE, NULL, -1, FLAGS, MIN, PACK_MAX_UIDS)
static const fe_attr pack_attrs[] = {
    INT64S(HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, FE_REQ, 1),
    ARRAY(HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, PTR, FE_W_NONE, NULL, -1, FE_REQ, 1,
          PACK_MAX_UIDS),
    {.id = HIPDNN_ATTR_VARIANT_PACK_INTERMEDIATES, .name = "HIPDNN_ATTR_VARIANT_PACK_INTERMEDIATES",
     .type = PTR, .shape = FE_ARRAY, .flags = FE_ANY_TYPE | FE_GET_ANY, .fb_id = -1,
     .set = set_intermediates, .get = get_intermediates},
    SCALAR(HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, PTR, FE_W_NONE, NULL, -1, 0),
    INT64S(HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS_EXT, 0, 0),
    INT64S(HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES_EXT, 0, 0),
    INT64S(HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES_EXT, 0, 0),
    INT64S(HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_LENGTHS_EXT, 0, 0),
};

/* ---- finalize ------------------------------------------------------------------------------------ */

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* A sorted copy of n uids, checked for duplicates; *out is freed by the caller. */
static hipdnnStatus_t sorted_unique(const int64_t *uids, int n, const char *what, int64_t **out)
{
    *out = NULL;
    if (n == 0)
        return HIPDNN_STATUS_SUCCESS;
    int64_t *s = base_memdup(uids, (size_t)n * sizeof *s);
    if (s == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing a variant pack: out of memory");
    qsort(s, (size_t)n, sizeof *s, cmp_i64);
    for (int i = 1; i < n; i++)
        if (s[i] == s[i - 1]) {
            long long dup = (long long)s[i];
            base_free(s);
            return P_FAIL("%s: uid %lld appears twice", what, dup);
        }
    *out = s;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t check_pointers(const fe_varpack_view *v)
{
    for (int i = 0; i < v->n; i++)
        if (v->ptrs[i] == NULL)
            return P_FAIL("HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS: the pointer for uid %lld is "
                          "NULL", (long long)v->uids[i]);
    return HIPDNN_STATUS_SUCCESS;
}

/* Counts: one rank 1..FE_MAX_RANK per override uid; shapes and strides hold the ranks' sum. */
static hipdnnStatus_t check_override_counts(fe_obj *o, const fe_varpack_view *v)
{
    int64_t n_len = fe_get(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_LENGTHS_EXT)->n;
    int64_t n_shp = fe_get(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES_EXT)->n;
    int64_t n_str = fe_get(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES_EXT)->n;
    int64_t sum = 0;
    if (n_len != v->n_overrides)
        return P_FAIL("%d override uids but %lld override lengths", v->n_overrides,
                      (long long)n_len);
    for (int i = 0; i < v->n_overrides; i++) {
        int64_t r = v->override_lengths[i];
        if (r < 1 || r > FE_MAX_RANK)
            return P_FAIL("override of uid %lld: length (rank) %lld, must be 1..%d",
                          (long long)v->override_uids[i], (long long)r, FE_MAX_RANK);
        sum += r;
    }
    if (n_shp != sum || n_str != sum)
        return P_FAIL("the override lengths sum to %lld but %lld shape values and %lld stride "
                      "values are set", (long long)sum, (long long)n_shp, (long long)n_str);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t check_override_layouts(const fe_varpack_view *v)
{
    int64_t k = 0;
    for (int i = 0; i < v->n_overrides; i++)
        for (int64_t d = 0; d < v->override_lengths[i]; d++, k++) {
            long long uid = (long long)v->override_uids[i];
            if (v->override_shapes[k] <= 0)
                return P_FAIL("override of uid %lld: dimension %lld is %lld, must be > 0", uid,
                              (long long)d, (long long)v->override_shapes[k]);
            if (v->override_strides[k] < 0)
                return P_FAIL("override of uid %lld: stride %lld is %lld, must be >= 0", uid,
                              (long long)d, (long long)v->override_strides[k]);
        }
    return HIPDNN_STATUS_SUCCESS;
}

/* Override uids: unique, and each bound in the pack (`ids`: the pack's uids, sorted). */
static hipdnnStatus_t check_override_uids(const fe_varpack_view *v, const int64_t *ids)
{
    int64_t *s = NULL;
    hipdnnStatus_t st = sorted_unique(v->override_uids, v->n_overrides,
                                      "HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS_EXT", &s);
    base_free(s);
    for (int i = 0; st == HIPDNN_STATUS_SUCCESS && i < v->n_overrides; i++)
        if (bsearch(&v->override_uids[i], ids, (size_t)v->n, sizeof *ids, cmp_i64) == NULL)
            st = P_FAIL("override uid %lld is not in HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS",
                        (long long)v->override_uids[i]);
    return st;
}

static hipdnnStatus_t check_overrides(fe_obj *o, const fe_varpack_view *v, const int64_t *ids)
{
    bool any = v->n_overrides > 0 ||
               fe_get(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES_EXT)->n > 0 ||
               fe_get(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES_EXT)->n > 0 ||
               fe_get(o, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_LENGTHS_EXT)->n > 0;
    if (!any)
        return HIPDNN_STATUS_SUCCESS;
    if (v->n_overrides == 0)
        return P_FAIL("override shapes, strides or lengths are set without "
                      "HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS_EXT");
    hipdnnStatus_t st = check_override_counts(o, v);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check_override_layouts(v);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check_override_uids(v, ids);
    return st;
}

static hipdnnStatus_t pack_finalize(fe_obj *o)
{
    fe_varpack_view v = fe_varpack(o);
    int64_t n_ptrs = fe_get(o, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS)->n;
    if (n_ptrs != v.n)
        return P_FAIL("%d unique ids but %lld data pointers (one pointer per uid)", v.n,
                      (long long)n_ptrs);
    int64_t *ids = NULL;
    hipdnnStatus_t st = sorted_unique(v.uids, v.n, "HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS", &ids);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check_pointers(&v);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check_overrides(o, &v, ids);
    base_free(ids);
    return st;
}

const fe_class fe_variant_pack_class = {
    .type = HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR",
    .attrs = pack_attrs,
    .n_attrs = FE_COUNT(pack_attrs),
    .finalize = pack_finalize,
};

/* ---- the view ------------------------------------------------------------------------------------ */

fe_varpack_view fe_varpack(fe_obj *pack)
{
    const fe_val *ws = fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE);
    const fe_val *ov = fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS_EXT);
    return (fe_varpack_view){
        .n = (int)fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS)->n,
        .uids = fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS)->arr,
        .ptrs = fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS)->arr,
        .workspace = ws->n > 0 ? ws->one.ptr : NULL,
        .n_overrides = (int)ov->n,
        .override_uids = ov->arr,
        .override_lengths = fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_LENGTHS_EXT)->arr,
        .override_shapes = fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES_EXT)->arr,
        .override_strides = fe_get(pack, HIPDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES_EXT)->arr,
    };
}

bool fe_varpack_find(const fe_varpack_view *v, int64_t uid, void **ptr)
{
    for (int i = 0; i < v->n; i++)
        if (v->uids[i] == uid) {
            if (ptr != NULL)
                *ptr = v->ptrs[i];
            return true;
        }
    if (ptr != NULL)
        *ptr = NULL;
    return false;
}
