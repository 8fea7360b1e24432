/* test_kc_warm.c — `hipdnn-cache warm` and `hipdnn-cache show` (tools/), run as subprocesses.
 *
 * Owns: warming the example graphs for sm_90 (compile-only with NVRTC: no GPU needed; skipped
 * without NVRTC) into fresh mkdtemp caches: a first warm compiles, a second finds every kernel
 * cached; ls lists the kernels; show KEY --source prints the source exactly as compiled (equal
 * to the HIPDNN_JIT_DUMP_DIR dump, and hashing to the record's key) and the second warm takes
 * every plan from the plan table; --jobs 4 gives the counts of --jobs 1 and records that
 * verify; two threads compiling for gfx90a with hipRTC (not thread safe) at once; --all-configs warms more plans; bad graph files fail with their names on stderr; usage errors (no --arch without a GPU, bad options) exit 2 and create
 * nothing; three warm processes on overlapping graph sets at once leave a cache that verifies
 * and that a further warm compiles nothing from; a warm onto a full disk (kt_enospc.c) reports
 * every kernel and plan it could not store and exits 1; ls and show describe the kernel and plan
 * records a warm leaves (compiler version, sizes, ages; the plan's graph, arch and SM count,
 * engine, knobs and kernels), in JSON and text.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "engines/fe_engines.h"
#include "hipdnn_jit.h"
#include "kt_cli.h"
#include "kt_util.h"
#include "runtime/rt.h"

#define GRAPHS HIPDNN_SOURCE_DIR "/examples/graphs"
#define G(name) GRAPHS "/" name

static char *dir, *work;

static void setup(void) { kt_dirs_make(&dir, &work); }
static void teardown(void) { kt_dirs_remove(dir, work); }

TestSuite(kc_warm, .init = setup, .fini = teardown, .timeout = 300);

static void need_nvrtc(void)
{
    rt_compiler_info info;
    if (rt_compiler_for("sm_90", &info) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
}

/* ---- running the tool ---------------------------------------------------------------------- */

/* Collects the arguments (NULL-terminated) into args. */
static void collect(const char **args, int cap, const char *first, va_list ap)
{
    int n = 0;
    for (const char *a = first; a != NULL && n < cap - 1; a = va_arg(ap, const char *))
        args[n++] = a;
    args[n] = NULL;
}

static kt_cli_run cli(const char *arg, ...)
{
    const char *args[48];
    va_list ap;
    va_start(ap, arg);
    collect(args, 48, arg, ap);
    va_end(ap);
    return kt_cli_v(work, args);
}

/* `--dir d --json warm --arch sm_90 ARGS...`, expecting exit status `status`; the report. */
static json_t *warm_json(const char *d, int status, const char *arg, ...)
{
    const char *args[48] = {"--dir", d, "--json", "warm", "--arch", "sm_90"};
    va_list ap;
    va_start(ap, arg);
    collect(args + 6, 42, arg, ap);
    va_end(ap);
    kt_cli_run r = kt_cli_v(work, args);
    cr_assert_eq(r.status, status, "warm exit %d, wanted %d; stderr: %s", r.status, status, r.err);
    json_t *j = kt_cli_json(&r, "warm --json");
    kt_cli_free(&r);
    return j;
}

static json_int_t num(json_t *obj, const char *field)
{
    json_t *v = json_object_get(obj, field);
    cr_assert(json_is_integer(v), "field %s is an integer", field);
    return json_integer_value(v);
}

/* The report's entry for graph `path`. */
static json_t *graph_of(json_t *report, const char *path)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(report, "graphs"), i, e)
        if (strcmp(json_string_value(json_object_get(e, "graph")), path) == 0)
            return e;
    cr_assert_fail("the report lists %s", path);
    return NULL;
}

/* Every per-graph count adds up to the totals, and compiled + cached == kernels in each. */
static void expect_consistent(json_t *report)
{
    size_t i;
    json_t *e;
    json_int_t k = 0, c = 0, h = 0;
    json_array_foreach(json_object_get(report, "graphs"), i, e) {
        k += num(e, "kernels"), c += num(e, "compiled"), h += num(e, "cached");
        cr_expect_eq(num(e, "compiled") + num(e, "cached"), num(e, "kernels"), "graph %s",
                     json_string_value(json_object_get(e, "graph")));
    }
    cr_expect_eq(k, num(report, "kernels"));
    cr_expect_eq(c, num(report, "compiled"));
    cr_expect_eq(h, num(report, "cached"));
}

/* ls --json of d: the kernel records (an array the caller frees) and the plan count. */
static json_t *kernels_of(const char *d, size_t *n_plans)
{
    kt_cli_run r = cli("--dir", d, "--json", "ls", NULL);
    cr_assert_eq(r.status, 0, "ls: %s", r.err);
    json_t *all = kt_cli_json(&r, "ls"), *kernels = json_array();
    kt_cli_free(&r);
    size_t i;
    json_t *e;
    *n_plans = 0;
    json_array_foreach(all, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "kind")), "kernel") == 0)
            json_array_append(kernels, e);
        else
            ++*n_plans;
    }
    json_decref(all);
    return kernels;
}

