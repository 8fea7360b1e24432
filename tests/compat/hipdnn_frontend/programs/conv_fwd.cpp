// conv_fwd.cpp — hipDNN frontend: 2-D convolution forward (padding, stride, dilation), host pointers.
#include "conv_common.hpp"

int main()
{
    using namespace compat;
    return main_with_handle("conv fwd", [](hipdnnHandle_t handle) {
        conv_case cc;
        fe::graph::Graph g;
        fp32_graph(g, "conv_fwd");
        auto x = tensor("x", {cc.N, cc.C, cc.H, cc.W}), w = tensor("w", {cc.K, cc.C, cc.R, cc.S});
        auto y = g.conv_fprop(x, w, cc.attributes());
        y->set_output(true).set_data_type(fe::DataType::FLOAT);

        auto xv = random_floats((size_t)(cc.N * cc.C * cc.H * cc.W));
        auto wv = random_floats((size_t)(cc.K * cc.C * cc.R * cc.S));
        auto ref = cc.reference(xv, wv);
        std::vector<float> yv(ref.size(), NAN);
        std::unordered_map<std::shared_ptr<fe::graph::TensorAttributes>, void*> pack
            = {{x, xv.data()}, {w, wv.data()}, {y, yv.data()}};
        if(!run_graph(g, handle, pack))
            return false;
        return compare("y", yv, ref, 1e-5, 1e-5);
    });
}
