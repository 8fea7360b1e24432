/* hipdnn_cache.c — the hipdnn-cache command line tool: inspect, maintain and warm a kernel cache.
 *
 * Owns: argument parsing, the text and JSON output of stats / verify / prune / export / import,
 * size and age parsing (64M, 2G, 30d, 12h), the cache directory (--dir, else
 * hipdnnKernelCacheDefaultDir_ext), exit statuses (0 success, 1 a failed operation with one line on
 * stderr, 2 a usage error, printed by hc_usage_error with the usage line).
 * Does not own: anything about the cache itself — stats, verify, prune, export and import are one
 * call each of the public maintenance API in include/hipdnn_jit.h (hipdnnKernelCacheGetStats_ext,
 * _Verify_ext, _Prune_ext, _Export_ext, _Import_ext); the help text, usage lines and man page
 * (hipdnn_cache_help.c), --version (hipdnn_cache_version.c), ls (hipdnn_cache_ls.c), warm
 * (hipdnn_cache_warm.c) and show (hipdnn_cache_show.c) live in their own files (hipdnn_cache.h). Like every tool, it includes only the public headers and links only
 * libhipdnn_backend.so.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hipdnn_backend.h"
#include "hipdnn_cache.h"
#include "hipdnn_jit.h"

enum { EXIT_OK = HC_EXIT_OK, EXIT_FAIL = HC_EXIT_FAIL, EXIT_USAGE = HC_EXIT_USAGE };

typedef struct cli_args {
    const char *dir;
    const char *cmd;
    const char *file;       /* export / import; show: the key */
    const char **paths;     /* warm: graph files and directories */
    int n_paths;
    const char **plugins;   /* warm: custom-op plugin libraries (--plugin) */
    int n_plugins;
    const char *arch;       /* warm */
    int sm_count, jobs;     /* warm; jobs 0: not given */
    bool all_configs, skip_unsupported, source;
    bool json, fix, help, version, man;
    bool has_max_size, has_older_than;
    uint64_t max_size;
    int64_t older_than;
} cli_args;

/* A failed operation: one line, the library's last error appended when there is one. */
static int op_error(const char *what)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    if (msg[0] != '\0')
        fprintf(stderr, "hipdnn-cache: %s: %s\n", what, msg);
    else
        fprintf(stderr, "hipdnn-cache: %s\n", what);
    return EXIT_FAIL;
}

/* ---- parsing sizes and ages ---------------------------------------------------------------- */

