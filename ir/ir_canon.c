/* ir_canon.c — canonical form of an IR graph (or of a kernel's sub-graph) and its keys.
 *
 * Two graphs that differ only in uids, names or the order ops were added must serialize to the
 * same bytes; any semantic difference must change them. Steps:
 *   1. a structural hash per op: upstream (kind, compute type, typed attributes, and for each
 *      input either its producer's hash or the input tensor's semantic fields) and downstream
 *      (the multiset of consumers' hashes), independent of any numbering;
 *   2. ops ordered topologically, ties broken by those hashes, then by their inputs: the
 *      canonical numbers of tensors already numbered (two ops of equal hashes may read different
 *      tensors of equal hashes, e.g. the outputs of two alike producers), the hash of their
 *      readers for graph inputs not read yet (alike fields, different readers); insertion order
 *      last, only for ops that are interchangeable;
 *   3. tensors numbered by first use in that order, as each op is placed;
 *   4. bytes: the graph's dynamic-shape flag (it changes the kernels), every op (kind, compute,
 *      attributes field by field, operand numbers) and every tensor (dtype, dims, strides with
 *      size-1 dims' strides zeroed, virtual tensors without strides, flags (virtual, by value,
 *      run-time scalar, score tensor, packed), by-value bytes, a packed tensor's offset
 *      multiplier). A score modifier's pointwise ops are ops of the graph like any other, so its
 *      math and constants are in the bytes and the key.
 *      No uid, name, pointer or struct padding is ever written.
 * The key is XXH3-128 of the bytes.
 */
#include <string.h>
#include <xxhash.h>

#include "ir/ir_int.h"

#define CANON_MAGIC "HDJG"
#define CANON_VERSION 3u /* 2: the dynamic-shape flag; 3: ties broken by the inputs' numbers */

/* ---- a little-endian byte writer ------------------------------------------------------------------ */

static void put_u64(base_sb *sb, uint64_t v)
{
    char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (char)(v >> (8 * i));
    base_sb_putn(sb, b, 8);
}

static void put_i64(base_sb *sb, int64_t v) { put_u64(sb, (uint64_t)v); }

static void put_f64(base_sb *sb, double d)
{
    uint64_t u;
    d = d == 0.0 ? 0.0 : d; /* -0 and +0 mean the same parameter */
    memcpy(&u, &d, sizeof u);
    put_u64(sb, u);
}

/* ---- typed attributes, field by field -------------------------------------------------------------- */

static void pointwise_bytes(const ir_pointwise *p, base_sb *sb)
{
    put_i64(sb, p->mode);
    switch (p->mode) { /* only the parameters the mode reads */
    case HIPDNN_POINTWISE_RELU_FWD:
    case HIPDNN_POINTWISE_RELU_BWD:
        put_f64(sb, p->relu_lower), put_f64(sb, p->relu_upper), put_f64(sb, p->relu_slope);
        break;
    case HIPDNN_POINTWISE_SWISH_FWD:
    case HIPDNN_POINTWISE_SWISH_BWD: put_f64(sb, p->swish_beta); break;
    case HIPDNN_POINTWISE_ELU_FWD:
    case HIPDNN_POINTWISE_ELU_BWD: put_f64(sb, p->elu_alpha); break;
    case HIPDNN_POINTWISE_SOFTPLUS_FWD:
    case HIPDNN_POINTWISE_SOFTPLUS_BWD: put_f64(sb, p->softplus_beta); break;
    case HIPDNN_POINTWISE_GEN_INDEX: put_i64(sb, p->axis); break;
    default: break;
    }
}

static void sdpa_fields(const ir_sdpa *p, base_sb *sb)
{
    put_f64(sb, p->has_scale_value ? p->attn_scale : 0.0);
    put_i64(sb, p->has_scale_value | p->alibi << 1 | p->padding_mask << 2 | p->has_left << 3 |
                    p->has_right << 4 | p->bottom_right << 5 | p->generate_stats << 6);
    put_i64(sb, p->has_left ? p->left_bound : 0);
    put_i64(sb, p->has_right ? p->right_bound : 0);
    put_f64(sb, p->dropout_p);
}

