/* test_kc_cli.c — the hipdnn-cache tool (tools/hipdnn_cache.c), run as a subprocess.
 *
 * Owns: every subcommand against caches in mkdtemp directories filled through kc_ (then
 * closed, so the tool is the only writer): ls / stats / verify JSON parsed back and compared
 * with what was put, verify reporting a corrupted record and --fix removing it, prune by age
 * and by size, export / import into a second directory, a bad bundle rejected with the target
 * unchanged, and exit statuses (0, 1 with one line on stderr, 2 for usage errors).
 * The binary's path comes from the build (HIPDNN_CACHE_CLI; kt_cli.h runs it). warm and show:
 * test_kc_warm.c.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "kt_util.h"
#include "kt_cli.h"

#define CODE 3000
#define DAY 86400

static char *dir, *work;

static void setup(void) { kt_dirs_make(&dir, &work); }
static void teardown(void) { kt_dirs_remove(dir, work); }

TestSuite(kc_cli, .init = setup, .fini = teardown);

/* ---- running the tool (kt_cli.h) ----------------------------------------------------------- */

typedef kt_cli_run cli_run;

static cli_run cli_v(const char *const *args) { return kt_cli_v(work, args); }

/* As cli_v, with the arguments listed (NULL-terminated). */
#define cli(...) kt_cli(work, __VA_ARGS__)

#define cli_free kt_cli_free
#define expect_fail kt_cli_expect_fail
#define parse_json kt_cli_json

static void key_hex(uint64_t id, char hex[2 * KC_KEY_SIZE + 1])
{
    kc_key k;
    kt_key(id, &k);
    kc_key_hex(&k, hex);
}

/* ---- filling caches ------------------------------------------------------------------------ */

static int64_t knobs[2] = {3, -1};

static kc_plan_key plan_key(void)
{
    kc_plan_key pk = {.engine_id = 7, .knobs = knobs, .n_knobs = 2};
    memset(pk.graph.b, 0x5a, KC_KEY_SIZE);
    return pk;
}

static void put_plan(kc_cache *c)
{
    kc_key ks[2];
    kt_key(1, &ks[0]);
    kt_key(2, &ks[1]);
    static const char recipe[] = "recipe bytes";
    kc_plan p = {.kernels = ks, .n_kernels = 2, .recipe = recipe, .recipe_size = sizeof recipe};
    kc_plan_key pk = plan_key();
    TU_OK(kc_put_plan(c, &pk, &p));
}

/* Kernels 1..n (kernel i has CODE + i code bytes) and one plan; returns the stored bytes. */
static uint64_t fill(const char *d, int n)
{
    kc_cache *c = kt_open(d, 0, 0);
    for (int i = 1; i <= n; i++)
        kt_put(c, (uint64_t)i, CODE + (size_t)i);
    put_plan(c);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    kc_close(c);
    return s.bytes;
}

/* The keys ls --json lists, as a count and whether kernel i is among them (bit i). */
static unsigned listed_kernels(const char *d, size_t *n)
{
    cli_run r = cli("--dir", d, "--json", "ls", NULL);
    cr_assert_eq(r.status, 0, "ls: %s", r.err);
    json_t *arr = parse_json(&r, "ls");
    *n = json_array_size(arr);
    unsigned mask = 0;
    for (uint64_t i = 0; i < 32; i++) {
        char hex[2 * KC_KEY_SIZE + 1];
        key_hex(i, hex);
        size_t k;
        json_t *e;
        json_array_foreach(arr, k, e)
            if (strcmp(json_string_value(json_object_get(e, "key")), hex) == 0)
                mask |= 1u << i;
    }
    json_decref(arr);
    cli_free(&r);
    return mask;
}

/* ---- tests --------------------------------------------------------------------------------- */

