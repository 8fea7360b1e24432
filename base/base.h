/* base.h — the contract of base/, the shared primitives every module may use.
 *
 * Owns: the per-thread last-error slot and the one function that raises an error
 * (base_fail), logging (levels, file, user callbacks), allocation with fault
 * injection, and a growable string builder. Calls between its files run one way: base_err.c
 * (base_fail) logs through base_log.c, and base_log.c raises nothing. Knows nothing of descriptors, IR,
 * caches or GPUs. Uses only the public status/severity enums from include/.
 */
#ifndef HIPDNN_BASE_H
#define HIPDNN_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipdnn_backend.h"

#if defined(__GNUC__)
#define BASE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BASE_PRINTF(f, a)
#endif

/* ---- errors (base_err.c) ------------------------------------------------------------------
 * base_fail records a message in this thread's last-error slot, logs it at ERROR severity and
 * returns `status`, so a failing path reads `return base_fail(HIPDNN_STATUS_BAD_PARAM, "...")`.
 * It is the one place errors are raised: a breakpoint here catches every failure. */
hipdnnStatus_t base_fail(hipdnnStatus_t status, const char *fmt, ...) BASE_PRINTF(2, 3);
/* Copies the last error (truncated, NUL-terminated) into msg; clears it when `clear`. */
void base_last_error(char *msg, size_t max_size, bool clear);
/* Records a failure in the last-error slot without logging it: for a failure logged once
 * already (a cached result of a one-time initialisation) that a later call reports again. */
hipdnnStatus_t base_fail_quiet(hipdnnStatus_t status, const char *fmt, ...) BASE_PRINTF(2, 3);
/* Every public entry point runs between these two (api/fe_api.c): while a call runs, failures it
 * raises go to a pending message; base_call_done publishes it to the last-error slot when the
 * call fails and clears the slot when the call succeeds, so the slot always describes the
 * thread's last call (hipDNN keeps a message until hipdnnGetLastErrorString reads it; a stale
 * message after a successful call misled users, so we differ there) and never holds a failure
 * that a successful call met and got past. The error readers themselves do not count as calls.
 * Nested calls publish at the outermost one. Outside a call (unit tests of a module) base_fail
 * writes the slot directly. Returns st. */
void base_call_begin(void);
hipdnnStatus_t base_call_done(hipdnnStatus_t st);
/* base_call_done for the calls that release something (hipdnnDestroy,
 * hipdnnBackendDestroyDescriptor, hipdnnDeviceFree_ext): when they succeed the slot stays as it
 * was, so C's "fail, clean up, then report" pattern still reads the failure. */
hipdnnStatus_t base_call_done_release(hipdnnStatus_t st);
/* The enum name of a status, e.g. "HIPDNN_STATUS_BAD_PARAM"; never NULL. */
const char *base_status_name(hipdnnStatus_t status);

/* ---- public enum names (base_names.c) ------------------------------------------------------
 * hipdnnPointwiseMode_t by value, without the prefix ("RELU_FWD"; 0 is "UNSET"; a hole NULL). */
#define BASE_N_POINTWISE_MODES 48
extern const char *const base_pointwise_mode_names[BASE_N_POINTWISE_MODES];
/* The name of a pointwise mode; "UNKNOWN" for a value outside the enum. */
const char *base_pointwise_mode_name(int mode);

/* ---- logging (base_log.c) -----------------------------------------------------------------
 * Global threshold: messages with severity >= the level are emitted (OFF emits nothing).
 * Initialised once from HIPDNN_LOG_LEVEL (hipdnnSeverity_t's names info|warn|error|fatal|off or
 * its numbers 0..4 in the same order, or debug / verbose: info plus detail lines) and
 * HIPDNN_LOG_FILE (a path, "stdout" or "stderr"; default stderr; a path that cannot be opened
 * is reported once on stderr and logging stays on stderr). */
void base_log(hipdnnSeverity_t sev, const char *fmt, ...) BASE_PRINTF(2, 3);
void base_vlog(hipdnnSeverity_t sev, const char *fmt, va_list ap);
/* A refusal: a public call that turned a user's graph or execution down. Logged at ERROR
 * severity also at the default level (HIPDNN_LOG_LEVEL unset and no level set through the
 * API), where nothing else is, so a caller that drops the last-error string still sees why;
 * an explicit level of fatal or off silences it. A line equal to the previous refusal is not
 * repeated. */
