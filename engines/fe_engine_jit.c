/* fe_engine_jit.c — the two JIT engines. jit_fused runs the graph's fusion partition
 * (ir_fuse: anchors with their fused pointwise prologue and epilogue, pointwise regions);
 * jit_unfused runs one kernel per op (ir_split), so a graph runs on the GPU even when a fused
 * kernel of it has no template, as long as each op alone has one. Otherwise they are the same
 * engine: one kernel per part emitted from the templates (codegen/), compiled at plan finalize
 * with the run-time compiler and loaded (runtime/); execute only binds pointers and launches,
 * in order, on the handle's stream.
 *
 * Workspace: virtual tensors that cross kernels live in it, each 256-byte aligned, then one
 * scratch region the multi-pass kernels (channel reductions) share, as large as the largest
 * kernel's cg_scratch_bytes (kernels run one after another on the handle's stream). The size
 * reported is exactly that (jit_unfused: a slot for every virtual tensor an op reads).
 * Knobs (both engines): jit.vector_width (1 or 8, default 8): the widest vector access codegen
 * may use (1 also keeps convolutions off the 16-byte tensor-core path);
 * jit.loads_per_thread (1, 2, 4, 8; default 4): row kernels' vector loads in flight per thread;
 * jit.row_prefetch (0 or 1, default 0): row kernels load the next row while reducing this one;
 * jit.shifted_stats (0 or 1, default 0): layernorm's statistics as pivot-shifted sums in warps;
 * jit.matmul_wgmma (0 or 1, default 1): matmuls on sm_90 use the wgmma + TMA template where it
 * fits (0: the mma.sync one); jit.matmul_tile_n (128 or 256, default 256) and
 * jit.matmul_stages (2 .. 6, default 4; fewer when the shared memory cannot hold them): the
 * wgmma template's tile columns and pipeline depth; jit.sdpa_block_m (0, 64, 128),
 * jit.sdpa_block_n (0, 32, 64, 128), jit.sdpa_warps (0, 4, 8), jit.sdpa_stages (0, 2, 3, 4):
 * attention tiles, warps and K/V stages (0: chosen by head dim); jit.sdpa_wgmma (default 1) and
 * jit.sdpa_ws (0 .. 4; default 0 = by shape): attention's wgmma main loop on sm_90 and its
 * loaders (a cp.async warpgroup, a TMA producer warp or warpgroup, or the computing warps); jit.sdpa_pingpong
 * (0, 1, 2): whether its two computing warpgroups take turns; jit.sdpa_intra (0, 1, 2): whether
 * each runs a tile's softmax under the previous tile's P·V (FlashAttention-3's order);
 * jit.sdpa_persist (0 .. 4): a persistent grid behind the TMA producer (3: Q in one buffer, 4: and
 * a dynamic scheduler); jit.sdpa_sw_exp (0, 1, 2):
 * half the softmax's exponentials on the FMA pipes; jit.sdpa_o_tma (0, 1, 2): O stored through
 * shared memory by TMA; jit.sdpa_l2_ahead (0, 1, 2): the next wave's first tiles prefetched into L2;
 * jit.sdpa_pack (0, 1, 2) and jit.sdpa_splits (0, 1 .. 128): the forward's decode path (GQA
 * heads packed into a block's rows, keys split across blocks and merged by a combine launch;
 * 0: chosen by shape); jit.sdpa_trace (0, 1): a developer's phase trace printed by the forward's
 * TMA-producer kernels; jit.sdpa_ksplit (0, 1, 4): decode blocks whose warps split each K/V
 * tile's keys; jit.sdpa_mod_fold (0, 1, 2): a score modifier's constant factors folded into the
 * scale and the exponent; jit.sdpa_page_tile (0, 1, 2): paged K/V copies with one page-table
 * entry a tile; jit.sdpa_kv_ahead (0 .. 4): the tiles those entries load ahead of the copies;
 * jit.sdpa_page_smem (0, 1, 2): those entries copied to shared memory at the block's start.
 * Tensor-map parameters (the wgmma matmul's A and B) are encoded at each launch, when the
 * tensors' addresses are known.
 * A graph is supported when a GPU is present and every kernel of its partition has a template.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engines/fe_jit.h"

#define WS_ALIGN 256

enum { KNOB_VECTOR_WIDTH, KNOB_LOADS_PER_THREAD, KNOB_ROW_PREFETCH, KNOB_SHIFTED_STATS, KNOB_MM_WGMMA,
       KNOB_MM_TILE_N, KNOB_MM_STAGES, KNOB_SDPA_BLOCK_M, KNOB_SDPA_BLOCK_N, KNOB_SDPA_WARPS,
       KNOB_SDPA_STAGES, KNOB_SDPA_WGMMA, KNOB_SDPA_WS, KNOB_SDPA_BWD_ATOMIC, KNOB_SDPA_PACK, KNOB_SDPA_SPLITS, KNOB_SDPA_PINGPONG, KNOB_SDPA_INTRA,
       KNOB_SDPA_PERSIST, KNOB_SDPA_SW_EXP, KNOB_SDPA_O_TMA, KNOB_SDPA_L2_AHEAD, KNOB_SDPA_TRACE, KNOB_SDPA_KSPLIT,
       KNOB_SDPA_MOD_FOLD, KNOB_SDPA_PAGE_TILE, KNOB_SDPA_KV_AHEAD, KNOB_SDPA_PAGE_SMEM };
static const int64_t vector_widths[] = {1, 8};
static const int64_t loads_per_thread[] = {1, 2, 4, 8};
static const int64_t mm_wgmma[] = {0, 1};
static const int64_t mm_tile_n[] = {128, 256};
static const int64_t mm_stages[] = {2, 3, 4, 5, 6};
static const int64_t sdpa_block_m[] = {0, 64, 128};
static const int64_t sdpa_block_n[] = {0, 32, 64, 128};
static const int64_t sdpa_warps[] = {0, 4, 8};
static const int64_t sdpa_stages[] = {0, 2, 3, 4};
/* The attention knobs' three states: 0 = by shape, 1 = never, 2 = always (where it fits). */
static const int64_t tri_state[] = {0, 1, 2};
#define TRI_STATE .min = 0, .max = 2, .stride = 1, .dflt = 0, .valid = tri_state, .n_valid = 3
static const int64_t sdpa_ws[] = {0, 1, 2, 3, 4};
static const int64_t sdpa_splits[] = {0, 1, 2, 4, 8, 16, 32, 64, 128};
static const int64_t sdpa_persist[] = {0, 1, 2, 3, 4};
static const int64_t sdpa_wgmma[] = {0, 1};
static const int64_t sdpa_trace[] = {0, 1};
static const int64_t sdpa_ksplit[] = {0, 1, 4};
static const fe_knob_def jit_knobs[] = {
    {.id = "jit.vector_width", .description = "widest vector access in elements (1 or 8)",
     .min = 1, .max = 8, .stride = 1, .dflt = 8, .valid = vector_widths, .n_valid = 2},
    {.id = "jit.loads_per_thread", .description = "row kernels: vector loads each thread keeps in "
     "flight (fewer threads per row, more rows per multiprocessor)",
     .min = 1, .max = 8, .stride = 1, .dflt = 4, .valid = loads_per_thread, .n_valid = 4},
    {.id = "jit.row_prefetch", .description = "row kernels: 1 = each block loads its next row while "
     "it reduces the current one (software pipelining), 0 = one row at a time",
     .min = 0, .max = 1, .stride = 1, .dflt = 0},
    {.id = "jit.shifted_stats", .description = "layernorm statistics: 1 = sums around a per-warp "
     "pivot within each warp, merged across warps; 0 = each thread's exact mean and M2, merged "
     "pairwise throughout", .min = 0, .max = 1, .stride = 1, .dflt = 0},
    {.id = "jit.matmul_wgmma", .description = "matmul on sm_90: 1 uses the wgmma + TMA template "
     "where it fits, 0 the mma.sync one",
     .min = 0, .max = 1, .stride = 1, .dflt = 1, .valid = mm_wgmma, .n_valid = 2},
    {.id = "jit.matmul_tile_n", .description = "wgmma matmul: output tile columns (tile 128 x N)",
     .min = 128, .max = 256, .stride = 128, .dflt = 256, .valid = mm_tile_n, .n_valid = 2},
    {.id = "jit.matmul_stages", .description = "wgmma matmul: shared-memory pipeline stages (fewer "
     "when the tile's stages do not fit)",
     .min = 2, .max = 6, .stride = 1, .dflt = 4, .valid = mm_stages, .n_valid = 5},
    {.id = "jit.sdpa_block_m", .description = "attention: query rows per block (0 = by head dim)",
     .min = 0, .max = 128, .stride = 1, .dflt = 0, .valid = sdpa_block_m, .n_valid = 3},
    {.id = "jit.sdpa_block_n", .description = "attention: keys per K/V tile (0 = by head dim)",
     .min = 0, .max = 128, .stride = 1, .dflt = 0, .valid = sdpa_block_n, .n_valid = 4},
    {.id = "jit.sdpa_warps", .description = "attention: warps per block (0 = 4)",
     .min = 0, .max = 8, .stride = 1, .dflt = 0, .valid = sdpa_warps, .n_valid = 3},
    {.id = "jit.sdpa_stages", .description = "attention: K/V shared-memory stages (0 = 2; fewer "
     "when they do not fit)", .min = 0, .max = 4, .stride = 1, .dflt = 0, .valid = sdpa_stages, .n_valid = 4},
    {.id = "jit.sdpa_wgmma", .description = "attention (forward and backward) on sm_90: 1 runs the products on wgmma where "
     "the head dims fit (64 or 128), 0 on mma.sync", .min = 0, .max = 1, .stride = 1, .dflt = 1,
     .valid = sdpa_wgmma, .n_valid = 2},
    {.id = "jit.sdpa_ws", .description = "attention forward on sm_90 with wgmma, who loads K/V: 1 a warpgroup "
     "that only loads with cp.async, 2 a warp whose one thread copies whole tiles with TMA (both: mbarriers, no "
     "block-wide barrier per tile), 3 every computing warp, 4 the TMA producer as a warpgroup that gives its "
     "registers to the computing ones (setmaxnreg; 128-row tiles); 0 = by shape (TMA: a warpgroup for 128-row "
     "prefill tiles, with jit.sdpa_pingpong and jit.sdpa_intra on by shape, else a warp; the computing warps "
     "for dense K/V on the decode path); attention backward on sm_90 with wgmma: 1 gives the dK/dV pass a "
     "warpgroup that only loads its Q / dO tiles (mbarriers, setmaxnreg), 2 also has each computing warpgroup "
     "add its own keys' share of dQ, otherwise the computing warps load",
     .min = 0, .max = 4, .stride = 1, .dflt = 0, .valid = sdpa_ws, .n_valid = 5},
    {.id = "jit.sdpa_bwd_atomic", .description = "attention backward's dQ: 2 accumulates it in fp32 inside "
     "the dK/dV pass (on sm_90 at head dims 64 / 128 multiplied by wgmma and added a tile at a time by the "
     "copy engine, else fp32 atomics; not bitwise reproducible), 1 never (a dQ pass of its own: bitwise "
     "reproducible), 0 = by shape (the copy engine's dQ where it applies, else the dQ pass)", TRI_STATE},
    {.id = "jit.sdpa_pack", .description = "attention forward: 2 packs the query heads that share a K/V head "
     "into one block's rows (GQA decode), 1 never, 0 = by shape (Sq <= 64)",
     TRI_STATE},
    {.id = "jit.sdpa_splits", .description = "attention forward: blocks that split each row's keys (flash-decoding, "
     "then a combine launch); 0 = by shape (Sq <= 64 and too few blocks), 1 = no split; at most twice the "
     "shape's choice (the workspace is sized from the shapes)",
     .min = 0, .max = 128, .stride = 1, .dflt = 0, .valid = sdpa_splits, .n_valid = 9},
    {.id = "jit.sdpa_pingpong", .description = "attention forward on sm_90 with loaders (jit.sdpa_ws 1 or 2) and two "
     "computing warpgroups: 2 = they take turns issuing Q·Kᵀ (one's softmax under the other's products), 1 = never, "
     "0 = by shape", TRI_STATE},
    {.id = "jit.sdpa_intra", .description = "attention forward on sm_90 with loaders (jit.sdpa_ws 1 or 2): 2 = each "
     "computing warpgroup issues Q·Kᵀ of tile t with P·V of tile t - 1 and runs tile t's softmax under P·V "
     "(FlashAttention-3's order; with jit.sdpa_pingpong 2 the warpgroups take turns issuing the pair), "
     "1 = never, 0 = by shape",
     TRI_STATE},
    {.id = "jit.sdpa_persist", .description = "attention forward with the TMA producer (jit.sdpa_ws 2 or 4), one query "
     "head a row tile, no key split: 2 = a persistent grid (the blocks a device holds at once walk the work tiles in "
     "static rounds: without a causal mask the row tiles in launch order; under one each round's item a head's "
     "longest and shortest row tile, within groups of heads whose K/V share L2; Q in two buffers where shared "
     "memory holds them with two K/V stages, so the next tile's Q lands under this one's loop), 3 = the same with Q "
     "in one buffer (given back after the tile's last Q·Kᵀ, O staged in that tile's K slot), 4 = as 3 with the "
     "work tiles taken from a counter in global memory (a dynamic scheduler; the plan keeps one counter a stream), "
     "1 = one block a work tile, 0 = by shape (3 at head dim 128 with FlashAttention-3's schedule; under a causal "
     "mask up to 8k keys 4 at head dims 64, 128 and 192, 3 at 256)",
     .min = 0, .max = 4, .stride = 1, .dflt = 0, .valid = sdpa_persist, .n_valid = 5},
    {.id = "jit.sdpa_sw_exp", .description = "attention forward: 2 = half the softmax's exponentials by a polynomial "
     "on the FMA pipes (relative error < 7.5e-5), the others on the special-function unit, for score modifiers "
     "that keep that unit busy (tanh); 1 or 0 = all on the special-function unit (by shape: the polynomial measured "
     "slower, bench/NOTES.md)",
     TRI_STATE},
    {.id = "jit.sdpa_o_tma", .description = "attention forward with the TMA producer (jit.sdpa_ws 2 or 4), one query "
     "head a row tile, no key split, O of Q's type: 2 = each computing warpgroup writes its rows of O over its rows "
     "of Q's shared-memory buffer and one thread copies them out by TMA, 1 = every thread stores its O values, "
     "0 = by shape", TRI_STATE},
    {.id = "jit.sdpa_l2_ahead", .description = "attention forward with the TMA producer, one block a work tile, one "
     "query head a row tile, no key split: 2 = the producer prefetches into L2 the Q tile and first K/V tile of the "
     "block one wave of multiprocessors ahead in launch order, so that block's start waits on L2; 1 = never, "
     "0 = by shape", TRI_STATE},
    {.id = "jit.sdpa_trace", .description = "attention forward with the TMA producer, a developer's aid: 1 = the "
     "blocks on multiprocessors 0 and 1 print each work tile's phase times (device printf, read by "
     "bench/attn_trace.py); 0 = off", .min = 0, .max = 1, .stride = 1, .dflt = 0, .valid = sdpa_trace, .n_valid = 2},
    {.id = "jit.sdpa_ksplit", .description = "attention forward, decode blocks of at most 16 packed query rows: 4 = "
     "the block's four warps share its 16-row tile and split each K/V tile's keys (mma.sync; the warps' results "
     "merged through shared memory at the end), 1 = never, 0 = by shape (4 wherever 16 packed rows hold the "
     "block at head dims up to 128, dense or paged K/V, unless another knob asks for another block)",
     .min = 0, .max = 4, .stride = 1, .dflt = 0, .valid = sdpa_ksplit, .n_valid = 3},
    {.id = "jit.sdpa_mod_fold", .description = "attention forward with a score modifier: 2 = the constant factors "
     "at the ends of its chain folded (a first multiply or divide of the score by a constant joins the attention "
     "scale, a last multiply by a positive constant joins log2 e in the exponent, which then folds into the "
     "softmax's FMA when nothing is added to the scores: softcap takes one multiply a score where it took four), "
     "1 = the chain as written, 0 = by shape (folded: softcap 0.79x -> 0.83x of the plain kernel, bench/NOTES.md)",
     TRI_STATE},
    {.id = "jit.sdpa_page_tile", .description = "attention forward with paged K/V copied by threads (not the TMA "
     "producer), where pages hold whole K/V tiles: 2 = one page-table entry a tile and operand (every row's "
     "offset from it), 1 = an entry for every row a thread copies, 0 = by shape (a tile wherever pages hold "
     "whole tiles: paged decode +0-2%, bench/NOTES.md)", TRI_STATE},
    {.id = "jit.sdpa_kv_ahead", .description = "attention forward, paged K/V on the decode blocks whose warps "
     "split the keys, one page-table entry a tile (jit.sdpa_page_tile): the tiles, 1 to 4, by which a tile's "
     "entries load before its copies, 0 = by shape (1)", .min = 0, .max = 4, .stride = 1, .dflt = 0},
    {.id = "jit.sdpa_page_smem", .description = "attention forward, paged K/V with one page-table entry a tile "
     "(jit.sdpa_page_tile) on the sequential loop: 2 = the block's entries copied to shared memory at its start "
     "(at most 512 tiles a block), so no copy waits on a table load queued behind the K/V stream, 1 = loaded from "
     "the table as the tiles go, 0 = by shape (shared memory wherever it fits, bench/NOTES.md decode #17)",
     TRI_STATE},
};
static const int jit_notes[] = {HIPDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION};

