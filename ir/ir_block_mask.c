/* ir_block_mask.c — block classification of a mask modifier (FlexAttention's BlockMask).
 *
 * Owns ir_block_classify, ir_block_class and ir_block_map_free (contract: ir.h): given a mask
 * modifier's flattened chain (ir_score_mod_build, its tensors in memory bound to host data) and
 * a tile of bm query rows x bn keys, each tile (b, h, query tile, key tile) of the scores
 * [B,Hq,Sq,Skv] is EMPTY, FULL or PARTIAL, decided by evaluating the chain once over the whole
 * tile with interval arithmetic. Pure: no GPU, nothing global; does not own the chain's
 * per-element semantics (ir_score.c) that it bounds.
 *
 * An interval [lo, hi] (plus "may be NaN") holds every value a step takes over the tile:
 *   GEN_INDEX          the tile's index range along its axis: [b, b], [h, h], [i0, i1], [j0, j1]
 *                      (i1 = min(i0 + bm, Sq) − 1: the last tile of an odd size is shorter)
 *   tensor in memory   [min, max] of its values over the tile's index box (size-1 dims at 0)
 *   constant           [k, k]
 *   ADD, SUB, MUL, DIV, NEG, ABS, MIN, MAX, FLOOR, CEIL, IDENTITY: the usual interval bounds,
 *                      endpoints computed by the same IEEE operation as the elements (so no
 *                      bound is off by a rounding); a divisor range holding 0 is unknown
 *   CMP_*              definitely true [1, 1] / definitely false [0, 0] / unknown [0, 1]:
 *                      LT true when a.hi < b.lo, false when a.lo >= b.hi, and so on; EQ true
 *                      only for two equal points; anything that may be NaN is unknown
 *   LOGICAL_*, BINARY_SELECT on truth values: true when the interval excludes 0 (NaN counts as
 *                      true, as ir_pointwise_eval does), false for exactly [0, 0]; a select with
 *                      an unknown predicate takes the hull of both branches
 *   integer or BOOLEAN results are rounded as the chain rounds them (monotone, so the endpoints
 *                      suffice; BOOLEAN by truth value); every other op is unknown.
 * The result's truth: true = FULL, false = EMPTY, unknown = PARTIAL. Every rule holds for every
 * element of the tile, so EMPTY and FULL are never wrong; PARTIAL may be pessimistic where
 * values correlate (i − i) but is exact for index comparisons and per-token tensors compared
 * with each other (document masks: a tile inside one (query document, key document) pair is
 * FULL or EMPTY).
 */
#include <math.h>
#include <string.h>

#include "ir/ir_int.h"

#define OK HIPDNN_STATUS_SUCCESS

typedef struct iv {
    double lo, hi;
    bool nan; /* some element may be NaN (not counted in lo, hi) */
} iv;

static const iv UNKNOWN = {-INFINITY, INFINITY, true};

static iv point(double v) { return isnan(v) ? UNKNOWN : (iv){v, v, false}; }
static iv span(double lo, double hi, bool nan)
{
    return isnan(lo) || isnan(hi) ? UNKNOWN : (iv){lo, hi, nan};
}
static bool finite_iv(iv a) { return isfinite(a.lo) && isfinite(a.hi); }
static iv hull(iv a, iv b) { return span(fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.nan || b.nan); }

/* Truth of every element: 1 true, 0 false, -1 unknown (0 excluded: true, NaN included). */
static int truth(iv a)
{
    if (a.lo > 0 || a.hi < 0)
        return 1;
    return a.lo == 0 && a.hi == 0 && !a.nan ? 0 : -1;
}

static iv of_truth(int t) { return t < 0 ? (iv){0, 1, false} : point(t); }

/* ---- arithmetic ----------------------------------------------------------------------------- */

/* The hull of x·y or x/y over the endpoint pairs: both are monotone in each operand (for a
 * divisor of one sign), and the endpoints are computed exactly as the elements are. */
static iv iv_corners(iv a, iv b, bool div)
{
    double p[4] = {a.lo, a.lo, a.hi, a.hi}, q[4] = {b.lo, b.hi, b.lo, b.hi}, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < 4; i++) {
        double r = div ? p[i] / q[i] : p[i] * q[i];
        if (isnan(r))
            return UNKNOWN;
        lo = fmin(lo, r), hi = fmax(hi, r);
    }
    return span(lo, hi, a.nan || b.nan || !finite_iv(a) || !finite_iv(b)); /* 0 · inf, inf / inf inside */
}

