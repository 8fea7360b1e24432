/* mask_mods.c — the SDPA mask modifiers of the mask tests (contract: mask_mods.h): their
 * sub-graphs built with descriptors, their random data, and each mask written out directly. */
#include "mask_mods.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

const char *const mm_kind_names[MM_N_KINDS] = {"document", "document_only", "prefix_lm", "sliding_chunk",
                                               "window", "head_window"};

static hipdnnBackendDescriptor_t own(mm_mask *m, hipdnnBackendDescriptor_t d)
{
    cr_assert_lt(m->n_owned, MM_MAX_OWNED);
    m->owned[m->n_owned++] = d;
    return d;
}

/* A tensor of m's sub-graph: dims d (NULL: the scores'), in memory or virtual. */
static hipdnnBackendDescriptor_t T(mm_mask *m, int64_t uid, hipdnnDataType_t dt, const int64_t *d, bool virt)
{
    return own(m, tu_tensor(uid, dt, 4, d != NULL ? d : m->dims, virt, NULL, 0));
}

/* A by-value one-element constant [1,1,1,1] of type dt holding v. */
static hipdnnBackendDescriptor_t K(mm_mask *m, int64_t uid, hipdnnDataType_t dt, double v)
{
    const int64_t one[4] = {1, 1, 1, 1};
    float f = (float)v;
    int32_t i = (int32_t)v;
    return own(m, tu_tensor(uid, dt, 4, one, false, dt == HIPDNN_DATA_FLOAT ? (void *)&f : (void *)&i, 4));
}

/* out = mode(a, b); a GEN_INDEX along axis (ignored otherwise) reads a's shape. */
static hipdnnBackendDescriptor_t PW(mm_mask *m, hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t a,
                                    hipdnnBackendDescriptor_t b, hipdnnBackendDescriptor_t out, int64_t axis)
{
    hipdnnBackendDescriptor_t op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    own(m, op);
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &a));
    if (b != NULL)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, DESC, 1, &b));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &out));
    if (mode == HIPDNN_POINTWISE_GEN_INDEX)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_AXIS, HIPDNN_TYPE_INT64, 1, &axis));
    TU_OK(hipdnnBackendFinalize(op));
    return op;
}

static void finish(mm_mask *m, hipdnnHandle_t handle, hipdnnBackendDescriptor_t *ops, int n, int64_t out_uid)
{
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    own(m, g);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n, ops));
    TU_OK(hipdnnBackendFinalize(g));
    m->graph = g, m->out_uid = out_uid;
}

static void mem(mm_mask *m, int64_t uid, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    int k = m->n_mem++;
    const int64_t d[4] = {d0, d1, d2, d3};
    m->mem_uid[k] = uid;
    memcpy(m->mem_dims[k], d, sizeof d);
    m->mem[k] = calloc((size_t)(d0 * d1 * d2 * d3) + 1, sizeof(int32_t));
    cr_assert_not_null(m->mem[k]);
}

/* ---- the kinds ----------------------------------------------------------------------------- */

/* row and col: GEN_INDEX along i and j of the index space (uid base), of type dt. */
static void indices(mm_mask *m, int64_t base, hipdnnDataType_t dt, hipdnnBackendDescriptor_t *ops,
                    hipdnnBackendDescriptor_t *row, hipdnnBackendDescriptor_t *col)
{
    hipdnnBackendDescriptor_t idx = T(m, base, HIPDNN_DATA_INT32, NULL, false);
    *row = T(m, base + 1, dt, NULL, true), *col = T(m, base + 2, dt, NULL, true);
    ops[0] = PW(m, HIPDNN_POINTWISE_GEN_INDEX, idx, NULL, *row, 2);
    ops[1] = PW(m, HIPDNN_POINTWISE_GEN_INDEX, idx, NULL, *col, 3);
}

