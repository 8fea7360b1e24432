/* kt_cli.c — running the hipdnn-cache tool as a subprocess (kt_cli.h). */
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kt_util.h"
#include "kt_cli.h"

#define MAX_OUTPUT (4 << 20)

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "open %s", path);
    char *buf = malloc(MAX_OUTPUT);
    cr_assert_not_null(buf);
    size_t n = fread(buf, 1, MAX_OUTPUT - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void out_paths(const char *work, int slot, char out[600], char err[600])
{
    snprintf(out, 600, "%s/out.%d", work, slot);
    snprintf(err, 600, "%s/err.%d", work, slot);
}

pid_t kt_cli_start(const char *work, int slot, const char *const *args)
{
    const char *argv[64] = {HIPDNN_CACHE_CLI};
    int n = 1;
    while (args[n - 1] != NULL && n < 63) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    char out_path[600], err_path[600];
    out_paths(work, slot, out_path, err_path);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork");
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        execv(HIPDNN_CACHE_CLI, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

kt_cli_run kt_cli_wait(const char *work, int slot, pid_t pid)
{
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    char out_path[600], err_path[600];
    out_paths(work, slot, out_path, err_path);
    kt_cli_run r = {WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, slurp(out_path), slurp(err_path)};
    return r;
}

kt_cli_run kt_cli_v(const char *work, const char *const *args)
{
    return kt_cli_wait(work, 0, kt_cli_start(work, 0, args));
}

void kt_cli_free(kt_cli_run *r)
{
    free(r->out);
    free(r->err);
}

void kt_cli_expect_fail(const kt_cli_run *r, int status, const char *needle, const char *what)
{
    cr_expect_eq(r->status, status, "%s: exit %d, wanted %d (stderr: %s)", what, r->status, status, r->err);
    cr_expect_str_empty(r->out, "%s: nothing on stdout, got: %s", what, r->out);
    size_t len = strlen(r->err);
    const char *nl = strchr(r->err, '\n');
    if (status == 2) { /* a usage error: the message, then the usage line */
        cr_expect(len > 0 && nl != NULL && strncmp(nl + 1, "usage: hipdnn-cache", 19) == 0 &&
                      strchr(nl + 1, '\n') == r->err + len - 1,
                  "%s: a message and the usage line on stderr, got: %s", what, r->err);
    } else {
        cr_expect(len > 0 && nl == r->err + len - 1, "%s: one line on stderr, got: %s", what, r->err);
    }
    char first[4096];
    snprintf(first, sizeof first, "%.*s", nl != NULL ? (int)(nl - r->err) : 0, r->err);
    cr_expect_not_null(strstr(first, needle), "%s: the first line names '%s': %s", what, needle, r->err);
}

json_t *kt_cli_json(const kt_cli_run *r, const char *what)
{
    json_error_t e;
    json_t *j = json_loads(r->out, 0, &e);
    cr_assert_not_null(j, "%s: JSON output parses (%s at line %d): %s", what, e.text, e.line, r->out);
    return j;
}

kt_cli_run kt_cli(const char *work, const char *arg, ...)
{
    const char *args[32];
    int n = 0;
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a != NULL && n < 31; a = va_arg(ap, const char *))
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    return kt_cli_v(work, args);
}
