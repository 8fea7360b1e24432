/* cg.h — the contract of codegen/: one fused IR kernel -> HIP source and its launch recipe.
 *
 * A template (a .hip file of kernel_templates/) is real HIP source; codegen prepends
 *   1. the platform prelude (prelude_nvidia.h / prelude_amd.h) and hd_common.h,
 *   2. generated #defines (sizes, threads, vector width, dtypes),
 *   3. generated __device__ hook functions (prologue / epilogue / loads / stores),
 * then `#line 1 "<template>"` and the template. The text is deterministic: the same kernel and
 * target give the same bytes. Codegen never sees the cache or the runtime: the frontend fills
 * cg_target from the runtime's device info and hands the source to the compiler.
 *
 * Templates today: pointwise.hip (pointwise regions with block-scale dequantize, batchnorm
 * inference), rownorm.hip (layernorm and rmsnorm with pointwise prologue and epilogue, ending
 * in a block-scale quantize when the fusion put one there), matmul.hip (mma.sync tensor-core
 * matmul with a pointwise epilogue, sm_80 and newer), matmul_sm90.hip (the same on Hopper:
 * wgmma + TMA, compiled for sm_90a), channorm.hip (per-channel reductions: batchnorm training
 * with its epilogue, batchnorm backward, genstats with its prologue), conv.hip (direct
 * convolution fwd / dgrad / wgrad, any layout) and conv_igemm.hip (forward convolution as a
 * tensor-core implicit GEMM), both with a pointwise epilogue, blockquant.hip (block-scale
 * quantize with an elementwise prologue), paged_load.hip (paged KV-cache gather) and
 * sdpa_fwd.hip (fused attention forward, FlashAttention-2 style on mma.sync) and sdpa_bwd.hip
 * (its backward: three launches sharing scratch). Kernels
 * without a template are NOT_SUPPORTED (cg_supports says why).
 *
 * Most kernels are one launch. A channel reduction (and the attention backward) is several passes over one source (partial
 * sums, their merge, the apply pass): the launches after the first are listed in `then`, run
 * in order with the same arguments, and share `scratch` bytes of the plan's workspace, passed
 * as the CG_ARG_WORKSPACE parameter. cg_scratch_bytes gives that size without emitting, from
 * the kernel's shapes alone (never the device), so the engine's workspace query is exact.
 *
 * Dynamic shapes (ir_graph.dynamic_shape, cg_dyn.c): pointwise, rownorm and matmul kernels take
 * the dims that vary between calls (outer dims, rows, M, batches) and the strides along them as
 * CG_ARG_INT64 parameters, so one source serves every size of them; the grid and the values are
 * per graph. Conv, channel norm, quantize, paged load and sdpa kernels stay static under the flag.
 */
#ifndef HIPDNN_CG_H
#define HIPDNN_CG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "ir/ir.h"

#define CG_MAX_ARGS 32
#define CG_MAX_LAUNCHES 5
#define CG_VERSION "cg-1"

/* What a target can run. cg_target.c fills it from the platform and arch names, and is the one
 * place in codegen and the frontend that reads those names: decisions ask these fields.
 *
 *   arch            vendor  arch_num  wave  mma_sync  wgmma (compiled for)  smem_optin  usual_sm_count
 *   sm_80           NVIDIA     80      32    yes       -                    163 KB      108
 *   sm_86, sm_89    NVIDIA   86, 89    32    yes       -                    227 KB (1)  84, 128
 *   sm_87           NVIDIA     87      32    yes       -                    163 KB      100
 *   sm_90           NVIDIA     90      32    yes       yes (sm_90a)         227 KB      132
 *   sm_100          NVIDIA    100      32    yes       -                    227 KB      148
 *   other sm_N      NVIDIA      N      32    N >= 80   -                    227 KB      100
 *   gfx90a, gfx942  AMD    0x90a, 0x942 64   -         -                     64 KB      110, 304
 *   gfx950          AMD      0x950     64    -         -                    160 KB      256
 *   other gfxN      AMD        0xN  64 to gfx9, 32 from gfx10   -           64 KB      100
 *   anything else   the platform's vendor (or unknown), arch_num 0, no tensor cores, 227 KB, 100
 *
 * wgmma is exactly sm_90's: an sm_90a or sm_100 target gets mma.sync. (1) sm_86 and sm_89 parts
 * have 99 KB; codegen has always planned with the 227 KB default there. */
