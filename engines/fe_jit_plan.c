/* fe_jit_plan.c — a JIT plan's kernels once their code objects exist: entry names owned by the
 * plan, each kernel's module loaded (or taken from the process's table, fe_jit_modules.c) with its
 * functions, and a plan freed. Called by both ways a plan is made: built from the graph
 * (fe_engine_jit.c) and rebuilt from the kernel cache's plan table (fe_jit_plan_cache.c); it
 * calls neither. The plan's layout is fe_jit.h's.
 */
#include <string.h>

#include "engines/fe_jit.h"

void fe_jit_destroy(fe_plan_impl *p)
{
    for (int i = 0; i < p->n_kernels; i++) {
        fe_module_release(p->k[i].module);
        cg_kernel_free(&p->k[i].cg);
    }
    base_free(p->k);
    base_free(p->ws_offset);
    fe_counters_free(&p->counters);
    base_free(p);
}

static hipdnnStatus_t own_name(char *dst, const char *name)
{
    if (strlen(name) >= FE_JIT_MAX_ENTRY)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "JIT plan: kernel entry name '%s' is too long", name);
    if (dst != name)
        strcpy(dst, name);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_jit_own_names(jit_kernel *k)
{
    hipdnnStatus_t st = own_name(k->names[0], k->cg.entry);
    k->cg.entry = k->names[0];
    for (int i = 0; st == HIPDNN_STATUS_SUCCESS && i < k->cg.n_then; i++) {
        st = own_name(k->names[i + 1], k->cg.then[i].entry);
        k->cg.then[i].entry = k->names[i + 1];
    }
    return st;
}

hipdnnStatus_t fe_jit_load(jit_kernel *k, const void *code, size_t code_len)
{
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (k->module == NULL && !fe_module_find(&k->key, &k->module))
        st = code != NULL ? fe_module_load(&k->key, code, code_len, &k->module)
                          : base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "JIT plan: no code object for a kernel");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = rt_module_function(k->module, k->cg.entry, &k->fn);
    if (st == HIPDNN_STATUS_SUCCESS && k->cg.smem > 48 * 1024) /* above the default limit */
        st = rt_function_set_max_smem(k->fn, k->cg.smem);
    for (int i = 0; st == HIPDNN_STATUS_SUCCESS && i < k->cg.n_then; i++) {
        st = rt_module_function(k->module, k->cg.then[i].entry, &k->fn_then[i]);
        if (st == HIPDNN_STATUS_SUCCESS && k->cg.then[i].smem > 48 * 1024)
            st = rt_function_set_max_smem(k->fn_then[i], k->cg.then[i].smem);
    }
    return st;
}
