/* hipdnn_jit.h — hipdnn-jit extensions beyond the hipDNN backend API.
 *
 * Three groups, each usable by any program (the hipdnn-cache tool and the benchmarks use
 * nothing else besides hipdnn_backend.h):
 *   - device memory helpers for programs that have no GPU runtime of their own (tools, samples,
 *     benchmarks): they use the same driver and the device's primary context as the library, so
 *     the pointers they return work in variant packs. Without a GPU every call returns
 *     HIPDNN_STATUS_NOT_SUPPORTED with a last-error message saying so;
 *   - ahead-of-time compilation for a named target (hipdnnSetCompileTarget_ext);
 *   - kernel cache maintenance (hipdnnKernelCache*_ext): list, inspect, verify, prune, export
 *     and import the records of a cache directory — what `hipdnn-cache` does. No GPU needed;
 *   - what this library can use here: the run-time compilers found (hipdnnGetCompilers_ext) and
 *     the kernel cache's format and key schema versions (hipdnnKernelCacheGetSchema_ext).
 * Every call that fails leaves a message in the thread's last-error slot
 * (hipdnnGetLastErrorString).
 */
#ifndef HIPDNN_JIT_H
#define HIPDNN_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "hipdnn_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates `bytes` of device memory (*ptr = NULL for 0 bytes). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnDeviceMalloc_ext(void **ptr, size_t bytes);
/* Frees memory from hipdnnDeviceMalloc_ext (NULL is ignored). When the device cannot be bound to
 * the calling thread, nothing is freed and that failure is returned: the call may be repeated. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnDeviceFree_ext(void *ptr);
/* Synchronous copies between host and device memory. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnMemcpyHostToDevice_ext(void *dst, const void *src, size_t bytes);
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnMemcpyDeviceToHost_ext(void *dst, const void *src, size_t bytes);
/* Waits for all work queued on the handle's stream. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnStreamSynchronize_ext(hipdnnHandle_t handle);

/* Ahead-of-time compilation (warming a kernel cache, also on a machine without a GPU). From
 * this call on, the JIT engines of this process generate and compile kernels for `arch`
 * ("sm_90", "sm_80", "gfx90a", "gfx942", ...) as if a device of that arch with `sm_count`
 * multiprocessors were present (0: the arch's usual count: sm_90 132, sm_80 108, sm_89 128,
 * gfx942 304, gfx90a 110, else 100), whether or not a GPU is present. Heuristics rank configs
 * for that target; plan finalize compiles into the plan's kernel cache and records the plan
 * there, but loads nothing: executing such a plan returns HIPDNN_STATUS_NOT_SUPPORTED. A warm
 * cache hits on a real device of the same arch, multiprocessor count and compiler version.
 * NULL or "" returns to the process's own device. Process-wide: call it before building plans,
 * not while other threads build them.
 * Returns SUCCESS; BAD_PARAM (an arch no run-time compiler of this machine targets, named in
 * the message, or sm_count < 0). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnSetCompileTarget_ext(const char *arch, int sm_count);

/* ---- run-time compilers ----------------------------------------------------------------------- */

typedef struct {
    char id[16];        /* "nvrtc" (NVIDIA targets), "hiprtc" (AMD targets) */
    char platform[16];  /* "nvidia", "amd" */
    char targets[16];   /* the arch prefix it compiles: "sm_", "gfx" */
    int found;          /* nonzero when its library loads on this machine */
    int major, minor;   /* its version when found (hipRTC: the HIP version it comes with) */
    char reason[256];   /* when not found: why (the libraries looked for and the loader's message) */
} hipdnnCompilerInfo_ext_t;