static void expect_verifies(const char *d, const char *when)
{
    kt_cli_run r = cli("--dir", d, "verify", NULL);
    cr_expect_eq(r.status, 0, "verify %s: %s%s", when, r.out, r.err);
    cr_expect_str_eq(r.out, "0 bad records\n", "verify %s", when);
    kt_cli_free(&r);
}

/* The contents of a file (malloc'd) or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(1 << 22);
    size_t n = buf != NULL ? fread(buf, 1, (1 << 22) - 1, f) : 0;
    if (buf != NULL)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Is `text` the content of one of the files in directory d? */
static bool some_file_is(const char *d, const char *text)
{
    DIR *dp = opendir(d);
    cr_assert_not_null(dp, "open %s", d);
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(dp)) != NULL;) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", d, e->d_name);
        char *c = e->d_name[0] != '.' ? read_text(path) : NULL;
        found = c != NULL && strcmp(c, text) == 0;
        free(c);
    }
    closedir(dp);
    return found;
}

/* ---- tests --------------------------------------------------------------------------------- */

/* Warm the example graphs twice; ls lists the kernels; show --source gives each one's source. */
Test(kc_warm, example_graphs_twice_and_show_sources)
{
    need_nvrtc();
    char dump[700];
    snprintf(dump, sizeof dump, "%s/dump", work);
    cr_assert_eq(mkdir(dump, 0700), 0);
    setenv("HIPDNN_JIT_DUMP_DIR", dump, 1);
    json_t *first = warm_json(dir, 0, "--skip-unsupported", "--jobs", "2", GRAPHS, NULL);
    unsetenv("HIPDNN_JIT_DUMP_DIR");
    json_int_t warmed = num(first, "warmed"), kernels = num(first, "kernels");
    cr_expect_geq(warmed, 5, "layernorm, rmsnorm, matmul, batchnorm and conv warm at least");
    cr_expect_eq(num(first, "failed"), 0);
    cr_expect_eq(warmed + num(first, "skipped"), (json_int_t)json_array_size(json_object_get(first, "graphs")));
    cr_expect_gt(num(first, "compiled"), 0, "an empty cache compiles");
    cr_expect_geq(kernels, warmed, "each warmed graph has a kernel");
    expect_consistent(first);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(first, "graphs"), i, e) {
        const char *status = json_string_value(json_object_get(e, "status"));
        cr_expect(strcmp(status, "ok") == 0 || strcmp(status, "skipped") == 0, "status %s", status);
        if (strcmp(status, "skipped") == 0)
            cr_expect_not_null(strstr(json_string_value(json_object_get(e, "reason")), "jit_fused"),
                               "a skipped graph says why each compiling engine refused it");
    }

    json_t *second = warm_json(dir, 0, "--skip-unsupported", GRAPHS, NULL);
    cr_expect_eq(num(second, "compiled"), 0, "the second warm compiles nothing");
    cr_expect_eq(num(second, "cached"), kernels, "every kernel is already cached");
    cr_expect_eq(num(second, "kernels"), kernels);
    cr_expect_eq(num(second, "warmed"), warmed);
    expect_consistent(second);
    json_array_foreach(json_object_get(second, "graphs"), i, e) {
        const char *path = json_string_value(json_object_get(e, "graph"));
        bool ok = strcmp(json_string_value(json_object_get(e, "status")), "ok") == 0;
        cr_expect_eq(num(e, "plans"), ok ? 1 : 0, "%s: the top config only", path);
        cr_expect_eq(num(graph_of(first, path), "plans_cached"), 0, "%s: the first warm builds its plan", path);
        cr_expect_eq(num(e, "plans_cached"), num(e, "plans"), "%s: the second takes it from the plan table", path);
    }

    size_t n_plans;
    json_t *ks = kernels_of(dir, &n_plans);
    cr_expect_eq((json_int_t)n_plans, warmed, "one plan per warmed graph");
    cr_expect_gt(json_array_size(ks), 0);
    cr_expect_leq((json_int_t)json_array_size(ks), kernels, "graphs may share kernels");
    cr_expect_eq((json_int_t)json_array_size(ks), num(first, "compiled"), "each kernel compiled once");
    json_array_foreach(ks, i, e) {
        const char *key = json_string_value(json_object_get(e, "key"));
        const char *entry = json_string_value(json_object_get(e, "entry"));
        const char *arch = json_string_value(json_object_get(e, "arch"));
        cr_expect(strncmp(arch, "sm_90", 5) == 0, "kernel %s for %s", key, arch);
        kt_cli_run r = cli("--dir", dir, "show", key, "--source", NULL);
        cr_assert_eq(r.status, 0, "show %s --source: %s", key, r.err);
        cr_expect_not_null(strstr(r.out, entry), "the source defines %s", entry);
        cr_expect(some_file_is(dump, r.out), "kernel %s: the source is what HIPDNN_JIT_DUMP_DIR dumped", key);
        kc_key want, got;
        cr_assert(kc_key_parse(key, &want));
        TU_OK(fe_kernel_key(r.out, entry, arch, NULL, 0, &got));
        cr_expect_arr_eq(got.b, want.b, KC_KEY_SIZE, "kernel %s: the source hashes to its key", key);
        kt_cli_free(&r);

        r = cli("--dir", dir, "--json", "show", key, NULL);
        cr_assert_eq(r.status, 0, "show --json: %s", r.err);
        json_t *s = kt_cli_json(&r, "show");
        cr_expect_str_eq(json_string_value(json_object_get(s, "key")), key);
        cr_expect_str_eq(json_string_value(json_object_get(s, "arch")), arch);
        cr_expect_str_eq(json_string_value(json_object_get(s, "entry")), entry);
        cr_expect_str_eq(json_string_value(json_object_get(s, "compiler")), "nvrtc");
        cr_expect_gt(num(s, "code_size"), 0);
        cr_expect_gt(num(s, "source_size"), 0);
        json_decref(s);
        kt_cli_free(&r);
    }
    json_decref(ks);
    json_decref(first);
    json_decref(second);
    expect_verifies(dir, "after two warms");
}

