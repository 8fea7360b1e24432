/* fe_target.c — what the JIT engines generate code for: this process's device, or the compile
 * target named by hipdnnSetCompileTarget_ext (ahead-of-time compilation into a kernel cache,
 * also without a GPU; plans built for it are compile-only). A named arch's platform and usual SM
 * count come from codegen's target table (cg_caps_of); nothing here reads arch names.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg.h"
#include "engines/fe_engines.h"
#include "hipdnn_jit.h"
#include "runtime/rt.h"

static pthread_mutex_t target_mu = PTHREAD_MUTEX_INITIALIZER;
static fe_target override; /* arch[0] == '\0': none */

static hipdnnStatus_t hipdnnSetCompileTarget_ext_body(const char *arch, int sm_count);

HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnSetCompileTarget_ext(const char *arch, int sm_count)
{
    base_call_begin();
    return base_call_done(hipdnnSetCompileTarget_ext_body(arch, sm_count));
}

static hipdnnStatus_t hipdnnSetCompileTarget_ext_body(const char *arch, int sm_count)
{
    if (sm_count < 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnSetCompileTarget_ext: sm_count %d is negative", sm_count);
    fe_target t = {0};
    if (arch != NULL && arch[0] != '\0') {
        rt_compiler_info info;
        cg_caps caps; /* the platform from the arch's prefix, the usual SM count from codegen's table */
        cg_caps_of(NULL, arch, &caps);
        if (strlen(arch) >= sizeof t.arch || caps.vendor == CG_VENDOR_UNKNOWN ||
            rt_compiler_for(arch, &info) != HIPDNN_STATUS_SUCCESS)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnSetCompileTarget_ext: no run-time compiler "
                             "of this machine targets '%s' (NVIDIA: sm_XX with NVRTC, AMD: gfxXXX with hipRTC)",
                             arch);
        snprintf(t.arch, sizeof t.arch, "%s", arch);
        t.platform = caps.platform;
        t.sm_count = sm_count > 0 ? sm_count : caps.usual_sm_count;
        t.compile_only = true;
    }
    pthread_mutex_lock(&target_mu);
    override = t;
    pthread_mutex_unlock(&target_mu);
    base_log(HIPDNN_SEV_INFO, "compile target: %s", t.arch[0] ? t.arch : "this process's device");
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_target_current(fe_target *t)
{
    pthread_mutex_lock(&target_mu);
    *t = override;
    pthread_mutex_unlock(&target_mu);
    if (t->arch[0] != '\0')
        return HIPDNN_STATUS_SUCCESS;
    rt_device_info dev;
    hipdnnStatus_t st = rt_init();
    if (st == HIPDNN_STATUS_SUCCESS)
        st = rt_device(&dev);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    snprintf(t->arch, sizeof t->arch, "%s", dev.arch);
    t->platform = dev.platform, t->sm_count = dev.sm_count, t->compile_only = false;
    return HIPDNN_STATUS_SUCCESS;
}
