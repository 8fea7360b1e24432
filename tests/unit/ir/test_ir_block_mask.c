/* test_ir_block_mask.c — unit tests of ir/ir_block_mask.c (block classification of mask
 * modifiers) and of the mask chains the reference evaluates (ir_score.c).
 *
 * Owns, on fresh random data every run (seed printed; HIPDNN_TEST_SEED replays):
 *  - the six masks of tests/common/mask_mods.h (document ids with random boundaries, document
 *    alone, prefix-LM with random prefix lengths, sliding chunks, windows of random constants,
 *    per-head windows) built through the public API, lowered, and their chain (ir_score_mod_build
 *    with the masks' host data): per element equal to mm_keep, the mask written out in C;
 *  - soundness against brute force on random odd sizes and tile shapes: EMPTY ⇒ every element
 *    of the tile false, FULL ⇒ every element true; the FlexAttention lists (partial and full key
 *    tiles, ascending, their counts) agree with the classes; b and h collapse exactly when the
 *    mask depends on neither (and then the mask is equal across them);
 *  - exactness for document masks: a tile whose query rows all lie in one document and whose
 *    keys all lie in one document is never PARTIAL without the causal cut, and is classified
 *    exactly with it;
 *  - random chains (index steps, constants, tensors with NaN and infinities, every arithmetic,
 *    comparison, logical and select mode, integer and BOOLEAN roundings, modes the intervals do
 *    not know) built directly: still sound;
 *  - refusals: not a mask chain, tile sizes below 1; every allocation of the chain's build and of
 *    the classification failed in turn ends in ALLOC_FAILED with nothing left (LeakSanitizer).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/mask_mods.h"
#include "../../common/tu.h"
#include "base/base.h"
#include "graph/fe_graph_int.h"
#include "ir/ir.h"

static hipdnnHandle_t handle;

static void setup(void) { TU_OK(hipdnnCreate(&handle)); }
static void teardown(void) { cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS); }

TestSuite(block_mask, .init = setup, .fini = teardown, .timeout = 300);

/* ---- brute force --------------------------------------------------------------------------- */

static bool elem(const ir_score_mod *m, int64_t b, int64_t h, int64_t i, int64_t j)
{
    return ir_score_mod_eval(m, NAN, (const int64_t[4]){b, h, i, j}) != 0;
}

/* Every element of tile (qt, kt) of (b, h): how many are kept, out of *n. */
static int64_t tile_kept(const ir_score_mod *m, const ir_block_map *map, int64_t b, int64_t h, int64_t qt,
                         int64_t kt, int64_t *n)
{
    int64_t kept = 0;
    *n = 0;
    for (int64_t i = qt * map->bm; i < (qt + 1) * map->bm && i < m->dims[2]; i++)
        for (int64_t j = kt * map->bn; j < (kt + 1) * map->bn && j < m->dims[3]; j++, (*n)++)
            kept += elem(m, b, h, i, j);
    return kept;
}