/* How an engine splits a graph into kernels: ir_fuse or ir_split. */
typedef hipdnnStatus_t (*partition_fn)(const ir_graph *, ir_partition *);

/* ---- support and workspace ------------------------------------------------------------------------- */

static void defaults(int64_t *knobs);

/* The code-generation target: this process's device (or the compile target) with these knobs. */
static hipdnnStatus_t device_target(const int64_t *knobs, fe_target *ft, cg_target *t)
{
    hipdnnStatus_t st = fe_target_current(ft);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    *t = (cg_target){.platform = ft->platform, .sm_count = ft->sm_count, .max_vec = (int)knobs[KNOB_VECTOR_WIDTH],
                     .loads_per_thread = (int)knobs[KNOB_LOADS_PER_THREAD],
                     .row_prefetch = (int)knobs[KNOB_ROW_PREFETCH],
                     .shifted_stats = (int)knobs[KNOB_SHIFTED_STATS],
                     .mm_wgmma = knobs[KNOB_MM_WGMMA] ? 1 : -1, .mm_tile_n = (int)knobs[KNOB_MM_TILE_N],
                     .mm_stages = (int)knobs[KNOB_MM_STAGES],
                     .sdpa_block_m = (int)knobs[KNOB_SDPA_BLOCK_M], .sdpa_block_n = (int)knobs[KNOB_SDPA_BLOCK_N],
                     .sdpa_warps = (int)knobs[KNOB_SDPA_WARPS], .sdpa_stages = (int)knobs[KNOB_SDPA_STAGES],
                     .sdpa_wgmma = knobs[KNOB_SDPA_WGMMA] ? 1 : -1, .sdpa_ws = (int)knobs[KNOB_SDPA_WS],
                     .sdpa_bwd_atomic = (int)knobs[KNOB_SDPA_BWD_ATOMIC],
                     .sdpa_pack = (int)knobs[KNOB_SDPA_PACK], .sdpa_splits = (int)knobs[KNOB_SDPA_SPLITS],
                     .sdpa_pingpong = (int)knobs[KNOB_SDPA_PINGPONG], .sdpa_intra = (int)knobs[KNOB_SDPA_INTRA],
                     .sdpa_persist = (int)knobs[KNOB_SDPA_PERSIST],
                     .sdpa_sw_exp = (int)knobs[KNOB_SDPA_SW_EXP], .sdpa_o_tma = (int)knobs[KNOB_SDPA_O_TMA],
                     .sdpa_l2_ahead = (int)knobs[KNOB_SDPA_L2_AHEAD], .sdpa_trace = (int)knobs[KNOB_SDPA_TRACE],
                     .sdpa_ksplit = (int)knobs[KNOB_SDPA_KSPLIT], .sdpa_mod_fold = (int)knobs[KNOB_SDPA_MOD_FOLD],
                     .sdpa_page_tile = (int)knobs[KNOB_SDPA_PAGE_TILE],
                     .sdpa_kv_ahead = (int)knobs[KNOB_SDPA_KV_AHEAD],
                     .sdpa_page_smem = (int)knobs[KNOB_SDPA_PAGE_SMEM]};
    snprintf(t->arch, sizeof t->arch, "%s", ft->arch);
    return HIPDNN_STATUS_SUCCESS;
}

