/* fe_knob.c — HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR and HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR.
 *
 * A KNOB_INFO says what one engine knob accepts; a KNOB_CHOICE sets one knob to one value.
 *
 * Owns: both attribute tables (hipdnn-api.md §2.3.4, §2.3.7); the polymorphic values — a
 * knob's default, minimum and maximum and a choice's value are INT64, DOUBLE or CHAR, kept
 * with the type they were set with (fe_val.type) and readable only with that type; the list
 * of valid string values (each set appends, (NULL, 0) clears, a get returns one flat
 * NUL-separated buffer); KNOB_INFO finalize: the knob's type is its default's type and every
 * constraint must fit that type and admit the default. Also fe_knob_info_make, which describes
 * an engine's integer knob through the same setters a user calls, and fe_knob_choice, the view
 * engines read.
 * Does not own: which knobs an engine has (the engines), or whether an engine config's choices
 * match its engine's knobs (ENGINECFG).
 */
#include <assert.h>
#include <string.h>

#include "engines/fe_engines.h"

#define KNOB_ID_MAX 4096      /* MAX_KNOB_ID_LENGTH */
#define KNOB_STRING_MAX 65536 /* MAX_KNOB_STRING_VALUE_LENGTH */
#define KNOB_DESC_MAX 65536
#define KNOB_VALID_MAX 65536  /* entries of VALID_VALUES_INT */

#define I64 HIPDNN_TYPE_INT64
#define F64 HIPDNN_TYPE_DOUBLE
#define CHR HIPDNN_TYPE_CHAR

#define KI_FAIL(...) base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR " __VA_ARGS__)

/* Whether a value was set: numbers have one element; a CHAR value may be the empty string. */
static bool is_set(const fe_val *v)
{
    return v->n > 0 || (v->type == CHR && v->arr != NULL);
}

/* Copies a string of len bytes out with the size-query pattern; the copy is NUL-terminated. */
static hipdnnStatus_t get_chars(const fe_obj *o, const fe_attr *a, const char *s, int64_t len,
                                int64_t requested, int64_t *count, char *out)
{
    if (out == NULL || requested == 0)
        return fe_get_copy(o, a, 0, count, NULL, NULL, len + 1, 1);
    int64_t k = requested - 1 < len ? requested - 1 : len;
    memcpy(out, s, (size_t)k);
    out[k] = '\0';
    if (count != NULL)
        *count = k + 1;
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- polymorphic values ----------------------------------------------------------------------
 * Rows with FE_ANY_TYPE take INT64 or DOUBLE (one element); a row whose max_n exceeds 1 also
 * takes CHAR, up to max_n bytes. */

static bool poly_accepts(const fe_attr *a, hipdnnBackendAttributeType_t t)
{
    return t == I64 || t == F64 || (t == CHR && a->max_n > 1);
}

static hipdnnStatus_t poly_type_error(const fe_obj *o, const fe_attr *a,
                                      hipdnnBackendAttributeType_t t)
{
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: takes HIPDNN_TYPE_INT64, HIPDNN_TYPE_DOUBLE%s, "
                     "got %s", o->cls->name, a->name, a->max_n > 1 ? " or HIPDNN_TYPE_CHAR" : "",
                     fe_type_name(t));
}

static hipdnnStatus_t poly_check(const fe_obj *o, const fe_attr *a,
                                 hipdnnBackendAttributeType_t type, int64_t n, const void *elems)
{
    if (!poly_accepts(a, type))
        return poly_type_error(o, a, type);
    if (elems == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s %s: arrayOfElements is NULL",
                         o->cls->name, a->name);
    if (type != CHR && n != 1)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: a %s value takes exactly 1 element, "
                         "got %lld", o->cls->name, a->name, fe_type_name(type), (long long)n);
    if (type == CHR && (n < 0 || n > a->max_n))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: a string value takes 0..%d characters, "
                         "got %lld", o->cls->name, a->name, a->max_n, (long long)n);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t set_poly(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                               int64_t n, const void *elems)
{
    hipdnnStatus_t st = poly_check(o, a, type, n, elems);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    fe_val nv = {.n = n, .type = type};
    if (type == CHR) {
        if ((nv.arr = base_malloc((size_t)n + 1)) == NULL)
            return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "%s %s: out of memory", o->cls->name,
                             a->name);
        memcpy(nv.arr, elems, (size_t)n);
        ((char *)nv.arr)[n] = '\0';
    } else {
        memcpy(&nv.one, elems, sizeof(int64_t)); /* int64_t and double: 8 bytes */
    }
    fe_val *v = fe_val_of(o, a);
    base_free(v->arr);
    *v = nv;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t get_poly(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                               int64_t requested, int64_t *count, void *elems)
{
    const fe_val *v = fe_val_of(o, a);
    if (!poly_accepts(a, type))
        return poly_type_error(o, a, type);
    if (!is_set(v))
        return fe_get_copy(o, a, requested, count, elems, NULL, 0, 1);
    if (type != v->type)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: holds %s, requested as %s",
                         o->cls->name, a->name, fe_type_name(v->type), fe_type_name(type));
    if (type == CHR)
        return get_chars(o, a, v->arr, v->n, requested, count, elems);
    return fe_get_copy(o, a, requested, count, elems, &v->one, 1, sizeof(int64_t));
}