/* The bytes of each member of ir_attrs, named by the `attrs` column of ir_ops.def. */
static void none_bytes(const ir_attrs *a, base_sb *sb) { (void)a, (void)sb; }

static void pw_bytes(const ir_attrs *a, base_sb *sb) { pointwise_bytes(&a->pw, sb); }

static void conv_bytes(const ir_attrs *a, base_sb *sb)
{
    put_i64(sb, a->conv.spatial);
    for (int i = 0; i < a->conv.spatial && i < 3; i++)
        put_i64(sb, a->conv.pre[i]), put_i64(sb, a->conv.post[i]),
            put_i64(sb, a->conv.stride[i]), put_i64(sb, a->conv.dilation[i]);
    put_i64(sb, a->conv.convolution);
}

static void norm_bytes(const ir_attrs *a, base_sb *sb)
{
    put_i64(sb, a->norm.phase), put_i64(sb, a->norm.normalized_dims);
    put_i64(sb, a->norm.from_variance);
}

static void sdpa_bytes(const ir_attrs *a, base_sb *sb) { sdpa_fields(&a->sdpa, sb); }

static void quant_bytes(const ir_attrs *a, base_sb *sb)
{
    put_i64(sb, a->quant.n_block);
    for (int i = 0; i < a->quant.n_block && i < IR_MAX_RANK; i++)
        put_i64(sb, a->quant.block[i]);
    put_i64(sb, a->quant.axis), put_i64(sb, a->quant.transpose);
    put_i64(sb, a->quant.negative_scale);
}

static void custom_bytes(const ir_attrs *a, base_sb *sb)
{
    base_sb_putn(sb, a->custom.id, strnlen(a->custom.id, sizeof a->custom.id));
    put_i64(sb, 0);
    base_sb_putn(sb, a->custom.provider, strnlen(a->custom.provider, sizeof a->custom.provider));
    put_i64(sb, 0);
    put_i64(sb, a->custom.payload_size);
    if (a->custom.payload_size > 0)
        base_sb_putn(sb, (const char *)a->custom.payload, a->custom.payload_size);
}

static void (*const attr_writers[IR_OP_COUNT])(const ir_attrs *a, base_sb *sb) = {
#define IR_OP(ID, name, role, n_in, n_out, pro, epi, tail, score, attrs) [IR_OP_##ID] = attrs##_bytes,
#include "ir/ir_ops.def"
#undef IR_OP
};

static void attr_bytes(const ir_op *op, base_sb *sb)
{
    if ((unsigned)op->kind < IR_OP_COUNT) /* a kind outside the table carries nothing */
        attr_writers[op->kind](&op->a, sb);
}

static void tensor_bytes(const ir_tensor *t, base_sb *sb)
{
    put_i64(sb, t->dtype);
    put_i64(sb, t->rank);
    for (int i = 0; i < t->rank; i++)
        put_i64(sb, t->dims[i]);
    for (int i = 0; i < t->rank && !t->is_virtual; i++)
        put_i64(sb, t->dims[i] == 1 ? 0 : t->strides[i]);
    put_i64(sb, t->is_virtual | t->by_value << 1 | t->runtime_scalar << 2 | t->score << 3 | t->ragged << 4);
    if (t->by_value)
        base_sb_putn(sb, (const char *)t->value, sizeof t->value);
    if (t->ragged) /* which tensor holds the offsets is binding; their multiplier is meaning */
        put_i64(sb, t->ragged_mult);
}

/* ---- structural hashes ---------------------------------------------------------------------------- */

static uint64_t hash_bytes(const base_sb *sb, uint64_t seed)
{
    return XXH3_64bits_withSeed(sb->p != NULL ? sb->p : "", sb->len, seed);
}

