/* rt_int.h — private to runtime/: the backend table that rt.c dispatches to and each
 * rt_<vendor>.c fills. Only a vendor file knows a vendor library; rt.c knows only this table.
 *
 * Every slot returning a status raises its failures with base_fail (the driver's call and error
 * name in the message). Slots take already checked arguments: rt.c has checked pointers for NULL,
 * run driver_init successfully (device slots) or compiler_init (compiler slots), and called
 * make_current on the calling thread. Handles are the vendor's own, passed as void *.
 *
 *   slot               required  called                      vendor handle in / out
 *   driver_present     yes       once per process            -
 *   driver_init        yes       once, under pthread_once    fills rt_device_info
 *   compiler_init      yes       once, under a lock          fills rt_compiler_info
 *   compile            yes       any thread                  -
 *   module_* / launch  yes       any thread                  module, function
 *   mem_* / stream_*   yes       any thread                  device pointer, stream
 *   event_*            yes       any thread                  event
 *   pointer_kind       yes       any thread; never raises    -
 *   make_current       optional  before every device call    NULL: no per-thread binding
 *   set_max_smem       optional  -                           NULL: no opt-in needed
 *   tensor_map         optional  any thread                  NULL: no tensor maps (TMA)
 */
#ifndef HIPDNN_RT_INT_H
#define HIPDNN_RT_INT_H

#include <limits.h>

#include "runtime/rt.h"

#define RT_BACKEND_VERSION 1

typedef struct rt_backend {
    int version;             /* RT_BACKEND_VERSION the table was written against */
    const char *name;        /* "nvidia", "amd": HIPDNN_PLATFORM's values, rt_device_info.platform */
    const char *driver_libs; /* named in messages: "libcuda.so.1" */
    const char *arch_prefix; /* the targets its compiler takes: "sm_"; rt_compile dispatches on it */

    /* ---- required ------------------------------------------------------------------------ */
    /* The driver library loads (dlopen only: cheap, initialises nothing). */
    bool (*driver_present)(void);
    /* Loads the driver's entry points, initialises it, picks the device (the current
     * context's, else device 0), binds its context to this thread, fills *info.
     * NOT_SUPPORTED with the reason when there is no usable GPU. */
    hipdnnStatus_t (*driver_init)(rt_device_info *info);
    /* Loads the run-time compiler; NOT_SUPPORTED when absent. */
    hipdnnStatus_t (*compiler_init)(rt_compiler_info *info);
    hipdnnStatus_t (*compile)(const char *source, const char *program_name, const char *arch,
                              const char *const *options, int n_options, void **code,
                              size_t *code_len, char **log);

    hipdnnStatus_t (*module_load)(const void *code, size_t code_len, void **module);
    hipdnnStatus_t (*module_function)(void *module, const char *name, void **function);
    void (*module_unload)(void *module);
    hipdnnStatus_t (*launch)(void *function, const unsigned grid[3], const unsigned block[3],
                             size_t smem_bytes, void *stream, void **args);

    hipdnnStatus_t (*mem_alloc)(void **p, size_t bytes); /* bytes > 0 */
    void (*mem_free)(void *p);                             /* p != NULL */
    hipdnnStatus_t (*memcpy_h2d)(void *dst, const void *src, size_t bytes);
    hipdnnStatus_t (*memcpy_d2h)(void *dst, const void *src, size_t bytes);
    hipdnnStatus_t (*mem_set)(void *dst, int byte, size_t bytes);
    /* stream NULL: every piece of work on the device. */
    hipdnnStatus_t (*stream_sync)(void *stream);

    hipdnnStatus_t (*event_create)(void **event);
    hipdnnStatus_t (*event_record)(void *event, void *stream);
    hipdnnStatus_t (*event_elapsed_ms)(void *start, void *end, float *ms);
    void (*event_destroy)(void *event);
    rt_ptr_kind (*pointer_kind)(const void *p); /* p != NULL */

    /* ---- optional (NULL: the platform does not need it) ------------------------------------ */
    /* Binds the device's context to the calling thread when none is bound. */
    hipdnnStatus_t (*make_current)(void);
    /* Raises the dynamic shared-memory limit of a function; bytes <= the opt-in maximum. */
    hipdnnStatus_t (*set_max_smem)(void *function, size_t bytes);
    /* rt_launch_dependent's launch (NULL: a plain launch). */
    hipdnnStatus_t (*launch_dependent)(void *function, const unsigned grid[3], const unsigned block[3],
                                       size_t smem_bytes, void *stream, void **args);
    /* Encodes a tiled tensor map (rt_tensor_map's contract; arguments already checked). */
    hipdnnStatus_t (*tensor_map)(void *map, const void *base, int rank, int elem_bytes,
                                 const uint64_t *dims, const uint64_t *strides,
                                 const uint32_t *box);
} rt_backend;