typedef enum cg_vendor { CG_VENDOR_UNKNOWN, CG_VENDOR_NVIDIA, CG_VENDOR_AMD } cg_vendor;
typedef struct cg_caps {
    cg_vendor vendor;       /* the platform's; without a platform, the arch's prefix (sm_, gfx) */
    const char *platform;   /* the vendor's platform name (nvidia, amd), NULL when unknown */
    int arch_num;           /* sm_90 -> 90, sm_100 -> 100, gfx942 -> 0x942; 0: the arch does not
                             * parse as one of the vendor's */
    bool known;             /* the arch is a row of the table (its own SM count, shared memory) */
    int wave_size;          /* threads of a warp / wavefront; 0 unknown */
    bool mma_sync;          /* mma.sync, ldmatrix, cp.async, bf16: NVIDIA sm_80 and newer */
    bool wgmma;             /* wgmma, TMA (the copy engine) and setmaxnreg */
    const char *wgmma_arch; /* the arch kernels using wgmma compile for (sm_90a), NULL without */
    int smem_optin;         /* shared-memory bytes a block may opt in to */
    int usual_sm_count;     /* a flagship part's multiprocessors (compile-only targets) */
} cg_caps;

/* Fills *c for the target named by platform (nvidia, amd; NULL: from the arch's prefix) and arch
 * (sm_90, gfx942). Never fails: a name it cannot read gives no tensor cores (c->known false;
 * c->arch_num 0 when the arch does not parse; c->vendor CG_VENDOR_UNKNOWN without a vendor). */
void cg_caps_of(const char *platform, const char *arch, cg_caps *c);

typedef struct cg_target {
    const char *platform; /* nvidia or amd: the kernel header and plan keys print it */
    char arch[32];        /* sm_90, gfx942: the compile target */
    cg_caps caps;         /* what platform and arch can run: cg_emit and cg_supports_on fill it
                           * (cg_caps_of) before any emitter reads it; callers leave it */
    int sm_count;
    int max_vec;          /* widest vector access in elements (a knob; 0 = no limit) */
    int loads_per_thread; /* row kernels: vector loads in flight per thread (a knob; 0 = 4) */
    int row_prefetch;     /* row kernels: 1 = load the next row before reducing this one (a knob) */
    int shifted_stats;    /* layernorm: 1 = pivot-shifted sums within warps (a knob) */
    int mm_wgmma;         /* matmul: 1 (or 0 = default) wgmma template where it fits, -1 never */
    int mm_tile_n;        /* wgmma matmul: tile columns, 128 or 256 (0 = 256) */
    int mm_stages;        /* wgmma matmul: shared-memory pipeline stages, 2 .. 6 (0 = 4) */
    int sdpa_block_m;     /* attention: query rows per block, 64 or 128 (0 = by head dim) */
    int sdpa_block_n;     /* attention: keys per K/V tile, 32, 64 or 128 (0 = by head dim) */
    int sdpa_warps;       /* attention: warps per block, 4 or 8 (0 = 4) */
    int sdpa_stages;      /* attention: K/V shared-memory stages, 2 or 3 (0 = 2) */
    int sdpa_wgmma;       /* attention on sm_90: 1 (or 0 = default) wgmma products where they fit, -1 never */
    int sdpa_ws;          /* attention on sm_90 with wgmma: 1 a cp.async loading warpgroup, 2 a TMA producer warp,
                           * 3 the computing warps load, 4 a TMA producer warpgroup (setmaxnreg); 0 = by shape */
    int sdpa_bwd_atomic;  /* attention backward's dQ: 2 = accumulated in the dK/dV pass, 1 = a deterministic dQ
                           * pass, 0 = by shape (accumulated where wgmma and the copy engine take it) */
    int sdpa_pack;        /* attention forward: 2 = GQA heads packed into a block's rows, 1 = never, 0 = by shape */
    int sdpa_splits;      /* attention forward: key splits (flash-decoding), 1 = none, 0 = by shape */
    int sdpa_pingpong;    /* attention forward with loaders: 2 = the computing warpgroups take turns, 1 = never, 0 = by shape */
    int sdpa_intra;       /* attention forward with loaders: 2 = Q·Kᵀ(t) with P·V(t - 1), softmax(t) under P·V, 1 = never,
                           * 0 = by shape */
    int sdpa_persist;     /* attention forward with the TMA producer: 2 = persistent grid (3: Q in one buffer, 4: and
                           * a dynamic scheduler), 1 = never, 0 = by shape */
    int sdpa_sw_exp;      /* attention forward: 2 = half the softmax's exponentials by polynomial, 1 = never, 0 = by shape */
    int sdpa_o_tma;       /* attention forward with the TMA producer: 2 = O through shared memory and TMA stores,
                           * 1 = never, 0 = by shape */
    int sdpa_l2_ahead;    /* attention forward with the TMA producer, one block a work tile: 2 = prefetch the next
                           * wave's Q and first K/V tile into L2, 1 = never, 0 = by shape */
    int sdpa_trace;       /* attention forward with the TMA producer: 1 = print each work tile's phase times */
    int sdpa_ksplit;      /* attention forward, decode blocks of <= 16 packed rows: 4 = the warps split each K/V
                           * tile's keys, 1 = never, 0 = by shape */
    int sdpa_mod_fold;    /* attention forward with a score modifier: 2 = its constant factors folded, 1 = never,
                           * 0 = by shape (folded) */
    int sdpa_page_tile;   /* attention forward, paged K/V copied by threads where pages hold whole tiles: 2 =
                           * one page-table entry a tile, 1 = one for every row copied, 0 = by shape (a tile) */
    int sdpa_kv_ahead;    /* attention forward, paged K/V on the decode blocks with one entry a tile: the tiles
                           * (1 .. 4) the page-table entries load before the copies, 0 = by shape (1) */
    int sdpa_page_smem;   /* attention forward, one page-table entry a tile on the sequential loop: 2 = the block's
                           * entries in shared memory from its start, 1 = loaded as the tiles go, 0 = by shape */
} cg_target;

