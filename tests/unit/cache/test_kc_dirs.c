/* test_kc_dirs.c — where the cache lives and what happens when it cannot be written.
 *
 * Owns: HIPDNN_CACHE_DIR > XDG_CACHE_HOME/hipdnn-jit > HOME/.cache/hipdnn-jit (relative
 * values ignored), directories created with mode 0700 (parents too) and data files 0600;
 * HIPDNN_CACHE_MAX_BYTES parsing; HIPDNN_CACHE_DISABLE and the kc_default() singleton (a
 * forked child gets its own); one environment per directory per process; read-only
 * directories — as an unprivileged user (as root the check runs in a child switched to user
 * nobody; it is skipped where that is impossible or the user can still write): a directory
 * the user cannot write opens READ_ONLY, old records still hit, new ones live in memory only,
 * the data file is unchanged, one warning per open and none per call, maintenance that writes is refused; with
 * neither a writable nor an existing lock file it opens without locks; with an unwritable one,
 * memory only; unusable directories (a file in the path, a data file of LMDB's development
 * version) fall back to memory, or fail with a message under `strict`, while a damaged data file
 * (random bytes) is moved aside intact and the cache starts empty (one warning, the open's note);
 * read_only opens of missing caches.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "kt_util.h"

static char *dir;

static void setup(void)
{
    dir = kt_tmpdir();
    unsetenv("HIPDNN_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HIPDNN_CACHE_MAX_BYTES");
    unsetenv("HIPDNN_CACHE_DISABLE");
}

static void teardown(void) { kt_rmrf(dir); }

TestSuite(kc_dirs, .init = setup, .fini = teardown);

static char *path_in(const char *sub)
{
    static char buf[4][PATH_MAX];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, PATH_MAX, "%s/%s", dir, sub);
    return p;
}

Test(kc_dirs, default_directory_order_and_modes)
{
    char got[PATH_MAX];
    setenv("HOME", path_in("home"), 1);
    setenv("XDG_CACHE_HOME", path_in("xdg"), 1);
    setenv("HIPDNN_CACHE_DIR", path_in("explicit/a/b"), 1);
    TU_OK(kc_default_dir(got, sizeof got, true));
    cr_expect_str_eq(got, path_in("explicit/a/b"));
    cr_expect_eq(kt_mode(path_in("explicit")), 0700);
    cr_expect_eq(kt_mode(path_in("explicit/a")), 0700);
    cr_expect_eq(kt_mode(path_in("explicit/a/b")), 0700);

    setenv("HIPDNN_CACHE_DIR", "relative/dir", 1);
    kt_count_warnings("HIPDNN_CACHE_DIR=\"relative/dir\" is not an absolute path: ignored");
    TU_OK(kc_default_dir(got, sizeof got, false));
    cr_expect_str_eq(got, path_in("xdg/hipdnn-jit"), "a relative HIPDNN_CACHE_DIR is ignored");
    TU_OK(kc_default_dir(got, sizeof got, false));
    cr_expect_eq(kt_warnings(), 1, "ignored with one warning, not silently nor every time");
    struct stat st;
    cr_expect_neq(stat(got, &st), 0, "create=false creates nothing");
    TU_OK(kc_default_dir(got, sizeof got, true));
    cr_expect_eq(kt_mode(path_in("xdg")), 0700);
    cr_expect_eq(kt_mode(path_in("xdg/hipdnn-jit")), 0700);

    unsetenv("HIPDNN_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    TU_OK(kc_default_dir(got, sizeof got, true));
    cr_expect_str_eq(got, path_in("home/.cache/hipdnn-jit"));
    cr_expect_eq(kt_mode(path_in("home/.cache")), 0700);

    char small[8];
    TU_EQ(kc_default_dir(small, sizeof small, false), HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT);
    unsetenv("HOME");
    TU_EQ(kc_default_dir(got, sizeof got, false), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "HOME") != NULL, "message: %s", tu_msg());
}

Test(kc_dirs, open_creates_private_directories)
{
    kc_cache *c = kt_open(path_in("p/q/r"), 0, 0);
    kt_put(c, 1, 100);
    kc_close(c);
    cr_expect_eq(kt_mode(path_in("p")), 0700);
    cr_expect_eq(kt_mode(path_in("p/q/r")), 0700);
    cr_expect_eq(kt_mode(path_in("p/q/r/data.mdb")), 0600);
}

Test(kc_dirs, max_bytes_from_the_environment)
{
    static const struct {
        const char *text;
        uint64_t want;
    } cases[] = {
        {"64M", 64ull << 20}, {"1G", 1ull << 30}, {"4096", 4096}, {"2GiB", 2ull << 30}, {"12KB", 12ull << 10},
        {"3t", 3ull << 40},   {"lots", 4ull << 30}, {"0", 4ull << 30}, {"", 4ull << 30}, {"1.5G", 4ull << 30},
        {"-5", 4ull << 30},   {"99999999999999999999", 4ull << 30},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("HIPDNN_CACHE_MAX_BYTES", cases[i].text, 1);
        cr_expect_eq(kc_default_max_bytes(), cases[i].want, "HIPDNN_CACHE_MAX_BYTES=\"%s\"", cases[i].text);
    }
    setenv("HIPDNN_CACHE_MAX_BYTES", "8M", 1);
    kc_cache *c = NULL;
    TU_OK(kc_open(NULL, &c));
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.max_bytes, 8 << 20, "kc_open uses it when max_bytes is 0");
    kc_close(c);
}

Test(kc_dirs, disable_and_the_default_singleton)
{
    setenv("HIPDNN_CACHE_DISABLE", "0", 1);
    cr_expect_not(kc_disabled_by_env());
    setenv("HIPDNN_CACHE_DIR", path_in("default"), 1);
    kc_cache *d = kc_default();
    cr_assert_not_null(d);
    cr_expect_eq(kc_default(), d, "one default per process");
    cr_expect_eq(kc_get_mode(d), KC_MODE_READ_WRITE);
    cr_expect_str_eq(kc_dir(d), path_in("default"));
    cr_expect_eq(kt_mode(path_in("default")), 0700);

    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* the child's default is its own; it writes kernel 5 */
        kc_cache *cd = kc_default();
        int bad = cd == NULL || cd == d || kc_get_mode(cd) != KC_MODE_READ_WRITE;
        kt_kernel t;
        kt_make(&t, 5, 777);
        bad |= kc_put_kernel(cd, &t.k) != HIPDNN_STATUS_SUCCESS;
        kt_free(&t);
        _exit(bad);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child used its own default cache");
    cr_expect_eq(kt_get(d, 5, 777), 1, "the parent reads what the child wrote");

    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    cr_expect(kc_disabled_by_env());
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(kc_default() == NULL ? 0 : 1);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "HIPDNN_CACHE_DISABLE=1: no default cache");
}

