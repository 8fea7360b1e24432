/* test_kc_damage.c — a damaged data.mdb never takes a process down (issue 14, items 1 and 2).
 *
 * Owns: a populated cache's data.mdb cut short at many random lengths (and the page
 * boundaries), opened through the library (kc_open) and through the hipdnn-cache tool (ls,
 * verify, verify --fix, warm): no signal, the cut file moved aside byte for byte with a warning
 * that says so, and a working (empty) cache after — or, when the cut removed only free pages,
 * every record intact; and random bit flips in a populated data.mdb (many seeded runs: anywhere,
 * in LMDB's branch and leaf pages, in the meta pages) repaired by `verify --fix`: it exits
 * cleanly (the sanitizer build turns any memory error into a failure), and leaves a cache that
 * `verify` passes holding only records that verify and match what was stored; the fix under
 * allocation failures; the fix refused, changing nothing, while another process has the
 * cache open; and only the newest moved-aside file kept.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "hipdnn_jit.h"
#include "kt_cli.h"
#include "kt_util.h"
#include "runtime/rt.h"

#define N_KERNELS 160 /* mostly small (records inside leaf pages: several levels of tree pages) */
#define N_PLANS 12

static char *tmpl, *dir, *work;
static uint8_t *image;   /* the populated template's data.mdb */
static size_t image_len;

static size_t code_size(uint64_t id)
{
    return id % 8 == 0 ? 2000 + (size_t)((id * 7919u) % 30000u) : 40 + (size_t)((id * 131u) % 900u);
}

static void plan_key(uint64_t i, int64_t knobs[2], kc_plan_key *pk)
{
    knobs[0] = (int64_t)i, knobs[1] = 7;
    *pk = (kc_plan_key){.engine_id = 3, .knobs = knobs, .n_knobs = 2};
    memset(pk->graph.b, (int)(0x30 + i), KC_KEY_SIZE);
}

/* A template cache of kernels (inline and overflow records) and plans; its data file image. */
static void populate(void)
{
    kc_cache *c = kt_open(tmpl, 0, 0);
    for (uint64_t i = 0; i < N_KERNELS; i++)
        kt_put(c, i, code_size(i));
    for (uint64_t i = 0; i < N_PLANS; i++) {
        int64_t knobs[2];
        kc_plan_key pk;
        plan_key(i, knobs, &pk);
        kc_key kernels[2];
        kt_key(i, &kernels[0]), kt_key(i + 1, &kernels[1]);
        uint8_t recipe[300];
        memset(recipe, (int)i, sizeof recipe);
        kc_plan p = {.kernels = kernels, .n_kernels = 2, .recipe = recipe, .recipe_size = sizeof recipe};
        TU_OK(kc_put_plan(c, &pk, &p));
    }
    kc_close(c);
    char path[600];
    snprintf(path, sizeof path, "%s/data.mdb", tmpl);
    image = (uint8_t *)tu_read_file(path, &image_len);
    cr_assert_not_null(image);
    cr_assert_gt(image_len, 16 * 4096, "a data file of several pages (%zu bytes)", image_len);
}

static void setup(void)
{
    tmpl = kt_tmpdir();
    dir = NULL;
    work = kt_tmpdir();
    populate();
}

static void teardown(void)
{
    free(image);
    kt_rmrf(tmpl);
    kt_rmrf(work);
    if (dir != NULL)
        kt_rmrf(dir);
}

TestSuite(kc_damage, .init = setup, .fini = teardown, .timeout = 600);

/* A fresh directory holding `len` bytes of data (a damaged data.mdb). */
static char *cache_with(const uint8_t *data, size_t len)
{
    char *d = kt_tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/data.mdb", d);
    kt_write_file(path, data, len);
    return d;
}

/* Kernels that hit with the stored content; any wrong content is a failure. */
static int hits(kc_cache *c, const char *what)
{
    int n = 0;
    for (uint64_t i = 0; i < N_KERNELS; i++) {
        int r = kt_get(c, i, code_size(i));
        cr_expect_neq(r, -1, "%s: kernel %llu came back with other content", what, (unsigned long long)i);
        n += r == 1;
    }
    return n;
}

/* The moved-aside file, if any: its name in d (data.mdb.corrupt-*) and its bytes equal `want`. */
static bool moved_aside(const char *d, const uint8_t *want, size_t want_len, const char *what)
{
    char name[256], path[600];
    if (!kt_find_entry(d, "data.mdb.corrupt-", name, sizeof name))
        return false;
    snprintf(path, sizeof path, "%s/%s", d, name);
    size_t len;
    uint8_t *got = (uint8_t *)tu_read_file(path, &len);
    cr_expect(got != NULL && len == want_len && memcmp(got, want, len) == 0,
              "%s: %s holds the damaged file unchanged (%zu of %zu bytes)", what, name, len, want_len);
    free(got);
    return true;
}

