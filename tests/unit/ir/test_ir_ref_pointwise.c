/* test_ir_ref_pointwise.c — the POINTWISE reference (ir/ir_ref_pointwise.c).
 *
 * Owns: hand-computed values of every mode; every mode of ir_pointwise_eval against a second
 * formulation written here (tolerance 1e-12 relative + 1e-13 absolute: the formulas differ only
 * in evaluation order); every *_BWD mode against central differences of its FWD mode
 * (h = 1e-5; tolerance 1e-6 absolute + 1e-6 relative; points within 1e-3 of a kink skipped);
 * arity; the op with numpy broadcasting on random shapes and layouts (DOUBLE output compared to
 * the formula, 1e-12) and FLOAT/HALF/BFLOAT16 outputs correctly rounded; GEN_INDEX; errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir_test_util.h"

#define NMODES 47
#define LN2 0.69314718055994530942

static ir_pointwise pw(int mode)
{
    ir_pointwise p = {mode, 0, INFINITY, 0, 1, 1, 1, -1};
    return p;
}

static ir_pointwise random_params(int mode)
{
    ir_pointwise p = pw(mode);
    if (tt_randint(0, 1)) {
        p.relu_lower = tt_unif(-1, 0.5);
        p.relu_upper = p.relu_lower + tt_unif(0.5, 3);
        p.relu_slope = tt_unif(0, 0.3);
    }
    p.swish_beta = tt_unif(0.5, 2);
    p.elu_alpha = tt_unif(0.2, 2);
    p.softplus_beta = tt_unif(0.5, 3);
    return p;
}

/* ---- a second formulation -------------------------------------------------------------------- */

static double sig(double x) { return exp(x) / (1 + exp(x)); }
static double gelu(double x) { return x * 0.5 * (1 + erf(x / sqrt(2))); }
static double gtanh(double x)
{
    return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * pow(x, 3))));
}
static double relu(const ir_pointwise *p, double x)
{
    if (x <= p->relu_lower)
        return p->relu_lower + p->relu_slope * (x - p->relu_lower);
    return fmin(x, p->relu_upper);
}

static double fwd_of(const ir_pointwise *p, int fwd_mode, double x)
{
    switch (fwd_mode) {
    case HIPDNN_POINTWISE_RELU_FWD: return relu(p, x);
    case HIPDNN_POINTWISE_TANH_FWD: return tanh(x);
    case HIPDNN_POINTWISE_SIGMOID_FWD: return sig(x);
    case HIPDNN_POINTWISE_ELU_FWD: return x > 0 ? x : p->elu_alpha * (exp(x) - 1);
    case HIPDNN_POINTWISE_GELU_FWD: return gelu(x);
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_FWD: return gtanh(x);
    case HIPDNN_POINTWISE_SOFTPLUS_FWD: return log1p(exp(p->softplus_beta * x)) / p->softplus_beta;
    case HIPDNN_POINTWISE_SWISH_FWD: return x / (1 + exp(-p->swish_beta * x));
    default: return NAN;
    }
}

/* The FWD mode whose derivative a BWD mode gives; 0 for other modes. */
static int fwd_mode_of(int bwd)
{
    switch (bwd) {
    case HIPDNN_POINTWISE_RELU_BWD: return HIPDNN_POINTWISE_RELU_FWD;
    case HIPDNN_POINTWISE_TANH_BWD: return HIPDNN_POINTWISE_TANH_FWD;
    case HIPDNN_POINTWISE_SIGMOID_BWD: return HIPDNN_POINTWISE_SIGMOID_FWD;
    case HIPDNN_POINTWISE_ELU_BWD: return HIPDNN_POINTWISE_ELU_FWD;
    case HIPDNN_POINTWISE_GELU_BWD: return HIPDNN_POINTWISE_GELU_FWD;
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_BWD: return HIPDNN_POINTWISE_GELU_APPROX_TANH_FWD;
    case HIPDNN_POINTWISE_SOFTPLUS_BWD: return HIPDNN_POINTWISE_SOFTPLUS_FWD;
    case HIPDNN_POINTWISE_SWISH_BWD: return HIPDNN_POINTWISE_SWISH_FWD;
    default: return 0;
    }
}

