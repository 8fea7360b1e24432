/* base_log.c — logging: a global severity threshold, a log file, and user callbacks.
 *
 * Configured from HIPDNN_LOG_LEVEL / HIPDNN_LOG_FILE on first use and by the
 * hipdnnBackendSetGlobalLogLevel_ext / hipdnnSetUserLogCallback_ext calls. HIPDNN_LOG_LEVEL takes
 * hipdnnSeverity_t's names or numbers (info 0, warn 1, error 2, fatal 3, off 4) and two detail
 * levels above info: debug (per plan: engine, kernel keys, cache tier, compile time, the fusion
 * partition) and verbose (also per execute, compiler logs); their lines are tagged "debug" /
 * "verbose" and reach callbacks as HIPDNN_SEV_INFO. A value it does not know, and a log file it
 * cannot open, are reported once on stderr (logging then goes to stderr). base_log_once drops
 * a line already emitted: an environment problem is said once per process. Callbacks are
 * called synchronously on the logging thread (the ASYNC mode is accepted and behaves the same).
 * The default level (neither set) is OFF except for refusals (base_log_refusal): one line per
 * graph or execution a public call turned down. Raises nothing: base_err.c (base_fail) calls
 * into this file, never the other way.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/base.h"

typedef struct callback {
    hipdnnUserLogCallback_t fn;
    hipdnnUserLogCallbackHandle_t user;
    hipdnnSeverity_t min_level;
} callback;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int level = HIPDNN_SEV_OFF;
static atomic_bool level_explicit; /* set by HIPDNN_LOG_LEVEL or the API: no default-level rule */
static int debug_level; /* BASE_DETAIL_*: 0, debug or verbose */
static char last_refusal[HIPDNN_ERROR_STRING_MAX_LENGTH + 128]; /* under lock */
static FILE *log_file;
static callback callbacks[BASE_LOG_MAX_CALLBACKS];
static int n_callbacks;

/* hipdnnSeverity_t's names and numbers (0 info .. 4 off), "warning", and the detail levels
 * "debug" and "verbose" (info severity plus detail). False for anything else. */
static bool parse_level(const char *s)
{
    static const struct { const char *name; hipdnnSeverity_t sev; int detail; } names[] = {
        {"info", HIPDNN_SEV_INFO, 0},   {"warn", HIPDNN_SEV_WARN, 0},   {"warning", HIPDNN_SEV_WARN, 0},
        {"error", HIPDNN_SEV_ERROR, 0}, {"fatal", HIPDNN_SEV_FATAL, 0}, {"off", HIPDNN_SEV_OFF, 0},
        {"debug", HIPDNN_SEV_INFO, BASE_DETAIL_DEBUG}, {"verbose", HIPDNN_SEV_INFO, BASE_DETAIL_VERBOSE}};
    if (s[0] >= '0' && s[0] <= '4' && s[1] == '\0') {
        atomic_store(&level, (hipdnnSeverity_t)(s[0] - '0'));
        atomic_store(&level_explicit, true);
        return true;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            atomic_store(&level, names[i].sev);
            atomic_store(&level_explicit, true);
            debug_level = names[i].detail;
            return true;
        }
    return false;
}

/* Said on stderr whatever the level: the user asked for something logging cannot do. */
static void env_problem(const char *fmt, const char *value, const char *why)
{
    fprintf(stderr, "[hipdnn warn] ");
    fprintf(stderr, fmt, value, why);
    fputc('\n', stderr);
    fflush(stderr);
}

static void init_from_env(void)
{
    const char *lv = getenv("HIPDNN_LOG_LEVEL");
    if (lv != NULL && lv[0] != '\0' && !parse_level(lv))
        env_problem("HIPDNN_LOG_LEVEL=\"%.64s\" is not a level (%s); using the default",
                    lv, "info|warn|error|fatal|off, 0..4 as hipdnnSeverity_t, debug, verbose");
    const char *path = getenv("HIPDNN_LOG_FILE");
    if (path == NULL || path[0] == '\0' || strcmp(path, "stderr") == 0)
        log_file = stderr;
    else if (strcmp(path, "stdout") == 0)
        log_file = stdout;
    else if ((log_file = fopen(path, "a")) == NULL) {
        log_file = stderr;
        env_problem("HIPDNN_LOG_FILE=\"%.512s\" cannot be opened for writing (%s); logging to stderr",
                    path, strerror(errno));
    }
}

static void ensure_init(void) { pthread_once(&init_once, init_from_env); }

hipdnnSeverity_t base_log_level(void)
{
    ensure_init();
    return atomic_load(&level);
}

void base_log_set_level(hipdnnSeverity_t lv)
{
    ensure_init();
    atomic_store(&level, lv);
    atomic_store(&level_explicit, true);
}

int base_debug_level(void)
{
    ensure_init();
    return debug_level;
}