/* A count with an optional one-letter unit; false on anything else or overflow. */
static bool parse_scaled(const char *s, const char *units, const uint64_t *scale, uint64_t *out)
{
    if (s[0] < '0' || s[0] > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return false;
    uint64_t mul = 1;
    if (*end != '\0') {
        const char *u = end[1] == '\0' ? strchr(units, *end) : NULL;
        if (u == NULL)
            return false;
        mul = scale[u - units];
    }
    if (v > UINT64_MAX / mul)
        return false;
    *out = (uint64_t)v * mul;
    return true;
}

static bool parse_size(const char *s, uint64_t *out)
{
    static const uint64_t scale[] = {1, 1ull << 10, 1ull << 20, 1ull << 30, 1ull << 40,
                                     1ull << 10, 1ull << 20, 1ull << 30, 1ull << 40};
    return parse_scaled(s, "BKMGTkmgt", scale, out);
}

static bool parse_age(const char *s, int64_t *out)
{
    static const uint64_t scale[] = {1, 60, 3600, 86400, 7 * 86400};
    uint64_t v;
    if (!parse_scaled(s, "smhdw", scale, &v) || v > INT64_MAX)
        return false;
    *out = (int64_t)v;
    return true;
}

/* ---- the command line ---------------------------------------------------------------------- */

static bool is_cmd(const char *c, const char *name) { return c != NULL && strcmp(c, name) == 0; }

/* The value of an option (--opt VALUE or --opt=VALUE); NULL when there is none. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static bool opt_is(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* A decimal count in [lo, hi]. */
static bool parse_count(const char *s, int lo, int hi, int *out)
{
    uint64_t v;
    static const uint64_t one[] = {1};
    if (s == NULL || !parse_scaled(s, "", one, &v) || v < (uint64_t)lo || v > (uint64_t)hi)
        return false;
    *out = (int)v;
    return true;
}

/* The options only warm takes; 0 not one of them, 1 taken, else an exit status (usage). */
static int parse_warm_opt(int argc, char **argv, int *i, cli_args *a)
{
    const char *arg = argv[*i], *v;
    if (strcmp(arg, "--all-configs") == 0) {
        a->all_configs = true;
    } else if (strcmp(arg, "--skip-unsupported") == 0) {
        a->skip_unsupported = true;
    } else if (opt_is(arg, "--arch")) {
        if ((v = opt_value(argc, argv, i, "--arch")) == NULL || v[0] == '\0')
            return hc_usage_error(a->cmd, "--arch needs a target such as sm_90, sm_80 or gfx942");
        a->arch = v;
    } else if (opt_is(arg, "--plugin")) {
        if ((v = opt_value(argc, argv, i, "--plugin")) == NULL || v[0] == '\0')
            return hc_usage_error(a->cmd, "--plugin needs a custom-op plugin library");
        a->plugins[a->n_plugins++] = v;
    } else if (opt_is(arg, "--sm-count")) {
        if (!parse_count(v = opt_value(argc, argv, i, "--sm-count"), 1, 65536, &a->sm_count))
            return hc_usage_error(a->cmd, "--sm-count needs a multiprocessor count such as 132, not '%s'", v ? v : "");
    } else if (opt_is(arg, "--jobs")) {
        if (!parse_count(v = opt_value(argc, argv, i, "--jobs"), 1, 1024, &a->jobs))
            return hc_usage_error(a->cmd, "--jobs needs a count from 1 to 1024, not '%s'", v ? v : "");
    } else {
        return 0;
    }
    return 1;
}

/* Returns -1 to go on, else an exit status (help printed, or a usage error). */
static int parse_args(int argc, char **argv, cli_args *a)
{
    int rc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            a->help = true;
        } else if (strcmp(arg, "--version") == 0) {
            a->version = true;
        } else if (strcmp(arg, "--man") == 0) {
            a->man = true;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--fix") == 0) {
            a->fix = true;
        } else if (opt_is(arg, "--dir")) {
            if ((v = opt_value(argc, argv, &i, "--dir")) == NULL || v[0] == '\0')
                return hc_usage_error(a->cmd, "--dir needs a directory");
            a->dir = v;
        } else if (opt_is(arg, "--max-size")) {
            if ((v = opt_value(argc, argv, &i, "--max-size")) == NULL || !parse_size(v, &a->max_size))
                return hc_usage_error(a->cmd, "--max-size needs a byte count such as 1048576, 64M or 2G, not '%s'", v ? v : "");
            a->has_max_size = true;
        } else if (opt_is(arg, "--older-than")) {
            if ((v = opt_value(argc, argv, &i, "--older-than")) == NULL || !parse_age(v, &a->older_than))
                return hc_usage_error(a->cmd, "--older-than needs an age such as 30d, 12h or 3600s, not '%s'", v ? v : "");
            a->has_older_than = true;
        } else if (strcmp(arg, "--source") == 0) {
            a->source = true;
        } else if ((rc = parse_warm_opt(argc, argv, &i, a)) != 0) {
            if (rc != 1)
                return rc;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return hc_usage_error(a->cmd, "unknown option '%s'%s%s", arg, a->cmd != NULL ? " for " : "",
                                  a->cmd != NULL ? a->cmd : "");
        } else if (a->cmd == NULL) {
            a->cmd = arg;
        } else if (is_cmd(a->cmd, "warm")) {
            a->paths[a->n_paths++] = arg;
        } else if (a->file == NULL && (is_cmd(a->cmd, "export") || is_cmd(a->cmd, "import") ||
                                       is_cmd(a->cmd, "show") || is_cmd(a->cmd, "help"))) {
            a->file = arg;
        } else {
            return hc_usage_error(a->cmd, "unexpected argument '%s'", arg);
        }
    }
    return -1;
}