/* One kernel parameter, in order: a tensor's base pointer, a run-time scalar (float), the
 * kernel's scratch workspace (a pointer; tensor is -1), a tensor map over a tensor
 * (rt_tensor_map: 16-bit elements, 128-byte swizzle, zero fill; the engine encodes it at
 * launch, when the tensor's address is known, and passes it by value), or an int64 value
 * known at emit time but kept out of the source (`value`; tensor is -1): a dynamic-shape
 * kernel's varying dims, so one compiled kernel serves every size of them; or a counter (a
 * pointer; tensor is -1): 16 bytes of device memory the engine keeps per stream, zero before the
 * kernel's first launch there, which the kernel leaves zero when it ends. */
typedef enum cg_arg_kind {
    CG_ARG_TENSOR, CG_ARG_SCALAR, CG_ARG_WORKSPACE, CG_ARG_TMAP, CG_ARG_INT64, CG_ARG_COUNTER
} cg_arg_kind;
#define CG_TMAP_MAX_RANK 4
#define CG_MAX_TMAPS 4 /* tensor-map parameters of one kernel */
typedef struct cg_tmap {
    int rank;                               /* 1 .. CG_TMAP_MAX_RANK */
    uint64_t dims[CG_TMAP_MAX_RANK];        /* elements, innermost first */
    uint64_t strides[CG_TMAP_MAX_RANK - 1]; /* bytes between consecutive indices of dims 1 .. */
    uint32_t box[CG_TMAP_MAX_RANK];         /* elements one copy moves along each dim */
} cg_tmap;
typedef struct cg_arg {
    cg_arg_kind kind;
    int tensor;    /* IR tensor index */
    cg_tmap map;   /* CG_ARG_TMAP only */
    int64_t value; /* CG_ARG_INT64 only */
} cg_arg;

/* One more launch of an entry of the same source. */
typedef struct cg_launch {
    const char *entry;
    unsigned grid[3], block[3];
    unsigned smem;
    bool dependent; /* launched by rt_launch_dependent: the kernel calls hd_grid_wait before it
                     * reads what the launch before it wrote */
} cg_launch;

typedef struct cg_kernel {
    char *source;          /* the emitted HIP source (owned) */
    const char *entry;     /* the kernel's name in the source */
    char arch[32];         /* compile target: the target's arch, or its arch-specific variant
                            * (sm_90a) when the template uses instructions only that has */
    unsigned grid[3], block[3];
    unsigned smem;         /* dynamic shared memory bytes */
    int align;             /* bytes every tensor pointer must be aligned to (1 or 16) */
    cg_arg args[CG_MAX_ARGS];
    int n_args;
    cg_launch then[CG_MAX_LAUNCHES - 1]; /* launches after the first, in order */
    int n_then;
    int64_t scratch;       /* workspace bytes the launches share (CG_ARG_WORKSPACE), 0 = none */
} cg_kernel;

/* Whether a template can emit kernel k of g for target t (NULL: NVIDIA sm_90 with default
 * knobs); if not, `why` says why. cg_supports(...) is cg_supports_on(..., NULL, ...). */
bool cg_supports_on(const ir_graph *g, const ir_kernel *k, const cg_target *t, char *why, size_t why_len);
bool cg_supports(const ir_graph *g, const ir_kernel *k, char *why, size_t why_len);
/* Emits kernel k for target t. NOT_SUPPORTED when no template fits. */
hipdnnStatus_t cg_emit(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out);
void cg_kernel_free(cg_kernel *k);
/* The scratch workspace cg_emit will ask for kernel k (0 for single-pass kernels and kernels
 * without a template); independent of the target. */
int64_t cg_scratch_bytes(const ir_graph *g, const ir_kernel *k);
/* XXH3-64 of every template and prelude text with CG_VERSION: part of every kernel's cache key. */
uint64_t cg_templates_hash(void);
/* Writes the source to $HIPDNN_JIT_DUMP_DIR/<name>.cu when that variable is set. */
void cg_dump(const char *name, const char *source);

#endif