/* Soundness, the lists and the collapse; returns the number of PARTIAL tiles. */
static int64_t check_map(const ir_score_mod *m, const ir_block_map *map, const char *what)
{
    int64_t partial = 0, bad = 0;
    cr_expect_eq(map->n_qt, (m->dims[2] + map->bm - 1) / map->bm, "%s", what);
    cr_expect_eq(map->n_kt, (m->dims[3] + map->bn - 1) / map->bn, "%s", what);
    for (int64_t b = 0; b < m->dims[0]; b++)
        for (int64_t h = 0; h < m->dims[1]; h++)
            for (int64_t qt = 0; qt < map->n_qt; qt++)
                for (int64_t kt = 0; kt < map->n_kt; kt++) {
                    int64_t n, kept = tile_kept(m, map, b, h, qt, kt, &n);
                    ir_tile_class c = ir_block_class(map, b, h, qt, kt);
                    bool ok = c == IR_TILE_PARTIAL || (c == IR_TILE_EMPTY && kept == 0) ||
                              (c == IR_TILE_FULL && kept == n);
                    bad += !ok;
                    partial += c == IR_TILE_PARTIAL;
                    if (!ok)
                        cr_log_error("%s: tile b %lld h %lld q %lld k %lld is %d but keeps %lld of %lld", what,
                                     (long long)b, (long long)h, (long long)qt, (long long)kt, (int)c,
                                     (long long)kept, (long long)n);
                }
    cr_expect_eq(bad, 0, "%s: %lld tiles misclassified", what, (long long)bad);
    /* the lists: ascending, the right class, the right counts */
    for (int64_t r = 0; r < map->nb * map->nh * map->n_qt; r++) {
        int32_t np = map->kv_num_blocks[r], nf = map->full_kv_num_blocks[r];
        int64_t want_p = 0, want_f = 0;
        for (int64_t kt = 0; kt < map->n_kt; kt++)
            want_p += map->cls[r * map->n_kt + kt] == IR_TILE_PARTIAL, want_f += map->cls[r * map->n_kt + kt] == IR_TILE_FULL;
        cr_expect(np == want_p && nf == want_f, "%s: row %lld lists %d + %d tiles", what, (long long)r, np, nf);
        for (int32_t x = 0; x < np && x < map->n_kt; x++) {
            int32_t kt = map->kv_indices[r * map->n_kt + x];
            cr_expect(kt >= 0 && kt < map->n_kt && map->cls[r * map->n_kt + kt] == IR_TILE_PARTIAL &&
                      (x == 0 || kt > map->kv_indices[r * map->n_kt + x - 1]), "%s: kv_indices", what);
        }
        for (int32_t x = 0; x < nf && x < map->n_kt; x++) {
            int32_t kt = map->full_kv_indices[r * map->n_kt + x];
            cr_expect(kt >= 0 && kt < map->n_kt && map->cls[r * map->n_kt + kt] == IR_TILE_FULL &&
                      (x == 0 || kt > map->full_kv_indices[r * map->n_kt + x - 1]), "%s: full_kv_indices", what);
        }
    }
    /* a collapsed b or h: the mask is the same across it */
    int64_t diff_b = 0, diff_h = 0;
    for (int64_t b = 0; b < m->dims[0]; b++)
        for (int64_t h = 0; h < m->dims[1]; h++)
            for (int64_t i = 0; i < m->dims[2]; i++)
                for (int64_t j = 0; j < m->dims[3]; j++) {
                    diff_b += !map->per_batch && elem(m, b, h, i, j) != elem(m, 0, h, i, j);
                    diff_h += !map->per_head && elem(m, b, h, i, j) != elem(m, b, 0, i, j);
                }
    cr_expect(diff_b == 0 && diff_h == 0, "%s: collapsed but the mask varies (b %lld, h %lld)", what,
              (long long)diff_b, (long long)diff_h);
    cr_expect_eq(map->nb, map->per_batch ? m->dims[0] : 1);
    cr_expect_eq(map->nh, map->per_head ? m->dims[1] : 1);
    return partial;
}

/* ---- the masks of mask_mods.h through the library ---------------------------------------------- */

typedef struct built {
    mm_mask mm;
    hipdnnBackendDescriptor_t op, g;
    ir_buf *bufs;
    ir_score_mod chain;
} built;

/* An SDPA forward with mask `kind` over dims, lowered; the chain with the mask's host data. */
static void build(built *x, mm_kind kind, const int64_t d[4])
{
    const int64_t q[4] = {d[0], d[1], d[2], 8}, kv[4] = {d[0], d[1], d[3], 8};
    hipdnnBackendDescriptor_t t[4] = {tu_tensor(1, HIPDNN_DATA_FLOAT, 4, q, false, NULL, 0),
        tu_tensor(2, HIPDNN_DATA_FLOAT, 4, kv, false, NULL, 0), tu_tensor(3, HIPDNN_DATA_FLOAT, 4, kv, false, NULL, 0),
        tu_tensor(4, HIPDNN_DATA_FLOAT, 4, q, false, NULL, 0)};
    const hipdnnBackendAttributeName_t ids[4] = {HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC,
        HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC};
    mm_build(&x->mm, handle, kind, d, 100);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &x->op));
    for (int i = 0; i < 4; i++)
        TU_OK(hipdnnBackendSetAttribute(x->op, ids[i], HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t[i]));
    mm_set(x->op, false, &x->mm);
    TU_OK(hipdnnBackendFinalize(x->op));
    x->g = tu_graph_of(handle, x->op);
    for (int i = 0; i < 4; i++)
        tu_destroy(&t[i]);
    const ir_graph *ir = fe_graph_of(x->g->obj)->ir;
    cr_assert_not_null(ir);
    x->bufs = calloc((size_t)ir->n_t, sizeof *x->bufs);
    for (int i = 0; i < ir->n_t; i++) {
        const ir_tensor *it = &ir->t[i];
        x->bufs[i] = (ir_buf){.dtype = it->dtype, .rank = it->rank};
        memcpy(x->bufs[i].dims, it->dims, sizeof it->dims);
        memcpy(x->bufs[i].strides, it->strides, sizeof it->strides);
        for (int k = 0; k < x->mm.n_mem; k++)
            if (it->uid == x->mm.mem_uid[k])
                x->bufs[i].data = x->mm.mem[k];
    }
    int a = -1;
    for (int k = 0; k < ir->n_ops; k++)
        a = ir->ops[k].kind == IR_OP_SDPA_FWD ? k : a;
    TU_OK(ir_score_mod_build(ir, a, IR_MOD_MASK, x->bufs, &x->chain));
}

