/* cg_int.h — private to codegen/: what the template emitters share.
 *
 * Emitting a kernel is: collect its parameters (tensor pointers and run-time scalars), choose
 * the template's sizes, write the hooks, and assemble prelude + defines + hooks + template
 * (cg_emit.c). Values inside hooks are float registers named t<tensor index> (arrays of VEC
 * for vectorized templates); pointers are parameters named p<tensor index>, scalars s<index>.
 */
#ifndef HIPDNN_CG_INT_H
#define HIPDNN_CG_INT_H

#include "codegen/cg.h"

/* The template text embedded at build time (cmake/embed.cmake), or NULL. */
const char *cg_template_text(const char *name);
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

/* Assembles the final source: prelude, common helpers, defines, hooks, #line, template. */
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
hipdnnStatus_t cg_emit_conv(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                            cg_kernel *out, char *why, size_t why_len);

#endif
