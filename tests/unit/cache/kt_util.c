/* kt_util.c — helpers shared by the kernel cache tests; see kt_util.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "kt_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/base.h"
#include "cache/kc_int.h"

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void kt_key(uint64_t id, kc_key *key)
{
    uint64_t a = mix(id), b = mix(id ^ 0x5555);
    memcpy(key->b, &a, 8);
    memcpy(key->b + 8, &b, 8);
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0)
            s = mix(s);
        p[i] = (uint8_t)(s >> (8 * (i % 8)));
    }
}

void kt_make(kt_kernel *t, uint64_t id, size_t code_size)
{
    memset(t, 0, sizeof *t);
    kt_key(id, &t->k.key);
    snprintf(t->entry, sizeof t->entry, "kt_kernel_%llu", (unsigned long long)id);
    fill(t->meta, sizeof t->meta, id * 3 + 1);
    t->code = malloc(code_size);
    cr_assert_not_null(t->code);
    fill(t->code, code_size, id * 7 + 2);
    t->k.arch = id % 2 ? "sm_90" : "gfx942";
    t->k.compiler = id % 2 ? "nvrtc" : "hiprtc";
    t->k.compiler_version = "12.4";
    t->k.entry = t->entry;
    t->k.meta = t->meta;
    t->k.meta_size = sizeof t->meta;
    t->k.code = t->code;
    t->k.code_size = code_size;
}

void kt_free(kt_kernel *t)
{
    free(t->code);
    t->code = NULL;
}

bool kt_matches(const kc_kernel *got, uint64_t id, size_t code_size)
{
    kt_kernel want;
    kt_make(&want, id, code_size);
    const char *diff = NULL;
    if (memcmp(got->key.b, want.k.key.b, KC_KEY_SIZE) != 0)
        diff = "key";
    else if (strcmp(got->arch, want.k.arch) != 0 || strcmp(got->compiler, want.k.compiler) != 0 ||
             strcmp(got->compiler_version, want.k.compiler_version) != 0)
        diff = "arch/compiler";
    else if (strcmp(got->entry, want.entry) != 0)
        diff = "entry";
    else if (got->meta_size != sizeof want.meta || memcmp(got->meta, want.meta, sizeof want.meta) != 0)
        diff = "metadata";
    else if (got->code_size != code_size || memcmp(got->code, want.code, code_size) != 0)
        diff = "code";
    kt_free(&want);
    if (diff != NULL)
        cr_log_error("kernel %llu: %s differs", (unsigned long long)id, diff);
    return diff == NULL;
}

void kt_put(kc_cache *c, uint64_t id, size_t code_size)
{
    kt_kernel t;
    kt_make(&t, id, code_size);
    TU_OK(kc_put_kernel(c, &t.k));
    kt_free(&t);
}

int kt_get(kc_cache *c, uint64_t id, size_t code_size)
{
    kc_key key;
    kc_kernel got;
    kt_key(id, &key);
    if (!kc_get_kernel(c, &key, &got))
        return 0;
    int r = kt_matches(&got, id, code_size) ? 1 : -1;
    kc_kernel_release(&got);
    return r;
}

char *kt_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/kc_test_XXXXXX", base != NULL && base[0] == '/' ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    cr_assert_not_null(d, "mkdtemp(%s): %s", tmpl, strerror(errno));
    return strdup(d);
}

static int open_up(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag == FTW_D || flag == FTW_DNR)
        chmod(path, 0700);
    (void)st;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void kt_rmrf(char *dir)
{
    if (dir == NULL)
        return;
    chmod(dir, 0700);
    nftw(dir, open_up, 16, FTW_PHYS); /* directories made read-only by a test */
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

kc_cache *kt_open(const char *dir, uint64_t max_bytes, uint64_t initial)
{
    kc_options o = {.dir = dir, .max_bytes = max_bytes, .initial_map_bytes = initial, .strict = true,
                    .no_sync = true};
    kc_cache *c = NULL;
    TU_OK(kc_open(&o, &c));
    cr_assert_not_null(c);
    return c;
}

unsigned kt_mode(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "stat(%s): %s", path, strerror(errno));
    return st.st_mode & 07777;
}