/* The engines' device (fe_engine.device): this process's GPU or the compile target. No GPU, or a
 * HIPDNN_PLATFORM naming none, is NOT_SUPPORTED (the engines are left out); a GPU whose runtime
 * fails (binding its context) is that failure. */
static hipdnnStatus_t jit_device(void)
{
    fe_target ft;
    hipdnnStatus_t st = fe_target_current(&ft);
    return st == HIPDNN_STATUS_BAD_PARAM ? HIPDNN_STATUS_NOT_SUPPORTED : st;
}

/* Supported when every kernel of the partition has a template for this device (default knobs). */
static bool supports_with(partition_fn split, const fe_graph_state *g, char *why, size_t n)
{
    if (g->ir == NULL) {
        snprintf(why, n, "%s", g->lower_msg);
        return false;
    }
    int64_t knobs[FE_MAX_KNOBS];
    fe_target ft;
    cg_target t;
    defaults(knobs);
    if (device_target(knobs, &ft, &t) != HIPDNN_STATUS_SUCCESS) {
        snprintf(why, n, "no GPU (and no compile target set with hipdnnSetCompileTarget_ext): the JIT "
                 "engine compiles and launches GPU kernels");
        return false;
    }
    ir_partition p;
    if (split(g->ir, &p) != HIPDNN_STATUS_SUCCESS) {
        snprintf(why, n, "partitioning the graph into kernels failed");
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < p.n; i++) {
        char kw[224] = "";
        ok = fe_jit_is_custom(g->ir, &p.k[i]) ? fe_jit_custom_supports(g->ir, &p.k[i], kw, sizeof kw)
                                               : cg_supports_on(g->ir, &p.k[i], &t, kw, sizeof kw);
        if (!ok)
            snprintf(why, n, "kernel %d of %d (%s): %s", i, p.n, p.k[i].anchor >= 0 ?
                     ir_op_info_of(g->ir->ops[p.k[i].anchor].kind)->name : "pointwise region", kw);
    }
    ir_partition_free(&p);
    return ok;
}

