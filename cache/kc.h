/* kc.h — the contract of cache/, the persistent kernel cache (DESIGN.md §5).
 *
 * Owns: an LMDB environment in a directory (or an in-memory store) holding two tables —
 *   kernels: 16-byte kernel key -> a kernel record (header + code object), and
 *   plans:   plan key (graph key + engine id + knob vector) -> kernel keys + launch recipe —
 * an in-memory front so repeated lookups in one process touch LMDB once, map growth up to a
 * byte limit and least-recently-used eviction beyond it, integrity checks on every read, the
 * maintenance calls behind the hipdnn-cache CLI, and the portable bundle format.
 * Does not own: what a key covers (the engine computes kernel keys, DESIGN.md §3), what the
 * launch metadata and recipe blobs mean (opaque bytes the engine defines), compiling.
 *
 * The cache is advisory. Lookups (kc_get_*) return a bool and never fail: an I/O error, a
 * corrupt or foreign record, a full reader table — each is a miss plus a log line. Writes and
 * maintenance calls return a status and raise errors through base_fail (naming the directory,
 * the LMDB call and LMDB's reason); the engine may ignore a failed kc_put_*.
 *
 * Modes: KC_MODE_READ_WRITE (LMDB), KC_MODE_READ_ONLY (LMDB opened read-only: requested, or
 * the directory is not writable; puts only reach the in-memory front), KC_MODE_MEMORY (no
 * directory, or it cannot be used: the in-memory front is the store, bounded by max_bytes).
 * A degraded open logs one warning and still succeeds.
 *
 * Threads: every call may be made from any thread on a shared kc_cache. Processes: any
 * number may read and write one directory at once (LMDB: one writer at a time, readers never
 * block). One directory is opened once per process: kc_open of a directory already open
 * returns a new handle on the same environment. After fork(), a child must not use handles
 * inherited from its parent; it opens its own (kc_default() starts afresh in a child).
 *
 * On-disk format: KC_FORMAT_VERSION, recorded in every record (layouts in kc_record.c);
 * a record of another version is a miss. Bundle format: kc_bundle.c.
 */
#ifndef HIPDNN_KC_H
#define HIPDNN_KC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipdnn_backend.h"

#define KC_FORMAT_VERSION 2
#define KC_BUNDLE_VERSION 1 /* the export / import file (kc_bundle.c) */
#define KC_KEY_SIZE 16
/* String limits of a kernel record (bytes, without the NUL). */
#define KC_MAX_ARCH 63
#define KC_MAX_COMPILER 63
#define KC_MAX_ENTRY 255
/* Blob limits: launch metadata, plan recipe, knob count, kernels per plan. */
#define KC_MAX_META (1u << 20)
#define KC_MAX_RECIPE (16u << 20)
#define KC_MAX_KNOBS 256
#define KC_MAX_PLAN_KERNELS 4096

typedef struct kc_cache kc_cache;

typedef struct kc_key {
    uint8_t b[KC_KEY_SIZE];
} kc_key;

typedef enum kc_mode {
    KC_MODE_READ_WRITE = 0,
    KC_MODE_READ_ONLY = 1,
    KC_MODE_MEMORY = 2,
} kc_mode;

typedef enum kc_table {
    KC_TABLE_NONE = 0,   /* kc_bad only: damage to the data file itself (a page), not a record */
    KC_TABLE_KERNEL = 1,
    KC_TABLE_PLAN = 2,
} kc_table;

/* ---- opening (kc_env.c; the accessors kc_get_mode ... kc_open_note: kc_txn.c) ------------- */

typedef struct kc_options {
    const char *dir;            /* the cache directory; NULL or "": in memory only */
    uint64_t max_bytes;         /* the map never grows past it; records are evicted (least
                                 * recently used first) once they fill 3/4 of it; 0:
                                 * kc_default_max_bytes() */
    bool read_only;             /* never write the directory (and never create it) */
    bool no_sync;               /* commits not synced: faster; an OS crash may lose the last
                                 * ones (a killed process loses nothing) */
    bool strict;                /* a directory that cannot be opened at all is an error, not
                                 * a memory cache (the CLI wants to know) */
    uint64_t initial_map_bytes; /* first map size of a new environment; 0: 64 MiB (capped) */
    uint64_t front_bytes;       /* in-memory front of an LMDB cache; 0: 64 MiB (capped) */
} kc_options;