Test(kc_cli, help)
{
    cli_run r = cli("--help", NULL);
    cr_expect_eq(r.status, 0);
    const char *words[] = {"usage:", "ls", "stats", "verify", "--fix", "prune", "--max-size", "--older-than",
                           "export", "import", "--dir", "--json"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        cr_expect_not_null(strstr(r.out, words[i]), "--help mentions %s", words[i]);
    cli_free(&r);
}

Test(kc_cli, usage_errors)
{
    char missing[700];
    snprintf(missing, sizeof missing, "%s/not_here", work);
    struct {
        const char *args[7], *needle;
    } cases[] = {
        {{NULL}, "no command"},
        {{"--dir", missing, "frobnicate", NULL}, "frobnicate"},
        {{"--dir", missing, "ls", "--bogus", NULL}, "--bogus"},
        {{"--dir", missing, "ls", "extra", NULL}, "extra"},
        {{"--dir", missing, "ls", "--fix", NULL}, "--fix"},
        {{"--dir", missing, "help", "frobnicate", NULL}, "frobnicate"},
        {{"--dir", missing, "prune", NULL}, "prune needs"},
        {{"--dir", missing, "prune", "--max-size", "12X", NULL}, "12X"},
        {{"--dir", missing, "prune", "--max-size", "-5", NULL}, "-5"},
        {{"--dir", missing, "prune", "--older-than", "soon", NULL}, "soon"},
        {{"--dir", missing, "prune", "--older-than", NULL}, "--older-than"},
        {{"--dir", missing, "stats", "--max-size", "1G", NULL}, "prune"},
        {{"--dir", missing, "export", NULL}, "FILE"},
        {{"--dir", missing, "import", "a", "b", NULL}, "'b'"},
        {{"--dir", NULL}, "--dir"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_run r = cli_v(cases[i].args);
        char what[64];
        snprintf(what, sizeof what, "usage case %zu", i);
        expect_fail(&r, 2, cases[i].needle, what);
        cli_free(&r);
    }
    struct stat st;
    cr_expect_neq(stat(missing, &st), 0, "no usage error creates the directory");
}

Test(kc_cli, missing_directory)
{
    char missing[700], file[700];
    snprintf(missing, sizeof missing, "%s/not_here", work);
    snprintf(file, sizeof file, "%s/out.bundle", work);
    const char *cases[][7] = {
        {"--dir", missing, "ls", NULL},
        {"--dir", missing, "verify", "--fix", NULL},
        {"--dir", missing, "prune", "--max-size", "1M", NULL},
        {"--dir", missing, "export", file, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_run r = cli_v(cases[i]);
        expect_fail(&r, 1, missing, cases[i][2]);
        cli_free(&r);
        struct stat st;
        cr_expect_neq(stat(missing, &st), 0, "%s does not create the directory", cases[i][2]);
    }
}

/* stats before the first warm: zeros and success, in text and JSON; nothing created. */
Test(kc_cli, stats_of_a_missing_cache_is_zeros)
{
    char missing[700];
    snprintf(missing, sizeof missing, "%s/not_here", work);
    cli_run r = cli("--dir", missing, "stats", NULL);
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "kernels    0\n") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "missing") != NULL, "%s", r.out);
    cli_free(&r);
    r = cli("--dir", missing, "--json", "stats", NULL);
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    json_t *j = parse_json(&r, "stats --json");
    cr_expect_eq(json_integer_value(json_object_get(j, "kernels")), 0);
    cr_expect_eq(json_integer_value(json_object_get(j, "plans")), 0);
    cr_expect_str_eq(json_string_value(json_object_get(j, "mode")), "missing");
    json_decref(j);
    cli_free(&r);
    struct stat st;
    cr_expect_neq(stat(missing, &st), 0, "stats does not create the directory");
}

