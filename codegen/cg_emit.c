/* cg_emit.c — codegen's entry points: picks the template emitter that fits a kernel (by its
 * anchor op) and hands it the target with its capabilities filled (cg_target.c, the emitters
 * decide on cg_target.caps); answers cg_supports, cg_scratch_bytes; frees kernels and dumps sources
 * (HIPDNN_JIT_DUMP_DIR). The emitters (cg_pointwise.c, cg_rownorm.c, cg_matmul.c, cg_channorm.c,
 * cg_conv.c, cg_quant.c, cg_paged.c, cg_sdpa.c, cg_sdpa_bwd.c) and what they share (cg_common.c,
 * cg_assemble.c, cg_dyn.c) never call back into this file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codegen/cg_int.h"

typedef hipdnnStatus_t (*emitter)(const ir_graph *, const ir_kernel *, const cg_target *,
                                  cg_kernel *, char *, size_t);

/* Packed (THD) attention: no template addresses ragged operands yet (the reference engine runs
 * them, engines/fe_engine_ref_ragged.c). */
static hipdnnStatus_t refuse_ragged(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out,
                                    char *why, size_t why_len)
{
    (void)g, (void)k, (void)t, (void)out;
    snprintf(why, why_len, "packed (THD) attention operands (ragged offsets) have no kernel template yet; the "
             "reference engine runs them");
    return HIPDNN_STATUS_NOT_SUPPORTED;
}

static emitter emitter_for(const ir_graph *g, const ir_kernel *k)
{
    for (int n = 0; n < k->n_ops; n++)
        if (ir_op_ragged(g, &g->ops[k->ops[n]]))
            return refuse_ragged;
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
    case IR_OP_POINTWISE: case IR_OP_BS_DEQUANTIZE: case IR_OP_CUSTOM: case IR_OP_COUNT:
        return NULL;
    }
    return NULL; /* a value outside the enum */
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
    cg_target t = target != NULL ? cg_target_with_caps(target) : cg_default_target();
    hipdnnStatus_t st = e(g, k, &t, &probe, why, why_len);
    cg_kernel_free(&probe);
    return st == HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t cg_emit(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out)
{
    char why[256] = "";
    *out = (cg_kernel){0};
    emitter e = emitter_for(g, k);
    cg_target tc = cg_target_with_caps(t);
    hipdnnStatus_t st = e != NULL ? e(g, k, &tc, out, why, sizeof why) : HIPDNN_STATUS_NOT_SUPPORTED;
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

/* mkdir -p dir (mode 0755 as umask allows); false with the reason when it cannot be made. */
static bool make_dirs(const char *dir, char *why, size_t why_len)
{
    char path[1024];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(why, why_len, "path longer than %zu bytes", sizeof path - 1);
        return false;
    }
    for (char *p = path + 1;; p++) {
        bool end = *p == '\0';
        if (!end && *p != '/')
            continue;
        *p = '\0';
        struct stat sb;
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            snprintf(why, why_len, "mkdir %.200s: %s", path, strerror(errno));
            return false;
        }
        if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            snprintf(why, why_len, "%.200s is not a directory", path);
            return false;
        }
        if (end)
            return true;
        *p = '/';
    }
}

void cg_dump(const char *name, const char *source)
{
    const char *dir = getenv("HIPDNN_JIT_DUMP_DIR");
    if (dir == NULL || dir[0] == '\0')
        return;
    char why[256];
    if (!make_dirs(dir, why, sizeof why)) {
        base_log_once(HIPDNN_SEV_WARN, "HIPDNN_JIT_DUMP_DIR=\"%.512s\": cannot create it (%s); emitted "
                      "sources are not dumped", dir, why);
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.cu", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        base_log_once(HIPDNN_SEV_WARN, "HIPDNN_JIT_DUMP_DIR: cannot write %s (%s)", path, strerror(errno));
        return;
    }
    fputs(source, f);
    fclose(f);
}
