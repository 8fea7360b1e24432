/* cg_assemble.c — the embedded templates and a kernel source's assembly: template lookup by
 * name, the hash of every template text (part of each kernel's cache key), and the final source
 * (header line, the target's prelude, hd_common.h, the template's device libraries in order,
 * generated defines and hooks, #line, the template). A template may be cut into parts: a line
 * `#include "part.h"` naming an embedded file is replaced by that file's text between #line
 * markers (so a template still compiles by hand, where the compiler reads the same include, and the
 * emitted source stays one self-contained text). Contract: cg_int.h (cg_templates_hash: cg.h).
 * Calls no emitter; the prelude follows the target's vendor (cg_caps).
 */
#include <stdio.h>
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

/* ---- assembly ----------------------------------------------------------------------------------- */

/* The device libraries a template uses beside hd_common.h, in order: they go in after hd_common.h,
 * before the generated defines (a library reads no define or hook). hd_tensor_nv.h: the NVIDIA
 * tensor-core and async-copy wrappers; sdpa_common.h: what the attention templates share;
 * sdpa_mask_iv.h: the interval arithmetic of a mask modifier's block classification. */
#define CG_MAX_LIBS 3
static const struct {
    const char *tpl, *libs[CG_MAX_LIBS];
} libraries[] = {
    {"matmul.hip", {"hd_tensor_nv.h"}},
    {"matmul_sm90.hip", {"hd_tensor_nv.h"}},
    {"conv_igemm.hip", {"hd_tensor_nv.h"}},
    {"sdpa_fwd.hip", {"hd_tensor_nv.h", "sdpa_common.h", "sdpa_mask_iv.h"}},
    {"sdpa_fwd_fp8.hip", {"hd_tensor_nv.h", "sdpa_common.h"}},
    {"sdpa_bwd.hip", {"hd_tensor_nv.h", "sdpa_common.h", "sdpa_mask_iv.h"}},
};

/* The libraries of tpl: CG_MAX_LIBS entries, NULL past the last (all NULL for none). */
static const char *const *libraries_of(const char *tpl)
{
    static const char *const none[CG_MAX_LIBS] = {NULL};
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++)
        if (strcmp(libraries[i].tpl, tpl) == 0)
            return libraries[i].libs;
    return none;
}

/* Parts include parts at most this deep (a cycle of includes is refused, not followed forever). */
#define CG_MAX_PART_DEPTH 4

/* The embedded file a line `#include "name"` (spaces allowed after '#' and the keyword) names,
 * or NULL: other lines, and includes of files that are not embedded, stay as they are. */
static const char *part_of(const char *line, size_t len, char *name, size_t cap)
{
    static const char kw[] = "include";
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    if (i >= len || line[i++] != '#')
        return NULL;
    while (i < len && line[i] == ' ')
        i++;
    if (len - i < sizeof kw - 1 || memcmp(line + i, kw, sizeof kw - 1) != 0)
        return NULL;
    i += sizeof kw - 1;
    while (i < len && line[i] == ' ')
        i++;
    const char *q = i < len && line[i] == '"' ? memchr(line + i + 1, '"', len - i - 1) : NULL;
    size_t n = q != NULL ? (size_t)(q - (line + i + 1)) : 0;
    if (q == NULL || n == 0 || n >= cap)
        return NULL;
    memcpy(name, line + i + 1, n);
    name[n] = '\0';
    return cg_template_text(name);
}

/* Appends the template `name` (text `text`) with its parts inlined, each between #line markers. */
static hipdnnStatus_t append_template(base_sb *sb, const char *name, const char *text, int depth)
{
    base_sb_printf(sb, "#line 1 \"%s\"\n", name);
    int line_no = 1;
    for (const char *p = text; *p != '\0'; line_no++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
        char part[64];
        const char *sub = part_of(p, len, part, sizeof part);
        if (sub == NULL) {
            base_sb_printf(sb, "%.*s%s", (int)len, p, nl != NULL ? "\n" : "");
        } else if (depth >= CG_MAX_PART_DEPTH) {
            return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "codegen: %s includes parts deeper than %d (a cycle?)",
                             name, CG_MAX_PART_DEPTH);
        } else {
            hipdnnStatus_t st = append_template(sb, part, sub, depth + 1);
            if (st != HIPDNN_STATUS_SUCCESS)
                return st;
            size_t n = strlen(sub);
            base_sb_printf(sb, "%s#line %d \"%s\"\n", n > 0 && sub[n - 1] != '\n' ? "\n" : "", line_no + 1, name);
        }
        p += len + (nl != NULL);
    }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t cg_assemble(const cg_target *t, const char *tpl, const base_sb *defs,
                           const base_sb *hooks, cg_kernel *out)
{
    bool amd = t->caps.vendor == CG_VENDOR_AMD;
    const char *prelude = cg_template_text(amd ? "prelude_amd.h" : "prelude_nvidia.h");
    const char *common = cg_template_text("hd_common.h"), *body = cg_template_text(tpl);
    const char *const *libs = libraries_of(tpl);
    if (prelude == NULL || common == NULL || body == NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "codegen: template %s is not embedded", tpl);
    for (int i = 0; i < CG_MAX_LIBS && libs[i] != NULL; i++)
        if (cg_template_text(libs[i]) == NULL)
            return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "codegen: library %s is not embedded", libs[i]);
    base_sb sb = {0};
    base_sb_printf(&sb, "// hipdnn-jit %s, template %s, target %s %s\n", CG_VERSION, tpl,
                   t->platform, t->arch);
    base_sb_printf(&sb, "#line 1 \"%s\"\n%s\n", amd ? "prelude_amd.h" : "prelude_nvidia.h", prelude);
    base_sb_printf(&sb, "#line 1 \"hd_common.h\"\n%s\n", common);
    for (int i = 0; i < CG_MAX_LIBS && libs[i] != NULL; i++)
        base_sb_printf(&sb, "#line 1 \"%s\"\n%s\n", libs[i], cg_template_text(libs[i]));
    base_sb_printf(&sb, "#line 1 \"generated\"\n#define HD_GENERATED 1\n%s%s", base_sb_str(defs),
                   base_sb_str(hooks));
    hipdnnStatus_t st = append_template(&sb, tpl, body, 0);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_sb_free(&sb);
        return st;
    }
    if (sb.oom) {
        base_sb_free(&sb);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    }
    out->source = sb.p;
    if (out->arch[0] == '\0')
        snprintf(out->arch, sizeof out->arch, "%s", t->arch);
    return HIPDNN_STATUS_SUCCESS;
}