Test(kc_cli, ls_json_and_text)
{
    fill(dir, 5);
    cli_run r = cli("--dir", dir, "--json", "ls", NULL);
    cr_assert_eq(r.status, 0, "ls --json: %s", r.err);
    json_t *arr = parse_json(&r, "ls");
    cr_assert(json_is_array(arr));
    cr_assert_eq(json_array_size(arr), 6, "5 kernels and a plan");
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < 5; i++) {
        /* kernels come first, in key order: find kernel id by key */
        json_t *e = json_array_get(arr, i);
        const char *key = json_string_value(json_object_get(e, "key"));
        uint64_t id = 0;
        for (uint64_t j = 1; j <= 5; j++) {
            char hex[2 * KC_KEY_SIZE + 1];
            key_hex(j, hex);
            if (key != NULL && strcmp(key, hex) == 0)
                id = j;
        }
        cr_assert_neq(id, 0, "entry %zu's key %s is one of the kernels put", i, key);
        char entry[48];
        snprintf(entry, sizeof entry, "kt_kernel_%llu", (unsigned long long)id);
        cr_expect_str_eq(json_string_value(json_object_get(e, "kind")), "kernel");
        cr_expect_str_eq(json_string_value(json_object_get(e, "arch")), id % 2 ? "sm_90" : "gfx942");
        cr_expect_str_eq(json_string_value(json_object_get(e, "entry")), entry);
        cr_expect_eq(json_integer_value(json_object_get(e, "code_size")), CODE + (json_int_t)id);
        cr_expect_geq(json_integer_value(json_object_get(e, "size")), CODE + (json_int_t)id);
        cr_expect(json_is_true(json_object_get(e, "valid")));
        json_int_t created = json_integer_value(json_object_get(e, "created"));
        cr_expect(created > now - 600 && created <= now + 1, "created %lld is about now", (long long)created);
    }
    json_t *p = json_array_get(arr, 5);
    cr_expect_str_eq(json_string_value(json_object_get(p, "kind")), "plan");
    kc_plan_key pk = plan_key();
    kc_key pkey;
    kc_plan_key_hash(&pk, &pkey);
    char phex[2 * KC_KEY_SIZE + 1];
    kc_key_hex(&pkey, phex);
    cr_expect_str_eq(json_string_value(json_object_get(p, "key")), phex);
    json_decref(arr);
    cli_free(&r);

    r = cli("--dir", dir, "ls", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_not_null(strstr(r.out, "KEY"), "a header line");
    for (uint64_t i = 1; i <= 5; i++) {
        char hex[2 * KC_KEY_SIZE + 1], entry[48];
        key_hex(i, hex);
        snprintf(entry, sizeof entry, "kt_kernel_%llu", (unsigned long long)i);
        cr_expect_not_null(strstr(r.out, hex), "ls shows kernel %llu's key", (unsigned long long)i);
        cr_expect_not_null(strstr(r.out, entry), "ls shows %s", entry);
    }
    cr_expect_not_null(strstr(r.out, phex), "ls shows the plan");
    cli_free(&r);
}

