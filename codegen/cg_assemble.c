/* cg_assemble.c — the embedded templates and a kernel source's assembly: template lookup by
 * name, the hash of every template text (part of each kernel's cache key), and the final source
 * (header line, the target's prelude, hd_common.h, the template's device library, generated
 * defines and hooks, #line, the template). Contract: cg_int.h (cg_templates_hash: cg.h). Calls
 * no emitter; the prelude follows the target's vendor (cg_caps).
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
    bool amd = t->caps.vendor == CG_VENDOR_AMD;
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
