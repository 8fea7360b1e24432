/* test_emu_paged.c — the emitted paged KV-cache loads (kernel_templates/paged_load.hip,
 * codegen/cg_paged.c) run on the host emulator (emu_run.h) against the reference interpreter
 * (ir_ref_paged_cache_load); a copy, so every element must be exact:
 *   container [NBLK, H, PAGE, D] -> y [B, H, S, D] or the transposed K form [B, H, D, S] (S == D
 *   too, told apart by strides), pages that do not divide S, page tables longer than needed,
 *   random valid page tables (pages shared between sequences) whose unused entries name no
 *   block, seq_len in [0, S] (and a few outside, which the reference clamps) or absent, page
 *   tables and lengths of INT32 / INT64 / INT8 / UINT8, fp32 / fp16 / bf16 / fp8 elements,
 *   converted on the way when y's type differs;
 *   paths: 16-byte items (HD_VEC 4, 8, 16) and one element per item (transposed, converting,
 *   misaligned rows, the vector-width knob at 1), grids capped below the item count.
 * A self-check alters the emitted source (a page's last row read from the next page, an offset
 * within the page off by one, the last item skipped, a length off by one) and expects the
 * comparison to fail. The GPU runs the same kernels in tests/gpu/test_gpu_quant.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../common/tu.h"
#include "emu_run.h"

TestSuite(emu_paged);

/* One load; y's dims are [B, H, S, D], or [B, H, D, S] with `transposed`. */
typedef struct paged_spec {
    hipdnnDataType_t cont, y, table, seq; /* seq: -1 when there is no seq_len */
    bool transposed;
    int64_t b, h, s, d, page, nblk, extra_pages;
    int64_t cont_pad, y_pad;              /* elements after each innermost row */
    int max_vec, vec;                     /* the knob; the HD_VEC the emitter must choose */
} paged_spec;

#define NO_SEQ ((hipdnnDataType_t)-1)

/* Gives the page table and seq_len valid values (the random fill made them garbage). `wild`:
 * per sequence a length in [0, S], one time in ten outside it (the reference clamps), its pages
 * random blocks (shared between sequences, repeated within one). Tame (the self-check's):
 * sequence 0 full, the others in [1, S], each one's pages distinct, so that each alteration
 * changes some element. The entries past a sequence's pages name no block (NBLK and up): the
 * kernel must not read them. */
static void fill_lengths(const emu_case *c, emu_bufs *b, bool wild)
{
    const ir_op *op = &c->g.ops[0];
    const ir_tensor *cont = &c->g.t[op->in[0]], *table = &c->g.t[op->in[2]], *y = &c->g.t[op->out[0]];
    int64_t nblk = cont->dims[0], page = cont->dims[2], pages = table->dims[2], ids[64];
    int64_t s = y->dims[3] == cont->dims[3] && !(y->strides[2] == 1 && y->strides[3] != 1) ? y->dims[2] : y->dims[3];
    ir_buf tb = emu_view(table, b->ref[op->in[2]]);
    ir_buf sb = op->in[1] >= 0 ? emu_view(&c->g.t[op->in[1]], b->ref[op->in[1]]) : (ir_buf){0};
    bool sign = op->in[1] >= 0 && c->g.t[op->in[1]].dtype != HIPDNN_DATA_UINT8;
    cr_assert_leq(nblk, 64);
    for (int64_t bi = 0; bi < y->dims[0]; bi++) {
        int64_t len = !wild ? (bi == 0 ? s : tu_range(1, s))
                      : tu_range(0, 9) == 0 ? (tu_range(0, 1) && sign ? -tu_range(1, 3) : s + tu_range(1, 3))
                                            : tu_range(0, s);
        if (op->in[1] < 0)
            len = s;
        else
            ir_store(&sb, (int64_t[4]){bi, 0, 0, 0}, (double)len);
        for (int64_t i = 0; i < nblk; i++)
            ids[i] = i;
        for (int64_t p = 0; p < pages; p++) {
            int64_t id = nblk + tu_range(0, 3);
            if (p * page < len && wild) {
                id = tu_range(0, nblk - 1);
            } else if (p * page < len) { /* a partial shuffle: ids[0 .. p] distinct */
                cr_assert_lt(p, nblk);
                int64_t j = tu_range(p, nblk - 1), t = ids[j];
                ids[j] = ids[p], ids[p] = t, id = t;
            }
            ir_store(&tb, (int64_t[4]){bi, 0, p, 0}, (double)id);
        }
    }
}

static void fill_table(const emu_case *c, emu_bufs *b) { fill_lengths(c, b, true); }
static void fill_table_tame(const emu_case *c, emu_bufs *b) { fill_lengths(c, b, false); }