Test(kc_dirs, one_environment_per_directory)
{
    kc_cache *a = kt_open(path_in("shared"), 0, 0);
    cr_assert_eq(symlink(path_in("shared"), path_in("link")), 0);
    kc_cache *b = kt_open(path_in("link"), 0, 0);
    kt_put(a, 1, 2000);
    cr_expect_eq(kt_get(b, 1, 2000), 1);
    kc_stats s;
    TU_OK(kc_get_stats(b, &s));
    cr_expect_eq(s.front_hits, 1, "the handles share one environment and its front");
    cr_expect_eq(s.lmdb_reads, 0);
    kc_close(a);
    cr_expect_eq(kt_get(b, 1, 2000), 1, "closing one handle leaves the other working");
    kc_close(b);
}

Test(kc_dirs, unusable_directories_fall_back_to_memory)
{
    int fd = open(path_in("file"), O_CREAT | O_WRONLY, 0600);
    cr_assert_geq(fd, 0);
    close(fd);
    kc_options o = {.dir = path_in("file/sub")};
    kc_cache *c = NULL;
    TU_OK(kc_open(&o, &c));
    cr_expect_eq(kc_get_mode(c), KC_MODE_MEMORY);
    kt_put(c, 1, 100);
    cr_expect_eq(kt_get(c, 1, 100), 1, "a memory cache still caches");
    kc_close(c);
    o.strict = true;
    TU_EQ(kc_open(&o, &c), HIPDNN_STATUS_INTERNAL_ERROR);
    cr_expect(strstr(tu_msg(), "file/sub") != NULL, "message names the path: %s", tu_msg());

    /* a damaged data file (random bytes) is moved aside, byte for byte, and the cache starts
     * empty (test_kc_damage.c cuts real ones short) */
    cr_assert_eq(mkdir(path_in("damaged"), 0700), 0);
    uint8_t junk[65536];
    tu_seed("kc_dirs/unusable_directories_fall_back_to_memory");
    tu_bytes(junk, sizeof junk);
    kt_write_file(path_in("damaged/data.mdb"), junk, sizeof junk);
    kt_count_warnings("damaged");
    o = (kc_options){.dir = path_in("damaged"), .strict = true};
    TU_OK(kc_open(&o, &c));
    cr_expect_eq(kc_get_mode(c), KC_MODE_READ_WRITE);
    cr_expect_eq(kt_get(c, 1, 100), 0);
    kt_put(c, 1, 100);
    cr_expect_eq(kt_get(c, 1, 100), 1);
    cr_expect_not_null(strstr(kc_open_note(c), "moved it to"), "the open says what it did: %s", kc_open_note(c));
    kc_close(c);
    cr_expect_eq(kt_warnings(), 1, "one warning: %s", kt_last_warning());
    char moved[256], moved_path[PATH_MAX];
    cr_assert(kt_find_entry(path_in("damaged"), "data.mdb.corrupt-", moved, sizeof moved));
    snprintf(moved_path, sizeof moved_path, "%s/%s", path_in("damaged"), moved);
    size_t len;
    uint8_t *kept = (uint8_t *)tu_read_file(moved_path, &len);
    cr_expect(kept != NULL && len == sizeof junk && memcmp(kept, junk, len) == 0, "the damaged file is kept as is");
    free(kept);

    /* a file LMDB itself refuses (its development data version): memory, or under strict an
     * error naming the LMDB call */
    cr_assert_eq(mkdir(path_in("foreign"), 0700), 0);
    uint8_t meta[8192] = {0};
    const uint32_t magic = 0xBEEFC0DEu, version = 999, psize = 4096;
    const uint16_t meta_flag = 0x08;
    for (int page = 0; page < 2; page++) {
        memcpy(meta + page * 4096 + 10, &meta_flag, 2);
        memcpy(meta + page * 4096 + 16, &magic, 4);
        memcpy(meta + page * 4096 + 20, &version, 4);
        memcpy(meta + page * 4096 + 40, &psize, 4);
    }
    kt_write_file(path_in("foreign/data.mdb"), meta, sizeof meta);
    o = (kc_options){.dir = path_in("foreign")};
    TU_OK(kc_open(&o, &c));
    cr_expect_eq(kc_get_mode(c), KC_MODE_MEMORY);
    cr_expect_eq(kt_get(c, 1, 100), 0);
    kc_close(c);
    o.strict = true;
    TU_EQ(kc_open(&o, &c), HIPDNN_STATUS_INTERNAL_ERROR);
    cr_expect(strstr(tu_msg(), "mdb_env_open") != NULL, "message names the LMDB call: %s", tu_msg());
    cr_expect(!kt_find_entry(path_in("foreign"), "data.mdb.corrupt-", moved, sizeof moved), "not moved aside");

    o = (kc_options){.dir = path_in("never"), .read_only = true};
    TU_OK(kc_open(&o, &c));
    cr_expect_eq(kc_get_mode(c), KC_MODE_MEMORY, "a read-only open of a missing cache");
    struct stat st;
    cr_expect_neq(stat(path_in("never"), &st), 0, "read_only creates nothing");
    kc_close(c);
}

