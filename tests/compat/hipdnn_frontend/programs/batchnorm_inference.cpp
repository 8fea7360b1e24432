// batchnorm_inference.cpp — hipDNN frontend: y = scale * (x - mean) * inv_variance + bias on
// NCHW [3,5,4,6] with per-channel [1,5,1,1] operands, host pointers.
#include "compat_common.hpp"

int main()
{
    using namespace compat;
    return main_with_handle("batchnorm inference", [](hipdnnHandle_t handle) {
        const int64_t N = 3, C = 5, H = 4, W = 6;
        fe::graph::Graph g;
        fp32_graph(g, "bn_inference");
        auto x = tensor("x", {N, C, H, W});
        auto mean = tensor("mean", {1, C, 1, 1}), inv_var = tensor("inv_variance", {1, C, 1, 1});
        auto scale = tensor("scale", {1, C, 1, 1}), bias = tensor("bias", {1, C, 1, 1});
        auto y = g.batchnorm_inference(x, mean, inv_var, scale, bias,
                                       fe::graph::BatchnormInferenceAttributes().set_name("bn"));
        y->set_output(true).set_data_type(fe::DataType::FLOAT);

        size_t n = (size_t)(N * C * H * W);
        auto xv = random_floats(n), mv = random_floats((size_t)C), iv = random_floats((size_t)C, 0.5f, 2.0f);
        auto sv = random_floats((size_t)C), bv = random_floats((size_t)C);
        std::vector<float> yv(n, NAN);
        std::unordered_map<std::shared_ptr<fe::graph::TensorAttributes>, void*> pack
            = {{x, xv.data()}, {mean, mv.data()}, {inv_var, iv.data()}, {scale, sv.data()},
               {bias, bv.data()}, {y, yv.data()}};
        if(!run_graph(g, handle, pack))
            return false;
        std::vector<double> ref(n);
        for(size_t i = 0; i < n; i++)
        {
            size_t c = (i / (size_t)(H * W)) % (size_t)C;
            ref[i] = (double)sv[c] * ((double)xv[i] - mv[c]) * iv[c] + bv[c];
        }
        return compare("y", yv, ref);
    });
}
