/* fe_check.c — the finalize-time rules of every OPERATION_* descriptor: the dispatch, the
 * helpers the op families share (fe_check.h), and the custom op's rule.
 *
 * Owns: fe_check_op, the finalize hook of every operation class (fe_op_attrs.c). It runs
 * after the generic checks of fe_desc.c (required attributes set, types, counts, enum ranges,
 * tensor descriptors finalized), then the rules every op shares (fe_check_common.c), then the
 * op's own rules: the `check` column of graph/fe_ops.def, one function per operation in
 * the family files named in fe_check.h.
 * Does not own: attribute tables (fe_op_attrs.c), tensor validity (fe_tensor.c), graph
 * structure (fe_graph.c), the SDPA score and mask modifiers' sub-graph rules (fe_check_score_mod.c), or
 * whether an engine can run the op (decided at plan time).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/fe_check.h"

/* ---- the rules ops share ------------------------------------------------------------------------------------ */


fe_port fe_port_of(fe_obj *op, hipdnnBackendAttributeName_t id, const char *name)
{
    fe_val *v = fe_get(op, id);
    fe_port p = {.name = name, .set = v != NULL && v->n > 0};
    if (p.set)
        p.t = fe_tensor(v->one.obj);
    return p;
}


fe_dims_text fe_dims_str(int rank, const int64_t *d)
{
    fe_dims_text out = {.s = "["};
    size_t len = 1;
    for (int i = 0; i < rank && len < sizeof out.s; i++) {
        const char *sep = i > 0 ? "," : "";
        len += (size_t)(d[i] < 0 ? snprintf(out.s + len, sizeof out.s - len, "%s*", sep)
                                 : snprintf(out.s + len, sizeof out.s - len, "%s%lld", sep,
                                            (long long)d[i]));
    }
    if (len < sizeof out.s - 1)
        memcpy(out.s + len, "]", 2);
    return out;
}

/* Raises BAD_PARAM with "<descriptor type>: <message>". */
hipdnnStatus_t fe_op_bad(const fe_obj *op, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s", op->cls->name, msg);
}

const char *fe_op_attr_name(const fe_obj *op, hipdnnBackendAttributeName_t id)
{
    return fe_find_attr(op->cls, id)->name;
}

bool fe_dims_equal(const fe_port *a, int rank, const int64_t *dims)
{
    if (a->t.rank != rank)
        return false;
    for (int i = 0; i < rank; i++)
        if (dims[i] >= 0 && a->t.dims[i] != dims[i])
            return false;
    return true;
}

bool fe_is_scalar(const fe_port *p)
{
    for (int i = 0; i < p->t.rank; i++)
        if (p->t.dims[i] != 1)
            return false;
    return true;
}

/* a * b, or INT64_MAX when that overflows (a capacity that large never limits anything). */
int64_t fe_mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Each rule below passes when its (optional) tensor is unset; required ones are already set. */

hipdnnStatus_t fe_need_rank(fe_obj *op, const fe_port *p, int lo, int hi)
{
    if (!p->set || (p->t.rank >= lo && p->t.rank <= hi))
        return OK;
    if (lo == hi)
        return fe_op_bad(op, "%s %s has rank %d, must have rank %d", p->name, DIMS(p), p->t.rank, lo);
    return fe_op_bad(op, "%s %s has rank %d, must have rank %d..%d", p->name, DIMS(p), p->t.rank, lo, hi);
}

/* p's dims are exactly `want` (entries < 0 match anything); `what` describes the shape. */
hipdnnStatus_t fe_need_shape(fe_obj *op, const fe_port *p, int rank, const int64_t *want,
                             const char *what)
{
    if (!p->set || fe_dims_equal(p, rank, want))
        return OK;
    return fe_op_bad(op, "%s %s must be %s (%s)", p->name, DIMS(p), fe_dims_str(rank, want).s, what);
}