/* help, --help, --version, --man: printed here (or a usage error); -1 for any other command. */
static int check_info(const cli_args *a)
{
    if (a->cmd != NULL && !hc_is_command(a->cmd))
        return hc_usage_error(NULL, "unknown command '%s'", a->cmd);
    if (a->help) /* COMMAND --help, help --help included */
        return hc_help(a->cmd);
    if (is_cmd(a->cmd, "help"))
        return hc_help(a->file);
    if ((a->version || a->man) && a->cmd != NULL)
        return hc_usage_error(NULL, "%s takes no command ('%s')", a->version ? "--version" : "--man", a->cmd);
    if (a->version && a->man)
        return hc_usage_error(NULL, "--version or --man, not both");
    if (a->man && a->json)
        return hc_usage_error(NULL, "--man has no JSON form");
    if (a->version)
        return hc_version(a->json);
    if (a->man)
        return hc_man(hipdnnVersionString_ext());
    if (a->cmd == NULL)
        return hc_usage_error(NULL, "no command given");
    return -1;
}

static int check_args(const cli_args *a)
{
    int rc = check_info(a);
    if (rc >= 0)
        return rc;
    bool warm_opts = a->arch != NULL || a->sm_count != 0 || a->jobs != 0 || a->all_configs || a->skip_unsupported ||
                     a->n_plugins > 0;
    if (warm_opts && !is_cmd(a->cmd, "warm"))
        return hc_usage_error(a->cmd, "--arch, --sm-count, --jobs, --plugin, --all-configs and --skip-unsupported "
                              "apply to warm");
    if (a->sm_count != 0 && a->arch == NULL)
        return hc_usage_error(a->cmd, "--sm-count applies with --arch");
    if (is_cmd(a->cmd, "warm") && a->n_paths == 0)
        return hc_usage_error(a->cmd, "warm needs graph files or directories");
    if (a->source && !is_cmd(a->cmd, "show"))
        return hc_usage_error(a->cmd, "--source applies to show");
    char key[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT];
    if (is_cmd(a->cmd, "show") && a->file == NULL)
        return hc_usage_error(a->cmd, "show needs a KEY");
    if (is_cmd(a->cmd, "show") && !hc_key_canon(a->file, key))
        return hc_usage_error(a->cmd, "show: '%s' is not a key (32 hex digits, as ls prints)", a->file);
    if (a->fix && !is_cmd(a->cmd, "verify"))
        return hc_usage_error(a->cmd, "--fix applies to verify");
    bool limits = a->has_max_size || a->has_older_than;
    if (limits && !is_cmd(a->cmd, "prune"))
        return hc_usage_error(a->cmd, "--max-size and --older-than apply to prune");
    if (is_cmd(a->cmd, "prune") && !limits)
        return hc_usage_error(a->cmd, "prune needs --max-size or --older-than");
    if ((is_cmd(a->cmd, "export") || is_cmd(a->cmd, "import")) && a->file == NULL)
        return hc_usage_error(a->cmd, "%s needs a FILE", a->cmd);
    return -1;
}

/* ---- output helpers ------------------------------------------------------------------------ */

static const char *table_name(hipdnnKernelCacheRecordKind_ext_t t)
{
    return t == HIPDNN_KERNEL_CACHE_RECORD_PLAN_EXT ? "plan"
           : t == HIPDNN_KERNEL_CACHE_RECORD_KERNEL_EXT ? "kernel"
                                                        : "file"; /* file: a damaged page */
}

bool hc_key_canon(const char *hex, char out[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT])
{
    size_t n = 0;
    for (; hex[n] != '\0' && n < HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT - 1; n++) {
        char c = hex[n];
        bool digit = c >= '0' && c <= '9', lower = c >= 'a' && c <= 'f', upper = c >= 'A' && c <= 'F';
        if (!digit && !lower && !upper)
            return false;
        out[n] = upper ? (char)(c - 'A' + 'a') : c;
    }
    out[n] = '\0';
    return n == HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT - 1 && hex[n] == '\0';
}

