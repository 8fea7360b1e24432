/* ir_fuse.c — partitions a sealed IR graph into kernels.
 *
 * A kernel is one anchor op plus the pointwise ops fused before it (prologue) and after it
 * (epilogue), or a region of pointwise ops alone. The only rules are the pro/epi/tail columns of
 * ir_ops.def:
 *   prologue  a pointwise op whose output is read only by the anchor joins an anchor with `pro`
 *             (recursively up the chain); if that output is a graph tensor the kernel also
 *             writes it (residual add + norm writing the residual stream);
 *   epilogue  a pointwise op reading a tensor the kernel already computes (the anchor's first
 *             output or an epilogue result) joins an anchor with `epi` when its other inputs
 *             come from memory (graph inputs or earlier kernels); an op with `tail` (block
 *             quantize) may end the epilogue;
 *   region    leftover pointwise ops connected by virtual tensors form pure pointwise kernels
 *             (an op joins a region when everything else it reads is a graph input);
 *   score     the ops of a score modifier (ir_score.c) join the anchor with `score` that
 *             reads their result, as IR_PART_SCORE, in the fused and the unfused partition
 *             alike (the chain is part of the op: it runs once per score inside it) and
 *             never join a prologue, epilogue or region.
 * A tensor is written to memory when it is not virtual or when an op of another kernel reads
 * it; virtual tensors used only inside a kernel never touch memory, and score tensors
 * (ir_tensor.score) are never read from it. Kernels come out in a
 * topological order.
 * ir_split is the unfused partition (the unfused JIT engine's): one kernel per op, so every
 * tensor between two ops goes through memory.
 */
#include <string.h>

#include "ir/ir_int.h"

typedef struct fuse {
    const ir_graph *g;
    int *kernel_of;  /* per op, -1 unassigned */
    ir_partition *p;
    bool *score_op;  /* per op: part of a score modifier */
} fuse;

static hipdnnStatus_t oom(void)
{
    return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "fusing a graph: out of memory");
}

static const ir_op_info *info(const fuse *f, int k) { return ir_op_info_of(f->g->ops[k].kind); }

static bool is_pointwise(const fuse *f, int k) { return info(f, k)->role == IR_ROLE_POINTWISE; }