/* Backward formulas of op-semantics.md §2.2 (a = dy, b = x). */
static double bwd_formula(const ir_pointwise *p, int mode, double dy, double x)
{
    double s, bx, phi = exp(-x * x / 2) / sqrt(2 * 3.14159265358979323846);
    switch (mode) {
    case HIPDNN_POINTWISE_RELU_BWD:
        return x <= p->relu_lower ? p->relu_slope * dy : x > p->relu_upper ? 0 : dy;
    case HIPDNN_POINTWISE_TANH_BWD: return dy * (1 - pow(tanh(x), 2));
    case HIPDNN_POINTWISE_SIGMOID_BWD: return dy * sig(x) * (1 - sig(x));
    case HIPDNN_POINTWISE_ELU_BWD: return dy * (x > 0 ? 1 : p->elu_alpha * exp(x));
    case HIPDNN_POINTWISE_GELU_BWD: return dy * (0.5 * (1 + erf(x / sqrt(2))) + x * phi);
    case HIPDNN_POINTWISE_SOFTPLUS_BWD: return dy * sig(p->softplus_beta * x);
    case HIPDNN_POINTWISE_SWISH_BWD:
        bx = p->swish_beta * x, s = sig(bx);
        return dy * (s + bx * s * (1 - s));
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_BWD: {
        double k = sqrt(2 / 3.14159265358979323846), u = k * (x + 0.044715 * x * x * x);
        double du = k * (1 + 3 * 0.044715 * x * x);
        return dy * (0.5 * (1 + tanh(u)) + 0.5 * x * du / pow(cosh(u), 2));
    }
    default: return NAN;
    }
}

static double formula(const ir_pointwise *p, double a, double b, double c, int64_t index)
{
    int m = p->mode;
    if (fwd_mode_of(m))
        return bwd_formula(p, m, a, b);
    switch (m) {
    case HIPDNN_POINTWISE_ABS: return a < 0 ? -a : a;
    case HIPDNN_POINTWISE_ADD: return a + b;
    case HIPDNN_POINTWISE_ADD_SQUARE: return a + b * b;
    case HIPDNN_POINTWISE_BINARY_SELECT: return c ? a : b;
    case HIPDNN_POINTWISE_CEIL: return -floor(-a);
    case HIPDNN_POINTWISE_CMP_EQ: return a == b ? 1 : 0;
    case HIPDNN_POINTWISE_CMP_GE: return a >= b ? 1 : 0;
    case HIPDNN_POINTWISE_CMP_GT: return a > b ? 1 : 0;
    case HIPDNN_POINTWISE_CMP_LE: return a <= b ? 1 : 0;
    case HIPDNN_POINTWISE_CMP_LT: return a < b ? 1 : 0;
    case HIPDNN_POINTWISE_CMP_NEQ: return a == b ? 0 : 1;
    case HIPDNN_POINTWISE_DIV: return a * (1 / b);
    case HIPDNN_POINTWISE_ERF: return 1 - erfc(a);
    case HIPDNN_POINTWISE_EXP: return pow(2.718281828459045, a);
    case HIPDNN_POINTWISE_FLOOR: return -ceil(-a);
    case HIPDNN_POINTWISE_GEN_INDEX: return (double)index;
    case HIPDNN_POINTWISE_IDENTITY: return a;
    case HIPDNN_POINTWISE_LOG: return log2(a) / log2(2.718281828459045);
    case HIPDNN_POINTWISE_LOGICAL_AND: return (a != 0) * (b != 0);
    case HIPDNN_POINTWISE_LOGICAL_NOT: return a != 0 ? 0 : 1;
    case HIPDNN_POINTWISE_LOGICAL_OR: return (a != 0) + (b != 0) > 0;
    case HIPDNN_POINTWISE_MAX: return a > b ? a : b;
    case HIPDNN_POINTWISE_MIN: return a < b ? a : b;
    case HIPDNN_POINTWISE_MUL: return a * b;
    case HIPDNN_POINTWISE_NEG: return 0 - a;
    case HIPDNN_POINTWISE_RECIPROCAL: return 1 / a;
    case HIPDNN_POINTWISE_RSQRT: return pow(a, -0.5);
    case HIPDNN_POINTWISE_SIN: return sin(a);
    case HIPDNN_POINTWISE_SQRT: return pow(a, 0.5);
    case HIPDNN_POINTWISE_SUB: return a + -b;
    case HIPDNN_POINTWISE_TAN: return sin(a) / cos(a);
    default: return fwd_of(p, m, a);
    }
}

static bool positive_domain(int m)
{
    return m == HIPDNN_POINTWISE_LOG || m == HIPDNN_POINTWISE_SQRT || m == HIPDNN_POINTWISE_RSQRT;
}