/* Each damaged file can be as large as the cache: moving a new one aside removes the older ones
 * (a name of that pattern, whatever it holds), and only the newest stays, byte for byte. */
Test(kc_damage, only_the_newest_damaged_file_is_kept)
{
    dir = cache_with(image, 4097);
    char older[600], other[600];
    snprintf(older, sizeof older, "%s/data.mdb.corrupt-20200101T000000Z-1", dir);
    snprintf(other, sizeof other, "%s/data.mdb.keep-me", dir);
    kt_write_file(older, "old damage", 10);
    kt_write_file(other, "not ours", 8);
    kt_count_warnings("damaged");
    kc_options o = {.dir = dir, .no_sync = true};
    kc_cache *c = NULL;
    TU_OK(kc_open(&o, &c));
    kc_close(c);
    cr_expect(moved_aside(dir, image, 4097, "the new damaged file"), "the damaged data.mdb was moved aside");
    struct stat st;
    cr_expect_neq(stat(older, &st), 0, "the older damaged file is removed");
    cr_expect_eq(stat(other, &st), 0, "files of other names are left alone");
    int n = 0;
    char name[256];
    DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "data.mdb.corrupt-", 17) == 0 && snprintf(name, sizeof name, "%s", e->d_name) > 0;
    if (d != NULL)
        closedir(d);
    cr_expect_eq(n, 1, "one damaged file kept (%d)", n);
    cr_expect_eq(kt_warnings(), 2, "a warning for the move and one for the removal (%d)", kt_warnings());
    kt_rmrf(dir);
    dir = NULL;
}

/* The lengths to cut at: the page boundaries around the meta pages, the end, and random ones. */
static size_t cut_length(int trial)
{
    static const size_t fixed[] = {1, 100, 151, 4095, 4096, 4097, 8191, 8192, 8193};
    size_t n_fixed = sizeof fixed / sizeof fixed[0];
    if ((size_t)trial < n_fixed)
        return fixed[trial];
    if ((size_t)trial == n_fixed)
        return image_len - 1;
    if ((size_t)trial == n_fixed + 1)
        return image_len - 4096;
    return (size_t)tu_range(1, (int64_t)image_len - 1);
}

/* Kernel 1000 (stored just before) is found in dir opened afresh; then dir is removed. */
static void expect_works_then_remove(const char *what)
{
    kc_cache *c = kt_open(dir, 0, 0);
    cr_expect_eq(kt_get(c, 1000, 5000), 1, "%s: the cache works after", what);
    kc_close(c);
    kt_rmrf(dir);
    dir = NULL;
}

/* One cut through the library: the open succeeds read-write, and the cache works after. */
static void library_trial(int trial, size_t len)
{
    char what[96];
    snprintf(what, sizeof what, "trial %d (cut at %zu of %zu bytes)", trial, len, image_len);
    fprintf(stderr, "kc_damage: %s\n", what); /* names the cut if the process dies */
    dir = cache_with(image, len);
    kt_count_warnings("data.mdb");
    kc_options o = {.dir = dir, .no_sync = true};
    kc_cache *c = NULL;
    TU_OK(kc_open(&o, &c));
    cr_expect_eq(kc_get_mode(c), KC_MODE_READ_WRITE, "%s: mode %s", what, kc_mode_name(kc_get_mode(c)));
    bool moved = moved_aside(dir, image, len, what);
    int n = hits(c, what);
    if (moved) {
        cr_expect_eq(n, 0, "%s: the cache starts empty", what);
        cr_expect_eq(kt_warnings(), 1, "%s: one warning (%d)", what, kt_warnings());
        cr_expect(strstr(kt_last_warning(), "moved") != NULL && strstr(kt_last_warning(), "damaged") != NULL,
                  "%s: the warning says what happened: %s", what, kt_last_warning());
    } else {
        cr_expect_eq(n, N_KERNELS, "%s: not moved aside, so every record is intact (%d hit)", what, n);
    }
    kt_put(c, 1000, 5000);
    kt_expect_clean(c, what);
    kc_close(c);
    expect_works_then_remove(what);
}

Test(kc_damage, truncated_data_file_through_the_library)
{
    tu_seed("kc_damage/truncated_data_file_through_the_library");
    for (int trial = 0; trial < 45; trial++)
        library_trial(trial, cut_length(trial));
}