/* "40s", "12m", "5h", "3d"; "never" for a time never recorded. */
void hc_fmt_age(int64_t now, int64_t t, char *buf, size_t size)
{
    if (t <= 0) {
        snprintf(buf, size, "never");
        return;
    }
    int64_t d = now > t ? now - t : 0;
    if (d < 120)
        snprintf(buf, size, "%" PRId64 "s", d);
    else if (d < 2 * 3600)
        snprintf(buf, size, "%" PRId64 "m", d / 60);
    else if (d < 2 * 86400)
        snprintf(buf, size, "%" PRId64 "h", d / 3600);
    else
        snprintf(buf, size, "%" PRId64 "d", d / 86400);
}

/* Prints a JSON value (and frees it); false when it cannot be written. */
bool hc_put_json(json_t *j)
{
    bool ok = j != NULL && json_dumpf(j, stdout, JSON_INDENT(2)) == 0;
    json_decref(j);
    fputc('\n', stdout);
    return ok;
}

json_t *hc_u64_json(uint64_t v) { return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v); }

const char *hc_dir(hipdnnKernelCache_ext_t c)
{
    hipdnnKernelCacheInfo_ext_t info;
    return hipdnnKernelCacheGetInfo_ext(c, &info) == HIPDNN_STATUS_SUCCESS ? info.dir : "";
}

/* ---- subcommands --------------------------------------------------------------------------- */

static int cmd_stats(hipdnnKernelCache_ext_t c, const cli_args *a)
{
    hipdnnKernelCacheStats_ext_t s;
    hipdnnKernelCacheInfo_ext_t info;
    if (hipdnnKernelCacheGetStats_ext(c, &s) != HIPDNN_STATUS_SUCCESS ||
        hipdnnKernelCacheGetInfo_ext(c, &info) != HIPDNN_STATUS_SUCCESS)
        return op_error("stats");
    if (a->json) {
        json_t *j = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "dir", info.dir, "mode",
                              info.mode, "kernels", hc_u64_json(s.kernels), "plans", hc_u64_json(s.plans),
                              "bytes", hc_u64_json(s.bytes), "map_size", hc_u64_json(s.map_size), "map_used",
                              hc_u64_json(s.map_used), "max_bytes", hc_u64_json(s.max_bytes));
        return hc_put_json(j) ? EXIT_OK : op_error("stats: writing JSON failed");
    }
    printf("directory  %s (%s)\n", info.dir, info.mode);
    printf("kernels    %" PRIu64 "\n", s.kernels);
    printf("plans      %" PRIu64 "\n", s.plans);
    printf("bytes      %" PRIu64 "\n", s.bytes);
    printf("map        %" PRIu64 " of %" PRIu64 " bytes used, at most %" PRIu64 "\n", s.map_used, s.map_size,
           s.max_bytes);
    return EXIT_OK;
}