static void build_document(mm_mask *m, hipdnnHandle_t handle, int64_t base, bool causal)
{
    const int64_t *d = m->dims, dq[4] = {d[0], 1, d[2], 1}, dk[4] = {d[0], 1, 1, d[3]};
    const int64_t same_d[4] = {d[0], 1, d[2], d[3]};
    hipdnnBackendDescriptor_t ops[5], row, col;
    hipdnnBackendDescriptor_t q = T(m, base + 10, HIPDNN_DATA_INT32, dq, false);
    hipdnnBackendDescriptor_t k = T(m, base + 11, HIPDNN_DATA_INT32, dk, false);
    mem(m, base + 10, d[0], 1, d[2], 1), mem(m, base + 11, d[0], 1, 1, d[3]);
    if (!causal) { /* no index: the index space stays out of the sub-graph */
        hipdnnBackendDescriptor_t keep = T(m, base + 12, HIPDNN_DATA_BOOLEAN, NULL, true);
        ops[0] = PW(m, HIPDNN_POINTWISE_CMP_EQ, q, k, keep, 0);
        finish(m, handle, ops, 1, base + 12);
        return;
    }
    indices(m, base, HIPDNN_DATA_INT32, ops, &row, &col);
    hipdnnBackendDescriptor_t same = T(m, base + 12, HIPDNN_DATA_BOOLEAN, same_d, true);
    hipdnnBackendDescriptor_t cau = T(m, base + 13, HIPDNN_DATA_BOOLEAN, NULL, true);
    hipdnnBackendDescriptor_t keep = T(m, base + 14, HIPDNN_DATA_BOOLEAN, NULL, true);
    ops[2] = PW(m, HIPDNN_POINTWISE_CMP_EQ, q, k, same, 0);
    ops[3] = PW(m, HIPDNN_POINTWISE_CMP_LE, col, row, cau, 0);
    ops[4] = PW(m, HIPDNN_POINTWISE_LOGICAL_AND, same, cau, keep, 0);
    finish(m, handle, ops, 5, base + 14);
}

static void build_prefix_lm(mm_mask *m, hipdnnHandle_t handle, int64_t base)
{
    const int64_t pd[4] = {m->dims[0], 1, 1, 1};
    hipdnnBackendDescriptor_t ops[5], row, col;
    indices(m, base, HIPDNN_DATA_INT32, ops, &row, &col);
    hipdnnBackendDescriptor_t pre = T(m, base + 10, HIPDNN_DATA_INT32, pd, false);
    mem(m, base + 10, m->dims[0], 1, 1, 1);
    hipdnnBackendDescriptor_t cau = T(m, base + 11, HIPDNN_DATA_BOOLEAN, NULL, true);
    hipdnnBackendDescriptor_t in = T(m, base + 12, HIPDNN_DATA_BOOLEAN, NULL, true);
    hipdnnBackendDescriptor_t keep = T(m, base + 13, HIPDNN_DATA_BOOLEAN, NULL, true);
    ops[2] = PW(m, HIPDNN_POINTWISE_CMP_LE, col, row, cau, 0);
    ops[3] = PW(m, HIPDNN_POINTWISE_CMP_LT, col, pre, in, 0);
    ops[4] = PW(m, HIPDNN_POINTWISE_LOGICAL_OR, cau, in, keep, 0);
    finish(m, handle, ops, 5, base + 13);
}

static void build_sliding_chunk(mm_mask *m, hipdnnHandle_t handle, int64_t base)
{
    hipdnnBackendDescriptor_t ops[10], row, col, t[8];
    indices(m, base, HIPDNN_DATA_FLOAT, ops, &row, &col);
    hipdnnBackendDescriptor_t c = K(m, base + 20, HIPDNN_DATA_FLOAT, (double)m->chunk);
    hipdnnBackendDescriptor_t one = K(m, base + 21, HIPDNN_DATA_FLOAT, 1.0);
    for (int i = 0; i < 8; i++)
        t[i] = T(m, base + 10 + i, i < 5 ? HIPDNN_DATA_FLOAT : HIPDNN_DATA_BOOLEAN, NULL, true);
    ops[2] = PW(m, HIPDNN_POINTWISE_DIV, row, c, t[0], 0);
    ops[3] = PW(m, HIPDNN_POINTWISE_FLOOR, t[0], NULL, t[1], 0);      /* the query's chunk */
    ops[4] = PW(m, HIPDNN_POINTWISE_DIV, col, c, t[2], 0);
    ops[5] = PW(m, HIPDNN_POINTWISE_FLOOR, t[2], NULL, t[3], 0);      /* the key's chunk */
    ops[6] = PW(m, HIPDNN_POINTWISE_SUB, t[1], t[3], t[4], 0);
    ops[7] = PW(m, HIPDNN_POINTWISE_CMP_LE, t[4], one, t[5], 0);      /* this chunk or the one before */
    ops[8] = PW(m, HIPDNN_POINTWISE_CMP_LE, col, row, t[6], 0);
    ops[9] = PW(m, HIPDNN_POINTWISE_LOGICAL_AND, t[5], t[6], t[7], 0);
    finish(m, handle, ops, 10, base + 17);
}

