// pointwise.cpp — hipDNN frontend: z = x + y on [2,3,4,5] (pointwise ADD), host pointers.
#include "compat_common.hpp"

int main()
{
    using namespace compat;
    return main_with_handle("pointwise add", [](hipdnnHandle_t handle) {
        const std::vector<int64_t> dims = {2, 3, 4, 5};
        fe::graph::Graph g;
        fp32_graph(g, "pointwise_add");
        auto x = tensor("x", dims), y = tensor("y", dims);
        auto z = g.pointwise(x, y, fe::graph::PointwiseAttributes().set_mode(fe::PointwiseMode::ADD));
        z->set_output(true).set_data_type(fe::DataType::FLOAT);

        size_t n = 2 * 3 * 4 * 5;
        auto xv = random_floats(n), yv = random_floats(n);
        std::vector<float> zv(n, NAN);
        std::unordered_map<std::shared_ptr<fe::graph::TensorAttributes>, void*> pack
            = {{x, xv.data()}, {y, yv.data()}, {z, zv.data()}};
        if(!run_graph(g, handle, pack))
            return false;
        std::vector<double> ref(n);
        for(size_t i = 0; i < n; i++)
            ref[i] = (double)xv[i] + (double)yv[i];
        return compare("z", zv, ref);
    });
}