static void unbuild(built *x)
{
    free(x->bufs);
    tu_destroy(&x->g);
    tu_destroy(&x->op);
    mm_free(&x->mm);
}

static void random_dims(int64_t d[4])
{
    d[0] = tu_range(1, 3), d[1] = tu_range(1, 3), d[2] = tu_range(1, 37), d[3] = tu_range(1, 41);
}

/* The chain per element is the mask written out in C (the reference engine's mask). */
Test(block_mask, chains_equal_the_masks_written_out)
{
    tu_seed("block_mask::chains_equal_the_masks_written_out");
    for (int round = 0; round < 4; round++)
        for (int kind = 0; kind < MM_N_KINDS; kind++) {
            int64_t d[4], bad = 0;
            random_dims(d);
            built x;
            build(&x, (mm_kind)kind, d);
            for (int64_t b = 0; b < d[0]; b++)
                for (int64_t h = 0; h < d[1]; h++)
                    for (int64_t i = 0; i < d[2]; i++)
                        for (int64_t j = 0; j < d[3]; j++)
                            bad += elem(&x.chain, b, h, i, j) != mm_keep(&x.mm, b, h, i, j);
            cr_expect_eq(bad, 0, "%s: %lld elements differ from the mask written out", mm_kind_names[kind], (long long)bad);
            unbuild(&x);
        }
}

Test(block_mask, sound_on_every_mask_kind_and_odd_sizes)
{
    tu_seed("block_mask::sound_on_every_mask_kind_and_odd_sizes");
    int64_t tiles = 0, partial = 0, collapsed = 0;
    for (int round = 0; round < 12; round++)
        for (int kind = 0; kind < MM_N_KINDS; kind++) {
            int64_t d[4];
            random_dims(d);
            built x;
            build(&x, (mm_kind)kind, d);
            ir_block_map map;
            int64_t bm = tu_range(1, 9), bn = tu_range(1, 9);
            TU_OK(ir_block_classify(&x.chain, bm, bn, &map));
            char what[96];
            snprintf(what, sizeof what, "%s [%lld,%lld,%lld,%lld] tiles %lldx%lld", mm_kind_names[kind], (long long)d[0],
                     (long long)d[1], (long long)d[2], (long long)d[3], (long long)bm, (long long)bn);
            partial += check_map(&x.chain, &map, what);
            tiles += d[0] * d[1] * map.n_qt * map.n_kt;
            /* what each kind depends on */
            bool on_b = (kind <= MM_PREFIX_LM) && d[0] > 1, on_h = kind == MM_HEAD_WINDOW && d[1] > 1;
            cr_expect(map.per_batch == on_b && map.per_head == on_h, "%s: per batch %d, per head %d", what,
                      map.per_batch, map.per_head);
            collapsed += !map.per_batch && !map.per_head;
            ir_block_map_free(&map);
            unbuild(&x);
        }
    cr_log_info("%lld tiles, %lld partial; %lld maps shared by every (b, h)", (long long)tiles, (long long)partial,
                (long long)collapsed);
}

