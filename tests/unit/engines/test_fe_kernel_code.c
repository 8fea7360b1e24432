/* test_fe_kernel_code.c — emitted kernels' code objects through the kernel cache: the first
 * compile stores, the next lookup (same process, or a new one) loads the same bytes without
 * compiling, and every key field (arch, source, entry, options) misses when changed;
 * HIPDNN_CACHE_DISABLE=1 always compiles. Real NVRTC (compile only, no GPU) and real LMDB in a
 * fresh directory per test; skips without NVRTC.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/tu.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"

static char dir[64];

static void setup(void)
{
    rt_compiler_info info;
    if (rt_compiler_for("sm_90", &info) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine");
    snprintf(dir, sizeof dir, "/tmp/hipdnn-kcode-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    setenv("HIPDNN_CACHE_DIR", dir, 1); /* before kc_default()'s first use in this process */
    unsetenv("HIPDNN_CACHE_DISABLE");
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (dir[0] != '\0' && system(cmd) != 0)
        cr_log_warn("could not remove %s", dir);
}

TestSuite(kernel_code, .init = setup, .fini = teardown);

/* A fresh kernel each run (a random constant), so no earlier run's cache can serve it. */
static void kernel_source(char *buf, size_t n, unsigned salt)
{
    snprintf(buf, n, "extern \"C\" __global__ void probe(float *p) { p[threadIdx.x] = %u.0f; }\n", salt);
}

static bool code_of(const char *src, const char *arch, void **code, size_t *len)
{
    bool hit = true;
    kc_key key;
    uint64_t compiles = fe_compile_count();
    TU_OK(fe_kernel_code(kc_default(), src, "probe", "probe", arch, code, len, &key, &hit, NULL));
    cr_expect_eq(fe_compile_count() - compiles, hit ? 0u : 1u, "a hit compiles nothing, a miss once");
    cr_assert_gt(*len, 0);
    return hit;
}

Test(kernel_code, second_lookup_hits_with_the_same_bytes)
{
    char src[160];
    kernel_source(src, sizeof src, (unsigned)tu_seed("kernel_code") & 0xffffff);
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    cr_expect_not(code_of(src, "sm_90", &a, &na), "first lookup compiles");
    cr_expect(code_of(src, "sm_90", &b, &nb), "second lookup hits");
    cr_expect(na == nb && memcmp(a, b, na) == 0, "the cached code object is the compiled one");
    free(a), free(b);
    pid_t pid = fork(); /* a new process: served by LMDB, not by this process's memory */
    if (pid == 0) {
        void *c = NULL;
        size_t nc = 0;
        bool hit = false;
        kc_key key;
        hipdnnStatus_t st = fe_kernel_code(kc_default(), src, "probe", "probe", "sm_90", &c, &nc, &key, &hit, NULL);
        _exit(st == HIPDNN_STATUS_SUCCESS && hit && nc == na ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a new process hits the stored kernel");
}

Test(kernel_code, every_key_field_misses_when_changed)
{
    char src[160], other[160];
    unsigned salt = (unsigned)tu_seed("kernel_code_fields") & 0xffffff;
    kernel_source(src, sizeof src, salt);
    kernel_source(other, sizeof other, salt + 1);
    void *c = NULL;
    size_t n = 0;
    cr_expect_not(code_of(src, "sm_90", &c, &n));
    free(c);
    cr_expect_not(code_of(src, "sm_80", &c, &n), "another arch misses");
    free(c);
    cr_expect_not(code_of(other, "sm_90", &c, &n), "another source misses");
    free(c);
    cr_expect(code_of(src, "sm_90", &c, &n), "the first kernel still hits");
    free(c);
    kc_key k0, k1;
    const char *o1[] = {"-lineinfo"};
    TU_OK(fe_kernel_key(src, "probe", "sm_90", NULL, 0, &k0));
    TU_OK(fe_kernel_key(src, "probe", "sm_90", NULL, 0, &k1));
    cr_expect(memcmp(&k0, &k1, sizeof k0) == 0, "the key is a function of its inputs");
    TU_OK(fe_kernel_key(src, "probe2", "sm_90", NULL, 0, &k1));
    cr_expect(memcmp(&k0, &k1, sizeof k0) != 0, "the entry name is in the key");
    TU_OK(fe_kernel_key(src, "probe", "sm_90", o1, 1, &k1));
    cr_expect(memcmp(&k0, &k1, sizeof k0) != 0, "compile options are in the key");
    TU_OK(fe_kernel_key(src, "probe", "sm_90a", NULL, 0, &k1));
    cr_expect(memcmp(&k0, &k1, sizeof k0) != 0, "the arch is in the key");
    TU_EQ(fe_kernel_key(src, "probe", "xyz_1", NULL, 0, &k1), HIPDNN_STATUS_NOT_SUPPORTED);
}

Test(kernel_code, disabled_cache_always_compiles)
{
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    char src[160];
    kernel_source(src, sizeof src, (unsigned)tu_seed("kernel_code_off") & 0xffffff);
    void *c = NULL;
    size_t n = 0;
    cr_expect_not(code_of(src, "sm_90", &c, &n));
    free(c);
    cr_expect_not(code_of(src, "sm_90", &c, &n), "no cache: compiled again");
    free(c);
}
