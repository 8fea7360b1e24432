/* fe_api.c — the exported hipDNN backend C API entry points.
 *
 * Each function checks its arguments, forwards to the frontend module that owns the work
 * and returns a status; failures carry a last-error message (base_fail). Nothing here
 * allocates GPU resources: handles work on machines without a GPU.
 * Every exported function that returns a status (here and in the other files that export:
 * fe_cache_api.c, fe_device.c, engines/fe_engine.c, fe_plan.c, fe_target.c,
 * serialize/fe_serialize_api.c) is a wrapper around <name>_body between base_call_begin and
 * base_call_done: a call that fails leaves its message, a call that succeeds clears the last
 * error (so a failure it met and got past, such as a GPU probe, is not left behind). The
 * releasing calls (destroy, free) end with base_call_done_release and leave it as it was.
 */
#include <stdio.h>
#include <string.h>

#include "desc/fe_desc.h"

#define EXPORT HIPDNN_BACKEND_EXPORT

/* ---- handles ------------------------------------------------------------------------------------- */

static hipdnnStatus_t hipdnnCreate_body(hipdnnHandle_t *handle);

EXPORT hipdnnStatus_t hipdnnCreate(hipdnnHandle_t *handle)
{
    base_call_begin();
    return base_call_done(hipdnnCreate_body(handle));
}

static hipdnnStatus_t hipdnnCreate_body(hipdnnHandle_t *handle)
{
    if (handle == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnCreate: handle is NULL");
    struct hipdnnHandle *h = base_calloc(1, sizeof *h);
    if (h == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "hipdnnCreate: out of memory");
    h->magic = FE_HANDLE_MAGIC;
    *handle = h;
    base_log(HIPDNN_SEV_INFO, "hipdnnCreate: handle %p", (void *)h);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnDestroy_body(hipdnnHandle_t handle);

EXPORT hipdnnStatus_t hipdnnDestroy(hipdnnHandle_t handle)
{
    base_call_begin();
    return base_call_done_release(hipdnnDestroy_body(handle));
}

static hipdnnStatus_t hipdnnDestroy_body(hipdnnHandle_t handle)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnDestroy");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    handle->magic = FE_DEAD_MAGIC;
    base_free(handle);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnSetStream_body(hipdnnHandle_t handle, hipStream_t stream);

EXPORT hipdnnStatus_t hipdnnSetStream(hipdnnHandle_t handle, hipStream_t stream)
{
    base_call_begin();
    return base_call_done(hipdnnSetStream_body(handle, stream));
}

static hipdnnStatus_t hipdnnSetStream_body(hipdnnHandle_t handle, hipStream_t stream)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnSetStream");
    if (st == HIPDNN_STATUS_SUCCESS)
        handle->stream = stream;
    return st;
}

static hipdnnStatus_t hipdnnGetStream_body(hipdnnHandle_t handle, hipStream_t *stream);

EXPORT hipdnnStatus_t hipdnnGetStream(hipdnnHandle_t handle, hipStream_t *stream)
{
    base_call_begin();
    return base_call_done(hipdnnGetStream_body(handle, stream));
}

static hipdnnStatus_t hipdnnGetStream_body(hipdnnHandle_t handle, hipStream_t *stream)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnGetStream");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (stream == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnGetStream: streamId is NULL");
    *stream = handle->stream;
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- descriptors ----------------------------------------------------------------------------------- */

static hipdnnStatus_t hipdnnBackendCreateDescriptor_body(hipdnnBackendDescriptorType_t type, hipdnnBackendDescriptor_t *descriptor);

EXPORT hipdnnStatus_t hipdnnBackendCreateDescriptor(hipdnnBackendDescriptorType_t type,
                                                    hipdnnBackendDescriptor_t *descriptor)
{
    base_call_begin();
    return base_call_done(hipdnnBackendCreateDescriptor_body(type, descriptor));
}

static hipdnnStatus_t hipdnnBackendCreateDescriptor_body(hipdnnBackendDescriptorType_t type, hipdnnBackendDescriptor_t *descriptor)
{
    if (descriptor == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "hipdnnBackendCreateDescriptor: descriptor is NULL");
    const fe_class *cls = fe_class_of(type);
    if (cls == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "hipdnnBackendCreateDescriptor: %d is not a descriptor type this backend "
                         "knows (valid: 1..%d)", (int)type, fe_n_classes - 1);
    fe_obj *o;
    hipdnnStatus_t st = fe_obj_new(cls, &o);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = fe_wrap(o, descriptor);
    fe_obj_unref(o);
    return st;
}