Test(kc_cli, stats_json_and_text)
{
    uint64_t bytes = fill(dir, 4);
    cli_run r = cli("--json", "stats", "--dir", dir, NULL);
    cr_assert_eq(r.status, 0, "stats --json: %s", r.err);
    json_t *j = parse_json(&r, "stats");
    cr_expect_eq(json_integer_value(json_object_get(j, "kernels")), 4);
    cr_expect_eq(json_integer_value(json_object_get(j, "plans")), 1);
    cr_expect_eq((uint64_t)json_integer_value(json_object_get(j, "bytes")), bytes);
    cr_expect_str_eq(json_string_value(json_object_get(j, "dir")), dir);
    cr_expect_str_eq(json_string_value(json_object_get(j, "mode")), "read-write");
    cr_expect_gt(json_integer_value(json_object_get(j, "map_size")), 0);
    json_decref(j);
    cli_free(&r);

    r = cli("--dir", dir, "stats", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_not_null(strstr(r.out, "kernels    4\n"), "text stats: %s", r.out);
    cr_expect_not_null(strstr(r.out, "plans      1\n"), "text stats: %s", r.out);
    cli_free(&r);
}

Test(kc_cli, default_dir_from_env)
{
    fill(dir, 2);
    setenv("HIPDNN_CACHE_DIR", dir, 1);
    cli_run r = cli("--json", "stats", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r, "stats");
    cr_expect_eq(json_integer_value(json_object_get(j, "kernels")), 2, "HIPDNN_CACHE_DIR is the default");
    json_decref(j);
    cli_free(&r);
}

Test(kc_cli, verify_reports_and_fixes)
{
    fill(dir, 4);
    /* flip one code byte of kernel 2, through LMDB directly (no handle is open) */
    kc_key k2;
    kt_key(2, &k2);
    size_t len;
    uint8_t *v = kt_raw_get(dir, "kernels", k2.b, KC_KEY_SIZE, &len);
    cr_assert_not_null(v);
    v[len - 1 - (size_t)tu_range(0, CODE - 1)] ^= (uint8_t)tu_range(1, 255);
    kt_raw_put(dir, "kernels", k2.b, KC_KEY_SIZE, v, len);
    free(v);
    char hex2[2 * KC_KEY_SIZE + 1];
    kc_key_hex(&k2, hex2);

    cli_run r = cli("--dir", dir, "verify", NULL);
    cr_expect_eq(r.status, 1, "bad records without --fix fail");
    cr_expect_not_null(strstr(r.out, hex2), "verify names kernel 2: %s", r.out);
    cr_expect_not_null(strstr(r.err, "1 bad record"), "stderr says why: %s", r.err);
    cr_expect_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line on stderr");
    cli_free(&r);

    r = cli("--dir", dir, "--json", "verify", NULL);
    cr_expect_eq(r.status, 1);
    json_t *j = parse_json(&r, "verify");
    json_t *bad = json_object_get(j, "bad");
    cr_assert_eq(json_array_size(bad), 1, "one bad record: %s", r.out);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(bad, 0), "key")), hex2);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(bad, 0), "kind")), "kernel");
    cr_expect_gt(strlen(json_string_value(json_object_get(json_array_get(bad, 0), "reason"))), 0);
    cr_expect(json_is_false(json_object_get(j, "fixed")));
    json_decref(j);
    cli_free(&r);

    size_t n;
    cr_expect_eq(listed_kernels(dir, &n), 0x1eu, "verify without --fix deletes nothing");
    r = cli("--dir", dir, "verify", "--fix", NULL);
    cr_expect_eq(r.status, 0, "--fix succeeds: %s", r.err);
    cr_expect_not_null(strstr(r.out, hex2));
    cli_free(&r);
    cr_expect_eq(listed_kernels(dir, &n), 0x1au, "kernel 2 is gone, 1, 3, 4 stay");
    cr_expect_eq(n, 4, "3 kernels and the plan");

    r = cli("--dir", dir, "--json", "verify", NULL);
    cr_expect_eq(r.status, 0, "clean after --fix");
    j = parse_json(&r, "verify after fix");
    cr_expect_eq(json_array_size(json_object_get(j, "bad")), 0);
    json_decref(j);
    cli_free(&r);

    kc_cache *c = kt_open(dir, 0, 0);
    for (uint64_t i = 1; i <= 4; i++)
        cr_expect_eq(kt_get(c, i, CODE + i), i == 2 ? 0 : 1, "kernel %llu", (unsigned long long)i);
    kc_close(c);
}

Test(kc_cli, prune_by_age)
{
    int64_t now = (int64_t)time(NULL);
    kc_cache *c = kt_open(dir, 0, 0);
    for (uint64_t i = 0; i < 6; i++) {
        kt_clock_set(i < 3 ? now - 40 * DAY : now - 3600); /* 0..2: 40 days old, 3..5: 1 hour */
        kt_put(c, i, CODE);
    }
    kc_close(c);
    kt_clock_off();

    size_t n;
    cli_run r = cli("--dir", dir, "prune", "--older-than", "2h", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "removed 3 records\n");
    cli_free(&r);
    cr_expect_eq(listed_kernels(dir, &n), 0x38u, "the 40-day-old kernels went");

    r = cli("--dir", dir, "prune", "--older-than=30d", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out, "removed 0 records\n");
    cli_free(&r);
    r = cli("--dir", dir, "prune", "--older-than", "1800", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out, "removed 3 records\n", "bare seconds: %s", r.out);
    cli_free(&r);
    cr_expect_eq(listed_kernels(dir, &n), 0);
    cr_expect_eq(n, 0);
}

Test(kc_cli, prune_by_size)
{
    int64_t now = (int64_t)time(NULL);
    kc_cache *c = kt_open(dir, 0, 0);
    for (uint64_t i = 0; i < 8; i++) {
        kt_clock_set(now - 1000 + (int64_t)i); /* kernel 0 is the least recently used */
        kt_put(c, i, 10000);
    }
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    kc_close(c);
    kt_clock_off();
    uint64_t one = s.bytes / 8;
    cr_assert_eq(s.bytes, 8 * one, "equal records");

    size_t n;
    cli_run r = cli("--dir", dir, "prune", "--max-size", "64M", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out, "removed 0 records\n");
    cli_free(&r);
    char limit[32];
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)(3 * one));
    r = cli("--dir", dir, "prune", "--max-size", limit, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "removed 5 records\n");
    cli_free(&r);
    cr_expect_eq(listed_kernels(dir, &n), 0xe0u, "the 3 most recently used stay");
    cr_expect_eq(n, 3);
    r = cli("--dir", dir, "prune", "--max-size", "1K", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out, "removed 3 records\n", "1K holds no 10000-byte record: %s", r.out);
    cli_free(&r);
}

