/* CallbackTypes.h — a stand-in for hipDNN's SDK header of this path, written for our tests: like
 * hipDNN's, it defines hipdnnSeverity_t and hipdnnCallback_t with `#pragma once` and no macro
 * guard, so a second definition in the same translation unit would not compile. The header
 * coexistence tests include it before or after <hipdnn_backend.h>. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
    HIPDNN_SEV_INFO = 0,
    HIPDNN_SEV_WARN,
    HIPDNN_SEV_ERROR,
    HIPDNN_SEV_FATAL,
    HIPDNN_SEV_OFF
} hipdnnSeverity_t;

typedef void (*hipdnnCallback_t)(hipdnnSeverity_t severity, const char* message);

#ifdef __cplusplus
}
#endif
