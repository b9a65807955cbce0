// batch_norm.cpp: BatchNormalization in its inference form (cpu.batch_norm) for the cases the passes cannot fold
// into a preceding convolution: per channel an affine map y = x * k + (bias - mean * k), k = scale / sqrt(var + eps),
// computed once per channel in double and applied four values at a time, threaded over N*C planes.
#include <cmath>
#include <vector>

#include "backends/cpu/cpu_common.h"
#include "backends/cpu/simd.h"

namespace strata::backends::cpu {

std::string batch_norm_can_implement(const ir::Graph& graph, const ir::Node& node) {
    if (std::string r = require_f32(graph, node, "cpu.batch_norm"); !r.empty()) return r;
    if (std::string r = require_static_shapes(graph, node, "cpu.batch_norm"); !r.empty()) return r;
    if (node.inputs.size() != 5 || graph.value(node.input(0)).shape.size() < 2)
        return "cpu.batch_norm: needs X of rank >= 2 and scale, bias, mean, var";
    return {};
}

void batch_norm(const ir::Node& node, std::span<const Tensor> inputs, std::span<Tensor> outputs,
                const KernelContext& ctx) {
    const Tensor& x = inputs[0];
    const int64_t channels = x.dim(1), planes = x.dim(0) * channels;
    const int64_t inner = planes > 0 ? x.numel() / planes : 0;
    const float *scale = inputs[1].data<float>(), *bias = inputs[2].data<float>();
    const float *mean = inputs[3].data<float>(), *var = inputs[4].data<float>();
    const double eps = node.attr<ir::BatchNormAttrs>().epsilon;
    std::vector<float> k(static_cast<size_t>(channels)), shift(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
        const double kc = scale[c] / std::sqrt(static_cast<double>(var[c]) + eps);
        k[c] = static_cast<float>(kc);
        shift[c] = static_cast<float>(bias[c] - mean[c] * kc);
    }
    const float* in = x.data<float>();
    float* out = outputs[0].data<float>();
    parallel_for(ctx, planes, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
            const float kc = k[plane % channels], sc = shift[plane % channels];
            map(in + plane * inner, out + plane * inner, inner, [kc, sc](auto v) { return v * kc + sc; });
        }
    });
}

}  // namespace strata::backends::cpu
