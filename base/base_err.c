/* base_err.c — the per-thread last-error slot and base_fail, the one raise point.
 *
 * The slot holds at most HIPDNN_ERROR_STRING_MAX_LENGTH bytes including the NUL. It is
 * read by hipdnnGetLastErrorString (which clears it) and hipdnnPeekLastErrorString_ext. Inside a
 * public call (base_call_begin .. base_call_done) failures go to a pending slot, published only
 * when the call fails; a call that succeeds clears the slot, except a release (destroy, free).
 */
#include <stdio.h>
#include <string.h>

#include "base/base.h"

static _Thread_local char last_error[HIPDNN_ERROR_STRING_MAX_LENGTH];
static _Thread_local char pending[HIPDNN_ERROR_STRING_MAX_LENGTH]; /* this call's failure */
static _Thread_local bool pending_set;
static _Thread_local int call_depth; /* public calls running on this thread (nested: > 1) */

/* Where a failure raised now is written. */
static char *slot(void)
{
    if (call_depth == 0)
        return last_error;
    pending_set = true;
    return pending;
}

hipdnnStatus_t base_fail(hipdnnStatus_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = slot();
    vsnprintf(msg, HIPDNN_ERROR_STRING_MAX_LENGTH, fmt, ap);
    va_end(ap);
    base_log(HIPDNN_SEV_ERROR, "%s: %s", base_status_name(status), msg);
    return status;
}

hipdnnStatus_t base_fail_quiet(hipdnnStatus_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(slot(), HIPDNN_ERROR_STRING_MAX_LENGTH, fmt, ap);
    va_end(ap);
    return status;
}

void base_call_begin(void)
{
    if (call_depth++ == 0)
        pending_set = false;
}

static hipdnnStatus_t call_done(hipdnnStatus_t st, bool success_clears)
{
    if (call_depth > 0 && --call_depth == 0) {
        if (st != HIPDNN_STATUS_SUCCESS) {
            if (pending_set)
                memcpy(last_error, pending, sizeof last_error);
        } else if (success_clears) {
            last_error[0] = '\0';
        }
        pending_set = false;
    }
    return st;
}

hipdnnStatus_t base_call_done(hipdnnStatus_t st) { return call_done(st, true); }

hipdnnStatus_t base_call_done_release(hipdnnStatus_t st) { return call_done(st, false); }

void base_last_error(char *msg, size_t max_size, bool clear)
{
    const char *cur = call_depth > 0 && pending_set ? pending : last_error; /* inside a call: its own */
    if (msg != NULL && max_size > 0) {
        size_t n = strnlen(cur, HIPDNN_ERROR_STRING_MAX_LENGTH - 1);
        if (n >= max_size)
            n = max_size - 1;
        memcpy(msg, cur, n);
        msg[n] = '\0';
    } else if (max_size == 0) {
        base_log(HIPDNN_SEV_ERROR, "hipdnnGetLastErrorString: maxSize is 0");
    }
    if (clear && msg != NULL && max_size > 0) /* nothing copied: the message stays */
        last_error[0] = '\0', pending_set = false;
}

const char *base_status_name(hipdnnStatus_t status)
{
    switch (status) {
#define NAME(s) case s: return #s;
    NAME(HIPDNN_STATUS_SUCCESS)
    NAME(HIPDNN_STATUS_NOT_INITIALIZED)
    NAME(HIPDNN_STATUS_BAD_PARAM)
    NAME(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER)
    NAME(HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    NAME(HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    NAME(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    NAME(HIPDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    NAME(HIPDNN_STATUS_NOT_SUPPORTED)
    NAME(HIPDNN_STATUS_INTERNAL_ERROR)
    NAME(HIPDNN_STATUS_ALLOC_FAILED)
    NAME(HIPDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    NAME(HIPDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    NAME(HIPDNN_STATUS_EXECUTION_FAILED)
    NAME(HIPDNN_STATUS_PLUGIN_ERROR)
    NAME(HIPDNN_STATUS_VERSION_MISMATCH)
#undef NAME
    }
    return "HIPDNN_STATUS_UNKNOWN";
}
