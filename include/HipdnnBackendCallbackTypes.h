/*
 * HipdnnBackendCallbackTypes.h — log severities and the logging callback types.
 *
 * The same definitions appear in hipDNN's plugin SDK; the guard
 * HIPDNN_CALLBACK_TYPES_DEFINED lets both headers live in one translation unit.
 *
 * Severities are ordered: a sink with minimum level L receives messages of
 * severity >= L; HIPDNN_SEV_OFF silences it.
 */
#ifndef HIPDNN_BACKEND_CALLBACK_TYPES_H
#define HIPDNN_BACKEND_CALLBACK_TYPES_H

#ifndef HIPDNN_CALLBACK_TYPES_DEFINED
#define HIPDNN_CALLBACK_TYPES_DEFINED

#ifdef __cplusplus
extern "C" {
#endif

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

/* Opaque user pointer handed back to a user log callback. */
typedef void* hipdnnUserLogCallbackHandle_t;

/* User log sink registered with hipdnnSetUserLogCallback_ext(). */
typedef void (*hipdnnUserLogCallback_t)(hipdnnUserLogCallbackHandle_t userHandle,
                                        hipdnnSeverity_t severity,
                                        const char* message);

#ifdef __cplusplus
}
#endif

#endif /* HIPDNN_CALLBACK_TYPES_DEFINED */

#endif /* HIPDNN_BACKEND_CALLBACK_TYPES_H */