/* Adds op k to kernel ki in role r. */
static hipdnnStatus_t add_op(fuse *f, int ki, int k, ir_part r)
{
    ir_kernel *kn = &f->p->k[ki];
    int *ops = base_realloc(kn->ops, (size_t)(kn->n_ops + 1) * sizeof *ops);
    if (ops != NULL)
        kn->ops = ops;
    ir_part *part = base_realloc(kn->part, (size_t)(kn->n_ops + 1) * sizeof *part);
    if (part != NULL)
        kn->part = part;
    if (ops == NULL || part == NULL)
        return oom();
    kn->ops[kn->n_ops] = k;
    kn->part[kn->n_ops++] = r;
    f->kernel_of[k] = ki;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t new_kernel(fuse *f, int anchor, int *ki)
{
    ir_kernel *k = base_realloc(f->p->k, (size_t)(f->p->n + 1) * sizeof *k);
    if (k == NULL)
        return oom();
    f->p->k = k;
    k[f->p->n] = (ir_kernel){.anchor = anchor};
    *ki = f->p->n++;
    return HIPDNN_STATUS_SUCCESS;
}

/* True when every reader of tensor ti is op k. */
static bool only_reader(const fuse *f, int ti, int k)
{
    for (int j = 0; j < f->g->n_ops; j++)
        for (int s = 0; s < f->g->ops[j].n_in; s++)
            if (f->g->ops[j].in[s] == ti && j != k)
                return false;
    return true;
}

/* Fuses the pointwise producer chain feeding op k's inputs into kernel ki as prologue. */
static hipdnnStatus_t grow_prologue(fuse *f, int ki, int k)
{
    const ir_op *op = &f->g->ops[k];
    for (int s = 0; s < op->n_in; s++) {
        int ti = op->in[s];
        int p = ti >= 0 ? f->g->t[ti].producer : -1;
        if (p < 0 || f->kernel_of[p] >= 0 || !is_pointwise(f, p) || f->score_op[p] || !only_reader(f, ti, k))
            continue;
        hipdnnStatus_t st = add_op(f, ki, p, IR_PART_PROLOGUE);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = grow_prologue(f, ki, p);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* Whether op k can join kernel ki's epilogue: it reads something ki computes on the epilogue
 * path (`avail`) and everything else it reads is already in memory. */
static bool epilogue_fits(const fuse *f, int ki, int k, const bool *avail)
{
    const ir_op *op = &f->g->ops[k];
    bool reads_avail = false;
    for (int s = 0; s < op->n_in; s++) {
        int ti = op->in[s];
        if (ti < 0)
            continue;
        int p = f->g->t[ti].producer;
        if (avail[ti])
            reads_avail = true;
        else if (p >= 0 && (f->kernel_of[p] < 0 || f->kernel_of[p] == ki))
            return false; /* produced by an op not yet placed, or off the epilogue path */
    }
    return reads_avail;
}

static hipdnnStatus_t grow_epilogue(fuse *f, int ki, int anchor, bool *avail)
{
    const ir_graph *g = f->g;
    if (g->ops[anchor].n_out > 0 && g->ops[anchor].out[0] >= 0)
        avail[g->ops[anchor].out[0]] = true;
    for (int k = anchor + 1; k < g->n_ops; k++) {
        bool pw = is_pointwise(f, k), tail = info(f, k)->tail;
        if (f->kernel_of[k] >= 0 || f->score_op[k] || !(pw || tail) || !epilogue_fits(f, ki, k, avail))
            continue;
        hipdnnStatus_t st = add_op(f, ki, k, IR_PART_EPILOGUE);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        if (tail)
            break; /* a quantize ends the epilogue */
        if (g->ops[k].out[0] >= 0)
            avail[g->ops[k].out[0]] = true;
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* The score modifier of anchor k (the `score` rule) into kernel ki. */
static hipdnnStatus_t add_score_mod(fuse *f, int ki, int k)
{
    if (!info(f, k)->score)
        return HIPDNN_STATUS_SUCCESS;
    int *ops = base_malloc(((size_t)f->g->n_ops + 1) * sizeof *ops);
    if (ops == NULL)
        return oom();
    int n = ir_score_mod_ops(f->g, k, ops, f->g->n_ops);
    hipdnnStatus_t st = n < 0 ? HIPDNN_STATUS_ALLOC_FAILED : HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < n && st == HIPDNN_STATUS_SUCCESS; i++)
        if (f->kernel_of[ops[i]] < 0)
            st = add_op(f, ki, ops[i], IR_PART_SCORE);
    base_free(ops);
    return st;
}

static hipdnnStatus_t place_anchor(fuse *f, int k, bool *avail)
{
    int ki = -1;
    hipdnnStatus_t st = new_kernel(f, k, &ki);
    if (st == HIPDNN_STATUS_SUCCESS && info(f, k)->pro)
        st = grow_prologue(f, ki, k);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = add_score_mod(f, ki, k);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = add_op(f, ki, k, IR_PART_ANCHOR);
    memset(avail, 0, (size_t)f->g->n_t * sizeof *avail);
    if (st == HIPDNN_STATUS_SUCCESS && info(f, k)->epi)
        st = grow_epilogue(f, ki, k, avail);
    return st;
}

/* A leftover pointwise op joins the region of a producer of one of its virtual inputs when all
 * its other inputs are graph inputs or come from that region (never from another kernel, which
 * might itself depend on the region). */
static int region_for(const fuse *f, int k)
{
    const ir_op *op = &f->g->ops[k];
    int region = -1;
    for (int s = 0; s < op->n_in && region < 0; s++) {
        int ti = op->in[s], p = ti >= 0 ? f->g->t[ti].producer : -1;
        if (p >= 0 && f->g->t[ti].is_virtual && f->p->k[f->kernel_of[p]].anchor < 0)
            region = f->kernel_of[p];
    }
    for (int s = 0; s < op->n_in && region >= 0; s++) {
        int ti = op->in[s], p = ti >= 0 ? f->g->t[ti].producer : -1;
        if (p >= 0 && f->kernel_of[p] != region)
            return -1;
    }
    return region;
}

static hipdnnStatus_t place_rest(fuse *f)
{
    for (int k = 0; k < f->g->n_ops; k++) {
        if (f->kernel_of[k] >= 0)
            continue;
        hipdnnStatus_t st;
        int ki = is_pointwise(f, k) ? region_for(f, k) : -1;
        if (ki >= 0) {
            st = add_op(f, ki, k, IR_PART_REGION);
        } else {
            st = new_kernel(f, is_pointwise(f, k) ? -1 : k, &ki);
            if (st == HIPDNN_STATUS_SUCCESS)
                st = add_op(f, ki, k, is_pointwise(f, k) ? IR_PART_REGION : IR_PART_ANCHOR);
        }
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- kernel interfaces and order ------------------------------------------------------------------ */

static hipdnnStatus_t push(int **arr, int *n, int v)
{
    for (int i = 0; i < *n; i++)
        if ((*arr)[i] == v)
            return HIPDNN_STATUS_SUCCESS;
    int *a = base_realloc(*arr, (size_t)(*n + 1) * sizeof *a);
    if (a == NULL)
        return oom();
    a[(*n)++] = v;
    *arr = a;
    return HIPDNN_STATUS_SUCCESS;
}

/* Reads: operands produced outside the kernel (constants excluded). Writes: results that are
 * graph tensors or are read by another kernel. */
static hipdnnStatus_t interface(fuse *f, int ki)
{
    const ir_graph *g = f->g;
    ir_kernel *kn = &f->p->k[ki];
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < kn->n_ops && st == HIPDNN_STATUS_SUCCESS; i++) {
        const ir_op *op = &g->ops[kn->ops[i]];
        for (int s = 0; s < op->n_in && st == HIPDNN_STATUS_SUCCESS; s++) {
            int ti = op->in[s];
            if (ti >= 0 && !g->t[ti].by_value && !g->t[ti].score &&
                (g->t[ti].producer < 0 || f->kernel_of[g->t[ti].producer] != ki))
                st = push(&kn->reads, &kn->n_reads, ti);
        }
        for (int s = 0; s < op->n_out && st == HIPDNN_STATUS_SUCCESS; s++) {
            int ti = op->out[s];
            bool outside = false;
            for (int j = 0; ti >= 0 && j < g->n_ops; j++)
                for (int q = 0; q < g->ops[j].n_in; q++)
                    outside |= g->ops[j].in[q] == ti && f->kernel_of[j] != ki;
            if (ti >= 0 && (!g->t[ti].is_virtual || outside))
                st = push(&kn->writes, &kn->n_writes, ti);
        }
    }
    return st;
}

/* Whether kernel a reads a tensor kernel b writes. */
static bool depends(const fuse *f, int a, int b)
{
    const ir_kernel *ka = &f->p->k[a], *kb = &f->p->k[b];
    for (int i = 0; i < ka->n_reads; i++)
        for (int j = 0; j < kb->n_writes; j++)
            if (ka->reads[i] == kb->writes[j])
                return true;
    return false;
}

static hipdnnStatus_t order_kernels(fuse *f)
{
    int n = f->p->n;
    ir_kernel *sorted = base_malloc(((size_t)n + 1) * sizeof *sorted);
    bool *done = base_calloc((size_t)n + 1, sizeof *done);
    if (sorted == NULL || done == NULL) {
        base_free(sorted), base_free(done);
        return oom();
    }
    int m = 0;
    for (bool progress = true; progress && m < n;) {
        progress = false;
        for (int a = 0; a < n && !progress; a++) {
            bool ready = !done[a];
            for (int b = 0; ready && b < n; b++)
                ready = done[b] || b == a || !depends(f, a, b);
            if (ready) {
                done[a] = progress = true;
                sorted[m++] = f->p->k[a];
            }
        }
    }
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (m < n)
        st = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "fusion produced a cycle between kernels");
    else
        memcpy(f->p->k, sorted, (size_t)n * sizeof *sorted);
    base_free(sorted), base_free(done);
    return st;
}

/* Ops of each kernel in graph (topological) order. */
static void sort_ops(ir_kernel *k)
{
    for (int i = 1; i < k->n_ops; i++)
        for (int j = i; j > 0 && k->ops[j - 1] > k->ops[j]; j--) {
            int o = k->ops[j];
            ir_part r = k->part[j];
            k->ops[j] = k->ops[j - 1], k->part[j] = k->part[j - 1];
            k->ops[j - 1] = o, k->part[j - 1] = r;
        }
}

/* One kernel per op, in graph order: anchors (and ALONE ops) alone, with their score modifier,
 * each other pointwise op a region of its own. */
static hipdnnStatus_t place_each(fuse *f)
{
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int k = 0; st == HIPDNN_STATUS_SUCCESS && k < f->g->n_ops; k++) {
        bool pw = is_pointwise(f, k);
        int ki = -1;
        if (f->score_op[k])
            continue;
        st = new_kernel(f, pw ? -1 : k, &ki);
        if (st == HIPDNN_STATUS_SUCCESS && !pw)
            st = add_score_mod(f, ki, k);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = add_op(f, ki, k, pw ? IR_PART_REGION : IR_PART_ANCHOR);
    }
    return st;
}

/* Places every op (fused or one per kernel), then sets each kernel's reads and writes and
 * orders the kernels. */
static hipdnnStatus_t partition(const ir_graph *g, ir_partition *p, bool fused)
{
    *p = (ir_partition){0};
    fuse f = {g, base_malloc(((size_t)g->n_ops + 1) * sizeof(int)), p,
              base_calloc((size_t)g->n_ops + 1, sizeof(bool))};
    bool *avail = base_calloc((size_t)g->n_t + 1, sizeof *avail);
    hipdnnStatus_t st = f.kernel_of != NULL && avail != NULL && f.score_op != NULL ? HIPDNN_STATUS_SUCCESS : oom();
    if (st == HIPDNN_STATUS_SUCCESS)
        st = ir_score_mod_mark(g, f.score_op);
    for (int k = 0; st == HIPDNN_STATUS_SUCCESS && k < g->n_ops; k++)
        f.kernel_of[k] = -1;
    for (int k = 0; fused && st == HIPDNN_STATUS_SUCCESS && k < g->n_ops; k++)
        if (f.kernel_of[k] < 0 && ir_op_info_of(g->ops[k].kind)->role == IR_ROLE_ANCHOR)
            st = place_anchor(&f, k, avail);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fused ? place_rest(&f) : place_each(&f);
    for (int ki = 0; st == HIPDNN_STATUS_SUCCESS && ki < p->n; ki++) {
        sort_ops(&p->k[ki]);
        st = interface(&f, ki);
    }
    if (st == HIPDNN_STATUS_SUCCESS)
        st = order_kernels(&f);
    base_free(f.kernel_of);
    base_free(f.score_op);
    base_free(avail);
    if (st != HIPDNN_STATUS_SUCCESS)
        ir_partition_free(p);
    return st;
}

hipdnnStatus_t ir_fuse(const ir_graph *g, ir_partition *p) { return partition(g, p, true); }

hipdnnStatus_t ir_split(const ir_graph *g, ir_partition *p) { return partition(g, p, false); }

void ir_partition_free(ir_partition *p)
{
    for (int i = 0; i < p->n; i++) {
        base_free(p->k[i].ops), base_free(p->k[i].part);
        base_free(p->k[i].reads), base_free(p->k[i].writes);
    }
    base_free(p->k);
    *p = (ir_partition){0};
}

/* ---- dump --------------------------------------------------------------------------------------------- */

static void dump_tensors(const ir_graph *g, const char *what, const int *ts, int n, base_sb *out)
{
    base_sb_printf(out, "  %-8s", what);
    for (int i = 0; i < n; i++) {
        const ir_tensor *t = &g->t[ts[i]];
        base_sb_printf(out, " uid %lld [", (long long)t->uid);
        for (int d = 0; d < t->rank; d++)
            base_sb_printf(out, d ? ",%lld" : "%lld", (long long)t->dims[d]);
        base_sb_printf(out, "]%s", t->is_virtual ? " (virtual, via workspace)" : "");
        base_sb_puts(out, i + 1 < n ? "," : "");
    }
    base_sb_puts(out, n ? "\n" : " -\n");
}

static void dump_part(const ir_graph *g, const ir_kernel *k, ir_part r, const char *what,
                      base_sb *out)
{
    int n = 0;
    base_sb_printf(out, "  %-8s", what);
    for (int i = 0; i < k->n_ops; i++) {
        if (k->part[i] != r)
            continue;
        const ir_op *op = &g->ops[k->ops[i]];
        base_sb_printf(out, "%s %s", n++ ? "," : "", ir_op_info_of(op->kind)->name);
        if (op->kind == IR_OP_POINTWISE)
            base_sb_printf(out, "(%s)", base_pointwise_mode_name(op->a.pw.mode));
    }
    base_sb_puts(out, n ? "\n" : " -\n");
}

void ir_partition_dump(const ir_graph *g, const ir_partition *p, base_sb *out)
{
    base_sb_printf(out, "%d kernel(s) for %d op(s)\n", p->n, g->n_ops);
    for (int i = 0; i < p->n; i++) {
        const ir_kernel *k = &p->k[i];
        base_sb_printf(out, "kernel %d: %s\n", i,
                       k->anchor >= 0 ? ir_op_info_of(g->ops[k->anchor].kind)->name
                                      : "pointwise region");
        dump_part(g, k, IR_PART_PROLOGUE, "prologue", out);
        dump_part(g, k, k->anchor >= 0 ? IR_PART_ANCHOR : IR_PART_REGION, "anchor", out);
        dump_part(g, k, IR_PART_EPILOGUE, "epilogue", out);
        for (int j = 0; j < k->n_ops; j++)
            if (k->part[j] == IR_PART_SCORE) {
                dump_part(g, k, IR_PART_SCORE, "score", out);
                break;
            }
        dump_tensors(g, "reads", k->reads, k->n_reads, out);
        dump_tensors(g, "writes", k->writes, k->n_writes, out);
    }
}