/* Random operands suited to mode m: small integers sometimes, so comparisons see ties. */
static void operands(int m, double v[3])
{
    for (int i = 0; i < 3; i++) {
        v[i] = tt_randint(0, 3) == 0 ? (double)tt_randint(-2, 2) : tt_unif(-3, 3);
        if (positive_domain(m) && i == 0)
            v[i] = tt_unif(0.05, 5);
    }
    if (m == HIPDNN_POINTWISE_DIV && fabs(v[1]) < 0.1)
        v[1] = 0.5;
}

/* ---- tests ----------------------------------------------------------------------------------- */

typedef struct hand {
    int mode;
    double a, b, c, want;
} hand;

Test(ir_ref_pointwise, hand_computed)
{
    static const hand cases[] = {
        {HIPDNN_POINTWISE_ADD, 2, 3, 0, 5},
        {HIPDNN_POINTWISE_ADD_SQUARE, 1, 3, 0, 10},
        {HIPDNN_POINTWISE_SUB, 2, 5, 0, -3},
        {HIPDNN_POINTWISE_MUL, -2, 4, 0, -8},
        {HIPDNN_POINTWISE_DIV, 1, 4, 0, 0.25},
        {HIPDNN_POINTWISE_MAX, 1, NAN, 0, 1},
        {HIPDNN_POINTWISE_MIN, NAN, -1, 0, -1},
        {HIPDNN_POINTWISE_MAX, -1, 2, 0, 2},
        {HIPDNN_POINTWISE_CMP_EQ, 2, 2, 0, 1},
        {HIPDNN_POINTWISE_CMP_NEQ, 2, 2, 0, 0},
        {HIPDNN_POINTWISE_CMP_GT, 2, 2, 0, 0},
        {HIPDNN_POINTWISE_CMP_GE, 2, 2, 0, 1},
        {HIPDNN_POINTWISE_CMP_LT, 1, 2, 0, 1},
        {HIPDNN_POINTWISE_CMP_LE, 3, 2, 0, 0},
        {HIPDNN_POINTWISE_CMP_EQ, NAN, NAN, 0, 0},
        {HIPDNN_POINTWISE_CMP_NEQ, NAN, 1, 0, 1},
        {HIPDNN_POINTWISE_LOGICAL_AND, 2, 0, 0, 0},
        {HIPDNN_POINTWISE_LOGICAL_AND, NAN, -1, 0, 1},
        {HIPDNN_POINTWISE_LOGICAL_OR, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_LOGICAL_OR, 0, 0.5, 0, 1},
        {HIPDNN_POINTWISE_LOGICAL_NOT, 0, 0, 0, 1},
        {HIPDNN_POINTWISE_LOGICAL_NOT, -3, 0, 0, 0},
        {HIPDNN_POINTWISE_BINARY_SELECT, 5, 7, 1, 5},
        {HIPDNN_POINTWISE_BINARY_SELECT, 5, 7, 0, 7},
        {HIPDNN_POINTWISE_ABS, -2, 0, 0, 2},
        {HIPDNN_POINTWISE_CEIL, 1.2, 0, 0, 2},
        {HIPDNN_POINTWISE_FLOOR, -1.2, 0, 0, -2},
        {HIPDNN_POINTWISE_NEG, 3, 0, 0, -3},
        {HIPDNN_POINTWISE_RECIPROCAL, 4, 0, 0, 0.25},
        {HIPDNN_POINTWISE_RSQRT, 4, 0, 0, 0.5},
        {HIPDNN_POINTWISE_SQRT, 9, 0, 0, 3},
        {HIPDNN_POINTWISE_EXP, 0, 0, 0, 1},
        {HIPDNN_POINTWISE_LOG, 1, 0, 0, 0},
        {HIPDNN_POINTWISE_SIN, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_TAN, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_ERF, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_IDENTITY, -7.5, 0, 0, -7.5},
        {HIPDNN_POINTWISE_RELU_FWD, -1, 0, 0, 0},
        {HIPDNN_POINTWISE_RELU_FWD, 2, 0, 0, 2},
        {HIPDNN_POINTWISE_RELU_BWD, 3, -1, 0, 0},
        {HIPDNN_POINTWISE_RELU_BWD, 3, 1, 0, 3},
        {HIPDNN_POINTWISE_TANH_FWD, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_TANH_BWD, 2, 0, 0, 2},
        {HIPDNN_POINTWISE_SIGMOID_FWD, 0, 0, 0, 0.5},
        {HIPDNN_POINTWISE_SIGMOID_BWD, 1, 0, 0, 0.25},
        {HIPDNN_POINTWISE_GELU_FWD, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_GELU_BWD, 1, 0, 0, 0.5},
        {HIPDNN_POINTWISE_GELU_APPROX_TANH_FWD, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_GELU_APPROX_TANH_BWD, 4, 0, 0, 2},
        {HIPDNN_POINTWISE_SWISH_FWD, 0, 0, 0, 0},
        {HIPDNN_POINTWISE_SWISH_BWD, 1, 0, 0, 0.5},
        {HIPDNN_POINTWISE_SOFTPLUS_FWD, 0, 0, 0, LN2},
        {HIPDNN_POINTWISE_SOFTPLUS_BWD, 1, 0, 0, 0.5},
        {HIPDNN_POINTWISE_ELU_FWD, 2, 0, 0, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ir_pointwise p = pw(cases[i].mode);
        double got = ir_pointwise_eval(&p, cases[i].a, cases[i].b, cases[i].c, 0);
        char what[48];
        snprintf(what, sizeof what, "case %zu (mode %d)", i, (int)cases[i].mode);
        tt_check_value(got, cases[i].want, 1e-15, 0, what);
    }
    /* parameters: clipped leaky relu, ELU alpha, softplus beta, GELU(1) */
    ir_pointwise p = pw(HIPDNN_POINTWISE_RELU_FWD);
    p.relu_lower = -1, p.relu_upper = 2, p.relu_slope = 0.1;
    CHECK(fabs(ir_pointwise_eval(&p, -3, 0, 0, 0) - -1.2) < 1e-15);
    CHECK(ir_pointwise_eval(&p, 3, 0, 0, 0) == 2 && ir_pointwise_eval(&p, 0.5, 0, 0, 0) == 0.5);
    CHECK(isnan(ir_pointwise_eval(&p, NAN, 0, 0, 0)));
    p.mode = HIPDNN_POINTWISE_RELU_BWD;
    CHECK(fabs(ir_pointwise_eval(&p, 5, -3, 0, 0) - 0.5) < 1e-15);
    CHECK(ir_pointwise_eval(&p, 5, 3, 0, 0) == 0 && ir_pointwise_eval(&p, 5, 2, 0, 0) == 5);
    CHECK(fabs(ir_pointwise_eval(&p, 5, -1, 0, 0) - 0.5) < 1e-15); /* x == lo: slope side */
    p = pw(HIPDNN_POINTWISE_ELU_FWD);
    p.elu_alpha = 2;
    CHECK(fabs(ir_pointwise_eval(&p, -LN2, 0, 0, 0) - -1) < 1e-15);
    p.mode = HIPDNN_POINTWISE_ELU_BWD;
    CHECK(fabs(ir_pointwise_eval(&p, 1, -LN2, 0, 0) - 1) < 1e-15);
    p = pw(HIPDNN_POINTWISE_SOFTPLUS_FWD);
    p.softplus_beta = 2;
    CHECK(fabs(ir_pointwise_eval(&p, 0, 0, 0, 0) - LN2 / 2) < 1e-15);
    CHECK(fabs(ir_pointwise_eval(&p, 400, 0, 0, 0) - 400) < 1e-12); /* no overflow */
    p = pw(HIPDNN_POINTWISE_GELU_FWD);
    CHECK(fabs(ir_pointwise_eval(&p, 1, 0, 0, 0) - 0.8413447460685429) < 1e-15);
    p = pw(HIPDNN_POINTWISE_SWISH_FWD);
    p.swish_beta = 2;
    CHECK(fabs(ir_pointwise_eval(&p, 1, 0, 0, 0) - 1 / (1 + exp(-2))) < 1e-15);
    p = pw(HIPDNN_POINTWISE_GEN_INDEX);
    CHECK(ir_pointwise_eval(&p, 9, 9, 9, 42) == 42);
}

Test(ir_ref_pointwise, arity)
{
    static const int three[] = {HIPDNN_POINTWISE_BINARY_SELECT};
    static const int two[] = {2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 18, 20, 25, 27, 28, 29, 30,
                              33, 36, 39, 42, 43, 46};
    int want[NMODES + 2] = {0};
    for (int m = 1; m <= NMODES; m++)
        want[m] = 1;
    want[three[0]] = 3;
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        want[two[i]] = 2;
    for (int m = 0; m <= NMODES + 1; m++)
        cr_assert(ir_pointwise_arity(m) == want[m], "mode %d arity %d", m, ir_pointwise_arity(m));
    CHECK(ir_pointwise_arity(-1) == 0 && ir_pointwise_arity(1000) == 0);
}

Test(ir_ref_pointwise, every_mode_against_formula)
{
    tt_seed("ir_ref_pointwise.every_mode_against_formula");
    for (int m = 1; m <= NMODES; m++) {
        for (int i = 0; i < 2000; i++) {
            ir_pointwise p = random_params(m);
            double v[3];
            int64_t index = tt_randint(0, 100);
            operands(m, v);
            double got = ir_pointwise_eval(&p, v[0], v[1], v[2], index);
            double want = formula(&p, v[0], v[1], v[2], index);
            char what[96];
            snprintf(what, sizeof what, "mode %d (%g, %g, %g)", m, v[0], v[1], v[2]);
            tt_check_value(got, want, 1e-13, 1e-12, what);
        }
    }
}

static bool near_kink(const ir_pointwise *p, int fwd, double x)
{
    if (fwd == HIPDNN_POINTWISE_RELU_FWD)
        return fabs(x - p->relu_lower) < 1e-3 || fabs(x - p->relu_upper) < 1e-3;
    return fwd == HIPDNN_POINTWISE_ELU_FWD && fabs(x) < 1e-3;
}

Test(ir_ref_pointwise, bwd_modes_against_finite_differences)
{
    tt_seed("ir_ref_pointwise.bwd_modes_against_finite_differences");
    const double h = 1e-5;
    for (int m = 1; m <= NMODES; m++) {
        int fm = fwd_mode_of(m);
        if (fm == 0)
            continue;
        for (int i = 0; i < 3000; i++) {
            ir_pointwise p = random_params(m), pf = p;
            double dy = tt_unif(-2, 2), x = tt_unif(-4, 4);
            pf.mode = fm;
            if (near_kink(&p, fm, x))
                continue;
            double fd = dy * (ir_pointwise_eval(&pf, x + h, 0, 0, 0) -
                              ir_pointwise_eval(&pf, x - h, 0, 0, 0)) / (2 * h);
            double got = ir_pointwise_eval(&p, dy, x, 0, 0); /* IN_0 = dy, IN_1 = x */
            char what[96];
            snprintf(what, sizeof what, "mode %d x %g dy %g against the finite difference", m, x, dy);
            tt_check_value(got, fd, 1e-6, 1e-6, what);
        }
    }
}

/* ---- the op: broadcasting, layouts, output rounding ------------------------------------------- */

/* Random input shape broadcasting onto out: each dim full or 1, sometimes fewer leading dims. */
static tt *random_input(const tt *out)
{
    int rank = out->b.rank - (int)tt_randint(0, out->b.rank > 0 ? 1 : 0);
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        int64_t full = out->b.dims[i + out->b.rank - rank];
        dims[i] = tt_randint(0, 2) == 0 ? 1 : full;
    }
    tt *x = tt_new(HIPDNN_DATA_DOUBLE, rank, dims, TT_RANDOM);
    tt_fill(x, -3, 3);
    return x;
}

