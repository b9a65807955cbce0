// stem_gemm_tactic.cpp: the tactic cuda.conv.stem_gemm (kernel in stem_gemm.cu): what it covers, and the kernel
// object that sizes its grid once and launches it.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/conv/conv_geometry.h"
#include "backends/cuda/kernels/conv/conv_tactics.h"
#include "backends/cuda/kernels/conv/stem_gemm.h"
#include "core/check.h"

namespace strata::cuda {

namespace {

constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();

std::string stem_gemm_can_implement(const StepDesc& desc, int config) {
    if (desc.inputs[0].rank() != 4) return "2-D convolutions only";
    if (!desc.inputs[1].channels_last() || !desc.outputs[0].channels_last())
        return "needs KRSC weights and an nhwc output";
    DType dt = desc.outputs[0].dtype;
    if (dt != DType::f16 && dt != DType::bf16) return fmt::format("fp16 and bf16 only (dtype {})", dtype_name(dt));
    if (std::string p = conv_dtype_problem(desc); !p.empty()) return p;
    const ConvGeometry g = conv_geometry(desc);
    if (g.group != 1) return fmt::format("groups > 1 (group = {})", g.group);
    if (!stem_gemm_shape_supported(g.r, g.s, g.c))
        return fmt::format("3x3 or 7x7 kernels on 3 input channels only ({}x{} on C = {})", g.r, g.s, g.c);
    if (g.k % 8 != 0) return fmt::format("needs K % 8 == 0 (K = {})", g.k);
    if (config == kStemRows && (g.stride_h != 2 || g.stride_w != 2 || g.dil_h != 1 || g.dil_w != 1))
        return fmt::format("the rows kernel: stride 2 and dilation 1 only (stride {}x{}, dilation {}x{})", g.stride_h,
                           g.stride_w, g.dil_h, g.dil_w);
    for (const TensorDesc* t : {&desc.inputs[0], &desc.outputs[0]})
        if (t->numel() > kMaxElements) return "a tensor has 2^31 elements or more";
    if (desc.device) {
        if (desc.device->compute_capability() < 80) return "needs sm_80 or newer (mma.sync m16n8k16, ldmatrix)";
        const size_t smem = stem_gemm_smem_bytes(config, g.r, g.s, g.c, g.k);
        if (smem > desc.device->smem_per_block_optin)
            return fmt::format("needs {} bytes of shared memory per block (K = {} too large; most {})", smem, g.k,
                               desc.device->smem_per_block_optin);
    }
    return {};
}

bool aligned16(const void* p) {
    return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

class StemGemmKernel final : public CudaKernel {
public:
    StemGemmKernel(const StepDesc& desc, int config) : desc_(desc), g_(conv_geometry(desc)), config_(config) {
        STRATA_ASSERT(desc.device != nullptr, "{}: stem_gemm needs the device info", desc.name);
        const size_t smem = stem_gemm_smem_bytes(config, g_.r, g_.s, g_.c, g_.k);
        int per_sm = 0;
        STRATA_CUDA_CHECK(stem_gemm_prepare(desc.outputs[0].dtype, config, g_.r, g_.s, g_.c, smem,
                                            desc.device->smem_per_block_optin, &per_sm),
                          desc.name);
        STRATA_ASSERT(per_sm > 0, "{}: stem_gemm's block ({} bytes of shared memory) fits on no SM", desc.name, smem);
        // Enough blocks to fill every SM once, no more: each block stages the weights once and strides over its
        // work (rounds of 32 pixels per warp, or output row segments of 8 x 16 pixels per block).
        const int64_t wanted = config == kStemRows
                                   ? int64_t{g_.n} * g_.p * ((g_.q + kPwWarps * kPwTileRows - 1) / (kPwWarps * kPwTileRows))
                                   : ((g_.out_pixels() + kStemGemmRows - 1) / kStemGemmRows + kPwWarps - 1) / kPwWarps;
        grid_ = static_cast<int>(std::min<int64_t>(wanted, int64_t{per_sm} * desc.device->sm_count));
        conv_strides(desc.inputs[0], gather_.x_stride);
        gather_.in_h = g_.h, gather_.in_w = g_.w, gather_.out_h = g_.p, gather_.out_w = g_.q;
        gather_.stride_h = g_.stride_h, gather_.stride_w = g_.stride_w;
        gather_.pad_h = g_.pad_h, gather_.pad_w = g_.pad_w, gather_.dil_h = g_.dil_h, gather_.dil_w = g_.dil_w;
    }

    void launch(const StepBuffers& buffers, cudaStream_t stream) override {
        PointwiseNarrowParams prm;
        prm.pixels = g_.out_pixels();
        prm.c = g_.r * g_.s * g_.c, prm.k = g_.k;
        prm.x = buffers.inputs[0];
        prm.w = buffers.inputs[1];
        prm.y = buffers.outputs[0];
        prm.epilogue = conv_epilogue(desc_, buffers);
        STRATA_ASSERT(aligned16(prm.y) && aligned16(prm.epilogue.residual),
                      "{}: stem_gemm needs 16-byte aligned Y and residual", desc_.name);
        STRATA_ASSERT(reinterpret_cast<uintptr_t>(prm.x) % 2 == 0 && reinterpret_cast<uintptr_t>(prm.w) % 2 == 0,
                      "{}: X or the weights are not 2-byte aligned", desc_.name);
        stem_gemm_launch(prm, gather_, desc_.outputs[0].dtype, config_, g_.r, g_.s, g_.c, grid_, stream);
    }

    std::string detail() const override {
        return fmt::format("{}, {} blocks, {} taps", config_ == kStemRows ? "rows" : "gather", grid_,
                           g_.r * g_.s * g_.c);
    }

private:
    StepDesc desc_;
    ConvGeometry g_;
    int config_ = kStemGather;
    StemGather gather_;
    int grid_ = 0;
};

std::unique_ptr<CudaKernel> make_stem_gemm(const StepDesc& desc, int config) {
    return std::make_unique<StemGemmKernel>(desc, config);
}

std::string stem_gemm_config_name(int config) {
    return config == kStemRows ? "rows" : "gather";
}

}  // namespace

CudaTactic stem_gemm_tactic() {
    return CudaTactic{.name = "cuda.conv.stem_gemm",
                      .op = ir::OpKind::Conv,
                      .num_configs = kStemConfigs,
                      .can_implement = stem_gemm_can_implement,
                      .make = make_stem_gemm,
                      .config_name = stem_gemm_config_name};
}

}  // namespace strata::cuda
