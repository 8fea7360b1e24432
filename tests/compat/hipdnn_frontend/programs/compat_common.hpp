// compat_common.hpp — shared steps of the hipDNN-frontend compatibility programs.
//
// Each program builds one graph with hipDNN's own C++ frontend (hipdnn_frontend.hpp, not in
// this repository), runs the seven steps a hipDNN user runs — validate, build_operation_graph,
// create_execution_plans, check_support, build_plans, get_workspace_size, execute — on host
// pointers, and compares every output element with a plain loop in double precision.
// Exit status: 0 all steps passed and every element matched; 1 otherwise (the failing step
// and the frontend's message are printed). Random inputs come from a fresh seed, printed.
#pragma once

#include <hipdnn_frontend.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace compat
{
namespace fe = hipdnn_frontend;

inline std::mt19937_64& rng()
{
    static std::mt19937_64 gen([] {
        const char* s = std::getenv("COMPAT_SEED");
        unsigned long long seed = s != nullptr
            ? std::strtoull(s, nullptr, 10)
            : (unsigned long long)std::chrono::steady_clock::now().time_since_epoch().count();
        std::printf("seed %llu (COMPAT_SEED=%llu reruns it)\n", seed, seed);
        return seed;
    }());
    return gen;
}

inline std::vector<float> random_floats(size_t n, float lo = -1.0f, float hi = 1.0f)
{
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for(auto& x : v)
        x = d(rng());
    return v;
}

inline std::shared_ptr<fe::graph::TensorAttributes> tensor(const std::string& name,
                                                            std::vector<int64_t> dims)
{
    std::vector<int64_t> strides(dims.size(), 1);
    for(int i = (int)dims.size() - 2; i >= 0; i--)
        strides[i] = strides[i + 1] * dims[i + 1];
    auto t = std::make_shared<fe::graph::TensorAttributes>();
    t->set_name(name).set_dim(dims).set_stride(strides).set_data_type(fe::DataType::FLOAT);
    return t;
}

// Names g and gives it fp32 io, intermediate and compute types (every program's graph).
inline void fp32_graph(fe::graph::Graph& g, const char* name)
{
    g.set_name(name)
        .set_io_data_type(fe::DataType::FLOAT)
        .set_intermediate_data_type(fe::DataType::FLOAT)
        .set_compute_data_type(fe::DataType::FLOAT);
}

inline bool step(const char* name, const fe::Error& e)
{
    if(e.is_good())
    {
        std::printf("  %-24s ok\n", name);
        return true;
    }
    std::printf("  %-24s FAILED: %s\n", name, e.get_message().c_str());
    return false;
}

// The seven steps; `pack` maps tensors to host pointers. Returns false at the first failure.
inline bool run_graph(fe::graph::Graph& g,
                      hipdnnHandle_t handle,
                      std::unordered_map<std::shared_ptr<fe::graph::TensorAttributes>, void*>& pack)
{
    if(!step("validate", g.validate()) || !step("build_operation_graph", g.build_operation_graph(handle))
       || !step("create_execution_plans", g.create_execution_plans())
       || !step("check_support", g.check_support()) || !step("build_plans", g.build_plans()))
        return false;
    int64_t ws = -1;
    if(!step("get_workspace_size", g.get_workspace_size(ws)))
        return false;
    std::vector<unsigned char> workspace((size_t)(ws > 0 ? ws : 1));
    return step("execute", g.execute(handle, pack, workspace.data()));
}

// Per-element check |out - ref| <= atol + rtol * |ref| (NaN positions must agree).
inline bool compare(const char* what, const std::vector<float>& out, const std::vector<double>& ref,
                    double atol = 1e-5, double rtol = 1e-5)
{
    size_t bad = 0, worst = 0;
    double worst_err = -1;
    for(size_t i = 0; i < ref.size(); i++)
    {
        double err = std::fabs((double)out[i] - ref[i]);
        bool ok = std::isnan(ref[i]) ? std::isnan(out[i]) : err <= atol + rtol * std::fabs(ref[i]);
        if(!ok)
            bad++;
        if(!ok && (worst_err < 0 || err > worst_err || std::isnan(err)))
        {
            worst_err = err;
            worst = i;
        }
    }
    if(bad == 0)
    {
        std::printf("  %-24s %zu elements match the plain loop\n", what, ref.size());
        return true;
    }
    std::printf("  %-24s %zu of %zu elements differ; worst at %zu: got %.9g, want %.9g\n", what, bad,
                ref.size(), worst, (double)out[worst], ref[worst]);
    return false;
}

// Creates the handle, runs body(handle), destroys the handle; the program's exit status.
template <typename Body>
int main_with_handle(const char* title, Body body)
{
    std::printf("%s\n", title);
    hipdnnHandle_t handle = nullptr;
    if(hipdnnCreate(&handle) != HIPDNN_STATUS_SUCCESS)
    {
        std::printf("  hipdnnCreate failed\n");
        return 1;
    }
    bool ok = body(handle);
    hipdnnDestroy(handle);
    std::printf("%s: %s\n", title, ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

} // namespace compat
