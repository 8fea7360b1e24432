/* ir.h — the contract of ir/: the fusion IR and its reference semantics.
 *
 * The IR is small on purpose (../shared/DESIGN.md §3). An ir_graph holds tensors and ops; an op
 * is one of the closed set in ir_ops.def, with typed attributes (a tagged union, one struct
 * per op family below) and numbered operand slots. Slot meaning per op:
 *
 *   op               inputs (slot order)                                   outputs
 *   POINTWISE        a, b, c (b, c by arity of the mode)                     y
 *   MATMUL           a [..,M,K], b [..,K,N]                                  c [..,M,N]
 *   CONV_FWD         x [N,C,(D),H,W], w [K,C/G,(T),R,S]                      y
 *   CONV_DGRAD       dy, w                                                  dx
 *   CONV_WGRAD       x, dy                                                  dw
 *   BN_INFER         x, mean, inv_var|var, scale, bias, eps (variance form)  y
 *   BN_TRAIN         x, scale, bias, eps, prev_mean, prev_var, momentum      y, mean, inv_var,
 *                                                                            next_mean, next_var
 *   BN_BWD           dy, x, scale, mean, inv_var                             dx, dscale, dbias
 *   GENSTATS         x                                                       sum, sq_sum
 *   LAYERNORM        x, scale, bias, eps                                     y, mean, inv_var
 *   RMSNORM          x, scale, eps, bias                                     y, inv_rms
 *   SDPA_FWD         see ir_sdpa_in / ir_sdpa_out
 *   SDPA_BWD         see ir_sdpa_bwd_in / ir_sdpa_bwd_out
 *   BS_QUANTIZE      x                                                       y, scale
 *   BS_DEQUANTIZE    x, scale                                                y
 *   PAGED_CACHE_LOAD container [nblk,H,bs,D], seq_len [B,1,1,1], page_table  y
 *   CUSTOM           any                                                    any
 * An absent optional operand is -1. Tensors use the API's hipdnnDataType_t.
 *
 * The reference semantics of every op are the ir_ref_* functions (ir_ref*.c): host memory,
 * strided views (ir_buf), math in double, results rounded once to the output type.
 * An SDPA forward may carry a score and a mask modifier, an SDPA backward a mask modifier:
 * pointwise ops of the graph between a score tensor (ir_tensor.score) and the op's modifier slot,
 * fused into it (ir_score.c, below).
 */
#ifndef HIPDNN_IR_H
#define HIPDNN_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"

#define IR_MAX_RANK 8

typedef enum ir_role { IR_ROLE_POINTWISE, IR_ROLE_ANCHOR, IR_ROLE_ALONE } ir_role;

typedef enum ir_op_kind {
#define IR_OP(ID, name, role, n_in, n_out, pro, epi, tail, score, attrs) IR_OP_##ID,
#include "ir/ir_ops.def"
#undef IR_OP
    IR_OP_COUNT
} ir_op_kind;

typedef struct ir_op_info {
    const char *name;
    ir_role role;
    int n_in, n_out;
    bool pro, epi, tail, score; /* fusion rules, see ir_ops.def */
} ir_op_info;

const ir_op_info *ir_op_info_of(ir_op_kind k);

/* ---- data types (ir_dtype.c) --------------------------------------------------------------- */

/* A strided view of host memory. Strides and offsets count elements; sub-byte types (FP4_E2M1,
 * INT4) pack two elements per byte, even element offsets in the low nibble. */
typedef struct ir_buf {
    void *data;
    hipdnnDataType_t dtype;
    int rank;
    int64_t dims[IR_MAX_RANK];
    int64_t strides[IR_MAX_RANK];
} ir_buf;

/* Element at multi-index idx (rank entries) converted to double. */
double ir_load(const ir_buf *b, const int64_t *idx);
/* Stores v converted to b's type: round to nearest even; saturating to the largest finite
 * value for FP8/FP4/FP6 types without infinities; NaN kept where the type has one. */