/* Workspace offsets of the virtual tensors the partition writes to memory; returns the size
 * (where the scratch region starts). */
static int64_t layout(const ir_graph *ir, const ir_partition *p, int64_t *offset)
{
    int64_t ws = 0;
    for (int i = 0; offset != NULL && i < ir->n_t; i++)
        offset[i] = -1;
    for (int k = 0; k < p->n; k++)
        for (int w = 0; w < p->k[k].n_writes; w++) {
            const ir_tensor *t = &ir->t[p->k[k].writes[w]];
            if (!t->is_virtual)
                continue;
            if (offset != NULL)
                offset[p->k[k].writes[w]] = ws;
            ws += (fe_ir_tensor_bytes(t) + WS_ALIGN - 1) / WS_ALIGN * WS_ALIGN;
        }
    return ws;
}

/* The largest scratch region a kernel of the partition needs. */
static int64_t scratch_size(const ir_graph *ir, const ir_partition *p)
{
    int64_t most = 0;
    for (int k = 0; k < p->n; k++) {
        int64_t s = cg_scratch_bytes(ir, &p->k[k]);
        most = s > most ? s : most;
    }
    return most;
}

static int64_t workspace_with(partition_fn split, const fe_graph_state *g)
{
    ir_partition p;
    if (split(g->ir, &p) != HIPDNN_STATUS_SUCCESS)
        return 0;
    int64_t ws = layout(g->ir, &p, NULL) + scratch_size(g->ir, &p);
    ir_partition_free(&p);
    return ws;
}