/* ---- read-only directories ------------------------------------------------------------------------ */

static int warnings;
static void count_warning(hipdnnUserLogCallbackHandle_t user, hipdnnSeverity_t sev, const char *msg)
{
    (void)user;
    if (sev == HIPDNN_SEV_WARN && strstr(msg, "kernel cache") != NULL)
        warnings++;
}

#define CHECK(cond, ...)                                                                             \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            fprintf(stderr, "read-only check failed (%s:%d): ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                                           \
            fputc('\n', stderr);                                                                    \
            return 1;                                                                               \
        }                                                                                           \
    } while (0)

static int file_digest(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    uint64_t h = 1469598103934665603ull;
    int ch;
    while ((ch = fgetc(f)) != EOF)
        h = (h ^ (uint64_t)ch) * 1099511628211ull;
    fclose(f);
    *out = h;
    return 0;
}

/* Runs as the unprivileged user. `want`: the mode the directory must open in. */
static int read_only_checks(const char *cache, kc_mode want)
{
    if (access(cache, W_OK) == 0)
        return 77; /* this user can still write it: nothing to check */
    uint64_t before, after;
    char data[PATH_MAX];
    snprintf(data, sizeof data, "%s/data.mdb", cache);
    CHECK(file_digest(data, &before) == 0, "reading %s: %s", data, strerror(errno));
    base_log_set_level(HIPDNN_SEV_WARN);
    base_log_add_callback(count_warning, HIPDNN_SEV_WARN, NULL);
    kc_options o = {.dir = cache};
    kc_cache *c = NULL;
    CHECK(kc_open(&o, &c) == HIPDNN_STATUS_SUCCESS, "kc_open failed");
    CHECK(kc_get_mode(c) == want, "mode %s, expected %s", kc_mode_name(kc_get_mode(c)), kc_mode_name(want));
    for (uint64_t i = 0; i < 10; i++) {
        int r = kt_get(c, i, 3000);
        CHECK(r == (want == KC_MODE_MEMORY ? 0 : 1), "old kernel %llu: %d", (unsigned long long)i, r);
    }
    kt_kernel t;
    kt_make(&t, 50, 4000);
    CHECK(kc_put_kernel(c, &t.k) == HIPDNN_STATUS_SUCCESS, "a put on a read-only cache succeeds");
    kt_free(&t);
    CHECK(kt_get(c, 50, 4000) == 1, "the new kernel is kept in memory");
    kc_bad *bad;
    size_t n;
    CHECK(kc_verify(c, false, &bad, &n) == HIPDNN_STATUS_SUCCESS && n == 0, "verify");
    base_free(bad);
    if (want == KC_MODE_READ_ONLY) {
        CHECK(kc_verify(c, true, &bad, &n) == HIPDNN_STATUS_BAD_PARAM, "verify --fix is refused");
        CHECK(kc_prune(c, 1, 0, NULL) == HIPDNN_STATUS_BAD_PARAM, "prune is refused");
        CHECK(kc_import_mem(c, "x", 1, NULL) == HIPDNN_STATUS_BAD_PARAM, "import is refused");
        CHECK(strstr(tu_msg(), "writable") != NULL, "message: %s", tu_msg());
    }
    kc_close(c);
    CHECK(kc_open(&o, &c) == HIPDNN_STATUS_SUCCESS, "a second open");
    kc_close(c);
    CHECK(warnings == 2, "%d warnings from the cache, expected one per open (2)", warnings);
    CHECK(file_digest(data, &after) == 0 && after == before, "data.mdb was not modified");
    return 0;
}

