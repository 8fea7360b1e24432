/* fault_rt_int.h — private to the fake runtime: what fault_rt.c (the device, the numbering of
 * calls) and fault_rtc.c (its compiler) share. The tests use fault_rt.h.
 */
#ifndef HIPDNN_TESTS_FAULT_RT_INT_H
#define HIPDNN_TESTS_FAULT_RT_INT_H

#include "fault_rt.h"
#include "runtime/rt_int.h"

/* A code object of the emulated device: this, the arch and a newline, then the source. */
#define FAULT_RT_CODE_MAGIC "FAULTRT1\n"

enum { /* the calls that can fail; names as the message gives them */
    C_RTC_CREATE, C_RTC_COMPILE, C_RTC_LOG_SIZE, C_RTC_LOG, C_RTC_CODE_SIZE, C_RTC_CODE,
    C_MODULE_LOAD, C_MODULE_FUNCTION, C_SET_MAX_SMEM, C_LAUNCH, C_TENSOR_MAP, C_MEM_ALLOC,
    C_MEMCPY_H2D, C_MEMCPY_D2H, C_MEMSET, C_STREAM_SYNC, C_EVENT_CREATE, C_EVENT_RECORD,
    C_EVENT_ELAPSED, C_MAKE_CURRENT, N_CALLS
};

extern const char *const fault_rt_call_names[N_CALLS];

/* Counts a call of kind c; true when it is the one to fail (recorded with status st, the status
 * the runtime raises for it). */
bool fault_rt_inject(int c, hipdnnStatus_t st);

/* fault_rtc.c: the compiler slots of the table, and its programs alive now. */
hipdnnStatus_t fault_rtc_init(rt_compiler_info *info);
hipdnnStatus_t fault_rtc_compile(const char *source, const char *program_name, const char *arch,
                                 const char *const *options, int n_options, void **code, size_t *code_len,
                                 char **log);
long fault_rtc_programs(void);

#endif