#define STORE_CHECK(call)                                                                         \
    do {                                                                                         \
        int rc_ = (call);                                                                        \
        cr_assert_eq(rc_, KC_STORE_OK, "%s: %s", #call, kc__store_strerror(rc_));               \
    } while (0)

static int table_index(const char *table)
{
    static const char *const names[KC_N_DBI] = {[KC_DBI_KERNEL] = "kernels", [KC_DBI_PLAN] = "plans",
                                                [KC_DBI_ATIME] = "last_used"};
    for (int i = 0; i < KC_N_DBI; i++)
        if (strcmp(names[i], table) == 0)
            return i;
    cr_assert_fail("no table \"%s\"", table);
    return -1;
}

/* The store of dir, opened beside the library's handles (none may be open on dir in this process). */
static void raw_open(const char *dir, kc_store **s, kc_txn **txn, bool write)
{
    kc_store_opts o = {.read_only = !write};
    const char *call;
    STORE_CHECK(kc__store_open(dir, &o, s, &call));
    cr_assert(kc__store_has_tables(*s), "%s holds no cache tables", dir);
    STORE_CHECK(kc__store_txn_begin(*s, write, txn));
}

void kt_raw_put(const char *dir, const char *table, const void *key, size_t klen, const void *val, size_t vlen)
{
    kc_store *s;
    kc_txn *txn;
    raw_open(dir, &s, &txn, true);
    kc_val k = {klen, key}, v = {vlen, val};
    STORE_CHECK(kc__store_put(txn, table_index(table), &k, &v));
    STORE_CHECK(kc__store_txn_commit(txn));
    kc__store_close(s);
}

uint8_t *kt_raw_get(const char *dir, const char *table, const void *key, size_t klen, size_t *vlen)
{
    kc_store *s;
    kc_txn *txn;
    raw_open(dir, &s, &txn, false);
    kc_val k = {klen, key}, v;
    uint8_t *out = NULL;
    if (kc__store_get(txn, table_index(table), &k, &v) == KC_STORE_OK) {
        out = malloc(v.size > 0 ? v.size : 1);
        cr_assert_not_null(out);
        memcpy(out, v.data, v.size);
        *vlen = v.size;
    }
    kc__store_txn_abort(txn);
    kc__store_close(s);
    return out;
}

static int64_t clock_now;
static int64_t fake_clock(void) { return clock_now; }

void kt_clock_set(int64_t t)
{
    clock_now = t;
    kc_test_clock = fake_clock;
}

void kt_clock_off(void) { kc_test_clock = NULL; }

void kt_expect_clean(kc_cache *c, const char *when)
{
    kc_bad *bad = NULL;
    size_t n = 0;
    TU_OK(kc_verify(c, false, &bad, &n));
    for (size_t i = 0; i < n && i < 10; i++) {
        char hex[33];
        kc_key_hex(&bad[i].key, hex);
        cr_log_error("%s: bad %s record %s: %s", when, bad[i].table == KC_TABLE_KERNEL ? "kernel" : "plan", hex,
                     bad[i].reason);
    }
    cr_expect_eq(n, 0, "%s: verify found %zu bad records", when, n);
    base_free(bad);
}

size_t kt_bundle_entries(const uint8_t *b, size_t len, size_t *offs, size_t max)
{
    size_t n = 0, off = 32;
    while (n < max && len >= 16 && off + 40 <= len - 16) {
        uint64_t l = kc__get64(b + off + 24);
        if (l > len - 16 - off - 40)
            break;
        offs[n++] = off;
        off += 40 + (size_t)l + (size_t)((8 - l % 8) % 8);
    }
    return n;
}

void kt_bundle_reseal(uint8_t *b, size_t len, bool records)
{
    if (len < 48)
        return;
    size_t offs[4096];
    size_t n = records ? kt_bundle_entries(b, len, offs, 4096) : 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t *e = b + offs[i];
        uint64_t l = kc__get64(e + 24);
        kc__put64(e + 32, XXH64(e + 40, (size_t)l, XXH64(e, 32, 0)));
    }
    kc__put64(b + len - 8, XXH64(b + 32, len - 48, 0));
    kc__put64(b + 24, XXH64(b, 24, 0));
}

kt_snapshot kt_snap(kc_cache *c)
{
    kt_snapshot s = {0};
    kc_stats st;
    TU_OK(kc_get_stats(c, &st));
    s.kernels = st.kernels;
    s.plans = st.plans;
    s.bytes = st.bytes;
    kc_entry *en;
    size_t n;
    TU_OK(kc_list(c, &en, &n));
    s.digest = XXH64(en, n * sizeof *en, 0);
    base_free(en);
    return s;
}


void kt_write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
    cr_assert_eq(write(fd, data, len), (ssize_t)len, "write %s", path);
    close(fd);
}

bool kt_find_entry(const char *dir, const char *prefix, char *name, size_t size)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(name, size, "%s", e->d_name);
            found = true;
        }
    closedir(d);
    return found;
}

static const char *warn_needle;
static int warn_count;
static char warn_last[1024];

static void on_warning(hipdnnUserLogCallbackHandle_t user, hipdnnSeverity_t sev, const char *msg)
{
    (void)user;
    if (sev == HIPDNN_SEV_WARN && strstr(msg, warn_needle) != NULL) {
        warn_count++;
        snprintf(warn_last, sizeof warn_last, "%s", msg);
    }
}

void kt_count_warnings(const char *needle)
{
    static bool added;
    warn_needle = needle;
    warn_count = 0;
    warn_last[0] = '\0';
    base_log_set_level(HIPDNN_SEV_WARN);
    if (!added)
        base_log_add_callback(on_warning, HIPDNN_SEV_WARN, NULL);
    added = true;
}

int kt_warnings(void) { return warn_count; }
const char *kt_last_warning(void) { return warn_last; }

void kt_dirs_make(char **dir, char **work)
{
    *dir = kt_tmpdir();
    *work = kt_tmpdir();
}

void kt_dirs_remove(char *dir, char *work)
{
    kt_rmrf(dir);
    kt_rmrf(work);
}