/* A graph with a plugin's custom op (examples/plugins/rope_graph.json, example.rope): without
 * --plugin it fails naming the op; with it, the custom op's kernel is compiled, cached (a second
 * warm compiles nothing) and `show --source` prints its source with the line naming the op and
 * its provider. A plugin that does not load is a usage error. */
Test(kc_warm, custom_op_graphs_warm_with_their_plugin)
{
    need_nvrtc();
    const char *graph = HIPDNN_SOURCE_DIR "/examples/plugins/rope_graph.json";
    kt_cli_run r = cli("--dir", dir, "warm", "--arch", "sm_90", graph, NULL);
    cr_expect_eq(r.status, 1, "no provider: the graph fails; stderr %s", r.err);
    cr_expect_not_null(strstr(r.err, "example.rope"), "the reason names the op: %s", r.err);
    kt_cli_free(&r);
    json_t *first = warm_json(dir, 0, "--plugin", EXAMPLE_ROPE_PLUGIN, graph, NULL);
    cr_expect_eq(num(first, "warmed"), 1);
    cr_expect_gt(num(first, "compiled"), 0);
    json_t *second = warm_json(dir, 0, "--plugin", EXAMPLE_ROPE_PLUGIN, graph, NULL);
    cr_expect_eq(num(second, "compiled"), 0, "the second warm compiles nothing");
    cr_expect_eq(num(second, "cached"), num(first, "kernels"));
    size_t n_plans, i, found = 0;
    json_t *ks = kernels_of(dir, &n_plans), *e;
    json_array_foreach(ks, i, e) {
        const char *key = json_string_value(json_object_get(e, "key"));
        r = cli("--dir", dir, "show", key, "--source", NULL);
        cr_assert_eq(r.status, 0, "show %s --source: %s", key, r.err);
        if (strstr(r.out, "// hipdnn-jit custom op example.rope, provider example ") == r.out)
            found++;
        kt_cli_free(&r);
    }
    cr_expect_eq(found, 1, "one kernel is the custom op's, its source headed by the op and provider");
    json_decref(ks);
    json_decref(first);
    json_decref(second);
    r = cli("--dir", dir, "warm", "--arch", "sm_90", "--plugin", "/nonexistent/librope.so", graph, NULL);
    kt_cli_expect_fail(&r, 2, "--plugin", "a plugin that does not exist");
    cr_expect_not_null(strstr(r.err, "/nonexistent/librope.so"), "names the file: %s", r.err);
    kt_cli_free(&r);
}

/* The text form: one line per graph on stdout, the summary last. */
Test(kc_warm, text_lines_and_summary)
{
    need_nvrtc();
    kt_cli_run r = cli("--dir", dir, "warm", "--arch", "sm_90", G("layernorm.json"), G("rmsnorm_residual.json"), NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err, "nothing on stderr");
    const char *names[] = {"layernorm.json", "rmsnorm_residual.json"};
    for (int i = 0; i < 2; i++) {
        char line[800];
        snprintf(line, sizeof line, "graph %s/%s: 1 kernel, 1 compiled, 0 cached, ", GRAPHS, names[i]);
        cr_expect_not_null(strstr(r.out, line), "a line for %s: %s", names[i], r.out);
    }
    cr_expect_not_null(strstr(r.out, "\nwarmed 2 of 2 graphs for sm_90: 2 kernels, 2 compiled, 0 already cached; "
                                     "0 failed; "), "%s", r.out);
    kt_cli_free(&r);
    r = cli("--dir", dir, "warm", "--arch", "sm_90", G("layernorm.json"), NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_not_null(strstr(r.out, "layernorm.json: 1 kernel, 0 compiled, 1 cached, "), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "warmed 1 of 1 graphs for sm_90: 1 kernels, 0 compiled, 1 already cached"),
                       "%s", r.out);
    kt_cli_free(&r);
}