/* ---- heuristic ------------------------------------------------------------------------------------ */

static bool has_row_kernel(const ir_graph *ir)
{
    for (int i = 0; i < ir->n_ops; i++)
        if (ir->ops[i].kind == IR_OP_LAYERNORM || ir->ops[i].kind == IR_OP_RMSNORM)
            return true;
    return false;
}

static bool has_op(const ir_graph *ir, ir_op_kind kind)
{
    for (int i = 0; i < ir->n_ops; i++)
        if (ir->ops[i].kind == kind)
            return true;
    return false;
}

static void defaults(int64_t *knobs)
{
    for (size_t i = 0; i < sizeof jit_knobs / sizeof jit_knobs[0]; i++)
        knobs[i] = jit_knobs[i].dflt;
}

/* Ranked knob settings: the defaults (16-byte accesses; 4 loads in flight per thread, the best
 * measured for 1024..8192-wide rows, bench/NOTES.md; one row at a time; merged statistics; the
 * wgmma matmul with 128 x 256 tiles and 4 stages); for graphs with a row kernel, 2 and 8 loads
 * per thread, the shifted statistics and the prefetching kernel next; for graphs with a matmul,
 * 128 x 128 tiles, then the mma.sync template; last, 1-wide accesses, which only pointers
 * without 16-byte alignment need. */
