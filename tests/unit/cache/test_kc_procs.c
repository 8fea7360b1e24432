/* test_kc_procs.c — many writers and readers at once, and writers killed mid-write.
 *
 * Owns: NPROC processes released together on one directory (a 256 KiB first map, so they
 * grow it under each other: MDB_MAP_FULL in one, MDB_MAP_RESIZED in the others), each
 * writing an overlapping range of kernels in random order and reading random kernels as it
 * goes (a hit must be exact), then reading its own back; afterwards the parent checks every
 * record; the same at a 2 MiB limit, where they evict under each other. SIGKILL: a child writes kernels without end, reporting each committed one through a
 * pipe, and is killed after a random number — several rounds, alternately while the map grows
 * and while eviction runs at a 2 MiB limit; the cache must open, verify clean, return every
 * reported kernel exactly (or, under eviction, miss it) and accept writes (LMDB's writer lock
 * recovered). A full reader table (another process holding every slot): lookups miss with a
 * warning, writes still work, and once that process is killed its slots are reclaimed and
 * lookups hit again. Threads: eight threads share one handle, writing, reading, listing and
 * verifying at once while the map grows; and verify run over and over beside four writer
 * threads for a few seconds (it reads data.mdb itself, so it must read one snapshot: nothing
 * it sees may look damaged).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "cache/kc_store.h"
#include "kt_util.h"

#define NPROC 6
#define SPAN 40 /* process p writes ids [p*SPAN, p*SPAN + 2*SPAN) */

static char *dir;

static void setup(void) { dir = kt_tmpdir(); }
static void teardown(void) { kt_rmrf(dir); }

TestSuite(kc_procs, .init = setup, .fini = teardown, .timeout = 240);

static size_t code_size_of(uint64_t id) { return 2000 + (size_t)(id * 7919 % 30000); }

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* A child: writes its range in random order, reading at random; returns its failures. With a
 * small max_bytes, kernels may be evicted: only wrong hits and failed puts count. */
static int writer(int p, int start_fd, uint64_t max_bytes)
{
    char go;
    if (read(start_fd, &go, 1) < 0)
        return 100;
    kc_options o = {.dir = dir, .max_bytes = max_bytes, .initial_map_bytes = 256 << 10, .strict = true};
    kc_cache *c = NULL;
    if (kc_open(&o, &c) != HIPDNN_STATUS_SUCCESS)
        return 101;
    uint64_t ids[2 * SPAN], seed = (uint64_t)getpid() * 977 + (uint64_t)p;
    for (int i = 0; i < 2 * SPAN; i++)
        ids[i] = (uint64_t)(p * SPAN + i);
    for (int i = 2 * SPAN - 1; i > 0; i--) {
        int j = (int)(lcg(&seed) % (uint64_t)(i + 1));
        uint64_t t = ids[i];
        ids[i] = ids[j], ids[j] = t;
    }
    int failures = 0;
    for (int i = 0; i < 2 * SPAN; i++) {
        kt_kernel t;
        kt_make(&t, ids[i], code_size_of(ids[i]));
        failures += kc_put_kernel(c, &t.k) != HIPDNN_STATUS_SUCCESS;
        kt_free(&t);
        uint64_t any = lcg(&seed) % ((NPROC + 1) * SPAN);
        failures += kt_get(c, any, code_size_of(any)) < 0; /* a miss is fine, a wrong hit is not */
    }
    for (int i = 0; i < 2 * SPAN; i++) {
        int r = kt_get(c, ids[i], code_size_of(ids[i]));
        failures += r < 0 || (r == 0 && max_bytes > (64u << 20));
    }
    kc_close(c);
    return failures > 99 ? 99 : failures;
}