/* Bad graph files fail, each named on stderr with a reason; the good one is still warmed. */
Test(kc_warm, bad_graph_files_fail_by_name)
{
    need_nvrtc();
    char garbage[700], empty[700], missing[700], emptydir[700];
    snprintf(garbage, sizeof garbage, "%s/garbage.json", work);
    snprintf(empty, sizeof empty, "%s/empty.bin", work);
    snprintf(missing, sizeof missing, "%s/missing.json", work);
    snprintf(emptydir, sizeof emptydir, "%s/nographs", work);
    FILE *f = fopen(garbage, "w");
    cr_assert_not_null(f);
    fputs("{\"nodes\": [ this is not a graph", f);
    fclose(f);
    f = fopen(empty, "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_assert_eq(mkdir(emptydir, 0700), 0);
    kt_cli_run r = cli("--dir", dir, "warm", "--arch", "sm_90", garbage, G("layernorm.json"), empty, missing,
                       emptydir, NULL);
    cr_expect_eq(r.status, 1, "a failed graph fails the command: %s", r.err);
    const char *bad[] = {garbage, empty, missing, emptydir};
    for (int i = 0; i < 4; i++) {
        char needle[800];
        snprintf(needle, sizeof needle, "hipdnn-cache: warm: graph %s: FAILED: ", bad[i]);
        const char *at = strstr(r.err, needle);
        cr_expect_not_null(at, "stderr names %s: %s", bad[i], r.err);
        cr_expect(at != NULL && at[strlen(needle)] != '\n', "with a reason");
    }
    cr_expect_not_null(strstr(r.err, "JSON"), "the garbage file is not valid JSON: %s", r.err);
    cr_expect_not_null(strstr(r.out, "layernorm.json: 1 kernel, 1 compiled"), "the good graph warmed: %s", r.out);
    cr_expect_not_null(strstr(r.out, "warmed 1 of 5 graphs for sm_90: 1 kernels, 1 compiled, 0 already cached; 4 "
                                     "failed (garbage.json, empty.bin, missing.json, nographs)"), "%s", r.out);
    kt_cli_free(&r);
    /* an unsupported graph fails too, unless skipped: SDPA has no template yet; when it gets one
     * this only checks that it warms */
    r = cli("--dir", dir, "warm", "--arch", "sm_90", G("sdpa_causal.json"), NULL);
    if (r.status != 0) {
        cr_expect_eq(r.status, 1);
        cr_expect_not_null(strstr(r.err, "no engine that compiles kernels supports the graph on sm_90"), "%s", r.err);
        kt_cli_free(&r);
        r = cli("--dir", dir, "warm", "--arch", "sm_90", "--skip-unsupported", G("sdpa_causal.json"), NULL);
        cr_expect_eq(r.status, 0, "--skip-unsupported: %s", r.err);
        cr_expect_not_null(strstr(r.out, "1 skipped, no engine compiles them for sm_90 (sdpa_causal.json)"), "%s",
                           r.out);
    }
    kt_cli_free(&r);
}

/* Usage errors exit 2 with one line on stderr and create nothing. */
Test(kc_warm, usage_errors)
{
    char missing[700];
    snprintf(missing, sizeof missing, "%s/not_here", work);
    void *probe = NULL;
    bool gpu = hipdnnDeviceMalloc_ext(&probe, 1) == HIPDNN_STATUS_SUCCESS;
    hipdnnDeviceFree_ext(probe);
    struct {
        const char *args[9], *needle;
    } cases[] = {
        {{"--dir", missing, "warm", gpu ? "--arch=no_such_arch" : GRAPHS, NULL}, "--arch"},
        {{"--dir", missing, "warm", "--arch", "sm_90", NULL}, "graph files"},
        {{"--dir", missing, "warm", "--arch", "vulkan", GRAPHS, NULL}, "vulkan"},
        {{"--dir", missing, "warm", "--arch", NULL}, "--arch"},
        {{"--dir", missing, "warm", "--arch", "sm_90", "--jobs", "0", GRAPHS, NULL}, "--jobs"},
        {{"--dir", missing, "warm", "--arch", "sm_90", "--sm-count", "many", GRAPHS, NULL}, "many"},
        {{"--dir", missing, "warm", "--sm-count", "100", GRAPHS, NULL}, "--sm-count"},
        {{"--dir", missing, "ls", "--arch", "sm_90", NULL}, "apply to warm"},
        {{"--dir", missing, "ls", "--all-configs", NULL}, "apply to warm"},
        {{"--dir", missing, "ls", "--source", NULL}, "--source"},
        {{"--dir", missing, "show", NULL}, "KEY"},
        {{"--dir", missing, "show", "xyz", NULL}, "'xyz'"},
        {{"--dir", missing, "show", "00112233445566778899aabbccddeeff", "extra", NULL}, "'extra'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kt_cli_run r = kt_cli_v(work, cases[i].args);
        char what[64];
        snprintf(what, sizeof what, "usage case %zu", i);
        kt_cli_expect_fail(&r, 2, cases[i].needle, what);
        kt_cli_free(&r);
    }
    struct stat st;
    cr_expect_neq(stat(missing, &st), 0, "no usage error creates the directory");
    kt_cli_run r = cli("--help", NULL);
    const char *words[] = {"warm", "--arch", "--sm-count", "--jobs", "--all-configs", "--skip-unsupported", "show",
                           "--source"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        cr_expect_not_null(strstr(r.out, words[i]), "--help mentions %s", words[i]);
    kt_cli_free(&r);
}

/* show: a key no record has, and a plan record (no source). */
Test(kc_warm, show_unknown_key_and_plan)
{
    need_nvrtc();
    json_t *rep = warm_json(dir, 0, G("layernorm.json"), NULL);
    json_decref(rep);
    kt_cli_run r = cli("--dir", dir, "show", "00000000000000000000000000000000", NULL);
    kt_cli_expect_fail(&r, 1, "no record has key 00000000000000000000000000000000", "an unknown key");
    kt_cli_free(&r);
    r = cli("--dir", dir, "--json", "ls", NULL);
    json_t *all = kt_cli_json(&r, "ls");
    kt_cli_free(&r);
    size_t i;
    json_t *e;
    int plans = 0;
    json_array_foreach(all, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "kind")), "plan") != 0)
            continue;
        plans++;
        const char *key = json_string_value(json_object_get(e, "key"));
        r = cli("--dir", dir, "show", key, NULL);
        cr_expect_eq(r.status, 0);
        cr_expect_not_null(strstr(r.out, "kind       plan\n"), "%s", r.out);
        kt_cli_free(&r);
        r = cli("--dir", dir, "show", key, "--source", NULL);
        kt_cli_expect_fail(&r, 1, "plan record", "a plan's source");
        kt_cli_free(&r);
    }
    cr_expect_eq(plans, 1);
    json_decref(all);
}

