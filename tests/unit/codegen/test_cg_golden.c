/* test_cg_golden.c — golden tests of the emitted kernel source: one small graph per template
 * family (golden/graphs/<case>.json), fused and emitted for a fixed target, compared byte for
 * byte with the reviewed file golden/<case>.<arch>.cu. No GPU and no compiler are needed.
 *
 * A golden file holds every kernel of the graph's partition in launch order, each after one
 * header line with its entry, compile arch and launch shape. The emitted source is
 * deterministic (test_cg*.c check that; it holds no path, time or build hash: only template
 * names after #line), so the comparison is exact, with one reduction that keeps the files
 * reviewable: a section that is a kernel_templates/ file copied verbatim (the prelude,
 * hd_common.h, the tensor-core libraries, the template itself and its parts, each section after
 * its `#line N "NAME"` up to the next #line) is replaced by one line naming the file (and, for a
 * part of it, its first line) — and only when it is that text byte for byte, so
 * what the golden shows is what codegen generated (defines, hooks, the assembly order), a
 * section that differs from its file stays in full, and editing a template changes no golden
 * (the templates are reviewed as themselves).
 *
 * On a mismatch the test prints the first differing lines and the refresh command:
 *   HIPDNN_GOLDEN_UPDATE=1 ctest -R test_cg_golden      (or tests/unit/codegen/update_golden.sh)
 * which rewrites the files; review the diff (git diff tests/unit/codegen/golden) before
 * committing it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_int.h"
#include "engines/fe_engines.h"
#include "../../common/tu.h"

#define GOLDEN_DIR HIPDNN_SOURCE_DIR "/tests/unit/codegen/golden"
#define REFRESH                                                                                  \
    "HIPDNN_GOLDEN_UPDATE=1 ctest -R test_cg_golden (in the build directory), or "                \
    "tests/unit/codegen/update_golden.sh"

static hipdnnHandle_t handle;

static void setup(void) { cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(codegen_golden, .init = setup, .fini = teardown);

/* ---- the reduction of verbatim template sections ------------------------------------------ */

/* The text of the embedded template file that a `#line N "NAME"` line at s names, from its line N
 * on, else NULL (name receives NAME, *first N). */
static const char *template_at(const char *s, char *name, size_t size, int *first)
{
    static const char mark[] = "#line ";
    char *end = NULL;
    if (strncmp(s, mark, sizeof mark - 1) != 0)
        return NULL;
    long n0 = strtol(s + sizeof mark - 1, &end, 10);
    if (end == NULL || n0 < 1 || strncmp(end, " \"", 2) != 0)
        return NULL;
    const char *nm = end + 2, *q = strchr(nm, '"');
    size_t n = q != NULL ? (size_t)(q - nm) : 0;
    if (q == NULL || q[1] != '\n' || n == 0 || n >= size)
        return NULL;
    memcpy(name, nm, n), name[n] = '\0';
    const char *text = cg_template_text(name);
    for (long l = 1; text != NULL && l < n0; l++) {
        text = strchr(text, '\n');
        text = text != NULL ? text + 1 : NULL;
    }
    *first = (int)n0;
    return text;
}

/* The length of the section at p: up to the next line that starts with "#line " (or the end). */
static size_t section_len(const char *p)
{
    const char *q = p;
    while (*q != '\0' && strncmp(q, "#line ", 6) != 0) {
        const char *eol = strchr(q, '\n');
        q = eol != NULL ? eol + 1 : q + strlen(q);
    }
    return (size_t)(q - p);
}

/* src with each verbatim template section replaced by a line naming it (see the header). */
static char *reduce(const char *src)
{
    base_sb sb = {0};
    const char *p = src;
    while (*p != '\0') {
        const char *eol = strchr(p, '\n');
        size_t line = eol != NULL ? (size_t)(eol - p) + 1 : strlen(p);
        char name[128];
        int first = 0;
        const char *text = template_at(p, name, sizeof name, &first);
        base_sb_putn(&sb, p, line);
        p += line;
        size_t len = text != NULL ? section_len(p) : 0;
        if (len > 1 && strlen(text) == len - 1 && p[len - 1] == '\n')
            len--; /* the assembler's newline after a whole file stays in the golden */
        if (len > 0 && strlen(text) >= len && strncmp(p, text, len) == 0) {
            if (first == 1 && strlen(text) == len) /* the whole file */
                base_sb_printf(&sb, "/* golden: kernel_templates/%s verbatim */\n", name);
            else /* a part of the file, up to the next #line */
                base_sb_printf(&sb, "/* golden: kernel_templates/%s verbatim from line %d */\n", name, first);
            p += len;
        }
    }
    char *out = strdup(base_sb_str(&sb));
    base_sb_free(&sb);
    return out;
}

/* ---- emitting a case ------------------------------------------------------------------------ */