static int fused_configs(const fe_graph_state *g, int64_t (*knobs)[FE_MAX_KNOBS], int max)
{
    static const int64_t rows[][3] = {{4, 0, 0}, {2, 0, 0}, {8, 0, 0}, {4, 0, 1}, {4, 1, 0}}; /* loads, prefetch, shifted */
    static const int64_t mms[][2] = {{1, 128}, {0, 256}}; /* wgmma, tile columns */
    int n = 0, n_rows = has_row_kernel(g->ir) ? 5 : 1, n_mms = has_op(g->ir, IR_OP_MATMUL) ? 2 : 0;
    for (int r = 0; r < n_rows && n < max; r++, n++) {
        defaults(knobs[n]);
        knobs[n][KNOB_LOADS_PER_THREAD] = rows[r][0];
        knobs[n][KNOB_ROW_PREFETCH] = rows[r][1], knobs[n][KNOB_SHIFTED_STATS] = rows[r][2];
    }
    for (int m = 0; m < n_mms && n < max; m++, n++) {
        defaults(knobs[n]);
        knobs[n][KNOB_MM_WGMMA] = mms[m][0], knobs[n][KNOB_MM_TILE_N] = mms[m][1];
    }
    if (n < max) {
        defaults(knobs[n]);
        knobs[n++][KNOB_VECTOR_WIDTH] = 1;
    }
    return n;
}

/* ---- build: emit, compile, load ------------------------------------------------------------------- */

static hipdnnStatus_t compile_kernel(const ir_graph *ir, const ir_kernel *kn, const cg_target *t,
                                     bool compile_only, fe_build_ctx *ctx, jit_kernel *out)
{
    hipdnnStatus_t st = fe_jit_is_custom(ir, kn) ? fe_jit_custom_emit(ir, kn, t, out) : cg_emit(ir, kn, t, &out->cg);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_jit_own_names(out); /* emitted entries are codegen's strings: copied here */
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    ir_key key;
    char name[40] = "kernel";
    if (ir_kernel_key(ir, kn->ops, kn->n_ops, &key) == HIPDNN_STATUS_SUCCESS)
        ir_key_hex(&key, name);
    cg_dump(name, out->cg.source);
    void *code = NULL;
    size_t code_len = 0;
    bool cached = false, stored = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = fe_kernel_code(ctx->cache, out->cg.source, name, out->cg.entry, out->cg.arch, &code, &code_len,
                        &out->key, &cached, &stored);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st == HIPDNN_STATUS_SUCCESS) {
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        base_log(HIPDNN_SEV_INFO, "jit: kernel %s %s", name, cached ? "loaded from the kernel cache" : "compiled");
        char hex[2 * sizeof out->key.b + 1];
        for (size_t i = 0; i < sizeof out->key.b; i++)
            snprintf(hex + 2 * i, 3, "%02x", out->key.b[i]);
        base_detail(BASE_DETAIL_DEBUG, "jit: kernel %s (entry %s, %s): cache key %s: %s, %.1f ms, %zu bytes of code",
                    name, out->cg.entry, out->cg.arch, hex,
                    cached ? "hit in the kernel table" : "miss: compiled", ms, code_len);
        ctx->stats.cached += cached, ctx->stats.compiled += !cached, ctx->stats.kernels_not_stored += !stored;
    }
    if (st == HIPDNN_STATUS_SUCCESS && !compile_only)
        st = fe_jit_load(out, code, code_len);
    free(code);
    base_free(out->cg.source);
    out->cg.source = NULL;
    return st;
}

/* The target for these knobs and the plan-table entry of engine_id's plan of g on it. */
static hipdnnStatus_t plan_ref(int64_t engine_id, const fe_graph_state *g, const int64_t *knobs, fe_target *ft,
                               cg_target *t, fe_jit_plan_ref *ref)
{
    hipdnnStatus_t st = device_target(knobs, ft, t);
    if (st == HIPDNN_STATUS_SUCCESS)
        fe_jit_plan_ref_make(g, ft, engine_id, knobs, (int)(sizeof jit_knobs / sizeof jit_knobs[0]), ref);
    return st;
}

static hipdnnStatus_t build_with(partition_fn split, int64_t engine_id, const fe_graph_state *g,
                                 const int64_t *knobs, fe_build_ctx *ctx, fe_plan_impl **out)
{
    fe_target ft;
    cg_target t;
    fe_jit_plan_ref ref;
    hipdnnStatus_t st = plan_ref(engine_id, g, knobs, &ft, &t, &ref);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (fe_jit_plan_load(ctx->cache, &ref, g, &ft, &ctx->stats, out))
        return HIPDNN_STATUS_SUCCESS;
    ir_partition part;
    if ((st = split(g->ir, &part)) != HIPDNN_STATUS_SUCCESS)
        return st;
    fe_plan_impl *p = base_calloc(1, sizeof *p);
    if (p != NULL) {
        p->g = g, p->compile_only = ft.compile_only;
        snprintf(p->arch, sizeof p->arch, "%s", ft.arch);
        p->k = base_calloc((size_t)part.n + 1, sizeof *p->k);
        p->ws_offset = base_malloc(((size_t)g->ir->n_t + 1) * sizeof *p->ws_offset);
    }
    if (p == NULL || p->k == NULL || p->ws_offset == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "building a JIT plan: out of memory");
    for (int i = 0; st == HIPDNN_STATUS_SUCCESS && i < part.n; i++, p->n_kernels++)
        st = compile_kernel(g->ir, &part.k[i], &t, ft.compile_only, ctx, &p->k[i]);
    if (st == HIPDNN_STATUS_SUCCESS)
        p->scratch_offset = layout(g->ir, &part, p->ws_offset);
    ir_partition_free(&part);
    if (st != HIPDNN_STATUS_SUCCESS && p != NULL)
        fe_jit_destroy(p);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    ctx->stats.kernels = p->n_kernels;
    /* a plan record naming a kernel the cache lacks would only be read, found unusable and
     * rebuilt: store it once every kernel is there (the next build, which finds the others) */
    if (ctx->stats.kernels_not_stored > 0)
        ctx->stats.plan_not_stored = 1;
    else
        ctx->stats.plan_not_stored += !fe_jit_plan_store(ctx->cache, &ref, p);
    *out = p;
    return HIPDNN_STATUS_SUCCESS;
}

