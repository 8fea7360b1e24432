/* cg_common.c — what every emitter shares below the templates: the HD_DT_* spelling of types,
 * the kernel's parameters (tensor pointers, run-time scalars, a dynamic-shape kernel's int64
 * values) with their HD_PARAMS / HD_ARGS defines, float literals of constants and scalars, and
 * pointwise statements. Contract: cg_int.h. Calls no emitter and no other codegen file.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"

/* ---- types ------------------------------------------------------------------------------------- */

const char *cg_dtype(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FLOAT: return "HD_DT_FLOAT";
    case HIPDNN_DATA_HALF: return "HD_DT_HALF";
    case HIPDNN_DATA_BFLOAT16: return "HD_DT_BFLOAT16";
    case HIPDNN_DATA_INT8: return "HD_DT_INT8";
    case HIPDNN_DATA_INT32: return "HD_DT_INT32";
    case HIPDNN_DATA_UINT8: return "HD_DT_UINT8";
    case HIPDNN_DATA_BOOLEAN: return "HD_DT_BOOLEAN";
    case HIPDNN_DATA_FP8_E4M3: return "HD_DT_FP8_E4M3";
    case HIPDNN_DATA_FP8_E5M2: return "HD_DT_FP8_E5M2";
    case HIPDNN_DATA_FP8_E8M0: return "HD_DT_FP8_E8M0";
    case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_FP4_E2M1: case HIPDNN_DATA_INT4:
    case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT: case HIPDNN_DATA_INT64:
    case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ: return NULL;
    }
    return NULL; /* a value outside the enum */
}

const char *cg_dtype_load(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FP4_E2M1: return "HD_DT_FP4_E2M1";
    case HIPDNN_DATA_INT4: return "HD_DT_INT4";
    case HIPDNN_DATA_FLOAT: case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_HALF: case HIPDNN_DATA_INT8:
    case HIPDNN_DATA_INT32: case HIPDNN_DATA_UINT8: case HIPDNN_DATA_BFLOAT16:
    case HIPDNN_DATA_FP8_E4M3: case HIPDNN_DATA_FP8_E5M2: case HIPDNN_DATA_FP8_E8M0:
    case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT: case HIPDNN_DATA_INT64:
    case HIPDNN_DATA_BOOLEAN: case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ:
        return cg_dtype(t);
    }
    return cg_dtype(t); /* a value outside the enum */
}

/* ---- parameters ---------------------------------------------------------------------------------- */

static bool has_arg(const cg_kernel *k, int ti)
{
    for (int i = 0; i < k->n_args; i++)
        if (k->args[i].tensor == ti)
            return true;
    return false;
}

static hipdnnStatus_t add_arg(cg_kernel *k, cg_arg_kind kind, int ti)
{
    if (has_arg(k, ti))
        return HIPDNN_STATUS_SUCCESS;
    if (k->n_args == CG_MAX_ARGS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "codegen: a kernel with more than %d "
                         "parameters", CG_MAX_ARGS);
    k->args[k->n_args++] = (cg_arg){.kind = kind, .tensor = ti};
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t cg_add_params(const ir_graph *g, const ir_kernel *k, cg_kernel *out)
{
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < k->n_reads && st == HIPDNN_STATUS_SUCCESS; i++)
        st = add_arg(out, g->t[k->reads[i]].runtime_scalar ? CG_ARG_SCALAR : CG_ARG_TENSOR,
                     k->reads[i]);
    for (int i = 0; i < k->n_writes && st == HIPDNN_STATUS_SUCCESS; i++)
        st = add_arg(out, CG_ARG_TENSOR, k->writes[i]);
    return st;
}

/* HD_PARAMS / HD_ARGS over out's parameters but the tensor maps; int64 ones named by d. */
static void params_defs(const cg_kernel *out, const cg_dyn *d, base_sb *defs)
{
    base_sb params = {0}, args = {0};
    for (int i = 0, n = 0, i64 = 0; i < out->n_args; i++) {
        cg_arg_kind kind = out->args[i].kind;
        const char *sep = n++ ? ", " : "";
        if (kind == CG_ARG_TMAP) {
            n--;
        } else if (kind == CG_ARG_INT64) {
            const char *name = d != NULL && i64 < d->n ? d->names[i64] : "dy_unnamed";
            i64++;
            base_sb_printf(&params, "%shd_i64 %s", sep, name);
            base_sb_printf(&args, "%s%s", sep, name);
        } else {
            bool scalar = kind == CG_ARG_SCALAR;
            base_sb_printf(&params, "%s%s%c%d", sep, scalar ? "float " : "void *", scalar ? 's' : 'p',
                           out->args[i].tensor);
            base_sb_printf(&args, "%s%c%d", sep, scalar ? 's' : 'p', out->args[i].tensor);
        }
    }
    base_sb_printf(defs, "#define HD_PARAMS %s\n#define HD_ARGS %s\n", base_sb_str(&params),
                   base_sb_str(&args));
    base_sb_free(&params);
    base_sb_free(&args);
}

