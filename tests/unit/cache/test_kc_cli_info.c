/* test_kc_cli_info.c — what hipdnn-cache says about itself, and --json on every command; the
 * tool run as a subprocess (kt_cli.h).
 *
 * Owns: `help`, `help COMMAND`, `COMMAND --help` / `-h` (the same text, from one table), an unknown
 * command or option (exit 2, the name, the usage line), `--version` in text and JSON against the
 * library's own answers (hipdnnVersionString_ext, the cache's format constants, the run-time
 * compilers rt_compiler_for finds), the man page (`--man`, and the file the build generated from
 * it: the same bytes, every command), --json on stats / ls / show / verify / prune / export /
 * import parsed back with their fields (warm --json: test_kc_warm.c), and ls / show of a plan
 * record whose recipe is not this library's (undescribed, but engine id, knobs and kernels).
 * ls and show of real kernel and plan records (NVRTC): test_kc_warm.c.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engines/fe_engines.h"
#include "hipdnn_jit.h"
#include "kt_cli.h"
#include "kt_util.h"
#include "runtime/rt.h"

static char *dir, *work;

static void setup(void) { kt_dirs_make(&dir, &work); }
static void teardown(void) { kt_dirs_remove(dir, work); }

TestSuite(kc_cli_info, .init = setup, .fini = teardown);

#define cli(...) kt_cli(work, __VA_ARGS__)

static const char *const commands[] = {"ls", "stats", "show", "verify", "prune", "export", "import", "warm", "help"};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

/* Nothing made a cache in dir. */
static bool no_cache(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    struct stat st;
    return stat(path, &st) != 0;
}

static const char *str(json_t *o, const char *field) { return json_string_value(json_object_get(o, field)); }
static json_int_t num(json_t *o, const char *field) { return json_integer_value(json_object_get(o, field)); }

/* ---- help ------------------------------------------------------------------------------------ */

Test(kc_cli_info, help_lists_every_command)
{
    kt_cli_run r = cli("help", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err);
    cr_expect_eq(strncmp(r.out, "usage: hipdnn-cache", 19), 0, "starts with the usage line: %s", r.out);
    const char *list = strstr(r.out, "\ncommands:\n");
    cr_assert_not_null(list, "a command list: %s", r.out);
    for (int i = 0; i < N_COMMANDS; i++) {
        char line[40];
        snprintf(line, sizeof line, "\n  %s", commands[i]);
        cr_expect_not_null(strstr(list, line), "the list has %s", commands[i]);
    }
    for (const char *w = "--version\0--man\0--json\0--dir\0exit status\0"; *w; w += strlen(w) + 1)
        cr_expect_not_null(strstr(r.out, w), "help mentions %s", w);
    kt_cli_run h = cli("--help", NULL), s = cli("-h", NULL);
    cr_expect_str_eq(h.out, r.out, "--help prints what help prints");
    cr_expect_str_eq(s.out, r.out, "-h prints what help prints");
    kt_cli_free(&r), kt_cli_free(&h), kt_cli_free(&s);
}

Test(kc_cli_info, per_command_help)
{
    for (int i = 0; i < N_COMMANDS; i++) {
        kt_cli_run r = cli("help", commands[i], NULL);
        cr_expect_eq(r.status, 0, "help %s: %s", commands[i], r.err);
        char usage[80];
        snprintf(usage, sizeof usage, "usage: hipdnn-cache%s %s", strcmp(commands[i], "help") ? " [--dir DIR] [--json]" : "",
                 commands[i]);
        cr_expect_eq(strncmp(r.out, usage, strlen(usage)), 0, "help %s starts with '%s': %s", commands[i], usage, r.out);
        cr_expect_null(strstr(r.out, "\ncommands:\n"), "help %s is that command's, not the list", commands[i]);
        kt_cli_run a = cli(commands[i], "--help", NULL), b = cli("--dir", dir, commands[i], "-h", NULL);
        cr_expect_eq(a.status, 0);
        cr_expect_str_eq(a.out, r.out, "%s --help prints help %s", commands[i], commands[i]);
        cr_expect_str_eq(b.out, r.out, "%s -h prints help %s", commands[i], commands[i]);
        kt_cli_free(&r), kt_cli_free(&a), kt_cli_free(&b);
    }
    /* each command's options are in its help, with their text */
    kt_cli_run r = cli("prune", "--help", NULL);
    cr_expect_not_null(strstr(r.out, "\noptions:\n  --max-size SIZE"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "--older-than AGE"), "%s", r.out);
    kt_cli_free(&r);
    r = cli("help", "warm", NULL);
    for (const char *w = "--arch ARCH\0--sm-count N\0--jobs N\0--all-configs\0--skip-unsupported\0"; *w;
         w += strlen(w) + 1)
        cr_expect_not_null(strstr(r.out, w), "help warm lists %s", w);
    kt_cli_free(&r);
    cr_expect(no_cache(), "help opened no cache");
}