static hipdnnStatus_t hipdnnBackendDestroyDescriptor_body(hipdnnBackendDescriptor_t descriptor);

EXPORT hipdnnStatus_t hipdnnBackendDestroyDescriptor(hipdnnBackendDescriptor_t descriptor)
{
    base_call_begin();
    return base_call_done_release(hipdnnBackendDestroyDescriptor_body(descriptor));
}

static hipdnnStatus_t hipdnnBackendDestroyDescriptor_body(hipdnnBackendDescriptor_t descriptor)
{
    return fe_destroy_descriptor(descriptor);
}

static hipdnnStatus_t hipdnnBackendSetAttribute_body(hipdnnBackendDescriptor_t descriptor, hipdnnBackendAttributeName_t name, hipdnnBackendAttributeType_t type, int64_t elementCount, const void *arrayOfElements);

EXPORT hipdnnStatus_t hipdnnBackendSetAttribute(hipdnnBackendDescriptor_t descriptor,
                                                hipdnnBackendAttributeName_t name,
                                                hipdnnBackendAttributeType_t type,
                                                int64_t elementCount, const void *arrayOfElements)
{
    base_call_begin();
    return base_call_done(hipdnnBackendSetAttribute_body(descriptor, name, type, elementCount, arrayOfElements));
}

static hipdnnStatus_t hipdnnBackendSetAttribute_body(hipdnnBackendDescriptor_t descriptor, hipdnnBackendAttributeName_t name, hipdnnBackendAttributeType_t type, int64_t elementCount, const void *arrayOfElements)
{
    fe_obj *o;
    hipdnnStatus_t st = fe_unwrap(descriptor, "hipdnnBackendSetAttribute", &o);
    return st != HIPDNN_STATUS_SUCCESS ? st : fe_set_attr(o, name, type, elementCount, arrayOfElements);
}

static hipdnnStatus_t hipdnnBackendGetAttribute_body(hipdnnBackendDescriptor_t descriptor, hipdnnBackendAttributeName_t name, hipdnnBackendAttributeType_t type, int64_t requestedElementCount, int64_t *elementCount, void *arrayOfElements);

EXPORT hipdnnStatus_t hipdnnBackendGetAttribute(hipdnnBackendDescriptor_t descriptor,
                                                hipdnnBackendAttributeName_t name,
                                                hipdnnBackendAttributeType_t type,
                                                int64_t requestedElementCount,
                                                int64_t *elementCount, void *arrayOfElements)
{
    base_call_begin();
    return base_call_done(hipdnnBackendGetAttribute_body(descriptor, name, type, requestedElementCount, elementCount, arrayOfElements));
}

static hipdnnStatus_t hipdnnBackendGetAttribute_body(hipdnnBackendDescriptor_t descriptor, hipdnnBackendAttributeName_t name, hipdnnBackendAttributeType_t type, int64_t requestedElementCount, int64_t *elementCount, void *arrayOfElements)
{
    fe_obj *o;
    hipdnnStatus_t st = fe_unwrap(descriptor, "hipdnnBackendGetAttribute", &o);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    return fe_get_attr(o, name, type, requestedElementCount, elementCount, arrayOfElements);
}

/* Finalizing these describes the user's graph: a failure is a refusal (fe_refused). Engines,
 * configs and plans are left out: frameworks probe them and expect some to fail. */
static bool describes_the_graph(const fe_class *cls)
{
    return cls->op_type != 0 || cls->type == HIPDNN_BACKEND_TENSOR_DESCRIPTOR ||
           cls->type == HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR ||
           cls->type == HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR;
}

static hipdnnStatus_t hipdnnBackendFinalize_body(hipdnnBackendDescriptor_t descriptor);

EXPORT hipdnnStatus_t hipdnnBackendFinalize(hipdnnBackendDescriptor_t descriptor)
{
    base_call_begin();
    return base_call_done(hipdnnBackendFinalize_body(descriptor));
}

