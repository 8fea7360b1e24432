/* ir_ref_pointwise.c — reference semantics of the POINTWISE op: every hipdnnPointwiseMode_t.
 *
 * Owns: ir_pointwise_eval (the math of one element), ir_pointwise_arity, and ir_ref_pointwise
 * (numpy broadcasting of the inputs onto the output's dims). Modes and formulas follow
 * ../shared/reference/op-semantics.md §2.2; a = IN_0, b = IN_1, c = IN_2, all in double.
 *
 * Choices where the reference is silent (the spec every GPU kernel follows):
 *  - Activation-backward modes (*_BWD) take cuDNN's operand order: IN_0 = dy, IN_1 = x, and
 *    return dx = dy * f'(x) (derivative of the matching *_FWD mode at x, same parameters).
 *  - RELU_FWD: x <= lo ? lo + slope*(x - lo) : (x >= hi ? hi : x)  (lo/hi/slope = relu_lower,
 *    relu_upper, relu_slope); RELU_BWD: x <= lo ? slope*dy : (x > hi ? 0 : dy). NaN propagates.
 *  - SOFTPLUS is the exact log(1 + e^(beta x)) / beta (no linear cut-off for large beta x).
 *  - MAX / MIN return the other operand when one is NaN (IEEE maxNum/minNum, like fmax).
 *  - CMP_* give 1 or 0 (a NaN operand compares false, except NEQ which gives 1); logical ops
 *    treat any nonzero value (NaN included) as true and give 1 or 0.
 *  - BINARY_SELECT: c != 0 ? a : b (NaN predicate selects a).
 *  - GEN_INDEX: the output element's index along `axis`; a negative axis counts from the end;
 *    IN_0 only supplies the shape and may be absent.
 *  - Math is in double whatever the output type; integer outputs round to nearest even on store
 *    (so DIV into INT32 rounds, it does not truncate).
 */
#include <math.h>

#include "ir/ir_int.h"

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static double softplus(double x, double beta)
{
    double t = beta * x; /* log(1 + e^t) = max(t, 0) + log1p(e^-|t|) */
    return (fmax(t, 0.0) + log1p(exp(-fabs(t)))) / beta;
}

#define GELU_K 0.7978845608028654     /* sqrt(2/pi) */
#define INV_SQRT_2PI 0.3989422804014327 /* 1/sqrt(2 pi) */
#define GELU_C 0.044715

static double gelu_tanh(double x)
{
    return 0.5 * x * (1.0 + tanh(GELU_K * (x + GELU_C * x * x * x)));
}

static double gelu_tanh_grad(double x)
{
    double t = tanh(GELU_K * (x + GELU_C * x * x * x));
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_K * (1.0 + 3.0 * GELU_C * x * x);
}

static double gelu_grad(double x)
{
    double cdf = 0.5 * erfc(-x / sqrt(2.0));
    double pdf = exp(-0.5 * x * x) * INV_SQRT_2PI;
    return cdf + x * pdf;
}

static double swish_grad(double x, double beta)
{
    double s = sigmoid(beta * x);
    return s + beta * x * s * (1.0 - s);
}

static double relu_fwd(const ir_pointwise *p, double x)
{
    if (x <= p->relu_lower)
        return p->relu_lower + p->relu_slope * (x - p->relu_lower);
    return x >= p->relu_upper ? p->relu_upper : x;
}

static double relu_bwd(const ir_pointwise *p, double dy, double x)
{
    if (x <= p->relu_lower)
        return p->relu_slope * dy;
    if (x > p->relu_upper)
        return 0.0;
    return isnan(x) ? x : dy;
}