void ir_store(ir_buf *b, const int64_t *idx, double v);
/* Element count (product of dims). */
int64_t ir_buf_numel(const ir_buf *b);
/* Advances idx to the next multi-index in row-major order; false after the last. */
bool ir_next_index(const ir_buf *b, int64_t *idx);

/* Scalar conversions (all round to nearest even). */
double ir_dtype_round(hipdnnDataType_t t, double v); /* v rounded to a value t can hold */
uint8_t ir_to_fp8_e4m3(double v);   /* OCP E4M3 (FN): max 448, no inf, NaN = 0x7f/0xff */
double ir_from_fp8_e4m3(uint8_t b);
uint8_t ir_to_fp8_e5m2(double v);   /* IEEE-like E5M2: max 57344, inf and NaN */
double ir_from_fp8_e5m2(uint8_t b);
uint8_t ir_to_fp8_e4m3_fnuz(double v); /* max 240, NaN = 0x80, no -0 */
double ir_from_fp8_e4m3_fnuz(uint8_t b);
uint8_t ir_to_fp8_e5m2_fnuz(double v); /* max 57344, NaN = 0x80, no -0 */
double ir_from_fp8_e5m2_fnuz(uint8_t b);
uint8_t ir_to_e8m0(double v);       /* 2^(b-127); rounds UP to a power of two; 0xff = NaN */
double ir_from_e8m0(uint8_t b);
uint8_t ir_to_fp4_e2m1(double v);   /* 4 bits: max 6, values 0, .5, 1, 1.5, 2, 3, 4, 6 */
double ir_from_fp4_e2m1(uint8_t nibble);
/* The block scale of a block-scale quantize (ir_ref_quant.c): the smallest value of scale type
 * scale_t >= amax / max_finite(y_t), for a block whose largest magnitude is amax. */
double ir_quant_block_scale(hipdnnDataType_t scale_t, hipdnnDataType_t y_t, double amax);

/* ---- Philox4x32-10 (ir_philox.c) ------------------------------------------------------------
 * The counter-based generator cuDNN and PyTorch use for dropout: key = seed (64 bits split in
 * two 32-bit words), counter = (offset_lo, offset_hi, subsequence_lo, subsequence_hi). */
void ir_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);
/* Uniform (0, 1] float from a 32-bit draw, as curand_uniform. */
float ir_philox_uniform(uint32_t x);

/* ---- typed attributes ------------------------------------------------------------------------ */

typedef struct ir_pointwise {
    int mode;                   /* hipdnnPointwiseMode_t */
    double relu_lower, relu_upper, relu_slope; /* defaults 0, +inf, 0 */
    double swish_beta, elu_alpha, softplus_beta; /* defaults 1 */
    int64_t axis;               /* GEN_INDEX */
} ir_pointwise;

typedef struct ir_conv {
    int spatial;                /* 2 or 3 */
    int64_t pre[3], post[3], stride[3], dilation[3];
    bool convolution;           /* true: filter flipped (CONVOLUTION); false: cross-correlation */
} ir_conv;

typedef struct ir_norm {
    int phase;                  /* hipdnnNormFwdPhase_t (layernorm/rmsnorm) */
    int normalized_dims;        /* layernorm/rmsnorm: trailing dims normalized */
    bool from_variance;         /* BN_INFER: slot 2 holds variance, slot 5 epsilon */
} ir_norm;

typedef struct ir_sdpa {
    double attn_scale;          /* used when no scale tensor; 1.0 by default */
    bool has_scale_value;
    bool alibi, padding_mask;
    bool has_left, has_right;   /* diagonal band bounds present */
    int64_t left_bound, right_bound;
    bool bottom_right;          /* diagonal alignment */
    double dropout_p;           /* 0 = none */
    bool generate_stats;
} ir_sdpa;