/* WINDOW: −shift <= i − j < w (constants); HEAD_WINDOW: j <= i and i − j < w[h] (in memory). */
static void build_window(mm_mask *m, hipdnnHandle_t handle, int64_t base, bool per_head)
{
    const int64_t wd[4] = {1, m->dims[1], 1, 1};
    hipdnnBackendDescriptor_t ops[6], row, col, t[4];
    indices(m, base, HIPDNN_DATA_INT32, ops, &row, &col);
    for (int i = 0; i < 4; i++)
        t[i] = T(m, base + 10 + i, i == 0 ? HIPDNN_DATA_INT32 : HIPDNN_DATA_BOOLEAN, NULL, true);
    hipdnnBackendDescriptor_t w = per_head ? T(m, base + 20, HIPDNN_DATA_INT32, wd, false)
                                           : K(m, base + 20, HIPDNN_DATA_INT32, (double)m->w);
    if (per_head)
        mem(m, base + 20, 1, m->dims[1], 1, 1);
    ops[2] = PW(m, HIPDNN_POINTWISE_SUB, row, col, t[0], 0);
    ops[3] = PW(m, HIPDNN_POINTWISE_CMP_LT, t[0], w, t[1], 0);
    if (per_head)
        ops[4] = PW(m, HIPDNN_POINTWISE_CMP_LE, col, row, t[2], 0);
    else
        ops[4] = PW(m, HIPDNN_POINTWISE_CMP_GE, t[0], K(m, base + 21, HIPDNN_DATA_INT32, (double)-m->shift), t[2], 0);
    ops[5] = PW(m, HIPDNN_POINTWISE_LOGICAL_AND, t[1], t[2], t[3], 0);
    finish(m, handle, ops, 6, base + 13);
}

void mm_build(mm_mask *m, hipdnnHandle_t handle, mm_kind kind, const int64_t dims[4], int64_t base)
{
    *m = (mm_mask){.kind = kind, .in_uid = base};
    memcpy(m->dims, dims, sizeof m->dims);
    m->chunk = tu_range(1, 8), m->w = tu_range(1, dims[3] + 1), m->shift = tu_range(0, dims[3]);
    switch (kind) {
    case MM_DOCUMENT: build_document(m, handle, base, true); break;
    case MM_DOCUMENT_ONLY: build_document(m, handle, base, false); break;
    case MM_PREFIX_LM: build_prefix_lm(m, handle, base); break;
    case MM_SLIDING_CHUNK: build_sliding_chunk(m, handle, base); break;
    case MM_WINDOW: build_window(m, handle, base, false); break;
    case MM_HEAD_WINDOW: build_window(m, handle, base, true); break;
    case MM_N_KINDS: cr_assert_fail("no such mask kind");
    }
    mm_fill(m);
}

void mm_build_slope_score_mod(mm_mask *m, hipdnnHandle_t handle, const int64_t dims[4], int64_t base)
{
    *m = (mm_mask){.kind = MM_N_KINDS, .in_uid = base};
    memcpy(m->dims, dims, sizeof m->dims);
    const int64_t sd[4] = {1, dims[1], 1, 1}, kd[4] = {1, 1, 1, dims[3]};
    hipdnnBackendDescriptor_t s = T(m, base, HIPDNN_DATA_FLOAT, NULL, false), ops[6], t[4];
    hipdnnBackendDescriptor_t row = T(m, base + 3, HIPDNN_DATA_INT32, NULL, true);
    hipdnnBackendDescriptor_t col = T(m, base + 4, HIPDNN_DATA_INT32, NULL, true);
    ops[0] = PW(m, HIPDNN_POINTWISE_GEN_INDEX, s, NULL, row, 2); /* the score's own coordinates */
    ops[1] = PW(m, HIPDNN_POINTWISE_GEN_INDEX, s, NULL, col, 3);
    for (int i = 0; i < 4; i++)
        t[i] = T(m, base + 5 + i, i == 0 ? HIPDNN_DATA_INT32 : HIPDNN_DATA_FLOAT, NULL, true);
    ops[2] = PW(m, HIPDNN_POINTWISE_SUB, col, row, t[0], 0);                                        /* j − i */
    ops[3] = PW(m, HIPDNN_POINTWISE_MUL, t[0], T(m, base + 1, HIPDNN_DATA_FLOAT, sd, false), t[1], 0); /* · slope[h] */
    ops[4] = PW(m, HIPDNN_POINTWISE_ADD, s, t[1], t[2], 0);
    ops[5] = PW(m, HIPDNN_POINTWISE_ADD, t[2], T(m, base + 2, HIPDNN_DATA_FLOAT, kd, false), t[3], 0); /* + kbias[j] */
    finish(m, handle, ops, 6, base + 8);
}