hipdnnStatus_t cg_collect_params(const ir_graph *g, const ir_kernel *k, cg_kernel *out,
                                 base_sb *defs)
{
    hipdnnStatus_t st = cg_add_params(g, k, out);
    params_defs(out, NULL, defs);
    return st;
}

hipdnnStatus_t cg_dyn_finish(const cg_dyn *d, cg_kernel *out, base_sb *defs)
{
    if (d->overflow || out->n_args + d->n > CG_MAX_ARGS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "codegen: a dynamic-shape kernel with more "
                         "than %d parameters", CG_MAX_ARGS);
    int at = 0; /* before the first tensor map */
    while (at < out->n_args && out->args[at].kind != CG_ARG_TMAP)
        at++;
    memmove(&out->args[at + d->n], &out->args[at], (size_t)(out->n_args - at) * sizeof out->args[0]);
    for (int i = 0; i < d->n; i++)
        out->args[at + i] = (cg_arg){.kind = CG_ARG_INT64, .tensor = -1, .value = d->values[i]};
    out->n_args += d->n;
    params_defs(out, d, defs);
    return HIPDNN_STATUS_SUCCESS;
}

/* A C float literal for v ("1.0f", "1e-05f"; infinities and NaN spelled through bit patterns). */
static void float_literal(double v, char *buf, size_t n)
{
    if (v != v) {
        snprintf(buf, n, "__int_as_float(0x7fc00000)");
    } else if (v > 3.4028234e38 || v < -3.4028234e38) {
        snprintf(buf, n, "__int_as_float(%s)", v > 0 ? "0x7f800000" : "(int)0xff800000");
    } else {
        char num[40];
        snprintf(num, sizeof num, "%.9g", v);
        snprintf(buf, n, "%s%sf", num, strpbrk(num, ".e") ? "" : ".0");
    }
}

bool cg_const_value(const ir_graph *g, int ti, double *v)
{
    const ir_tensor *t = &g->t[ti];
    if (!t->by_value)
        return false;
    ir_buf b = {.data = (void *)t->value, .dtype = t->dtype, .rank = 1, .dims = {1}, .strides = {1}};
    int64_t zero = 0;
    *v = ir_load(&b, &zero);
    return true;
}

const char *cg_scalar_expr(const ir_graph *g, int ti, char *buf, size_t n)
{
    double v;
    if (g->t[ti].runtime_scalar) {
        snprintf(buf, n, "s%d", ti);
        return buf;
    }
    if (!cg_const_value(g, ti, &v))
        return NULL;
    float_literal(v, buf, n);
    return buf;
}

/* ---- pointwise statements -------------------------------------------------------------------------- */

void cg_pointwise_stmt(base_sb *sb, const ir_op *op, const char *out, const char *a, const char *b,
                       const char *c, const char *index_expr)
{
    const ir_pointwise *p = &op->a.pw;
    if (p->mode == HIPDNN_POINTWISE_GEN_INDEX) {
        base_sb_printf(sb, "%s = (float)(%s);\n", out, index_expr);
        return;
    }
    double params[6] = {p->relu_lower, p->relu_upper, p->relu_slope, p->swish_beta, p->elu_alpha,
                        p->softplus_beta};
    base_sb_printf(sb, "%s = hd_pointwise<%d>(%s, %s, %s, hd_pw_params{", out, p->mode, a,
                   b != NULL ? b : "0.0f", c != NULL ? c : "0.0f");
    for (int i = 0; i < 6; i++) {
        char lit[48];
        float_literal(params[i], lit, sizeof lit);
        base_sb_printf(sb, "%s%s", i ? ", " : "", lit);
    }
    base_sb_puts(sb, "});\n");
}