/* SDPA operand slots. */
enum ir_sdpa_in {
    IR_SDPA_Q, IR_SDPA_K, IR_SDPA_V, IR_SDPA_BIAS, IR_SDPA_SCALE, IR_SDPA_SEQ_Q, IR_SDPA_SEQ_KV,
    IR_SDPA_SEED, IR_SDPA_OFFSET, IR_SDPA_DROPOUT_MASK, IR_SDPA_DROPOUT_SCALE,
    IR_SDPA_PAGE_K, IR_SDPA_PAGE_V, IR_SDPA_SINK, IR_SDPA_BLOCK_MASK, IR_SDPA_SCORE_MOD,
    IR_SDPA_DESCALE_Q, IR_SDPA_DESCALE_K, IR_SDPA_DESCALE_V, IR_SDPA_DESCALE_S, IR_SDPA_SCALE_S,
    IR_SDPA_SCALE_O, IR_SDPA_MASK_MOD, IR_SDPA_N_IN
};
/* IR_SDPA_DESCALE_* / SCALE_S / SCALE_O (one element each, all six or none) make the op FP8
 * attention (op-semantics.md §4.9, cuDNN's composite): S·descale_q·descale_k, P·scale_s rounded
 * to Q's type before P·V, O·descale_s·descale_v, O·scale_o stored; IR_SDPA_AMAX_S / AMAX_O
 * (one element) get max P and max |O| before scale_o. */
/* IR_SDPA_SCORE_MOD: the result M [B,Hq,Sq,Skv] of a score modifier (ir_score.c), a chain of
 * pointwise ops computed from a score tensor (ir_tensor.score), GEN_INDEX indices, one-element
 * scalars and tensors in memory broadcast to [B,Hq,Sq,Skv]; the op uses M_ij in place of
 * S_ij·scale (op-semantics.md §4.3 step 3).
 * IR_SDPA_MASK_MOD / IR_SDPAB_MASK_MOD: the result K [B,Hq,Sq,Skv] of a mask modifier, a chain
 * of the same kind whose score tensor stands for the index space (only GEN_INDEX reads it);
 * K_ij == 0 masks score (i, j) to −inf like the padding and band masks do. */
enum ir_sdpa_out { IR_SDPA_O, IR_SDPA_STATS, IR_SDPA_MAX, IR_SDPA_SUM_EXP, IR_SDPA_RNG_DUMP,
                   IR_SDPA_AMAX_S, IR_SDPA_AMAX_O, IR_SDPA_N_OUT };
enum ir_sdpa_bwd_in {
    IR_SDPAB_Q, IR_SDPAB_K, IR_SDPAB_V, IR_SDPAB_O, IR_SDPAB_DO, IR_SDPAB_STATS, IR_SDPAB_BIAS,
    IR_SDPAB_SCALE, IR_SDPAB_SEQ_Q, IR_SDPAB_SEQ_KV, IR_SDPAB_SEED, IR_SDPAB_OFFSET,
    IR_SDPAB_DROPOUT_MASK, IR_SDPAB_DROPOUT_SCALE, IR_SDPAB_DROPOUT_SCALE_INV, IR_SDPAB_MASK_MOD,
    IR_SDPAB_N_IN
};
enum ir_sdpa_bwd_out { IR_SDPAB_DQ, IR_SDPAB_DK, IR_SDPAB_DV, IR_SDPAB_DBIAS, IR_SDPAB_N_OUT };

typedef struct ir_quant {
    int32_t block[IR_MAX_RANK]; /* quantize: block[0] along `axis`; dequantize: per trailing dim */
    int n_block;
    int64_t axis;
    bool transpose, negative_scale;
} ir_quant;

typedef struct ir_custom {
    char id[128];           /* "<provider>.<operation>" */
    char provider[128];     /* the owning provider's "<name> <version>": part of every key */
    const void *owner;      /* the provider itself (the frontend's; the IR never reads it) */
    uint8_t *payload;       /* the op's DATA bytes, owned by the op (ir_op_release) */
    uint32_t payload_size;
} ir_custom;