static int cmd_verify(hipdnnKernelCache_ext_t c, const cli_args *a)
{
    hipdnnKernelCacheBad_ext_t *bad = NULL;
    size_t n = 0;
    if (hipdnnKernelCacheVerify_ext(c, a->fix, &bad, &n) != HIPDNN_STATUS_SUCCESS)
        return op_error("verify");
    json_t *arr = a->json ? json_array() : NULL;
    for (size_t i = 0; i < n; i++) {
        if (a->json)
            json_array_append_new(arr, json_pack("{s:s, s:s, s:s}", "kind", table_name(bad[i].kind), "key",
                                                 bad[i].key, "reason", bad[i].reason));
        else
            printf("%s %s: %s%s\n", table_name(bad[i].kind), bad[i].key, bad[i].reason, a->fix ? " (removed)" : "");
    }
    hipdnnKernelCacheFree_ext(bad);
    if (a->json && !hc_put_json(json_pack("{s:o, s:b}", "bad", arr, "fixed", a->fix)))
        return op_error("verify: writing JSON failed");
    if (!a->json)
        printf("%zu bad record%s%s\n", n, n == 1 ? "" : "s", a->fix && n > 0 ? ", removed" : "");
    if (n > 0 && !a->fix) {
        fprintf(stderr, "hipdnn-cache: verify: %zu bad record%s in %s (verify --fix removes them)\n", n,
                n == 1 ? "" : "s", hc_dir(c));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

static int cmd_prune(hipdnnKernelCache_ext_t c, const cli_args *a)
{
    size_t removed = 0;
    if (hipdnnKernelCachePrune_ext(c, a->has_max_size ? a->max_size : HIPDNN_KERNEL_CACHE_NO_LIMIT_EXT,
                                   a->has_older_than ? a->older_than : 0, &removed) != HIPDNN_STATUS_SUCCESS)
        return op_error("prune");
    if (a->json) {
        json_t *j = json_pack("{s:s, s:o}", "dir", hc_dir(c), "removed", hc_u64_json(removed));
        if (j != NULL && a->has_max_size)
            json_object_set_new(j, "max_size", hc_u64_json(a->max_size));
        if (j != NULL && a->has_older_than)
            json_object_set_new(j, "older_than", json_integer((json_int_t)a->older_than));
        return hc_put_json(j) ? EXIT_OK : op_error("prune: writing JSON failed");
    }
    printf("removed %zu record%s\n", removed, removed == 1 ? "" : "s");
    return EXIT_OK;
}

static int cmd_bundle(hipdnnKernelCache_ext_t c, const cli_args *a)
{
    size_t n = 0;
    bool out = is_cmd(a->cmd, "export");
    hipdnnStatus_t st = out ? hipdnnKernelCacheExport_ext(c, a->file, &n) : hipdnnKernelCacheImport_ext(c, a->file, &n);
    if (st != HIPDNN_STATUS_SUCCESS) {
        char what[600];
        snprintf(what, sizeof what, "%s %s", a->cmd, a->file);
        return op_error(what);
    }
    if (a->json)
        return hc_put_json(json_pack("{s:s, s:s, s:s, s:o}", "dir", hc_dir(c), "action", a->cmd, "file", a->file,
                                  "records", hc_u64_json(n)))
                   ? EXIT_OK
                   : op_error("writing JSON failed");
    printf("%s %zu record%s %s %s\n", out ? "exported" : "imported", n, n == 1 ? "" : "s", out ? "to" : "from",
           a->file);
    return EXIT_OK;
}

/* ---- main ---------------------------------------------------------------------------------- */

/* Commands that change the cache need it writable. */
static bool writes(const cli_args *a)
{
    return is_cmd(a->cmd, "prune") || is_cmd(a->cmd, "import") || is_cmd(a->cmd, "warm") ||
           (is_cmd(a->cmd, "verify") && a->fix);
}

static bool creates(const cli_args *a) { return is_cmd(a->cmd, "import") || is_cmd(a->cmd, "warm"); }

/* stats of a cache not made yet: zeros, and success (a script asking before the first warm). */
static int stats_of_nothing(const char *dir, const cli_args *a)
{
    if (a->json)
        return hc_put_json(json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "dir", dir, "mode", "missing",
                                  "kernels", 0, "plans", 0, "bytes", 0, "map_size", 0, "map_used", 0,
                                  "max_bytes", 0))
                   ? EXIT_OK
                   : op_error("stats: writing JSON failed");
    printf("directory  %s (missing: no cache yet)\n", dir);
    printf("kernels    0\nplans      0\nbytes      0\nmap        0 of 0 bytes used, at most 0\n");
    return EXIT_OK;
}

/* Only import and warm may create the directory; every command opens it read-write where it
 * can (a read-only open of a directory with no cache in it yet fails), so a read-only
 * directory still serves the commands that only read. dir receives the directory. */
static int open_cache(const cli_args *a, hipdnnKernelCache_ext_t *c, char dir[PATH_MAX])
{
    if (a->dir != NULL)
        snprintf(dir, PATH_MAX, "%s", a->dir);
    else if (hipdnnKernelCacheDefaultDir_ext(dir, PATH_MAX) != HIPDNN_STATUS_SUCCESS)
        return op_error("no cache directory (set HIPDNN_CACHE_DIR or HOME, or pass --dir)");
    struct stat st;
    if (is_cmd(a->cmd, "stats") && stat(dir, &st) != 0 && errno == ENOENT)
        return stats_of_nothing(dir, a);
    if (!creates(a) && stat(dir, &st) != 0) {
        fprintf(stderr, "hipdnn-cache: cache directory %s: %s\n", dir, strerror(errno));
        return EXIT_FAIL;
    }
    hipdnnKernelCacheInfo_ext_t info;
    if (hipdnnKernelCacheOpen_ext(dir, c) != HIPDNN_STATUS_SUCCESS ||
        hipdnnKernelCacheGetInfo_ext(*c, &info) != HIPDNN_STATUS_SUCCESS)
        return op_error(dir);
    if (info.note[0] != '\0') /* a damaged data file moved aside: say so, then go on */
        fprintf(stderr, "hipdnn-cache: warning: kernel cache %s: %s\n", dir, info.note);
    if (writes(a) && !info.writable) {
        fprintf(stderr, "hipdnn-cache: %s: %s needs a writable cache (it opened %s)\n", dir, a->cmd, info.mode);
        hipdnnKernelCacheClose_ext(*c);
        return EXIT_FAIL;
    }
    return -1;
}

/* warm goes through the public API: the target is chosen first (a usage error creates nothing),
 * the cache is checked here (created, writable) and closed, and the library's KERNEL_CACHE
 * descriptors open it again. Returns -1 when it is not warm. */
static int run_warm(const cli_args *a)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    hc_warm_opts o = {.arch = a->arch, .sm_count = a->sm_count,
                      .jobs = a->jobs > 0 ? a->jobs : cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus,
                      .all_configs = a->all_configs, .skip_unsupported = a->skip_unsupported, .json = a->json,
                      .paths = a->paths, .n_paths = a->n_paths, .plugins = a->plugins,
                      .n_plugins = a->n_plugins};
    hipdnnKernelCache_ext_t c = NULL;
    char dir[PATH_MAX];
    int rc = hc_warm_target(&o);
    if (rc < 0)
        rc = open_cache(a, &c, dir);
    if (rc >= 0)
        return rc;
    hipdnnKernelCacheClose_ext(c);
    o.dir = dir;
    rc = hc_warm(&o);
    return rc == EXIT_OK && fflush(stdout) != 0 ? op_error("writing the output failed") : rc;
}

