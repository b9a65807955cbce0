// cudnn_conv.cpp: the cuDNN tactics `cudnn.conv` (Conv, cudnnConvolutionForward) and `cudnn.conv_transpose`
// (ConvTranspose, cudnnConvolutionBackwardData). A config is one of cuDNN's algorithms; can_implement() asks cuDNN
// for its workspace, which fails for an algorithm that does not support the shape. Bias and activation follow as
// strata's own in-place epilogue (lib_epilogue.h): the bias is float32 whatever the compute dtype.
#include <fmt/format.h>

#include <limits>

#include "backends/cuda/kernels/conv_transpose/conv_transpose.h"
#include "backends/cuda/libs/cudnn_conv_common.h"
#include "backends/cuda/libs/lib_epilogue.h"
#include "backends/cuda/libs/lib_tactics.h"
#include "backends/cuda/libs/warm_up.h"
#include "core/check.h"

namespace strata::cuda::libs {

namespace {
constexpr size_t kMaxWorkspace = size_t{1} << 30;  // an algorithm that wants more than 1 GiB is not worth timing

const CudnnApi& api() {
    return *cudnn_api();
}
int device_of(const StepDesc& desc) {
    return desc.device ? desc.device->index : 0;
}
int64_t at_or(const std::vector<int64_t>& v, size_t i, int64_t fallback) {
    return i < v.size() ? v[i] : fallback;
}

// ---- Conv --------------------------------------------------------------------------------------------------------

std::string conv_unsupported(const StepDesc& desc) {
    if (auto r = cudnn_unavailable(); !r.empty()) return r;
    if (desc.inputs.size() < 2 || desc.outputs.size() != 1) return "needs X, W and one output";
    const TensorDesc &x = desc.inputs[0], &w = desc.inputs[1], &y = desc.outputs[0];
    if (x.rank() != 3 && x.rank() != 4) return fmt::format("{}-D convolution (1-D and 2-D only)", x.rank() - 2);
    if (w.rank() != x.rank() || y.rank() != x.rank()) return "W or Y rank differs from X";
    if (!is_float_dtype(x.dtype) || w.dtype != x.dtype || y.dtype != x.dtype) return "dtypes differ or are not float";
    if (w.channels_last() != x.channels_last() || y.channels_last() != x.channels_last()) return "layouts differ";
    if (desc.inputs.size() > 3 && desc.inputs[3].present &&
        (desc.inputs[3].dtype != y.dtype || desc.inputs[3].shape != y.shape || desc.inputs[3].layout != y.layout))
        return "residual differs from Y in dtype, shape or layout";
    if (desc.inputs.size() > 2 && desc.inputs[2].present && desc.inputs[2].dtype != DType::f32)
        return "bias is not float32";
    const auto& a = desc.attr<ir::ConvAttrs>();
    if (a.auto_pad != ir::AutoPad::explicit_pads) return "auto_pad not resolved";
    for (size_t i = 0; i + 2 < static_cast<size_t>(x.rank()); ++i)
        if (at_or(a.pads_begin, i, 0) != at_or(a.pads_end, i, 0)) return "asymmetric pads";
    int64_t lim = std::numeric_limits<int32_t>::max();
    if (x.numel() > lim || y.numel() > lim || w.numel() > lim) return "more than 2^31 elements";
    return {};
}

CudnnConvGeometry conv_geometry(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &w = desc.inputs[1], &y = desc.outputs[0];
    const auto& a = desc.attr<ir::ConvAttrs>();
    bool two_d = x.rank() == 4;
    size_t wi = two_d ? 1 : 0;  // the width dim's index in the attribute vectors
    CudnnConvGeometry g;
    g.n = static_cast<int>(x.shape[0]);
    g.c = static_cast<int>(x.shape[1]);
    g.h = two_d ? static_cast<int>(x.shape[2]) : 1;
    g.w = static_cast<int>(x.shape.back());
    g.k = static_cast<int>(w.shape[0]);
    g.r = two_d ? static_cast<int>(w.shape[2]) : 1;
    g.s = static_cast<int>(w.shape.back());
    g.p = two_d ? static_cast<int>(y.shape[2]) : 1;
    g.q = static_cast<int>(y.shape.back());
    g.pad_h = two_d ? static_cast<int>(at_or(a.pads_begin, 0, 0)) : 0;
    g.pad_w = static_cast<int>(at_or(a.pads_begin, wi, 0));
    g.stride_h = two_d ? static_cast<int>(at_or(a.strides, 0, 1)) : 1;
    g.stride_w = static_cast<int>(at_or(a.strides, wi, 1));
    g.dil_h = two_d ? static_cast<int>(at_or(a.dilations, 0, 1)) : 1;
    g.dil_w = static_cast<int>(at_or(a.dilations, wi, 1));
    g.group = static_cast<int>(a.group);
    g.dtype = x.dtype;
    g.nhwc = x.channels_last();
    g.allow_tf32 = desc.allow_tf32;
    return g;
}

size_t conv_workspace(cudnnHandle_t h, const CudnnConvDescriptors& d, int algo) {
    size_t bytes = 0;
    STRATA_CUDNN_CHECK(api(),
                       cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y,
                                                               static_cast<cudnnConvolutionFwdAlgo_t>(algo), &bytes),
                       fwd_algo_name(algo));
    return bytes;
}

// ---- ConvTranspose: the backward-data pass of the convolution from Y's shape to X's ------------------------------

CudnnConvGeometry conv_transpose_geometry(const StepDesc& desc) {
    ConvTransposeParams p = conv_transpose_params(desc);
    CudnnConvGeometry g;
    g.n = static_cast<int>(p.n);
    g.c = static_cast<int>(p.m);
    g.h = static_cast<int>(p.p);
    g.w = static_cast<int>(p.q);
    g.k = static_cast<int>(p.c);
    g.r = static_cast<int>(p.r);
    g.s = static_cast<int>(p.s);
    g.p = static_cast<int>(p.h);
    g.q = static_cast<int>(p.w);
    g.pad_h = static_cast<int>(p.pad_h);
    g.pad_w = static_cast<int>(p.pad_w);
    g.stride_h = static_cast<int>(p.stride_h);
    g.stride_w = static_cast<int>(p.stride_w);
    g.dil_h = static_cast<int>(p.dil_h);
    g.dil_w = static_cast<int>(p.dil_w);
    g.group = static_cast<int>(p.group);
    g.dtype = desc.outputs[0].dtype;
    g.nhwc = p.nhwc;
    g.allow_tf32 = desc.allow_tf32;
    return g;
}

std::string conv_transpose_unsupported_here(const StepDesc& desc) {
    if (auto r = cudnn_unavailable(); !r.empty()) return r;
    if (auto r = conv_transpose_unsupported(desc); !r.empty()) return r;
    if (conv_transpose_params(desc).pad_h < 0 || conv_transpose_params(desc).pad_w < 0) return "negative pads";
    return {};
}

size_t conv_transpose_workspace(cudnnHandle_t h, const CudnnConvDescriptors& d, int algo) {
    size_t bytes = 0;
    // Forward x is ConvTranspose's output (dx), forward y its input (dy).
    STRATA_CUDNN_CHECK(api(),
                       cudnnGetConvolutionBackwardDataWorkspaceSize(
                           h, d.w, d.y, d.conv, d.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes),
                       bwd_data_algo_name(algo));
    return bytes;
}

// ---- The kernel (both directions) --------------------------------------------------------------------------------

class CudnnConvKernel final : public CudaKernel {
public:
    CudnnConvKernel(const StepDesc& desc, bool transpose, int algo)
        : name_(desc.name),
          transpose_(transpose),
          algo_(algo),
          dtype_(desc.outputs[0].dtype),
          geometry_(transpose ? conv_transpose_geometry(desc) : conv_geometry(desc)),
          descriptors_(geometry_) {
        workspace_ = transpose ? conv_transpose_workspace(handle_.get(), descriptors_, algo)
                               : conv_workspace(handle_.get(), descriptors_, algo);
        if (!transpose) act_ = activation_params(desc.attr<ir::ConvAttrs>().activation);
        has_bias_ = desc.inputs.size() > 2 && desc.inputs[2].present;
        has_residual_ = !transpose && desc.inputs.size() > 3 && desc.inputs[3].present;
        // The output is the forward y for Conv, the forward x for ConvTranspose.
        int64_t channels = transpose ? geometry_.c : geometry_.k;
        int64_t plane = transpose ? int64_t{geometry_.h} * geometry_.w : int64_t{geometry_.p} * geometry_.q;
        map_ = {desc.outputs[0].numel(), channels, geometry_.nhwc ? 1 : plane};
    }