typedef union ir_attrs {
    ir_pointwise pw;
    ir_conv conv;
    ir_norm norm;
    ir_sdpa sdpa;
    ir_quant quant;
    ir_custom custom;
} ir_attrs;

/* ---- the graph (ir_graph.c) ------------------------------------------------------------------- */

#define IR_MAX_SLOTS 24

typedef struct ir_tensor {
    int64_t uid;                /* the API's uid: identity for binding, not semantics */
    hipdnnDataType_t dtype;
    int rank;
    int64_t dims[IR_MAX_RANK], strides[IR_MAX_RANK];
    bool is_virtual;            /* intermediate: never in the variant pack */
    bool by_value;              /* compile-time constant scalar, value[] holds its bytes */
    bool runtime_scalar;        /* host scalar bound at execute time */
    bool score;                 /* the scaled scores S [B,Hq,Sq,Skv] of the SDPA op whose score
                                 * modifier reads it, or the index space of its mask modifier:
                                 * virtual, no producer, computed inside that op and never in
                                 * memory (ir_score.c) */
    uint8_t value[8];
    int producer;               /* op index, -1 for a graph input */
    bool ragged;                /* packed (THD): batch b starts at element offsets[b]·ragged_mult,
                                 * its dim 0 stride unused; offsets = tensor ragged_t ([B+1,1,1,1]
                                 * INT32/INT64); only attention operands (fe_lower.c) */
    int ragged_t;
    int64_t ragged_mult;
} ir_tensor;

typedef struct ir_op {
    ir_op_kind kind;
    hipdnnDataType_t compute;   /* compute type (FLOAT unless the graph says otherwise) */
    ir_attrs a;
    int n_in, n_out;
    int in[IR_MAX_SLOTS];       /* tensor index per slot, -1 = absent */
    int out[IR_MAX_SLOTS];
} ir_op;

typedef struct ir_graph {
    ir_tensor *t;
    int n_t, cap_t;
    ir_op *ops;                 /* topological order once ir_graph_seal succeeded */
    int n_ops, cap_ops;
    bool dynamic_shape;         /* the graph's IS_DYNAMIC_SHAPE_ENABLED: kernels take the dims
                                 * that vary between calls (batch, sequence) as run-time
                                 * arguments, so graphs differing only in them share kernels */
} ir_graph;

void ir_graph_init(ir_graph *g);
/* Frees the arrays and what each op owns (ir_op_release). */
void ir_graph_free(ir_graph *g);
/* Frees what an op owns (a custom op's payload) and clears those fields: for an op that never
 * made it into a graph. ir_add_op hands the ownership over to the graph. */
void ir_op_release(ir_op *op);
/* Appends a tensor / op (copied); returns its index, or -1 when out of memory. */
int ir_add_tensor(ir_graph *g, const ir_tensor *t);
/* Whether op reads or writes a packed (ragged) tensor. */
bool ir_op_ragged(const ir_graph *g, const ir_op *op);
int ir_add_op(ir_graph *g, const ir_op *op);
/* Records producers, checks slots and orders ops topologically (stable); then infers the
 * shapes of virtual tensors and checks them against their declared dims. */
hipdnnStatus_t ir_graph_seal(ir_graph *g);
/* Number of ops reading tensor ti. */
int ir_consumers(const ir_graph *g, int ti);

/* ---- canonical form and keys (ir_canon.c) ------------------------------------------------------
 * A deterministic renumbering of ops and tensors that depends only on semantics (op kinds, typed
 * attributes, dtypes, dims, strides, edges), never on uids, names or insertion order, and its
 * byte serialization. Keys are XXH3-128 of those bytes. */
typedef struct ir_key {
    uint8_t b[16];
} ir_key;

/* Canonical bytes of the whole graph (or of the ops listed in `ops`, n_ops of them, when ops is
 * non-NULL: a kernel's sub-graph). Caller frees out->p with base_sb_free. */
