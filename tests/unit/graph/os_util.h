/* os_util.h — helpers shared by the files of test_fe_op_shapes (tests/unit/graph): the
 * descriptor pool every test's fini empties, finalized tensors in the stride order os_layout
 * selects, attribute setters that assert success, os_expect_ok / os_expect_bad, the attribute
 * shorthands, and the valid-op builders (mk_*) each topic file defines and the layout and
 * recovery tests of test_fe_op_shapes.c reuse. Public API only (hipdnn_backend.h).
 */
#ifndef OS_UTIL_H
#define OS_UTIL_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

typedef hipdnnBackendDescriptor_t desc;

#define T(suite, name) Test(suite, name, .fini = os_pool_free)

/* Stride order of the tensors os_tensor() makes. */
enum { ROW_MAJOR, REVERSED, ODD_UNIT_STRIDES, N_LAYOUTS };

#define DIMS(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}

#define TEN(dt, ...) os_tensor(dt, DIMS(__VA_ARGS__), NULL, 0)

#define F32(...) TEN(HIPDNN_DATA_FLOAT, __VA_ARGS__)

#define I32(...) TEN(HIPDNN_DATA_INT32, __VA_ARGS__)

#define SET_I64S(op, a, ...) os_set(op, a, HIPDNN_TYPE_INT64, DIMS(__VA_ARGS__))

#define SET_I32S(op, a, ...) os_set(op, a, HIPDNN_TYPE_INT32, (int)(sizeof((int32_t[]){__VA_ARGS__}) / 4), (const int32_t[]){__VA_ARGS__})

void os_pool_free(void);
extern int os_layout;
void os_check(hipdnnStatus_t st, const char *what);
desc os_tensor(hipdnnDataType_t dt, int rank, const int64_t *dims, const void *value, int size);
desc os_scalar_f32(float v);
desc os_scalar_i64(int64_t v);
desc os_op_new(hipdnnBackendDescriptorType_t type);
void os_set(desc op, hipdnnBackendAttributeName_t a, hipdnnBackendAttributeType_t type,
            int64_t n, const void *v);
void os_set_t(desc op, hipdnnBackendAttributeName_t a, desc t);
void os_set_i64(desc op, hipdnnBackendAttributeName_t a, int64_t v);
void os_set_i32(desc op, hipdnnBackendAttributeName_t a, int32_t v);
void os_set_f32(desc op, hipdnnBackendAttributeName_t a, float v);
void os_set_bool(desc op, hipdnnBackendAttributeName_t a, bool v);
void os_set_enum(desc op, hipdnnBackendAttributeName_t a, hipdnnBackendAttributeType_t type, int v);
void os_set_dtype(desc op, hipdnnBackendAttributeName_t a);
void os_expect_ok(desc op);
void os_expect_bad(desc op, const char *needle);

#define PW_IN0 HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT
#define MM_A HIPDNN_ATTR_OPERATION_MATMUL_ADESC
#define MM_B HIPDNN_ATTR_OPERATION_MATMUL_BDESC
#define CONV_X HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X
#define LN(x) HIPDNN_ATTR_OPERATION_LAYERNORM_##x##_EXT
#define SF(x) HIPDNN_ATTR_OPERATION_SDPA_FWD_##x
#define SFX(x) HIPDNN_ATTR_OPERATION_SDPA_FWD_##x##_EXT
#define SFA(x) HIPDNN_ATTR_SDPA_FWD_##x##_EXT

desc mk_pw_add(void);
desc mk_pw_relu(void);
desc mk_pw_relu_bwd(void);
desc mk_pw_select(void);
desc mk_pw_gen_index(void);
desc mk_pw_scalar_mul(void);
desc mk_matmul(void);
desc mk_matmul_grouped(void);
desc mk_matmul_bcast(void);
desc mk_matmul_2d(void);
desc mk_conv_fwd(void);
desc mk_conv_fwd_3d(void);
desc mk_conv_fwd_depthwise(void);
desc mk_conv_bwd_data(void);
desc mk_conv_bwd_filter(void);
desc mk_bn_inference(void);
desc mk_bn_inference_2d(void);
desc mk_bn_inference_variance(void);
desc mk_bn_training_min(void);
desc mk_bn_training(void);
desc mk_bn_backward_min(void);
desc mk_bn_backward(void);
desc mk_gen_stats(void);
void set_phase(desc op, hipdnnBackendAttributeName_t a, hipdnnNormFwdPhase_t p);
desc mk_layernorm(void);
desc mk_layernorm_inferred(void);
desc mk_layernorm_nc11(void);
desc mk_rmsnorm(void);
desc mk_rmsnorm_bias_inference(void);
desc mk_sdpa_fwd(void);
desc mk_sdpa_fwd_full(void);
desc mk_sdpa_fwd_fp8(void);
desc mk_sdpa_fwd_custom_dropout(void);
desc mk_sdpa_fwd_paged_any_skv(void);
desc mk_sdpa_fwd_paged(void);
desc mk_sdpa_bwd(void);
desc mk_sdpa_bwd_full(void);
desc mk_pcl(void);
desc mk_pcl_transposed(void);
desc mk_bsq(void);
desc mk_bsq_axis0(void);
desc mk_bsd(void);
desc mk_bsd_b_padded(void);
desc mk_custom(void);

#endif