static iv iv_div(iv a, iv b)
{
    return b.lo <= 0 && b.hi >= 0 ? UNKNOWN : iv_corners(a, b, true);
}

static iv iv_abs(iv a)
{
    if (a.lo >= 0)
        return a;
    if (a.hi <= 0)
        return span(-a.hi, -a.lo, a.nan);
    return span(0, fmax(-a.lo, a.hi), a.nan);
}

/* fmin / fmax: one NaN operand gives the other one. */
static iv iv_minmax(iv a, iv b, bool is_max)
{
    if (a.nan || b.nan)
        return span(fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.nan && b.nan);
    return is_max ? span(fmax(a.lo, b.lo), fmax(a.hi, b.hi), false)
                  : span(fmin(a.lo, b.lo), fmin(a.hi, b.hi), false);
}

static iv iv_arith(int mode, iv a, iv b, bool *known)
{
    bool inf_pair = !finite_iv(a) && !finite_iv(b);
    switch (mode) {
    case HIPDNN_POINTWISE_ADD: return span(a.lo + b.lo, a.hi + b.hi, a.nan || b.nan || inf_pair);
    case HIPDNN_POINTWISE_SUB: return span(a.lo - b.hi, a.hi - b.lo, a.nan || b.nan || inf_pair);
    case HIPDNN_POINTWISE_MUL: return iv_corners(a, b, false);
    case HIPDNN_POINTWISE_DIV: return iv_div(a, b);
    case HIPDNN_POINTWISE_MIN: return iv_minmax(a, b, false);
    case HIPDNN_POINTWISE_MAX: return iv_minmax(a, b, true);
    case HIPDNN_POINTWISE_NEG: return span(-a.hi, -a.lo, a.nan);
    case HIPDNN_POINTWISE_ABS: return iv_abs(a);
    case HIPDNN_POINTWISE_FLOOR: return span(floor(a.lo), floor(a.hi), a.nan);
    case HIPDNN_POINTWISE_CEIL: return span(ceil(a.lo), ceil(a.hi), a.nan);
    case HIPDNN_POINTWISE_IDENTITY: return a;
    default: *known = false; return UNKNOWN;
    }
}

/* ---- comparisons and logic -------------------------------------------------------------------- */

static int cmp_truth(int mode, iv a, iv b)
{
    if (a.nan || b.nan)
        return -1;
    switch (mode) {
    case HIPDNN_POINTWISE_CMP_EQ:
        return a.lo == a.hi && b.lo == b.hi && a.lo == b.lo ? 1 : a.hi < b.lo || b.hi < a.lo ? 0 : -1;
    case HIPDNN_POINTWISE_CMP_NEQ:
        return a.lo == a.hi && b.lo == b.hi && a.lo == b.lo ? 0 : a.hi < b.lo || b.hi < a.lo ? 1 : -1;
    case HIPDNN_POINTWISE_CMP_GT: return a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : -1;
    case HIPDNN_POINTWISE_CMP_GE: return a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : -1;
    case HIPDNN_POINTWISE_CMP_LT: return a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1;
    case HIPDNN_POINTWISE_CMP_LE: return a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1;
    default: return -1;
    }
}

static iv iv_logic(int mode, iv a, iv b, iv c, bool *known)
{
    int ta = truth(a), tb = truth(b), tc = truth(c);
    switch (mode) {
    case HIPDNN_POINTWISE_CMP_EQ: case HIPDNN_POINTWISE_CMP_NEQ: case HIPDNN_POINTWISE_CMP_GT:
    case HIPDNN_POINTWISE_CMP_GE: case HIPDNN_POINTWISE_CMP_LT: case HIPDNN_POINTWISE_CMP_LE:
        return of_truth(cmp_truth(mode, a, b));
    case HIPDNN_POINTWISE_LOGICAL_AND: return of_truth(ta == 0 || tb == 0 ? 0 : ta == 1 && tb == 1 ? 1 : -1);
    case HIPDNN_POINTWISE_LOGICAL_OR: return of_truth(ta == 1 || tb == 1 ? 1 : ta == 0 && tb == 0 ? 0 : -1);
    case HIPDNN_POINTWISE_LOGICAL_NOT: return of_truth(ta < 0 ? -1 : !ta);
    case HIPDNN_POINTWISE_BINARY_SELECT: return tc == 1 ? a : tc == 0 ? b : hull(a, b);
    default: *known = false; return UNKNOWN;
    }
}

/* ---- one tile --------------------------------------------------------------------------------- */

/* The index box of a tile: lo[d] .. hi[d] along b, h, i, j. */
typedef struct box {
    int64_t lo[4], hi[4];
} box;