/* Activations and their backward modes (a = x for FWD; a = dy, b = x for BWD). */
static double eval_activation(const ir_pointwise *p, double a, double b, bool *known)
{
    switch (p->mode) {
    case HIPDNN_POINTWISE_RELU_FWD: return relu_fwd(p, a);
    case HIPDNN_POINTWISE_RELU_BWD: return relu_bwd(p, a, b);
    case HIPDNN_POINTWISE_TANH_FWD: return tanh(a);
    case HIPDNN_POINTWISE_TANH_BWD: return a * (1.0 - tanh(b) * tanh(b));
    case HIPDNN_POINTWISE_SIGMOID_FWD: return sigmoid(a);
    case HIPDNN_POINTWISE_SIGMOID_BWD: return a * sigmoid(b) * (1.0 - sigmoid(b));
    case HIPDNN_POINTWISE_ELU_FWD: return a > 0 ? a : p->elu_alpha * expm1(a);
    case HIPDNN_POINTWISE_ELU_BWD: return a * (b > 0 ? 1.0 : p->elu_alpha * exp(b));
    case HIPDNN_POINTWISE_GELU_FWD: return 0.5 * a * erfc(-a / sqrt(2.0));
    case HIPDNN_POINTWISE_GELU_BWD: return a * gelu_grad(b);
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_FWD: return gelu_tanh(a);
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_BWD: return a * gelu_tanh_grad(b);
    case HIPDNN_POINTWISE_SOFTPLUS_FWD: return softplus(a, p->softplus_beta);
    case HIPDNN_POINTWISE_SOFTPLUS_BWD: return a * sigmoid(p->softplus_beta * b);
    case HIPDNN_POINTWISE_SWISH_FWD: return a * sigmoid(p->swish_beta * a);
    case HIPDNN_POINTWISE_SWISH_BWD: return a * swish_grad(b, p->swish_beta);
    default: *known = false; return NAN;
    }
}

/* Plain unary math. */
static double eval_unary(int mode, double a, bool *known)
{
    switch (mode) {
    case HIPDNN_POINTWISE_ABS: return fabs(a);
    case HIPDNN_POINTWISE_CEIL: return ceil(a);
    case HIPDNN_POINTWISE_ERF: return erf(a);
    case HIPDNN_POINTWISE_EXP: return exp(a);
    case HIPDNN_POINTWISE_FLOOR: return floor(a);
    case HIPDNN_POINTWISE_IDENTITY: return a;
    case HIPDNN_POINTWISE_LOG: return log(a);
    case HIPDNN_POINTWISE_LOGICAL_NOT: return a == 0;
    case HIPDNN_POINTWISE_NEG: return -a;
    case HIPDNN_POINTWISE_RECIPROCAL: return 1.0 / a;
    case HIPDNN_POINTWISE_RSQRT: return 1.0 / sqrt(a);
    case HIPDNN_POINTWISE_SIN: return sin(a);
    case HIPDNN_POINTWISE_SQRT: return sqrt(a);
    case HIPDNN_POINTWISE_TAN: return tan(a);
    default: *known = false; return NAN;
    }
}

/* Arithmetic, comparison and logical binary modes, and BINARY_SELECT. */
static double eval_binary(int mode, double a, double b, double c, bool *known)
{
    switch (mode) {
    case HIPDNN_POINTWISE_ADD: return a + b;
    case HIPDNN_POINTWISE_ADD_SQUARE: return a + b * b;
    case HIPDNN_POINTWISE_SUB: return a - b;
    case HIPDNN_POINTWISE_MUL: return a * b;
    case HIPDNN_POINTWISE_DIV: return a / b;
    case HIPDNN_POINTWISE_MAX: return fmax(a, b);
    case HIPDNN_POINTWISE_MIN: return fmin(a, b);
    case HIPDNN_POINTWISE_CMP_EQ: return a == b;
    case HIPDNN_POINTWISE_CMP_NEQ: return a != b;
    case HIPDNN_POINTWISE_CMP_GT: return a > b;
    case HIPDNN_POINTWISE_CMP_GE: return a >= b;
    case HIPDNN_POINTWISE_CMP_LT: return a < b;
    case HIPDNN_POINTWISE_CMP_LE: return a <= b;
    case HIPDNN_POINTWISE_LOGICAL_AND: return a != 0 && b != 0;
    case HIPDNN_POINTWISE_LOGICAL_OR: return a != 0 || b != 0;
    case HIPDNN_POINTWISE_BINARY_SELECT: return c != 0 ? a : b;
    default: *known = false; return NAN;
    }
}

double ir_pointwise_eval(const ir_pointwise *p, double a, double b, double c, int64_t index)
{
    bool known = true;
    if (p->mode == HIPDNN_POINTWISE_GEN_INDEX)
        return (double)index;
    double y = eval_binary(p->mode, a, b, c, &known);
    if (known)
        return y;
    known = true;
    y = eval_unary(p->mode, a, &known);
    if (known)
        return y;
    return eval_activation(p, a, b, &known);
}