/* Would build_with take the whole plan from the cache? */
static bool cached_with(int64_t engine_id, const fe_graph_state *g, const int64_t *knobs, kc_cache *cache)
{
    fe_target ft;
    cg_target t;
    fe_jit_plan_ref ref;
    return g->ir != NULL && plan_ref(engine_id, g, knobs, &ft, &t, &ref) == HIPDNN_STATUS_SUCCESS &&
           fe_jit_plan_cached(cache, &ref);
}

/* ---- execute --------------------------------------------------------------------------------------- */

/* A failure unless our kernels can dereference ptr (what names it: "tensor uid 7"). A host
 * pointer handed to a GPU plan would fault the kernel and poison the caller's context. */
static hipdnnStatus_t need_gpu_memory(const void *ptr, const char *what)
{
    if (rt_kernel_can_read(ptr))
        return HIPDNN_STATUS_SUCCESS;
    const char *kind = ptr == NULL ? "NULL"
                     : rt_pointer_kind(ptr) == RT_PTR_OTHER_DEVICE ? "memory of another device"
                                                                   : "host memory";
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnBackendExecute: the pointer for %s (%p) is %s, "
                     "which this plan's GPU kernels cannot read; pass device memory of this GPU "
                     "(or build the plan from the 'reference' engine, which runs on host pointers)",
                     what, ptr, kind);
}

/* The address of tensor ti for this launch, or a failure naming it. */
static hipdnnStatus_t tensor_ptr(const fe_plan_impl *p, const fe_varpack_view *pack, int ti,
                                 int align, void **ptr)
{
    const ir_tensor *t = &p->g->ir->t[ti];
    char what[48];
    if (p->ws_offset[ti] >= 0) {
        *ptr = (char *)pack->workspace + p->ws_offset[ti];
    } else {
        fe_varpack_find(pack, t->uid, ptr);
        snprintf(what, sizeof what, "tensor uid %lld", (long long)t->uid);
        hipdnnStatus_t st = need_gpu_memory(*ptr, what);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    if (align > 1 && ((uintptr_t)*ptr % (uintptr_t)align) != 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnBackendExecute: the pointer for tensor uid "
                         "%lld is not %d-byte aligned (this plan uses vector accesses; build it "
                         "with jit.vector_width 1 for unaligned pointers)", (long long)t->uid, align);
    return HIPDNN_STATUS_SUCCESS;
}

/* A run-time scalar: the pack holds a host pointer to one element of the tensor's type. */
static float scalar_value(const fe_plan_impl *p, const fe_varpack_view *pack, int ti)
{
    const ir_tensor *t = &p->g->ir->t[ti];
    ir_buf b = {.dtype = t->dtype, .rank = 1, .dims = {1}, .strides = {1}};
    fe_varpack_find(pack, t->uid, &b.data);
    int64_t zero = 0;
    return (float)ir_load(&b, &zero);
}

/* A tensor-map parameter: the map over tensor ti's memory. */
typedef struct tensor_map {
    _Alignas(RT_TENSOR_MAP_ALIGN) unsigned char bytes[RT_TENSOR_MAP_BYTES];
} tensor_map;

static hipdnnStatus_t launch(fe_plan_impl *p, const jit_kernel *k, void *stream, const fe_varpack_view *pack)
{
    void *ptrs[CG_MAX_ARGS], *args[CG_MAX_ARGS];
    float scalars[CG_MAX_ARGS];
    tensor_map maps[CG_MAX_TMAPS];
    int n_maps = 0;
    for (int a = 0; a < k->cg.n_args; a++) {
        const cg_arg *arg = &k->cg.args[a];
        if (arg->kind == CG_ARG_SCALAR) {
            scalars[a] = scalar_value(p, pack, arg->tensor);
            args[a] = &scalars[a];
            continue;
        }
        if (arg->kind == CG_ARG_WORKSPACE) {
            ptrs[a] = (char *)pack->workspace + p->scratch_offset;
            args[a] = &ptrs[a];
            continue;
        }
        if (arg->kind == CG_ARG_INT64) {
            args[a] = (void *)&arg->value;
            continue;
        }
        if (arg->kind == CG_ARG_COUNTER) {
            hipdnnStatus_t st = fe_counter_for(&p->counters, stream, &ptrs[a]);
            if (st != HIPDNN_STATUS_SUCCESS)
                return st;
            args[a] = &ptrs[a];
            continue;
        }
        hipdnnStatus_t st = tensor_ptr(p, pack, arg->tensor, k->cg.align, &ptrs[a]);
        if (st == HIPDNN_STATUS_SUCCESS && arg->kind == CG_ARG_TMAP && n_maps == CG_MAX_TMAPS)
            st = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "JIT launch: more than %d tensor maps", CG_MAX_TMAPS);
        if (st == HIPDNN_STATUS_SUCCESS && arg->kind == CG_ARG_TMAP)
            st = rt_tensor_map(&maps[n_maps], ptrs[a], arg->map.rank, 2, arg->map.dims,
                               arg->map.strides, arg->map.box);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        args[a] = arg->kind == CG_ARG_TMAP ? (void *)&maps[n_maps++] : (void *)&ptrs[a];
    }
    hipdnnStatus_t st = rt_launch(k->fn, k->cg.grid, k->cg.block, k->cg.smem, stream, args);
    for (int i = 0; st == HIPDNN_STATUS_SUCCESS && i < k->cg.n_then; i++) {
        const cg_launch *l = &k->cg.then[i];
        st = (l->dependent ? rt_launch_dependent : rt_launch)(k->fn_then[i], l->grid, l->block, l->smem, stream, args);
    }
    return st;
}