/* [min, max] of tensor t over the box (size-1 dims at 0). */
static iv load_iv(const ir_buf *t, const box *x)
{
    int64_t lo[4], hi[4], at[IR_MAX_RANK] = {0};
    iv r = {INFINITY, -INFINITY, false};
    for (int d = 0; d < 4; d++)
        lo[d] = t->dims[d] == 1 ? 0 : x->lo[d], hi[d] = t->dims[d] == 1 ? 0 : x->hi[d];
    for (at[0] = lo[0]; at[0] <= hi[0]; at[0]++)
        for (at[1] = lo[1]; at[1] <= hi[1]; at[1]++)
            for (at[2] = lo[2]; at[2] <= hi[2]; at[2]++)
                for (at[3] = lo[3]; at[3] <= hi[3]; at[3]++) {
                    double v = ir_load(t, at);
                    if (isnan(v))
                        r.nan = true;
                    else
                        r.lo = fmin(r.lo, v), r.hi = fmax(r.hi, v);
                }
    return r.lo > r.hi ? UNKNOWN : r; /* all NaN */
}

/* The step's result rounded as ir_score_mod_eval rounds it. */
static iv round_iv(hipdnnDataType_t t, iv a)
{
    if (!ir_dtype_integral(t))
        return a;
    if (t == HIPDNN_DATA_BOOLEAN)
        return of_truth(truth(a));
    iv r = span(ir_dtype_round(t, a.lo), ir_dtype_round(t, a.hi), false);
    return a.nan ? span(fmin(r.lo, 0), fmax(r.hi, 0), false) : r; /* NaN rounds to 0 */
}

static iv step_iv(const ir_score_step *st, const iv *v, const box *x)
{
    iv a[3];
    bool known = true;
    if (st->pw.mode == HIPDNN_POINTWISE_GEN_INDEX)
        return round_iv(st->dtype, st->index_zero ? point(0) : span((double)x->lo[st->pw.axis],
                                                                     (double)x->hi[st->pw.axis], false));
    for (int i = 0; i < 3; i++)
        a[i] = st->src[i] == IR_SCORE_CONST ? point(st->k[i]) : st->src[i] == IR_SCORE_LOAD ? load_iv(st->load[i], x)
             : st->src[i] >= 0 ? v[st->src[i]] : st->src[i] == IR_SCORE_NONE ? point(0) : UNKNOWN;
    iv r = iv_arith(st->pw.mode, a[0], a[1], &known);
    if (!known) {
        known = true;
        r = iv_logic(st->pw.mode, a[0], a[1], a[2], &known);
    }
    return round_iv(st->dtype, r);
}

static ir_tile_class classify_tile(const ir_score_mod *m, const box *x)
{
    iv v[IR_SCORE_MAX_STEPS];
    for (int k = 0; k < m->n; k++)
        v[k] = step_iv(&m->step[k], v, x);
    int t = m->n > 0 ? truth(v[m->result]) : -1;
    return t == 1 ? IR_TILE_FULL : t == 0 ? IR_TILE_EMPTY : IR_TILE_PARTIAL;
}

/* ---- the map ---------------------------------------------------------------------------------- */

/* Bit d set: some step's value varies with index d (GEN_INDEX along it, a tensor with that dim). */
static unsigned depends(const ir_score_mod *m)
{
    unsigned dep[IR_SCORE_MAX_STEPS];
    for (int k = 0; k < m->n; k++) {
        const ir_score_step *st = &m->step[k];
        dep[k] = st->pw.mode == HIPDNN_POINTWISE_GEN_INDEX && !st->index_zero ? 1u << st->pw.axis : 0u;
        for (int i = 0; st->pw.mode != HIPDNN_POINTWISE_GEN_INDEX && i < 3; i++) {
            if (st->src[i] >= 0)
                dep[k] |= dep[st->src[i]];
            for (int d = 0; st->src[i] == IR_SCORE_LOAD && d < 4; d++)
                dep[k] |= st->load[i]->dims[d] != 1 ? 1u << d : 0u;
        }
    }
    return m->n > 0 ? dep[m->result] : 0u;
}

static void *map_alloc(int64_t n, size_t size, bool *ok)
{
    size_t bytes = 0;
    void *p = NULL;
    if (!base_mul_size((size_t)n, size, &bytes))
        *ok = false;
    if (*ok)
        p = base_calloc(bytes > 0 ? bytes : 1, 1);
    if (p == NULL)
        *ok = false;
    return p;
}