static const char *sev_name(hipdnnSeverity_t sev)
{
    switch (sev) {
    case HIPDNN_SEV_INFO: return "info";
    case HIPDNN_SEV_WARN: return "warn";
    case HIPDNN_SEV_ERROR: return "error";
    case HIPDNN_SEV_FATAL: return "fatal";
    case HIPDNN_SEV_OFF: return "off";
    }
    return "off"; /* a value outside the enum */
}

/* Writes one line to the log file and the callbacks; the caller holds `lock`. `tag` names the
 * line's level in the file (the severity's name, or "debug" / "verbose"). */
static void emit_tagged(hipdnnSeverity_t sev, const char *tag, const char *msg)
{
    fprintf(log_file, "[hipdnn %s] %s\n", tag, msg);
    fflush(log_file);
    for (int i = 0; i < n_callbacks; i++)
        if (sev >= callbacks[i].min_level)
            callbacks[i].fn(callbacks[i].user, sev, msg);
}

static void emit(hipdnnSeverity_t sev, const char *msg) { emit_tagged(sev, sev_name(sev), msg); }

void base_vlog(hipdnnSeverity_t sev, const char *fmt, va_list ap)
{
    hipdnnSeverity_t lv = base_log_level();
    if (lv == HIPDNN_SEV_OFF || sev < lv || sev >= HIPDNN_SEV_OFF)
        return;
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH + 64];
    vsnprintf(msg, sizeof msg, fmt, ap);
    pthread_mutex_lock(&lock);
    emit(sev, msg);
    pthread_mutex_unlock(&lock);
}

void base_log_refusal(const char *fmt, ...)
{
    hipdnnSeverity_t lv = base_log_level();
    if (atomic_load(&level_explicit) && (lv == HIPDNN_SEV_OFF || lv > HIPDNN_SEV_ERROR))
        return;
    char msg[sizeof last_refusal];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&lock);
    if (strcmp(msg, last_refusal) != 0) {
        memcpy(last_refusal, msg, sizeof msg);
        emit(HIPDNN_SEV_ERROR, msg);
    }
    pthread_mutex_unlock(&lock);
}

void base_log(hipdnnSeverity_t sev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_vlog(sev, fmt, ap);
    va_end(ap);
}

static int find_callback(hipdnnUserLogCallback_t cb, hipdnnUserLogCallbackHandle_t user)
{
    for (int i = 0; i < n_callbacks; i++)
        if (callbacks[i].fn == cb && callbacks[i].user == user)
            return i;
    return -1;
}

hipdnnStatus_t base_log_add_callback(hipdnnUserLogCallback_t cb, hipdnnSeverity_t min_level,
                                     hipdnnUserLogCallbackHandle_t user)
{
    ensure_init();
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    pthread_mutex_lock(&lock);
    int i = find_callback(cb, user);
    if (min_level == HIPDNN_SEV_OFF) {
        if (i >= 0)
            callbacks[i] = callbacks[--n_callbacks];
    } else if (i >= 0) {
        callbacks[i].min_level = min_level;
    } else if (n_callbacks < BASE_LOG_MAX_CALLBACKS) {
        callbacks[n_callbacks++] = (callback){cb, user, min_level};
    } else {
        st = HIPDNN_STATUS_ALLOC_FAILED;
    }
    pthread_mutex_unlock(&lock);
    return st; /* the caller raises it: base_fail logs, so raising here would call back into base_err.c */
}

/* FNV-1a of a line, for base_log_once's set of lines already emitted. */
static uint64_t line_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void base_log_once(hipdnnSeverity_t sev, const char *fmt, ...)
{
    static uint64_t seen[BASE_LOG_ONCE_MAX]; /* under lock */
    static int n_seen;
    hipdnnSeverity_t lv = base_log_level();
    if (lv == HIPDNN_SEV_OFF || sev < lv || sev >= HIPDNN_SEV_OFF)
        return;
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t h = line_hash(msg);
    pthread_mutex_lock(&lock);
    bool fresh = true;
    for (int i = 0; i < n_seen && fresh; i++)
        fresh = seen[i] != h;
    if (fresh) {
        if (n_seen < BASE_LOG_ONCE_MAX)
            seen[n_seen++] = h;
        emit(sev, msg);
    }
    pthread_mutex_unlock(&lock);
}

void base_detail(int detail, const char *fmt, ...)
{
    hipdnnSeverity_t lv = base_log_level();
    if (debug_level < detail || lv != HIPDNN_SEV_INFO)
        return;
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&lock);
    emit_tagged(HIPDNN_SEV_INFO, detail >= BASE_DETAIL_VERBOSE ? "verbose" : "debug", msg);
    pthread_mutex_unlock(&lock);
}

bool base_detail_on(int detail)
{
    return base_debug_level() >= detail && base_log_level() == HIPDNN_SEV_INFO;
}
