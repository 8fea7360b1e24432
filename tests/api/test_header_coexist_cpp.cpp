// test_header_coexist_cpp.cpp — <hipdnn_backend.h> first, then a header that defines
// hipdnnSeverity_t without a macro guard (hipDNN's SDK CallbackTypes.h; our stand-in in
// sdk_standin/), as C++. See test_header_coexist.c for the other order.
#include <hipdnn_backend.h>

#include <hipdnn_sdk/logging/CallbackTypes.h>

#include <criterion/criterion.h>
#include <type_traits>

Test(header_coexist_cpp, ours_first)
{
    static_assert(std::is_same<decltype(&hipdnnLoggingCallback_ext), hipdnnCallback_t>::value,
                  "hipdnnLoggingCallback_ext is a hipdnnCallback_t");
    hipdnnSeverity_t s = HIPDNN_SEV_WARN;
    cr_expect_eq(static_cast<int>(s), 1);
    cr_expect_eq(hipdnnBackendSetGlobalLogLevel_ext(s), HIPDNN_STATUS_SUCCESS);
    hipdnnSeverity_t got = HIPDNN_SEV_OFF;
    cr_expect_eq(hipdnnBackendGetGlobalLogLevel_ext(&got), HIPDNN_STATUS_SUCCESS);
    cr_expect_eq(got, HIPDNN_SEV_WARN);
}