int main(int argc, char **argv)
{
    cli_args a = {.paths = calloc((size_t)argc + 1, sizeof(char *)),
                  .plugins = calloc((size_t)argc + 1, sizeof(char *))};
    if (a.paths == NULL || a.plugins == NULL) {
        free(a.paths);
        free(a.plugins);
        return op_error("out of memory");
    }
    int rc = parse_args(argc, argv, &a);
    if (rc < 0)
        rc = check_args(&a);
    if (rc < 0 && is_cmd(a.cmd, "warm"))
        rc = run_warm(&a);
    free(a.paths);
    free(a.plugins);
    if (rc >= 0)
        return rc;
    hipdnnKernelCache_ext_t c = NULL;
    char dir[PATH_MAX];
    if ((rc = open_cache(&a, &c, dir)) >= 0)
        return rc;
    if (is_cmd(a.cmd, "ls"))
        rc = hc_ls(c, a.json);
    else if (is_cmd(a.cmd, "stats"))
        rc = cmd_stats(c, &a);
    else if (is_cmd(a.cmd, "verify"))
        rc = cmd_verify(c, &a);
    else if (is_cmd(a.cmd, "prune"))
        rc = cmd_prune(c, &a);
    else if (is_cmd(a.cmd, "show"))
        rc = hc_show(c, a.file, a.source, a.json);
    else
        rc = cmd_bundle(c, &a);
    hipdnnKernelCacheClose_ext(c);
    if (rc == EXIT_OK && fflush(stdout) != 0)
        rc = op_error("writing the output failed");
    return rc;
}
