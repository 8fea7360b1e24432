/* fault_rtc.c — the fake runtime's compiler (fault_rt_int.h): NVRTC's entry points as rt_rtc.c
 * calls them (runtime/rt_int.h), so the library's own compile driver runs, its failures included.
 *
 * Owns: programs (a copy of the source; the count alive), "compiling" (the options must name an
 * sm_XX architecture; the code object is FAULT_RT_CODE_MAGIC, the arch and the source), the log,
 * and the injected failure of each entry point but destroy. Does not own: the numbering of calls
 * (fault_rt.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_rt_int.h"

typedef struct fake_prog {
    char *source, *code, log[192];
    size_t code_len;
} fake_prog;

static atomic_long n_programs;

long fault_rtc_programs(void) { return atomic_load(&n_programs); }

/* ---- the compiler (rt_rtc.c's entry points) --------------------------------------------------------
 * Results as NVRTC's: 0 success, 1 out of memory, 3 invalid input, 6 compilation failed. */

enum { RTC_OK = 0, RTC_OOM = 1, RTC_INVALID_INPUT = 3, RTC_COMPILATION = 6 };

static const char *rtc_error_string(int r)
{
    return r == RTC_OK ? "NVRTC_SUCCESS" : r == RTC_OOM ? "NVRTC_ERROR_OUT_OF_MEMORY"
         : r == RTC_INVALID_INPUT ? "NVRTC_ERROR_INVALID_INPUT" : r == RTC_COMPILATION ? "NVRTC_ERROR_COMPILATION"
         : "NVRTC_ERROR_UNKNOWN";
}

static int rtc_create(void **prog, const char *src, const char *name, int n_headers, const char *const *headers,
                      const char *const *include_names)
{
    (void)name, (void)n_headers, (void)headers, (void)include_names;
    *prog = NULL;
    if (fault_rt_inject(C_RTC_CREATE, HIPDNN_STATUS_ALLOC_FAILED))
        return RTC_OOM;
    fake_prog *p = calloc(1, sizeof *p);
    if (p == NULL || (p->source = strdup(src)) == NULL) {
        free(p);
        return RTC_OOM;
    }
    atomic_fetch_add(&n_programs, 1);
    *prog = p;
    return RTC_OK;
}

/* Options must name the architecture; the code object is the magic, the arch and the source. */
static int rtc_compile(void *prog, int n_options, const char *const *options)
{
    fake_prog *p = prog;
    if (fault_rt_inject(C_RTC_COMPILE, HIPDNN_STATUS_INTERNAL_ERROR)) {
        snprintf(p->log, sizeof p->log, "nvrtcCompileProgram: injected by the fault tests' runtime (call %ld)\n",
                 fault_rt_calls());
        return RTC_COMPILATION;
    }
    const char *arch = NULL;
    for (int i = 0; i < n_options; i++)
        if (strncmp(options[i], "--gpu-architecture=", 19) == 0)
            arch = options[i] + 19;
    if (arch == NULL || strncmp(arch, "sm_", 3) != 0) {
        snprintf(p->log, sizeof p->log, "fake compiler: no --gpu-architecture=sm_XX option\n");
        return RTC_COMPILATION;
    }
    size_t n = strlen(FAULT_RT_CODE_MAGIC) + strlen(arch) + 1 + strlen(p->source);
    free(p->code);
    if ((p->code = malloc(n + 1)) == NULL)
        return RTC_OOM;
    snprintf(p->code, n + 1, "%s%s\n%s", FAULT_RT_CODE_MAGIC, arch, p->source);
    p->code_len = n;
    snprintf(p->log, sizeof p->log, "fake compiler: %zu bytes of source for %s\n", strlen(p->source), arch);
    return RTC_OK;
}

static int rtc_log_size(void *prog, size_t *size)
{
    if (fault_rt_inject(C_RTC_LOG_SIZE, HIPDNN_STATUS_INTERNAL_ERROR))
        return RTC_INVALID_INPUT;
    *size = strlen(((fake_prog *)prog)->log) + 1;
    return RTC_OK;
}

static int rtc_log(void *prog, char *log)
{
    if (fault_rt_inject(C_RTC_LOG, HIPDNN_STATUS_INTERNAL_ERROR))
        return RTC_INVALID_INPUT;
    strcpy(log, ((fake_prog *)prog)->log);
    return RTC_OK;
}

static int rtc_code_size(void *prog, size_t *size)
{
    if (fault_rt_inject(C_RTC_CODE_SIZE, HIPDNN_STATUS_INTERNAL_ERROR))
        return RTC_INVALID_INPUT;
    *size = ((fake_prog *)prog)->code_len;
    return RTC_OK;
}

static int rtc_code(void *prog, char *code)
{
    if (fault_rt_inject(C_RTC_CODE, HIPDNN_STATUS_INTERNAL_ERROR))
        return RTC_INVALID_INPUT;
    fake_prog *p = prog;
    memcpy(code, p->code, p->code_len);
    return RTC_OK;
}

static int rtc_destroy(void **prog)
{
    fake_prog *p = *prog;
    if (p == NULL)
        return RTC_INVALID_INPUT;
    free(p->source), free(p->code), free(p);
    *prog = NULL;
    atomic_fetch_sub(&n_programs, 1);
    return RTC_OK;
}

static const rt_rtc fake_rtc = {
    .compiler = "fake-nvrtc",
    .arch_option = "--gpu-architecture=",
    .options = {"-default-device", "--std=c++17"},
    .code_name = "CUBIN",
    .default_name = "fault_rt.cu",
    .names = {"nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
              "nvrtcGetCUBINSize", "nvrtcGetCUBIN", "nvrtcDestroyProgram", "nvrtcGetErrorString"},
    .create = rtc_create,
    .compile = rtc_compile,
    .log_size = rtc_log_size,
    .log = rtc_log,
    .code_size = rtc_code_size,
    .code = rtc_code,
    .destroy = rtc_destroy,
    .error_string = rtc_error_string,
};

hipdnnStatus_t fault_rtc_init(rt_compiler_info *info)
{
    *info = (rt_compiler_info){.id = "fake-nvrtc", .major = 1, .minor = 0};
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fault_rtc_compile(const char *source, const char *program_name, const char *arch,
                                 const char *const *options, int n_options, void **code, size_t *code_len,
                                 char **log)
{
    return rt_rtc_compile(&fake_rtc, source, program_name, arch, options, n_options, code, code_len, log);
}