/* Whether a kernel of p reads or writes the workspace (its scratch, or a tensor placed there);
 * a plan that needs none ignores the pack's workspace pointer, whatever it points at. */
static bool uses_workspace(const fe_plan_impl *p)
{
    for (int i = 0; i < p->n_kernels; i++)
        for (int a = 0; a < p->k[i].cg.n_args; a++) {
            const cg_arg *arg = &p->k[i].cg.args[a];
            if (arg->kind == CG_ARG_WORKSPACE ||
                (arg->tensor >= 0 && arg->kind != CG_ARG_SCALAR && arg->kind != CG_ARG_INT64 &&
                 p->ws_offset[arg->tensor] >= 0))
                return true;
        }
    return false;
}

static hipdnnStatus_t jit_execute(fe_plan_impl *p, hipdnnHandle_t handle, const fe_varpack_view *pack)
{
    if (p->compile_only)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "hipdnnBackendExecute: the plan was built compile-only "
                         "for %s (hipdnnSetCompileTarget_ext); build it again without a compile target to run it",
                         p->arch);
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (uses_workspace(p))
        st = need_gpu_memory(pack->workspace, "the workspace");
    for (int i = 0; i < p->n_kernels && st == HIPDNN_STATUS_SUCCESS; i++)
        st = launch(p, &p->k[i], (void *)handle->stream, pack);
    return st;
}

/* ---- the two engines ------------------------------------------------------------------------------ */

static bool fused_supports(const fe_graph_state *g, char *why, size_t n)
{
    return supports_with(ir_fuse, g, why, n);
}

static int64_t fused_workspace(const fe_graph_state *g, const int64_t *knobs)
{
    (void)knobs;
    return workspace_with(ir_fuse, g);
}

static hipdnnStatus_t fused_build(const fe_graph_state *g, const int64_t *knobs, fe_build_ctx *ctx,
                                  fe_plan_impl **out)
{
    return build_with(ir_fuse, fe_jit_engine.id, g, knobs, ctx, out);
}

static bool fused_cached(const fe_graph_state *g, const int64_t *knobs, kc_cache *cache)
{
    return cached_with(fe_jit_engine.id, g, knobs, cache);
}

static bool unfused_supports(const fe_graph_state *g, char *why, size_t n)
{
    return supports_with(ir_split, g, why, n);
}

/* The unfused engine is the fallback, not tuned: every knob's default, then 1-wide accesses
 * (pointers without 16-byte alignment). */
static int unfused_configs(const fe_graph_state *g, int64_t (*knobs)[FE_MAX_KNOBS], int max)
{
    (void)g;
    int n = 0;
    for (int w = 0; w < 2 && n < max; w++, n++) {
        defaults(knobs[n]);
        knobs[n][KNOB_VECTOR_WIDTH] = w == 0 ? 8 : 1;
    }
    return n;
}

static int64_t unfused_workspace(const fe_graph_state *g, const int64_t *knobs)
{
    (void)knobs;
    return workspace_with(ir_split, g);
}

static hipdnnStatus_t unfused_build(const fe_graph_state *g, const int64_t *knobs, fe_build_ctx *ctx,
                                    fe_plan_impl **out)
{
    return build_with(ir_split, fe_jit_unfused_engine.id, g, knobs, ctx, out);
}

static bool unfused_cached(const fe_graph_state *g, const int64_t *knobs, kc_cache *cache)
{
    return cached_with(fe_jit_unfused_engine.id, g, knobs, cache);
}

const fe_engine fe_jit_engine = {
    .id = 1,
    .name = "jit_fused",
    .type = "gpu",
    .knobs = jit_knobs,
    .n_knobs = (int)(sizeof jit_knobs / sizeof jit_knobs[0]),
    .notes = jit_notes,
    .n_notes = 1,
    .device = jit_device,
    .supports = fused_supports,
    .configs = fused_configs,
    .workspace = fused_workspace,
    .build = fused_build,
    .is_cached = fused_cached,
    .execute = jit_execute,
    .destroy = fe_jit_destroy,
};

const fe_engine fe_jit_unfused_engine = {
    .id = 2,
    .name = "jit_unfused",
    .type = "gpu",
    .knobs = jit_knobs,
    .n_knobs = (int)(sizeof jit_knobs / sizeof jit_knobs[0]),
    .notes = jit_notes,
    .n_notes = 1,
    .device = jit_device,
    .supports = unfused_supports,
    .configs = unfused_configs,
    .workspace = unfused_workspace,
    .build = unfused_build,
    .is_cached = unfused_cached,
    .execute = jit_execute,
    .destroy = fe_jit_destroy,
};
