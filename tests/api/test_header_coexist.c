/* test_header_coexist.c — <hipdnn_backend.h> after a header that defines hipdnnSeverity_t
 * without a macro guard (hipDNN's SDK <hipdnn_sdk/logging/CallbackTypes.h>; our stand-in in
 * sdk_standin/ is on this program's include path), as hipDNN's frontend includes them. That this
 * file compiles is half the test; the other half: the one definition is usable with our API.
 * test_header_coexist_cpp.cpp includes the two in the other order, as C++.
 */
#include <hipdnn_sdk/logging/CallbackTypes.h>

#include <criterion/criterion.h>
#include <hipdnn_backend.h>

static int calls;
static void sink(hipdnnUserLogCallbackHandle_t user, hipdnnSeverity_t sev, const char *msg)
{
    (void)user, (void)msg;
    calls += sev == HIPDNN_SEV_ERROR;
}

Test(header_coexist, sdk_header_first)
{
    cr_expect_eq(HIPDNN_SEV_INFO, 0);
    cr_expect_eq(HIPDNN_SEV_ERROR, 2);
    cr_expect_eq(HIPDNN_SEV_OFF, 4);
    hipdnnCallback_t as_sdk_callback = hipdnnLoggingCallback_ext; /* the SDK's callback type */
    cr_expect_not_null(as_sdk_callback);
    int user = 0;
    cr_assert_eq(hipdnnSetUserLogCallback_ext(sink, HIPDNN_SEV_INFO, HIPDNN_LOG_CALLBACK_SYNC, &user),
                 HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(hipdnnBackendSetGlobalLogLevel_ext(HIPDNN_SEV_ERROR), HIPDNN_STATUS_SUCCESS);
    as_sdk_callback(HIPDNN_SEV_ERROR, "through the SDK's callback type");
    cr_expect_eq(calls, 1);
}
