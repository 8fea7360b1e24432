/* fault_rt.h — a fake GPU runtime for the fault tests: runtime/'s backend table (rt_int.h)
 * filled by a device emulated in host memory, with every call that can fail counted and any
 * one of them made to fail.
 *
 * The fake (fault_rt.c) reports itself as an sm_90 device of the "nvidia" platform (so codegen
 * emits what it would for an H200) and compiles with a compiler of its own driven through
 * runtime/rt_rtc.c, as NVRTC is: its code object is a header, the arch and the source, so a
 * module answers for exactly the kernels its source defines. Device memory is malloc'd and
 * tracked: pointer_kind says DEVICE inside a live allocation and HOST elsewhere, copies must stay
 * inside one. Launches run nothing; they are checked (a live function, block size, shared
 * memory within what the function was raised to) and recorded in a trace. The context is bound per
 * thread, on the first device call of a thread (fault_rt_unbind starts over).
 *
 * Faults: the calls that can fail are numbered from fault_rt_fail_at on; call number nth fails
 * once, as the vendor's would (the status NVIDIA's backend gives for it, and a message naming the
 * call). Not faulted: driver_init and compiler_init (run once per process; rt.c keeps their
 * result for good), pointer_kind (never fails), and the void slots (unload, free, destroy).
 */
#ifndef HIPDNN_TESTS_FAULT_RT_H
#define HIPDNN_TESTS_FAULT_RT_H

#include <stdbool.h>
#include <stddef.h>

#include "hipdnn_backend.h"

/* Makes the fake the process's runtime (rt_backend_override); asserts it is installed. Call it
 * before anything else reaches runtime/. */
void fault_rt_install(void);

/* This thread has no context bound any more: its next device call binds it (a call that can
 * fail), as a thread that never used the device would. */
void fault_rt_unbind(void);

/* The nth call that can fail, counted from now, fails (once); 0 switches injection off. */
void fault_rt_fail_at(long nth);
/* Calls that could fail, made since the process started. */
long fault_rt_calls(void);

/* The injected failures so far, and the last one: the call's name as it appears in the message
 * ("cuMemAlloc", "nvrtcCompileProgram") and the status the runtime raised with it. */
typedef struct fault_rt_fault {
    long count;
    const char *call;
    hipdnnStatus_t status;
} fault_rt_fault;
fault_rt_fault fault_rt_last_fault(void);

/* What the device holds now. */
typedef struct fault_rt_live {
    long allocs, modules, events, programs;
    size_t bytes;
} fault_rt_live;
fault_rt_live fault_rt_live_now(void);

/* The launches since the last reset, one line each: "entry grid XxYxZ block XxYxZ smem N". The
 * returned text stays valid until the next launch or reset. */
const char *fault_rt_trace(void);
void fault_rt_trace_reset(void);

/* Calls of each kind so far, for a report: "cuMemAlloc 12, cuLaunchKernel 30, ..." (static). */
const char *fault_rt_counts(void);

#endif