/* Every kernel of the case's graph for the target, reduced, after its header line. */
static char *emit_case(const char *graph, const cg_target *t, const char *family)
{
    char path[512];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/graphs/%s.json", GOLDEN_DIR, graph);
    char *text = tu_read_file(path, &len);
    cr_assert(text != NULL, "cannot read %s", path);
    hipdnnBackendDescriptor_t g = tu_json_graph(handle, text, len, path);
    free(text);
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition part;
    cr_assert_eq(ir_fuse(ir, &part), HIPDNN_STATUS_SUCCESS, "%s: fusion: %s", graph, tu_msg());
    base_sb sb = {0};
    bool has_family = false;
    for (int i = 0; i < part.n; i++) {
        cg_kernel k;
        cr_assert_eq(cg_emit(ir, &part.k[i], t, &k), HIPDNN_STATUS_SUCCESS, "%s kernel %d for %s: %s", graph, i,
                     t->arch, tu_msg());
        char want[160];
        snprintf(want, sizeof want, "#line 1 \"%s\"\n", family);
        has_family = has_family || strstr(k.source, want) != NULL;
        base_sb_printf(&sb, "/* golden: kernel %d of %d: entry %s, arch %s, grid %u,%u,%u, block %u,%u,%u, smem %u, "
                       "%d more launches, scratch %lld */\n", i + 1, part.n, k.entry, k.arch, k.grid[0], k.grid[1],
                       k.grid[2], k.block[0], k.block[1], k.block[2], k.smem, k.n_then, (long long)k.scratch);
        char *r = reduce(k.source);
        base_sb_puts(&sb, r);
        free(r);
        cg_kernel_free(&k);
    }
    ir_partition_free(&part);
    hipdnnBackendDestroyDescriptor(g);
    cr_assert(has_family, "%s for %s: no kernel comes from %s, the family this golden stands for", graph, t->arch,
              family);
    char *out = strdup(base_sb_str(&sb));
    base_sb_free(&sb);
    return out;
}

/* ---- comparing -------------------------------------------------------------------------------- */

/* The first differing line (1-based) of a and b, with up to 3 lines of each from there printed
 * into msg as "-expected" / "+emitted". */
static void first_difference(const char *want, const char *got, char *msg, size_t size)
{
    int line = 1;
    const char *a = want, *b = got;
    while (*a != '\0' && *a == *b) {
        line += *a == '\n';
        a++, b++;
    }
    while (a > want && a[-1] != '\n')
        a--, b--;
    int n = snprintf(msg, size, "first difference at line %d:\n", line);
    for (int pass = 0; pass < 2 && n >= 0 && (size_t)n < size; pass++) {
        const char *p = pass == 0 ? a : b;
        for (int l = 0; l < 3 && *p != '\0' && n >= 0 && (size_t)n < size; l++) {
            const char *eol = strchr(p, '\n');
            int len = eol != NULL ? (int)(eol - p) : (int)strlen(p);
            n += snprintf(msg + n, size - (size_t)n, "%c%.*s\n", pass == 0 ? '-' : '+', len > 200 ? 200 : len, p);
            p += len + (eol != NULL);
        }
    }
}

static void check_case(const char *graph, const char *platform, const char *arch, const char *family)
{
    cg_target t = {.platform = platform, .sm_count = strcmp(platform, "amd") == 0 ? 304 : 132};
    snprintf(t.arch, sizeof t.arch, "%s", arch);
    char *got = emit_case(graph, &t, family);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.%s.cu", GOLDEN_DIR, graph, arch);
    const char *update = getenv("HIPDNN_GOLDEN_UPDATE");
    if (update != NULL && update[0] != '\0' && strcmp(update, "0") != 0) {
        FILE *f = fopen(path, "wb");
        cr_assert(f != NULL, "cannot write %s", path);
        cr_assert(fwrite(got, 1, strlen(got), f) == strlen(got) && fclose(f) == 0, "writing %s failed", path);
        cr_log_info("golden: wrote %s", path);
        free(got);
        return;
    }
    size_t len = 0;
    char *want = tu_read_file(path, &len);
    char diff[4096] = "";
    if (want != NULL && strcmp(want, got) != 0)
        first_difference(want, got, diff, sizeof diff);
    cr_expect(want != NULL, "%s is missing; write it with\n  %s\nand review it", path, REFRESH);
    cr_expect(want == NULL || strcmp(want, got) == 0,
              "the source emitted for %s on %s differs from %s\n%s\nIf the change is intended, refresh with\n  %s\n"
              "and review `git diff tests/unit/codegen/golden`", graph, arch, path, diff, REFRESH);
    free(want), free(got);
}

/* One representative graph per template family; NVIDIA sm_90 (sm_80 where the sm_90 path
 * takes another template) and AMD gfx942 for two families. One test each, so ctest names the
 * family that changed. */
#define GOLDEN(test, graph, platform, arch, family) \
    Test(codegen_golden, test) { check_case(graph, platform, arch, family); }
GOLDEN(pointwise, "pointwise", "nvidia", "sm_90", "pointwise.hip")
GOLDEN(pointwise_amd, "pointwise", "amd", "gfx942", "pointwise.hip")
GOLDEN(matmul, "matmul", "nvidia", "sm_80", "matmul.hip")
GOLDEN(matmul_sm90, "matmul", "nvidia", "sm_90", "matmul_sm90.hip")
GOLDEN(conv, "conv", "nvidia", "sm_90", "conv_igemm.hip")
GOLDEN(rownorm, "layernorm", "nvidia", "sm_90", "rownorm.hip")
GOLDEN(rownorm_amd, "layernorm", "amd", "gfx942", "rownorm.hip")
GOLDEN(channorm, "batchnorm_training", "nvidia", "sm_90", "channorm.hip")
GOLDEN(sdpa_fwd, "sdpa_fwd", "nvidia", "sm_90", "sdpa_fwd.hip")
GOLDEN(sdpa_bwd, "sdpa_bwd", "nvidia", "sm_90", "sdpa_bwd.hip")
GOLDEN(quantize, "quantize", "nvidia", "sm_90", "blockquant.hip")
GOLDEN(paged_load, "paged_load", "nvidia", "sm_90", "paged_load.hip")
