/*
 * HipdnnBackendCallbackTypes.h — log severities and the logging callback types.
 *
 * hipDNN's SDK defines hipdnnSeverity_t and hipdnnCallback_t in
 * <hipdnn_sdk/logging/CallbackTypes.h>, with `#pragma once` and no macro guard, and hipDNN's
 * frontend includes that header next to ours. Two definitions of one enum cannot share a
 * translation unit, so when the SDK header is reachable we include it and use its
 * definitions (same names, same values); #pragma once then makes any later include of it,
 * before or after ours, a no-op. Without it (or with a compiler that lacks __has_include) we
 * define them ourselves. Defining HIPDNN_CALLBACK_TYPES_DEFINED before including this header
 * says "already defined elsewhere" and skips both.
 *
 * Severities are ordered: a sink with minimum level L receives messages of
 * severity >= L; HIPDNN_SEV_OFF silences it.
 */
#ifndef HIPDNN_BACKEND_CALLBACK_TYPES_H
#define HIPDNN_BACKEND_CALLBACK_TYPES_H

#if !defined(HIPDNN_CALLBACK_TYPES_DEFINED) && defined(__has_include)
#if __has_include(<hipdnn_sdk/logging/CallbackTypes.h>)
#include <hipdnn_sdk/logging/CallbackTypes.h>
#define HIPDNN_CALLBACK_TYPES_DEFINED
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HIPDNN_CALLBACK_TYPES_DEFINED
#define HIPDNN_CALLBACK_TYPES_DEFINED

typedef enum
{
    HIPDNN_SEV_INFO = 0,
    HIPDNN_SEV_WARN = 1,
    HIPDNN_SEV_ERROR = 2,
    HIPDNN_SEV_FATAL = 3,
    HIPDNN_SEV_OFF = 4
} hipdnnSeverity_t;

/* Log sink without user data: `message` is NUL-terminated and valid only during the call. */
typedef void (*hipdnnCallback_t)(hipdnnSeverity_t severity, const char* message);

#endif /* HIPDNN_CALLBACK_TYPES_DEFINED */

/* Opaque user pointer handed back to a user log callback. */
typedef void* hipdnnUserLogCallbackHandle_t;

/* User log sink registered with hipdnnSetUserLogCallback_ext(). */
typedef void (*hipdnnUserLogCallback_t)(hipdnnUserLogCallbackHandle_t userHandle,
                                        hipdnnSeverity_t severity,
                                        const char* message);

#ifdef __cplusplus
}
#endif

#endif /* HIPDNN_BACKEND_CALLBACK_TYPES_H */
