/* hipdnn_cache.h — what the hipdnn-cache command line (hipdnn_cache.c) hands to the subcommands
 * that live in their own files:
 *   hipdnn_cache_warm.c  warm: compile graphs' kernels into a cache through the public API;
 *   hipdnn_cache_show.c  show: one kernel record, its fields and its source.
 * Exit statuses are the tool's: 0 success, 1 a failed operation, 2 a usage error.
 */
#ifndef HIPDNN_TOOLS_HIPDNN_CACHE_H
#define HIPDNN_TOOLS_HIPDNN_CACHE_H

#include <stdbool.h>

#include "hipdnn_jit.h"

enum { HC_EXIT_OK = 0, HC_EXIT_FAIL = 1, HC_EXIT_USAGE = 2 };

typedef struct hc_warm_opts {
    const char *dir;             /* the cache directory (resolved by the caller) */
    const char *arch;            /* compile target ("sm_90", "gfx942"); NULL: this process's GPU */
    int sm_count;                /* multiprocessors of the target; 0: the arch's usual count */
    int jobs;                    /* graphs warmed at once (threads), >= 1 */
    bool all_configs;            /* every ranked config that compiles, not only the first */
    bool skip_unsupported;       /* a graph no compiling engine supports is skipped, not failed */
    bool json;                   /* one JSON object on stdout instead of lines */
    const char *const *paths;    /* graph files (.json or .bin) and directories of them */
    int n_paths;
} hc_warm_opts;

/* Sets the compile target (o->arch), or checks that this process has a GPU to compile for.
 * Returns -1 to go on, else an exit status (usage: no GPU and no --arch, an arch no compiler
 * here targets). Call it first, before hc_warm. */
int hc_warm_target(const hc_warm_opts *o);
/* Warms the cache in o->dir; returns an exit status (1 when any graph failed). */
int hc_warm(const hc_warm_opts *o);

/* Prints the record of cache c whose key is `hex` (32 hex digits, as ls prints it): a kernel's
 * fields, and with `source` the emitted HIP source exactly as compiled. Returns an exit status
 * (1: no such record, or --source of a plan record). */
int hc_show(hipdnnKernelCache_ext_t c, const char *hex, bool source, bool json);

/* hipdnn_cache.c: the cache's directory; a key of 32 hex digits (either case) written to out in
 * lowercase, as ls prints it (false: not a key). */
const char *hc_dir(hipdnnKernelCache_ext_t c);
bool hc_key_canon(const char *hex, char out[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT]);

#endif
