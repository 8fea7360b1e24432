// conv_common.hpp — the convolution the conv programs share: x NCHW [2,3,9,7], w KCRS
// [4,3,3,2], pre/post padding (1,0), stride (2,1), dilation (1,2), and its plain loop.
#pragma once
#include "compat_common.hpp"

namespace compat
{
struct conv_case
{
    int64_t N = 2, C = 3, H = 9, W = 7, K = 4, R = 3, S = 2;
    int64_t pad[2] = {1, 0}, stride[2] = {2, 1}, dil[2] = {1, 2};
    int64_t P() const { return (H + 2 * pad[0] - dil[0] * (R - 1) - 1) / stride[0] + 1; }
    int64_t Q() const { return (W + 2 * pad[1] - dil[1] * (S - 1) - 1) / stride[1] + 1; }

    fe::graph::ConvFpropAttributes attributes() const
    {
        return fe::graph::ConvFpropAttributes()
            .set_padding({pad[0], pad[1]})
            .set_stride({stride[0], stride[1]})
            .set_dilation({dil[0], dil[1]});
    }

    // y[n,k,p,q] = sum over c,r,s of x[n,c,p*sh - ph + r*dh, q*sw - pw + s*dw] * w[k,c,r,s]
    std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w) const
    {
        std::vector<double> y((size_t)(N * K * P() * Q()), 0.0);
        for(int64_t n = 0; n < N; n++)
            for(int64_t k = 0; k < K; k++)
                for(int64_t p = 0; p < P(); p++)
                    for(int64_t q = 0; q < Q(); q++)
                    {
                        double acc = 0;
                        for(int64_t c = 0; c < C; c++)
                            for(int64_t r = 0; r < R; r++)
                                for(int64_t s = 0; s < S; s++)
                                {
                                    int64_t h = p * stride[0] - pad[0] + r * dil[0];
                                    int64_t ww = q * stride[1] - pad[1] + s * dil[1];
                                    if(h < 0 || h >= H || ww < 0 || ww >= W)
                                        continue;
                                    acc += (double)x[(size_t)(((n * C + c) * H + h) * W + ww)]
                                           * (double)w[(size_t)(((k * C + c) * R + r) * S + s)];
                                }
                        y[(size_t)(((n * K + k) * P() + p) * Q() + q)] = acc;
                    }
        return y;
    }
};
} // namespace compat
