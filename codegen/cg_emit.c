/* cg_emit.c — codegen's front: template lookup, kernel parameters, pointwise statements,
 * source assembly, the template hash and source dumps. The template-specific emitters live in
 * cg_pointwise.c, cg_rownorm.c, cg_matmul.c, cg_channorm.c, cg_conv.c, cg_quant.c, cg_paged.c
 * and cg_sdpa.c; cg_emit picks the one that fits a kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "codegen/cg_int.h"

struct cg_template_file {
    const char *name;
    const char *text;
};
extern const struct cg_template_file cg_template_files[];

const char *cg_template_text(const char *name)
{
    for (int i = 0; cg_template_files[i].name != NULL; i++)
        if (strcmp(cg_template_files[i].name, name) == 0)
            return cg_template_files[i].text;
    return NULL;
}

uint64_t cg_templates_hash(void)
{
    uint64_t h = XXH3_64bits(CG_VERSION, strlen(CG_VERSION));
    for (int i = 0; cg_template_files[i].name != NULL; i++)
        h = XXH3_64bits_withSeed(cg_template_files[i].text, strlen(cg_template_files[i].text), h);
    return h;
}

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
    default: return NULL;
    }
}

const char *cg_dtype_load(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FP4_E2M1: return "HD_DT_FP4_E2M1";
    case HIPDNN_DATA_INT4: return "HD_DT_INT4";
    default: return cg_dtype(t);
    }
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

/* ---- assembly ----------------------------------------------------------------------------------- */

/* Templates that share a device library beside hd_common.h: it goes in after hd_common.h, before
 * the generated defines (a library reads no define or hook). */
static const struct { const char *tpl, *lib; } libraries[] = {
    {"sdpa_fwd.hip", "sdpa_common.h"},
    {"sdpa_bwd.hip", "sdpa_common.h"},
};

static const char *library_of(const char *tpl)
{
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++)
        if (strcmp(libraries[i].tpl, tpl) == 0)
            return libraries[i].lib;
    return NULL;
}

hipdnnStatus_t cg_assemble(const cg_target *t, const char *tpl, const base_sb *defs,
                           const base_sb *hooks, cg_kernel *out)
{
    bool amd = strcmp(t->platform, "amd") == 0;
    const char *prelude = cg_template_text(amd ? "prelude_amd.h" : "prelude_nvidia.h");
    const char *common = cg_template_text("hd_common.h"), *body = cg_template_text(tpl);
    const char *lib_name = library_of(tpl), *lib = lib_name != NULL ? cg_template_text(lib_name) : "";
    if (prelude == NULL || common == NULL || body == NULL || lib == NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "codegen: template %s is not embedded", tpl);
    base_sb sb = {0};
    base_sb_printf(&sb, "// hipdnn-jit %s, template %s, target %s %s\n", CG_VERSION, tpl,
                   t->platform, t->arch);
    base_sb_printf(&sb, "#line 1 \"%s\"\n%s\n", amd ? "prelude_amd.h" : "prelude_nvidia.h", prelude);
    base_sb_printf(&sb, "#line 1 \"hd_common.h\"\n%s\n", common);
    if (lib_name != NULL)
        base_sb_printf(&sb, "#line 1 \"%s\"\n%s\n", lib_name, lib);
    base_sb_printf(&sb, "#line 1 \"generated\"\n#define HD_GENERATED 1\n%s%s", base_sb_str(defs),
                   base_sb_str(hooks));
    base_sb_printf(&sb, "#line 1 \"%s\"\n%s", tpl, body);
    if (sb.oom) {
        base_sb_free(&sb);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    }
    out->source = sb.p;
    if (out->arch[0] == '\0')
        snprintf(out->arch, sizeof out->arch, "%s", t->arch);
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- entry points --------------------------------------------------------------------------------- */

typedef hipdnnStatus_t (*emitter)(const ir_graph *, const ir_kernel *, const cg_target *,
                                  cg_kernel *, char *, size_t);

static emitter emitter_for(const ir_graph *g, const ir_kernel *k)
{
    if (k->anchor < 0)
        return cg_emit_pointwise;
    bool quant_tail = g->ops[k->ops[k->n_ops - 1]].kind == IR_OP_BS_QUANTIZE;
    switch (g->ops[k->anchor].kind) {
    case IR_OP_BN_INFER: /* elementwise once the statistics are given */
        return quant_tail ? cg_emit_quantize : cg_emit_pointwise;
    case IR_OP_BS_QUANTIZE: return cg_emit_quantize;
    case IR_OP_PAGED_CACHE_LOAD: return cg_emit_paged;
    case IR_OP_MATMUL: return cg_emit_matmul;
    case IR_OP_SDPA_FWD: return cg_emit_sdpa;
    case IR_OP_SDPA_BWD: return cg_emit_sdpa_bwd;
    case IR_OP_BN_TRAIN:
    case IR_OP_BN_BWD:
    case IR_OP_GENSTATS: return cg_emit_channorm;
    case IR_OP_CONV_FWD:
    case IR_OP_CONV_DGRAD:
    case IR_OP_CONV_WGRAD: return cg_emit_conv;
    case IR_OP_LAYERNORM:
    case IR_OP_RMSNORM: return cg_emit_rownorm; /* a quantize tail included */
    default: return NULL;
    }
}

bool cg_supports(const ir_graph *g, const ir_kernel *k, char *why, size_t why_len)
{
    return cg_supports_on(g, k, NULL, why, why_len);
}

bool cg_supports_on(const ir_graph *g, const ir_kernel *k, const cg_target *target, char *why,
                    size_t why_len)
{
    emitter e = emitter_for(g, k);
    if (e == NULL) {
        snprintf(why, why_len, "no kernel template for %s yet",
                 ir_op_info_of(g->ops[k->anchor].kind)->name);
        return false;
    }
    cg_kernel probe = {0};
    const cg_target sm90 = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    hipdnnStatus_t st = e(g, k, target != NULL ? target : &sm90, &probe, why, why_len);
    cg_kernel_free(&probe);
    return st == HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t cg_emit(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out)
{
    char why[256] = "";
    *out = (cg_kernel){0};
    emitter e = emitter_for(g, k);
    hipdnnStatus_t st = e != NULL ? e(g, k, t, out, why, sizeof why) : HIPDNN_STATUS_NOT_SUPPORTED;
    if (st == HIPDNN_STATUS_NOT_SUPPORTED)
        return base_fail(st, "codegen: %s", why[0] ? why : "no kernel template for this kernel");
    if (st != HIPDNN_STATUS_SUCCESS)
        cg_kernel_free(out);
    return st;
}

int64_t cg_scratch_bytes(const ir_graph *g, const ir_kernel *k)
{
    /* the channel reductions and the attention backward run several passes */
    emitter e = emitter_for(g, k);
    if (e == cg_emit_channorm)
        return cg_channorm_scratch(g, k);
    if (e == cg_emit_sdpa)
        return cg_sdpa_fwd_scratch(g, k);
    return e == cg_emit_sdpa_bwd ? cg_sdpa_bwd_scratch(g, k) : 0;
}

void cg_kernel_free(cg_kernel *k)
{
    base_free(k->source);
    *k = (cg_kernel){0};
}

void cg_dump(const char *name, const char *source)
{
    const char *dir = getenv("HIPDNN_JIT_DUMP_DIR");
    if (dir == NULL || dir[0] == '\0')
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.cu", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        base_log(HIPDNN_SEV_WARN, "HIPDNN_JIT_DUMP_DIR: cannot write %s", path);
        return;
    }
    fputs(source, f);
    fclose(f);
}