/* ---- data and the mask written out -------------------------------------------------------------- */

/* n non-decreasing document ids from 0, a new document after a token with probability ~1/len. */
static void documents(int32_t *ids, int64_t n, int64_t stride)
{
    int64_t len = tu_range(1, n > 1 ? n : 1);
    int32_t doc = (int32_t)tu_range(0, 1);
    for (int64_t t = 0; t < n; t++) {
        ids[t * stride] = doc;
        doc += tu_range(1, len) == 1;
    }
}

void mm_fill(mm_mask *m)
{
    const int64_t B = m->dims[0], H = m->dims[1], Sq = m->dims[2], Skv = m->dims[3];
    if (m->kind == MM_DOCUMENT || m->kind == MM_DOCUMENT_ONLY)
        for (int64_t b = 0; b < B; b++) {
            documents(m->mem[1] + b * Skv, Skv, 1);
            if (Sq == Skv && tu_range(0, 1)) /* one packed sequence: queries and keys alike */
                memcpy(m->mem[0] + b * Sq, m->mem[1] + b * Skv, (size_t)Sq * sizeof(int32_t));
            else
                documents(m->mem[0] + b * Sq, Sq, 1);
        }
    for (int64_t b = 0; m->kind == MM_PREFIX_LM && b < B; b++)
        m->mem[0][b] = (int32_t)tu_range(0, Skv);
    for (int64_t h = 0; m->kind == MM_HEAD_WINDOW && h < H; h++)
        m->mem[0][h] = (int32_t)tu_range(1, Sq > 1 ? Sq : 1);
}

bool mm_keep(const mm_mask *m, int64_t b, int64_t h, int64_t i, int64_t j)
{
    const int64_t Sq = m->dims[2], Skv = m->dims[3];
    switch (m->kind) {
    case MM_DOCUMENT: return m->mem[0][b * Sq + i] == m->mem[1][b * Skv + j] && j <= i;
    case MM_DOCUMENT_ONLY: return m->mem[0][b * Sq + i] == m->mem[1][b * Skv + j];
    case MM_PREFIX_LM: return j <= i || j < m->mem[0][b];
    case MM_SLIDING_CHUNK: return j <= i && i / m->chunk - j / m->chunk <= 1;
    case MM_WINDOW: return i - j < m->w && i - j >= -m->shift;
    case MM_HEAD_WINDOW: return j <= i && i - j < m->mem[0][h];
    case MM_N_KINDS: break;
    }
    return false;
}

void mm_set(hipdnnBackendDescriptor_t op, bool bwd, const mm_mask *m)
{
    TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_GRAPH_EXT
                                            : HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_GRAPH_EXT, DESC, 1, &m->graph));
    TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_INPUT_UID_EXT
                                            : HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_INPUT_UID_EXT,
                                    HIPDNN_TYPE_INT64, 1, &m->in_uid));
    TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_OUTPUT_UID_EXT
                                            : HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_OUTPUT_UID_EXT,
                                    HIPDNN_TYPE_INT64, 1, &m->out_uid));
}

void mm_free(mm_mask *m)
{
    while (m->n_owned > 0)
        tu_destroy(&m->owned[--m->n_owned]);
    for (int k = 0; k < m->n_mem; k++)
        free(m->mem[k]);
    *m = (mm_mask){0};
}
