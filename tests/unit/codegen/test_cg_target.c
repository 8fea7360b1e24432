/* test_cg_target.c — codegen's target capabilities (cg_caps_of, cg_target.c): every arch of the
 * table with its values, archs outside it (read by number or not at all: no tensor cores), names
 * that disagree, and that the emitters decide on the caps cg_emit derives from the target's names
 * whatever a caller left in cg_target.caps. Needs no GPU and no compiler.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"
#include "engines/fe_engines.h"
#include "../../common/tu.h"

#define KB 1024

typedef struct want {
    const char *platform, *arch;
    cg_vendor vendor;
    int arch_num;
    bool known;
    int wave;
    bool mma_sync, wgmma;
    const char *wgmma_arch;
    int smem, sms;
} want;

static void check(const want *w)
{
    cg_caps c;
    memset(&c, 0x5a, sizeof c); /* poisoned: every field must be written */
    cg_caps_of(w->platform, w->arch, &c);
    const char *p = w->platform != NULL ? w->platform : "(none)";
    cr_expect_eq(c.vendor, w->vendor, "%s %s: vendor %d", p, w->arch, (int)c.vendor);
    const char *plat = w->vendor == CG_VENDOR_NVIDIA ? "nvidia" : w->vendor == CG_VENDOR_AMD ? "amd" : NULL;
    if (plat == NULL)
        cr_expect_null(c.platform, "%s %s", p, w->arch);
    else
        cr_expect(c.platform != NULL && strcmp(c.platform, plat) == 0, "%s %s: platform", p, w->arch);
    cr_expect_eq(c.arch_num, w->arch_num, "%s %s: arch_num %#x", p, w->arch, c.arch_num);
    cr_expect_eq(c.known, w->known, "%s %s: known", p, w->arch);
    cr_expect_eq(c.wave_size, w->wave, "%s %s: wave %d", p, w->arch, c.wave_size);
    cr_expect_eq(c.mma_sync, w->mma_sync, "%s %s: mma_sync", p, w->arch);
    cr_expect_eq(c.wgmma, w->wgmma, "%s %s: wgmma", p, w->arch);
    if (w->wgmma_arch == NULL)
        cr_expect_null(c.wgmma_arch, "%s %s", p, w->arch);
    else
        cr_expect(c.wgmma_arch != NULL && strcmp(c.wgmma_arch, w->wgmma_arch) == 0, "%s %s", p, w->arch);
    cr_expect_eq(c.smem_optin, w->smem, "%s %s: smem %d", p, w->arch, c.smem_optin);
    cr_expect_eq(c.usual_sm_count, w->sms, "%s %s: SMs %d", p, w->arch, c.usual_sm_count);
}

Test(codegen_target, every_arch_of_the_table)
{
    const want rows[] = {
        {"nvidia", "sm_80", CG_VENDOR_NVIDIA, 80, true, 32, true, false, NULL, 163 * KB, 108},
        {"nvidia", "sm_86", CG_VENDOR_NVIDIA, 86, true, 32, true, false, NULL, 227 * KB, 84},
        {"nvidia", "sm_87", CG_VENDOR_NVIDIA, 87, true, 32, true, false, NULL, 163 * KB, 100},
        {"nvidia", "sm_89", CG_VENDOR_NVIDIA, 89, true, 32, true, false, NULL, 227 * KB, 128},
        {"nvidia", "sm_90", CG_VENDOR_NVIDIA, 90, true, 32, true, true, "sm_90a", 227 * KB, 132},
        {"nvidia", "sm_100", CG_VENDOR_NVIDIA, 100, true, 32, true, false, NULL, 227 * KB, 148},
        {"amd", "gfx90a", CG_VENDOR_AMD, 0x90a, true, 64, false, false, NULL, 64 * KB, 110},
        {"amd", "gfx942", CG_VENDOR_AMD, 0x942, true, 64, false, false, NULL, 64 * KB, 304},
        {"amd", "gfx950", CG_VENDOR_AMD, 0x950, true, 64, false, false, NULL, 160 * KB, 256},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        check(&rows[i]);
        want by_prefix = rows[i]; /* no platform (a compile-only target): the arch's prefix names it */
        by_prefix.platform = NULL;
        check(&by_prefix);
    }
}