void base_log_refusal(const char *fmt, ...) BASE_PRINTF(1, 2);
hipdnnSeverity_t base_log_level(void);
void base_log_set_level(hipdnnSeverity_t level);
/* Detail levels above info (HIPDNN_LOG_LEVEL=debug / verbose). Debug: per plan, the engine chosen
 * and why, kernel keys, the cache tier each came from, compile times, the fusion partition.
 * Verbose: debug plus a line per execute and the compilers' logs. */
#define BASE_DETAIL_DEBUG 1
#define BASE_DETAIL_VERBOSE 2
/* The detail level: 0, BASE_DETAIL_DEBUG or BASE_DETAIL_VERBOSE. */
int base_debug_level(void);
/* A detail line ("[hipdnn debug] ..." / "[hipdnn verbose] ..."), emitted when the detail level is
 * at least `detail` and the level is info; callbacks see HIPDNN_SEV_INFO. */
void base_detail(int detail, const char *fmt, ...) BASE_PRINTF(2, 3);
/* Whether base_detail(detail, ...) would emit: skip building an expensive message otherwise. */
bool base_detail_on(int detail);
/* base_log, except that a line this process already emitted through here is dropped: for
 * problems of the environment (no driver, a directory that cannot be made) met on every call.
 * Remembers BASE_LOG_ONCE_MAX distinct lines; past that, every line is emitted. */
#define BASE_LOG_ONCE_MAX 256
void base_log_once(hipdnnSeverity_t sev, const char *fmt, ...) BASE_PRINTF(2, 3);
/* Registers cb for messages of min_level and above (OFF: removes it; registered again: its level
 * changes). ALLOC_FAILED, raising nothing, when BASE_LOG_MAX_CALLBACKS are registered: the caller
 * raises it (logging sits below base_fail, which logs). */
#define BASE_LOG_MAX_CALLBACKS 16
hipdnnStatus_t base_log_add_callback(hipdnnUserLogCallback_t cb, hipdnnSeverity_t min_level,
                                     hipdnnUserLogCallbackHandle_t user);

/* ---- allocation (base_alloc.c) ------------------------------------------------------------
 * Every allocation of the library goes through these, so tests can fail the Nth one. */
void *base_malloc(size_t n);
void *base_calloc(size_t count, size_t size);
void *base_realloc(void *p, size_t n);
void *base_memdup(const void *p, size_t n);
char *base_strndup(const char *s, size_t n);
void base_free(void *p);
/* Fault injection: the nth allocation from now (1 = the next one) fails, and every one after
 * it while `sticky`. 0 turns injection off. Returns the number of allocations seen so far. */
void base_alloc_fail_at(long nth, bool sticky);
long base_alloc_count(void);

/* ---- string builder (base_sb.c) -----------------------------------------------------------
 * Appends never fail loudly: an allocation failure sets `oom` and later appends are no-ops. */
typedef struct base_sb {
    char *p;
    size_t len, cap;
    bool oom;
} base_sb;

void base_sb_putn(base_sb *sb, const char *s, size_t n);
void base_sb_puts(base_sb *sb, const char *s);
void base_sb_printf(base_sb *sb, const char *fmt, ...) BASE_PRINTF(2, 3);
void base_sb_free(base_sb *sb);
/* The text so far (always NUL-terminated, "" when empty). */
const char *base_sb_str(const base_sb *sb);

/* ---- base64 (base_b64.c) -------------------------------------------------------------------- */

/* Appends the padded base64 form of n bytes to out. */
void base_b64_encode(const void *data, size_t n, base_sb *out);
/* Appends the bytes of n characters of padded base64; false on anything else (out then holds
 * a prefix) or when out ran out of memory. */
bool base_b64_decode(const char *text, size_t n, base_sb *out);

/* ---- build identity (base_build_id.c) ------------------------------------------------------ */

/* The source ID of this build (a hash of the library's sources, headers and templates): *out
 * points at its bytes; returns their count. */
size_t base_build_id(const uint8_t **out);

/* ---- half precision (base_half.c): round to nearest even ------------------------------------ */
float base_fp16_to_f32(uint16_t h);
uint16_t base_f32_to_fp16(float f);
float base_bf16_to_f32(uint16_t h);
uint16_t base_f32_to_bf16(float f);

/* Checked size arithmetic: false on overflow. */
bool base_mul_size(size_t a, size_t b, size_t *out);

#endif