/* ---- the hipdnn-cache tool ------------------------------------------------------------------- */

#define cli(...) kt_cli(work, __VA_ARGS__)

static bool have_nvrtc(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS;
}

/* No signal and no sanitizer report: the run ended by exit(). */
static void expect_clean_exit(const kt_cli_run *r, const char *what)
{
    cr_expect_neq(r->status, -1, "%s: ended by a signal; stderr: %s", what, r->err);
    cr_expect(strstr(r->err, "Sanitizer") == NULL && strstr(r->err, "runtime error") == NULL,
              "%s: a sanitizer report: %s", what, r->err);
}

static void cli_trial(int trial, size_t len, const char *const *cmd, const char *name)
{
    char what[160];
    snprintf(what, sizeof what, "trial %d: %s on a data.mdb cut at %zu of %zu bytes", trial, name, len, image_len);
    dir = cache_with(image, len);
    const char *args[16] = {"--dir", dir};
    int n = 2;
    for (int i = 0; cmd[i] != NULL; i++)
        args[n++] = cmd[i];
    args[n] = NULL;
    kt_cli_run r = kt_cli_v(work, args);
    expect_clean_exit(&r, what);
    cr_expect_eq(r.status, 0, "%s: exit %d; stderr: %s", what, r.status, r.err);
    if (moved_aside(dir, image, len, what))
        cr_expect(strstr(r.err, "damaged") != NULL && strstr(r.err, "moved") != NULL,
                  "%s: stderr warns that data.mdb was damaged and moved: %s", what, r.err);
    kt_cli_free(&r);
    r = cli("--dir", dir, "verify", NULL);
    expect_clean_exit(&r, what);
    cr_expect_eq(r.status, 0, "%s: then verify passes: %s%s", what, r.out, r.err);
    kt_cli_free(&r);
    kc_cache *c = kt_open(dir, 0, 0);
    kt_put(c, 1000, 5000);
    kc_close(c);
    expect_works_then_remove(what);
}

Test(kc_damage, truncated_data_file_through_the_tool)
{
    tu_seed("kc_damage/truncated_data_file_through_the_tool");
    const char *ls[] = {"ls", NULL}, *verify[] = {"verify", NULL}, *fix[] = {"verify", "--fix", NULL};
    const char *warm[] = {"warm", "--arch", "sm_90", "--jobs", "1", HIPDNN_SOURCE_DIR "/examples/graphs/layernorm.json",
                          NULL};
    bool nvrtc = have_nvrtc();
    if (!nvrtc)
        cr_log_warn("no NVRTC: warm is left out");
    for (int trial = 0; trial < 16; trial++) {
        size_t len = cut_length(trial < 4 ? trial * 3 : trial + 2);
        cli_trial(trial, len, ls, "ls");
        cli_trial(trial, len, verify, "verify");
        cli_trial(trial, len, fix, "verify --fix");
        if (nvrtc && trial % 2 == 0)
            cli_trial(trial, len, warm, "warm");
    }
}

/* ---- bit flips ---------------------------------------------------------------------------------- */

/* Every kernel and plan a cache lists verifies, and each kernel equals what was stored. */
static void expect_only_good_records(const char *d, const char *what)
{
    kc_cache *c = kt_open(d, 0, 0);
    kt_expect_clean(c, what);
    kc_entry *en;
    size_t n;
    TU_OK(kc_list(c, &en, &n));
    size_t kernels = 0;
    for (size_t i = 0; i < n; i++) {
        cr_expect(en[i].valid, "%s: listed record %zu is valid", what, i);
        kernels += en[i].table == KC_TABLE_KERNEL;
    }
    base_free(en);
    int n_hits = hits(c, what);
    cr_expect_eq((size_t)n_hits, kernels, "%s: every listed kernel is one that was stored (%d of %zu)", what,
                 n_hits, kernels);
    kc_close(c);
}

/* A byte to flip: anywhere in the file, or (where = 1) in a branch or leaf page — LMDB's own
 * structure, the pages whose damage it does not survive — or (where = 2) in the meta pages. The
 * page kinds are read from the pages' flags (u16 at byte 10 of each 4096-byte page). */
static size_t flip_at(int where)
{
    size_t pages = image_len / 4096;
    for (int tries = 0; where == 1 && tries < 1000; tries++) {
        size_t pg = (size_t)tu_range(2, (int64_t)pages - 1);
        uint16_t flags;
        memcpy(&flags, image + pg * 4096 + 10, sizeof flags);
        if (flags == 0x01 || flags == 0x02)
            return pg * 4096 + (size_t)tu_range(0, 4095);
    }
    return (size_t)tu_range(0, where == 2 ? 8191 : (int64_t)image_len - 1);
}