int ir_pointwise_arity(int mode)
{
    switch (mode) {
    case HIPDNN_POINTWISE_BINARY_SELECT: return 3;
    case HIPDNN_POINTWISE_ADD:
    case HIPDNN_POINTWISE_ADD_SQUARE:
    case HIPDNN_POINTWISE_CMP_EQ:
    case HIPDNN_POINTWISE_CMP_GE:
    case HIPDNN_POINTWISE_CMP_GT:
    case HIPDNN_POINTWISE_CMP_LE:
    case HIPDNN_POINTWISE_CMP_LT:
    case HIPDNN_POINTWISE_CMP_NEQ:
    case HIPDNN_POINTWISE_DIV:
    case HIPDNN_POINTWISE_ELU_BWD:
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_BWD:
    case HIPDNN_POINTWISE_GELU_BWD:
    case HIPDNN_POINTWISE_LOGICAL_AND:
    case HIPDNN_POINTWISE_LOGICAL_OR:
    case HIPDNN_POINTWISE_MAX:
    case HIPDNN_POINTWISE_MIN:
    case HIPDNN_POINTWISE_MUL:
    case HIPDNN_POINTWISE_RELU_BWD:
    case HIPDNN_POINTWISE_SIGMOID_BWD:
    case HIPDNN_POINTWISE_SOFTPLUS_BWD:
    case HIPDNN_POINTWISE_SUB:
    case HIPDNN_POINTWISE_SWISH_BWD:
    case HIPDNN_POINTWISE_TANH_BWD: return 2;
    default: return mode >= HIPDNN_POINTWISE_ABS && mode <= HIPDNN_POINTWISE_TANH_FWD ? 1 : 0;
    }
}

/* ---- the op ----------------------------------------------------------------------------------- */

static hipdnnStatus_t check_operands(const ir_pointwise *p, const ir_ref_ctx *c, int64_t *axis)
{
    const ir_buf *y = IR_OUT(c, 0);
    int arity = ir_pointwise_arity(p->mode);
    if (arity == 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "pointwise: unknown mode %d", p->mode);
    if (y == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "pointwise: no output");
    for (int i = 0; i < arity; i++) {
        const ir_buf *in = IR_IN(c, i);
        if (in == NULL && p->mode != HIPDNN_POINTWISE_GEN_INDEX)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "pointwise: input %d missing", i);
        if (in != NULL && !ir_bcast_ok(in, y->dims, y->rank))
            return base_fail(HIPDNN_STATUS_BAD_PARAM,
                             "pointwise: input %d does not broadcast to the output", i);
    }
    *axis = p->axis < 0 ? p->axis + y->rank : p->axis;
    if (p->mode == HIPDNN_POINTWISE_GEN_INDEX && (*axis < 0 || *axis >= y->rank))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "pointwise: GEN_INDEX axis %lld out of range",
                         (long long)p->axis);
    return HIPDNN_STATUS_SUCCESS;
}

static double load_bcast(const ir_buf *in, const int64_t *idx, int rank)
{
    int64_t bidx[IR_MAX_RANK];
    if (in == NULL)
        return 0.0;
    ir_bcast_index(in, idx, rank, bidx);
    return ir_load(in, bidx);
}

hipdnnStatus_t ir_ref_pointwise(const ir_pointwise *p, const ir_ref_ctx *c)
{
    int64_t axis = 0, idx[IR_MAX_RANK] = {0};
    hipdnnStatus_t st = check_operands(p, c, &axis);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    ir_buf *y = IR_OUT(c, 0);
    int arity = ir_pointwise_arity(p->mode);
    if (ir_buf_numel(y) == 0)
        return HIPDNN_STATUS_SUCCESS;
    do {
        double v[3] = {0, 0, 0};
        for (int i = 0; i < arity; i++)
            v[i] = load_bcast(IR_IN(c, i), idx, y->rank);
        int64_t at = p->mode == HIPDNN_POINTWISE_GEN_INDEX ? idx[axis] : 0;
        ir_store(y, idx, ir_pointwise_eval(p, v[0], v[1], v[2], at));
    } while (ir_next_index(y, idx));
    return HIPDNN_STATUS_SUCCESS;
}
