/* cg_sdpa.h — private to codegen/: what the attention emitters (cg_sdpa.c forward, cg_sdpa_fp8.c
 * FP8 forward, cg_sdpa_bwd.c backward) share, implemented in cg_sdpa_hooks.c: operand checks, and
 * the hooks the templates take with the same spelling (row offsets with GQA head mapping, sequence lengths, scale, bias,
 * ALiBi slope, custom dropout mask, the band defines, Philox seed and offset values).
 * Every hook reads tensors of graph g by index; coordinates are (b, h, i, j) of the scores.
 */
#ifndef HIPDNN_CG_SDPA_H
#define HIPDNN_CG_SDPA_H

#include "codegen/cg_int.h"

/* Whether the attention forward kernel k is FP8 attention (any DESCALE_* / SCALE_* operand), and
 * its emitter (cg_sdpa_fp8.c, sdpa_fwd_fp8.hip), which cg_emit_sdpa hands it to. */
bool cg_sdpa_is_fp8(const ir_graph *g, const ir_kernel *k);
hipdnnStatus_t cg_emit_sdpa_fp8(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out,
                                char *why, size_t why_len);

/* Writes msg to why and returns false (an emitter's refusal). */
bool cg_sdpa_fail(char *why, size_t len, const char *msg);
bool cg_sdpa_is16(hipdnnDataType_t t);
bool cg_sdpa_is_int(hipdnnDataType_t t);
/* Elements of tensor t (its dims' product). */
int64_t cg_sdpa_numel(const ir_tensor *t);
/* A Q/K/V-like operand: rank 4, unit last stride, other strides multiples of 8 elements. */
bool cg_sdpa_rows_ok(const ir_tensor *t);
/* The same with the other strides multiples of `elems` elements (16 for 16-byte FP8 rows). */
bool cg_sdpa_rows_of(const ir_tensor *t, int64_t elems);
/* A tensor in memory of rank 4 whose dims are `want`'s, or 1 where bcast allows. */
bool cg_sdpa_shaped(const ir_tensor *t, const int64_t want[4], bool bcast);
/* An integer scalar the kernel can read: in memory or by value (a run-time host scalar arrives
 * as a float and would round a seed). */
bool cg_sdpa_int_scalar_ok(const ir_tensor *t);
/* Whether an SEQ_LEN tensor is a [B,1,1,1] integer tensor in device memory. */
bool cg_sdpa_seq_ok(const ir_tensor *t, int64_t B);

/* The operand slots forward and backward share (tensor indices, -1 absent); `scales` holds the
 * custom dropout's scale (and, backward, its inverse). */
typedef struct cg_sdpa_opts {
    int dropout_mask, scales[2], seed, offset, seq_q, seq_kv, bias, scale;
} cg_sdpa_opts;
/* The option rules both directions share: dropout kinds exclusive, mask / bias shapes, integer
 * seed and offset, [B,1,1,1] sequence lengths, loadable scale types. `full` is [B,Hq,Sq,Skv]. On
 * failure `why` says what (the message the caller returns). */
bool cg_sdpa_check_opts(const ir_graph *g, const cg_sdpa_opts *o, const int64_t full[4], double dropout_p,
                        char *why, size_t len);

/* `0LL + x * stride ...` for each dim d of tensor ti with a coordinate expression coord[d] (NULL:
 * the dim contributes nothing); size-1 dims broadcast. */
void cg_sdpa_offset(const ir_graph *g, int ti, const char *const coord[4], base_sb *sb);
/* hd_X_off(b, h, i, HD_PARAMS): row i of operand ti for query head h (its head h / group). */
void cg_sdpa_row_hook(const ir_graph *g, const char *name, int ti, int64_t group, base_sb *sb);
/* int name(b, HD_PARAMS): SEQ_LEN[b] clamped to [0, max], or max without a tensor (ti < 0). */
void cg_sdpa_seq_hook(const ir_graph *g, const char *name, int ti, int64_t max, base_sb *sb);
/* A float scalar operand: its expression (by value, run-time scalar) or a load of element 0. */
void cg_sdpa_scalar_value(const ir_graph *g, int ti, base_sb *sb);
/* An integer scalar (seed, offset): its by-value bytes, or element 0 in memory. */
void cg_sdpa_int_value(const ir_graph *g, int ti, base_sb *sb);
/* hd_scale(HD_PARAMS): the scale tensor ti, else the attribute value. */
void cg_sdpa_scale_hook(const ir_graph *g, int ti, double attn_scale, base_sb *sb);
/* Whether the attention scale is a compile-time constant above 0 (attribute or by-value tensor). */
bool cg_sdpa_positive_scale(const ir_graph *g, int ti, double attn_scale);
/* float name(b, h, i, j, HD_PARAMS): element (b, h, i, j) of the broadcast [1|B,1|Hq,1|Sq,1|Skv]
 * tensor ti (bias, custom dropout mask). */
