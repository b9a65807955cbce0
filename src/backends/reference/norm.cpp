// norm.cpp: BatchNormalization in its inference form, y = scale * (x - mean) / sqrt(var + eps) + bias per channel,
// and InstanceNormalization, the same with mean and variance taken over each (n, c) plane. Both in double.
#include <cmath>
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"

namespace strata::backends::reference {

namespace {
// Checks X is [N, C, ...] and that each per-channel parameter has C values; returns C.
int64_t check_channel_params(const ir::Node& node, Inputs inputs, size_t count) {
    const Tensor& x = required_input(node, inputs, 0);
    require_dtype(node, x, {DType::f32});
    STRATA_CHECK(x.rank() >= 2, StatusCode::invalid_argument, "{}: X {} must be [N, C, ...]", ir::node_label(node),
                 shape_str(x.shape()));
    for (size_t i = 1; i < count; ++i) {
        const Tensor& p = required_input(node, inputs, i);
        require_dtype(node, p, {DType::f32});
        STRATA_CHECK(p.numel() == x.dim(1), StatusCode::invalid_argument,
                     "{}: input {} has {} values, expected one per channel ({})", ir::node_label(node), i, p.numel(),
                     x.dim(1));
    }
    return x.dim(1);
}
}  // namespace

void batch_norm_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    int64_t channels = check_channel_params(node, inputs, 5);
    const Tensor& x = inputs[0];
    const float *scale = inputs[1].data<float>(), *bias = inputs[2].data<float>();
    const float *mean = inputs[3].data<float>(), *var = inputs[4].data<float>();
    double eps = node.attr<ir::BatchNormAttrs>().epsilon;
    int64_t batch = x.dim(0), inner = dims_product(x.shape(), 2, x.rank());
    const float* in = x.data<float>();
    float* out = outputs[0].data<float>();
    for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
            double k = scale[c] / std::sqrt(static_cast<double>(var[c]) + eps);
            int64_t base = (n * channels + c) * inner;
            for (int64_t i = 0; i < inner; ++i)
                out[base + i] = static_cast<float>((in[base + i] - static_cast<double>(mean[c])) * k + bias[c]);
        }
    }
}

void instance_norm_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    int64_t channels = check_channel_params(node, inputs, 3);
    const Tensor& x = inputs[0];
    const float *scale = inputs[1].data<float>(), *bias = inputs[2].data<float>();
    double eps = node.attr<ir::BatchNormAttrs>().epsilon;
    int64_t batch = x.dim(0), inner = dims_product(x.shape(), 2, x.rank());
    const float* in = x.data<float>();
    float* out = outputs[0].data<float>();
    for (int64_t nc = 0; nc < batch * channels; ++nc) {
        const float* plane = in + nc * inner;
        double sum = 0.0, sq = 0.0;
        for (int64_t i = 0; i < inner; ++i) sum += plane[i];
        double mean = inner > 0 ? sum / static_cast<double>(inner) : 0.0;
        for (int64_t i = 0; i < inner; ++i) sq += (plane[i] - mean) * (plane[i] - mean);
        double var = inner > 0 ? sq / static_cast<double>(inner) : 0.0;
        int64_t c = nc % channels;
        double k = scale[c] / std::sqrt(var + eps);
        for (int64_t i = 0; i < inner; ++i) out[nc * inner + i] = static_cast<float>((plane[i] - mean) * k + bias[c]);
    }
}

}  // namespace strata::backends::reference