static void paged_case(emu_case *c, const paged_spec *p)
{
    int64_t cd[4] = {p->nblk, p->h, p->page, p->d}, cs[4], ys[4];
    int64_t pages = (p->s + p->page - 1) / p->page + p->extra_pages;
    int64_t td[4] = {p->b, 1, pages, 1}, sd[4] = {p->b, 1, 1, 1};
    int64_t yd[4] = {p->b, p->h, p->transposed ? p->d : p->s, p->transposed ? p->s : p->d};
    static const int bhds_as_bhsd[4] = {0, 1, 3, 2}; /* transposed with S == D: dims [B,H,D,S], S fastest */
    emu_strides(4, cd, NULL, p->cont_pad, cs);
    emu_strides(4, yd, p->transposed && p->s == p->d ? bhds_as_bhsd : NULL, p->y_pad, ys);
    int ct = emu_tensor(c, p->cont, 4, cd, cs, false);
    int st = p->seq != NO_SEQ ? emu_tensor(c, p->seq, 4, sd, NULL, false) : -1;
    int tt = emu_tensor(c, p->table, 4, td, NULL, false), yt = emu_tensor(c, p->y, 4, yd, ys, false);
    ir_op op = {.kind = IR_OP_PAGED_CACHE_LOAD, .n_in = 3, .n_out = 1, .in = {ct, st, tt}, .out = {yt}};
    cr_assert_geq(ir_add_op(&c->g, &op), 0);
    c->fill = fill_table;
    snprintf(c->what, sizeof c->what, "paged load dtype %d -> %d, table %d, seq %d: [%lld,%lld,%lld,%lld] "
             "pad %lld -> B %lld S %lld%s pad %lld, %lld pages, vec<=%d sm %d", (int)p->cont, (int)p->y,
             (int)p->table, (int)p->seq, (long long)p->nblk, (long long)p->h, (long long)p->page, (long long)p->d,
             (long long)p->cont_pad, (long long)p->b, (long long)p->s, p->transposed ? " transposed" : "",
             (long long)p->y_pad, (long long)pages, c->target.max_vec, c->target.sm_count);
    emu_seal(c);
}

#define F32 HIPDNN_DATA_FLOAT
#define F16 HIPDNN_DATA_HALF
#define BF16 HIPDNN_DATA_BFLOAT16
#define FP8 HIPDNN_DATA_FP8_E4M3
#define I32 HIPDNN_DATA_INT32
#define I64 HIPDNN_DATA_INT64
#define I8 HIPDNN_DATA_INT8
#define U8 HIPDNN_DATA_UINT8

/*  cont  y    table seq     transp  b  h  s   d   page nblk extra cpad ypad vec<= vec */
static const paged_spec specs[] = {
    {F16, F16, I32, I32, false, 3, 4, 50, 64, 16, 12, 0, 0, 0, 0, 8},
    {BF16, BF16, I64, NO_SEQ, false, 2, 3, 61, 32, 8, 20, 1, 8, 8, 0, 8},   /* padded rows of 8 */
    {F32, F32, I32, I64, true, 2, 2, 37, 32, 5, 30, 2, 0, 0, 0, 1},         /* the K form */
    {F32, F32, U8, U8, false, 3, 2, 45, 16, 7, 40, 0, 0, 0, 0, 4},
    {F32, BF16, I8, I32, false, 2, 3, 29, 24, 6, 15, 1, 0, 0, 0, 1},        /* converting */
    {F16, F16, I32, I32, false, 2, 2, 40, 64, 16, 8, 0, 0, 0, 1, 1},        /* the knob */
    {F16, F16, I32, I32, false, 2, 2, 33, 40, 4, 30, 0, 3, 0, 0, 1},        /* rows of 43: misaligned */
    {FP8, FP8, I32, I32, false, 2, 2, 70, 32, 16, 12, 0, 0, 0, 0, 16},
    {FP8, F16, I32, NO_SEQ, true, 1, 3, 20, 16, 3, 10, 0, 0, 0, 0, 1},
    /* S == D: [B, H, D, S] with D's stride 1 is the K form (D still contiguous), else [B, H, S, D] */
    {BF16, BF16, I32, I32, true, 2, 2, 16, 16, 5, 9, 0, 0, 0, 0, 8},
    {F16, F16, I32, I32, false, 2, 2, 16, 16, 5, 9, 0, 0, 8, 0, 8},
};

Test(emu_paged, forms_types_and_paths)
{
    emu_seed("emu_paged forms_types_and_paths");
    for (int i = 0; i < (int)(sizeof specs / sizeof specs[0]); i++) {
        emu_case c = {.target = emu_target(tu_range(0, 1) ? 1 : 132)};
        c.target.max_vec = specs[i].max_vec;
        ir_graph_init(&c.g);
        paged_case(&c, &specs[i]);
        char what[sizeof c.what];
        memcpy(what, c.what, sizeof what);
        cg_kernel kn;
        emu_check(&c, &kn);
        cr_expect_str_eq(kn.entry, "hd_paged_load_kernel", "%s", what);
        cr_expect_eq(emu_define(kn.source, "HD_VEC", -1), specs[i].vec, "%s: HD_VEC", what);
        cg_kernel_free(&kn);
    }
}

/* Wrong sources are caught, on the 16-byte path and on the element path. */
Test(emu_paged, wrong_sources_are_caught)
{
    emu_seed("emu_paged wrong_sources_are_caught");
    const char *const wrong[][2] = {
        {"hd_page(b, s / HD_PAGE,", "hd_page(b, (s + 1) / HD_PAGE,"},     /* a page's last row from the next */
        {"(s % HD_PAGE)", "((s + 1) % HD_PAGE)"},                         /* an offset in the page off by one */
        {"i < items; i += stride", "i + 1 < items; i += stride"},         /* the last item skipped */
        {"s < hd_seq_len(b, HD_ARGS)", "s + 1 < hd_seq_len(b, HD_ARGS)"}, /* each sequence one short */
    };
    const int which[2] = {0, 4};
    for (int i = 0; i < 2; i++) {
        emu_case c = {.target = emu_target(1)};
        ir_graph_init(&c.g);
        paged_case(&c, &specs[which[i]]);
        c.fill = fill_table_tame;
        emu_expect_caught(&c, wrong, 4);
    }
}