static uint64_t mix(uint64_t h, uint64_t v) { return XXH3_64bits_withSeed(&v, sizeof v, h); }

typedef struct canon {
    const ir_graph *g;
    const bool *in_set;   /* ops taking part (all, or a kernel's) */
    uint64_t *up, *down;  /* per op */
    uint64_t *readers;    /* per tensor: the order-free hash of the ops (and slots) reading it */
    int *order;           /* canonical op order (indices into g->ops) */
    int n_order;
    int *tid;             /* canonical number per tensor, -1 unnumbered */
    bool oom;             /* a hash was computed over partial bytes: the result is void */
} canon;

/* The semantic identity of an input: its producer's hash inside the set, else its fields. */
static uint64_t input_sig(canon *c, int ti)
{
    const ir_tensor *t = &c->g->t[ti];
    if (t->producer >= 0 && c->in_set[t->producer]) {
        const ir_op *p = &c->g->ops[t->producer];
        int slot = 0;
        while (slot < p->n_out && p->out[slot] != ti)
            slot++;
        return mix(c->up[t->producer], (uint64_t)slot);
    }
    base_sb sb = {0};
    tensor_bytes(t, &sb);
    uint64_t h = hash_bytes(&sb, 0x7e);
    c->oom |= sb.oom;
    base_sb_free(&sb);
    return h;
}

static void hash_up(canon *c, int k)
{
    const ir_op *op = &c->g->ops[k];
    base_sb sb = {0};
    put_i64(&sb, op->kind), put_i64(&sb, op->compute);
    attr_bytes(op, &sb);
    for (int s = 0; s < op->n_out; s++)
        if (op->out[s] >= 0)
            tensor_bytes(&c->g->t[op->out[s]], &sb);
    uint64_t h = hash_bytes(&sb, 0x0b);
    c->oom |= sb.oom;
    base_sb_free(&sb);
    for (int s = 0; s < op->n_in; s++)
        h = mix(h, op->in[s] < 0 ? 0x1u : input_sig(c, op->in[s]));
    c->up[k] = h;
}

/* Downstream: the up hash plus the sum (order-free) of the consumers' edge hashes. */
static void hash_down(canon *c, int k)
{
    const ir_graph *g = c->g;
    uint64_t sum = 0;
    for (int j = k + 1; j < g->n_ops; j++) {
        if (!c->in_set[j])
            continue;
        for (int s = 0; s < g->ops[j].n_in; s++)
            for (int o = 0; o < g->ops[k].n_out; o++)
                if (g->ops[k].out[o] >= 0 && g->ops[j].in[s] == g->ops[k].out[o])
                    sum += mix(mix(c->down[j], (uint64_t)s), (uint64_t)o);
    }
    c->down[k] = mix(c->up[k], sum);
}

/* Every tensor's readers: the sum (order-free) of its consumers' down hashes with the slot. */
static void hash_readers(canon *c)
{
    const ir_graph *g = c->g;
    for (int j = 0; j < g->n_ops; j++)
        for (int s = 0; s < g->ops[j].n_in && c->in_set[j]; s++)
            if (g->ops[j].in[s] >= 0)
                c->readers[g->ops[j].in[s]] += mix(c->down[j], (uint64_t)s);
}

/* ---- ordering and numbering ---------------------------------------------------------------------- */

static bool op_ready(const canon *c, int k, const bool *placed)
{
    const ir_op *op = &c->g->ops[k];
    for (int s = 0; s < op->n_in; s++) {
        int ti = op->in[s];
        int p = ti >= 0 ? c->g->t[ti].producer : -1;
        if (p >= 0 && c->in_set[p] && !placed[p])
            return false;
    }
    return true;
}

/* Order of two ops' inputs at slot s: absent inputs first, then numbered tensors by number, then
 * graph inputs no placed op has read yet, by the hash of their readers (alike fields, but one
 * may be read by more or other ops). Negative: a's first. */
