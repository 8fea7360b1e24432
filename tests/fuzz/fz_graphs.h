/* fz_graphs.h — the example graphs that fuzz_plan_recipe decodes recipes against, in the order
 * its input's first byte numbers them. fz_seeds writes each one's real recipe (a gfx90a plan
 * built with hipRTC) under that number, so the two must agree: append, never reorder.
 */
#ifndef HIPDNN_TESTS_FZ_GRAPHS_H
#define HIPDNN_TESTS_FZ_GRAPHS_H

static const char *const fz_plan_graphs[] = {
    "layernorm.json", "rmsnorm_residual.json", "matmul_bias_gelu.json", "bn_inference_relu.json",
    "conv_bias_relu.json",
};
#define FZ_N_PLAN_GRAPHS ((int)(sizeof fz_plan_graphs / sizeof fz_plan_graphs[0]))
/* The target the recipes are for. */
#define FZ_PLAN_ARCH "gfx90a"
#define FZ_PLAN_PLATFORM "amd"

#endif