static void flip_trial(int trial)
{
    uint8_t *img = malloc(image_len);
    cr_assert_not_null(img);
    memcpy(img, image, image_len);
    int flips = (int)tu_range(1, 24), where = trial % 5 == 4 ? 2 : trial % 2;
    char what[128];
    snprintf(what, sizeof what, "trial %d (%d bit flips %s)", trial, flips,
             where == 0 ? "anywhere" : where == 1 ? "in tree pages" : "in the meta pages");
    for (int i = 0; i < flips; i++) {
        size_t at = flip_at(where);
        img[at] ^= (uint8_t)(1u << tu_range(0, 7));
        fprintf(stderr, "kc_damage: %s: bit flipped at byte %zu\n", what, at);
    }
    dir = cache_with(img, image_len);
    free(img);
    kt_cli_run r = cli("--dir", dir, "verify", NULL);
    expect_clean_exit(&r, what);
    cr_expect(r.status == 0 || r.status == 1, "%s: verify exits 0 or 1 (%d): %s", what, r.status, r.err);
    kt_cli_free(&r);
    r = cli("--dir", dir, "verify", "--fix", NULL);
    expect_clean_exit(&r, what);
    cr_expect_eq(r.status, 0, "%s: verify --fix exits 0: %s%s", what, r.out, r.err);
    kt_cli_free(&r);
    r = cli("--dir", dir, "verify", NULL);
    expect_clean_exit(&r, what);
    cr_expect_eq(r.status, 0, "%s: verify passes after --fix: %s%s", what, r.out, r.err);
    kt_cli_free(&r);
    expect_only_good_records(dir, what);
    kt_rmrf(dir);
    dir = NULL;
}

/* A repair killed midway leaves data.mdb.rebuild-<pid>; the next repair removes it. The file is
 * damaged by bit flips in tree pages until verify sees the damage (so that --fix rebuilds). */
Test(kc_damage, a_repair_removes_what_a_killed_one_left)
{
    tu_seed("kc_damage/a_repair_removes_what_a_killed_one_left");
    uint8_t *img = malloc(image_len);
    cr_assert_not_null(img);
    bool repaired = false;
    for (int trial = 0; trial < 20 && !repaired; trial++) {
        memcpy(img, image, image_len);
        for (int i = 0; i < 16; i++)
            img[flip_at(1)] ^= (uint8_t)(1u << tu_range(0, 7));
        dir = cache_with(img, image_len);
        char left[600];
        snprintf(left, sizeof left, "%s/data.mdb.rebuild-999999", dir);
        kt_write_file(left, "half a rebuilt file", 19);
        kt_cli_run r = cli("--dir", dir, "verify", NULL);
        int seen = r.status;
        kt_cli_free(&r);
        if (seen == 1) {
            r = cli("--dir", dir, "verify", "--fix", NULL);
            expect_clean_exit(&r, "verify --fix");
            cr_expect_eq(r.status, 0, "verify --fix exits 0: %s%s", r.out, r.err);
            kt_cli_free(&r);
            struct stat st;
            cr_expect_neq(stat(left, &st), 0, "the killed repair's rebuild file is removed");
            repaired = true;
        }
        kt_rmrf(dir);
        dir = NULL;
    }
    free(img);
    cr_assert(repaired, "20 damaged files, none that verify reported damaged");
}

Test(kc_damage, bit_flips_repaired_by_verify_fix)
{
    tu_seed("kc_damage/bit_flips_repaired_by_verify_fix");
    for (int trial = 0; trial < 60; trial++)
        flip_trial(trial);
}

/* ---- allocation failures in the repair ------------------------------------------------------------- */

/* verify --fix on a cache with a bad record, with each of its allocations failing in turn: it
 * fails with ALLOC_FAILED or succeeds, leaks nothing (the sanitizer build), and the cache is
 * whole after — a second fix leaves it clean with every other record intact. */