hipdnnStatus_t ir_canon_bytes(const ir_graph *g, const int *ops, int n_ops, base_sb *out);
/* The graph key and, from the same canonicalization, the canonical number of every tensor (tid:
 * g->n_t entries; -1 for a tensor no op uses) and how many are numbered: graphs with equal keys
 * map tensor for tensor through them. */
hipdnnStatus_t ir_graph_canon(const ir_graph *g, ir_key *key, int *tid, int *n_tensors);
hipdnnStatus_t ir_graph_key(const ir_graph *g, ir_key *key);
hipdnnStatus_t ir_kernel_key(const ir_graph *g, const int *ops, int n_ops, ir_key *key);
/* 32 lowercase hex digits and a NUL. */
void ir_key_hex(const ir_key *k, char out[33]);

/* ---- fusion (ir_fuse.c) ------------------------------------------------------------------------ */

/* IR_PART_SCORE: an op of the anchor's score modifier (the `score` rule of ir_ops.def). */
typedef enum ir_part { IR_PART_PROLOGUE, IR_PART_ANCHOR, IR_PART_EPILOGUE, IR_PART_REGION,
                       IR_PART_SCORE } ir_part;

typedef struct ir_kernel {
    int anchor;                 /* op index of the anchor, -1 for a pure pointwise region */
    int n_ops;
    int *ops;                   /* op indices in topological order */
    ir_part *part;              /* role of each op in the kernel */
    int n_reads, n_writes;
    int *reads;                 /* tensors read from memory (inputs of the kernel) */
    int *writes;                /* tensors written to memory (outputs of the kernel) */
} ir_kernel;

typedef struct ir_partition {
    ir_kernel *k;
    int n;
} ir_partition;

/* Partitions a sealed graph into kernels (one anchor + fused pointwise prologue/epilogue, or a
 * pure pointwise region). A virtual tensor is materialised only when it crosses kernels. */
hipdnnStatus_t ir_fuse(const ir_graph *g, ir_partition *p);
/* The unfused partition: one kernel per op (an anchor alone, each pointwise op a region of its
 * own), in graph order; every virtual tensor read by another op is materialised. */
hipdnnStatus_t ir_split(const ir_graph *g, ir_partition *p);
void ir_partition_free(ir_partition *p);
/* A readable dump of the kernels of a graph. */
void ir_partition_dump(const ir_graph *g, const ir_partition *p, base_sb *out);

/* ---- reference kernels (ir_ref*.c) ------------------------------------------------------------
 * Each takes its operands in slot order as views (NULL for an absent optional operand), computes
 * in double and writes every element of every present output. They return SUCCESS, BAD_PARAM for
 * operand shapes they cannot interpret, or NOT_SUPPORTED (with a message) for a valid case the
 * reference does not implement. */
typedef struct ir_ref_ctx {
    const ir_buf *const *in;
    ir_buf *const *out;
    int n_in, n_out;
} ir_ref_ctx;

hipdnnStatus_t ir_ref_run(ir_op_kind k, const ir_attrs *a, const ir_ref_ctx *c);
/* ir_ref_run of an op with modifiers (their chains, ir_score_mod_build; mods NULL or a NULL
 * member: none). A modifier's result operand (IR_SDPA_SCORE_MOD, IR_SDPA_MASK_MOD,
 * IR_SDPAB_MASK_MOD) is never read: pass it NULL. */
typedef struct ir_score_mod ir_score_mod;
typedef struct ir_ref_mods {
    const ir_score_mod *score;  /* SDPA_FWD's score modifier */
    const ir_score_mod *mask;   /* SDPA_FWD's or SDPA_BWD's mask modifier */
} ir_ref_mods;
hipdnnStatus_t ir_ref_run_mod(ir_op_kind k, const ir_attrs *a, const ir_ref_mods *mods,
                              const ir_ref_ctx *c);