/* rt_nvidia.c: libcuda.so.1 + libnvrtc. Never NULL; the table is static and immutable. */
const rt_backend *rt_nvidia_backend(void);
/* rt_amd.c: libamdhip64 + hipRTC. Never NULL; the table is static and immutable. */
const rt_backend *rt_amd_backend(void);

/* Tests only (tests/fault/fault_rt.c): makes b the one backend of this process, for the device
 * and for every target with b->arch_prefix, in place of the vendors' tables. Call it before any
 * other rt_* call: false (nothing changed) once rt.c has chosen its backend, or for NULL. b must
 * fill every required slot and live as long as the process; HIPDNN_PLATFORM is then ignored. */
bool rt_backend_override(const rt_backend *b);

/* ---- rt_rtc.c: the compile driver NVRTC and hipRTC share ---------------------------------- */

/* Entry points as the driver calls them: programs are opaque pointers, results ints (0 success,
 * 1 out of memory in both libraries). Indices into rt_rtc.names: */
enum { RT_RTC_CREATE, RT_RTC_COMPILE, RT_RTC_LOG_SIZE, RT_RTC_LOG, RT_RTC_CODE_SIZE, RT_RTC_CODE,
       RT_RTC_DESTROY, RT_RTC_ERROR_STRING, RT_RTC_N_ENTRIES };
enum { RT_RTC_FIXED_OPTIONS = 2 };

typedef struct rt_rtc {
    const char *compiler;                      /* "nvrtc": in messages */
    const char *arch_option;                   /* "--gpu-architecture=": the arch follows */
    const char *options[RT_RTC_FIXED_OPTIONS]; /* always passed after the arch option */
    const char *code_name;                     /* "CUBIN": in messages */
    const char *default_name;                  /* the program's name when the caller gives none */
    bool one_at_a_time;                        /* not thread safe: rt_rtc_compile runs one
                                                * program (create .. destroy) at a time */
    const char *names[RT_RTC_N_ENTRIES];       /* the library's symbols, in RT_RTC_* order */
    /* filled by rt_rtc_load */
    int (*create)(void **prog, const char *src, const char *name, int n_headers,
                  const char *const *headers, const char *const *include_names);
    int (*compile)(void *prog, int n_options, const char *const *options);
    int (*log_size)(void *prog, size_t *size);
    int (*log)(void *prog, char *log);
    int (*code_size)(void *prog, size_t *size);
    int (*code)(void *prog, char *code);
    int (*destroy)(void **prog);
    const char *(*error_string)(int result);
} rt_rtc;

/* Fills api's entry points from library h by api->names; the first missing name, or NULL. */
const char *rt_rtc_load(rt_rtc *api, void *h);
/* The compile slot's work with the library api describes (see rt_backend.compile). */
hipdnnStatus_t rt_rtc_compile(const rt_rtc *api, const char *source, const char *program_name,
                              const char *arch, const char *const *options, int n_options, void **code,
                              size_t *code_len, char **log);

/* NVRTC files to try after the loader's own search (rt_nvidia_find.c): HIPDNN_NVRTC_LIBRARY, then
 * pip's NVRTC wheels in the site-packages of a virtualenv, conda, ~/.local, pyenv and the
 * system's Pythons (newest CUDA first). Fills at most max paths; returns how many. */
int rt_nvrtc_candidates(char (*out)[PATH_MAX], int max);

#endif