/* Documents: a tile inside one (query document, key document) pair is exact. */
Test(block_mask, exact_inside_one_document_pair)
{
    tu_seed("block_mask::exact_inside_one_document_pair");
    int64_t inside = 0;
    for (int round = 0; round < 24; round++) {
        mm_kind kind = round % 2 ? MM_DOCUMENT : MM_DOCUMENT_ONLY;
        int64_t d[4];
        random_dims(d);
        built x;
        build(&x, kind, d);
        ir_block_map map;
        TU_OK(ir_block_classify(&x.chain, tu_range(1, 6), tu_range(1, 6), &map));
        for (int64_t b = 0; b < d[0]; b++)
            for (int64_t qt = 0; qt < map.n_qt; qt++)
                for (int64_t kt = 0; kt < map.n_kt; kt++) {
                    int64_t i0 = qt * map.bm, i1 = fmin(i0 + map.bm, d[2]) - 1, j0 = kt * map.bn;
                    int64_t j1 = fmin(j0 + map.bn, d[3]) - 1;
                    const int32_t *dq = x.mm.mem[0] + b * d[2], *dk = x.mm.mem[1] + b * d[3];
                    if (dq[i0] != dq[i1] || dk[j0] != dk[j1]) /* ids are non-decreasing */
                        continue;
                    inside++;
                    int64_t n, kept = tile_kept(&x.chain, &map, b, 0, qt, kt, &n);
                    ir_tile_class want = kept == 0 ? IR_TILE_EMPTY : kept == n ? IR_TILE_FULL : IR_TILE_PARTIAL;
                    cr_expect_eq(ir_block_class(&map, b, 0, qt, kt), want, "%s: tile b %lld q %lld k %lld inside one "
                                 "document pair: class %d, exact %d", mm_kind_names[kind], (long long)b, (long long)qt,
                                 (long long)kt, (int)ir_block_class(&map, b, 0, qt, kt), (int)want);
                    if (kind == MM_DOCUMENT_ONLY)
                        cr_expect_neq(want, IR_TILE_PARTIAL);
                }
        ir_block_map_free(&map);
        unbuild(&x);
    }
    cr_log_info("%lld tiles inside one document pair", (long long)inside);
    cr_expect_gt(inside, 0);
}

/* ---- random chains built directly ----------------------------------------------------------------- */

static const int modes[] = {
    HIPDNN_POINTWISE_ADD, HIPDNN_POINTWISE_SUB, HIPDNN_POINTWISE_MUL, HIPDNN_POINTWISE_DIV, HIPDNN_POINTWISE_MIN,
    HIPDNN_POINTWISE_MAX, HIPDNN_POINTWISE_NEG, HIPDNN_POINTWISE_ABS, HIPDNN_POINTWISE_FLOOR, HIPDNN_POINTWISE_CEIL,
    HIPDNN_POINTWISE_IDENTITY, HIPDNN_POINTWISE_CMP_EQ, HIPDNN_POINTWISE_CMP_NEQ, HIPDNN_POINTWISE_CMP_GT,
    HIPDNN_POINTWISE_CMP_GE, HIPDNN_POINTWISE_CMP_LT, HIPDNN_POINTWISE_CMP_LE, HIPDNN_POINTWISE_LOGICAL_AND,
    HIPDNN_POINTWISE_LOGICAL_OR, HIPDNN_POINTWISE_LOGICAL_NOT, HIPDNN_POINTWISE_BINARY_SELECT, HIPDNN_POINTWISE_EXP,
    HIPDNN_POINTWISE_RECIPROCAL, HIPDNN_POINTWISE_ADD_SQUARE};

static double special(void)
{
    const double v[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, 1e30};
    return v[tu_range(0, 7)];
}

/* A random tensor [B|1,H|1,Sq|1,Skv|1] of small values (some special: NaN, ±inf) for a FLOAT one. */
static void random_load(ir_buf *b, double **data, const int64_t d[4])
{
    int64_t n = 1;
    bool is_float = tu_range(0, 1);
    *b = (ir_buf){.dtype = is_float ? HIPDNN_DATA_DOUBLE : HIPDNN_DATA_INT32, .rank = 4};
    for (int k = 3; k >= 0; k--) {
        b->dims[k] = tu_range(0, 2) ? d[k] : 1;
        b->strides[k] = n;
        n *= b->dims[k];
    }
    *data = calloc((size_t)n, sizeof(double));
    b->data = *data;
    for (int64_t i = 0; i < n; i++) {
        double v = (double)tu_range(-6, 6);
        if (is_float && tu_range(0, 30) == 0)
            v = special();
        if (is_float)
            (*data)[i] = v;
        else
            ((int32_t *)*data)[i] = (int32_t)v;
    }
}