/* Releases NPROC writers at once; expects each to exit 0. */
static void run_writers(uint64_t max_bytes)
{
    int gate[2];
    cr_assert_eq(pipe(gate), 0);
    pid_t pids[NPROC];
    for (int p = 0; p < NPROC; p++) {
        pids[p] = fork();
        cr_assert_geq(pids[p], 0);
        if (pids[p] == 0) {
            close(gate[1]);
            _exit(writer(p, gate[0], max_bytes));
        }
    }
    close(gate[0]);
    close(gate[1]); /* releases every child at once */
    for (int p = 0; p < NPROC; p++) {
        int status;
        cr_assert_eq(waitpid(pids[p], &status, 0), pids[p]);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "writer %d: exit %d, signal %d (exit: failures or setup error)", p,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
}

Test(kc_procs, concurrent_writers_at_the_size_limit)
{
    run_writers(2 << 20);
    kc_cache *c = kt_open(dir, 2 << 20, 0);
    kt_expect_clean(c, "after concurrent eviction");
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_leq(s.map_size, 2 << 20);
    cr_expect_gt(s.kernels, 10);
    kc_close(c);
}

Test(kc_procs, concurrent_writers_and_readers)
{
    run_writers(256 << 20);
    kc_cache *c = kt_open(dir, 256 << 20, 0);
    kt_expect_clean(c, "after the concurrent writers");
    const uint64_t total = (NPROC + 1) * SPAN;
    for (uint64_t id = 0; id < total; id++)
        cr_expect_eq(kt_get(c, id, code_size_of(id)), 1, "kernel %llu", (unsigned long long)id);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.kernels, total);
    cr_expect_gt(s.map_size, 256 << 10, "the map grew");
    kc_close(c);
}

/* A child writing kernels from `first` on until it is killed; reports each after its commit. */
static void endless_writer(int report_fd, uint64_t first, uint64_t max_bytes)
{
    kc_options o = {.dir = dir, .max_bytes = max_bytes, .initial_map_bytes = 256 << 10, .strict = true};
    kc_cache *c = NULL;
    if (kc_open(&o, &c) != HIPDNN_STATUS_SUCCESS)
        _exit(1);
    for (uint64_t id = first;; id++) {
        kt_kernel t;
        kt_make(&t, id, code_size_of(id));
        if (kc_put_kernel(c, &t.k) != HIPDNN_STATUS_SUCCESS) {
            char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
            base_last_error(msg, sizeof msg, false);
            fprintf(stderr, "endless_writer: kernel %llu not stored: %s\n", (unsigned long long)id, msg);
            _exit(2);
        }
        kt_free(&t);
        uint32_t v = (uint32_t)id;
        if (write(report_fd, &v, sizeof v) != sizeof v)
            _exit(3);
    }
}

Test(kc_procs, writer_killed_mid_write)
{
    tu_seed("kc_procs/writer_killed_mid_write");
    uint64_t first = 0;
    for (int round = 0; round < 6; round++) {
        bool evicting = round % 2 == 1;
        uint64_t max = evicting ? 2 << 20 : 256 << 20;
        int rep[2];
        cr_assert_eq(pipe(rep), 0);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            close(rep[0]);
            endless_writer(rep[1], first, max);
        }
        close(rep[1]);
        uint32_t *got = malloc(100000 * sizeof *got);
        size_t n = 0, want = (size_t)tu_range(20, 150);
        while (n < want && read(rep[0], &got[n], sizeof *got) == sizeof *got)
            n++;
        if (tu_range(0, 1)) {
            struct timespec nap = {0, (long)tu_range(0, 3000000)};
            nanosleep(&nap, NULL);
        }
        kill(pid, SIGKILL);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "round %d: the writer died by itself "
                  "(exit %d, signal %d)", round, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        while (n < 100000 && read(rep[0], &got[n], sizeof *got) == sizeof *got)
            n++; /* reported before the kill: committed */
        close(rep[0]);

        kc_cache *c = kt_open(dir, max, 0);
        kt_expect_clean(c, "after SIGKILL");
        int hits = 0;
        for (size_t i = 0; i < n; i++) {
            int r = kt_get(c, got[i], code_size_of(got[i]));
            cr_expect_neq(r, -1, "round %d: kernel %u is wrong", round, got[i]);
            cr_expect(r == 1 || evicting, "round %d: committed kernel %u is missing", round, got[i]);
            hits += r == 1;
        }
        cr_expect_gt(hits, 0);
        kt_put(c, 1000000 + (uint64_t)round, 5000); /* the dead writer's lock was recovered */
        cr_expect_eq(kt_get(c, 1000000 + (uint64_t)round, 5000), 1);
        kc_close(c);
        cr_log_info("round %d (%s): %zu kernels committed before SIGKILL, %d found", round,
                    evicting ? "evicting" : "growing", n, hits);
        first += n + 1000;
        free(got);
    }
}