/* Opens a cache. The directory (and its parents) is created with mode 0700 unless read_only.
 * A directory that cannot be created or written degrades to READ_ONLY (LMDB read-only) or
 * MEMORY with one warning; the call still succeeds. So does a directory that is not trusted
 * (not this user's, writable by group or others, lock.mdb / data.mdb a link or not this user's:
 * kc_trust.c; MEMORY, the warning says why). A damaged data.mdb (cut short, bad meta pages:
 * kc_check.c) is moved aside and the cache starts empty, with one warning (kc_open_note); where it
 * cannot be moved (read_only, a read-only directory, another process has the cache open) the
 * open degrades to MEMORY. A read_only open of a writable directory
 * shares the process's read-write environment but never writes through this handle. opt may
 * be NULL (memory only, defaults). max_bytes below 1 MiB is raised to 1 MiB.
 * Returns SUCCESS; BAD_PARAM_NULL_POINTER (out); BAD_PARAM (an overlong dir); ALLOC_FAILED;
 * INTERNAL_ERROR (strict only: the directory cannot be used — not trusted, a data file that
 * cannot be moved aside or that LMDB refuses — the message names the path and the reason, with
 * the LMDB call and LMDB's reason where LMDB failed). */
hipdnnStatus_t kc_open(const kc_options *opt, kc_cache **out);
/* Writes pending last-used times (best effort) and releases the handle. NULL is a no-op. */
void kc_close(kc_cache *c);
kc_mode kc_get_mode(const kc_cache *c);
/* The directory of an LMDB cache; "" in memory mode. */
const char *kc_dir(const kc_cache *c);
const char *kc_mode_name(kc_mode mode);
/* What this open repaired, in one line for a tool to show (the library logs it at WARN): a
 * damaged data.mdb moved aside, the cache started empty. "" when nothing. */
const char *kc_open_note(const kc_cache *c);

/* ---- the process-wide default (kc_default.c; kc_default() itself: kc_env.c) ----------------
 * kc_default_dir: $HIPDNN_CACHE_DIR, else $XDG_CACHE_HOME/hipdnn-jit, else
 * $HOME/.cache/hipdnn-jit (relative values are ignored). Writes it to buf; `create` makes it
 * and missing parents with mode 0700. Returns SUCCESS; BAD_PARAM (no variable usable, or a
 * too-long path); BAD_PARAM_SIZE_INSUFFICIENT; INTERNAL_ERROR (mkdir failed, with errno). */
hipdnnStatus_t kc_default_dir(char *buf, size_t size, bool create);
/* HIPDNN_CACHE_MAX_BYTES (a byte count, optional K/M/G/T suffix, powers of 1024), else 4 GiB.
 * An unparsable value logs a warning and gives the default. */
uint64_t kc_default_max_bytes(void);
/* True when HIPDNN_CACHE_DISABLE is set to anything but "" or "0". */
bool kc_disabled_by_env(void);
/* The process-wide cache at kc_default_dir, opened on first use; an unusable directory gives
 * a memory cache. NULL when disabled by HIPDNN_CACHE_DISABLE (or out of memory). Never
 * closed by the caller. */
kc_cache *kc_default(void);

/* ---- kernels (kc_table.c) ------------------------------------------------------------------- */

typedef struct kc_kernel {
    kc_key key;
    const char *arch;             /* "sm_90", "gfx942" */
    const char *compiler;         /* "nvrtc", "hiprtc" */
    const char *compiler_version; /* "12.4" */
    const char *entry;            /* the kernel's entry symbol */
    const void *meta;             /* launch metadata (grid, block, smem, args: the engine's) */
    size_t meta_size;
    const void *code;             /* the code object (CUBIN, HSACO) */
    size_t code_size;
    int64_t created, last_used;   /* unix seconds: filled by kc_get_kernel, ignored by put */
    void *owned;                  /* kc_get_kernel's copy; NULL in a caller-filled record */
} kc_kernel;

