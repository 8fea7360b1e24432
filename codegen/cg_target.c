/* cg_target.c — what a target can run (cg_caps), from its platform and arch names.
 *
 * Owns the table of known archs and the one reading of target names in codegen and the frontend:
 * the vendor from the platform (or the arch's prefix), the arch's number, and from those the
 * capability fields that emitters and heuristics decide on (cg.h draws the table). Owns no
 * decision: it says what the target has, the emitters choose. runtime/ names archs on its own
 * (its compilers' prefixes); nothing here sees the device.
 */
#include <string.h>

#include "codegen/cg_int.h"

#define KB 1024
#define NVIDIA_SMEM_OPTIN (227 * KB) /* Hopper's opt-in; every NVIDIA arch without its own row */
#define AMD_LDS (64 * KB)            /* local data share of a workgroup, gfx9 (CDNA) */
#define USUAL_SM_COUNT 100           /* an arch without its own count */

/* The archs with values of their own; 0 takes the default above. */
static const struct arch_row {
    const char *arch;
    int sm_count;   /* multiprocessors (compute units) of the arch's flagship part */
    int smem_optin; /* bytes a block may opt in to */
    const char *wgmma_arch; /* wgmma, TMA, setmaxnreg: the arch-specific variant they compile for */
} arch_rows[] = {
    {"sm_80", 108, 163 * KB, NULL},
    {"sm_86", 84, 0, NULL}, /* 99 KB in fact; planned with the default as always */
    {"sm_87", 0, 163 * KB, NULL},
    {"sm_89", 128, 0, NULL}, /* 99 KB in fact, as sm_86 */
    {"sm_90", 132, 0, "sm_90a"},
    {"sm_100", 148, 0, NULL},
    {"gfx90a", 110, 0, NULL},
    {"gfx942", 304, 0, NULL},
    {"gfx950", 256, 160 * KB, NULL},
};

static const struct vendor_name {
    cg_vendor vendor;
    const char *platform; /* runtime's rt_device_info.platform */
    const char *prefix;   /* of its archs */
    int base;             /* of the arch's number */
} vendors[] = {
    {CG_VENDOR_NVIDIA, "nvidia", "sm_", 10},
    {CG_VENDOR_AMD, "amd", "gfx", 16},
};

static const struct vendor_name *vendor_by_platform(const char *platform)
{
    for (size_t i = 0; platform != NULL && i < sizeof vendors / sizeof vendors[0]; i++)
        if (strcmp(vendors[i].platform, platform) == 0)
            return &vendors[i];
    return NULL;
}

static const struct vendor_name *vendor_by_arch(const char *arch)
{
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (strncmp(vendors[i].prefix, arch, strlen(vendors[i].prefix)) == 0)
            return &vendors[i];
    return NULL;
}

/* The number after the vendor's prefix: its leading digits in the vendor's base (a suffix such
 * as sm_90a's "a" or gfx90a's ":xnack-" ends it); 0 without a digit or past six of them. */
static int arch_number(const struct vendor_name *v, const char *arch)
{
    const char *p = arch + strlen(v->prefix);
    int n = 0, digits = 0;
    for (;; p++, digits++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : v->base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (d < 0)
            break;
        if (digits == 6)
            return 0;
        n = n * v->base + d;
    }
    return n;
}

static const struct arch_row *row_of(const char *arch)
{
    for (size_t i = 0; i < sizeof arch_rows / sizeof arch_rows[0]; i++)
        if (strcmp(arch_rows[i].arch, arch) == 0)
            return &arch_rows[i];
    return NULL;
}

void cg_caps_of(const char *platform, const char *arch, cg_caps *c)
{
    if (arch == NULL)
        arch = "";
    const struct vendor_name *v = platform != NULL ? vendor_by_platform(platform) : vendor_by_arch(arch);
    *c = (cg_caps){.smem_optin = NVIDIA_SMEM_OPTIN, .usual_sm_count = USUAL_SM_COUNT};
    if (v == NULL)
        return;
    c->vendor = v->vendor, c->platform = v->platform;
    if (v->vendor == CG_VENDOR_AMD)
        c->smem_optin = AMD_LDS;
    else
        c->wave_size = 32;
    if (vendor_by_arch(arch) != v || (c->arch_num = arch_number(v, arch)) == 0)
        return;
    if (v->vendor == CG_VENDOR_AMD)
        c->wave_size = c->arch_num >> 8 <= 9 ? 64 : 32; /* wave64 to gfx9, wave32 from gfx10 (RDNA) */
    else
        c->mma_sync = c->arch_num >= 80;
    const struct arch_row *r = row_of(arch);
    if (r == NULL)
        return;
    c->known = true;
    c->wgmma = r->wgmma_arch != NULL, c->wgmma_arch = r->wgmma_arch;
    c->smem_optin = r->smem_optin > 0 ? r->smem_optin : c->smem_optin;
    c->usual_sm_count = r->sm_count > 0 ? r->sm_count : c->usual_sm_count;
}

cg_target cg_target_with_caps(const cg_target *t)
{
    cg_target out = *t;
    cg_caps_of(t->platform, t->arch, &out.caps);
    return out;
}

cg_target cg_default_target(void)
{
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    return cg_target_with_caps(&t);
}
