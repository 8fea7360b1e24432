/* kv_util.h — helpers shared by the files of test_knobs_varpack (tests/api): status and type
 * shorthands, EXPECT (the call returns a status; the failure shows the last error), descriptor
 * creation, typed set / get wrappers, string reads with a size query first, and the check that
 * an unset attribute reads as 0 elements. Public API only.
 */
#ifndef KV_UTIL_H
#define KV_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hipdnn_backend.h"

#define OK HIPDNN_STATUS_SUCCESS

#define BAD HIPDNN_STATUS_BAD_PARAM

#define NULLP HIPDNN_STATUS_BAD_PARAM_NULL_POINTER

#define NOT_INIT HIPDNN_STATUS_NOT_INITIALIZED

#define NOT_SUP HIPDNN_STATUS_NOT_SUPPORTED

#define I64 HIPDNN_TYPE_INT64

#define F64 HIPDNN_TYPE_DOUBLE

#define CHR HIPDNN_TYPE_CHAR

#define PTR HIPDNN_TYPE_VOID_PTR

/* EXPECT(call, status): the call returns status; the message shows the last error. */
#define EXPECT(call, want)                                                                      \
    do {                                                                                        \
        hipdnnStatus_t st_ = (call);                                                            \
        cr_assert_eq(st_, (want), "%s:%d: %s returned %s, expected %s (last error: %s)",        \
                     __FILE__, __LINE__, #call, hipdnnGetErrorString(st_),                      \
                     hipdnnGetErrorString(want), kv_last_error());                                 \
    } while (0)

extern char kv_last_msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
const char *kv_last_error(void);
hipdnnBackendDescriptor_t kv_mk(hipdnnBackendDescriptorType_t t);
hipdnnStatus_t kv_set(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                          hipdnnBackendAttributeType_t t, int64_t n, const void *p);
hipdnnStatus_t kv_get(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                          hipdnnBackendAttributeType_t t, int64_t req, int64_t *n, void *p);
hipdnnStatus_t kv_set_str(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              const char *s);
hipdnnStatus_t kv_set_i64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              int64_t v);
hipdnnStatus_t kv_set_f64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                              double v);
hipdnnStatus_t kv_fin(hipdnnBackendDescriptor_t d);
void kv_destroy(hipdnnBackendDescriptor_t d);
void kv_expect_str(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                       const char *want);
int64_t kv_get_i64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a);
double kv_get_f64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a);
void kv_expect_unset(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a,
                         hipdnnBackendAttributeType_t t);

#define KC_TYPE HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE
#define KC_VALUE HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE

#endif
