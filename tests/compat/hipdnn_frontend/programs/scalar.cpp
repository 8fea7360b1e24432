// scalar.cpp — hipDNN frontend: y = x * 2.5 with the 2.5 passed by value (a [1] tensor)
// against a rank-3 x [4,6,8], then + a second by-value scalar, host pointers.
#include "compat_common.hpp"

int main()
{
    using namespace compat;
    return main_with_handle("by-value scalar", [](hipdnnHandle_t handle) {
        const std::vector<int64_t> dims = {4, 6, 8};
        fe::graph::Graph g;
        fp32_graph(g, "scale_by_value");
        auto x = tensor("x", dims);
        auto scale = std::make_shared<fe::graph::TensorAttributes>(2.5f);
        auto shift = std::make_shared<fe::graph::TensorAttributes>(-0.75f);
        auto t = g.pointwise(x, scale, fe::graph::PointwiseAttributes().set_mode(fe::PointwiseMode::MUL));
        auto y = g.pointwise(t, shift, fe::graph::PointwiseAttributes().set_mode(fe::PointwiseMode::ADD));
        y->set_output(true).set_data_type(fe::DataType::FLOAT);

        size_t n = 4 * 6 * 8;
        auto xv = random_floats(n);
        std::vector<float> yv(n, NAN);
        std::unordered_map<std::shared_ptr<fe::graph::TensorAttributes>, void*> pack
            = {{x, xv.data()}, {y, yv.data()}};
        if(!run_graph(g, handle, pack))
            return false;
        std::vector<double> ref(n);
        for(size_t i = 0; i < n; i++)
            ref[i] = (double)xv[i] * 2.5 - 0.75;
        return compare("y", yv, ref);
    });
}
