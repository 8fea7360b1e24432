/* kt_util.h — helpers shared by the kernel cache tests (tests/unit/cache/).
 *
 * Test kernels are deterministic functions of an id (key, strings, metadata, code bytes), so
 * processes writing the same id write the same record and any reader can check what it got.
 * Caches live in fresh mkdtemp directories; kt_raw_* reach the store directly (cache/kc_store.h;
 * with no kc handle open on that directory in this process) to corrupt or inspect records.
 */
#ifndef HIPDNN_TESTS_KT_UTIL_H
#define HIPDNN_TESTS_KT_UTIL_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/tu.h"
#include "cache/kc.h"

typedef struct kt_kernel {
    kc_kernel k;
    char entry[48];
    uint8_t meta[24];
    uint8_t *code;
} kt_kernel;

void kt_key(uint64_t id, kc_key *key);
/* Kernel `id` with a code object of code_size bytes. */
void kt_make(kt_kernel *t, uint64_t id, size_t code_size);
void kt_free(kt_kernel *t);
/* Does a looked-up kernel equal kt_make(id, code_size)? Prints the first difference. */
bool kt_matches(const kc_kernel *got, uint64_t id, size_t code_size);
/* Puts kernel id (asserting success). */
void kt_put(kc_cache *c, uint64_t id, size_t code_size);
/* Gets kernel id: 1 hit and matching, 0 miss, -1 hit with wrong content. */
int kt_get(kc_cache *c, uint64_t id, size_t code_size);

/* A fresh directory (free with kt_rmrf, which removes it and its contents). */
char *kt_tmpdir(void);
void kt_rmrf(char *dir);
/* The CLI suites' fixture: a fresh cache directory and working directory, removed after. */
void kt_dirs_make(char **dir, char **work);
void kt_dirs_remove(char *dir, char *work);
/* Opens an LMDB cache (strict), asserting success. initial 0: default. */
kc_cache *kt_open(const char *dir, uint64_t max_bytes, uint64_t initial);
/* A file's mode bits. */
unsigned kt_mode(const char *path);

/* Raw store access (any key, any bytes); table is "kernels", "plans" or "last_used". */
void kt_raw_put(const char *dir, const char *table, const void *key, size_t klen, const void *val, size_t vlen);
/* The stored value (malloc'd) or NULL. */
uint8_t *kt_raw_get(const char *dir, const char *table, const void *key, size_t klen, size_t *vlen);

/* A controllable clock for kc (kc_test_clock): kt_clock_set(t) makes kc see t. */
void kt_clock_set(int64_t t);
void kt_clock_off(void);

/* Bundles (format in cache/kc_bundle.c): recomputes the header checksum, the trailer's
 * checksum over the records and, with `records`, every record entry's checksum, walking
 * the entries as far as their lengths allow; so a mutation reaches the deeper checks. */
void kt_bundle_reseal(uint8_t *b, size_t len, bool records);
/* Offsets of the record entries of a well-formed bundle (at most max); returns the count. */
size_t kt_bundle_entries(const uint8_t *b, size_t len, size_t *offs, size_t max);
/* What a cache holds, to compare before and after a rejected import. */
typedef struct kt_snapshot {
    uint64_t kernels, plans, bytes, digest;
} kt_snapshot;
kt_snapshot kt_snap(kc_cache *c);

/* Expects no bad records (printing them otherwise). */
void kt_expect_clean(kc_cache *c, const char *when);

/* Files (reading one: tu_read_file in tests/common/tu.h): a file written (mode 0600, asserting
 * success), and the name of the first entry of `dir` that starts with `prefix` (false when none). */
void kt_write_file(const char *path, const void *data, size_t len);
bool kt_find_entry(const char *dir, const char *prefix, char *name, size_t size);
/* Counts WARN log lines from the library that contain `needle` from now on (a log callback;
 * the level is raised to WARN); kt_warnings() reads the count, kt_last_warning() the last. */
void kt_count_warnings(const char *needle);
int kt_warnings(void);
const char *kt_last_warning(void);

#endif
