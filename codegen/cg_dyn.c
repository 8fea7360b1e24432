/* cg_dyn.c — dynamic shapes: the values of a kernel kept out of its source.
 *
 * With ir_graph.dynamic_shape set, the pointwise, rownorm and matmul emitters write every value
 * that depends on the dims that vary between calls (batch, sequence length: the outer dims of
 * an iteration space, a norm's row dims, a matmul's M and batch dims) as an int64 kernel
 * parameter (CG_ARG_INT64, named dy_*) instead of a literal; the inner dims (hidden size, a
 * norm's row, a matmul's N and K) stay compiled in. One compiled kernel then serves every size
 * of the outer dims: its source, and so its cache key, is the same. The launch recipe (grid,
 * the int64 values) is still computed per graph at emit time.
 * This file owns the parameter registry (cg_dyn_put; cg_dyn_finish is in cg_common.c with the
 * other parameters) and the grouping of outer dims that index alike (cg_dyn_groups), which lets
 * [B, S, H] address its rows as one dim of B * S without a run-time division.
 * Conv, channel norms, quantize, paged load and sdpa kernels stay static under the flag.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"

void cg_dyn_put(cg_dyn *d, base_sb *sb, bool unit_literal, int64_t value, const char *fmt, ...)
{
    if (unit_literal && value == 1) {
        base_sb_puts(sb, "1LL");
        return;
    }
    char name[sizeof d->names[0]];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    base_sb_puts(sb, name);
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->names[i], name) == 0)
            return; /* one name, one value: the emitters derive names from what they mean */
    if (d->n == CG_MAX_ARGS) {
        d->overflow = true;
        return;
    }
    snprintf(d->names[d->n], sizeof d->names[0], "%s", name);
    d->values[d->n++] = value;
}

void cg_dyn_coord(cg_dyn *dy, base_sb *sb, const char *var, int i, int n, int64_t size, int64_t div,
                  const char *prefix, int d)
{
    bool first = i == 0, last = i == n - 1;
    if (first && last) {
        base_sb_puts(sb, var);
        return;
    }
    base_sb_printf(sb, "%s%s %s ", first || last ? "(" : "((", var, last ? "%" : "/");
    if (last)
        cg_dyn_put(dy, sb, false, size, "%ssz%d", prefix, d);
    else
        cg_dyn_put(dy, sb, false, div, "%sdv%d", prefix, d);
    if (!first && !last) {
        base_sb_puts(sb, ") % ");
        cg_dyn_put(dy, sb, false, size, "%ssz%d", prefix, d);
    }
    base_sb_puts(sb, ")");
}

bool cg_broadcast_along(const ir_tensor *t, int r, int d)
{
    int td = d - (r - t->rank);
    return td < 0 || t->dims[td] == 1 || t->strides[td] == 0;
}

/* Whether every tensor indexes dims o (outer) and i (inner) like one dim. */
static bool mergeable(const ir_tensor *const *ts, int nt, int r, const int64_t *ext, int o, int i)
{
    for (int k = 0; k < nt; k++) {
        const ir_tensor *t = ts[k];
        bool bo = cg_broadcast_along(t, r, o), bi = cg_broadcast_along(t, r, i);
        if (bo != bi)
            return false;
        if (!bo && t->strides[o - (r - t->rank)] != t->strides[i - (r - t->rank)] * ext[i])
            return false;
    }
    return true;
}

int cg_dyn_groups(const ir_tensor *const *ts, int nt, int r, const int64_t *ext, const int *dims, int n,
                  bool merge, int *group)
{
    int groups = 0, prev = -1; /* the last dim kept */
    for (int j = 0; j < n; j++) {
        int d = dims[j];
        group[j] = -1;
        if (ext[d] == 1)
            continue;
        if (prev >= 0 && merge && mergeable(ts, nt, r, ext, prev, d))
            group[j] = groups - 1;
        else
            group[j] = groups++;
        prev = d;
    }
    return groups;
}
