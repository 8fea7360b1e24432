/* fe_desc.c — descriptor objects and the generic attribute machinery.
 *
 * Owns: object lifetime (reference counts, handle wrappers), the generic SetAttribute /
 * GetAttribute / Finalize rules of hipdnn-api.md §1.6 driven by each class's fe_attr table:
 * type and count checks, enum range checks, descriptor-valued attributes (type, finalized,
 * a reference held), the size-query pattern, optional attributes reporting count 0, and
 * "set after finalize". A failed call leaves the object exactly as it was: new values are
 * built completely before the old one is released.
 * Also the attributes every operation descriptor takes (fe_op_common_attrs: a name, its
 * operation type) and the getter of a computed one-element INT64 (fe_get_one_i64).
 * Does not own: what a class checks at finalize (its finalize hook) or special attributes
 * (their set/get hooks); which class a type has (the registry, api/fe_registry.c).
 */
#include <string.h>

#include "desc/fe_desc.h"

/* ---- objects ---------------------------------------------------------------------------------- */

const fe_class *fe_class_of(hipdnnBackendDescriptorType_t type)
{
    if ((int)type <= 0 || (int)type >= fe_n_classes)
        return NULL;
    return fe_classes[type];
}

bool fe_is_op_type(hipdnnBackendDescriptorType_t type)
{
    const fe_class *c = fe_class_of(type);
    return c != NULL && c->op_type != 0;
}

static int n_vals(const fe_class *cls)
{
    return cls->n_attrs + (cls->op_type != 0 ? fe_n_op_common_attrs : 0);
}

hipdnnStatus_t fe_obj_new(const fe_class *cls, fe_obj **out)
{
    fe_obj *o = base_calloc(1, sizeof *o);
    fe_val *vals = base_calloc((size_t)n_vals(cls), sizeof *vals);
    if (o == NULL || vals == NULL) {
        base_free(o);
        base_free(vals);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "creating %s: out of memory", cls->name);
    }
    o->cls = cls;
    o->vals = vals;
    atomic_init(&o->refs, 1);
    *out = o;
    return HIPDNN_STATUS_SUCCESS;
}

fe_obj *fe_obj_ref(fe_obj *o)
{
    atomic_fetch_add(&o->refs, 1);
    return o;
}

static bool is_desc(const fe_attr *a) { return a->type == HIPDNN_TYPE_BACKEND_DESCRIPTOR; }

static void val_release(const fe_attr *a, fe_val *v)
{
    if (is_desc(a)) {
        if (a->shape == FE_ONE && v->n > 0)
            fe_obj_unref(v->one.obj);
        for (int64_t i = 0; a->shape == FE_ARRAY && i < v->n; i++)
            fe_obj_unref(((fe_obj **)v->arr)[i]);
    }
    base_free(v->arr);
    *v = (fe_val){0};
}

static const fe_attr *attr_at(const fe_class *cls, int i)
{
    return i < cls->n_attrs ? &cls->attrs[i] : &fe_op_common_attrs[i - cls->n_attrs];
}

void fe_obj_unref(fe_obj *o)
{
    if (o == NULL || atomic_fetch_sub(&o->refs, 1) != 1)
        return;
    if (o->cls->release != NULL)
        o->cls->release(o);
    for (int i = 0; i < n_vals(o->cls); i++)
        val_release(attr_at(o->cls, i), &o->vals[i]);
    base_free(o->vals);
    base_free(o);
}