void cg_sdpa_bshs_hook(const ir_graph *g, const char *name, int ti, base_sb *sb);
/* hd_alibi_slope(h): ALiBi's slope of query head h of Hq heads. */
void cg_sdpa_alibi_hook(int64_t Hq, base_sb *sb);
/* HD_HAS_RIGHT, HD_RIGHT, HD_HAS_LEFT, HD_LEFT, HD_BOTTOM_RIGHT (bounds clamped to Sq + Skv + 1). */
void cg_sdpa_band_defs(const ir_sdpa *p, int64_t Sq, int64_t Skv, base_sb *defs);
/* hd_row_stats(b, h, i, m, l, HD_PARAMS): stores Stats, Max and Sum_exp (tensor indices out[0 ..
 * 2], -1 absent) of row (b, h, i) from its max m (natural log) and sum l. */
void cg_sdpa_stats_hook(const ir_graph *g, const int out[3], base_sb *sb);
/* hd_drop_p, hd_drop_seed(HD_PARAMS), hd_drop_offset(HD_PARAMS) of Philox dropout at p. */
void cg_sdpa_philox_hooks(const ir_graph *g, double p, int seed, int offset, base_sb *sb);
/* hd_drop_scale(HD_PARAMS): the scale of kept probabilities, 1/(1-p) with Philox dropout at p > 0,
 * else the DROPOUT_SCALE tensor `scale`, else 1. */
void cg_sdpa_drop_scale_hook(const ir_graph *g, double p, int scale, base_sb *sb);

/* ---- a mask modifier (cg_sdpa_mask.c, kernel_templates/sdpa_mask.h) ---------------------------- */
typedef struct cg_sdpa_mask {
    int n, ops[IR_SCORE_MAX_STEPS + 1]; /* the chain's ops (graph op indices, topological) */
    int result;                         /* the tensor it ends in (the anchor's mask slot) */
    unsigned dep;                       /* bit d: the mask varies along b, h, i, j (d = 0 .. 3) */
} cg_sdpa_mask;
/* The ops of op `anchor`'s mask modifier, which ends in tensor `result`; false with the reason in why. */
bool cg_sdpa_mask_ops(const ir_graph *g, int anchor, int result, cg_sdpa_mask *m, char *why, size_t len);
/* Checks its operands against what the hooks read (`full`: [B,Hq,Sq,Skv]) and sets m->dep; false
 * with the reason in why. */
bool cg_sdpa_mask_check(const ir_graph *g, cg_sdpa_mask *m, const int64_t full[4], char *why, size_t len);
/* Whether graph op `op` is one of the mask's. */
bool cg_sdpa_mask_has(const cg_sdpa_mask *m, int op);
/* Chain pieces a score modifier's hook shares with the mask's (cg_sdpa_mask.c): a float expression
 * of element (b, h, i, j) of tensor ti in memory; GEN_INDEX's coordinate ("b", "h", "i", "j", or
 * "0" along a size-1 dim); whether ti is a tensor in memory the hooks can read per score ([1|B,
 * 1|Hq,1|Sq,1|Skv] of `full`, a loadable type); a step result t<o> of an integer or BOOLEAN type
 * rounded as ir_dtype_round rounds it (nothing for other types). */
void cg_sdpa_elem_load(const ir_graph *g, int ti, base_sb *sb);
const char *cg_sdpa_index_coord(const ir_graph *g, const ir_op *op);
bool cg_sdpa_loadable(const ir_graph *g, int ti, const int64_t full[4]);
void cg_sdpa_round_stmt(const ir_tensor *y, int o, base_sb *sb);

/* The lists' geometry (sdpa_mask.h): rows of rsize indices (query rows, or by_key keys) listing
 * tiles of csize indices along the other axis, over scores [B,Hq,Sq,Skv]; at byte `off` of the
 * workspace. */
typedef struct cg_sdpa_mask_geom {
    int64_t B, Hq, Sq, Skv, rsize, csize, off;
    bool by_key;
} cg_sdpa_mask_geom;
/* Rows of the lists per (batch, head) and entries a row holds. */
int64_t cg_sdpa_mask_geom_rows(const cg_sdpa_mask_geom *x);
int64_t cg_sdpa_mask_geom_cols(const cg_sdpa_mask_geom *x);
/* The lists' bytes: (batch, head) rows the mask depends on x rows x (cols + 1) ints. */
int64_t cg_sdpa_mask_bytes(const cg_sdpa_mask *m, const cg_sdpa_mask_geom *x);
/* HD_MASK_MOD and the geometry's defines (HD_MASK_*), the hooks hd_mask_mod, hd_mask_ld<n>,
 * hd_mask_class; and the classification launch (hd_sdpa_mask_kernel) into *l. */
void cg_sdpa_mask_hooks(const ir_graph *g, const cg_sdpa_mask *m, const cg_sdpa_mask_geom *x, base_sb *defs,
                        base_sb *hooks, cg_launch *l);

#endif