/* A child holding every reader slot of the environment until it is killed. */
static void slot_hog(int ready_fd)
{
    kc_store *store;
    kc_store_opts o = {.read_only = true};
    const char *call;
    if (kc__store_open(dir, &o, &store, &call) != KC_STORE_OK)
        _exit(1);
    int held = 0;
    for (kc_txn *txn; kc__store_txn_begin(store, false, &txn) == KC_STORE_OK;)
        held++;
    if (write(ready_fd, &held, sizeof held) != sizeof held)
        _exit(2);
    for (;;)
        pause();
}

Test(kc_procs, full_reader_table_is_a_miss_until_reclaimed)
{
    kc_cache *c = kt_open(dir, 0, 0);
    kt_put(c, 1, 4000);
    kc_close(c);
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        slot_hog(ready[1]);
    int held = 0;
    cr_assert_eq(read(ready[0], &held, sizeof held), (ssize_t)sizeof held);
    cr_expect_gt(held, 200, "the child holds %d reader slots", held);
    c = kt_open(dir, 0, 0);
    cr_expect_eq(kt_get(c, 1, 4000), 0, "no reader slot: a miss, not a failure");
    kt_put(c, 2, 4000); /* writers need no reader slot */
    kill(pid, SIGKILL);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect_eq(kt_get(c, 1, 4000), 1, "the dead process's slots are reclaimed");
    kc_close(c);
    c = kt_open(dir, 0, 0);
    cr_expect_eq(kt_get(c, 2, 4000), 1);
    kc_close(c);
    close(ready[0]);
    close(ready[1]);
}

/* ---- threads ------------------------------------------------------------------------------ */

typedef struct worker {
    kc_cache *c;
    int index, failures;
} worker;

static void *thread_main(void *arg)
{
    worker *w = arg;
    uint64_t seed = (uint64_t)w->index * 31 + 7;
    for (int i = 0; i < 60; i++) {
        uint64_t id = (uint64_t)(w->index * 30 + i);
        kt_kernel t;
        kt_make(&t, id, code_size_of(id));
        w->failures += kc_put_kernel(w->c, &t.k) != HIPDNN_STATUS_SUCCESS;
        kt_free(&t);
        uint64_t any = lcg(&seed) % 300;
        w->failures += kt_get(w->c, any, code_size_of(any)) < 0;
        if (i % 20 == 10) {
            kc_entry *en;
            size_t n;
            w->failures += kc_list(w->c, &en, &n) != HIPDNN_STATUS_SUCCESS;
            base_free(en);
            kc_bad *bad;
            w->failures += kc_verify(w->c, false, &bad, &n) != HIPDNN_STATUS_SUCCESS || n != 0;
            base_free(bad);
        }
    }
    return NULL;
}