/* The run-time compilers this library compiles kernels with, found on this machine or not, one
 * per platform (NVIDIA first). Loads a compiler library this process has not loaded yet (a few
 * milliseconds each); needs no GPU. Fills the first min(capacity, *count) entries of `compilers`
 * (which may be NULL when capacity is 0: a count query) and sets *count to how many there are.
 * Returns SUCCESS (a compiler not found is not a failure: its entry says why);
 * BAD_PARAM_NULL_POINTER (count, or compilers with capacity > 0); BAD_PARAM (capacity < 0). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnGetCompilers_ext(hipdnnCompilerInfo_ext_t *compilers, int capacity,
                                                          int *count);

/* ---- kernel cache maintenance ---------------------------------------------------------------
 * A kernel cache directory (the one plans use through HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR or
 * by default) holds two kinds of records, each under a 16-byte key written as 32 lowercase hex
 * digits: kernels (a compiled code object with its arch, compiler, entry point, and, for
 * kernels hipdnn-jit compiled, the compile options and the emitted source) and plans (which
 * kernels a graph's plan launches). Any number of processes may use one directory at once. */

typedef struct hipdnnKernelCache_ext *hipdnnKernelCache_ext_t;

#define HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT 33 /* 32 hex digits and the NUL */
#define HIPDNN_KERNEL_CACHE_NO_LIMIT_EXT UINT64_MAX

typedef enum {
    HIPDNN_KERNEL_CACHE_RECORD_FILE_EXT = 0,   /* verify only: a damaged page of the data file */
    HIPDNN_KERNEL_CACHE_RECORD_KERNEL_EXT = 1,
    HIPDNN_KERNEL_CACHE_RECORD_PLAN_EXT = 2,
} hipdnnKernelCacheRecordKind_ext_t;

/* The default cache directory: $HIPDNN_CACHE_DIR, else $XDG_CACHE_HOME/hipdnn-jit, else
 * $HOME/.cache/hipdnn-jit (relative values are ignored); nothing is created.
 * Returns SUCCESS; BAD_PARAM_NULL_POINTER; BAD_PARAM (no variable usable, or too long a path);
 * BAD_PARAM_SIZE_INSUFFICIENT (dir too small). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheDefaultDir_ext(char *dir, size_t size);

/* Opens the cache in `dir` for maintenance, read-write where the directory allows it, else
 * read-only (hipdnnKernelCacheGetInfo_ext says which). A missing directory is created (mode
 * 0700, with its parents). A damaged data file is moved aside and the
 * cache opens empty (the info's note says so). Unlike a plan's cache, a directory that cannot
 * be used at all is an error, not a fallback to memory.
 * Returns SUCCESS; BAD_PARAM_NULL_POINTER; BAD_PARAM (an overlong path); ALLOC_FAILED;
 * INTERNAL_ERROR (the directory cannot be used: not trusted — not this user's, writable by
 * group or others, data files that are links —, or the store refuses it; the message says
 * which). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheOpen_ext(const char *dir, hipdnnKernelCache_ext_t *cache);
/* Closes a cache from hipdnnKernelCacheOpen_ext (writes pending last-use times). NULL: no-op. */
HIPDNN_BACKEND_EXPORT void hipdnnKernelCacheClose_ext(hipdnnKernelCache_ext_t cache);
/* Frees an array returned by hipdnnKernelCacheList_ext, hipdnnKernelCacheVerify_ext,
 * hipdnnKernelCacheGetKernel_ext or hipdnnKernelCacheGetPlan_ext. NULL: no-op. */
HIPDNN_BACKEND_EXPORT void hipdnnKernelCacheFree_ext(void *p);

typedef struct {
    const char *dir;   /* the directory */
    const char *mode;  /* "read-write", "read-only" or "memory" */
    int writable;      /* nonzero when mode is "read-write" */
    const char *note;  /* what the open repaired (a damaged data file moved aside), else "" */
} hipdnnKernelCacheInfo_ext_t;

