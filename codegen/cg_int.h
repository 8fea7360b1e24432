/* cg_int.h — private to codegen/: what the template emitters share.
 *
 * Emitting a kernel is: collect its parameters (tensor pointers and run-time scalars), choose
 * the template's sizes, write the hooks, and assemble prelude + defines + hooks + template.
 * cg_emit.c dispatches to the emitters (cg_emit_* below) with the target's caps filled
 * (cg_target.c); the emitters share cg_common.c (types, parameters, constants, pointwise
 * statements), cg_assemble.c (templates, assembly) and cg_dyn.c, which call no emitter and
 * nothing of cg_emit.c. Values inside hooks are float registers named t<tensor index> (arrays of
 * VEC for vectorized templates); pointers are parameters named p<tensor index>, scalars s<index>.
 */
#ifndef HIPDNN_CG_INT_H
#define HIPDNN_CG_INT_H

#include "codegen/cg.h"

/* ---- targets (cg_target.c) ---- */
/* The target cg_supports judges against: NVIDIA sm_90, 132 SMs, default knobs. */
cg_target cg_default_target(void);
/* t with its caps filled from its platform and arch (what the entry points hand the emitters). */
cg_target cg_target_with_caps(const cg_target *t);

/* ---- templates and assembly (cg_assemble.c) ---- */
/* The template text embedded at build time (cmake/embed.cmake), or NULL. */
const char *cg_template_text(const char *name);
/* ---- types, parameters, constants, pointwise statements (cg_common.c) ---- */
/* The HD_DT_* spelling of a type, or NULL when templates cannot load/store it. */
const char *cg_dtype(hipdnnDataType_t t);
/* cg_dtype, plus the packed 4-bit types (FP4_E2M1, INT4): templates load them one element at a
 * time (hd_ld) and round to them (hd_round), but only whole-byte writers may store them. */
const char *cg_dtype_load(hipdnnDataType_t t);
/* The kernel's parameters: every tensor it reads from or writes to memory, and every run-time
 * scalar it uses, in a deterministic order. Fills out->args; writes "HD_PARAMS"/"HD_ARGS". */
hipdnnStatus_t cg_collect_params(const ir_graph *g, const ir_kernel *k, cg_kernel *out,
                                 base_sb *defs);
/* A float expression for a scalar operand that needs no memory access (a by-value constant or a
 * run-time scalar parameter), or NULL for a tensor in memory. buf holds the text. */
const char *cg_scalar_expr(const ir_graph *g, int ti, char *buf, size_t n);
/* The value of tensor ti when it is a by-value scalar (a compile-time constant): true and *v. */
bool cg_const_value(const ir_graph *g, int ti, double *v);
/* Emits `<out> = hd_pointwise<MODE>(a, b, c, params);` for pointwise op `op` (GEN_INDEX uses
 * index_expr). The operand strings are float expressions. */
void cg_pointwise_stmt(base_sb *sb, const ir_op *op, const char *out, const char *a, const char *b,
                       const char *c, const char *index_expr);
/* ---- the elementwise body (cg_pointwise.c) ---- */
/* Pointwise, batchnorm inference and block-scale dequantize: ops computed element by element. */
bool cg_is_elementwise(ir_op_kind kind);
/* Whether elementwise op `op` of kernel k can be emitted (types, dequantize scale from memory). */
bool cg_check_elementwise_op(const ir_graph *g, const ir_kernel *k, const ir_op *op, char *why,
                             size_t n);
/* Declares hd_i64 c0..c(r-1): `index` (a variable, consumed) decomposed over shape's dims in
 * `order` (order[rank - 1] fastest; NULL: logical order). With vec > 1 the fastest dim counts
 * groups of vec elements and its coordinate is the group's first element. */
void cg_coords(const ir_tensor *shape, const int *order, int vec, const char *index, base_sb *sb);
/* Element offset of tensor t at coordinates c0.. of an iteration shape of rank r (t's dims
 * right-aligned; a size-1 dim broadcasts); with div, dim d's coordinate is divided by div[d]. */
void cg_offset_expr(const ir_tensor *t, int r, const int64_t *div, base_sb *sb);
/* The statements of kernel k's elementwise ops, in order, at coordinates c0..c(rank-1): each
 * operand loaded once into `float t<i>` (have[] marks registers), each result rounded to its
 * type, results the kernel writes stored (under `if (guard)` when guard is not NULL). */
void cg_elementwise(const ir_graph *g, const ir_kernel *k, int rank, bool *have, const char *guard,
                    base_sb *sb);

/* ---- block scaling (cg_quant.c) ---- */
/* The largest finite value of a quantized element type (FP8_E4M3, FP8_E5M2, INT8, FP4_E2M1), or
 * 0 for a type the kernels cannot quantize to. */
double cg_quant_max(hipdnnDataType_t t);
/* Whether the element, scale and input types of quantize op `op` have kernel support. */
bool cg_check_quant_types(const ir_graph *g, const ir_op *op, char *why, size_t n);

