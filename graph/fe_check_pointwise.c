/* fe_check_pointwise.c — the finalize rules of the pointwise operation (op-semantics §0.4, §2.2).
 *
 * One function per operation, named in the `check` column of graph/fe_ops.def and called
 * by fe_check_op (fe_check.c) after the generic and shared rules; the helpers and the
 * conventions (tensor letters, messages) are fe_check.h's.
 */
#include <stdio.h>
#include <string.h>

#include "graph/fe_check.h"

/* ---- pointwise (op-semantics §0.4, §2.2) ------------------------------------------------------- */

static int pw_inputs(int mode)
{
    switch (mode) {
    case HIPDNN_POINTWISE_BINARY_SELECT: return 3;
    case HIPDNN_POINTWISE_ADD: case HIPDNN_POINTWISE_ADD_SQUARE: case HIPDNN_POINTWISE_DIV:
    case HIPDNN_POINTWISE_MAX: case HIPDNN_POINTWISE_MIN: case HIPDNN_POINTWISE_MUL:
    case HIPDNN_POINTWISE_SUB: case HIPDNN_POINTWISE_CMP_EQ: case HIPDNN_POINTWISE_CMP_NEQ:
    case HIPDNN_POINTWISE_CMP_GT: case HIPDNN_POINTWISE_CMP_GE: case HIPDNN_POINTWISE_CMP_LT:
    case HIPDNN_POINTWISE_CMP_LE: case HIPDNN_POINTWISE_LOGICAL_AND:
    case HIPDNN_POINTWISE_LOGICAL_OR: case HIPDNN_POINTWISE_RELU_BWD:
    case HIPDNN_POINTWISE_TANH_BWD: case HIPDNN_POINTWISE_SIGMOID_BWD:
    case HIPDNN_POINTWISE_ELU_BWD: case HIPDNN_POINTWISE_GELU_BWD:
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_BWD: case HIPDNN_POINTWISE_SOFTPLUS_BWD:
    case HIPDNN_POINTWISE_SWISH_BWD: return 2;
    default: return 1;
    }
}

static hipdnnStatus_t pw_arity(fe_obj *op, int mode, const fe_port in[3])
{
    int n = pw_inputs(mode);
    const char *name = fe_enum_to_name("PointwiseMode", mode);
    for (int i = 1; i < 3; i++) {
        if (i < n && !in[i].set)
            return fe_op_bad(op, "mode %s takes %d inputs but %s is not set", name, n, in[i].name);
        if (i >= n && in[i].set)
            return fe_op_bad(op, "mode %s takes %d input(s); %s must not be set", name, n, in[i].name);
    }
    return OK;
}

static hipdnnStatus_t pw_params(fe_obj *op, int mode, int rank)
{
    if (mode == HIPDNN_POINTWISE_GEN_INDEX) {
        if (!fe_op_has(op, HIPDNN_ATTR_POINTWISE_AXIS))
            return fe_op_bad(op, "mode GEN_INDEX needs HIPDNN_ATTR_POINTWISE_AXIS");
        int64_t axis = fe_get(op, HIPDNN_ATTR_POINTWISE_AXIS)->one.i64;
        if (axis < 0 || axis >= rank)
            return fe_op_bad(op, "HIPDNN_ATTR_POINTWISE_AXIS %lld is outside [0, %d) for OUT_0 of rank %d",
                       (long long)axis, rank, rank);
    }
    bool relu = mode == HIPDNN_POINTWISE_RELU_FWD || mode == HIPDNN_POINTWISE_RELU_BWD;
    if (relu && fe_op_has(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP) &&
        fe_op_has(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP)) {
        float lo = fe_get(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP)->one.f32;
        float hi = fe_get(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP)->one.f32;
        if (!(lo <= hi))
            return fe_op_bad(op, "HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP %g exceeds "
                       "HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP %g", (double)lo, (double)hi);
    }
    return OK;
}

/* Inputs broadcast onto OUT_0 (the output's shape is given, never deduced, at this level). A
 * scalar (every dim 1) of lower rank broadcasts too: hipDNN's frontends pass a by-value
 * scalar as [1] whatever OUT_0's rank (lowering widens it, fe_lower.c). */
hipdnnStatus_t fe_check_pointwise(fe_obj *op)
{
    int mode = fe_get(op, HIPDNN_ATTR_POINTWISE_MODE)->one.e;
    fe_port in[3] = {PORT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, "IN_0"),
                  PORT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, "IN_1"),
                  PORT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT, "IN_2")};
    fe_port out = PORT(HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, "OUT_0");
    TRY(pw_arity(op, mode, in));
    for (int i = 0; i < 3; i++)
        if (!(in[i].set && in[i].t.rank < out.t.rank && fe_is_scalar(&in[i])))
            TRY(fe_need_broadcast(op, &in[i], out.t.rank, out.t.dims, "OUT_0"));
    return pw_params(op, mode, out.t.rank);
}