hipdnnStatus_t fe_need_same(fe_obj *op, const fe_port *p, const fe_port *ref)
{
    if (!p->set || !ref->set || fe_dims_equal(p, ref->t.rank, ref->t.dims))
        return OK;
    return fe_op_bad(op, "%s %s must have the dims of %s %s", p->name, DIMS(p), ref->name, DIMS(ref));
}

hipdnnStatus_t fe_need_scalar(fe_obj *op, const fe_port *p)
{
    if (!p->set || fe_is_scalar(p))
        return OK;
    return fe_op_bad(op, "%s %s must be a scalar (all dims 1)", p->name, DIMS(p));
}

/* Numpy broadcasting onto an output of equal rank: every dim equals the target's or is 1
 * (target entries < 0 are unknown and accept anything). */
hipdnnStatus_t fe_need_broadcast(fe_obj *op, const fe_port *p, int rank, const int64_t *to,
                                 const char *what)
{
    if (!p->set)
        return OK;
    if (p->t.rank != rank)
        return fe_op_bad(op, "%s %s has rank %d, %s %s has rank %d (ranks must be equal)", p->name,
                   DIMS(p), p->t.rank, what, fe_dims_str(rank, to).s, rank);
    for (int i = 0; i < rank; i++)
        if (p->t.dims[i] != 1 && to[i] >= 0 && p->t.dims[i] != to[i])
            return fe_op_bad(op, "%s %s does not broadcast to %s %s: dim %d is %lld, must be %lld or 1",
                       p->name, DIMS(p), what, fe_dims_str(rank, to).s, i, (long long)p->t.dims[i],
                       (long long)to[i]);
    return OK;
}

/* A per-channel tensor of x: x's rank, dim 1 == C, every other dim 1. */
hipdnnStatus_t fe_need_per_channel(fe_obj *op, const fe_port *p, const fe_port *x)
{
    int64_t want[FE_MAX_RANK];
    for (int i = 0; i < x->t.rank; i++)
        want[i] = i == 1 ? x->t.dims[1] : 1;
    return fe_need_shape(op, p, x->t.rank, want, "per-channel [1,C,1,..] of X");
}

hipdnnStatus_t fe_need_int(fe_obj *op, const fe_port *p)
{
    if (!p->set || p->t.dtype == HIPDNN_DATA_INT32 || p->t.dtype == HIPDNN_DATA_INT64)
        return OK;
    return fe_op_bad(op, "%s has data type %s, must be INT32 or INT64", p->name, fe_dtype_name(p->t.dtype));
}

/* The ports are all set or all unset. */
hipdnnStatus_t fe_need_together(fe_obj *op, const fe_port *ps, int n)
{
    int n_set = 0, one_set = 0, one_unset = 0;
    for (int i = 0; i < n; i++) {
        n_set += ps[i].set;
        if (ps[i].set && !ps[one_set].set)
            one_set = i;
        if (!ps[i].set && ps[one_unset].set)
            one_unset = i;
    }
    if (n_set == 0 || n_set == n)
        return OK;
    char names[256] = "";
    for (int i = 0; i < n; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i == 0 ? "" : i == n - 1 ? " and " : ", ", ps[i].name);
    return fe_op_bad(op, "%s must be set together (%s is set, %s is not)", names, ps[one_set].name,
               ps[one_unset].name);
}

/* ---- custom op ------------------------------------------------------------------------------------ */

/* The op is opaque to us; only its identity and that it produces something are checked. */
hipdnnStatus_t fe_check_custom_op(fe_obj *op)
{
    const char *id = fe_get(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT)->arr;
    if (id == NULL || id[0] == '\0')
        return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT is empty");
    if (!fe_op_has(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT))
        return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT: at least one output is needed");
    return OK;
}

/* ---- dispatch -------------------------------------------------------------------------------------- */

hipdnnStatus_t fe_check_op(fe_obj *op)
{
    TRY(fe_check_op_common(op)); /* output layouts, product data types (fe_check_common.c) */
    return op->cls->check(op);
}