hipdnnStatus_t fe_wrap(fe_obj *o, hipdnnBackendDescriptor_t *out)
{
    struct HipdnnBackendDescriptor *d = base_malloc(sizeof *d);
    if (d == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "wrapping %s: out of memory", o->cls->name);
    d->magic = FE_DESC_MAGIC;
    d->obj = fe_obj_ref(o);
    *out = d;
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_unwrap(hipdnnBackendDescriptor_t d, const char *fn, fe_obj **out)
{
    if (d == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: descriptor is NULL", fn);
    if (d->magic != FE_DESC_MAGIC)
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "%s: %p is not a live descriptor (destroyed, or not made by "
                         "hipdnnBackendCreateDescriptor)", fn, (void *)d);
    *out = d->obj;
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- attribute lookup ---------------------------------------------------------------------------- */

const fe_attr *fe_find_attr(const fe_class *cls, hipdnnBackendAttributeName_t id)
{
    for (int i = 0; i < n_vals(cls); i++)
        if (attr_at(cls, i)->id == id)
            return attr_at(cls, i);
    return NULL;
}

fe_val *fe_val_of(fe_obj *o, const fe_attr *a)
{
    const fe_class *c = o->cls;
    if (a >= c->attrs && a < c->attrs + c->n_attrs)
        return &o->vals[a - c->attrs];
    return &o->vals[c->n_attrs + (a - fe_op_common_attrs)];
}

fe_val *fe_get(fe_obj *o, hipdnnBackendAttributeName_t id)
{
    const fe_attr *a = fe_find_attr(o->cls, id);
    return a != NULL ? fe_val_of(o, a) : NULL;
}

const char *fe_type_name(hipdnnBackendAttributeType_t t)
{
    static const char *const names[] = {
        "HIPDNN_TYPE_HANDLE", "HIPDNN_TYPE_DATA_TYPE", "HIPDNN_TYPE_BOOLEAN", "HIPDNN_TYPE_INT64",
        "HIPDNN_TYPE_FLOAT", "HIPDNN_TYPE_DOUBLE", "HIPDNN_TYPE_VOID_PTR", "HIPDNN_TYPE_HEUR_MODE",
        "HIPDNN_TYPE_KNOB_TYPE", "HIPDNN_TYPE_NAN_PROPOGATION", "HIPDNN_TYPE_NUMERICAL_NOTE",
        "HIPDNN_TYPE_LAYOUT_TYPE", "HIPDNN_TYPE_ATTRIB_NAME", "HIPDNN_TYPE_BACKEND_DESCRIPTOR",
        "HIPDNN_TYPE_GENSTATS_MODE", "HIPDNN_TYPE_BN_FINALIZE_STATS_MODE",
        "HIPDNN_TYPE_BEHAVIOR_NOTE", "HIPDNN_TYPE_TENSOR_REORDERING_MODE", "HIPDNN_TYPE_INT32",
        "HIPDNN_TYPE_CHAR", "HIPDNN_TYPE_SIGNAL_MODE", "HIPDNN_TYPE_FRACTION",
        "HIPDNN_TYPE_NORM_FWD_PHASE", "HIPDNN_TYPE_RNG_DISTRIBUTION",
        "HIPDNN_TYPE_CONVOLUTION_MODE", "HIPDNN_TYPE_POINTWISE_MODE",
        "HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT", "HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT",
        "HIPDNN_TYPE_REDUCTION_OPERATOR_TYPE", "HIPDNN_TYPE_RESAMPLE_MODE",
        "HIPDNN_TYPE_PADDING_MODE", "HIPDNN_TYPE_MOE_GROUPED_MATMUL_MODE"};
    if ((int)t >= 0 && (size_t)t < sizeof names / sizeof names[0])
        return names[t];
    if (t == HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT)
        return "HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT";
    if (t == HIPDNN_TYPE_OPERATION_TYPE_EXT)
        return "HIPDNN_TYPE_OPERATION_TYPE_EXT";
    return "an unknown attribute type";
}

/* Size in bytes of one element of an attribute type as the caller passes it. */
static size_t elem_size(hipdnnBackendAttributeType_t t)
{
    switch (t) {
    case HIPDNN_TYPE_BOOLEAN: return sizeof(bool);
    case HIPDNN_TYPE_CHAR: return 1;
    case HIPDNN_TYPE_INT32: return sizeof(int32_t);
    case HIPDNN_TYPE_INT64: return sizeof(int64_t);
    case HIPDNN_TYPE_FLOAT: return sizeof(float);
    case HIPDNN_TYPE_DOUBLE: return sizeof(double);
    case HIPDNN_TYPE_HANDLE: return sizeof(hipdnnHandle_t);
    case HIPDNN_TYPE_VOID_PTR: return sizeof(void *);
    case HIPDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(hipdnnBackendDescriptor_t);
    case HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT: return sizeof(hipdnnBackendFlatbufferData_t);
    case HIPDNN_TYPE_DATA_TYPE: case HIPDNN_TYPE_HEUR_MODE: case HIPDNN_TYPE_KNOB_TYPE:
    case HIPDNN_TYPE_NAN_PROPOGATION: case HIPDNN_TYPE_NUMERICAL_NOTE:
    case HIPDNN_TYPE_LAYOUT_TYPE: case HIPDNN_TYPE_ATTRIB_NAME: case HIPDNN_TYPE_GENSTATS_MODE:
    case HIPDNN_TYPE_BN_FINALIZE_STATS_MODE: case HIPDNN_TYPE_BEHAVIOR_NOTE:
    case HIPDNN_TYPE_TENSOR_REORDERING_MODE: case HIPDNN_TYPE_SIGNAL_MODE:
    case HIPDNN_TYPE_FRACTION: case HIPDNN_TYPE_NORM_FWD_PHASE: case HIPDNN_TYPE_RNG_DISTRIBUTION:
    case HIPDNN_TYPE_CONVOLUTION_MODE: case HIPDNN_TYPE_POINTWISE_MODE:
    case HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT: case HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT:
    case HIPDNN_TYPE_REDUCTION_OPERATOR_TYPE: case HIPDNN_TYPE_RESAMPLE_MODE:
    case HIPDNN_TYPE_PADDING_MODE: case HIPDNN_TYPE_MOE_GROUPED_MATMUL_MODE:
    case HIPDNN_TYPE_OPERATION_TYPE_EXT:
        return sizeof(int); /* enum-typed attributes are C int sized */
    }
    return sizeof(int); /* a value outside the enum */
}

/* Valid range of an enum-typed attribute; false if the type is not range-checked. */
static bool enum_range(hipdnnBackendAttributeType_t t, int *lo, int *hi)
{
    static const struct { hipdnnBackendAttributeType_t t; int lo, hi; } ranges[] = {
        {HIPDNN_TYPE_DATA_TYPE, 0, HIPDNN_DATA_FP8_E5M2_FNUZ},
        {HIPDNN_TYPE_POINTWISE_MODE, HIPDNN_POINTWISE_ABS, HIPDNN_POINTWISE_TANH_FWD},
        {HIPDNN_TYPE_NORM_FWD_PHASE, HIPDNN_NORM_FWD_INFERENCE, HIPDNN_NORM_FWD_TRAINING},
        {HIPDNN_TYPE_CONVOLUTION_MODE, HIPDNN_CONVOLUTION, HIPDNN_CROSS_CORRELATION},
        {HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT, HIPDNN_DIAGONAL_ALIGNMENT_TOP_LEFT_EXT,
         HIPDNN_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT_EXT},
        {HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT, HIPDNN_ATTENTION_IMPLEMENTATION_AUTO_EXT,
         HIPDNN_ATTENTION_IMPLEMENTATION_UNIFIED_EXT},
        {HIPDNN_TYPE_HEUR_MODE, HIPDNN_HEUR_MODE_FALLBACK, HIPDNN_HEUR_MODE_FALLBACK},
        {HIPDNN_TYPE_BEHAVIOR_NOTE, 0, HIPDNN_BEHAVIOR_NOTE_TYPE_COUNT - 1},
        {HIPDNN_TYPE_REDUCTION_OPERATOR_TYPE, HIPDNN_REDUCE_TENSOR_ADD,
         HIPDNN_REDUCE_TENSOR_MUL_NO_ZEROS},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (ranges[i].t == t) {
            *lo = ranges[i].lo;
            *hi = ranges[i].hi;
            return true;
        }
    return false;
}

/* ---- set -------------------------------------------------------------------------------------------- */

static hipdnnStatus_t check_count(const fe_obj *o, const fe_attr *a, int64_t n)
{
    const char *d = o->cls->name;
    if (a->shape == FE_ONE && n != 1)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: takes exactly 1 element, got %lld", d,
                         a->name, (long long)n);
    if (a->shape != FE_ONE && n < a->min_n)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: needs at least %d element(s), got %lld",
                         d, a->name, a->min_n, (long long)n);
    if (a->shape != FE_ONE && a->max_n > 0 && n > a->max_n)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: takes at most %d elements, got %lld", d,
                         a->name, a->max_n, (long long)n);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t check_enum_values(const fe_obj *o, const fe_attr *a, int64_t n,
                                        const void *elems)
{
    int lo, hi;
    if (!enum_range(a->type, &lo, &hi))
        return HIPDNN_STATUS_SUCCESS;
    for (int64_t i = 0; i < n; i++) {
        int v;
        memcpy(&v, (const char *)elems + i * (int64_t)sizeof(int), sizeof v);
        if (v < lo || v > hi)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: %d is not a valid %s (%d..%d)",
                             o->cls->name, a->name, v, fe_type_name(a->type), lo, hi);
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* Unwraps n descriptor handles, checking type and finalization; refs are not taken yet. */
static hipdnnStatus_t check_descs(const fe_obj *o, const fe_attr *a, int64_t n,
                                  const hipdnnBackendDescriptor_t *h, fe_obj **objs)
{
    for (int64_t i = 0; i < n; i++) {
        fe_obj *x = NULL;
        hipdnnStatus_t st = fe_unwrap(h[i], "hipdnnBackendSetAttribute", &x);
        if (st != HIPDNN_STATUS_SUCCESS)
            return base_fail(st, "%s %s: element %lld is not a live descriptor", o->cls->name,
                             a->name, (long long)i);
        bool ok = (a->flags & FE_ANY_OP) ? x->cls->op_type != 0 : x->cls->type == a->desc;
        if (!ok)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: element %lld is a %s, expected %s",
                             o->cls->name, a->name, (long long)i, x->cls->name,
                             (a->flags & FE_ANY_OP) ? "an operation descriptor"
                                                    : fe_class_of(a->desc)->name);
        if (!x->finalized)
            return base_fail(HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                             "%s %s: element %lld (%s) is not finalized", o->cls->name, a->name,
                             (long long)i, x->cls->name);
        objs[i] = x;
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* Builds the new value of a descriptor-valued attribute (appending to `old` if asked). */
static hipdnnStatus_t build_desc_val(const fe_obj *o, const fe_attr *a, int64_t n,
                                     const void *elems, const fe_val *old, fe_val *nv)
{
    int64_t keep = (a->flags & FE_APPEND) ? old->n : 0;
    if (a->max_n > 0 && keep + n > a->max_n)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: takes at most %d elements in all; it "
                         "holds %lld, %lld more were given", o->cls->name, a->name, a->max_n,
                         (long long)keep, (long long)n);
    fe_obj **objs = base_calloc((size_t)(keep + n), sizeof *objs);
    if (objs == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "%s %s: out of memory", o->cls->name, a->name);
    hipdnnStatus_t st = check_descs(o, a, n, elems, objs + keep);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(objs);
        return st;
    }
    for (int64_t i = 0; i < keep; i++)
        objs[i] = ((fe_obj **)old->arr)[i];
    for (int64_t i = 0; i < keep + n; i++)
        fe_obj_ref(objs[i]);
    nv->n = keep + n;
    if (a->shape == FE_ONE) {
        nv->one.obj = objs[0];
        base_free(objs);
    } else {
        nv->arr = objs;
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* A BOOLEAN element is a byte, and a caller's byte may be any value: nonzero is stored as true
 * (1), so that reading it back as a C bool is defined. */
static void store_bools(uint8_t *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        b[i] = b[i] != 0;
}

static hipdnnStatus_t build_plain_val(const fe_obj *o, const fe_attr *a, int64_t n,
                                      const void *elems, fe_val *nv)
{
    size_t sz = elem_size(a->type);
    nv->n = n;
    if (a->shape == FE_ONE) {
        memcpy(&nv->one, elems, sz);
        if (a->type == HIPDNN_TYPE_BOOLEAN)
            store_bools((uint8_t *)&nv->one, 1);
        return HIPDNN_STATUS_SUCCESS;
    }
    /* arrays and strings: a private copy, strings NUL-terminated */
    nv->arr = base_malloc((size_t)n * sz + 1);
    if (nv->arr == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "%s %s: out of memory", o->cls->name, a->name);
    if (n > 0)
        memcpy(nv->arr, elems, (size_t)n * sz);
    if (a->type == HIPDNN_TYPE_BOOLEAN)
        store_bools(nv->arr, n);
    ((char *)nv->arr)[(size_t)n * sz] = '\0';
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_set_generic(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                              int64_t n, const void *elems)
{
    const char *d = o->cls->name;
    if (type != a->type)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: expects %s, got %s", d, a->name,
                         fe_type_name(a->type), fe_type_name(type));
    if (n < 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: negative element count %lld", d,
                         a->name, (long long)n);
    if (elems == NULL && n > 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s %s: arrayOfElements is NULL",
                         d, a->name);
    if (a->wire == FE_W_STRING && n > 0 && ((const char *)elems)[n - 1] == '\0')
        n--; /* a text given with its terminator */
    const char *nul = a->wire == FE_W_STRING && n > 0 ? memchr(elems, '\0', (size_t)n) : NULL;
    if (nul != NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: the text has a NUL byte at offset %lld "
                         "(names and ids are NUL-free text)", d, a->name,
                         (long long)(nul - (const char *)elems));
    hipdnnStatus_t st = check_count(o, a, n);
    if (st == HIPDNN_STATUS_SUCCESS && !is_desc(a))
        st = check_enum_values(o, a, n, elems);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    fe_val *v = fe_val_of(o, a);
    fe_val nv = {.type = type};
    st = is_desc(a) ? build_desc_val(o, a, n, elems, v, &nv) : build_plain_val(o, a, n, elems, &nv);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (is_desc(a) && (a->flags & FE_APPEND)) {
        /* the old references moved into nv (and gained one each): drop the old array's */
        for (int64_t i = 0; i < v->n; i++)
            fe_obj_unref(((fe_obj **)v->arr)[i]);
        base_free(v->arr);
        *v = (fe_val){0};
    } else {
        val_release(a, v);
    }
    *v = nv;
    return HIPDNN_STATUS_SUCCESS;
}

bool fe_op_has(fe_obj *o, hipdnnBackendAttributeName_t id)
{
    fe_val *v = fe_get(o, id);
    return v != NULL && v->n > 0;
}

bool fe_op_flag(fe_obj *o, hipdnnBackendAttributeName_t id)
{
    return fe_op_has(o, id) && fe_get(o, id)->one.b;
}

int64_t fe_op_i64_or(fe_obj *o, hipdnnBackendAttributeName_t id, int64_t dflt)
{
    return fe_op_has(o, id) ? fe_get(o, id)->one.i64 : dflt;
}

hipdnnStatus_t fe_set_attr(fe_obj *o, hipdnnBackendAttributeName_t id,
                           hipdnnBackendAttributeType_t type, int64_t n, const void *elems)
{
    const fe_class *c = o->cls;
    if (c->later != NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s: %s", c->name, c->later);
    if (o->finalized)
        return base_fail(HIPDNN_STATUS_NOT_INITIALIZED,
                         "%s: already finalized; attribute %d cannot be set", c->name, (int)id);
    const fe_attr *a = fe_find_attr(c, id);
    if (a == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s: attribute %d is not supported here",
                         c->name, (int)id);
    if (a->flags & FE_REFUSED)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s %s: %s", c->name, a->name, a->why);
    if (a->flags & FE_GET_ONLY)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s %s: is read-only", c->name, a->name);
    return a->set != NULL ? a->set(o, a, type, n, elems) : fe_set_generic(o, a, type, n, elems);
}

/* ---- get -------------------------------------------------------------------------------------------- */

hipdnnStatus_t fe_get_copy(const fe_obj *o, const fe_attr *a, int64_t requested, int64_t *count,
                           void *elems, const void *src, int64_t avail, size_t size)
{
    if (elems == NULL || requested == 0) {
        if (count == NULL)
            return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                             "%s %s: size query needs elementCount", o->cls->name, a->name);
        *count = avail;
        return HIPDNN_STATUS_SUCCESS;
    }
    int64_t k = requested < avail ? requested : avail;
    if (k > 0)
        memcpy(elems, src, (size_t)k * size);
    if (count != NULL)
        *count = k;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t get_string(const fe_obj *o, const fe_attr *a, const fe_val *v,
                                 int64_t requested, int64_t *count, char *out)
{
    int64_t avail = v->n > 0 || v->arr != NULL ? v->n + 1 : 0;
    if (out == NULL || requested == 0)
        return fe_get_copy(o, a, 0, count, NULL, NULL, avail, 1);
    if (avail == 0) {
        if (count != NULL)
            *count = 0;
        return HIPDNN_STATUS_SUCCESS;
    }
    int64_t k = requested - 1 < v->n ? requested - 1 : v->n;
    memcpy(out, v->arr, (size_t)k);
    out[k] = '\0';
    if (count != NULL)
        *count = k + 1;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t get_descs(const fe_obj *o, const fe_attr *a, const fe_val *v,
                                int64_t requested, int64_t *count, hipdnnBackendDescriptor_t *out)
{
    if (out == NULL || requested == 0)
        return fe_get_copy(o, a, 0, count, NULL, NULL, v->n, 0);
    if ((a->flags & FE_APPEND) && requested < v->n)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT,
                         "%s %s: %lld descriptors requested, %lld available (request them all)",
                         o->cls->name, a->name, (long long)requested, (long long)v->n);
    int64_t k = requested < v->n ? requested : v->n;
    fe_obj *const *objs = a->shape == FE_ONE ? &v->one.obj : (fe_obj *const *)v->arr;
    for (int64_t i = 0; i < k; i++) {
        hipdnnStatus_t st = fe_wrap(objs[i], &out[i]);
        if (st != HIPDNN_STATUS_SUCCESS) {
            while (i-- > 0) {
                fe_obj_unref(out[i]->obj);
                out[i]->magic = FE_DEAD_MAGIC;
                base_free(out[i]);
            }
            return st;
        }
    }
    if (count != NULL)
        *count = k;
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_get_generic(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                              int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    const fe_val *v = fe_val_of(o, a);
    if (a->shape == FE_STRING)
        return get_string(o, a, v, requested, count, elems);
    if (is_desc(a))
        return get_descs(o, a, v, requested, count, elems);
    const void *src = a->shape == FE_ONE ? (const void *)&v->one : v->arr;
    return fe_get_copy(o, a, requested, count, elems, src, v->n, elem_size(a->type));
}

hipdnnStatus_t fe_get_attr(fe_obj *o, hipdnnBackendAttributeName_t id,
                           hipdnnBackendAttributeType_t type, int64_t requested, int64_t *count,
                           void *elems)
{
    const fe_class *c = o->cls;
    if (c->later != NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s: %s", c->name, c->later);
    const fe_attr *a = fe_find_attr(c, id);
    if (a == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s: attribute %d is not supported here",
                         c->name, (int)id);
    if (a->flags & FE_REFUSED)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s %s: %s", c->name, a->name, a->why);
    if (!o->finalized && !(a->flags & FE_GET_ANY))
        return base_fail(HIPDNN_STATUS_NOT_INITIALIZED, "%s %s: descriptor is not finalized",
                         c->name, a->name);
    if (type != a->type && !(a->flags & FE_ANY_TYPE))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: is %s, requested as %s", c->name,
                         a->name, fe_type_name(a->type), fe_type_name(type));
    if (requested < 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: negative requestedElementCount",
                         c->name, a->name);
    return a->get != NULL ? a->get(o, a, type, requested, count, elems)
                          : fe_get_generic(o, a, type, requested, count, elems);
}

/* ---- finalize ------------------------------------------------------------------------------------- */

hipdnnStatus_t fe_finalize(fe_obj *o)
{
    const fe_class *c = o->cls;
    if (c->later != NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s: %s", c->name, c->later);
    if (o->finalized)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: already finalized", c->name);
    for (int i = 0; i < c->n_attrs; i++)
        if ((c->attrs[i].flags & FE_REQ) && o->vals[i].n == 0)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: required attribute %s is not set",
                             c->name, c->attrs[i].name);
    hipdnnStatus_t st = c->finalize != NULL ? c->finalize(o) : HIPDNN_STATUS_SUCCESS;
    if (st == HIPDNN_STATUS_SUCCESS)
        o->finalized = true;
    return st;
}

/* Every operation descriptor also takes a name and reports its operation type. */
static hipdnnStatus_t get_op_type(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                  int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    int op_type = o->cls->op_type;
    return fe_get_copy(o, a, requested, count, elems, &op_type, 1, sizeof op_type);
}

const fe_attr fe_op_common_attrs[] = {
    STRING(HIPDNN_ATTR_OPERATION_NAME_EXT, "name", -1, FE_GET_ANY, 4096),
    {.id = HIPDNN_ATTR_OPERATION_TYPE_EXT, .name = "HIPDNN_ATTR_OPERATION_TYPE_EXT",
     .type = HIPDNN_TYPE_OPERATION_TYPE_EXT, .shape = FE_ONE, .flags = FE_GET_ONLY | FE_GET_ANY,
     .min_n = 1, .max_n = 1, .fb_id = -1, .get = get_op_type},
};
const int fe_n_op_common_attrs = FE_COUNT(fe_op_common_attrs);

/* A get-only INT64 attribute that takes exactly one element. */
hipdnnStatus_t fe_get_one_i64(const fe_obj *o, const fe_attr *a, int64_t requested, int64_t *count,
                              void *elems, int64_t value)
{
    if (elems != NULL && requested != 1)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: request exactly 1 element", o->cls->name,
                         a->name);
    return fe_get_copy(o, a, requested, count, elems, &value, 1, sizeof value);
}
