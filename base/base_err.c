/* base_err.c — the per-thread last-error slot and base_fail, the one raise point.
 *
 * The slot holds at most HIPDNN_ERROR_STRING_MAX_LENGTH bytes including the NUL. It is
 * read by hipdnnGetLastErrorString (which clears it) and hipdnnPeekLastErrorString_ext.
 */
#include <stdio.h>
#include <string.h>

#include "base/base.h"

static _Thread_local char last_error[HIPDNN_ERROR_STRING_MAX_LENGTH];

hipdnnStatus_t base_fail(hipdnnStatus_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    base_log(HIPDNN_SEV_ERROR, "%s: %s", base_status_name(status), last_error);
    return status;
}

void base_last_error(char *msg, size_t max_size, bool clear)
{
    if (msg != NULL && max_size > 0) {
        size_t n = strnlen(last_error, sizeof last_error - 1);
        if (n >= max_size)
            n = max_size - 1;
        memcpy(msg, last_error, n);
        msg[n] = '\0';
    } else if (max_size == 0) {
        base_log(HIPDNN_SEV_ERROR, "hipdnnGetLastErrorString: maxSize is 0");
    }
    if (clear && msg != NULL && max_size > 0) /* nothing copied: the message stays */
        last_error[0] = '\0';
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