/* Stores (or overwrites) a kernel under k->key, and in the front. A record larger than 1/8
 * of max_bytes is refused (LMDB stores it in one run of free pages, which a fuller map may
 * not have). In READ_ONLY or MEMORY mode the record only reaches the in-memory
 * front (SUCCESS). Returns SUCCESS; BAD_PARAM_NULL_POINTER; BAD_PARAM (a string missing or
 * too long, a blob over its limit, or too large for the cache); ALLOC_FAILED; INTERNAL_ERROR
 * (LMDB). */
hipdnnStatus_t kc_put_kernel(kc_cache *c, const kc_kernel *k);
/* Looks a kernel up. On a hit, fills *out with a private copy (every pointer in it stays valid
 * until kc_kernel_release(out)) and returns true. A miss — absent, corrupt (counted, logged),
 * or any failure — returns false and leaves *out zeroed. */
bool kc_get_kernel(kc_cache *c, const kc_key *key, kc_kernel *out);
/* Frees a copy returned by kc_get_kernel and zeroes *k. NULL or a zeroed record: no-op. */
void kc_kernel_release(kc_kernel *k);

/* ---- plans (kc_table.c) ---------------------------------------------------------------------
 * A plan key is hashed (XXH3-128 of graph key, engine id and knob values) to the LMDB key;
 * the record also stores the key itself, so a lookup compares it in full. */

typedef struct kc_plan_key {
    kc_key graph;            /* the canonical graph key */
    int64_t engine_id;
    const int64_t *knobs;    /* the engine config's knob values, in the engine's knob order */
    size_t n_knobs;
} kc_plan_key;

typedef struct kc_plan {
    const kc_key *kernels;   /* the plan's kernels, in launch order */
    size_t n_kernels;
    const void *recipe;      /* how to launch them (the engine's opaque blob) */
    size_t recipe_size;
    int64_t created, last_used;
    void *owned;
} kc_plan;

/* The LMDB key of a plan key. */
void kc_plan_key_hash(const kc_plan_key *pk, kc_key *out);
/* Statuses as kc_put_kernel. */
hipdnnStatus_t kc_put_plan(kc_cache *c, const kc_plan_key *pk, const kc_plan *p);
/* As kc_get_kernel; release with kc_plan_release. */
bool kc_get_plan(kc_cache *c, const kc_plan_key *pk, kc_plan *out);
void kc_plan_release(kc_plan *p);

/* ---- maintenance (kc_maint.c) --------------------------------------------------------------- */

typedef struct kc_entry {
    kc_table table;
    kc_key key;
    char arch[KC_MAX_ARCH + 1];          /* kernels only; "" for plans */
    char compiler[KC_MAX_COMPILER + 1];  /* "<id> <version>" (truncated) */
    char entry[KC_MAX_ENTRY + 1];
    uint64_t size;                       /* the record's bytes (code size for kernels) */
    uint64_t code_size;
    int64_t created, last_used;          /* last_used 0: never recorded */
    bool valid;                          /* the record passed its header checks */
} kc_entry;

/* Every record, kernels first, each table in key order. *entries is freed with base_free.
 * Returns SUCCESS; BAD_PARAM_NULL_POINTER; ALLOC_FAILED; INTERNAL_ERROR (LMDB). */
hipdnnStatus_t kc_list(kc_cache *c, kc_entry **entries, size_t *n);

typedef struct kc_stats {
    kc_mode mode;
    uint64_t kernels, plans;    /* records stored */
    uint64_t bytes;             /* sum of their sizes */
    uint64_t map_size, map_used, max_bytes;
    uint64_t front_entries, front_bytes;
    /* this process, since the environment was opened: */
    uint64_t hits, front_hits, misses, corrupt, lmdb_reads, puts, evicted, grown;
} kc_stats;

hipdnnStatus_t kc_get_stats(kc_cache *c, kc_stats *out);

