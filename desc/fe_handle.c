/* fe_handle.c — what every public entry point of the frontend shares: the handle check, the
 * internal form of destroying a descriptor wrapper (hipdnnBackendDestroyDescriptor is the public
 * one, api/fe_api.c), the refusal line of a failed user call, and the version string.
 * Owns nothing else; the object model is fe_desc.c's.
 */
#include "desc/fe_desc.h"

#ifndef HIPDNN_VERSION_STRING
#define HIPDNN_VERSION_STRING "0.0.0"
#endif
#ifndef HIPDNN_GIT_HASH
#define HIPDNN_GIT_HASH "unknown"
#endif

hipdnnStatus_t fe_check_handle(hipdnnHandle_t h, const char *fn)
{
    if (h == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: handle is NULL", fn);
    if (h->magic != FE_HANDLE_MAGIC)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %p is not a live handle", fn, (void *)h);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_destroy_descriptor(hipdnnBackendDescriptor_t d)
{
    fe_obj *o;
    hipdnnStatus_t st = fe_unwrap(d, "hipdnnBackendDestroyDescriptor", &o);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    d->magic = FE_DEAD_MAGIC;
    base_free(d);
    fe_obj_unref(o);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_refused(hipdnnStatus_t st, const char *step)
{
    if (st != HIPDNN_STATUS_SUCCESS) {
        char why[HIPDNN_ERROR_STRING_MAX_LENGTH];
        base_last_error(why, sizeof why, false);
        base_log_refusal("%s refused: %s: %s", step, base_status_name(st), why);
    }
    return st;
}

const char *fe_version_string(void) { return HIPDNN_VERSION_STRING "." HIPDNN_GIT_HASH; }
