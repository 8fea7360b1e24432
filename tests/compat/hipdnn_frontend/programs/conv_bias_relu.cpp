// conv_bias_relu.cpp — hipDNN frontend: relu(conv(x, w) + bias[1,K,1,1]), host pointers.
#include "conv_common.hpp"

int main()
{
    using namespace compat;
    return main_with_handle("conv + bias + relu", [](hipdnnHandle_t handle) {
        conv_case cc;
        fe::graph::Graph g;
        fp32_graph(g, "conv_bias_relu");
        auto x = tensor("x", {cc.N, cc.C, cc.H, cc.W}), w = tensor("w", {cc.K, cc.C, cc.R, cc.S});
        auto b = tensor("bias", {1, cc.K, 1, 1});
        auto conv = g.conv_fprop(x, w, cc.attributes());
        conv->set_data_type(fe::DataType::FLOAT);
        auto biased = g.pointwise(conv, b, fe::graph::PointwiseAttributes().set_mode(fe::PointwiseMode::ADD));
        biased->set_data_type(fe::DataType::FLOAT);
        auto y = g.pointwise(biased, fe::graph::PointwiseAttributes().set_mode(fe::PointwiseMode::RELU_FWD));
        y->set_output(true).set_data_type(fe::DataType::FLOAT);

        auto xv = random_floats((size_t)(cc.N * cc.C * cc.H * cc.W));
        auto wv = random_floats((size_t)(cc.K * cc.C * cc.R * cc.S));
        auto bv = random_floats((size_t)cc.K);
        auto ref = cc.reference(xv, wv);
        size_t pq = (size_t)(cc.P() * cc.Q());
        for(size_t i = 0; i < ref.size(); i++)
        {
            double v = ref[i] + bv[(i / pq) % (size_t)cc.K];
            ref[i] = v > 0 ? v : 0;
        }
        std::vector<float> yv(ref.size(), NAN);
        std::unordered_map<std::shared_ptr<fe::graph::TensorAttributes>, void*> pack
            = {{x, xv.data()}, {w, wv.data()}, {b, bv.data()}, {y, yv.data()}};
        if(!run_graph(g, handle, pack))
            return false;
        return compare("y", yv, ref, 1e-5, 1e-5);
    });
}
