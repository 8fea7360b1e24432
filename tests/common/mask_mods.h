/* mask_mods.h — the SDPA mask modifiers the mask tests build, through the public API only.
 *
 * Each kind is a finalized sub-graph of POINTWISE ops (HIPDNN_ATTR_OPERATION_SDPA_*_MASK_MOD_*)
 * over the scores [B,H,Sq,Skv], the host data of its tensors in memory, and mm_keep: the same
 * mask written out directly in C from that data, independent of the library, so a test can
 * build the explicit [B,H,Sq,Skv] mask itself. Row i = query, column j = key:
 *   MM_DOCUMENT       doc_q[b,i] == doc_kv[b,j] and j <= i    (doc_q [B,1,Sq,1], doc_kv [B,1,1,Skv] INT32)
 *   MM_DOCUMENT_ONLY  doc_q[b,i] == doc_kv[b,j]               (no index read: no index space)
 *   MM_PREFIX_LM      j <= i or j < prefix[b]                 (prefix [B,1,1,1] INT32)
 *   MM_SLIDING_CHUNK  j <= i and floor(i/C) − floor(j/C) <= 1 (C by value; FLOAT indices)
 *   MM_WINDOW         −shift <= i − j < w                      (w, shift by value; INT32 indices)
 *   MM_HEAD_WINDOW    j <= i and i − j < w[h]                  (w [1,H,1,1] INT32: per head)
 * Uses nothing but <hipdnn_backend.h>, Criterion and tu.h (tests/api may use it).
 */
#ifndef HIPDNN_TESTS_MASK_MODS_H
#define HIPDNN_TESTS_MASK_MODS_H

#include "tu.h"

typedef enum mm_kind {
    MM_DOCUMENT, MM_DOCUMENT_ONLY, MM_PREFIX_LM, MM_SLIDING_CHUNK, MM_WINDOW, MM_HEAD_WINDOW, MM_N_KINDS
} mm_kind;

extern const char *const mm_kind_names[MM_N_KINDS];

#define MM_MAX_OWNED 32

typedef struct mm_mask {
    mm_kind kind;
    int64_t dims[4];                   /* B, H, Sq, Skv */
    hipdnnBackendDescriptor_t graph;   /* the finalized sub-graph */
    int64_t in_uid, out_uid;           /* MASK_MOD_INPUT_UID / _OUTPUT_UID */
    int n_mem;                         /* tensors in memory a variant pack binds */
    int64_t mem_uid[2];
    int64_t mem_dims[2][4];
    int32_t *mem[2];                   /* their packed host data (mm_fill) */
    int64_t chunk, w, shift;           /* by-value constants of SLIDING_CHUNK, WINDOW */
    hipdnnBackendDescriptor_t owned[MM_MAX_OWNED];
    int n_owned;
} mm_mask;

/* Builds `kind` over dims (B, H, Sq, Skv) with uids from `base` on (its sub-graph finalized on
 * handle) and random constants, data filled (mm_fill); asserts success. */
void mm_build(mm_mask *m, hipdnnHandle_t handle, mm_kind kind, const int64_t dims[4], int64_t base);
/* Fresh random data for its tensors in memory: document ids non-decreasing along the tokens with
 * random boundaries (queries and keys alike or apart, so some rows may see no key), prefix
 * lengths in [0, Skv], per-head windows in [1, Sq]. */
void mm_fill(mm_mask *m);
/* Whether score (b, h, i, j) is kept, computed here from the data. */
bool mm_keep(const mm_mask *m, int64_t b, int64_t h, int64_t i, int64_t j);
/* Sets the three MASK_MOD attributes on an unfinalized SDPA forward (bwd false) or backward op. */
void mm_set(hipdnnBackendDescriptor_t op, bool bwd, const mm_mask *m);
void mm_free(mm_mask *m);
/* Not a mask: an index-aware score modifier over dims (B, H, Sq, Skv) into m (its sub-graph
 * finalized on handle, in_uid / out_uid set; n_mem 0: the caller binds and fills its tensors):
 * S + slope[h]·(j − i) + kbias[j] (ALiBi written out, plus a key bias), S uid base, slope
 * [1,H,1,1] base + 1 and kbias [1,1,1,Skv] base + 2 (FLOAT, in memory), the result base + 8
 * (FLOAT). Freed with mm_free. */
void mm_build_slope_score_mod(mm_mask *m, hipdnnHandle_t handle, const int64_t dims[4], int64_t base);

#endif