/* ---- score and mask modifiers (ir_score.c) -----------------------------------------------------
 * A modifier is a chain of pointwise ops inside the graph: it starts at a score tensor
 * (ir_tensor.score: S·scale for a score modifier, the index space for a mask modifier, where
 * only GEN_INDEX reads it), may read GEN_INDEX indices, one-element scalars and tensors in
 * memory that broadcast to [B,Hq,Sq,Skv], and ends in a modifier slot (ir_mod_slot) of an
 * anchor with the `score` fusion rule. Fusion puts the chain into that anchor's kernel
 * (IR_PART_SCORE), the reference evaluates it per score, codegen emits it as a hook. */

typedef enum ir_mod_kind { IR_MOD_SCORE, IR_MOD_MASK, IR_MOD_KINDS } ir_mod_kind;
/* The operand slot of op kind k's modifier of that kind: SDPA_FWD IR_SDPA_SCORE_MOD and
 * IR_SDPA_MASK_MOD, SDPA_BWD IR_SDPAB_MASK_MOD; -1 for one it does not take. */
int ir_mod_slot(ir_op_kind k, ir_mod_kind kind);
/* Whether op has a modifier of that kind (its slot holds a tensor). */
bool ir_has_mod(const ir_op *op, ir_mod_kind kind);

/* mark[k] (g->n_ops entries) = whether op k belongs to a modifier: a pointwise op whose result
 * reaches a `score` anchor's modifier slot through pointwise ops only.
 * ALLOC_FAILED (with a message) when out of memory. */
hipdnnStatus_t ir_score_mod_mark(const ir_graph *g, bool *mark);
/* The ops of every modifier of op `anchor` (indices in topological order, at most max);
 * returns how many, 0 without a modifier, -1 (with a message) when out of memory. */
int ir_score_mod_ops(const ir_graph *g, int anchor, int *ops, int max);
/* The same for its modifier of one kind only (IR_MOD_SCORE or IR_MOD_MASK). */
int ir_score_mod_ops_of(const ir_graph *g, int anchor, ir_mod_kind kind, int *ops, int max);

#define IR_SCORE_MAX_STEPS 32
enum { IR_SCORE_LOAD = -4, IR_SCORE_NONE = -3, IR_SCORE_CONST = -2, IR_SCORE_S = -1 }; /* step operand sources */
/* The chain flattened for evaluation at a score (b, h, i, j) of [B,Hq,Sq,Skv]: step k applies pw
 * to operands that are the score S, a constant, a tensor in memory read at (b, h, i, j) with its
 * size-1 dims at 0, or the result of an earlier step; a GEN_INDEX step gives idx[pw.axis] (0
 * where its result's dim along the axis is 1). A result of an integer or BOOLEAN type is rounded
 * to it (ir_dtype_round: what a pointwise op storing it gives), a floating one stays in double.
 * `result` is the step giving the modifier's result. */
typedef struct ir_score_step {
    ir_pointwise pw;            /* GEN_INDEX: pw.axis in 0..3 */
    hipdnnDataType_t dtype;     /* the step result's type */
    bool index_zero;            /* GEN_INDEX whose result has dim 1 along the axis */
    int src[3];                 /* IR_SCORE_* or the index of an earlier step */
    double k[3];                /* the constant of an IR_SCORE_CONST operand */
    const ir_buf *load[3];      /* the view of an IR_SCORE_LOAD operand: rank 4, [1|B,1|Hq,1|Sq,1|Skv] */
} ir_score_step;
struct ir_score_mod {
    ir_mod_kind kind;
    int n, result;
    int64_t dims[4];            /* [B,Hq,Sq,Skv]: the result's dims */
    ir_score_step step[IR_SCORE_MAX_STEPS];
};
/* Flattens the modifier of that kind of op `anchor`; scalars are read from their by-value bytes
 * or, for a scalar in memory, from bufs[tensor] (bufs: g->n_t host views), tensors in memory
 * point at bufs[tensor] (keep bufs alive while evaluating). NOT_SUPPORTED for a chain longer
 * than IR_SCORE_MAX_STEPS; BAD_PARAM for an operand that is neither S, a step result, a
 * one-element scalar nor a bound tensor broadcasting to [B,Hq,Sq,Skv], for a mask modifier's
 * index space read by another op than GEN_INDEX, or for a GEN_INDEX of another rank than 4. */
