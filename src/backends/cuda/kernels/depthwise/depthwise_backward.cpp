// depthwise_backward.cpp: the host side of depthwise_backward.h: params from tensor descs, the checks, and the two
// public launches (check, plan, enqueue).
#include "backends/cuda/kernels/depthwise/depthwise_backward.h"

#include <fmt/format.h>

#include <cstdlib>

#include "backends/cuda/kernels/depthwise/depthwise_backward_plan.h"
#include "core/check.h"

namespace strata::cuda {

namespace {

// Pixel counts and spatial coordinates stay below this, so the kernels' 32-bit index arithmetic cannot overflow.
constexpr int64_t kDwIndexLimit = int64_t{1} << 30;

// Largest intermediate of one spatial dim's index arithmetic: output * stride + tap * dilation + pad + input.
int64_t dw_extent(int in, int out, int taps, int stride, int dil, int pad) {
    return int64_t{out} * stride + int64_t{taps} * dil + std::llabs(pad) + in;
}

void check_problem(const DepthwiseBackwardParams& params, DType dtype, const char* what) {
    const std::string problem = depthwise_backward_problem(params, dtype);
    STRATA_CHECK(problem.empty(), StatusCode::invalid_argument, "{}: {} ({} {})", what, problem, params.g.str(),
                 dtype_name(dtype));
}

}  // namespace

DepthwiseBackwardParams depthwise_backward_params(const ConvGeometry& g, const TensorDesc& x, const TensorDesc& w,
                                                  const TensorDesc& dy) {
    DepthwiseBackwardParams p;
    p.g = g;
    conv_strides(x, p.x_stride);
    conv_strides(w, p.w_stride);
    conv_strides(dy, p.y_stride);
    return p;
}

std::string depthwise_backward_problem(const DepthwiseBackwardParams& params, DType dtype) {
    const ConvGeometry& g = params.g;
    if (dtype != DType::f32 && dtype != DType::f16 && dtype != DType::bf16)
        return fmt::format("dtype {} (float32, float16 and bfloat16 are supported)", dtype_name(dtype));
    if (g.c < 1 || g.group != g.c) return fmt::format("not depthwise: {} groups for {} channels", g.group, g.c);
    if (g.k < g.c || g.k % g.c != 0) return fmt::format("{} output channels are not a multiple of C = {}", g.k, g.c);
    if (g.n < 0 || g.h < 1 || g.w < 1 || g.p < 0 || g.q < 0 || g.r < 1 || g.s < 1)
        return "a size is out of range (N, P, Q >= 0; H, W, R, S >= 1)";
    if (g.stride_h < 1 || g.stride_w < 1 || g.dil_h < 1 || g.dil_w < 1) return "strides and dilations must be >= 1";
    if (int64_t{g.n} * g.h * g.w >= kDwIndexLimit || int64_t{g.n} * g.p * g.q >= kDwIndexLimit ||
        int64_t{g.n} * g.c >= kDwIndexLimit || int64_t{g.k} * g.r * g.s >= kDwIndexLimit ||
        dw_extent(g.h, g.p, g.r, g.stride_h, g.dil_h, g.pad_h) >= kDwIndexLimit ||
        dw_extent(g.w, g.q, g.s, g.stride_w, g.dil_w, g.pad_w) >= kDwIndexLimit)
        return "too large for 32-bit pixel indices (N*H*W, N*P*Q, N*C, K*R*S and spatial extents below 2^30)";
    return {};
}

void depthwise_dgrad_launch(const DepthwiseBackwardParams& params, DType dtype, cudaStream_t stream) {
    check_problem(params, dtype, "depthwise_dgrad_launch");
    const ConvGeometry& g = params.g;
    if (int64_t{g.n} * g.c * g.h * g.w == 0) return;
    const bool reads = int64_t{g.p} * g.q > 0;
    STRATA_CHECK(params.dx && (!reads || (params.dy && params.w)), StatusCode::invalid_argument,
                 "depthwise_dgrad_launch: dx, dy and w must be device pointers ({})", g.str());
    dw_dgrad_enqueue(params, dw_dgrad_plan(params, dtype_size(dtype)), dtype, stream);
}

size_t depthwise_wgrad_workspace_bytes(const DepthwiseBackwardParams& params) {
    const DwWgradPlan plan = dw_wgrad_plan(params, 0);
    return static_cast<size_t>(plan.slices * params.g.k * params.g.r * params.g.s) * sizeof(float);
}

void depthwise_wgrad_launch(const DepthwiseBackwardParams& params, DType dtype, void* workspace, cudaStream_t stream) {
    check_problem(params, dtype, "depthwise_wgrad_launch");
    const ConvGeometry& g = params.g;
    const DwWgradPlan plan = dw_wgrad_plan(params, dtype_size(dtype));
    STRATA_ASSERT(plan.stage1_blocks < (int64_t{1} << 31), "depthwise wgrad: {} stage-1 blocks for {}",
                  plan.stage1_blocks, g.str());
    const bool reads = plan.slices > 0;
    STRATA_CHECK(params.dw && (!reads || (params.x && params.dy && workspace)), StatusCode::invalid_argument,
                 "depthwise_wgrad_launch: dw, x, dy and the workspace ({} bytes) must be device pointers ({})",
                 depthwise_wgrad_workspace_bytes(params), g.str());
    dw_wgrad_enqueue(params, plan, dtype, static_cast<float*>(workspace), stream);
}

}  // namespace strata::cuda
