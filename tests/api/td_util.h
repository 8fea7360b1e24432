/* td_util.h — helpers shared by the files of test_descriptors (tests/api): the per-type
 * parameters of the parameterized tests (one per rc_specs entry), a fresh handle for recipes that
 * need one, questions about a table row (settable, descriptor-valued, checked enum, two wrong
 * types), and TU_BAD_NULL. Public API only.
 */
#ifndef TD_UTIL_H
#define TD_UTIL_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <hipdnn_backend.h>
#include <pthread.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/recipes.h"
#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

/* NULL handles and descriptors: the library answers BAD_PARAM_NULL_POINTER, the header
 * documents plain BAD_PARAM for some functions; both are BAD_PARAM-class codes. */
#define TU_BAD_NULL(call)                                                                        \
    do {                                                                                        \
        hipdnnStatus_t s_ = (call);                                                             \
        cr_expect(s_ == HIPDNN_STATUS_BAD_PARAM || s_ == HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,  \
                  "%s -> %s, expected BAD_PARAM(_NULL_POINTER)", #call, tu_st(s_));             \
    } while (0)

struct criterion_test_params td_spec_params(void);
extern hipdnnHandle_t td_handle;
void td_setup_handle(void);
void td_teardown_handle(void);
bool td_settable(const rc_attr *a);
bool td_is_desc_valued(const rc_attr *a);
bool td_is_checked_enum(hipdnnBackendAttributeType_t t);
hipdnnBackendAttributeType_t td_wrong_type(hipdnnBackendAttributeType_t t, int which);

hipdnnBackendDescriptor_t td_new_tensor(int rank, const int64_t *dims, const int64_t *strides,
                                            hipdnnDataType_t dt);

#endif
