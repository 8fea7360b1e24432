/* fe_device.c — the device-memory extensions of include/hipdnn_jit.h, thin wrappers over the
 * runtime (runtime/rt.h) so that tools and samples need no GPU SDK of their own. */
#include "desc/fe_desc.h"
#include "hipdnn_jit.h"
#include "runtime/rt.h"

#define EXPORT HIPDNN_BACKEND_EXPORT

/* The device, bound to this thread; a failure names fn and keeps the runtime's reason. */
static hipdnnStatus_t ready(const char *fn)
{
    hipdnnStatus_t st = rt_init();
    if (st == HIPDNN_STATUS_SUCCESS)
        return st;
    char why[HIPDNN_ERROR_STRING_MAX_LENGTH];
    base_last_error(why, sizeof why, false);
    return base_fail(st, "%s: %s%s", fn, st == HIPDNN_STATUS_NOT_SUPPORTED ? "no GPU is available: " : "", why);
}

static hipdnnStatus_t hipdnnDeviceMalloc_ext_body(void **ptr, size_t bytes);

EXPORT hipdnnStatus_t hipdnnDeviceMalloc_ext(void **ptr, size_t bytes)
{
    base_call_begin();
    return base_call_done(hipdnnDeviceMalloc_ext_body(ptr, bytes));
}

static hipdnnStatus_t hipdnnDeviceMalloc_ext_body(void **ptr, size_t bytes)
{
    if (ptr == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnDeviceMalloc_ext: ptr is NULL");
    hipdnnStatus_t st = ready("hipdnnDeviceMalloc_ext");
    return st == HIPDNN_STATUS_SUCCESS ? rt_malloc(ptr, bytes) : st;
}

static hipdnnStatus_t hipdnnDeviceFree_ext_body(void *ptr);

EXPORT hipdnnStatus_t hipdnnDeviceFree_ext(void *ptr)
{
    base_call_begin();
    return base_call_done_release(hipdnnDeviceFree_ext_body(ptr));
}

static hipdnnStatus_t hipdnnDeviceFree_ext_body(void *ptr)
{
    if (ptr == NULL || !rt_have_gpu())
        return HIPDNN_STATUS_SUCCESS;
    hipdnnStatus_t st = rt_init(); /* binds the device to this thread: rt_free cannot say it failed */
    if (st == HIPDNN_STATUS_SUCCESS)
        rt_free(ptr);
    return st;
}

static hipdnnStatus_t hipdnnMemcpyHostToDevice_ext_body(void *dst, const void *src, size_t bytes);

EXPORT hipdnnStatus_t hipdnnMemcpyHostToDevice_ext(void *dst, const void *src, size_t bytes)
{
    base_call_begin();
    return base_call_done(hipdnnMemcpyHostToDevice_ext_body(dst, src, bytes));
}

static hipdnnStatus_t hipdnnMemcpyHostToDevice_ext_body(void *dst, const void *src, size_t bytes)
{
    hipdnnStatus_t st = ready("hipdnnMemcpyHostToDevice_ext");
    return st == HIPDNN_STATUS_SUCCESS ? rt_memcpy_h2d(dst, src, bytes) : st;
}

static hipdnnStatus_t hipdnnMemcpyDeviceToHost_ext_body(void *dst, const void *src, size_t bytes);

EXPORT hipdnnStatus_t hipdnnMemcpyDeviceToHost_ext(void *dst, const void *src, size_t bytes)
{
    base_call_begin();
    return base_call_done(hipdnnMemcpyDeviceToHost_ext_body(dst, src, bytes));
}

static hipdnnStatus_t hipdnnMemcpyDeviceToHost_ext_body(void *dst, const void *src, size_t bytes)
{
    hipdnnStatus_t st = ready("hipdnnMemcpyDeviceToHost_ext");
    return st == HIPDNN_STATUS_SUCCESS ? rt_memcpy_d2h(dst, src, bytes) : st;
}

static hipdnnStatus_t hipdnnStreamSynchronize_ext_body(hipdnnHandle_t handle);

EXPORT hipdnnStatus_t hipdnnStreamSynchronize_ext(hipdnnHandle_t handle)
{
    base_call_begin();
    return base_call_done(hipdnnStreamSynchronize_ext_body(handle));
}

static hipdnnStatus_t hipdnnStreamSynchronize_ext_body(hipdnnHandle_t handle)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnStreamSynchronize_ext");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = ready("hipdnnStreamSynchronize_ext");
    return st == HIPDNN_STATUS_SUCCESS ? rt_stream_sync((void *)handle->stream) : st;
}