static hipdnnStatus_t hipdnnBackendFinalize_body(hipdnnBackendDescriptor_t descriptor)
{
    fe_obj *o;
    hipdnnStatus_t st = fe_unwrap(descriptor, "hipdnnBackendFinalize", &o);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = fe_finalize(o);
    if (st != HIPDNN_STATUS_SUCCESS && describes_the_graph(o->cls)) {
        char step[160];
        snprintf(step, sizeof step, "hipdnnBackendFinalize(%s)", o->cls->name);
        fe_refused(st, step);
    }
    return st;
}

/* ---- errors and logging ----------------------------------------------------------------------------- */

EXPORT const char *hipdnnGetErrorString(hipdnnStatus_t status) { return base_status_name(status); }

EXPORT void hipdnnGetLastErrorString(char *message, size_t maxSize)
{
    base_last_error(message, maxSize, true);
}

EXPORT void hipdnnPeekLastErrorString_ext(char *message, size_t maxSize)
{
    base_last_error(message, maxSize, false);
}

static bool severity_valid(int s) { return s >= HIPDNN_SEV_INFO && s <= HIPDNN_SEV_OFF; }

static hipdnnStatus_t hipdnnBackendSetGlobalLogLevel_ext_body(hipdnnSeverity_t level);

EXPORT hipdnnStatus_t hipdnnBackendSetGlobalLogLevel_ext(hipdnnSeverity_t level)
{
    base_call_begin();
    return base_call_done(hipdnnBackendSetGlobalLogLevel_ext_body(level));
}

static hipdnnStatus_t hipdnnBackendSetGlobalLogLevel_ext_body(hipdnnSeverity_t level)
{
    if (!severity_valid((int)level))
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "hipdnnBackendSetGlobalLogLevel_ext: %d is not a hipdnnSeverity_t",
                         (int)level);
    base_log_set_level(level);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnBackendGetGlobalLogLevel_ext_body(hipdnnSeverity_t *level);

EXPORT hipdnnStatus_t hipdnnBackendGetGlobalLogLevel_ext(hipdnnSeverity_t *level)
{
    base_call_begin();
    return base_call_done(hipdnnBackendGetGlobalLogLevel_ext_body(level));
}

static hipdnnStatus_t hipdnnBackendGetGlobalLogLevel_ext_body(hipdnnSeverity_t *level)
{
    if (level == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "hipdnnBackendGetGlobalLogLevel_ext: level is NULL");
    *level = base_log_level();
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnSetUserLogCallback_ext_body(hipdnnUserLogCallback_t callback, hipdnnSeverity_t minLevel, hipdnnLogCallbackMode_t mode, hipdnnUserLogCallbackHandle_t userHandle);

EXPORT hipdnnStatus_t hipdnnSetUserLogCallback_ext(hipdnnUserLogCallback_t callback,
                                                   hipdnnSeverity_t minLevel,
                                                   hipdnnLogCallbackMode_t mode,
                                                   hipdnnUserLogCallbackHandle_t userHandle)
{
    base_call_begin();
    return base_call_done(hipdnnSetUserLogCallback_ext_body(callback, minLevel, mode, userHandle));
}

static hipdnnStatus_t hipdnnSetUserLogCallback_ext_body(hipdnnUserLogCallback_t callback, hipdnnSeverity_t minLevel, hipdnnLogCallbackMode_t mode, hipdnnUserLogCallbackHandle_t userHandle)
{
    if (callback == NULL || userHandle == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "hipdnnSetUserLogCallback_ext: callback and userHandle must be non-NULL");
    if (!severity_valid((int)minLevel) ||
        (mode != HIPDNN_LOG_CALLBACK_SYNC && mode != HIPDNN_LOG_CALLBACK_ASYNC))
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "hipdnnSetUserLogCallback_ext: bad minLevel %d or mode %d", (int)minLevel,
                         (int)mode);
    hipdnnStatus_t st = base_log_add_callback(callback, minLevel, userHandle);
    if (st != HIPDNN_STATUS_SUCCESS)
        return base_fail(st, "hipdnnSetUserLogCallback_ext: at most %d callbacks may be registered",
                         BASE_LOG_MAX_CALLBACKS);
    return st;
}

EXPORT void hipdnnLoggingCallback_ext(hipdnnSeverity_t severity, const char *msg)
{
    base_log(severity, "%s", msg != NULL ? msg : "(null)");
}

EXPORT const char *hipdnnVersionString_ext(void)
{
    return fe_version_string();
}