Test(kc_cli_info, unknown_command_and_option_exit_2)
{
    kt_cli_run r = cli("--dir", dir, "frobnicate", NULL);
    kt_cli_expect_fail(&r, 2, "unknown command 'frobnicate'", "unknown command");
    cr_expect_not_null(strstr(r.err, "\nusage: hipdnn-cache [--dir DIR] [--json] COMMAND [ARGS]\n"), "%s", r.err);
    kt_cli_free(&r);
    r = cli("help", "frobnicate", NULL);
    kt_cli_expect_fail(&r, 2, "'frobnicate'", "help of an unknown command");
    kt_cli_free(&r);
    r = cli("frobnicate", "--help", NULL);
    kt_cli_expect_fail(&r, 2, "unknown command 'frobnicate'", "--help of an unknown command");
    kt_cli_free(&r);
    r = cli("--dir", dir, "stats", "--bogus", NULL);
    kt_cli_expect_fail(&r, 2, "unknown option '--bogus' for stats", "unknown option");
    cr_expect_not_null(strstr(r.err, "\nusage: hipdnn-cache [--dir DIR] [--json] stats\n"),
                       "the command's own usage line: %s", r.err);
    kt_cli_free(&r);
    r = cli("--version", "ls", NULL);
    kt_cli_expect_fail(&r, 2, "--version takes no command", "--version with a command");
    kt_cli_free(&r);
    r = cli("--man", "--json", NULL);
    kt_cli_expect_fail(&r, 2, "--man", "--man --json");
    kt_cli_free(&r);
    cr_expect(no_cache(), "no usage error opened the cache");
}

/* ---- --version ------------------------------------------------------------------------------- */