typedef struct kc_bad {
    kc_table table;          /* KC_TABLE_NONE: a damaged page of data.mdb (key zero) */
    kc_key key;              /* a key of the wrong length is shown zero-padded/truncated */
    char reason[96];
} kc_bad;

/* Checks every record in full (header, key, checksums) and, in LMDB mode, the data file's
 * pages (read without LMDB, so a damaged file cannot crash the check: kc_verify.c). *bad
 * (base_free) lists the bad records and damaged pages. With `fix`, when anything is bad (or a
 * last-used entry has no record), data.mdb is rebuilt from the records that verify and swapped
 * in (kc_repair.c); the list is then what the rebuild dropped. Returns SUCCESS (bad records are
 * not an error); BAD_PARAM (fix on a READ_ONLY cache); ALLOC_FAILED; NOT_SUPPORTED (a host whose
 * LMDB file layout is not 64-bit little-endian); INTERNAL_ERROR (LMDB, reading the file, or fix
 * while another process has the cache open: the message says so and nothing changed). */
hipdnnStatus_t kc_verify(kc_cache *c, bool fix, kc_bad **bad, size_t *n_bad);

/* Deletes records last used more than older_than_s seconds ago (<= 0: no age limit), then
 * the least recently used ones until the records' bytes are <= max_bytes (0: no limit).
 * *removed (optional) counts the deleted records. Statuses as kc_verify. */
hipdnnStatus_t kc_prune(kc_cache *c, uint64_t max_bytes, int64_t older_than_s, size_t *removed);

/* Writes pending last-used times now (they are otherwise batched). */
hipdnnStatus_t kc_flush(kc_cache *c);

/* Maintenance reads (kc_table.c): a record by its key, checked in full, without noting a use or
 * counting a hit (listing or showing a record is not using it). kc_peek_kernel fills *out as
 * kc_get_kernel does (release with kc_kernel_release); kc_peek_plan fills *out, the plan key the
 * record stores into *pk (its knobs in `knobs`, KC_MAX_KNOBS values) and the record's bytes into
 * *record_size (release with kc_plan_release). False: no such record, or it fails its checks. */
bool kc_peek_kernel(kc_cache *c, const kc_key *key, kc_kernel *out);
bool kc_peek_plan(kc_cache *c, const kc_key *key, kc_plan_key *pk, int64_t knobs[KC_MAX_KNOBS], kc_plan *out,
                  size_t *record_size);

/* ---- bundles (kc_bundle.c) ----------------------------------------------------------------
 * A bundle is one file holding valid records of both tables with their keys, lengths and
 * checksums (layout in kc_bundle.c). Export skips (and logs) corrupt records. Import checks
 * the whole bundle — every length, checksum and record — before it writes anything: a bad
 * bundle is rejected with BAD_PARAM and a message naming the offset and the problem, and the
 * cache is unchanged. */

/* Returns SUCCESS; BAD_PARAM_NULL_POINTER; INTERNAL_ERROR (LMDB, or writing `path`). */
hipdnnStatus_t kc_export(kc_cache *c, const char *path, size_t *n_records);
/* The same bundle in memory: *buf is freed with base_free. */
hipdnnStatus_t kc_export_mem(kc_cache *c, uint8_t **buf, size_t *len, size_t *n_records);
/* Returns SUCCESS; BAD_PARAM (a bad bundle, a READ_ONLY cache, more record bytes than 3/4 of
 * max_bytes); BAD_PARAM_NULL_POINTER; ALLOC_FAILED; INTERNAL_ERROR (reading `path`, LMDB). */
hipdnnStatus_t kc_import(kc_cache *c, const char *path, size_t *n_records);
hipdnnStatus_t kc_import_mem(kc_cache *c, const void *buf, size_t len, size_t *n_records);

/* ---- keys ------------------------------------------------------------------------------------ */

/* 32 lowercase hex digits and a NUL. */
void kc_key_hex(const kc_key *key, char out[2 * KC_KEY_SIZE + 1]);
/* Parses 32 hex digits; false otherwise. */
bool kc_key_parse(const char *hex, kc_key *out);

#endif
