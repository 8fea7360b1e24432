/* hipdnn_cache.h — what the hipdnn-cache command line (hipdnn_cache.c) hands to the subcommands
 * that live in their own files:
 *   hipdnn_cache_warm.c  warm: compile graphs' kernels into a cache through the public API;
 *   hipdnn_cache_show.c  show: one record, a kernel's fields and source or a plan's description;
 *   hipdnn_cache_ls.c    ls: every record, described (kernels and plans);
 *   hipdnn_cache_help.c  the command table: help, usage lines, the man page;
 *   hipdnn_cache_version.c  --version.
 * Exit statuses are the tool's: 0 success, 1 a failed operation, 2 a usage error.
 */
#ifndef HIPDNN_TOOLS_HIPDNN_CACHE_H
#define HIPDNN_TOOLS_HIPDNN_CACHE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    const char *const *plugins;  /* custom-op plugin libraries, loaded before any handle */
    int n_plugins;
} hc_warm_opts;

/* Loads the custom-op plugins (o->plugins), then sets the compile target (o->arch), or checks that this process has a GPU to compile for.
 * Returns -1 to go on, else an exit status (usage: no GPU and no --arch, an arch no compiler
 * here targets, a plugin that does not load). Call it first, before hc_warm. */
int hc_warm_target(const hc_warm_opts *o);
/* Warms the cache in o->dir; returns an exit status (1 when any graph failed). */
int hc_warm(const hc_warm_opts *o);

/* Prints the record of cache c whose key is `hex` (32 hex digits, as ls prints it): a kernel's
 * fields, and with `source` the emitted HIP source exactly as compiled. Returns an exit status
 * (1: no such record, or --source of a plan record). */
int hc_show(hipdnnKernelCache_ext_t c, const char *hex, bool source, bool json);

/* hipdnn_cache_help.c: the command table and what is printed from it. hc_help prints the command
 * list (command NULL) or one command's help; hc_man the man page (roff); hc_usage_error one line
 * "hipdnn-cache: <message> (hipdnn-cache help COMMAND)" and the usage line of `command` (NULL or
 * unknown: the tool's) on stderr, and returns HC_EXIT_USAGE. Each returns an exit status. */
bool hc_is_command(const char *name);
int hc_help(const char *command);
int hc_man(const char *version);
int hc_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* hipdnn_cache_version.c: --version [--json]: the library's version, the cache's format and key
 * schema versions, the run-time compilers found. */
int hc_version(bool json);

/* hipdnn_cache_ls.c: ls [--json] (an exit status); a plan record as JSON (ls and show share it:
 * now is the time ages are counted from); a byte count as "12.3 KiB". */
int hc_ls(hipdnnKernelCache_ext_t c, bool json);
json_t *hc_plan_json(const hipdnnKernelCachePlan_ext_t *p, int64_t now);
void hc_fmt_size(uint64_t n, char *buf, size_t size);

/* hipdnn_cache.c: an age as "40s", "12m", "5h", "3d" ("never" for t <= 0); a JSON value printed
 * on stdout and freed (false: it could not be written); a count as a JSON integer (clamped). */
void hc_fmt_age(int64_t now, int64_t t, char *buf, size_t size);
bool hc_put_json(json_t *j);
json_t *hc_u64_json(uint64_t v);

/* hipdnn_cache.c: the cache's directory; a key of 32 hex digits (either case) written to out in
 * lowercase, as ls prints it (false: not a key). */
const char *hc_dir(hipdnnKernelCache_ext_t c);
bool hc_key_canon(const char *hex, char out[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT]);

#endif