/* ---- KNOB_INFO special attributes ------------------------------------------------------------ */

/* STRIDE and STRING_MAX_LENGTH: one INT64 > 0. */
static hipdnnStatus_t set_positive(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                   int64_t n, const void *elems)
{
    if (type == a->type && n == 1 && elems != NULL) {
        int64_t x;
        memcpy(&x, elems, sizeof x);
        if (x <= 0)
            return KI_FAIL("%s: %lld, must be > 0", a->name, (long long)x);
    }
    return fe_set_generic(o, a, type, n, elems);
}

/* VALID_VALUES_STRING: each set appends its bytes as one string (a buffer holding NULs
 * appends each NUL-terminated piece; a final NUL only ends the last one); (NULL, 0) clears.
 * Stored flat, every string NUL-terminated; v->n counts the bytes, NULs included. */
static hipdnnStatus_t set_valid_strings(fe_obj *o, const fe_attr *a,
                                        hipdnnBackendAttributeType_t type, int64_t n,
                                        const void *elems)
{
    fe_val *v = fe_val_of(o, a);
    if (type != CHR)
        return KI_FAIL("%s: expects HIPDNN_TYPE_CHAR, got %s", a->name, fe_type_name(type));
    if (n < 0 || n > KNOB_STRING_MAX)
        return KI_FAIL("%s: takes 0..%d characters, got %lld", a->name, KNOB_STRING_MAX,
                       (long long)n);
    if (elems == NULL && n == 0) {
        base_free(v->arr);
        *v = (fe_val){0};
        return HIPDNN_STATUS_SUCCESS;
    }
    if (elems == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR %s: arrayOfElements is NULL", a->name);
    const char *s = elems;
    int64_t add = n + (n == 0 || s[n - 1] != '\0');
    char *buf = base_realloc(v->arr, (size_t)(v->n + add));
    if (buf == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED,
                         "HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR %s: out of memory", a->name);
    memcpy(buf + v->n, s, (size_t)n);
    buf[v->n + add - 1] = '\0';
    *v = (fe_val){.n = v->n + add, .type = CHR, .arr = buf};
    return HIPDNN_STATUS_SUCCESS;
}

/* The flat buffer; a truncated copy still ends with a NUL. */
static hipdnnStatus_t get_valid_strings(fe_obj *o, const fe_attr *a,
                                        hipdnnBackendAttributeType_t type, int64_t requested,
                                        int64_t *count, void *elems)
{
    (void)type;
    const fe_val *v = fe_val_of(o, a);
    hipdnnStatus_t st = fe_get_copy(o, a, requested, count, elems, v->arr, v->n, 1);
    if (st == HIPDNN_STATUS_SUCCESS && elems != NULL && requested > 0 && requested < v->n)
        ((char *)elems)[requested - 1] = '\0';
    return st;
}

static hipdnnStatus_t get_default_type(fe_obj *o, const fe_attr *a,
                                       hipdnnBackendAttributeType_t type, int64_t requested,
                                       int64_t *count, void *elems)
{
    (void)type;
    int64_t t = (int64_t)fe_get(o, HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE)->type;
    return fe_get_copy(o, a, requested, count, elems, &t, 1, sizeof t);
}

/* DEPRECATED reads false when never set. */
static hipdnnStatus_t get_deprecated(fe_obj *o, const fe_attr *a,
                                     hipdnnBackendAttributeType_t type, int64_t requested,
                                     int64_t *count, void *elems)
{
    (void)type;
    const fe_val *v = fe_val_of(o, a);
    bool b = v->n > 0 && v->one.b;
    return fe_get_copy(o, a, requested, count, elems, &b, 1, sizeof b);
}

#define POLY(ID, FLAGS, MAX)                                                                    \
    {.id = ID, .name = #ID, .type = I64, .shape = FE_ONE, .flags = FE_ANY_TYPE | (FLAGS),        \
     .min_n = 1, .max_n = MAX, .fb_id = -1, .set = set_poly, .get = get_poly}
#define BOUNDED_STRING(ID, FLAGS, MIN, MAX)                                                     \
    {.id = ID, .name = #ID, .type = CHR, .shape = FE_STRING, .flags = (FLAGS), .min_n = MIN,     \
     .max_n = MAX, .fb_id = -1}

/* DEFAULT_VALUE is required; its check is in info_finalize (an empty string counts as set). */
static const fe_attr info_attrs[] = {
    BOUNDED_STRING(HIPDNN_ATTR_KNOB_INFO_TYPE, FE_REQ, 1, KNOB_ID_MAX),
    POLY(HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, 0, 1),
    POLY(HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, 0, 1),
    {.id = HIPDNN_ATTR_KNOB_INFO_STRIDE, .name = "HIPDNN_ATTR_KNOB_INFO_STRIDE", .type = I64,
     .shape = FE_ONE, .min_n = 1, .max_n = 1, .fb_id = -1, .set = set_positive},
    BOUNDED_STRING(HIPDNN_ATTR_KNOB_INFO_DESCRIPTION, 0, 0, KNOB_DESC_MAX),
    POLY(HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE, 0, KNOB_STRING_MAX),
    {.id = HIPDNN_ATTR_KNOB_INFO_DEPRECATED, .name = "HIPDNN_ATTR_KNOB_INFO_DEPRECATED",
     .type = HIPDNN_TYPE_BOOLEAN, .shape = FE_ONE, .min_n = 1, .max_n = 1, .fb_id = -1,
     .get = get_deprecated},
    ARRAY(HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT, I64, FE_W_NONE, NULL, -1, 0, 0, KNOB_VALID_MAX),
    {.id = HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_STRING,
     .name = "HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_STRING", .type = CHR, .shape = FE_STRING,
     .max_n = KNOB_STRING_MAX, .fb_id = -1, .set = set_valid_strings, .get = get_valid_strings},
    {.id = HIPDNN_ATTR_KNOB_INFO_STRING_MAX_LENGTH,
     .name = "HIPDNN_ATTR_KNOB_INFO_STRING_MAX_LENGTH", .type = I64, .shape = FE_ONE, .min_n = 1,
     .max_n = 1, .fb_id = -1, .set = set_positive},
    {.id = HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE_TYPE,
     .name = "HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE_TYPE", .type = I64, .shape = FE_ONE,
     .flags = FE_GET_ONLY, .min_n = 1, .max_n = 1, .fb_id = -1, .get = get_default_type},
};

/* ---- KNOB_INFO finalize ---------------------------------------------------------------------- */

static const char *knob_id(fe_obj *o)
{
    return fe_get(o, HIPDNN_ATTR_KNOB_INFO_TYPE)->arr;
}

static const char *kind_name(hipdnnBackendAttributeType_t t)
{
    return t == I64 ? "an INT64" : t == F64 ? "a DOUBLE" : "a CHAR (string)";
}

/* Constraints that fit only some knob types (a knob's type is its default's type). */
static const struct {
    hipdnnBackendAttributeName_t id;
    bool i64, f64, chr;
} fits[] = {
    {HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, true, true, false},
    {HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, true, true, false},
    {HIPDNN_ATTR_KNOB_INFO_STRIDE, true, false, false},
    {HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT, true, false, false},
    {HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_STRING, false, false, true},
    {HIPDNN_ATTR_KNOB_INFO_STRING_MAX_LENGTH, false, false, true},
};

static hipdnnStatus_t check_kind(fe_obj *o, hipdnnBackendAttributeType_t kind)
{
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++) {
        const fe_attr *a = fe_find_attr(o->cls, fits[i].id);
        const fe_val *v = fe_val_of(o, a);
        bool ok = kind == I64 ? fits[i].i64 : kind == F64 ? fits[i].f64 : fits[i].chr;
        if (is_set(v) && !ok)
            return KI_FAIL("knob '%s': %s does not apply to %s knob", knob_id(o), a->name,
                           kind_name(kind));
        if (is_set(v) && (a->flags & FE_ANY_TYPE) && v->type != kind)
            return KI_FAIL("knob '%s': %s is %s but the default (the knob's type) is %s",
                           knob_id(o), a->name, fe_type_name(v->type), fe_type_name(kind));
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* Integer knob: min <= max, default in [min, max] and on the stride grid from min, valid
 * values in [min, max]. */
static hipdnnStatus_t check_int_range(fe_obj *o, int64_t d, int64_t lo, int64_t hi)
{
    const fe_val *stride = fe_get(o, HIPDNN_ATTR_KNOB_INFO_STRIDE);
    const fe_val *valid = fe_get(o, HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT);
    const char *id = knob_id(o);
    if (lo > hi)
        return KI_FAIL("knob '%s': minimum %lld > maximum %lld", id, (long long)lo, (long long)hi);
    if (d < lo || d > hi)
        return KI_FAIL("knob '%s': default %lld is outside [%lld, %lld]", id, (long long)d,
                       (long long)lo, (long long)hi);
    if (stride->n > 0 && ((uint64_t)d - (uint64_t)lo) % (uint64_t)stride->one.i64 != 0)
        return KI_FAIL("knob '%s': default %lld is not the minimum %lld plus a multiple of the "
                       "stride %lld", id, (long long)d, (long long)lo, (long long)stride->one.i64);
    for (int64_t i = 0; i < valid->n; i++) {
        int64_t x = ((const int64_t *)valid->arr)[i];
        if (x < lo || x > hi)
            return KI_FAIL("knob '%s': valid value %lld is outside [%lld, %lld]", id,
                           (long long)x, (long long)lo, (long long)hi);
    }
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t check_f64_range(fe_obj *o, double d, double lo, double hi)
{
    if (!(lo <= hi))
        return KI_FAIL("knob '%s': minimum %g > maximum %g", knob_id(o), lo, hi);
    if (!(lo <= d && d <= hi))
        return KI_FAIL("knob '%s': default %g is outside [%g, %g]", knob_id(o), d, lo, hi);
    return HIPDNN_STATUS_SUCCESS;
}

/* Runs after check_kind: min, max and default have one type. */
static hipdnnStatus_t check_range(fe_obj *o, const fe_val *d)
{
    const fe_val *lo = fe_get(o, HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE);
    const fe_val *hi = fe_get(o, HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE);
    if (is_set(lo) != is_set(hi))
        return KI_FAIL("knob '%s': set both HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE and "
                       "HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, or neither", knob_id(o));
    if (!is_set(lo))
        return HIPDNN_STATUS_SUCCESS;
    if (d->type == I64)
        return check_int_range(o, d->one.i64, lo->one.i64, hi->one.i64);
    return check_f64_range(o, d->one.f64, lo->one.f64, hi->one.f64);
}

static hipdnnStatus_t check_int_list(fe_obj *o, int64_t d)
{
    const fe_val *valid = fe_get(o, HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT);
    for (int64_t i = 0; i < valid->n; i++)
        if (((const int64_t *)valid->arr)[i] == d)
            return HIPDNN_STATUS_SUCCESS;
    if (valid->n == 0)
        return HIPDNN_STATUS_SUCCESS;
    return KI_FAIL("knob '%s': default %lld is not among the %lld valid values", knob_id(o),
                   (long long)d, (long long)valid->n);
}

/* String knob: default and valid strings within STRING_MAX_LENGTH, default among the valid
 * strings when there are any. */
static hipdnnStatus_t check_strings(fe_obj *o, const fe_val *d)
{
    const fe_val *max = fe_get(o, HIPDNN_ATTR_KNOB_INFO_STRING_MAX_LENGTH);
    const fe_val *valid = fe_get(o, HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_STRING);
    int64_t lim = max->n > 0 ? max->one.i64 : INT64_MAX;
    bool found = valid->n == 0;
    if (d->n > lim)
        return KI_FAIL("knob '%s': the default is %lld characters, STRING_MAX_LENGTH is %lld",
                       knob_id(o), (long long)d->n, (long long)lim);
    const char *first = valid->arr, *end = valid->n > 0 ? first + valid->n : first; /* no offset on NULL */
    for (const char *s = first; s < end; s += strlen(s) + 1) {
        int64_t len = (int64_t)strlen(s);
        if (len > lim)
            return KI_FAIL("knob '%s': valid value '%s' is longer than STRING_MAX_LENGTH %lld",
                           knob_id(o), s, (long long)lim);
        found = found || (len == d->n && memcmp(s, d->arr, (size_t)len) == 0);
    }
    if (!found)
        return KI_FAIL("knob '%s': default '%s' is not among the valid values", knob_id(o),
                       (const char *)d->arr);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t info_finalize(fe_obj *o)
{
    const fe_val *d = fe_get(o, HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE);
    if (!is_set(d))
        return KI_FAIL("knob '%s': required attribute HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE is not "
                       "set", knob_id(o));
    hipdnnStatus_t st = check_kind(o, d->type);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check_range(o, d);
    if (st == HIPDNN_STATUS_SUCCESS && d->type == I64)
        st = check_int_list(o, d->one.i64);
    if (st == HIPDNN_STATUS_SUCCESS && d->type == CHR)
        st = check_strings(o, d);
    return st;
}

const fe_class fe_knob_info_class = {
    .type = HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR",
    .attrs = info_attrs,
    .n_attrs = FE_COUNT(info_attrs),
    .finalize = info_finalize,
};

hipdnnStatus_t fe_knob_info_make(const fe_knob_def *def, fe_obj **out)
{
    assert(def != NULL && def->id != NULL);
    const struct {
        hipdnnBackendAttributeName_t id;
        hipdnnBackendAttributeType_t t;
        int64_t n;
        const void *p;
    } sets[] = {
        {HIPDNN_ATTR_KNOB_INFO_TYPE, CHR, (int64_t)strlen(def->id), def->id},
        {HIPDNN_ATTR_KNOB_INFO_DESCRIPTION, CHR,
         def->description != NULL ? (int64_t)strlen(def->description) : 0, def->description},
        {HIPDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, I64, 1, &def->min},
        {HIPDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, I64, 1, &def->max},
        {HIPDNN_ATTR_KNOB_INFO_STRIDE, I64, def->stride != 0, &def->stride},
        {HIPDNN_ATTR_KNOB_INFO_DEFAULT_VALUE, I64, 1, &def->dflt},
        {HIPDNN_ATTR_KNOB_INFO_VALID_VALUES_INT, I64, def->valid != NULL ? def->n_valid : 0,
         def->valid},
    };
    fe_obj *o = NULL;
    hipdnnStatus_t st = fe_obj_new(&fe_knob_info_class, &o);
    for (size_t i = 0; st == HIPDNN_STATUS_SUCCESS && i < sizeof sets / sizeof sets[0]; i++)
        if (sets[i].n > 0)
            st = fe_set_attr(o, sets[i].id, sets[i].t, sets[i].n, sets[i].p);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_finalize(o);
    if (st != HIPDNN_STATUS_SUCCESS && o != NULL)
        fe_obj_unref(o);
    if (st == HIPDNN_STATUS_SUCCESS)
        *out = o;
    return st;
}

/* ---- KNOB_CHOICE ------------------------------------------------------------------------------ */

/* KNOB_VALUE is required; its check is in choice_finalize (an empty string counts as set). */
static const fe_attr choice_attrs[] = {
    BOUNDED_STRING(HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, FE_REQ, 1, KNOB_ID_MAX),
    POLY(HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, 0, KNOB_STRING_MAX),
};

static hipdnnStatus_t choice_finalize(fe_obj *o)
{
    if (!is_set(fe_get(o, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR knob '%s': "
                         "required attribute HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE is not set",
                         (const char *)fe_get(o, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)->arr);
    return HIPDNN_STATUS_SUCCESS;
}

const fe_class fe_knob_choice_class = {
    .type = HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR",
    .attrs = choice_attrs,
    .n_attrs = FE_COUNT(choice_attrs),
    .finalize = choice_finalize,
};

fe_knob_choice_view fe_knob_choice(fe_obj *choice)
{
    const fe_val *v = fe_get(choice, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE);
    return (fe_knob_choice_view){
        .id = fe_get(choice, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)->arr,
        .type = v->type,
        .i64 = v->type == I64 ? v->one.i64 : 0,
        .f64 = v->type == F64 ? v->one.f64 : 0.0,
        .str = v->type == CHR ? v->arr : NULL,
    };
}