hipdnnStatus_t ir_score_mod_build(const ir_graph *g, int anchor, ir_mod_kind kind, const ir_buf *bufs,
                                  ir_score_mod *m);
/* The chain's result at score idx = (b, h, i, j) whose score is s (double precision,
 * ir_pointwise_eval per step; a mask modifier never reads s). */
double ir_score_mod_eval(const ir_score_mod *m, double s, const int64_t idx[4]);

/* ---- block classification of a mask modifier (ir_block_mask.c) --------------------------------
 * For kernels that skip masked tiles (FlexAttention's BlockMask): a mask modifier's chain is
 * evaluated over whole tiles of bm query rows x bn keys by interval arithmetic, each tile of
 * each (b, h) classified EMPTY (every element false: the kernel skips it), FULL (every element
 * true: no mask evaluation) or PARTIAL (evaluate per element). Unknown is PARTIAL: the
 * classification is conservative, never wrong. A mask that depends on neither b nor h (no
 * GEN_INDEX along them, no tensor with a batch or head dim) is classified once for all of them. */
typedef enum ir_tile_class { IR_TILE_EMPTY, IR_TILE_PARTIAL, IR_TILE_FULL } ir_tile_class;
typedef struct ir_block_map {
    int64_t bm, bn;             /* tile rows (queries) and columns (keys) */
    int64_t n_qt, n_kt;         /* tiles: ceil(Sq / bm), ceil(Skv / bn) */
    bool per_batch, per_head;   /* false: the mask does not depend on b (h); one classification */
    int64_t nb, nh;             /* classified batches and heads: B or 1, Hq or 1 (per_batch, per_head) */
    uint8_t *cls;               /* [nb][nh][n_qt][n_kt] ir_tile_class */
    /* FlexAttention's lists per (b, h, query tile), key tiles ascending: the PARTIAL tiles (the
     * kernel evaluates the mask) and the FULL tiles (it does not); together the non-empty ones */
    int32_t *kv_num_blocks;     /* [nb][nh][n_qt] */
    int32_t *kv_indices;        /* [nb][nh][n_qt][n_kt], the first kv_num_blocks used */
    int32_t *full_kv_num_blocks; /* [nb][nh][n_qt] */
    int32_t *full_kv_indices;   /* [nb][nh][n_qt][n_kt], the first full_kv_num_blocks used */
} ir_block_map;
/* Classifies the tiles of mask modifier m (kind IR_MOD_MASK, built with its tensors' host data)
 * over m->dims; bm, bn >= 1. BAD_PARAM for a chain that is not a mask modifier or bad tile
 * sizes, ALLOC_FAILED when out of memory (out is then empty). Free with ir_block_map_free. */
hipdnnStatus_t ir_block_classify(const ir_score_mod *m, int64_t bm, int64_t bn, ir_block_map *out);
/* The class of tile (qt, kt) of (b, h) (any b, h when the mask does not depend on them). */
ir_tile_class ir_block_class(const ir_block_map *map, int64_t b, int64_t h, int64_t qt, int64_t kt);
void ir_block_map_free(ir_block_map *map);

/* Pointwise math of one element: y = f(a, b, c) in double (index = GEN_INDEX position). */
double ir_pointwise_eval(const ir_pointwise *p, double a, double b, double c, int64_t index);
/* Arity (inputs) of a pointwise mode: 1, 2 or 3; 0 for an unknown mode. */
int ir_pointwise_arity(int mode);

#endif
