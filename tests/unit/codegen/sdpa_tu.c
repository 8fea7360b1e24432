/* sdpa_tu.c — the attention codegen tests' shared helpers (sdpa_tu.h). */
#include "sdpa_tu.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

const char *const mask_names[N_MASKS] = {"none", "causal", "causal_br", "window", "padding"};

bool have_compiler(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS;
}

int add(ir_graph *g, hipdnnDataType_t dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3, bool bshd)
{
    ir_tensor t = {.uid = g->n_t + 1, .dtype = dt, .rank = 4, .dims = {d0, d1, d2, d3}};
    if (bshd) /* [b, s, h, d] memory */
        t.strides[3] = 1, t.strides[1] = d3, t.strides[2] = d1 * d3, t.strides[0] = d1 * d2 * d3;
    else
        t.strides[3] = 1, t.strides[2] = d3, t.strides[1] = d2 * d3, t.strides[0] = d1 * d2 * d3;
    return ir_add_tensor(g, &t);
}

int add_i64(ir_graph *g, hipdnnDataType_t dt, int64_t v)
{
    ir_tensor t = {.uid = g->n_t + 1, .dtype = dt, .rank = 4, .dims = {1, 1, 1, 1}, .strides = {1, 1, 1, 1},
                   .by_value = true};
    memcpy(t.value, &v, 8);
    return ir_add_tensor(g, &t);
}

bool compile_emitted(const cg_kernel *k, const char *what)
{
    char name[128];
    snprintf(name, sizeof name, "%s.%s", what, k->arch);
    cg_dump(name, k->source);
    /* build.sh's sanitizer pass sets this: the emission and its checks run there under ASan, the
     * NVRTC compile of the same (deterministic) source ran in the gcc pass; NVRTC's own code is not
     * instrumented and under ASan's allocator it runs ~2x slower (~4 min of that pass) */
    const char *emit_only = getenv("HIPDNN_TEST_EMIT_ONLY");
    if (emit_only != NULL && strcmp(emit_only, "1") == 0)
        return true;
    void *code = NULL;
    size_t len = 0;
    char *log = NULL;
    hipdnnStatus_t st = rt_compile(k->source, what, k->arch, NULL, 0, &code, &len, &log);
    cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s:\n%s", what, k->arch, log ? log : "");
    free(code), free(log);
    return st == HIPDNN_STATUS_SUCCESS;
}

void one_supported_kernel(const ir_graph *g, ir_partition *p, const char *what)
{
    cr_assert_eq(ir_fuse(g, p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p->n, 1);
    char why[256] = "";
    cr_assert(cg_supports(g, &p->k[0], why, sizeof why), "%s: %s", what, why);
}

void emit_twice(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out, const char *what)
{
    cg_kernel again;
    cr_assert_eq(cg_emit(g, k, t, out), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(cg_emit(g, k, t, &again), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(out->source, again.source, "%s: emission is deterministic", what);
    cg_kernel_free(&again);
}