/* Fills *info; its strings live as long as the cache. Returns SUCCESS; BAD_PARAM_NULL_POINTER. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheGetInfo_ext(hipdnnKernelCache_ext_t cache,
                                                                hipdnnKernelCacheInfo_ext_t *info);

typedef struct {
    uint64_t kernels, plans; /* records stored */
    uint64_t bytes;          /* the sum of their sizes */
    uint64_t map_size;       /* the data file's current map, bytes */
    uint64_t map_used;       /* of which in use */
    uint64_t max_bytes;      /* the limit the map never grows past */
} hipdnnKernelCacheStats_ext_t;

/* Returns SUCCESS; BAD_PARAM_NULL_POINTER; INTERNAL_ERROR (the store). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheGetStats_ext(hipdnnKernelCache_ext_t cache,
                                                                 hipdnnKernelCacheStats_ext_t *stats);

typedef struct {
    hipdnnKernelCacheRecordKind_ext_t kind;
    char key[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT];
    char arch[64];      /* kernels: "sm_90", "gfx942"; plans: "" */
    char compiler[64];  /* kernels: "<compiler> <version>" */
    char entry[256];    /* kernels: the entry symbol */
    uint64_t size;      /* the record's bytes */
    uint64_t code_size; /* kernels: the code object's bytes */
    int64_t created;    /* unix seconds */
    int64_t last_used;  /* unix seconds; 0: never recorded */
    int valid;          /* nonzero when the record passed its header checks */
} hipdnnKernelCacheEntry_ext_t;

/* The versions of what a kernel cache holds, as this library writes and reads it. A record written
 * under another record format, or under other key schemas, is a miss for this library (never an
 * error): it is recompiled and written again. */
typedef struct {
    int record_format;  /* the on-disk layout of kernel and plan records */
    int kernel_key;     /* what a kernel's key hashes (compiler and version, arch, options, source) */
    int plan_key;       /* what a plan's key hashes (graph, target, library build, engine, knobs) */
    int plan_recipe;    /* the layout of a plan record's launch recipe */
    int bundle_format;  /* the export / import file */
} hipdnnKernelCacheSchema_ext_t;

/* Returns SUCCESS; BAD_PARAM_NULL_POINTER. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheGetSchema_ext(hipdnnKernelCacheSchema_ext_t *schema);

/* Every record, kernels first, each kind in key order; *entries (NULL when there are none) is
 * freed with hipdnnKernelCacheFree_ext.
 * Returns SUCCESS; BAD_PARAM_NULL_POINTER; ALLOC_FAILED; INTERNAL_ERROR (the store). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheList_ext(hipdnnKernelCache_ext_t cache,
                                                             hipdnnKernelCacheEntry_ext_t **entries,
                                                             size_t *count);

typedef struct {
    char key[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT];
    char arch[64], compiler[64], compiler_version[32], entry[256];
    size_t code_size;
    int64_t created, last_used;  /* unix seconds; last_used 0: never recorded */
    const char *source;          /* the emitted HIP source exactly as compiled; NULL when the
                                  * record does not carry one (not written by hipdnn-jit) */
    int n_options;               /* the compile options (with source only) */
    const char *const *options;
} hipdnnKernelCacheKernel_ext_t;

/* The kernel record whose key is `key` (32 hex digits, either case). *kernel is NULL when no
 * kernel record has that key or the record fails its checks, else one allocation freed with
 * hipdnnKernelCacheFree_ext. Reading a record does not count as a use (its last_used stays).
 * Returns SUCCESS (found or not); BAD_PARAM_NULL_POINTER; BAD_PARAM (not a key); ALLOC_FAILED. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheGetKernel_ext(hipdnnKernelCache_ext_t cache, const char *key,
                                                                  hipdnnKernelCacheKernel_ext_t **kernel);

typedef struct {
    char key[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT];
    int described;           /* nonzero when the record's recipe is of this library's format; else
                              * the fields from graph_key to compiler_version are empty or 0 */
    char graph_key[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT]; /* the canonical graph key the plan was built for */
    int n_ops;               /* the graph's operations */
    char ops[256];           /* their names in order, comma separated ("...": the list is cut) */
    int64_t n_tensors;       /* the graph's tensors */
    char arch[64];           /* the target: "sm_90", "gfx942" */
    int sm_count;            /* and its multiprocessor count */
    char compiler[32];       /* the compiler its kernels were built with: "nvrtc" */
    char compiler_version[32]; /* "12.4" */
    int64_t engine_id;       /* HIPDNN_ATTR_ENGINE_GLOBAL_INDEX */
    char engine[32];         /* "jit_fused", "jit_unfused"; "" for an engine this library lacks */
    int n_knobs;
    const int64_t *knobs;    /* the knob values, in the engine's order */
    const char *const *knob_names; /* "jit.tile_m"; "" where the engine is unknown */
    int n_kernels;
    const char *const *kernels; /* the kernel records' keys, in launch order */
    uint64_t size;           /* the record's bytes */
    int64_t created, last_used; /* unix seconds; last_used 0: never recorded */
} hipdnnKernelCachePlan_ext_t;

