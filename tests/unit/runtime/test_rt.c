/* test_rt.c — unit tests of runtime/ (rt.h), through its functions only.
 *
 * Owns these groups:
 *   rt_compile  compile-only with NVRTC ("sm_*"): run wherever NVRTC loads, with or without a
 *               GPU; skipped (not passed) where it does not. Code objects are checked for the ELF
 *               magic and the CUDA machine type, compile errors for the compiler's diagnostic.
 *   rt_compile_amd  the same with hipRTC ("gfx*"), skipped without it; a target the installed
 *               hipRTC does not know answers NOT_SUPPORTED naming it.
 *   rt_platform HIPDNN_PLATFORM: the named platform or a clear error; compiling never depends on
 *               it. Each test sets it before the first runtime call (Criterion runs each test in
 *               a fresh process).
 *   rt_gpu      need a usable GPU; skipped when rt_init() fails. y = 2x + 1 on fresh random x
 *               with y poisoned (NaN) first, compared exactly (2x is exact, so fused or not the
 *               device must give the host's float result); copies of random bytes; events; bad
 *               launches.
 *   rt_nogpu    the contract without a GPU; skipped when there is one.
 * Random data: a fresh seed per test, printed in every failure; HIPDNN_TEST_SEED replays it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/rt.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static uint64_t seed, state;

static void seed_rng(void)
{
    const char *s = getenv("HIPDNN_TEST_SEED");
    seed = s != NULL ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)clock();
    state = seed;
}

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const char *last_error(void)
{
    static char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    base_last_error(msg, sizeof msg, false);
    return msg;
}

#define OK(call)                                                                                 \
    do {                                                                                         \
        hipdnnStatus_t st_ = (call);                                                             \
        cr_assert_eq(st_, HIPDNN_STATUS_SUCCESS, "%s: %s: %s (seed %llu)", #call,               \
                     base_status_name(st_), last_error(), (unsigned long long)seed);             \
    } while (0)

/* The compiler for arch's targets, else the test is skipped. */
static void need_compiler_for(const char *arch)
{
    rt_compiler_info ci;
    if (rt_compiler_for(arch, &ci) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no run-time compiler for %s: %s", arch, last_error());
}

static void need_compiler(void) { need_compiler_for("sm_90"); }

static void need_gpu(rt_device_info *dev)
{
    if (rt_init() != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no usable GPU: %s", last_error());
    OK(rt_device(dev));
}

static const char axpb_src[] = "extern \"C\" __global__ void k(float *y, const float *x, int n)\n"
                               "{\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n)\n"
                               "        y[i] = 2.0f * x[i] + 1.0f;\n"
                               "}\n";

/* An ELF object for the arch's GPUs: magic, 64-bit class, e_machine EM_CUDA (190) for "sm_*",
 * EM_AMDGPU (224) for "gfx*". */
static void check_code_object(const void *code, size_t len, const char *arch)
{
    const unsigned char *b = code;
    int machine = strncmp(arch, "gfx", 3) == 0 ? 224 : 190;
    cr_assert(code != NULL && len > 64, "code object of %zu bytes", len);
    cr_assert(b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F', "no ELF magic");
    cr_assert_eq(b[4], 2, "ELF class %d, expected 64-bit", b[4]);
    cr_assert_eq(b[18] | b[19] << 8, machine, "e_machine %d, expected %d for %s",
                 b[18] | b[19] << 8, machine, arch);
}

static void compile_ok(const char *src, const char *arch, const char *const *opts, int n,
                       void **code, size_t *len)
{
    char *log = (char *)1;
    OK(rt_compile(src, "test.cu", arch, opts, n, code, len, &log));
    cr_assert_null(log, "log must be NULL on success");
    check_code_object(*code, *len, arch);
}

/* ---- compile-only ---------------------------------------------------------------------------- */

Test(rt_compile, compiler_info)
{
    need_compiler();
    rt_compiler_info ci;
    OK(rt_compiler_for("sm_80", &ci));
    cr_assert_str_eq(ci.id, "nvrtc");
    cr_assert_geq(ci.major, 12, "NVRTC %d.%d", ci.major, ci.minor);
    cr_assert(ci.minor >= 0 && ci.minor < 100);
}

/* rt_compiler_loaded answers without loading: false in a fresh process, the same info as
 * rt_compiler_for once that has loaded the compiler. (Criterion runs each test in its own
 * process, so nothing is loaded at its start.) */
Test(rt_compile, compiler_loaded_never_loads)
{
    rt_compiler_info ci, li;
    cr_expect_not(rt_compiler_loaded("sm_90", &li), "nothing loaded yet");
    cr_expect_not(rt_compiler_loaded("sm_90", &li), "asking did not load it");
    cr_expect_not(rt_compiler_loaded("xyz_1", &li));
    need_compiler();
    OK(rt_compiler_for("sm_90", &ci));
    cr_assert(rt_compiler_loaded("sm_90", &li));
    cr_expect(strcmp(ci.id, li.id) == 0 && ci.major == li.major && ci.minor == li.minor);
}

static void compile_for(const char *arch)
{
    need_compiler();
    void *code = NULL;
    size_t len = 0;
    compile_ok(axpb_src, arch, NULL, 0, &code, &len);
    free(code);
}

Test(rt_compile, sm_90) { compile_for("sm_90"); }
Test(rt_compile, sm_80) { compile_for("sm_80"); }
Test(rt_compile, sm_90a) { compile_for("sm_90a"); }

/* Different targets give different machine code. */
Test(rt_compile, targets_differ)
{
    need_compiler();
    void *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    compile_ok(axpb_src, "sm_80", NULL, 0, &a, &la);
    compile_ok(axpb_src, "sm_90", NULL, 0, &b, &lb);
    cr_assert(la != lb || memcmp(a, b, la) != 0, "sm_80 and sm_90 CUBINs are identical");
    free(a);
    free(b);
}

/* The caller's options reach the compiler: VALUE is only defined through -D. */
Test(rt_compile, options_passed)
{
    need_compiler();
    static const char src[] = "extern \"C\" __global__ void k(int *y) { *y = VALUE; }\n";
    const char *opts[] = {"-DVALUE=3", "-lineinfo"};
    void *code = NULL;
    size_t len = 0;
    compile_ok(src, "sm_90", opts, 2, &code, &len);
    free(code);
    char *log = NULL;
    cr_assert_eq(rt_compile(src, "test.cu", "sm_90", NULL, 0, &code, &len, &log),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    cr_assert_not_null(strstr(last_error(), "VALUE"), "message: %s", last_error());
    free(log);
}

Test(rt_compile, syntax_error)
{
    need_compiler();
    static const char src[] = "extern \"C\" __global__ void k(float *y)\n"
                              "{\n"
                              "    y[0] = undeclared_thing_xyz;\n"
                              "}\n";
    void *code = (void *)1;
    size_t len = 7;
    char *log = NULL;
    cr_assert_eq(rt_compile(src, "bad.cu", "sm_90", NULL, 0, &code, &len, &log),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    cr_assert(code == NULL && len == 0);
    const char *msg = last_error();
    cr_assert_not_null(strstr(msg, "undeclared_thing_xyz"), "message: %s", msg);
    cr_assert_not_null(strstr(msg, "bad.cu"), "message: %s", msg);
    cr_assert_not_null(log);
    cr_assert_not_null(strstr(log, "undeclared_thing_xyz"), "log: %s", log);
    cr_assert_not_null(strstr(log, "error"), "log: %s", log);
    free(log);
    /* Without a log pointer, the message alone. */
    cr_assert_eq(rt_compile(src, "bad.cu", "sm_90", NULL, 0, &code, &len, NULL),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    cr_assert_not_null(strstr(last_error(), "undeclared_thing_xyz"));
}

/* A log longer than the last-error slot: the message is cut and says so, *log is whole. */
Test(rt_compile, long_log_truncated)
{
    need_compiler();
    size_t cap = 64 * 1024, used = 0;
    char *src = malloc(cap);
    used += (size_t)snprintf(src + used, cap - used,
                             "extern \"C\" __global__ void k(float *y)\n{\n");
    for (int i = 0; i < 200; i++)
        used += (size_t)snprintf(src + used, cap - used, "    y[%d] = missing_%d;\n", i, i);
    snprintf(src + used, cap - used, "}\n");
    void *code = NULL;
    size_t len = 0;
    char *log = NULL;
    cr_assert_eq(rt_compile(src, "long.cu", "sm_90", NULL, 0, &code, &len, &log),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    const char *msg = last_error();
    cr_assert_lt(strlen(msg), HIPDNN_ERROR_STRING_MAX_LENGTH);
    cr_assert_not_null(strstr(msg, "missing_0"), "message: %s", msg);
    cr_assert_not_null(strstr(msg, "truncated"), "message: %s", msg);
    cr_assert_not_null(log);
    cr_assert_gt(strlen(log), HIPDNN_ERROR_STRING_MAX_LENGTH);
    cr_assert_not_null(strstr(log, "missing_90")); /* NVRTC stops after 100 errors */
    free(log);
    free(src);
}

Test(rt_compile, bad_option)
{
    need_compiler();
    const char *opts[] = {"--no-such-option-xyz"};
    void *code = NULL;
    size_t len = 0;
    cr_assert_eq(rt_compile(axpb_src, NULL, "sm_90", opts, 1, &code, &len, NULL),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    cr_assert_null(code);
    cr_assert_neq(last_error()[0], '\0');
}

Test(rt_compile, bad_arguments)
{
    need_compiler();
    void *code = NULL;
    size_t len = 0;
    cr_assert_eq(rt_compile(NULL, NULL, "sm_90", NULL, 0, &code, &len, NULL),
                 HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_assert_eq(rt_compile(axpb_src, NULL, NULL, NULL, 0, &code, &len, NULL),
                 HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_assert_eq(rt_compile(axpb_src, NULL, "sm_90", NULL, 0, NULL, &len, NULL),
                 HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_assert_eq(rt_compile(axpb_src, NULL, "sm_90", NULL, 2, &code, &len, NULL),
                 HIPDNN_STATUS_BAD_PARAM);
    const char *opts[] = {"-lineinfo", NULL};
    cr_assert_eq(rt_compile(axpb_src, NULL, "sm_90", opts, 2, &code, &len, NULL),
                 HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_assert_eq(rt_compile(axpb_src, NULL, "xyz_1", NULL, 0, &code, &len, NULL),
                 HIPDNN_STATUS_NOT_SUPPORTED);
    cr_assert_not_null(strstr(last_error(), "xyz_1"), "message: %s", last_error());
    rt_compiler_info ci;
    cr_assert_eq(rt_compiler_for("xyz_1", &ci), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_assert_eq(rt_compiler_for(NULL, &ci), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_assert_eq(rt_compile(axpb_src, NULL, "sm_999", NULL, 0, &code, &len, NULL),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    cr_assert_null(code);
}

/* Fails the Nth host allocation of a compile for arch, for every N until one succeeds: each
 * must end in ALLOC_FAILED with no code and nothing leaked (the sanitizer build checks leaks). */
static void compile_under_allocation_faults(const char *arch)
{
    hipdnnStatus_t st = HIPDNN_STATUS_ALLOC_FAILED;
    for (long n = 1; st == HIPDNN_STATUS_ALLOC_FAILED && n < 100; n++) {
        void *code = NULL;
        size_t len = 0;
        char *log = NULL;
        base_alloc_fail_at(n, false);
        st = rt_compile(axpb_src, NULL, arch, NULL, 0, &code, &len, &log);
        base_alloc_fail_at(0, false);
        cr_assert(st == HIPDNN_STATUS_SUCCESS || st == HIPDNN_STATUS_ALLOC_FAILED,
                  "%s fault %ld: %s: %s", arch, n, base_status_name(st), last_error());
        cr_assert(st == HIPDNN_STATUS_SUCCESS || code == NULL);
        free(code);
        free(log);
    }
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS);
}

Test(rt_compile, allocation_faults)
{
    need_compiler();
    compile_under_allocation_faults("sm_90");
}

/* ---- compile-only, hipRTC ----------------------------------------------------------------- */

static void need_hiprtc(void) { need_compiler_for("gfx90a"); }

/* Compiles axpb for arch, or skips when the installed hipRTC does not know arch (after checking
 * that the refusal names it). */
static void compile_amd(const char *arch, void **code, size_t *len)
{
    char *log = NULL;
    hipdnnStatus_t st = rt_compile(axpb_src, "test.hip", arch, NULL, 0, code, len, &log);
    if (st == HIPDNN_STATUS_NOT_SUPPORTED) {
        cr_assert_not_null(strstr(last_error(), arch), "message: %s", last_error());
        cr_assert_null(log);
        cr_skip_test("hipRTC does not know %s: %s", arch, last_error());
    }
    OK(st);
    cr_assert_null(log);
    check_code_object(*code, *len, arch);
}

Test(rt_compile_amd, compiler_info)
{
    need_hiprtc();
    rt_compiler_info ci;
    OK(rt_compiler_for("gfx942", &ci));
    cr_assert_str_eq(ci.id, "hiprtc");
    cr_assert_geq(ci.major, 5, "HIP %d.%d", ci.major, ci.minor); /* HIP's version, not 9.0 */
    cr_assert_lt(ci.major, 9, "HIP %d.%d", ci.major, ci.minor);
    cr_assert(ci.minor >= 0 && ci.minor < 100);
}

static void compile_amd_for(const char *arch)
{
    need_hiprtc();
    void *code = NULL;
    size_t len = 0;
    compile_amd(arch, &code, &len);
    free(code);
}

Test(rt_compile_amd, gfx90a) { compile_amd_for("gfx90a"); }
Test(rt_compile_amd, gfx942) { compile_amd_for("gfx942"); }
/* A target with its feature suffixes, as gcnArchName spells it. */
Test(rt_compile_amd, gfx90a_with_features) { compile_amd_for("gfx90a:xnack-"); }

Test(rt_compile_amd, targets_differ)
{
    need_hiprtc();
    void *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    compile_amd("gfx908", &a, &la);
    compile_amd("gfx90a", &b, &lb);
    cr_assert(la != lb || memcmp(a, b, la) != 0, "gfx908 and gfx90a code objects are identical");
    free(a);
    free(b);
}

/* A target hipRTC cannot know: refused with its name, never a crash. */
Test(rt_compile_amd, unknown_target)
{
    need_hiprtc();
    void *code = (void *)1;
    size_t len = 7;
    cr_assert_neq(rt_compile(axpb_src, "test.hip", "gfx9999", NULL, 0, &code, &len, NULL),
                  HIPDNN_STATUS_SUCCESS);
    cr_assert(code == NULL && len == 0);
    cr_assert_not_null(strstr(last_error(), "gfx9999"), "message: %s", last_error());
}

Test(rt_compile_amd, options_passed)
{
    need_hiprtc();
    static const char src[] = "extern \"C\" __global__ void k(int *y) { *y = VALUE; }\n";
    const char *opts[] = {"-DVALUE=3"};
    void *code = NULL;
    size_t len = 0;
    char *log = NULL;
    OK(rt_compile(src, "test.hip", "gfx90a", opts, 1, &code, &len, &log));
    check_code_object(code, len, "gfx90a");
    free(code);
    cr_assert_eq(rt_compile(src, "test.hip", "gfx90a", NULL, 0, &code, &len, &log),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    cr_assert_not_null(strstr(last_error(), "VALUE"), "message: %s", last_error());
    cr_assert_not_null(log);
    free(log);
}

Test(rt_compile_amd, syntax_error)
{
    need_hiprtc();
    static const char src[] = "extern \"C\" __global__ void k(float *y)\n"
                              "{\n"
                              "    y[0] = undeclared_thing_xyz;\n"
                              "}\n";
    void *code = (void *)1;
    size_t len = 7;
    char *log = NULL;
    cr_assert_eq(rt_compile(src, "bad.hip", "gfx90a", NULL, 0, &code, &len, &log),
                 HIPDNN_STATUS_INTERNAL_ERROR);
    cr_assert(code == NULL && len == 0);
    const char *msg = last_error();
    cr_assert_not_null(strstr(msg, "hiprtc: compiling bad.hip for gfx90a failed"), "message: %s", msg);
    cr_assert_not_null(strstr(msg, "undeclared_thing_xyz"), "message: %s", msg);
    cr_assert_not_null(log);
    cr_assert_not_null(strstr(log, "undeclared_thing_xyz"), "log: %s", log);
    cr_assert_not_null(strstr(log, "error"), "log: %s", log);
    free(log);
}

Test(rt_compile_amd, allocation_faults)
{
    need_hiprtc();
    compile_under_allocation_faults("gfx90a");
}

/* ---- HIPDNN_PLATFORM ----------------------------------------------------------------------- */

/* Without an AMD GPU: NOT_SUPPORTED, naming the library tried (none loads) or the HIP call that
 * failed (the library loads, no device). */
Test(rt_platform, amd_without_a_gpu)
{
    setenv("HIPDNN_PLATFORM", "amd", 1);
    hipdnnStatus_t st = rt_init();
    if (st == HIPDNN_STATUS_SUCCESS)
        cr_skip_test("an AMD GPU is present");
    cr_assert_eq(st, HIPDNN_STATUS_NOT_SUPPORTED, "%s: %s", base_status_name(st), last_error());
    const char *msg = last_error();
    bool absent = strcmp(msg, "no GPU driver found (tried libamdhip64.so, libamdhip64.so.7, "
                              "libamdhip64.so.6, libamdhip64.so.5; HIPDNN_PLATFORM=amd)") == 0;
    bool no_device = strstr(msg, "libamdhip64.so") != NULL && strstr(msg, "hip") == msg;
    cr_assert(absent || no_device, "message: %s", msg);
    cr_assert_null(strstr(msg, "libcuda"), "message: %s", msg);
    cr_assert_not(rt_have_gpu());
    void *p = (void *)1;
    cr_assert_eq(rt_malloc(&p, 64), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_assert_null(p);
    rt_device_info dev;
    cr_assert_eq(rt_device(&dev), HIPDNN_STATUS_NOT_SUPPORTED);
    rt_compiler_info ci;
    st = rt_compiler(&ci); /* the platform's compiler: hipRTC */
    cr_assert(st == HIPDNN_STATUS_NOT_SUPPORTED || strcmp(ci.id, "hiprtc") == 0, "%s",
              st == HIPDNN_STATUS_SUCCESS ? ci.id : last_error());
    cr_assert_not(rt_is_device_pointer(&dev));
}

/* A name that is no platform: BAD_PARAM naming it; compiling does not depend on the platform. */
static int warnings_naming_vulkan;
static void count_warning(hipdnnUserLogCallbackHandle_t user, hipdnnSeverity_t sev, const char *msg)
{
    (void)user;
    warnings_naming_vulkan += sev == HIPDNN_SEV_WARN && strstr(msg, "HIPDNN_PLATFORM=\"vulkan\"") != NULL;
}

/* An unknown platform name is said once at warn level (it was accepted silently: compiling for a
 * named target still works, and only device calls failed). */
Test(rt_platform, unknown_name)
{
    setenv("HIPDNN_PLATFORM", "vulkan", 1);
    base_log_set_level(HIPDNN_SEV_WARN);
    cr_assert_eq(base_log_add_callback(count_warning, HIPDNN_SEV_WARN, &warnings_naming_vulkan),
                 HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(rt_init(), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_eq(warnings_naming_vulkan, 1, "one warning names the bad value");
    cr_assert_not_null(strstr(last_error(), "HIPDNN_PLATFORM=\"vulkan\""), "%s", last_error());
    cr_assert_eq(rt_init(), HIPDNN_STATUS_BAD_PARAM); /* the same answer again */
    rt_compiler_info ci;
    cr_assert_eq(rt_compiler(&ci), HIPDNN_STATUS_BAD_PARAM);
    if (rt_compiler_for("sm_90", &ci) == HIPDNN_STATUS_SUCCESS)
        compile_for("sm_90");
}

/* The named platform only: its library alone is tried and named. */
Test(rt_platform, nvidia_named)
{
    setenv("HIPDNN_PLATFORM", "nvidia", 1);
    rt_device_info d;
    if (rt_init() == HIPDNN_STATUS_SUCCESS) {
        OK(rt_device(&d));
        cr_assert_str_eq(d.platform, "nvidia");
        return;
    }
    cr_assert_null(strstr(last_error(), "libamdhip64"), "message: %s", last_error());
    if (strstr(last_error(), "no GPU driver found"))
        cr_assert_str_eq(last_error(), "no GPU driver found (tried libcuda.so.1; HIPDNN_PLATFORM=nvidia)");
}

/* ---- without a GPU --------------------------------------------------------------------------- */

Test(rt_nogpu, device_calls_not_supported)
{
    hipdnnStatus_t st = rt_init();
    if (st == HIPDNN_STATUS_SUCCESS)
        cr_skip_test("a GPU is present");
    cr_assert_eq(st, HIPDNN_STATUS_NOT_SUPPORTED);
    cr_assert_neq(last_error()[0], '\0');
    cr_assert_not(rt_have_gpu());
    cr_assert_eq(rt_init(), HIPDNN_STATUS_NOT_SUPPORTED); /* the same answer again */
    base_last_error(NULL, 1, true);
    void *p = (void *)1;
    cr_assert_eq(rt_malloc(&p, 64), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_assert_null(p);
    cr_assert_neq(last_error()[0], '\0', "every failure records a message");
    rt_device_info dev;
    cr_assert_eq(rt_device(&dev), HIPDNN_STATUS_NOT_SUPPORTED);
    rt_module *m = NULL;
    cr_assert_eq(rt_module_load("x", 1, &m), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_assert_null(m);
    cr_assert_eq(rt_stream_sync(NULL), HIPDNN_STATUS_NOT_SUPPORTED);
    rt_event e = NULL;
    cr_assert_eq(rt_event_create(&e), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_assert_not(rt_is_device_pointer(&dev));
    rt_free(NULL);
    rt_module_unload(NULL);
    rt_event_destroy(NULL);
}

/* The message when the platform's driver library is missing. HIPDNN_PLATFORM=nvidia makes it
 * reachable on the machines CI runs on (no libcuda.so.1; an AMD runtime installed for hipRTC
 * would otherwise answer "installed but unusable"). */
Test(rt_nogpu, no_driver_message)
{
    setenv("HIPDNN_PLATFORM", "nvidia", 1);
    if (rt_init() == HIPDNN_STATUS_SUCCESS)
        cr_skip_test("a GPU is present");
    if (!strstr(last_error(), "no GPU driver found"))
        cr_skip_test("NVIDIA's driver library is installed: %s", last_error());
    cr_assert_str_eq(last_error(), "no GPU driver found (tried libcuda.so.1; HIPDNN_PLATFORM=nvidia)");
}

/* ---- with a GPU ------------------------------------------------------------------------------ */

Test(rt_gpu, device_info)
{
    rt_device_info d;
    need_gpu(&d);
    cr_assert_not_null(d.platform);
    if (strcmp(d.platform, "amd") == 0) { /* "gfx942", no ":sramecc+:xnack-" */
        cr_assert_eq(strncmp(d.arch, "gfx", 3), 0, "arch %s", d.arch);
        cr_assert_null(strchr(d.arch, ':'), "arch %s", d.arch);
        cr_assert(d.warp_size == 64 || d.warp_size == 32, "warp %d", d.warp_size);
    } else {
        cr_assert_str_eq(d.platform, "nvidia");
        char want[32];
        snprintf(want, sizeof want, "sm_%d%d", d.cc_major, d.cc_minor);
        cr_assert_str_eq(d.arch, want);
        cr_assert_eq(d.warp_size, 32);
    }
    cr_assert_gt(d.sm_count, 0);
    cr_assert_geq(d.smem_per_block, 16 * 1024);
    cr_assert_geq(d.smem_per_block_optin, d.smem_per_block);
    cr_assert_gt(d.l2_bytes, 0);
    cr_assert_gt(d.total_mem, (size_t)1 << 30);
    cr_assert_neq(d.name[0], '\0');
    cr_assert(rt_have_gpu());
    OK(rt_init()); /* idempotent */
}

Test(rt_gpu, copies_round_trip)
{
    rt_device_info d;
    need_gpu(&d);
    seed_rng();
    size_t n = ((size_t)1 << 20) + (size_t)(rnd() % 4096);
    unsigned char *h = malloc(n), *back = malloc(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned char)rnd();
    void *p = NULL;
    OK(rt_malloc(&p, n));
    cr_assert_not_null(p);
    OK(rt_memcpy_h2d(p, h, n));
    memset(back, 0xff, n);
    OK(rt_memcpy_d2h(back, p, n));
    cr_assert_eq(memcmp(h, back, n), 0, "round trip differs (seed %llu)", (unsigned long long)seed);
    /* memset a random interior range */
    size_t off = (size_t)(rnd() % 1000), len = n / 2 + (size_t)(rnd() % 1000);
    int byte = (int)(rnd() & 0xff);
    OK(rt_memset((char *)p + off, byte, len));
    memset(h + off, byte, len);
    OK(rt_memcpy_d2h(back, p, n));
    cr_assert_eq(memcmp(h, back, n), 0, "memset range differs (seed %llu)",
                 (unsigned long long)seed);
    void *z = (void *)1;
    OK(rt_malloc(&z, 0));
    cr_assert_null(z);
    rt_free(p);
    free(h);
    free(back);
}

typedef struct axpb {
    rt_module *m;
    rt_function f;
    float *x, *y; /* device */
    int n;
} axpb;

static void axpb_setup(axpb *a, const rt_device_info *d, int n)
{
    void *code = NULL;
    size_t len = 0;
    need_compiler_for(d->arch);
    compile_ok(axpb_src, d->arch, NULL, 0, &code, &len);
    OK(rt_module_load(code, len, &a->m));
    free(code);
    OK(rt_module_function(a->m, "k", &a->f));
    cr_assert_not_null(a->f);
    a->n = n;
    OK(rt_malloc((void **)&a->x, sizeof(float) * (size_t)n));
    OK(rt_malloc((void **)&a->y, sizeof(float) * (size_t)n));
}

static void axpb_launch(axpb *a)
{
    void *args[] = {&a->y, &a->x, &a->n};
    unsigned grid[3] = {(unsigned)(a->n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
    OK(rt_launch(a->f, grid, block, 0, NULL, args));
}

static void axpb_teardown(axpb *a)
{
    rt_free(a->x);
    rt_free(a->y);
    rt_module_unload(a->m);
}

Test(rt_gpu, kernel_2x_plus_1)
{
    rt_device_info d;
    need_gpu(&d);
    seed_rng();
    axpb a;
    axpb_setup(&a, &d, 1000000);
    float *x = malloc(sizeof(float) * (size_t)a.n), *y = malloc(sizeof(float) * (size_t)a.n);
    for (int i = 0; i < a.n; i++)
        x[i] = (float)((double)(rnd() >> 11) * 0x1p-53 * 200.0 - 100.0);
    OK(rt_memcpy_h2d(a.x, x, sizeof(float) * (size_t)a.n));
    OK(rt_memset(a.y, 0xff, sizeof(float) * (size_t)a.n)); /* NaN */
    axpb_launch(&a);
    OK(rt_stream_sync(NULL));
    memset(y, 0, sizeof(float) * (size_t)a.n);
    OK(rt_memcpy_d2h(y, a.y, sizeof(float) * (size_t)a.n));
    for (int i = 0; i < a.n; i++) {
        float want = 2.0f * x[i] + 1.0f;
        if (y[i] != want)
            cr_assert_fail("y[%d] = %a, want %a (x = %a, seed %llu)", i, (double)y[i],
                           (double)want, (double)x[i], (unsigned long long)seed);
    }
    axpb_teardown(&a);
    free(x);
    free(y);
}

/* A slow kernel and one launched dependent on it (rt_launch_dependent): `slow` lets its dependent
 * launch at once (griddepcontrol.launch_dependents), spins ~100 us a block, then writes
 * y = 2x + 1; `after` waits (griddepcontrol.wait) and writes z = y + 1. Without the wait, or a
 * launch that ignored the stream's order, z would read y's poison. */
static const char dependent_src[] =
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
    "#define WAIT() asm volatile(\"griddepcontrol.wait;\" ::: \"memory\")\n"
    "#define RELEASE() asm volatile(\"griddepcontrol.launch_dependents;\" ::: \"memory\")\n"
    "#else\n"
    "#define WAIT()\n"
    "#define RELEASE()\n"
    "#endif\n"
    "extern \"C\" __global__ void slow(float *y, const float *x, int n)\n"
    "{\n"
    "    RELEASE();\n"
    "    long long t0 = clock64();\n"
    "    while (clock64() - t0 < 200000) {}\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = 2.0f * x[i] + 1.0f;\n"
    "}\n"
    "extern \"C\" __global__ void after(float *z, const float *y, int n)\n"
    "{\n"
    "    WAIT();\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        z[i] = y[i] + 1.0f;\n"
    "}\n";

Test(rt_gpu, dependent_launch_sees_the_previous_kernel)
{
    rt_device_info d;
    need_gpu(&d);
    need_compiler_for(d.arch);
    seed_rng();
    void *code = NULL;
    size_t len = 0;
    compile_ok(dependent_src, d.arch, NULL, 0, &code, &len);
    rt_module *m;
    rt_function slow, after;
    OK(rt_module_load(code, len, &m));
    free(code);
    OK(rt_module_function(m, "slow", &slow));
    OK(rt_module_function(m, "after", &after));
    int n = 1 << 18;
    size_t bytes = sizeof(float) * (size_t)n;
    float *x, *y, *z, *hx = malloc(bytes), *hz = malloc(bytes);
    OK(rt_malloc((void **)&x, bytes));
    OK(rt_malloc((void **)&y, bytes));
    OK(rt_malloc((void **)&z, bytes));
    for (int i = 0; i < n; i++)
        hx[i] = (float)((double)(rnd() >> 11) * 0x1p-53 * 200.0 - 100.0);
    OK(rt_memcpy_h2d(x, hx, bytes));
    OK(rt_memset(y, 0xff, bytes)); /* NaN */
    OK(rt_memset(z, 0xff, bytes));
    unsigned grid[3] = {(unsigned)n / 256, 1, 1}, block[3] = {256, 1, 1};
    void *a1[] = {&y, &x, &n}, *a2[] = {&z, &y, &n};
    OK(rt_launch(slow, grid, block, 0, NULL, a1));
    OK(rt_launch_dependent(after, grid, block, 0, NULL, a2));
    OK(rt_stream_sync(NULL));
    OK(rt_memcpy_d2h(hz, z, bytes));
    for (int i = 0; i < n; i++) {
        float want = (2.0f * hx[i] + 1.0f) + 1.0f;
        if (hz[i] != want)
            cr_assert_fail("z[%d] = %a, want %a (x = %a, seed %llu)", i, (double)hz[i], (double)want,
                           (double)hx[i], (unsigned long long)seed);
    }
    cr_assert_eq(rt_launch_dependent(NULL, grid, block, 0, NULL, a2), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    rt_free(x);
    rt_free(y);
    rt_free(z);
    rt_module_unload(m);
    free(hx);
    free(hz);
}

Test(rt_gpu, events_time_work)
{
    rt_device_info d;
    need_gpu(&d);
    axpb a;
    axpb_setup(&a, &d, 1 << 24);
    OK(rt_memset(a.x, 0, sizeof(float) * (size_t)a.n));
    rt_event start = NULL, end = NULL;
    OK(rt_event_create(&start));
    OK(rt_event_create(&end));
    OK(rt_event_record(start, NULL));
    for (int i = 0; i < 20; i++)
        axpb_launch(&a);
    OK(rt_event_record(end, NULL));
    float ms = -1.0f;
    OK(rt_event_elapsed_ms(start, end, &ms));
    cr_assert(ms > 0.0f && ms < 10000.0f, "elapsed %g ms", (double)ms);
    rt_event_destroy(start);
    rt_event_destroy(end);
    axpb_teardown(&a);
}

Test(rt_gpu, device_pointer_query)
{
    rt_device_info d;
    need_gpu(&d);
    void *p = NULL;
    OK(rt_malloc(&p, 4096));
    cr_assert(rt_is_device_pointer(p));
    cr_assert(rt_is_device_pointer((char *)p + 100));
    int on_stack = 0;
    void *on_heap = malloc(64);
    cr_assert_not(rt_is_device_pointer(&on_stack));
    cr_assert_not(rt_is_device_pointer(on_heap));
    cr_assert_not(rt_is_device_pointer(NULL));
    free(on_heap);
    rt_free(p);
}

Test(rt_gpu, bad_launches)
{
    rt_device_info d;
    need_gpu(&d);
    axpb a;
    axpb_setup(&a, &d, 1024);
    void *args[] = {&a.y, &a.x, &a.n};
    const unsigned block[3] = {256, 1, 1}, too_big[3] = {4096, 1, 1};
    const unsigned zero[3] = {0, 1, 1}, tall[3] = {1, 1u << 20, 1}, one[3] = {1, 1, 1};
    base_last_error(NULL, 1, true);
    cr_assert_neq(rt_launch(a.f, zero, block, 0, NULL, args), HIPDNN_STATUS_SUCCESS);
    cr_assert_not_null(strstr(last_error(), "grid"), "message: %s", last_error());
    cr_assert_neq(rt_launch(a.f, tall, block, 0, NULL, args), HIPDNN_STATUS_SUCCESS);
    cr_assert_neq(rt_launch(a.f, one, too_big, 0, NULL, args), HIPDNN_STATUS_SUCCESS);
    cr_assert_neq(rt_launch(a.f, one, block, d.smem_per_block_optin + 1, NULL, args),
                  HIPDNN_STATUS_SUCCESS);
    /* The launch errors are not sticky: a good launch still runs. */
    OK(rt_memset(a.y, 0xff, sizeof(float) * 1024));
    OK(rt_memset(a.x, 0, sizeof(float) * 1024));
    axpb_launch(&a);
    OK(rt_stream_sync(NULL));
    float y[1024];
    OK(rt_memcpy_d2h(y, a.y, sizeof y));
    for (int i = 0; i < 1024; i++)
        cr_assert_eq(y[i], 1.0f, "y[%d] = %g", i, (double)y[i]);
    axpb_teardown(&a);
}

Test(rt_gpu, module_errors)
{
    rt_device_info d;
    need_gpu(&d);
    axpb a;
    axpb_setup(&a, &d, 16);
    rt_function f = (rt_function)1;
    cr_assert_neq(rt_module_function(a.m, "no_such_kernel", &f), HIPDNN_STATUS_SUCCESS);
    cr_assert_null(f);
    cr_assert_not_null(strstr(last_error(), "no_such_kernel"), "message: %s", last_error());
    static const char junk[64] = "this is not a code object";
    rt_module *m = (rt_module *)1;
    cr_assert_neq(rt_module_load(junk, sizeof junk, &m), HIPDNN_STATUS_SUCCESS);
    cr_assert_null(m);
    OK(rt_function_set_max_smem(a.f, d.smem_per_block_optin));
    cr_assert_eq(rt_function_set_max_smem(a.f, d.smem_per_block_optin + 1),
                 HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND);
    axpb_teardown(&a);
}

/* A thread that never called rt_init gets the device's context bound by the first call. */
static void *thread_round_trip(void *arg)
{
    const unsigned *word = arg;
    unsigned back = 0;
    void *p = NULL;
    hipdnnStatus_t st = rt_malloc(&p, sizeof back);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = rt_memcpy_h2d(p, word, sizeof *word);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = rt_memcpy_d2h(&back, p, sizeof back);
    if (st == HIPDNN_STATUS_SUCCESS && !rt_is_device_pointer(p))
        st = HIPDNN_STATUS_INTERNAL_ERROR;
    rt_free(p);
    return (void *)(uintptr_t)(st != HIPDNN_STATUS_SUCCESS ? 1000u + st : back != *word);
}

Test(rt_gpu, other_threads)
{
    rt_device_info d;
    need_gpu(&d);
    unsigned word = 0x9e3779b9u;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, thread_round_trip, &word), 0);
    for (int i = 0; i < 4; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        cr_assert_eq((uintptr_t)r, 0, "thread %d: %lu", i, (unsigned long)(uintptr_t)r);
    }
}

/* ---- tensor maps ----------------------------------------------------------------------------- */

typedef struct map_bytes {
    _Alignas(RT_TENSOR_MAP_ALIGN) unsigned char b[RT_TENSOR_MAP_BYTES];
} map_bytes;

static const uint64_t map_dims[3] = {100, 30, 2}, map_strides[2] = {208, 208 * 30};
static const uint32_t map_box[3] = {64, 16, 1};

Test(rt_tensor_map, bad_arguments_named_before_any_device_call)
{
    map_bytes m[2];
    _Alignas(16) static unsigned char data[32];
    cr_assert_eq(rt_tensor_map(NULL, data, 3, 2, map_dims, map_strides, map_box), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_assert_eq(rt_tensor_map(m, data, 3, 2, NULL, map_strides, map_box), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_assert_eq(rt_tensor_map(m[0].b + 8, data, 3, 2, map_dims, map_strides, map_box), HIPDNN_STATUS_BAD_PARAM);
    cr_assert(strstr(last_error(), "aligned") != NULL, "%s", last_error());
    cr_assert_eq(rt_tensor_map(m, data + 2, 3, 2, map_dims, map_strides, map_box), HIPDNN_STATUS_BAD_PARAM);
    cr_assert_eq(rt_tensor_map(m, data, 6, 2, map_dims, map_strides, map_box), HIPDNN_STATUS_BAD_PARAM);
    cr_assert_eq(rt_tensor_map(m, data, 3, 4, map_dims, map_strides, map_box), HIPDNN_STATUS_BAD_PARAM);
    cr_assert(strstr(last_error(), "element size 4") != NULL, "%s", last_error());
}

Test(rt_nogpu, tensor_map_not_supported)
{
    if (rt_init() == HIPDNN_STATUS_SUCCESS)
        cr_skip_test("a GPU is present");
    map_bytes m;
    _Alignas(16) static unsigned char data[32];
    cr_assert_eq(rt_tensor_map(&m, data, 3, 2, map_dims, map_strides, map_box), HIPDNN_STATUS_NOT_SUPPORTED);
}

/* A map over device memory encodes; a row stride that is not a multiple of 16 bytes is refused
 * with the driver's call and the values in the message. */
Test(rt_gpu, tensor_map_encodes)
{
    rt_device_info dev;
    need_gpu(&dev);
    if (dev.cc_major < 9)
        cr_skip_test("tensor maps need sm_90 or newer (this is %s)", dev.arch);
    void *p = NULL;
    OK(rt_malloc(&p, 208 * 30 * 2));
    map_bytes m;
    OK(rt_tensor_map(&m, p, 3, 2, map_dims, map_strides, map_box));
    const uint64_t bad[2] = {200, 200 * 30};
    cr_assert_eq(rt_tensor_map(&m, p, 3, 2, map_dims, bad, map_box), HIPDNN_STATUS_BAD_PARAM);
    cr_assert(strstr(last_error(), "cuTensorMapEncodeTiled") != NULL, "%s", last_error());
    rt_free(p);
}
