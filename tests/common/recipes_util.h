/* recipes_util.h — private to the recipes files (recipes.h is their contract): the helpers a
 * recipe sets attributes with (tensors and scalars owned by the context, typed setters, the
 * common operation attributes), the table-row shorthands, and the recipe functions the registry
 * in recipes_tables.c lists. Public API only.
 */
#ifndef RECIPES_UTIL_H
#define RECIPES_UTIL_H

#include "recipes.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"

#define TENSOR(C, ID, DT_, ...)                                                                  \
    rcu_tensor(C, ID, DT_, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),               \
           (int64_t[]){__VA_ARGS__}, false)

extern int64_t rcu_next_uid;
rc_val *rcu_val(rc_ctx *c, hipdnnBackendAttributeName_t id);
void rcu_own(rc_ctx *c, hipdnnBackendDescriptor_t d);
hipdnnBackendDescriptor_t rcu_scalar(rc_ctx *c, int rank, hipdnnDataType_t dt,
                                        const void *value, size_t size);
void rcu_put_tensors(rc_ctx *c, hipdnnBackendAttributeName_t id, int n,
                        const hipdnnBackendDescriptor_t *ts);
void rcu_put(rc_ctx *c, hipdnnBackendAttributeName_t id, hipdnnBackendDescriptor_t t);
hipdnnBackendDescriptor_t rcu_tensor(rc_ctx *c, hipdnnBackendAttributeName_t id,
                                        hipdnnDataType_t dt, int rank, const int64_t *dims,
                                        bool is_virtual);
void rcu_s_i64(rc_ctx *c, hipdnnBackendAttributeName_t id, int64_t x);
void rcu_s_i32(rc_ctx *c, hipdnnBackendAttributeName_t id, int32_t x);
void rcu_s_f32(rc_ctx *c, hipdnnBackendAttributeName_t id, float x);
void rcu_s_bool(rc_ctx *c, hipdnnBackendAttributeName_t id, bool x);
void rcu_s_enum(rc_ctx *c, hipdnnBackendAttributeName_t id, int x);
void rcu_a_i64(rc_ctx *c, hipdnnBackendAttributeName_t id, int n, const int64_t *x);
void rcu_a_i32(rc_ctx *c, hipdnnBackendAttributeName_t id, int n, const int32_t *x);
void rcu_s_bytes(rc_ctx *c, hipdnnBackendAttributeName_t id, const void *p, size_t n);
void rcu_s_name(rc_ctx *c, hipdnnBackendAttributeName_t id, const char *prefix);
hipdnnDataType_t rcu_any_float_type(void);
void rcu_op_common(rc_ctx *c);

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
#define DT HIPDNN_TYPE_DATA_TYPE
#define I64 HIPDNN_TYPE_INT64
#define CHR HIPDNN_TYPE_CHAR
#define F HIPDNN_DATA_FLOAT

void recipe_tensor(rc_ctx *c);
void recipe_graph(rc_ctx *c);
void recipe_conv_fwd(rc_ctx *c);
void recipe_conv_bwd_data(rc_ctx *c);
void recipe_conv_bwd_filter(rc_ctx *c);
void recipe_bn_inference(rc_ctx *c);
void recipe_bn_inference_variance(rc_ctx *c);
void recipe_bn_training(rc_ctx *c);
void recipe_bn_backward(rc_ctx *c);
void recipe_gen_stats(rc_ctx *c);
void recipe_pointwise(rc_ctx *c);
void recipe_matmul(rc_ctx *c);
void recipe_rmsnorm(rc_ctx *c);
void recipe_layernorm(rc_ctx *c);
void recipe_sdpa_fwd(rc_ctx *c);
void recipe_sdpa_bwd(rc_ctx *c);
void recipe_paged_cache_load(rc_ctx *c);
void recipe_bs_quantize(rc_ctx *c);
void recipe_bs_dequantize(rc_ctx *c);
void recipe_custom_op(rc_ctx *c);

#endif
