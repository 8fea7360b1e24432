/* fe_check.h — private contract of the operation checks (fe_check*.c): the helpers every
 * op family's rules use.
 *
 * fe_check.c owns these helpers, fe_check_op (the finalize hook of every operation class,
 * dispatching through the class's `check`, from graph/fe_ops.def) and the custom op's rule;
 * each family's rules live in one file: fe_check_pointwise.c, fe_check_gemm.c (matmul,
 * convolutions), fe_check_norm.c (batchnorm family, gen-stats, layernorm, rmsnorm),
 * fe_check_sdpa.c (attention, paged cache load), fe_check_quant.c (block-scale quantize and
 * dequantize). A rule passes when its (optional) tensor is unset; a failing rule returns
 * BAD_PARAM with a message naming the descriptor type, the attribute(s) and the offending dims
 * or values; nothing here modifies the object. Rules read tensor dims only, never strides (a
 * size-1 dim's stride is meaningless, op-semantics.md §0.4), so they hold for any stride order.
 * Tensor letters follow op-semantics.md: conv X [N,C,spatial..], W [K,C/G,spatial..];
 * matmul A [..,M,K], B [..,K,N]; attention Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv].
 */
#ifndef HIPDNN_FE_CHECK_H
#define HIPDNN_FE_CHECK_H

#include "graph/fe_graph_int.h"

#define OK HIPDNN_STATUS_SUCCESS
#define TRY(e)                                                                                   \
    do {                                                                                        \
        hipdnnStatus_t st_ = (e);                                                               \
        if (st_ != OK)                                                                          \
            return st_;                                                                         \
    } while (0)

/* A tensor-valued attribute: its short name for messages ("A", "INV_VARIANCE") and, when set,
 * the tensor. */
typedef struct fe_port {
    const char *name;
    bool set;
    fe_tensor_view t;
} fe_port;

/* The port of attribute ID of `op` (a variable in scope), named NAME in messages. */
#define PORT(ID, NAME) fe_port_of(op, ID, NAME)

/* "[4,64,32]"; a negative entry (an expected dim that may be anything) prints as "*". */
typedef struct fe_dims_text {
    char s[FE_MAX_RANK * 21 + 3];
} fe_dims_text;

#define DIMS(p) fe_dims_str((p)->t.rank, (p)->t.dims).s

fe_port fe_port_of(fe_obj *op, hipdnnBackendAttributeName_t id, const char *name);
fe_dims_text fe_dims_str(int rank, const int64_t *d);
/* Raises BAD_PARAM with "<descriptor type>: <message>". */
hipdnnStatus_t fe_op_bad(const fe_obj *op, const char *fmt, ...) BASE_PRINTF(2, 3);
/* The enumerator spelling of op's attribute id (for messages). */
const char *fe_op_attr_name(const fe_obj *op, hipdnnBackendAttributeName_t id);
bool fe_dims_equal(const fe_port *a, int rank, const int64_t *dims);
bool fe_is_scalar(const fe_port *p);
/* a * b, or INT64_MAX when that overflows (a capacity that large never limits anything). */
int64_t fe_mul_sat(int64_t a, int64_t b);
hipdnnStatus_t fe_need_rank(fe_obj *op, const fe_port *p, int lo, int hi);
/* p's dims are exactly `want` (entries < 0 match anything); `what` describes the shape. */
hipdnnStatus_t fe_need_shape(fe_obj *op, const fe_port *p, int rank, const int64_t *want,
                             const char *what);
hipdnnStatus_t fe_need_same(fe_obj *op, const fe_port *p, const fe_port *ref);
hipdnnStatus_t fe_need_scalar(fe_obj *op, const fe_port *p);
/* Numpy broadcasting onto an output of equal rank: every dim equals the target's or is 1
 * (target entries < 0 are unknown and accept anything). */
hipdnnStatus_t fe_need_broadcast(fe_obj *op, const fe_port *p, int rank, const int64_t *to,
                                 const char *what);
/* A per-channel tensor of x: x's rank, dim 1 == C, every other dim 1. */
hipdnnStatus_t fe_need_per_channel(fe_obj *op, const fe_port *p, const fe_port *x);
hipdnnStatus_t fe_need_int(fe_obj *op, const fe_port *p);
/* The ports are all set or all unset. */
hipdnnStatus_t fe_need_together(fe_obj *op, const fe_port *ps, int n);

#endif