Test(kc_cli, prune_to_zero)
{
    fill(dir, 3);
    cli_run r = cli("--dir", dir, "prune", "--max-size", "0", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "removed 4 records\n", "a limit of 0 bytes empties the cache: %s", r.out);
    cli_free(&r);
    size_t n;
    listed_kernels(dir, &n);
    cr_expect_eq(n, 0);
}

Test(kc_cli, export_import_round_trip)
{
    fill(dir, 5);
    char *dir2 = kt_tmpdir(), into[700];
    snprintf(into, sizeof into, "%s/new/cache", dir2); /* import creates it */
    char bundle[700];
    snprintf(bundle, sizeof bundle, "%s/cache.bundle", work);
    cli_run r = cli("--dir", dir, "export", bundle, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "exported 6 records"), "%s", r.out);
    cli_free(&r);
    r = cli("--dir", into, "import", bundle, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "imported 6 records"), "%s", r.out);
    cli_free(&r);

    kc_cache *c = kt_open(into, 0, 0);
    for (uint64_t i = 1; i <= 5; i++)
        cr_expect_eq(kt_get(c, i, CODE + i), 1, "kernel %llu arrived intact", (unsigned long long)i);
    kc_plan_key pk = plan_key();
    kc_plan p;
    cr_assert(kc_get_plan(c, &pk, &p), "the plan arrived");
    kc_key k1;
    kt_key(1, &k1);
    cr_expect_eq(p.n_kernels, 2);
    cr_expect_arr_eq(p.kernels[0].b, k1.b, KC_KEY_SIZE);
    cr_expect_str_eq((const char *)p.recipe, "recipe bytes");
    kc_plan_release(&p);
    kt_expect_clean(c, "after import");
    kc_close(c);
    kt_rmrf(dir2);
}

Test(kc_cli, bad_bundle_rejected)
{
    fill(dir, 3);
    kc_cache *c = kt_open(dir, 0, 0);
    kt_snapshot before = kt_snap(c);
    kc_close(c);

    /* garbage, a truncated real bundle, a missing file */
    char garbage[700], cut[700], missing[700];
    snprintf(garbage, sizeof garbage, "%s/garbage.bundle", work);
    snprintf(cut, sizeof cut, "%s/cut.bundle", work);
    snprintf(missing, sizeof missing, "%s/missing.bundle", work);
    uint8_t junk[4096];
    tu_bytes(junk, sizeof junk);
    FILE *f = fopen(garbage, "wb");
    cr_assert_not_null(f);
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    char *other = kt_tmpdir();
    fill(other, 6);
    c = kt_open(other, 0, 0);
    uint8_t *b;
    size_t len, nrec;
    TU_OK(kc_export_mem(c, &b, &len, &nrec));
    kc_close(c);
    kt_rmrf(other);
    f = fopen(cut, "wb");
    cr_assert_not_null(f);
    fwrite(b, 1, len - (size_t)tu_range(1, (int64_t)len / 2), f);
    fclose(f);
    base_free(b);

    const char *files[] = {garbage, cut, missing};
    for (size_t i = 0; i < 3; i++) {
        cli_run r = cli("--dir", dir, "import", files[i], NULL);
        expect_fail(&r, 1, files[i], "a bad bundle");
        cr_expect_not_null(strstr(r.err, "import"), "stderr names the command: %s", r.err);
        cli_free(&r);
    }
    c = kt_open(dir, 0, 0);
    kt_snapshot after = kt_snap(c);
    kc_close(c);
    cr_expect_eq(after.kernels, before.kernels);
    cr_expect_eq(after.plans, before.plans);
    cr_expect_eq(after.bytes, before.bytes);
    cr_expect_eq(after.digest, before.digest, "the cache is unchanged");
}