Test(kc_procs, threads_share_a_handle)
{
    kc_cache *c = kt_open(dir, 256 << 20, 256 << 10);
    pthread_t th[8];
    worker w[8];
    for (int i = 0; i < 8; i++) {
        w[i] = (worker){.c = c, .index = i};
        cr_assert_eq(pthread_create(&th[i], NULL, thread_main, &w[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        cr_expect_eq(w[i].failures, 0, "thread %d: %d failures", i, w[i].failures);
    }
    kc_close(c);
    c = kt_open(dir, 256 << 20, 0);
    for (uint64_t id = 0; id < 7 * 30 + 60; id++)
        cr_expect_eq(kt_get(c, id, code_size_of(id)), 1, "kernel %llu", (unsigned long long)id);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_gt(s.map_size, 256 << 10);
    kt_expect_clean(c, "after the threads");
    kc_close(c);
}

/* ---- verify beside writers --------------------------------------------------------------------- */

typedef struct churn {
    kc_cache *c;
    int index;
    atomic_bool *stop;
    int failures, checks;
} churn;

/* Puts and overwrites records of mixed sizes (inline and overflow pages, the map growing). */
static void *churn_writer(void *arg)
{
    churn *w = arg;
    uint64_t seed = (uint64_t)w->index * 977 + 5;
    for (int i = 0; !atomic_load(w->stop); i++) {
        uint64_t id = 1000 * (uint64_t)w->index + lcg(&seed) % 150;
        kt_kernel t;
        kt_make(&t, id, id % 3 ? 200 + id % 700 : code_size_of(id));
        w->failures += kc_put_kernel(w->c, &t.k) != HIPDNN_STATUS_SUCCESS;
        kt_free(&t);
    }
    return NULL;
}

/* verify, over and over: it reads the file itself, and must read one consistent snapshot. */
static void *churn_verifier(void *arg)
{
    churn *w = arg;
    while (!atomic_load(w->stop)) {
        kc_bad *bad = NULL;
        size_t n = 0;
        hipdnnStatus_t st = kc_verify(w->c, false, &bad, &n);
        if (st != HIPDNN_STATUS_SUCCESS || n != 0)
            fprintf(stderr, "verify beside writers: %s, %zu bad; first: %s\n", tu_st(st), n, n ? bad[0].reason : "-");
        w->failures += st != HIPDNN_STATUS_SUCCESS || n != 0;
        w->checks++;
        base_free(bad);
    }
    return NULL;
}

Test(kc_procs, verify_beside_writers_reads_one_snapshot)
{
    kc_cache *c = kt_open(dir, 256 << 20, 256 << 10);
    atomic_bool stop = false;
    pthread_t th[6];
    churn w[6];
    for (int i = 0; i < 6; i++) {
        w[i] = (churn){.c = c, .index = i, .stop = &stop};
        cr_assert_eq(pthread_create(&th[i], NULL, i < 4 ? churn_writer : churn_verifier, &w[i]), 0);
    }
    struct timespec ts = {.tv_sec = 3};
    nanosleep(&ts, NULL);
    atomic_store(&stop, true);
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        cr_expect_eq(w[i].failures, 0, "%s %d: %d failures", i < 4 ? "writer" : "verifier", i, w[i].failures);
    }
    cr_expect_gt(w[4].checks + w[5].checks, 10, "verify ran %d times", w[4].checks + w[5].checks);
    kt_expect_clean(c, "after the writers");
    kc_close(c);
}

/* Opening the cache checks data.mdb before LMDB maps it, reading pages no reader protects: while
 * another process writes, what it reads can change under it. Over and over, an open beside a
 * writing process must find the file sound: read-write, nothing moved aside, no warning. */
Test(kc_procs, open_beside_a_writing_process_finds_no_damage)
{
    kc_cache *c = kt_open(dir, 256 << 20, 256 << 10);
    kt_put(c, 1, 3000);
    kc_close(c);
    int go[2];
    cr_assert_eq(pipe(go), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* writes for three seconds */
        kc_cache *w = kt_open(dir, 256 << 20, 0);
        char byte = 'g';
        int failures = write(go[1], &byte, 1) != 1;
        atomic_bool stop = false;
        churn args = {.c = w, .index = 7, .stop = &stop};
        pthread_t th;
        pthread_create(&th, NULL, churn_writer, &args);
        struct timespec ts = {.tv_sec = 3};
        nanosleep(&ts, NULL);
        atomic_store(&stop, true);
        pthread_join(th, NULL);
        kc_close(w);
        _exit(failures + args.failures != 0);
    }
    char byte;
    cr_assert_eq(read(go[0], &byte, 1), 1);
    kt_count_warnings("kernel cache");
    int opens = 0, status = 0;
    for (; waitpid(pid, &status, WNOHANG) == 0; opens++) {
        kc_options o = {.dir = dir, .no_sync = true};
        cr_assert_eq(kc_open(&o, &c), HIPDNN_STATUS_SUCCESS);
        cr_expect_eq(kc_get_mode(c), KC_MODE_READ_WRITE, "open %d beside a writer", opens);
        cr_expect_eq(kt_get(c, 1, 3000), 1);
        kc_close(c);
    }
    char name[256];
    cr_expect_not(kt_find_entry(dir, "data.mdb.corrupt-", name, sizeof name), "nothing was moved aside (%s)", name);
    cr_expect_eq(kt_warnings(), 0, "no warning: %s", kt_last_warning());
    cr_expect_gt(opens, 10, "%d opens", opens);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer wrote without failures");
    close(go[0]), close(go[1]);
}