/* Makes `cache` read-only for the user running the checks: as root, a child switched to
 * user nobody (owner of the files); otherwise this process. Returns the check's exit code
 * (77: the directory was still writable). */
static int as_unprivileged(const char *cache, unsigned file_mode, bool keep_lock, kc_mode want)
{
    char lock[PATH_MAX], data[PATH_MAX];
    snprintf(lock, sizeof lock, "%s/lock.mdb", cache);
    snprintf(data, sizeof data, "%s/data.mdb", cache);
    if (!keep_lock)
        unlink(lock);
    chmod(dir, 0755);
    bool root = geteuid() == 0;
    if (root && (chown(cache, 65534, 65534) != 0 || chown(data, 65534, 65534) != 0 ||
                 (keep_lock && chown(lock, 65534, 65534) != 0)))
        return 77;
    chmod(data, file_mode);
    if (keep_lock)
        chmod(lock, file_mode);
    chmod(cache, 0500);
    if (!root)
        return read_only_checks(cache, want);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(77);
        _exit(read_only_checks(cache, want));
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 2;
    return WEXITSTATUS(status);
}

static void read_only_case(unsigned file_mode, bool keep_lock, kc_mode want)
{
    const char *cache = path_in("ro");
    kc_cache *c = kt_open(cache, 0, 0);
    for (uint64_t i = 0; i < 10; i++)
        kt_put(c, i, 3000);
    kc_close(c);
    int rc = as_unprivileged(cache, file_mode, keep_lock, want);
    if (rc == 77)
        cr_skip_test("cannot make %s read-only for this user (root without setuid?)", cache);
    cr_expect_eq(rc, 0, "the read-only checks failed (see stderr)");
}

Test(kc_dirs, read_only_directory_opens_read_only)
{
    read_only_case(0600, true, KC_MODE_READ_ONLY);
}

Test(kc_dirs, read_only_directory_without_a_lock_file)
{
    read_only_case(0400, false, KC_MODE_READ_ONLY);
}

Test(kc_dirs, read_only_directory_with_a_foreign_lock_file)
{
    read_only_case(0400, true, KC_MODE_MEMORY);
}