Test(codegen_target, archs_outside_the_table)
{
    const want rows[] = {
        /* read by number: tensor cores from sm_80, wgmma on exactly sm_90 */
        {"nvidia", "sm_75", CG_VENDOR_NVIDIA, 75, false, 32, false, false, NULL, 227 * KB, 100},
        {"nvidia", "sm_120", CG_VENDOR_NVIDIA, 120, false, 32, true, false, NULL, 227 * KB, 100},
        {"nvidia", "sm_90a", CG_VENDOR_NVIDIA, 90, false, 32, true, false, NULL, 227 * KB, 100},
        {"amd", "gfx908", CG_VENDOR_AMD, 0x908, false, 64, false, false, NULL, 64 * KB, 100},
        {"amd", "gfx1100", CG_VENDOR_AMD, 0x1100, false, 32, false, false, NULL, 64 * KB, 100},
        {"amd", "gfx90a:sramecc+:xnack-", CG_VENDOR_AMD, 0x90a, false, 64, false, false, NULL, 64 * KB, 100},
        /* not read: no number, no tensor cores */
        {"nvidia", "sm_", CG_VENDOR_NVIDIA, 0, false, 32, false, false, NULL, 227 * KB, 100},
        {"nvidia", "sm_x90", CG_VENDOR_NVIDIA, 0, false, 32, false, false, NULL, 227 * KB, 100},
        {"nvidia", "sm_9000000", CG_VENDOR_NVIDIA, 0, false, 32, false, false, NULL, 227 * KB, 100},
        {"nvidia", "", CG_VENDOR_NVIDIA, 0, false, 32, false, false, NULL, 227 * KB, 100},
        {"nvidia", "gfx942", CG_VENDOR_NVIDIA, 0, false, 32, false, false, NULL, 227 * KB, 100},
        {"amd", "sm_90", CG_VENDOR_AMD, 0, false, 0, false, false, NULL, 64 * KB, 100},
        {"vulkan", "sm_90", CG_VENDOR_UNKNOWN, 0, false, 0, false, false, NULL, 227 * KB, 100},
        {NULL, "spirv", CG_VENDOR_UNKNOWN, 0, false, 0, false, false, NULL, 227 * KB, 100},
        {NULL, "SM_90", CG_VENDOR_UNKNOWN, 0, false, 0, false, false, NULL, 227 * KB, 100},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check(&rows[i]);
    cg_caps c;
    cg_caps_of("nvidia", NULL, &c);
    cr_expect(c.vendor == CG_VENDOR_NVIDIA && c.arch_num == 0 && !c.mma_sync && !c.known, "no arch at all");
}

Test(codegen_target, default_target_is_sm_90)
{
    cg_target t = cg_default_target();
    cr_expect_str_eq(t.platform, "nvidia");
    cr_expect_str_eq(t.arch, "sm_90");
    cr_expect_eq(t.sm_count, 132);
    cr_expect(t.caps.wgmma && t.caps.mma_sync && t.caps.known && t.caps.arch_num == 90);
}

/* cg_emit reads the target's names, not the caps a caller left: sm_80 with wgmma claimed emits
 * mma.sync, sm_90 with nothing claimed emits wgmma, AMD claiming tensor cores is refused. */
Test(codegen_target, emit_derives_the_caps_from_the_names)
{
    hipdnnHandle_t handle;
    cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS);
    hipdnnBackendDescriptor_t g = tu_example_graph(handle, "matmul_bias_gelu.json");
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    cg_kernel k;

    cg_target t = {.platform = "nvidia", .arch = "sm_80", .sm_count = 108};
    t.caps = (cg_caps){.vendor = CG_VENDOR_NVIDIA, .mma_sync = true, .wgmma = true, .wgmma_arch = "sm_90a"};
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(k.entry, "hd_matmul_kernel");
    cr_expect_str_eq(k.arch, "sm_80");
    cg_kernel_free(&k);

    t = (cg_target){.platform = "nvidia", .arch = "sm_90", .sm_count = 132}; /* caps left zero */
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(k.entry, "hd_matmul_sm90_kernel");
    cr_expect_str_eq(k.arch, "sm_90a");
    cr_expect_not_null(strstr(k.source, "target nvidia sm_90\n"), "the header names the target");
    cg_kernel_free(&k);

    t = (cg_target){.platform = "amd", .arch = "gfx942", .sm_count = 304};
    t.caps = (cg_caps){.vendor = CG_VENDOR_NVIDIA, .mma_sync = true};
    char why[256] = "";
    cr_expect(!cg_supports_on(ir, &p.k[0], &t, why, sizeof why));
    cr_expect_not_null(strstr(why, "no AMD matmul template"), "%s", why);

    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
    hipdnnDestroy(handle);
}