static int input_cmp(const canon *c, int ta, int tb)
{
    int ka = ta < 0 ? 0 : c->tid[ta] >= 0 ? 1 : 2, kb = tb < 0 ? 0 : c->tid[tb] >= 0 ? 1 : 2;
    if (ka != kb || ka == 0)
        return ka - kb;
    if (ka == 1)
        return c->tid[ta] < c->tid[tb] ? -1 : c->tid[ta] > c->tid[tb];
    return c->readers[ta] < c->readers[tb] ? -1 : c->readers[ta] > c->readers[tb];
}

static bool before(const canon *c, int a, int b)
{
    if (c->up[a] != c->up[b])
        return c->up[a] < c->up[b];
    if (c->down[a] != c->down[b])
        return c->down[a] < c->down[b];
    const ir_op *oa = &c->g->ops[a], *ob = &c->g->ops[b];
    for (int s = 0; s < oa->n_in && s < ob->n_in; s++) {
        int d = input_cmp(c, oa->in[s], ob->in[s]);
        if (d != 0)
            return d < 0;
    }
    return a < b; /* interchangeable: either order gives the same bytes */
}

/* Numbers the tensors of a placed op that have none yet, inputs then outputs by slot. */
static void number_tensors(canon *c, const ir_op *op, int *n_tensors)
{
    for (int s = 0; s < op->n_in + op->n_out; s++) {
        int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
        if (ti >= 0 && c->tid[ti] < 0)
            c->tid[ti] = (*n_tensors)++;
    }
}

static void order_ops(canon *c, bool *placed, int *n_tensors)
{
    const ir_graph *g = c->g;
    *n_tensors = 0;
    for (;;) {
        int best = -1;
        for (int k = 0; k < g->n_ops; k++)
            if (c->in_set[k] && !placed[k] && op_ready(c, k, placed) && (best < 0 || before(c, k, best)))
                best = k;
        if (best < 0)
            return;
        placed[best] = true;
        c->order[c->n_order++] = best;
        number_tensors(c, &g->ops[best], n_tensors);
    }
}

static void write_bytes(const canon *c, int n_tensors, base_sb *out)
{
    const ir_graph *g = c->g;
    base_sb_putn(out, CANON_MAGIC, 4);
    put_u64(out, CANON_VERSION);
    put_i64(out, g->dynamic_shape); /* it changes the kernels emitted */
    put_i64(out, c->n_order);
    for (int i = 0; i < c->n_order; i++) {
        const ir_op *op = &g->ops[c->order[i]];
        put_i64(out, op->kind), put_i64(out, op->compute);
        attr_bytes(op, out);
        put_i64(out, op->n_in);
        for (int s = 0; s < op->n_in; s++)
            put_i64(out, op->in[s] < 0 ? -1 : c->tid[op->in[s]]);
        put_i64(out, op->n_out);
        for (int s = 0; s < op->n_out; s++)
            put_i64(out, op->out[s] < 0 ? -1 : c->tid[op->out[s]]);
    }
    put_i64(out, n_tensors);
    for (int id = 0; id < n_tensors; id++)
        for (int ti = 0; ti < g->n_t; ti++)
            if (c->tid[ti] == id)
                tensor_bytes(&g->t[ti], out);
}

