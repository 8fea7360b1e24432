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
/* Assembles the final source: prelude, common helpers, defines, hooks, #line, template. */
hipdnnStatus_t cg_assemble(const cg_target *t, const char *tpl, const base_sb *defs,
                           const base_sb *hooks, cg_kernel *out);

hipdnnStatus_t cg_emit_pointwise(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                 cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_rownorm(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                               cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_matmul(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                              cg_kernel *out, char *why, size_t why_len);
hipdnnStatus_t cg_emit_channorm(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                cg_kernel *out, char *why, size_t why_len);
/* The scratch bytes cg_emit_channorm asks for kernel k; 0 when it cannot emit k. */
int64_t cg_channorm_scratch(const ir_graph *g, const ir_kernel *k);
hipdnnStatus_t cg_emit_conv(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                            cg_kernel *out, char *why, size_t why_len);

#endif