/* The plan record whose key is `key` (32 hex digits, either case), read as
 * hipdnnKernelCacheGetKernel_ext reads a kernel: *plan is NULL when no plan record has that key or
 * the record fails its checks, else one allocation freed with hipdnnKernelCacheFree_ext; reading
 * it is not a use. Returns SUCCESS (found or not); BAD_PARAM_NULL_POINTER; BAD_PARAM (not a key);
 * ALLOC_FAILED. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheGetPlan_ext(hipdnnKernelCache_ext_t cache, const char *key,
                                                                hipdnnKernelCachePlan_ext_t **plan);

typedef struct {
    hipdnnKernelCacheRecordKind_ext_t kind; /* FILE: a damaged page of the data file (key zero) */
    char key[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT];
    char reason[96];
} hipdnnKernelCacheBad_ext_t;

/* Checks every record in full (header, key, checksums) and the data file's pages; *bad (NULL
 * when all is well; hipdnnKernelCacheFree_ext) lists what failed. With `fix` nonzero and anything
 * bad, the data file is rebuilt from the records that verify; the list is then what was dropped.
 * Returns SUCCESS (bad records are not an error); BAD_PARAM_NULL_POINTER; BAD_PARAM (fix on a
 * read-only cache); ALLOC_FAILED; NOT_SUPPORTED (a host whose store layout is not 64-bit
 * little-endian); INTERNAL_ERROR (the store, or fix while another process has the cache open:
 * nothing changed). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheVerify_ext(hipdnnKernelCache_ext_t cache, int fix,
                                                               hipdnnKernelCacheBad_ext_t **bad, size_t *count);

/* Deletes records last used more than older_than_s seconds ago (<= 0: no age limit), then the
 * least recently used ones until the records' bytes are at most max_bytes (0 empties the cache;
 * HIPDNN_KERNEL_CACHE_NO_LIMIT_EXT: no size limit). *removed (may be NULL) counts the deleted
 * records. Returns as hipdnnKernelCacheVerify_ext. */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCachePrune_ext(hipdnnKernelCache_ext_t cache, uint64_t max_bytes,
                                                              int64_t older_than_s, size_t *removed);

/* Writes every valid record to a bundle file at `path` (a portable file another machine's
 * cache imports). Returns SUCCESS; BAD_PARAM_NULL_POINTER; INTERNAL_ERROR (the store, or
 * writing the file). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheExport_ext(hipdnnKernelCache_ext_t cache, const char *path,
                                                               size_t *records);
/* Adds the records of a bundle file; the whole bundle is checked before anything is written.
 * Returns SUCCESS; BAD_PARAM (a bad bundle — the message names the offset and the problem —,
 * a read-only cache, or more bytes than the cache holds); BAD_PARAM_NULL_POINTER; ALLOC_FAILED;
 * INTERNAL_ERROR (reading the file, the store). */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnKernelCacheImport_ext(hipdnnKernelCache_ext_t cache, const char *path,
                                                               size_t *records);

#ifdef __cplusplus
}
#endif

#endif