Test(block_mask, random_chains_stay_sound)
{
    tu_seed("block_mask::random_chains_stay_sound");
    const hipdnnDataType_t types[4] = {HIPDNN_DATA_FLOAT, HIPDNN_DATA_INT32, HIPDNN_DATA_BOOLEAN, HIPDNN_DATA_INT8};
    int64_t partial = 0, tiles = 0;
    for (int round = 0; round < 300; round++) {
        ir_score_mod m = {.kind = IR_MOD_MASK};
        ir_buf loads[3];
        double *data[3];
        random_dims(m.dims);
        for (int l = 0; l < 3; l++)
            random_load(&loads[l], &data[l], m.dims);
        m.n = (int)tu_range(3, 10);
        for (int k = 0; k < m.n; k++) {
            ir_score_step *st = &m.step[k];
            *st = (ir_score_step){.dtype = types[tu_range(0, 3)], .src = {IR_SCORE_NONE, IR_SCORE_NONE, IR_SCORE_NONE}};
            if (k < 2 || tu_range(0, 5) == 0) {
                st->pw.mode = HIPDNN_POINTWISE_GEN_INDEX, st->pw.axis = tu_range(0, 3);
                st->index_zero = m.dims[st->pw.axis] > 1 && tu_range(0, 9) == 0;
                continue;
            }
            st->pw.mode = modes[tu_range(0, sizeof modes / sizeof modes[0] - 1)];
            for (int s = 0; s < ir_pointwise_arity(st->pw.mode); s++) {
                int pick = (int)tu_range(0, 5);
                st->src[s] = pick <= 2 ? (int)tu_range(0, k - 1) : pick == 3 ? IR_SCORE_CONST : IR_SCORE_LOAD;
                st->k[s] = tu_range(0, 8) == 0 ? special() : (double)tu_range(-8, 8) / (tu_range(0, 1) ? 1 : 2);
                st->load[s] = &loads[tu_range(0, 2)];
            }
        }
        m.step[m.n - 1].dtype = HIPDNN_DATA_BOOLEAN, m.result = m.n - 1;
        ir_block_map map;
        TU_OK(ir_block_classify(&m, tu_range(1, 7), tu_range(1, 7), &map));
        char what[64];
        snprintf(what, sizeof what, "random chain %d", round);
        partial += check_map(&m, &map, what);
        tiles += m.dims[0] * m.dims[1] * map.n_qt * map.n_kt;
        ir_block_map_free(&map);
        for (int l = 0; l < 3; l++)
            free(data[l]);
    }
    cr_log_info("%lld tiles, %lld partial", (long long)tiles, (long long)partial);
    cr_expect_lt(partial, tiles, "some tiles are decided");
}

Test(block_mask, refusals)
{
    ir_score_mod m = {.kind = IR_MOD_SCORE, .n = 1, .result = 0, .dims = {1, 1, 4, 4}};
    m.step[0] = (ir_score_step){.pw = {.mode = HIPDNN_POINTWISE_GEN_INDEX, .axis = 2}, .dtype = HIPDNN_DATA_INT32};
    ir_block_map map;
    cr_expect_eq(ir_block_classify(&m, 2, 2, &map), HIPDNN_STATUS_BAD_PARAM, "a score modifier's chain");
    m.kind = IR_MOD_MASK;
    cr_expect_eq(ir_block_classify(&m, 0, 2, &map), HIPDNN_STATUS_BAD_PARAM, "tiles of 0 rows");
    TU_OK(ir_block_classify(&m, 3, 1, &map));
    /* GEN_INDEX along i into INT32: row 0 is false, the others true */
    cr_expect_eq(ir_block_class(&map, 0, 0, 0, 0), IR_TILE_PARTIAL);
    cr_expect_eq(ir_block_class(&map, 0, 0, 1, 3), IR_TILE_FULL);
    cr_expect(!map.per_batch && !map.per_head);
    ir_block_map_free(&map);
}

/* Every allocation of ir_score_mod_build and ir_block_classify failed in turn. */
Test(block_mask, allocation_faults)
{
    tu_seed("block_mask::allocation_faults");
    int64_t d[4];
    random_dims(d);
    built x;
    build(&x, MM_DOCUMENT, d);
    const ir_graph *ir = fe_graph_of(x.g->obj)->ir;
    int a = -1, failed = 0;
    for (int k = 0; k < ir->n_ops; k++)
        a = ir->ops[k].kind == IR_OP_SDPA_FWD ? k : a;
    for (long nth = 1; nth < 1000; nth++) {
        ir_score_mod m;
        ir_block_map map;
        base_alloc_fail_at(nth, false);
        hipdnnStatus_t st = ir_score_mod_build(ir, a, IR_MOD_MASK, x.bufs, &m);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = ir_block_classify(&m, 3, 5, &map);
        base_alloc_fail_at(0, false);
        if (st == HIPDNN_STATUS_SUCCESS) {
            check_map(&x.chain, &map, "after the faults");
            ir_block_map_free(&map);
            break;
        }
        cr_expect_eq(st, HIPDNN_STATUS_ALLOC_FAILED, "allocation %ld: %d", nth, (int)st);
        failed++;
    }
    cr_expect_gt(failed, 2, "the build and the classification allocate");
    unbuild(&x);
}