    size_t workspace_bytes() const override { return workspace_; }
    std::string detail() const override { return transpose_ ? bwd_data_algo_name(algo_) : fwd_algo_name(algo_); }

    void launch(const StepBuffers& b, cudaStream_t stream) override {
        const CudnnConvDescriptors& d = descriptors_;
        STRATA_CUDNN_CHECK(api(), cudnnSetStream(handle_.get(), stream), name_);
        const float one = 1.0f, zero = 0.0f;  // float scaling factors for every non-double data type
        if (!transpose_) {
            STRATA_CUDNN_CHECK(api(),
                               cudnnConvolutionForward(handle_.get(), &one, d.x, b.inputs[0], d.w, b.inputs[1], d.conv,
                                                       static_cast<cudnnConvolutionFwdAlgo_t>(algo_), b.workspace,
                                                       workspace_, &zero, d.y, b.outputs[0]),
                               name_);
        } else {
            STRATA_CUDNN_CHECK(api(),
                               cudnnConvolutionBackwardData(handle_.get(), &one, d.w, b.inputs[1], d.y, b.inputs[0],
                                                            d.conv, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo_),
                                                            b.workspace, workspace_, &zero, d.x, b.outputs[0]),
                               name_);
        }
        EpilogueParams ep;
        ep.bias = has_bias_ ? static_cast<const float*>(b.inputs[2]) : nullptr;
        ep.residual = has_residual_ ? b.inputs[3] : nullptr;
        ep.act = act_;
        launch_epilogue(dtype_, b.outputs[0], ep, map_, stream);
    }

private:
    std::string name_;
    bool transpose_;
    int algo_;
    DType dtype_;
    CudnnConvGeometry geometry_;
    CudnnHandle handle_;
    CudnnConvDescriptors descriptors_;
    size_t workspace_ = 0;
    ActivationParams act_;
    bool has_bias_ = false, has_residual_ = false;
    ChannelMap map_;
};