/* --jobs 4 and --jobs 1 warm the same kernels with the same counts; both caches verify. */
Test(kc_warm, jobs_give_the_same_counts)
{
    need_nvrtc();
    char *dir4 = kt_tmpdir();
    json_t *one = warm_json(dir, 0, "--skip-unsupported", "--jobs", "1", GRAPHS, NULL);
    json_t *four = warm_json(dir4, 0, "--skip-unsupported", "--jobs", "4", GRAPHS, NULL);
    const char *fields[] = {"kernels", "compiled", "cached", "warmed", "failed", "skipped"};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        cr_expect_eq(num(one, fields[f]), num(four, fields[f]), "%s", fields[f]);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(one, "graphs"), i, e) {
        const char *path = json_string_value(json_object_get(e, "graph"));
        json_t *e4 = graph_of(four, path);
        for (size_t f = 0; f < 3; f++)
            cr_expect_eq(num(e, fields[f]), num(e4, fields[f]), "%s: %s", path, fields[f]);
    }
    size_t p1, p4;
    json_t *k1 = kernels_of(dir, &p1), *k4 = kernels_of(dir4, &p4);
    cr_expect_eq(p1, p4, "as many plans");
    cr_assert_eq(json_array_size(k1), json_array_size(k4), "as many kernels");
    json_array_foreach(k1, i, e) /* ls lists kernels in key order */
        cr_expect_str_eq(json_string_value(json_object_get(e, "key")),
                         json_string_value(json_object_get(json_array_get(k4, i), "key")));
    expect_verifies(dir, "--jobs 1");
    expect_verifies(dir4, "--jobs 4");
    json_decref(k1), json_decref(k4), json_decref(one), json_decref(four);
    kt_rmrf(dir4);
}

/* hipRTC (Debian's 5.2) is not thread safe: two warm threads compiling for gfx90a at once (the
 * default --jobs 2) crashed the tool with SIGSEGV in every run. Compiles are now serialized;
 * every kernel is compiled by four threads, then found cached by the default two. */
