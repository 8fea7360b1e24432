/* rt_rtc.c — the compile driver both vendors' run-time compilers share. hipRTC mirrors NVRTC's
 * calls one for one (create a program, compile it with options, read the log, read the code,
 * destroy it), so one driver serves both; each vendor file supplies an rt_rtc: the library's
 * entry points, its architecture option and fixed options, and names for messages.
 *
 * Owns: the argument vector, reading the log (at log level 4 it is logged even on success),
 * one compile at a time for compilers that are not thread safe (hipRTC 5.2),
 * turning a failed compile into a message with the log's head (cut to fit the last-error slot),
 * copying the code object out, and releasing the program on every path. Calls nothing of rt.c:
 * rt.c -> rt_<vendor>.c -> this file, one way.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_int.h"

enum { RTC_SUCCESS = 0, RTC_OUT_OF_MEMORY = 1 }; /* the same codes in nvrtc.h and hiprtc.h */
enum { N_FIXED_OPTIONS = 1 + RT_RTC_FIXED_OPTIONS };

const char *rt_rtc_load(rt_rtc *api, void *h)
{
    void **slots[] = {(void **)&api->create, (void **)&api->compile, (void **)&api->log_size,
                      (void **)&api->log, (void **)&api->code_size, (void **)&api->code,
                      (void **)&api->destroy, (void **)&api->error_string};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if ((*slots[i] = dlsym(h, api->names[i])) == NULL)
            return api->names[i];
    return NULL;
}

static hipdnnStatus_t check(const rt_rtc *api, int r, const char *what)
{
    if (r == RTC_SUCCESS)
        return HIPDNN_STATUS_SUCCESS;
    hipdnnStatus_t st = r == RTC_OUT_OF_MEMORY ? HIPDNN_STATUS_ALLOC_FAILED : HIPDNN_STATUS_INTERNAL_ERROR;
    return base_fail(st, "%s: %s (%d)", what, api->error_string(r), r);
}

/* argv = the architecture option, the fixed options, then the caller's; arch_opt stores the first. */
static hipdnnStatus_t make_argv(const rt_rtc *api, const char *arch, const char *const *options,
                                int n_options, char *arch_opt, size_t arch_opt_len, const char ***argv)
{
    if ((size_t)snprintf(arch_opt, arch_opt_len, "%s%s", api->arch_option, arch) >= arch_opt_len)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "rt_compile: arch \"%.40s...\" is too long", arch);
    const char **v = base_malloc(sizeof *v * ((size_t)n_options + N_FIXED_OPTIONS));
    if (v == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "rt_compile: out of host memory");
    v[0] = arch_opt;
    for (int i = 0; i < RT_RTC_FIXED_OPTIONS; i++)
        v[1 + i] = api->options[i];
    for (int i = 0; i < n_options; i++)
        v[N_FIXED_OPTIONS + i] = options[i];
    *argv = v;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t read_log(const rt_rtc *api, void *prog, char **log)
{
    size_t n = 0;
    hipdnnStatus_t st = check(api, api->log_size(prog, &n), api->names[RT_RTC_LOG_SIZE]);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    char *buf = base_malloc(n + 1);
    if (buf == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "rt_compile: out of host memory for the log");
    buf[0] = buf[n] = '\0';
    st = n > 0 ? check(api, api->log(prog, buf), api->names[RT_RTC_LOG]) : st;
    if (st != HIPDNN_STATUS_SUCCESS)
        base_free(buf);
    else
        *log = buf;
    return st;
}

/* Raises INTERNAL_ERROR "<compiler>: compiling <name> for <arch> failed (<result>):" followed by the
 * head of the compiler's log, cut to fit the last-error slot. */
static hipdnnStatus_t compile_failed(const char *compiler, const char *name, const char *arch,
                                     const char *result, const char *log)
{
    const size_t budget = HIPDNN_ERROR_STRING_MAX_LENGTH - 512;
    size_t n = strlen(log);
    return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "%s: compiling %s for %s failed (%s):\n%.*s%s",
                     compiler, name, arch, result, (int)(n < budget ? n : budget), log,
                     n > budget ? "\n[compiler log truncated]" : "");
}

static hipdnnStatus_t run_compile(const rt_rtc *api, void *prog, const char *name, const char *arch,
                                  const char **argv, int argc, char **log_out)
{
    int r = api->compile(prog, argc, argv);
    char *log = NULL;
    hipdnnStatus_t st = read_log(api, prog, &log);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (log[0] != '\0')
        base_detail(BASE_DETAIL_VERBOSE, "%s log of %s for %s:\n%s", api->compiler, name, arch, log);
    if (r != RTC_SUCCESS)
        st = compile_failed(api->compiler, name, arch, api->error_string(r), log);
    if (r != RTC_SUCCESS && log_out != NULL)
        *log_out = log;
    else
        base_free(log);
    return st;
}

static hipdnnStatus_t take_code(const rt_rtc *api, void *prog, const char *name, const char *arch,
                                void **code, size_t *code_len)
{
    size_t n = 0;
    hipdnnStatus_t st = check(api, api->code_size(prog, &n), api->names[RT_RTC_CODE_SIZE]);
    if (st == HIPDNN_STATUS_SUCCESS && n == 0)
        st = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "%s: no %s for %s (is %s a virtual architecture?)",
                       api->compiler, api->code_name, name, arch);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    char *buf = base_malloc(n);
    if (buf == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "rt_compile: out of host memory (%zu B)", n);
    st = check(api, api->code(prog, buf), api->names[RT_RTC_CODE]);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(buf);
        return st;
    }
    *code = buf, *code_len = n;
    return HIPDNN_STATUS_SUCCESS;
}

/* Serializes the compilers marked one_at_a_time (hipRTC): one lock for all of them. */
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;

static hipdnnStatus_t compile_program(const rt_rtc *api, const char *source, const char *program_name,
                                      const char *arch, const char *const *options, int n_options,
                                      void **code, size_t *code_len, char **log);

hipdnnStatus_t rt_rtc_compile(const rt_rtc *api, const char *source, const char *program_name,
                              const char *arch, const char *const *options, int n_options, void **code,
                              size_t *code_len, char **log)
{
    if (api->one_at_a_time)
        pthread_mutex_lock(&one_at_a_time);
    hipdnnStatus_t st = compile_program(api, source, program_name, arch, options, n_options, code,
                                        code_len, log);
    if (api->one_at_a_time)
        pthread_mutex_unlock(&one_at_a_time);
    return st;
}

static hipdnnStatus_t compile_program(const rt_rtc *api, const char *source, const char *program_name,
                                      const char *arch, const char *const *options, int n_options,
                                      void **code, size_t *code_len, char **log)
{
    const char *name = program_name != NULL ? program_name : api->default_name;
    char arch_opt[64];
    const char **argv = NULL;
    void *prog = NULL;
    hipdnnStatus_t st = make_argv(api, arch, options, n_options, arch_opt, sizeof arch_opt, &argv);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check(api, api->create(&prog, source, name, 0, NULL, NULL), api->names[RT_RTC_CREATE]);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = run_compile(api, prog, name, arch, argv, n_options + N_FIXED_OPTIONS, log);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = take_code(api, prog, name, arch, code, code_len);
    if (prog != NULL && api->destroy(&prog) != RTC_SUCCESS)
        base_log(HIPDNN_SEV_WARN, "runtime: %s failed for %s", api->names[RT_RTC_DESTROY], name);
    base_free(argv);
    return st;
}