// ---- Tactics -----------------------------------------------------------------------------------------------------

std::string check_algo(const StepDesc& desc, const CudnnConvGeometry& g, bool transpose, int algo) {
    size_t bytes = 0;
    std::string failed = with_query_handle(device_of(desc), [&](cudnnHandle_t h) {
        CudnnConvDescriptors d(g);
        bytes = transpose ? conv_transpose_workspace(h, d, algo) : conv_workspace(h, d, algo);
    });
    std::string name = transpose ? bwd_data_algo_name(algo) : fwd_algo_name(algo);
    if (!failed.empty()) return fmt::format("cuDNN does not support {} here: {}", name, failed);
    if (bytes > kMaxWorkspace) return fmt::format("{} wants {} MiB of workspace", name, bytes >> 20);
    return {};
}

std::string conv_can_implement(const StepDesc& desc, int algo) {
    if (auto r = conv_unsupported(desc); !r.empty()) return r;
    // Measured on the H200 (2026-11-29): the non-fused Winograd algorithm misses fp32's accuracy (1.6e-3 relative
    // on a 5x5 layer against 1e-4): fp32 without TF32 does not use it.
    if (algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED && desc.outputs[0].dtype == DType::f32 && !desc.allow_tf32)
        return "the non-fused Winograd algorithm is not fp32-accurate";
    return check_algo(desc, conv_geometry(desc), false, algo);
}

std::string conv_transpose_can_implement(const StepDesc& desc, int algo) {
    if (auto r = conv_transpose_unsupported_here(desc); !r.empty()) return r;
    return check_algo(desc, conv_transpose_geometry(desc), true, algo);
}

std::unique_ptr<CudaKernel> make_conv(const StepDesc& desc, int algo) {
    STRATA_CHECK(conv_unsupported(desc).empty(), StatusCode::unsupported, "unsupported: cudnn.conv on {}: {}",
                 desc.name, conv_unsupported(desc));
    auto kernel = std::make_unique<CudnnConvKernel>(desc, false, algo);
    warm_up(*kernel, desc);
    return kernel;
}

std::unique_ptr<CudaKernel> make_conv_transpose(const StepDesc& desc, int algo) {
    std::string why = conv_transpose_unsupported_here(desc);
    STRATA_CHECK(why.empty(), StatusCode::unsupported, "unsupported: cudnn.conv_transpose on {}: {}", desc.name, why);
    auto kernel = std::make_unique<CudnnConvKernel>(desc, true, algo);
    warm_up(*kernel, desc);
    return kernel;
}

std::string conv_config_name(int algo) {
    return fwd_algo_name(algo);
}
std::string conv_transpose_config_name(int algo) {
    return bwd_data_algo_name(algo);
}
}  // namespace

void register_cudnn_tactics(CudaTacticRegistry& registry) {
    registry.add(CudaTactic{.name = "cudnn.conv",
                            .op = ir::OpKind::Conv,
                            .num_configs = CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                            .can_implement = conv_can_implement,
                            .make = make_conv,
                            .config_name = conv_config_name,
                            .from_library = true});
    registry.add(CudaTactic{.name = "cudnn.conv_transpose",
                            .op = ir::OpKind::ConvTranspose,
                            .num_configs = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                            .can_implement = conv_transpose_can_implement,
                            .make = make_conv_transpose,
                            .config_name = conv_transpose_config_name,
                            .from_library = true});
}

}  // namespace strata::cuda::libs
