/* test_cg_dump.c — HIPDNN_JIT_DUMP_DIR (cg_dump): a missing directory is created, parents and
 * all; one that cannot be made (a file in the way) is said once in the log, and nothing fails.
 * Each test is its own process (Criterion); the environment is set before the first dump.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/cg.h"
#include "../../common/tu.h"

static char work[] = "/tmp/hipdnn_cg_dump_XXXXXX";

static void setup(void) { cr_assert_not_null(mkdtemp(work)); }

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(cg_dump, .init = setup, .fini = teardown);

Test(cg_dump, a_missing_directory_is_created)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/a/b/c", work);
    setenv("HIPDNN_JIT_DUMP_DIR", dir, 1);
    cg_dump("k0", "__global__ void k0() {}\n");
    snprintf(path, sizeof path, "%s/k0.cu", dir);
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    cr_assert_not_null(text, "%s was not written", path);
    cr_expect_str_eq(text, "__global__ void k0() {}\n");
    free(text);
}

Test(cg_dump, a_file_in_the_way_is_said_once)
{
    char file[256], dir[300], logp[300];
    snprintf(file, sizeof file, "%s/plain", work);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/sub", file);
    snprintf(logp, sizeof logp, "%s/log", work);
    setenv("HIPDNN_JIT_DUMP_DIR", dir, 1);
    setenv("HIPDNN_LOG_FILE", logp, 1);
    setenv("HIPDNN_LOG_LEVEL", "warn", 1);
    for (int i = 0; i < 3; i++)
        cg_dump("k1", "x");
    size_t len = 0;
    char *log = tu_read_file(logp, &len);
    cr_assert_not_null(log);
    int n = 0;
    for (const char *p = log; (p = strstr(p, "HIPDNN_JIT_DUMP_DIR=")) != NULL; p++)
        n++;
    cr_expect_eq(n, 1, "%s", log);
    cr_expect(strstr(log, "cannot create it") != NULL, "%s", log);
    free(log);
}