static double load_bcast_naive(const tt *x, const int64_t *oidx, int orank)
{
    int64_t idx[IR_MAX_RANK];
    for (int i = 0; i < x->b.rank; i++) {
        int o = i + orank - x->b.rank;
        idx[i] = x->b.dims[i] == 1 ? 0 : oidx[o];
    }
    return tt_at(x, idx);
}

static void one_random_op(hipdnnDataType_t out_type)
{
    int rank = (int)tt_randint(1, 5), m = (int)tt_randint(1, NMODES);
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        dims[i] = tt_randint(1, 4);
    tt *y = tt_new(out_type, rank, dims, TT_RANDOM), *in[3] = {NULL, NULL, NULL};
    int arity = ir_pointwise_arity(m);
    for (int i = 0; i < arity; i++) {
        in[i] = random_input(y);
        if (positive_domain(m))
            tt_fill(in[i], 0.05, 5);
    }
    ir_attrs a = {.pw = random_params(m)};
    a.pw.axis = tt_randint(-rank, rank - 1);
    cr_assert(tt_run(IR_OP_POINTWISE, &a, in, 3, &y, 1) == HIPDNN_STATUS_SUCCESS);
    int64_t idx[IR_MAX_RANK] = {0};
    do {
        double v[3] = {0, 0, 0};
        for (int i = 0; i < arity; i++)
            v[i] = load_bcast_naive(in[i], idx, rank);
        double want = formula(&a.pw, v[0], v[1], v[2], idx[(a.pw.axis + rank) % rank]);
        double got = tt_at(y, idx);
        if (out_type == HIPDNN_DATA_DOUBLE)
            tt_check_value(got, want, 1e-13, 1e-12, "pointwise double output");
        else if (out_type == HIPDNN_DATA_FLOAT)
            tt_check_value(got, (float)want, 0, 2.4e-7, "pointwise float output (2 ulp)");
        else
            cr_assert(tt_rounded_ok(out_type, got, want), "mode %d: %.17g not %.17g rounded", m,
                      got, want);
    } while (ir_next_index(&y->b, idx));
    for (int i = 0; i < 3; i++)
        tt_free(in[i]);
    tt_free(y);
}