static hipdnnStatus_t map_init(ir_block_map *o, const ir_score_mod *m, int64_t bm, int64_t bn)
{
    unsigned dep = depends(m);
    bool ok = true;
    *o = (ir_block_map){.bm = bm, .bn = bn, .n_qt = (m->dims[2] + bm - 1) / bm, .n_kt = (m->dims[3] + bn - 1) / bn,
                        .per_batch = (dep & 1u) != 0, .per_head = (dep & 2u) != 0};
    o->nb = o->per_batch ? m->dims[0] : 1, o->nh = o->per_head ? m->dims[1] : 1;
    int64_t rows = o->nb * o->nh * o->n_qt, tiles = rows * o->n_kt;
    o->cls = map_alloc(tiles, sizeof *o->cls, &ok);
    o->kv_num_blocks = map_alloc(rows, sizeof(int32_t), &ok);
    o->full_kv_num_blocks = map_alloc(rows, sizeof(int32_t), &ok);
    o->kv_indices = map_alloc(tiles, sizeof(int32_t), &ok);
    o->full_kv_indices = map_alloc(tiles, sizeof(int32_t), &ok);
    if (ok)
        return OK;
    ir_block_map_free(o);
    return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "block classification: out of memory");
}

/* Classifies the key tiles of query row tile `row` (= (b·nh + h)·n_qt + qt) and lists them. */
static void classify_row(ir_block_map *o, const ir_score_mod *m, int64_t b, int64_t h, int64_t qt)
{
    int64_t row = (b * o->nh + h) * o->n_qt + qt;
    int32_t np = 0, nf = 0;
    for (int64_t kt = 0; kt < o->n_kt; kt++) {
        box x = {{b, h, qt * o->bm, kt * o->bn}, {b, h, qt * o->bm + o->bm - 1, kt * o->bn + o->bn - 1}};
        x.hi[2] = x.hi[2] < m->dims[2] ? x.hi[2] : m->dims[2] - 1;
        x.hi[3] = x.hi[3] < m->dims[3] ? x.hi[3] : m->dims[3] - 1;
        ir_tile_class c = classify_tile(m, &x);
        o->cls[row * o->n_kt + kt] = (uint8_t)c;
        if (c == IR_TILE_PARTIAL)
            o->kv_indices[row * o->n_kt + np++] = (int32_t)kt;
        if (c == IR_TILE_FULL)
            o->full_kv_indices[row * o->n_kt + nf++] = (int32_t)kt;
    }
    for (int64_t kt = np; kt < o->n_kt; kt++)
        o->kv_indices[row * o->n_kt + kt] = -1;
    for (int64_t kt = nf; kt < o->n_kt; kt++)
        o->full_kv_indices[row * o->n_kt + kt] = -1;
    o->kv_num_blocks[row] = np, o->full_kv_num_blocks[row] = nf;
}

hipdnnStatus_t ir_block_classify(const ir_score_mod *m, int64_t bm, int64_t bn, ir_block_map *out)
{
    *out = (ir_block_map){0};
    if (m == NULL || m->kind != IR_MOD_MASK || m->n < 1 || m->result < 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "block classification: not a mask modifier's chain");
    if (bm < 1 || bn < 1 || bm > INT32_MAX || bn > INT32_MAX)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "block classification: tile sizes %lld x %lld",
                         (long long)bm, (long long)bn);
    for (int d = 0; d < 4; d++)
        if (m->dims[d] < 0 || (d == 3 && (m->dims[3] + bn - 1) / bn > INT32_MAX))
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "block classification: bad score dims");
    hipdnnStatus_t st = map_init(out, m, bm, bn);
    for (int64_t b = 0; st == OK && b < out->nb; b++)
        for (int64_t h = 0; h < out->nh; h++)
            for (int64_t qt = 0; qt < out->n_qt; qt++)
                classify_row(out, m, b, h, qt);
    return st;
}

ir_tile_class ir_block_class(const ir_block_map *map, int64_t b, int64_t h, int64_t qt, int64_t kt)
{
    int64_t row = ((map->per_batch ? b : 0) * map->nh + (map->per_head ? h : 0)) * map->n_qt + qt;
    return (ir_tile_class)map->cls[row * map->n_kt + kt];
}

void ir_block_map_free(ir_block_map *map)
{
    base_free(map->cls);
    base_free(map->kv_num_blocks);
    base_free(map->kv_indices);
    base_free(map->full_kv_num_blocks);
    base_free(map->full_kv_indices);
    *map = (ir_block_map){0};
}