/* ---- dynamic shapes (cg_dyn.c) ----
 * A dynamic-shape graph's kernels (ir_graph.dynamic_shape) take every value that depends on
 * the dims varying between calls (row and element counts, outer dims' sizes and products,
 * strides along them) as int64 parameters (CG_ARG_INT64) named dy_*, never as literals, so
 * graphs differing only in those dims emit the same source. Emitters that support it
 * (pointwise, rownorm, matmul) collect their parameters with cg_add_params, name each such
 * value through cg_dyn_put while writing hooks, and end with cg_dyn_finish, which appends the
 * int64 parameters (before any tensor map) and writes HD_PARAMS / HD_ARGS. */
typedef struct cg_dyn {
    char names[CG_MAX_ARGS][24]; /* the parameters so far, in first-use order */
    int64_t values[CG_MAX_ARGS];
    int n;
    bool overflow;               /* more than CG_MAX_ARGS of them (cg_dyn_finish fails) */
} cg_dyn;
/* Appends the value's expression: parameter `name` (registered with `value` on first use; a
 * name is one value in one kernel), or "1LL" when unit_literal and value is 1 (a unit stride
 * stays a unit stride whatever the sizes, and keeps the addressing simple). */
void cg_dyn_put(cg_dyn *d, base_sb *sb, bool unit_literal, int64_t value, const char *fmt, ...)
    BASE_PRINTF(5, 6);
/* The tensor and scalar parameters of kernel k (as cg_collect_params, without the defines;
 * cg_common.c, as is cg_dyn_finish, beside the HD_PARAMS writer they share). */
hipdnnStatus_t cg_add_params(const ir_graph *g, const ir_kernel *k, cg_kernel *out);
/* Appends d's int64 parameters to out->args (before its tensor maps, which stay last) and
 * writes "HD_PARAMS"/"HD_ARGS" over every parameter but the tensor maps. */
hipdnnStatus_t cg_dyn_finish(const cg_dyn *d, cg_kernel *out, base_sb *defs);
/* Groups dims[0..n) (slowest first) of an iteration shape of rank r, extents ext[], for the
 * tensors ts (right-aligned to the shape; a dim is broadcast where a tensor lacks it, has size
 * 1 or stride 0): dims of extent 1 are dropped (group -1); with `merge`, a dim joins the group
 * of the dim before it when every tensor is broadcast along both or steps along the outer one
 * by the inner one's stride times its extent (the pair then indexes like one dim). group[i]
 * is dims[i]'s group, numbered slowest first; returns the number of groups. */
int cg_dyn_groups(const ir_tensor *const *ts, int nt, int r, const int64_t *ext, const int *dims, int n,
                  bool merge, int *group);
/* Appends the coordinate of dim d, the i-th of n grouped dims (slowest first) of flat index
 * `var`: var itself (n = 1), "(var / div)" (the slowest), "(var % size)" (the fastest) or
 * "((var / div) % size)"; size (the dim's extent) and div (the product of the later dims')
 * are parameters <prefix>sz<d> and <prefix>dv<d>. */
void cg_dyn_coord(cg_dyn *dy, base_sb *sb, const char *var, int i, int n, int64_t size, int64_t div,
                  const char *prefix, int d);
/* Whether tensor t (right-aligned to an iteration shape of rank r) is broadcast along dim d. */
bool cg_broadcast_along(const ir_tensor *t, int r, int d);

/* Assembles the final source (cg_assemble.c) for t, its caps filled (cg_target_with_caps): the
 * vendor's prelude, common helpers, the template's device library (sdpa_common.h for the
 * attention templates), defines, hooks, #line, template. */
hipdnnStatus_t cg_assemble(const cg_target *t, const char *tpl, const base_sb *defs,
                           const base_sb *hooks, cg_kernel *out);

hipdnnStatus_t cg_emit_pointwise(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                 cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_rownorm(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                               cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_quantize(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_paged(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                             cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_matmul(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                              cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_channorm(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                cg_kernel *out, char *why, size_t why_len);
/* The scratch bytes cg_emit_channorm asks for kernel k; 0 when it cannot emit k. */
int64_t cg_channorm_scratch(const ir_graph *g, const ir_kernel *k);
hipdnnStatus_t cg_emit_sdpa(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                            cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_sdpa_bwd(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                cg_kernel *out, char *why, size_t why_len);
/* The scratch bytes cg_emit_sdpa (split keys) and cg_emit_sdpa_bwd ask for kernel k; 0 when they
 * cannot emit k or need none. */
int64_t cg_sdpa_fwd_scratch(const ir_graph *g, const ir_kernel *k);
int64_t cg_sdpa_bwd_scratch(const ir_graph *g, const ir_kernel *k);
hipdnnStatus_t cg_emit_conv(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                            cg_kernel *out, char *why, size_t why_len);

#endif