/* Orders and numbers the ops in `ops` (all when NULL); fills c (freed with canon_free). */
static hipdnnStatus_t canon_run(const ir_graph *g, const int *ops, int n_ops, canon *c, int *n_tensors)
{
    *c = (canon){.g = g};
    bool *in_set = base_calloc((size_t)g->n_ops + 1, sizeof *in_set);
    bool *placed = base_calloc((size_t)g->n_ops + 1, sizeof *placed);
    c->in_set = in_set;
    c->up = base_calloc((size_t)g->n_ops + 1, sizeof *c->up);
    c->down = base_calloc((size_t)g->n_ops + 1, sizeof *c->down);
    c->order = base_calloc((size_t)g->n_ops + 1, sizeof *c->order);
    c->tid = base_malloc(((size_t)g->n_t + 1) * sizeof *c->tid);
    c->readers = base_calloc((size_t)g->n_t + 1, sizeof *c->readers);
    if (!in_set || !placed || !c->up || !c->down || !c->order || !c->tid || !c->readers) {
        base_free(placed);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "canonicalizing a graph: out of memory");
    }
    for (int k = 0; k < (ops != NULL ? n_ops : g->n_ops); k++)
        in_set[ops != NULL ? ops[k] : k] = true;
    for (int i = 0; i < g->n_t; i++)
        c->tid[i] = -1;
    for (int k = 0; k < g->n_ops; k++) /* ops are topologically sorted (ir_graph_seal) */
        if (in_set[k])
            hash_up(c, k);
    for (int k = g->n_ops - 1; k >= 0; k--)
        if (in_set[k])
            hash_down(c, k);
    hash_readers(c);
    order_ops(c, placed, n_tensors);
    base_free(placed);
    return c->oom ? base_fail(HIPDNN_STATUS_ALLOC_FAILED, "canonicalizing a graph: out of memory")
                  : HIPDNN_STATUS_SUCCESS;
}

static void canon_free(canon *c)
{
    base_free((void *)c->in_set), base_free(c->up), base_free(c->down);
    base_free(c->order), base_free(c->tid), base_free(c->readers);
}

hipdnnStatus_t ir_canon_bytes(const ir_graph *g, const int *ops, int n_ops, base_sb *out)
{
    canon c;
    int n_tensors = 0;
    hipdnnStatus_t st = canon_run(g, ops, n_ops, &c, &n_tensors);
    if (st == HIPDNN_STATUS_SUCCESS) {
        write_bytes(&c, n_tensors, out);
        if (out->oom || c.oom)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "canonicalizing a graph: out of memory");
    }
    canon_free(&c);
    return st;
}

static void hash_to_key(const base_sb *sb, ir_key *key)
{
    XXH128_canonical_t can;
    XXH128_canonicalFromHash(&can, XXH3_128bits(sb->p, sb->len));
    memcpy(key->b, can.digest, sizeof key->b);
}

static hipdnnStatus_t key_of(const ir_graph *g, const int *ops, int n_ops, ir_key *key)
{
    base_sb sb = {0};
    hipdnnStatus_t st = ir_canon_bytes(g, ops, n_ops, &sb);
    if (st == HIPDNN_STATUS_SUCCESS)
        hash_to_key(&sb, key);
    base_sb_free(&sb);
    return st;
}

hipdnnStatus_t ir_graph_canon(const ir_graph *g, ir_key *key, int *tid, int *n_tensors)
{
    canon c;
    base_sb sb = {0};
    hipdnnStatus_t st = canon_run(g, NULL, 0, &c, n_tensors);
    if (st == HIPDNN_STATUS_SUCCESS) {
        write_bytes(&c, *n_tensors, &sb);
        if (sb.oom)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "canonicalizing a graph: out of memory");
    }
    if (st == HIPDNN_STATUS_SUCCESS) {
        hash_to_key(&sb, key);
        memcpy(tid, c.tid, (size_t)g->n_t * sizeof *tid);
    }
    base_sb_free(&sb);
    canon_free(&c);
    return st;
}

hipdnnStatus_t ir_graph_key(const ir_graph *g, ir_key *key) { return key_of(g, NULL, 0, key); }

hipdnnStatus_t ir_kernel_key(const ir_graph *g, const int *ops, int n_ops, ir_key *key)
{
    return key_of(g, ops, n_ops, key);
}

void ir_key_hex(const ir_key *k, char out[33])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[k->b[i] >> 4];
        out[2 * i + 1] = hex[k->b[i] & 15];
    }
    out[32] = '\0';
}