Test(kc_damage, verify_fix_under_allocation_failures)
{
    tu_seed("kc_damage/verify_fix_under_allocation_failures");
    kc_key k;
    kt_key(3, &k);
    size_t len;
    uint8_t *rec = kt_raw_get(tmpl, "kernels", k.b, KC_KEY_SIZE, &len);
    cr_assert_not_null(rec);
    rec[len - 1] ^= 0x20; /* kernel 3's last code byte */
    kt_raw_put(tmpl, "kernels", k.b, KC_KEY_SIZE, rec, len);
    free(rec);
    char path[600];
    snprintf(path, sizeof path, "%s/data.mdb", tmpl);
    size_t damaged_len;
    uint8_t *damaged = (uint8_t *)tu_read_file(path, &damaged_len);
    cr_assert_not_null(damaged);
    int failures = 0;
    for (long nth = 1; nth < 2000; nth++) {
        dir = cache_with(damaged, damaged_len);
        kc_cache *c = kt_open(dir, 0, 0);
        kc_bad *bad = NULL;
        size_t n = 0;
        base_alloc_fail_at(nth, false);
        long before = base_alloc_count();
        hipdnnStatus_t st = kc_verify(c, true, &bad, &n);
        long used = base_alloc_count() - before;
        base_alloc_fail_at(0, false);
        cr_expect(st == HIPDNN_STATUS_SUCCESS || st == HIPDNN_STATUS_ALLOC_FAILED, "allocation %ld: %s (%s)", nth,
                  tu_st(st), tu_msg());
        failures += st != HIPDNN_STATUS_SUCCESS;
        base_free(bad);
        TU_OK(kc_verify(c, true, &bad, &n));
        base_free(bad);
        kt_expect_clean(c, "after a fix that failed an allocation");
        cr_expect_eq(hits(c, "after the fixes"), N_KERNELS - 1, "allocation %ld: every good kernel stays", nth);
        kc_close(c);
        kt_rmrf(dir);
        dir = NULL;
        if (used < nth)
            break; /* every allocation of the fix has failed once */
    }
    cr_expect_gt(failures, 3, "injected failures surfaced as statuses (%d)", failures);
    free(damaged);
}

/* ---- another process holds the cache -------------------------------------------------------------- */

/* verify --fix while another process has the cache open: refused with a message saying so, the
 * data file untouched (LMDB maps it in that process; a swap under it would mix two files behind
 * one lock file); once that process has closed it, the fix goes through. */
Test(kc_damage, verify_fix_waits_for_other_processes)
{
    tu_seed("kc_damage/verify_fix_waits_for_other_processes");
    kc_key k;
    kt_key(5, &k);
    size_t len;
    uint8_t *rec = kt_raw_get(tmpl, "kernels", k.b, KC_KEY_SIZE, &len);
    cr_assert_not_null(rec);
    rec[len / 2] ^= 0x01;
    kt_raw_put(tmpl, "kernels", k.b, KC_KEY_SIZE, rec, len);
    free(rec);
    int opened[2], done[2];
    cr_assert_eq(pipe(opened), 0);
    cr_assert_eq(pipe(done), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* holds the cache open until told */
        kc_options o = {.dir = tmpl};
        kc_cache *c = NULL;
        char byte = kc_open(&o, &c) == HIPDNN_STATUS_SUCCESS ? 'o' : 'x';
        if (write(opened[1], &byte, 1) != 1 || read(done[0], &byte, 1) != 1)
            byte = 'x';
        kc_close(c);
        _exit(byte == 'x');
    }
    char byte = 0;
    cr_assert_eq(read(opened[0], &byte, 1), 1);
    cr_assert_eq(byte, 'o', "the other process opened the cache");
    char path[600];
    snprintf(path, sizeof path, "%s/data.mdb", tmpl);
    size_t before_len, after_len;
    uint8_t *before = (uint8_t *)tu_read_file(path, &before_len);
    kc_cache *c = kt_open(tmpl, 0, 0);
    kc_bad *bad = NULL;
    size_t n = 0;
    TU_EQ(kc_verify(c, true, &bad, &n), HIPDNN_STATUS_INTERNAL_ERROR);
    cr_expect_not_null(strstr(tu_msg(), "another process has the cache open"), "the message says why: %s", tu_msg());
    base_free(bad);
    uint8_t *after = (uint8_t *)tu_read_file(path, &after_len);
    cr_expect(before != NULL && after != NULL && before_len == after_len && memcmp(before, after, after_len) == 0,
              "data.mdb is untouched");
    free(before), free(after);
    cr_expect_eq(hits(c, "while refused"), N_KERNELS - 1, "the cache still serves every good kernel");
    cr_assert_eq(write(done[1], "d", 1), 1);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    TU_OK(kc_verify(c, true, &bad, &n));
    cr_expect_eq(n, 1, "then the fix drops kernel 5 (%zu reported)", n);
    base_free(bad);
    kt_expect_clean(c, "after the fix");
    cr_expect_eq(hits(c, "after the fix"), N_KERNELS - 1);
    kc_close(c);
}