Test(ir_ref_pointwise, op_broadcast_random)
{
    tt_seed("ir_ref_pointwise.op_broadcast_random");
    static const hipdnnDataType_t types[] = {HIPDNN_DATA_DOUBLE, HIPDNN_DATA_FLOAT,
                                             HIPDNN_DATA_HALF, HIPDNN_DATA_BFLOAT16};
    for (int i = 0; i < 800; i++)
        one_random_op(types[i % 4]);
}

Test(ir_ref_pointwise, gen_index_and_casts)
{
    tt *y = tt_new(HIPDNN_DATA_INT32, 3, DIMS(2, 3, 4), TT_DENSE);
    tt *x = tt_new(HIPDNN_DATA_FLOAT, 3, DIMS(2, 3, 4), TT_DENSE);
    ir_attrs a = {.pw = pw(HIPDNN_POINTWISE_GEN_INDEX)};
    for (int axis = -3; axis < 3; axis++) {
        a.pw.axis = axis;
        tt *in[1] = {axis % 2 ? x : NULL}; /* the input only supplies the shape */
        cr_assert(tt_run(IR_OP_POINTWISE, &a, in, 1, &y, 1) == HIPDNN_STATUS_SUCCESS);
        int64_t idx[3] = {0};
        do
            CHECK(tt_at(y, idx) == idx[(axis + 3) % 3]);
        while (ir_next_index(&y->b, idx));
    }
    /* IDENTITY cast to INT8 rounds to nearest even and saturates */
    tt *i8 = tt_new(HIPDNN_DATA_INT8, 1, DIMS(5), TT_DENSE),
       *src = tt_new(HIPDNN_DATA_DOUBLE, 1, DIMS(5), TT_DENSE);
    static const double v[5] = {2.5, -3.5, 300, -1e9, 0.49};
    static const double w[5] = {2, -4, 127, -128, 0};
    for (int64_t i = 0; i < 5; i++)
        tt_set(src, &i, v[i]);
    a.pw = pw(HIPDNN_POINTWISE_IDENTITY);
    cr_assert(tt_run(IR_OP_POINTWISE, &a, &src, 1, &i8, 1) == HIPDNN_STATUS_SUCCESS);
    tt_check(i8, w, 0, 0, "identity to int8");
    tt_free(i8), tt_free(src), tt_free(x), tt_free(y);
}

Test(ir_ref_pointwise, errors)
{
    tt *y = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(2, 3), TT_DENSE);
    tt *ok = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(1, 3), TT_DENSE);
    tt *bad = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(2, 2), TT_DENSE);
    ir_attrs a = {.pw = pw(HIPDNN_POINTWISE_ADD)};
    tt *in1[3] = {ok, bad, NULL}, *in2[3] = {ok, NULL, NULL}, *none = NULL;
    CHECK(tt_run(IR_OP_POINTWISE, &a, in1, 3, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_POINTWISE, &a, in2, 3, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_POINTWISE, &a, in2, 3, &none, 1) == HIPDNN_STATUS_BAD_PARAM);
    a.pw.mode = 0;
    CHECK(tt_run(IR_OP_POINTWISE, &a, in2, 3, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    a.pw = pw(HIPDNN_POINTWISE_GEN_INDEX);
    a.pw.axis = 2;
    CHECK(tt_run(IR_OP_POINTWISE, &a, in2, 3, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt_free(y), tt_free(ok), tt_free(bad);
}
