/* kt_cli.h — running the hipdnn-cache tool (tools/) as a subprocess, for the CLI tests
 * (test_kc_cli.c, test_kc_warm.c). The binary's path comes from the build (HIPDNN_CACHE_CLI,
 * defined for the test programs that compile kt_cli.c). The child inherits the environment;
 * its stdout and stderr go to files in a work directory and come back as strings.
 */
#ifndef HIPDNN_TESTS_KT_CLI_H
#define HIPDNN_TESTS_KT_CLI_H

#include <jansson.h>
#include <sys/types.h>

typedef struct kt_cli_run {
    int status;          /* exit status; -1 when it did not exit normally */
    char *out, *err;     /* stdout, stderr (malloc'd, NUL-terminated) */
} kt_cli_run;

/* Starts hipdnn-cache with args (NULL-terminated), its output in work/{out,err}.<slot>. */
pid_t kt_cli_start(const char *work, int slot, const char *const *args);
/* Waits for a started run and reads its output. */
kt_cli_run kt_cli_wait(const char *work, int slot, pid_t pid);
/* Runs hipdnn-cache with args (NULL-terminated) to completion (slot 0). */
kt_cli_run kt_cli_v(const char *work, const char *const *args);
/* The same with the arguments listed (at most 31, NULL-terminated). */
kt_cli_run kt_cli(const char *work, const char *arg, ...);
void kt_cli_free(kt_cli_run *r);

/* A failure: exit status `status`, nothing on stdout, stderr whose first line holds
 * `needle`; for status 2 (usage) that line and then the usage line ("usage: hipdnn-cache ..."). */
void kt_cli_expect_fail(const kt_cli_run *r, int status, const char *needle, const char *what);
/* stdout parsed as JSON (asserts that it parses). */
json_t *kt_cli_json(const kt_cli_run *r, const char *what);

#endif
