// implicit_gemm_tactic.cpp: the tactics cuda.conv.implicit_gemm and cuda.fc.implicit_gemm (kernels in
// implicit_gemm.cu): what they cover, config names, and the kernel object that prepares and launches a config.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/conv/conv_tactics.h"
#include "backends/cuda/kernels/conv/implicit_gemm.h"
#include "core/check.h"

namespace strata::cuda {

std::string implicit_gemm_config_name(int config) {
    if (config < 0 || config >= kImplicitGemmNumConfigs) return fmt::format("config {}", config);
    const ImplicitGemmConfig& c = kImplicitGemmConfigs[config];
    return fmt::format("{}x{}x{} w{}x{} s{}", c.bm, c.bn, c.bk, c.warps_m, c.warps_n, c.stages);
}

int implicit_gemm_splits(const ConvGeometry& g, DType dtype, int config, int sm_count) {
    constexpr int kMinSlicesPerSplit = 4, kMaxSplits = 16;
    const ImplicitGemmConfig& c = kImplicitGemmConfigs[config];
    const int64_t tiles = (g.out_pixels() + c.bm - 1) / c.bm * ((g.k + c.bn - 1) / c.bn);
    if (tiles == 0 || tiles >= sm_count) return 1;
    const int64_t slice_elems = c.bk * 2 / static_cast<int64_t>(dtype_size(dtype));
    const int64_t slices = (int64_t{g.r} * g.s * g.c + slice_elems - 1) / slice_elems;
    int64_t splits = std::min<int64_t>({sm_count / tiles, slices / kMinSlicesPerSplit, kMaxSplits});
    if (splits < 2) return 1;
    const int64_t per_split = (slices + splits - 1) / splits;
    return static_cast<int>((slices + per_split - 1) / per_split);  // no empty range
}

size_t implicit_gemm_workspace_bytes(const ConvGeometry& g, int splits) {
    return splits > 1 ? static_cast<size_t>(splits) * g.out_pixels() * g.k * sizeof(float) : 0;
}

namespace {

constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();  // the kernel indexes with int

// What both tactics need: a known config, fp16/bf16, 32-bit indexable tensors, sm_80+ and enough shared memory.
std::string common_problem(const StepDesc& desc, int config, const ConvGeometry& g) {
    if (config < 0 || config >= kImplicitGemmNumConfigs) return "no such config";
    DType dt = desc.outputs[0].dtype;
    if (dt == DType::f32 && !desc.allow_tf32) return "fp32 runs on tensor cores only when TF32 is allowed";
    if (std::string p = conv_dtype_problem(desc); !p.empty()) return p;
    const int chunk = 16 / static_cast<int>(dtype_size(dt));  // elements per 16-byte cp.async chunk
    if (g.c % chunk != 0) return fmt::format("needs C % {} == 0 (C = {})", chunk, g.c);
    if (g.k % 8 != 0) return fmt::format("needs K % 8 == 0 (K = {})", g.k);
    for (const TensorDesc* t : {&desc.inputs[0], &desc.inputs[1], &desc.outputs[0]})
        if (t->numel() > kMaxElements) return "a tensor has 2^31 elements or more";
    if (desc.device) {
        if (desc.device->compute_capability() < 80) return "needs sm_80 or newer (mma.sync m16n8k16, cp.async)";
        if (implicit_gemm_smem_bytes(config) > desc.device->smem_per_block_optin)
            return fmt::format("needs {} bytes of shared memory per block", implicit_gemm_smem_bytes(config));
    }
    return {};
}

std::string conv_can_implement(const StepDesc& desc, int config) {
    if (desc.inputs[0].rank() != 4) return "2-D convolutions only";
    for (const TensorDesc* t : {&desc.inputs[0], &desc.inputs[1], &desc.outputs[0]})
        if (!t->channels_last()) return "needs nhwc activations and KRSC weights";
    ConvGeometry g = conv_geometry(desc);
    if (g.group != 1) return fmt::format("groups > 1 (group = {})", g.group);
    return common_problem(desc, config, g);
}

std::string fc_can_implement(const StepDesc& desc, int config) {
    if (desc.inputs[0].rank() != 2 || desc.inputs[1].rank() != 2) return "X and W must be 2-D";
    return common_problem(desc, config, fc_geometry(desc));
}

bool aligned(const void* p, uintptr_t bytes) {
    return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

class ImplicitGemmKernel final : public CudaKernel {
public:
    ImplicitGemmKernel(const StepDesc& desc, int config)
        : desc_(desc),
          config_(config),
          geometry_(desc.node->op == ir::OpKind::FullyConnected ? fc_geometry(desc) : conv_geometry(desc)),
          splits_(
              implicit_gemm_splits(geometry_, desc.outputs[0].dtype, config, desc.device ? desc.device->sm_count : 1)) {
        STRATA_CUDA_CHECK(implicit_gemm_prepare(desc.outputs[0].dtype, config), desc.name);
    }

    size_t workspace_bytes() const override { return implicit_gemm_workspace_bytes(geometry_, splits_); }

    void launch(const StepBuffers& buffers, cudaStream_t stream) override {
        ImplicitGemmParams prm;
        prm.g = geometry_;
        prm.x = buffers.inputs[0];
        prm.w = buffers.inputs[1];
        prm.y = buffers.outputs[0];
        prm.epilogue = conv_epilogue(desc_, buffers);
        prm.splits = splits_;
        prm.partial = static_cast<float*>(buffers.workspace);
        STRATA_ASSERT(splits_ == 1 || (prm.partial && aligned(prm.partial, 8)),
                      "{}: split-K implicit GEMM needs its 8-byte aligned workspace", desc_.name);
        // cp.async moves 16-byte chunks and the epilogue stores channel pairs.
        const uintptr_t pair = 2 * dtype_size(desc_.outputs[0].dtype);
        STRATA_ASSERT(aligned(prm.x, 16) && aligned(prm.w, 16) && aligned(prm.y, pair),
                      "{}: implicit GEMM needs 16-byte aligned X and W and Y aligned to two elements", desc_.name);
        implicit_gemm_launch(prm, desc_.outputs[0].dtype, config_, stream);
    }

    std::string detail() const override {
        return implicit_gemm_config_name(config_) + (splits_ > 1 ? fmt::format(" split-k {}", splits_) : "");
    }

private:
    StepDesc desc_;
    int config_;
    ConvGeometry geometry_;
    int splits_;
};

std::unique_ptr<CudaKernel> make_implicit_gemm(const StepDesc& desc, int config) {
    return std::make_unique<ImplicitGemmKernel>(desc, config);
}

}  // namespace

CudaTactic implicit_gemm_conv_tactic() {
    return CudaTactic{.name = "cuda.conv.implicit_gemm",
                      .op = ir::OpKind::Conv,
                      .num_configs = kImplicitGemmNumConfigs,
                      .can_implement = conv_can_implement,
                      .make = make_implicit_gemm,
                      .config_name = implicit_gemm_config_name};
}

CudaTactic implicit_gemm_fc_tactic() {
    return CudaTactic{.name = "cuda.fc.implicit_gemm",
                      .op = ir::OpKind::FullyConnected,
                      .num_configs = kImplicitGemmNumConfigs,
                      .can_implement = fc_can_implement,
                      .make = make_implicit_gemm,
                      .config_name = implicit_gemm_config_name};
}

}  // namespace strata::cuda
