/* test_cg_amd.c — codegen for AMD: every kernel of every example graph (the .json files of examples/graphs)
 * that codegen can emit for AMD is emitted with the AMD prelude, under several engine knobs, and
 * compiles with hipRTC for gfx942 and gfx90a (compile only: no GPU needed).
 *
 * Skipped when hipRTC is absent. A target the installed hipRTC does not know (gfx942 before
 * ROCm 5.7; Debian 12 has HIP 5.2) is left out and named; at least one target must compile.
 * Kernels codegen refuses for AMD (the matmul template is NVIDIA's mma.sync) or has no template
 * for at all are listed in the log, not failed: the test fails when a kernel that codegen emits
 * for AMD does not compile, with hipRTC's log and the source.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "frontend/fe_int.h"
#include "runtime/rt.h"

static hipdnnHandle_t handle;

static void setup(void) { cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(codegen_amd, .init = setup, .fini = teardown);

static const char *last_error(void)
{
    static char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    base_last_error(msg, sizeof msg, false);
    return msg;
}

static hipdnnBackendDescriptor_t load_graph(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/graphs/%s", HIPDNN_SOURCE_DIR, file);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    hipdnnBackendDescriptor_t g;
    cr_assert_eq(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, n), HIPDNN_STATUS_SUCCESS,
                 "%s: %s", file, last_error());
    cr_assert_eq(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle),
                 HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(hipdnnBackendFinalize(g), HIPDNN_STATUS_SUCCESS, "%s: %s", file, last_error());
    return g;
}

/* The example graphs, sorted (so the log reads the same every run). */
static int graph_files(char names[][64], int max)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/examples/graphs", HIPDNN_SOURCE_DIR);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len < 64 && strcmp(e->d_name + len - 5, ".json") == 0)
            memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Whether the installed hipRTC compiles for arch: NOT_SUPPORTED names a target it does not know;
 * any other failure fails the test. */
static bool target_known(const char *arch)
{
    static const char src[] = "extern \"C\" __global__ void k(float *y) { y[threadIdx.x] = 1.0f; }\n";
    void *code = NULL;
    size_t len = 0;
    hipdnnStatus_t st = rt_compile(src, "probe.hip", arch, NULL, 0, &code, &len, NULL);
    free(code);
    if (st == HIPDNN_STATUS_NOT_SUPPORTED) {
        cr_log_info("hipRTC does not compile for %s: %s", arch, last_error());
        return false;
    }
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "probe for %s: %s", arch, last_error());
    return true;
}

/* An ELF code object for AMD GPUs: magic, 64-bit class, e_machine EM_AMDGPU (224). */
static bool is_hsaco(const void *code, size_t len)
{
    const unsigned char *b = code;
    return len > 64 && memcmp(b, "\x7f" "ELF", 4) == 0 && b[4] == 2 && (b[18] | b[19] << 8) == 224;
}

typedef struct tally {
    int compiled, failed, refused;
} tally;

/* Knob variants that change the emitted code: widest vectors and 4 loads per thread (the
 * defaults), 1-wide accesses, 8 loads per thread (fewer threads, down to a 32-thread block,
 * half of a 64-lane wavefront), 1 load per thread (the most threads). */
static const struct {
    int max_vec, loads;
} variants[] = {{0, 0}, {1, 0}, {0, 8}, {0, 1}};
enum { N_VARIANTS = sizeof variants / sizeof variants[0] };

static void compile_kernel(const ir_graph *ir, const ir_kernel *k, const char *what,
                           const char *const *archs, int n_archs, tally *t)
{
    for (int v = 0; v < N_VARIANTS; v++) {
        cg_target tg = {.platform = "amd", .sm_count = 304, .max_vec = variants[v].max_vec,
                        .loads_per_thread = variants[v].loads};
        snprintf(tg.arch, sizeof tg.arch, "%s", archs[0]);
        cg_kernel out;
        hipdnnStatus_t st = cg_emit(ir, k, &tg, &out);
        if (st == HIPDNN_STATUS_NOT_SUPPORTED) {
            if (v == 0)
                cr_log_info("%s: no AMD kernel: %s", what, last_error());
            t->refused += v == 0;
            continue;
        }
        cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s: %s", what, last_error());
        cr_expect_not_null(strstr(out.source, "#line 1 \"prelude_amd.h\""), "%s: AMD prelude", what);
        for (int a = 0; a < n_archs; a++) {
            void *code = NULL;
            size_t len = 0;
            char *log = NULL;
            st = rt_compile(out.source, what, archs[a], NULL, 0, &code, &len, &log);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s (knobs %d/%d) for %s:\n%s\n---- source ----\n%s",
                         what, variants[v].max_vec, variants[v].loads, archs[a], log ? log : last_error(),
                         out.source);
            cr_expect(st != HIPDNN_STATUS_SUCCESS || is_hsaco(code, len), "%s: an AMD code object", what);
            t->compiled += st == HIPDNN_STATUS_SUCCESS;
            t->failed += st != HIPDNN_STATUS_SUCCESS;
            free(code), free(log);
        }
        cg_kernel_free(&out);
    }
}

Test(codegen_amd, example_graphs_compile_for_amd, .timeout = 600)
{
    rt_compiler_info ci;
    if (rt_compiler_for("gfx90a", &ci) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no hipRTC on this machine: %s", last_error());
    const char *candidates[] = {"gfx942", "gfx90a"}, *archs[2];
    int n_archs = 0;
    for (int i = 0; i < 2; i++)
        if (target_known(candidates[i]))
            archs[n_archs++] = candidates[i];
    if (n_archs == 0)
        cr_skip_test("hipRTC %d.%d compiles for neither gfx942 nor gfx90a", ci.major, ci.minor);
    char files[32][64];
    int n_files = graph_files(files, 32);
    cr_assert_gt(n_files, 0);
    tally t = {0};
    for (int f = 0; f < n_files; f++) {
        hipdnnBackendDescriptor_t g = load_graph(files[f]);
        const ir_graph *ir = fe_graph_of(g->obj)->ir;
        ir_partition p;
        cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS, "%s: %s", files[f], last_error());
        for (int k = 0; k < p.n; k++) {
            char what[96];
            snprintf(what, sizeof what, "%s kernel %d", files[f], k);
            compile_kernel(ir, &p.k[k], what, archs, n_archs, &t);
        }
        ir_partition_free(&p);
        hipdnnBackendDestroyDescriptor(g);
    }
    cr_log_info("hipRTC (HIP %d.%d) for %s%s%s: %d compiled, %d failed; %d kernels without an AMD "
                "template", ci.major, ci.minor, archs[0], n_archs > 1 ? " and " : "",
                n_archs > 1 ? archs[1] : "", t.compiled, t.failed, t.refused);
    cr_expect_eq(t.failed, 0);
    /* pointwise (bn_inference_relu) and the row kernels (layernorm, rmsnorm_residual) at least */
    cr_expect_geq(t.compiled, 3 * N_VARIANTS * n_archs, "%d compiled", t.compiled);
}
