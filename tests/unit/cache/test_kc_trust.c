/* test_kc_trust.c — a cache directory someone else can change is never used (issue 14, item 3).
 *
 * Owns: directories writable by group or others (0777, 0770), a directory of another user
 * (chown to uid 12345; skipped unless root), lock.mdb or data.mdb planted as a symbolic link to
 * a victim file (in a private directory and in a world-writable one), and cache files writable
 * by the group or owned by another user. Each is opened through the library (memory mode, one
 * warning saying why; an error saying why under `strict`) and through the hipdnn-cache tool
 * (ls, and warm where NVRTC is present: exit 1, the reason on stderr); the victim file keeps its
 * bytes and nothing is created in the refused directory.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "kt_cli.h"
#include "kt_util.h"
#include "runtime/rt.h"

#define OTHER_UID 12345

static char *dir, *work, victim[600];
static uint8_t victim_bytes[4096];

static void setup(void)
{
    dir = kt_tmpdir();
    work = kt_tmpdir();
    snprintf(victim, sizeof victim, "%s/victim", work);
    tu_bytes(victim_bytes, sizeof victim_bytes);
    kt_write_file(victim, victim_bytes, sizeof victim_bytes);
}

static void teardown(void)
{
    (void)!chown(dir, geteuid(), getegid()); /* back to us, so it can be removed */
    kt_rmrf(dir);
    kt_rmrf(work);
}

TestSuite(kc_trust, .init = setup, .fini = teardown, .timeout = 300);

static const char *in_dir(const char *name)
{
    static char buf[4][600];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 600, "%s/%s", dir, name);
    return p;
}

static void expect_victim_unchanged(const char *what)
{
    size_t len;
    uint8_t *got = (uint8_t *)tu_read_file(victim, &len);
    cr_expect(got != NULL && len == sizeof victim_bytes && memcmp(got, victim_bytes, len) == 0,
              "%s: the victim file is unchanged (%zu bytes)", what, len);
    free(got);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The library refuses the directory: memory mode and one warning containing `why`, strict an
 * error containing it; no record reaches the directory. */
static void expect_refused(const char *why, const char *what)
{
    kt_count_warnings("not trusted");
    kc_options o = {.dir = dir};
    kc_cache *c = NULL;
    TU_OK(kc_open(&o, &c));
    cr_expect_eq(kc_get_mode(c), KC_MODE_MEMORY, "%s: mode %s", what, kc_mode_name(kc_get_mode(c)));
    kt_put(c, 1, 3000);
    cr_expect_eq(kt_get(c, 1, 3000), 1, "%s: still caches in memory", what);
    kc_close(c);
    cr_expect_eq(kt_warnings(), 1, "%s: one warning (%d)", what, kt_warnings());
    cr_expect_not_null(strstr(kt_last_warning(), why), "%s: the warning says why (%s): %s", what, why,
                       kt_last_warning());
    o.strict = true;
    TU_EQ(kc_open(&o, &c), HIPDNN_STATUS_INTERNAL_ERROR);
    cr_expect(strstr(tu_msg(), why) != NULL && strstr(tu_msg(), dir) != NULL, "%s: strict: %s", what, tu_msg());
}

static bool have_nvrtc(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS;
}

/* The tool refuses it too: ls, and warm (the command that writes). */
static void expect_tool_refuses(const char *why, const char *what)
{
    const char *ls[] = {"--dir", dir, "ls", NULL};
    kt_cli_run r = kt_cli_v(work, ls);
    kt_cli_expect_fail(&r, 1, why, what);
    kt_cli_free(&r);
    if (!have_nvrtc())
        return;
    const char *warm[] = {"--dir", dir, "warm", "--arch", "sm_90", HIPDNN_SOURCE_DIR "/examples/graphs/layernorm.json",
                          NULL};
    r = kt_cli_v(work, warm);
    cr_expect_eq(r.status, 1, "%s: warm exits 1 (%d): %s", what, r.status, r.err);
    cr_expect_not_null(strstr(r.err, why), "%s: warm says why (%s): %s", what, why, r.err);
    kt_cli_free(&r);
}

Test(kc_trust, directory_writable_by_others)
{
    tu_seed("kc_trust/directory_writable_by_others");
    cr_assert_eq(chmod(dir, 0777), 0);
    expect_refused("writable by other users (mode 0777)", "a 0777 directory");
    expect_tool_refuses("writable by other users", "a 0777 directory");
    cr_expect(!exists(in_dir("data.mdb")) && !exists(in_dir("lock.mdb")), "nothing was created in it");
    cr_assert_eq(chmod(dir, 0770), 0);
    expect_refused("writable by its group (mode 0770)", "a 0770 directory");
    cr_assert_eq(chmod(dir, 0700), 0);
    kc_cache *c = kt_open(dir, 0, 0);
    cr_expect_eq(kc_get_mode(c), KC_MODE_READ_WRITE, "a 0700 directory of ours is used");
    kc_close(c);
}

Test(kc_trust, directory_of_another_user)
{
    tu_seed("kc_trust/directory_of_another_user");
    if (geteuid() != 0 || chown(dir, OTHER_UID, OTHER_UID) != 0)
        cr_skip_test("needs root to give a directory to uid %d", OTHER_UID);
    expect_refused("belongs to uid 12345", "another user's directory");
    expect_tool_refuses("belongs to uid 12345", "another user's directory");
    cr_expect(!exists(in_dir("data.mdb")) && !exists(in_dir("lock.mdb")), "nothing was created in it");
}

/* name planted as a link to the victim; refused, victim unchanged, link left alone. */
static void planted_link(const char *name, mode_t dir_mode)
{
    char what[96], why[64];
    snprintf(what, sizeof what, "%s planted as a link (directory mode %04o)", name, (unsigned)dir_mode);
    snprintf(why, sizeof why, dir_mode & 022 ? "writable by" : "%s is a symbolic link", name);
    cr_assert_eq(symlink(victim, in_dir(name)), 0, "symlink: %s", strerror(errno));
    cr_assert_eq(chmod(dir, dir_mode), 0);
    expect_refused(why, what);
    expect_tool_refuses(why, what);
    expect_victim_unchanged(what);
    struct stat st;
    cr_expect(lstat(in_dir(name), &st) == 0 && S_ISLNK(st.st_mode), "%s: the link is left alone", what);
    chmod(dir, 0700);
    unlink(in_dir(name));
}

Test(kc_trust, planted_symbolic_links)
{
    tu_seed("kc_trust/planted_symbolic_links");
    planted_link("lock.mdb", 0700);
    planted_link("data.mdb", 0700);
    planted_link("lock.mdb", 0777); /* the issue: a shared, world-writable directory */
}

Test(kc_trust, cache_files_others_can_change)
{
    tu_seed("kc_trust/cache_files_others_can_change");
    kc_cache *c = kt_open(dir, 0, 0);
    kt_put(c, 1, 3000);
    kc_close(c);
    cr_assert_eq(chmod(in_dir("data.mdb"), 0660), 0);
    expect_refused("data.mdb is writable by its group", "a group-writable data.mdb");
    cr_assert_eq(chmod(in_dir("data.mdb"), 0600), 0);
    if (geteuid() == 0 && chown(in_dir("lock.mdb"), OTHER_UID, OTHER_UID) == 0) {
        expect_refused("lock.mdb belongs to uid 12345", "another user's lock.mdb");
        cr_assert_eq(chown(in_dir("lock.mdb"), 0, 0), 0);
    }
    c = kt_open(dir, 0, 0);
    cr_expect_eq(kt_get(c, 1, 3000), 1, "the cache is used again once its files are private");
    kc_close(c);
}