Test(kc_cli_info, version_text_and_json)
{
    rt_compiler_info nv;
    bool have_nvrtc = rt_compiler_for("sm_90", &nv) == HIPDNN_STATUS_SUCCESS;
    kt_cli_run r = cli("--version", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char want[256];
    snprintf(want, sizeof want, "hipdnn-cache (hipdnn-jit) %s\n", hipdnnVersionString_ext());
    cr_expect_eq(strncmp(r.out, want, strlen(want)), 0, "first line '%s': %s", want, r.out);
    snprintf(want, sizeof want, "record format %d, kernel key schema %d, plan key schema %d, plan recipe %d",
             KC_FORMAT_VERSION, FE_KERNEL_KEY_SCHEMA, FE_PLAN_KEY_SCHEMA, FE_PLAN_RECIPE_VERSION);
    cr_expect_not_null(strstr(r.out, want), "'%s' in: %s", want, r.out);
    if (have_nvrtc)
        snprintf(want, sizeof want, "nvrtc %d.%d (sm_* targets)", nv.major, nv.minor);
    else
        snprintf(want, sizeof want, "nvrtc: not found (sm_* targets)");
    cr_expect_not_null(strstr(r.out, want), "'%s' in: %s", want, r.out);
    cr_expect_not_null(strstr(r.out, "hiprtc"), "hipRTC is named, found or not: %s", r.out);
    kt_cli_free(&r);

    r = cli("--version", "--json", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    json_t *j = kt_cli_json(&r, "--version --json");
    cr_expect_str_eq(str(j, "library"), hipdnnVersionString_ext());
    json_t *s = json_object_get(j, "cache_schema");
    cr_expect_eq(num(s, "record_format"), KC_FORMAT_VERSION);
    cr_expect_eq(num(s, "kernel_key"), FE_KERNEL_KEY_SCHEMA);
    cr_expect_eq(num(s, "plan_key"), FE_PLAN_KEY_SCHEMA);
    cr_expect_eq(num(s, "plan_recipe"), FE_PLAN_RECIPE_VERSION);
    cr_expect_eq(num(s, "bundle_format"), KC_BUNDLE_VERSION);
    json_t *cc = json_object_get(j, "compilers");
    cr_assert_eq(json_array_size(cc), 2, "NVRTC and hipRTC: %s", r.out);
    json_t *first = json_array_get(cc, 0);
    cr_expect_str_eq(str(first, "id"), "nvrtc");
    cr_expect_str_eq(str(first, "targets"), "sm_");
    cr_expect_eq(json_is_true(json_object_get(first, "found")), have_nvrtc);
    if (have_nvrtc) {
        snprintf(want, sizeof want, "%d.%d", nv.major, nv.minor);
        cr_expect_str_eq(str(first, "version"), want);
    } else {
        cr_expect_gt(strlen(str(first, "reason")), 0, "a compiler not found says why");
    }
    cr_expect_str_eq(str(json_array_get(cc, 1), "id"), "hiprtc");
    json_decref(j);
    kt_cli_free(&r);
}

/* ---- the man page ---------------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s exists (the build writes it)", path);
    char *buf = calloc(1, 1 << 20);
    cr_assert_not_null(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

Test(kc_cli_info, man_page_lists_every_command)
{
    kt_cli_run r = cli("--man", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(strncmp(r.out, ".TH HIPDNN\\-CACHE 1 ", 20), 0, "a roff page: %.60s", r.out);
    const char *sections = ".SH NAME\0.SH SYNOPSIS\0.SH DESCRIPTION\0.SH COMMANDS\0.SH OPTIONS\0.SH EXIT STATUS\0";
    for (const char *w = sections; *w; w += strlen(w) + 1)
        cr_expect_not_null(strstr(r.out, w), "the page has %s", w);
    const char *cmds_section = strstr(r.out, ".SH COMMANDS\n");
    cr_assert_not_null(cmds_section);
    for (int i = 0; i < N_COMMANDS; i++) {
        char entry[40];
        snprintf(entry, sizeof entry, ".TP\n.B %s", commands[i]);
        cr_expect_not_null(strstr(cmds_section, entry), "COMMANDS has %s", commands[i]);
    }
    cr_expect_not_null(strstr(r.out, "\\-\\-older\\-than"), "hyphens escaped for roff");
    for (const char *p = r.out; (p = strchr(p, '\n')) != NULL; p++)
        cr_expect(p[1] != '\'' && !(p[1] == '.' && p[2] == ' '), "no line starts a stray request");
    char *built = slurp(HIPDNN_CACHE_MAN);
    cr_expect_str_eq(built, r.out, "the installed page is what --man prints");
    free(built);
    kt_cli_free(&r);
}

/* ---- --json everywhere --------------------------------------------------------------------------- */

static int64_t knobs[2] = {3, -1};

/* Kernels 1 and 2 and a plan of engine 7 whose recipe is not this library's. */
static void fill(void)
{
    kc_cache *c = kt_open(dir, 0, 0);
    kt_put(c, 1, 3001);
    kt_put(c, 2, 3002);
    kc_key ks[2];
    kt_key(1, &ks[0]), kt_key(2, &ks[1]);
    static const char recipe[] = "recipe bytes";
    kc_plan p = {.kernels = ks, .n_kernels = 2, .recipe = recipe, .recipe_size = sizeof recipe};
    kc_plan_key pk = {.engine_id = 7, .knobs = knobs, .n_knobs = 2};
    memset(pk.graph.b, 0x5a, KC_KEY_SIZE);
    TU_OK(kc_put_plan(c, &pk, &p));
    kc_close(c);
}

static void plan_hex(char out[2 * KC_KEY_SIZE + 1])
{
    kc_plan_key pk = {.engine_id = 7, .knobs = knobs, .n_knobs = 2};
    memset(pk.graph.b, 0x5a, KC_KEY_SIZE);
    kc_key k;
    kc_plan_key_hash(&pk, &k);
    kc_key_hex(&k, out);
}

static json_t *cli_json(const char *what, const char *const *args)
{
    kt_cli_run r = kt_cli_v(work, args);
    cr_expect_eq(r.status, 0, "%s: %s", what, r.err);
    json_t *j = kt_cli_json(&r, what);
    kt_cli_free(&r);
    return j;
}

Test(kc_cli_info, json_on_every_command)
{
    fill();
    char phex[2 * KC_KEY_SIZE + 1], k1[2 * KC_KEY_SIZE + 1], bundle[700], dir2[700];
    plan_hex(phex);
    kc_key k;
    kt_key(1, &k);
    kc_key_hex(&k, k1);
    snprintf(bundle, sizeof bundle, "%s/b.bundle", work);
    snprintf(dir2, sizeof dir2, "%s/second", work);

    json_t *j = cli_json("stats", (const char *[]){"--dir", dir, "--json", "stats", NULL});
    cr_expect_eq(num(j, "kernels"), 2);
    cr_expect_eq(num(j, "plans"), 1);
    json_decref(j);

    j = cli_json("ls", (const char *[]){"--dir", dir, "ls", "--json", NULL});
    cr_assert_eq(json_array_size(j), 3, "2 kernels and a plan");
    json_t *kern = json_array_get(j, 0), *plan = json_array_get(j, 2);
    cr_expect_str_eq(str(kern, "kind"), "kernel");
    cr_expect(json_is_integer(json_object_get(kern, "age_s")) && num(kern, "age_s") >= 0 && num(kern, "age_s") < 600);
    cr_expect(json_is_string(json_object_get(kern, "compiler_version")), "a kernel's compiler version");
    cr_expect(json_is_null(json_object_get(kern, "source_size")), "a test kernel carries no source");
    cr_expect_str_eq(str(plan, "key"), phex);
    cr_expect_str_eq(str(plan, "kind"), "plan");
    cr_expect(json_is_false(json_object_get(plan, "described")), "a recipe not of this library: undescribed");
    cr_expect(json_is_null(json_object_get(plan, "graph")));
    cr_expect_eq(num(plan, "engine_id"), 7);
    cr_expect_str_eq(str(plan, "engine"), "", "no engine 7 here");
    cr_expect_eq(num(json_object_get(plan, "knobs"), "knob_0"), 3);
    cr_expect_eq(num(json_object_get(plan, "knobs"), "knob_1"), -1);
    cr_expect_eq(num(plan, "n_kernels"), 2);
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(plan, "kernels"), 0)), k1);
    json_decref(j);

    j = cli_json("show plan", (const char *[]){"--dir", dir, "--json", "show", phex, NULL});
    cr_expect_str_eq(str(j, "kind"), "plan");
    cr_expect_eq(num(j, "n_kernels"), 2);
    cr_expect_eq(num(json_object_get(j, "knobs"), "knob_1"), -1);
    json_decref(j);
    j = cli_json("show kernel", (const char *[]){"--dir", dir, "--json", "show", k1, NULL});
    cr_expect_str_eq(str(j, "kind"), "kernel");
    cr_expect_eq(num(j, "code_size"), 3001);
    json_decref(j);

    j = cli_json("verify", (const char *[]){"--dir", dir, "--json", "verify", NULL});
    cr_expect_eq(json_array_size(json_object_get(j, "bad")), 0);
    json_decref(j);
    j = cli_json("export", (const char *[]){"--dir", dir, "--json", "export", bundle, NULL});
    cr_expect_str_eq(str(j, "action"), "export");
    cr_expect_str_eq(str(j, "file"), bundle);
    cr_expect_eq(num(j, "records"), 3);
    json_decref(j);
    j = cli_json("import", (const char *[]){"--dir", dir2, "--json", "import", bundle, NULL});
    cr_expect_str_eq(str(j, "action"), "import");
    cr_expect_eq(num(j, "records"), 3);
    json_decref(j);
    j = cli_json("prune", (const char *[]){"--dir", dir2, "--json", "prune", "--max-size", "0", NULL});
    cr_expect_eq(num(j, "removed"), 3, "--max-size 0 empties the cache");
    cr_expect_eq(num(j, "max_size"), 0);
    json_decref(j);
}

