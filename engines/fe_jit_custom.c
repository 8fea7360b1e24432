/* fe_jit_custom.c — a custom op's kernel in a JIT plan: what its provider gives (source, entry,
 * launch geometry, arguments; graph/fe_custom.c asks it and copies the strings) turned into a
 * cg_kernel recipe whose source and entry name the plan's kernel owns, which fe_engine_jit.c
 * compiles, caches and launches like every emitted kernel. The source is keyed
 * with a first line naming the op and its provider's name and version, so a new provider
 * version never reuses an old code object. A custom op is always a kernel of its own (the IR
 * gives CUSTOM the ALONE role).
 */
#include <stdio.h>
#include <string.h>

#include "engines/fe_jit.h"
#include "hipdnn_jit_custom_op.h"

/* The custom op that is kernel k, or NULL when k is something else. */
static const ir_op *custom_of(const ir_graph *g, const ir_kernel *k)
{
    if (k->anchor < 0 || g->ops[k->anchor].kind != IR_OP_CUSTOM)
        return NULL;
    return &g->ops[k->anchor];
}

bool fe_jit_is_custom(const ir_graph *g, const ir_kernel *k) { return custom_of(g, k) != NULL; }

bool fe_jit_custom_supports(const ir_graph *g, const ir_kernel *k, char *why, size_t n)
{
    const ir_op *op = custom_of(g, k);
    if (op != NULL && !fe_custom_has_kernel(op)) {
        snprintf(why, n, "custom op '%s': its provider (%s) gives no GPU kernel, only a host reference",
                 op->a.custom.id, op->a.custom.provider);
        return false;
    }
    return op != NULL;
}

/* The recipe's launch and arguments from the provider's answer. */
static hipdnnStatus_t recipe(const ir_op *op, const hipdnnJitKernelSource_t *ks, cg_kernel *out)
{
    const char *id = op->a.custom.id;
    out->smem = ks->shared_bytes, out->align = 1;
    for (int d = 0; d < 3; d++) {
        out->grid[d] = ks->grid[d], out->block[d] = ks->block[d];
        if (ks->grid[d] == 0 || ks->block[d] == 0)
            return base_fail(HIPDNN_STATUS_PLUGIN_ERROR, "custom op '%s': the provider's launch has a zero in "
                             "grid (%u, %u, %u) or block (%u, %u, %u)", id, ks->grid[0], ks->grid[1], ks->grid[2],
                             ks->block[0], ks->block[1], ks->block[2]);
    }
    for (int a = 0; a < ks->num_args; a++) {
        const hipdnnJitKernelArg_t *ka = &ks->args[a];
        cg_arg *ca = &out->args[a];
        int count = ka->kind == HIPDNN_JIT_ARG_INPUT ? op->n_in : op->n_out;
        switch (ka->kind) {
        case HIPDNN_JIT_ARG_INPUT:
        case HIPDNN_JIT_ARG_OUTPUT:
            if (ka->index < 0 || ka->index >= count)
                return base_fail(HIPDNN_STATUS_PLUGIN_ERROR, "custom op '%s': kernel argument %d names %s %d of %d",
                                 id, a, ka->kind == HIPDNN_JIT_ARG_INPUT ? "input" : "output", ka->index, count);
            *ca = (cg_arg){.kind = CG_ARG_TENSOR,
                           .tensor = ka->kind == HIPDNN_JIT_ARG_INPUT ? op->in[ka->index] : op->out[ka->index]};
            break;
        case HIPDNN_JIT_ARG_INT64:
            *ca = (cg_arg){.kind = CG_ARG_INT64, .tensor = -1, .value = ka->value};
            break;
        default:
            return base_fail(HIPDNN_STATUS_PLUGIN_ERROR, "custom op '%s': kernel argument %d has kind %d", id, a,
                             (int)ka->kind);
        }
    }
    out->n_args = ks->num_args;
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_jit_custom_emit(const ir_graph *g, const ir_kernel *k, const cg_target *t, jit_kernel *out)
{
    const ir_op *op = custom_of(g, k);
    if (op == NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "JIT: kernel is not a custom op");
    hipdnnJitKernelSource_t ks;
    char *source = NULL, *entry = NULL; /* copies of the provider's strings */
    hipdnnStatus_t st = fe_custom_kernel(g, op, t->arch, &ks, &source, &entry);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    const char *id = op->a.custom.id;
    out->cg = (cg_kernel){0};
    snprintf(out->cg.arch, sizeof out->cg.arch, "%s", t->arch);
    if (strlen(entry) >= FE_JIT_MAX_ENTRY)
        st = base_fail(HIPDNN_STATUS_PLUGIN_ERROR, "custom op '%s': entry name longer than %d", id,
                       FE_JIT_MAX_ENTRY - 1);
    if (st == HIPDNN_STATUS_SUCCESS) {
        strcpy(out->names[0], entry);
        out->cg.entry = out->names[0];
        st = recipe(op, &ks, &out->cg);
    }
    /* the keyed source: a first line naming the op and its provider, then the provider's text */
    size_t head_len = strlen(id) + strlen(op->a.custom.provider) + 64, body = strlen(source);
    if (st == HIPDNN_STATUS_SUCCESS && (out->cg.source = base_malloc(head_len + body + 2)) == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "custom op '%s': out of memory", id);
    if (st == HIPDNN_STATUS_SUCCESS) {
        int n = snprintf(out->cg.source, head_len, "// hipdnn-jit custom op %s, provider %s\n", id,
                         op->a.custom.provider);
        memcpy(out->cg.source + n, source, body + 1);
    }
    base_free(source), base_free(entry);
    return st;
}