Test(kc_warm, parallel_hiprtc_compiles)
{
    rt_compiler_info info;
    if (rt_compiler_for("gfx90a", &info) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no hipRTC on this machine (apt-get install libamdhip64-5)");
    const char *args[] = {"--dir", dir, "--json", "warm", "--arch", "gfx90a", "--jobs", "4",
                          G("layernorm.json"), G("rmsnorm_residual.json"), G("bn_inference_relu.json"),
                          G("conv_bias_relu.json"), NULL};
    for (int run = 0; run < 2; run++) {
        args[7] = run == 0 ? "4" : "2";
        kt_cli_run r = kt_cli_v(work, args);
        cr_assert_eq(r.status, 0, "run %d: warm --arch gfx90a --jobs %s exited %d; stderr: %s", run, args[7],
                     r.status, r.err);
        json_t *j = kt_cli_json(&r, "warm --json");
        cr_expect_eq(num(j, "failed"), 0);
        cr_expect_eq(num(j, "warmed"), 4);
        cr_expect_eq(num(j, run == 0 ? "compiled" : "cached"), num(j, "kernels"), "run %d", run);
        json_decref(j);
        kt_cli_free(&r);
    }
    expect_verifies(dir, "gfx90a, --jobs 4 then 2");
}

/* --all-configs builds a plan for every ranked config that compiles. */
Test(kc_warm, all_configs)
{
    need_nvrtc();
    json_t *top = warm_json(dir, 0, G("bn_inference_relu.json"), NULL);
    json_t *all = warm_json(dir, 0, "--all-configs", G("bn_inference_relu.json"), NULL);
    json_t *again = warm_json(dir, 0, "--all-configs", G("bn_inference_relu.json"), NULL);
    json_int_t plans = num(graph_of(all, G("bn_inference_relu.json")), "plans");
    cr_expect_eq(num(graph_of(top, G("bn_inference_relu.json")), "plans"), 1);
    cr_expect_gt(plans, 1, "batchnorm ranks several configs");
    cr_expect_gt(num(all, "compiled"), 0, "the other configs' kernels compile");
    cr_expect_geq(num(all, "cached"), num(top, "kernels"), "the top config's kernels are cached");
    cr_expect_eq(num(again, "compiled"), 0);
    cr_expect_eq(num(again, "cached"), num(all, "kernels"));
    size_t n_plans;
    json_decref(kernels_of(dir, &n_plans));
    cr_expect_eq((json_int_t)n_plans, plans, "one plan record per config");
    json_decref(top), json_decref(all), json_decref(again);
}

/* Three warm processes on overlapping graph sets, into one cache at once. */
Test(kc_warm, concurrent_processes)
{
    need_nvrtc();
    const char *sets[3][4] = {
        {G("layernorm.json"), G("rmsnorm_residual.json"), G("bn_inference_relu.json"), NULL},
        {G("bn_inference_relu.json"), G("conv_bias_relu.json"), G("rmsnorm_residual.json"), NULL},
        {G("conv_bias_relu.json"), G("layernorm.json"), G("matmul_bias_gelu.json"), NULL},
    };
    pid_t pid[3];
    for (int p = 0; p < 3; p++) {
        const char *args[12] = {"--dir", dir, "--json", "warm", "--arch", "sm_90", "--jobs", "2"};
        for (int i = 0; i < 4; i++)
            args[8 + i] = sets[p][i];
        pid[p] = kt_cli_start(work, p, args);
    }
    for (int p = 0; p < 3; p++) {
        kt_cli_run r = kt_cli_wait(work, p, pid[p]);
        cr_expect_eq(r.status, 0, "process %d: %s", p, r.err);
        json_t *j = kt_cli_json(&r, "a concurrent warm");
        cr_expect_eq(num(j, "warmed"), 3, "process %d", p);
        expect_consistent(j);
        json_decref(j);
        kt_cli_free(&r);
    }
    expect_verifies(dir, "after three concurrent warms");
    json_t *after = warm_json(dir, 0, G("layernorm.json"), G("rmsnorm_residual.json"), G("bn_inference_relu.json"),
                              G("conv_bias_relu.json"), G("matmul_bias_gelu.json"), NULL);
    cr_expect_eq(num(after, "compiled"), 0, "every kernel is there");
    cr_expect_eq(num(after, "cached"), num(after, "kernels"));
    json_decref(after);
}

/* A warm killed with SIGKILL part-way (several points: before, during and after its first
 * compiles and stores) leaves a cache that opens, verifies clean, and a later warm completes
 * it: every graph then warmed, nothing compiled a third time. */
Test(kc_warm, killed_warm_leaves_a_sound_cache)
{
    need_nvrtc();
    static const int delays_ms[] = {50, 300, 900, 2000};
    for (size_t k = 0; k < sizeof delays_ms / sizeof delays_ms[0]; k++) {
        kt_rmrf(dir); /* frees it too */
        dir = kt_tmpdir();
        const char *args[] = {"--dir", dir, "--json", "warm", "--arch", "sm_90", "--jobs", "2", GRAPHS, NULL};
        pid_t pid = kt_cli_start(work, 0, args);
        struct timespec ts = {.tv_sec = delays_ms[k] / 1000, .tv_nsec = (delays_ms[k] % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        kt_cli_run r = kt_cli_wait(work, 0, pid);
        kt_cli_free(&r);
        expect_verifies(dir, "after a killed warm");
        json_t *again = warm_json(dir, 0, "--skip-unsupported", GRAPHS, NULL);
        cr_expect_eq(num(again, "failed"), 0, "killed after %d ms: the rewarm succeeds", delays_ms[k]);
        json_decref(again);
        json_t *done = warm_json(dir, 0, "--skip-unsupported", GRAPHS, NULL);
        cr_expect_eq(num(done, "compiled"), 0, "killed after %d ms: the rewarm completed the cache", delays_ms[k]);
        cr_expect_eq(num(done, "failed"), 0);
        json_decref(done);
        expect_verifies(dir, "after the rewarm");
    }
}

/* ---- a full disk (issue 14, item 5) ----------------------------------------------------------- */

#define DISK_ROOM "262144" /* bytes of data.mdb the "disk" holds: the first kernels only */

/* The children run with kt_enospc preloaded (data.mdb writes past DISK_ROOM fail with ENOSPC). */
static void disk_full(bool on)
{
    static char asan[600];
    if (!on) {
        unsetenv("LD_PRELOAD"), unsetenv("KT_ENOSPC_BYTES");
        return;
    }
    const char *old = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", old != NULL ? old : "", old != NULL ? ":" : "");
    setenv("ASAN_OPTIONS", asan, 1); /* a preloaded library ahead of gcc's shared ASan runtime */
    setenv("LD_PRELOAD", KT_ENOSPC_SHIM, 1), setenv("KT_ENOSPC_BYTES", DISK_ROOM, 1);
}

/* A warm onto a full disk: the kernels and plans the cache could not take are counted, per graph
 * and in total, in --json and in the text summary; those graphs are "not stored" and the exit
 * status is 1; what is in the cache afterwards is exactly what was reported stored; a second warm
 * with room compiles exactly the kernels that were not stored. */
Test(kc_warm, full_disk_reports_what_was_not_stored)
{
    need_nvrtc();
    disk_full(true);
    json_t *rep = warm_json(dir, 1, "--jobs", "1", "--skip-unsupported", GRAPHS, NULL);
    disk_full(false);
    expect_consistent(rep);
    json_int_t k_lost = 0, p_lost = 0, plans = 0, lost_graphs = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(rep, "graphs"), i, e) {
        k_lost += num(e, "kernels_not_stored"), p_lost += num(e, "plans_not_stored"), plans += num(e, "plans");
        bool lost = num(e, "kernels_not_stored") + num(e, "plans_not_stored") > 0;
        lost_graphs += lost;
        cr_expect_str_eq(json_string_value(json_object_get(e, "status")),
                         lost ? "not_stored" : num(e, "kernels") == 0 ? "skipped" : "ok", "graph %s",
                         json_string_value(json_object_get(e, "graph")));
        if (lost)
            cr_expect_not_null(strstr(json_string_value(json_object_get(e, "reason")), "could not be stored"));
    }
    cr_expect_gt(k_lost + p_lost, 0, "a %s-byte disk cannot take every kernel", DISK_ROOM);
    cr_expect_eq(num(rep, "kernels_not_stored"), k_lost);
    cr_expect_eq(num(rep, "plans_not_stored"), p_lost);
    cr_expect_eq(num(rep, "not_stored"), lost_graphs);
    cr_expect_eq(num(rep, "warmed") + num(rep, "skipped") + num(rep, "not_stored") + num(rep, "failed"),
                 (json_int_t)json_array_size(json_object_get(rep, "graphs")));
    size_t stored_plans;
    json_t *stored = kernels_of(dir, &stored_plans);
    cr_expect_eq((json_int_t)json_array_size(stored), num(rep, "compiled") - k_lost, "the kernels in the cache");
    cr_expect_eq((json_int_t)stored_plans, plans - p_lost, "the plans in the cache");
    json_decref(stored);
    expect_verifies(dir, "after a warm onto a full disk");
    json_t *again = warm_json(dir, 0, "--jobs", "1", "--skip-unsupported", GRAPHS, NULL);
    cr_expect_eq(num(again, "compiled"), k_lost, "with room, exactly the kernels not stored are compiled");
    cr_expect_eq(num(again, "kernels_not_stored") + num(again, "plans_not_stored"), 0);
    json_decref(again);
    json_decref(rep);

    kt_rmrf(dir); /* the text form */
    dir = kt_tmpdir();
    disk_full(true);
    kt_cli_run r = cli("--dir", dir, "warm", "--arch", "sm_90", "--jobs", "1", "--skip-unsupported", GRAPHS, NULL);
    disk_full(false);
    cr_expect_eq(r.status, 1, "exit 1 when something was not stored: %s", r.err);
    cr_expect_not_null(strstr(r.out, "not stored ("), "the summary says how many: %s", r.out);
    cr_expect_not_null(strstr(r.out, "could not be written to the cache"), "and what: %s", r.out);
    cr_expect_not_null(strstr(r.err, "NOT STORED: compiled, but"), "each such graph on stderr: %s", r.err);
    kt_cli_free(&r);
}

/* ls and show describe both record kinds: warm rmsnorm_residual.json for sm_90 with 100
 * multiprocessors, then every field ls --json gives a kernel and a plan, the same in show --json,
 * and the text lines. */
Test(kc_warm, ls_and_show_describe_both_record_kinds)
{
    need_nvrtc();
    rt_compiler_info nv;
    cr_assert_eq(rt_compiler_for("sm_90", &nv), HIPDNN_STATUS_SUCCESS);
    char nv_version[32];
    snprintf(nv_version, sizeof nv_version, "%d.%d", nv.major, nv.minor);
    json_decref(warm_json(dir, 0, "--sm-count", "100", G("rmsnorm_residual.json"), NULL));
    kt_cli_run r = cli("--dir", dir, "--json", "ls", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *all = kt_cli_json(&r, "ls"), *plan = NULL, *e;
    kt_cli_free(&r);
    size_t i, n_kernels = 0;
    json_array_foreach(all, i, e) {
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (strcmp(kind, "plan") == 0) {
            cr_assert_null(plan, "one plan");
            plan = e;
            continue;
        }
        n_kernels++;
        cr_expect_str_eq(json_string_value(json_object_get(e, "arch")), "sm_90");
        cr_expect_str_eq(json_string_value(json_object_get(e, "compiler_version")), nv_version);
        cr_expect_gt(num(e, "code_size"), 0);
        cr_expect_gt(num(e, "source_size"), 100, "a kernel the JIT engine compiled carries its source");
        cr_expect(num(e, "age_s") >= 0 && num(e, "age_s") < 300, "age %lld s", (long long)num(e, "age_s"));
        cr_expect(json_is_integer(json_object_get(e, "idle_s")), "used when it was stored");
    }
    cr_assert_not_null(plan, "the plan is listed");
    cr_expect(json_is_true(json_object_get(plan, "described")));
    json_t *g = json_object_get(plan, "graph");
    cr_expect_str_eq(json_string_value(json_object_get(g, "ops")), "pointwise,rmsnorm", "residual add, then rmsnorm");
    cr_expect_eq(num(g, "n_ops"), 2);
    cr_expect_eq(num(g, "n_tensors"), 6, "x, residual, their sum, scale, epsilon, y");
    cr_expect_eq(strlen(json_string_value(json_object_get(g, "key"))), 32);
    cr_expect_str_eq(json_string_value(json_object_get(plan, "arch")), "sm_90");
    cr_expect_eq(num(plan, "sm_count"), 100, "--sm-count reaches the record");
    cr_expect_str_eq(json_string_value(json_object_get(plan, "compiler_version")), nv_version);
    cr_expect_str_eq(json_string_value(json_object_get(plan, "engine")), "jit_fused");
    cr_expect_eq(num(plan, "engine_id"), 1);
    cr_expect(json_is_integer(json_object_get(json_object_get(plan, "knobs"), "jit.vector_width")), "named knobs");
    cr_expect_eq(num(plan, "n_kernels"), (json_int_t)n_kernels, "the plan launches the kernels warm stored");
    const char *pkey = json_string_value(json_object_get(plan, "key"));
    const char *kkey = json_string_value(json_array_get(json_object_get(plan, "kernels"), 0));
    bool listed = false;
    json_array_foreach(all, i, e)
        listed |= strcmp(json_string_value(json_object_get(e, "key")), kkey) == 0;
    cr_expect(listed, "the plan's kernel %s is a listed kernel record", kkey);

    r = cli("--dir", dir, "--json", "show", pkey, NULL);
    json_t *shown = kt_cli_json(&r, "show plan");
    kt_cli_free(&r);
    for (const char *f = "sm_count\0n_kernels\0created\0size\0"; *f; f += strlen(f) + 1)
        cr_expect_eq(num(shown, f), num(plan, f), "show and ls agree on %s", f);
    cr_expect(json_equal(json_object_get(shown, "knobs"), json_object_get(plan, "knobs")));
    json_decref(shown);

    r = cli("--dir", dir, "show", pkey, NULL);
    cr_expect_not_null(strstr(r.out, "graph      pointwise,rmsnorm (2 ops, 6 tensors; graph key "), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "target     sm_90, 100 multiprocessors\n"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "engine     jit_fused (id 1)\nknobs      jit.vector_width="), "%s", r.out);
    cr_expect_not_null(strstr(r.out, kkey), "show lists the kernels: %s", r.out);
    kt_cli_free(&r);
    r = cli("--dir", dir, "ls", NULL);
    cr_expect_not_null(strstr(r.out, "sm_90/100"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "pointwise,rmsnorm (2 ops, 6 tensors); jit_fused, 1 kernel"), "%s", r.out);
    char nv_line[64];
    snprintf(nv_line, sizeof nv_line, "(nvrtc %s; code ", nv_version);
    cr_expect_not_null(strstr(r.out, nv_line), "%s", r.out);
    kt_cli_free(&r);
    json_decref(all);
}