/* ls and show in text: the plan's engine id and knobs, a kernel's sizes; listing is no use. */
Test(kc_cli_info, ls_and_show_text_of_an_undescribed_plan)
{
    fill();
    char phex[2 * KC_KEY_SIZE + 1];
    plan_hex(phex);
    json_t *before = cli_json("ls", (const char *[]){"--dir", dir, "--json", "ls", NULL});
    kt_cli_run r = cli("--dir", dir, "ls", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "KIND    KEY"), "a header: %s", r.out);
    cr_expect_not_null(strstr(r.out, "kt_kernel_1 (nvrtc 12.4; code 2.9 KiB, source none)"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "(a recipe this library does not read); engine ?, 2 kernels"), "%s", r.out);
    kt_cli_free(&r);
    r = cli("--dir", dir, "show", phex, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "engine     unknown (id 7)\nknobs      knob_0=3 knob_1=-1\nkernels    2\n"),
                       "%s", r.out);
    kt_cli_free(&r);
    json_t *after = cli_json("ls", (const char *[]){"--dir", dir, "--json", "ls", NULL});
    for (size_t i = 0; i < json_array_size(before); i++)
        cr_expect_eq(num(json_array_get(after, i), "last_used"), num(json_array_get(before, i), "last_used"),
                     "ls and show do not count as a use (record %zu)", i);
    json_decref(before), json_decref(after);
}
