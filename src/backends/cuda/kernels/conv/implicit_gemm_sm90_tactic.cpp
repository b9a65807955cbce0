// implicit_gemm_sm90_tactic.cpp: the tactic cuda.conv.implicit_gemm_sm90 (kernels in implicit_gemm_sm90.cu, built
// only when the architectures include 90): what it covers, config names, and the kernel object. Where the build
// has no sm_90a code the entry points are stubs and can_implement says so.
#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/conv/conv_tactics.h"
#include "backends/cuda/kernels/conv/implicit_gemm_sm90.h"
#include "backends/cuda/pdl.h"
#include "core/check.h"

namespace strata::cuda {

std::string implicit_gemm_sm90_config_name(int config) {
    if (config < 0 || config >= kImplicitGemmSm90NumConfigs) return fmt::format("config {}", config);
    const ImplicitGemmSm90Config& c = kImplicitGemmSm90Configs[config];
    return fmt::format("{}x{}x{} wg{} s{} occ{}", c.bm, c.bn, kSm90SliceK, c.bm / 64, c.stages, c.blocks_per_sm);
}

#if !STRATA_HAVE_SM90A
bool implicit_gemm_sm90_compiled() {
    return false;
}
cudaError_t implicit_gemm_sm90_prepare(DType, int) {
    return cudaErrorNoKernelImageForDevice;
}
int implicit_gemm_sm90_blocks_per_sm(DType, int) {
    return 0;
}
void implicit_gemm_sm90_launch(const ImplicitGemmParams&, DType, int, cudaStream_t) {
    STRATA_ASSERT(false, "cuda.conv.implicit_gemm_sm90 launched in a build without sm_90a code");
}
#endif

namespace {

constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();  // the kernel indexes with int

std::string sm90_can_implement(const StepDesc& desc, int config) {
    if (config < 0 || config >= kImplicitGemmSm90NumConfigs) return "no such config";
    if (!implicit_gemm_sm90_compiled()) return "needs sm_90a code (this build's STRATA_CUDA_ARCHS has no 90)";
    if (!desc.device) return "needs to know the device (it runs on compute capability 9.0 only)";
    if (desc.device->compute_capability() != 90)
        return fmt::format("needs sm_90a code: runs on compute capability 9.0 only (this is {})",
                           desc.device->compute_capability());
    if (desc.inputs[0].rank() != 4) return "2-D convolutions only";
    for (const TensorDesc* t : {&desc.inputs[0], &desc.inputs[1], &desc.outputs[0]})
        if (!t->channels_last()) return "needs nhwc activations and KRSC weights";
    const DType dt = desc.outputs[0].dtype;
    if (dt != DType::f16 && dt != DType::bf16) return fmt::format("fp16/bf16 only (dtype {})", dtype_name(dt));
    if (std::string p = conv_dtype_problem(desc); !p.empty()) return p;
    const ConvGeometry g = conv_geometry(desc);
    if (g.group != 1) return fmt::format("groups > 1 (group = {})", g.group);
    if (g.c % 8 != 0) return fmt::format("needs C % 8 == 0 (C = {})", g.c);
    if (g.k % 8 != 0) return fmt::format("needs K % 8 == 0 (K = {})", g.k);
    for (const TensorDesc* t : {&desc.inputs[0], &desc.inputs[1], &desc.outputs[0]})
        if (t->numel() > kMaxElements) return "a tensor has 2^31 elements or more";
    if (implicit_gemm_sm90_smem_bytes(config) > desc.device->smem_per_block_optin)
        return fmt::format("needs {} bytes of shared memory per block", implicit_gemm_sm90_smem_bytes(config));
    return {};
}

bool aligned16(const void* p) {
    return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

class ImplicitGemmSm90Kernel final : public CudaKernel {
public:
    ImplicitGemmSm90Kernel(const StepDesc& desc, int config)
        : desc_(desc), config_(config), geometry_(conv_geometry(desc)),
          pdl_(use_pdl(desc.device)) {
        STRATA_CUDA_CHECK(implicit_gemm_sm90_prepare(desc.outputs[0].dtype, config), desc.name);
    }

    void launch(const StepBuffers& buffers, cudaStream_t stream) override {
        ImplicitGemmParams prm;
        prm.g = geometry_;
        prm.x = buffers.inputs[0];
        prm.w = buffers.inputs[1];
        prm.y = buffers.outputs[0];
        prm.epilogue = conv_epilogue(desc_, buffers);
        prm.pdl = pdl_;
        // cp.async moves 16-byte chunks; the epilogue loads the residual and stores Y 16 bytes at a time.
        STRATA_ASSERT(aligned16(prm.x) && aligned16(prm.w) && aligned16(prm.y) &&
                          (!prm.epilogue.residual || aligned16(prm.epilogue.residual)),
                      "{}: the sm90 implicit GEMM needs 16-byte aligned X, W, Y and residual", desc_.name);
        implicit_gemm_sm90_launch(prm, desc_.outputs[0].dtype, config_, stream);
    }

    std::string detail() const override {
        return implicit_gemm_sm90_config_name(config_) + (pdl_ ? ", pdl" : "");
    }

private:
    StepDesc desc_;
    int config_;
    ConvGeometry geometry_;
    bool pdl_;
};

std::unique_ptr<CudaKernel> make_implicit_gemm_sm90(const StepDesc& desc, int config) {
    return std::make_unique<ImplicitGemmSm90Kernel>(desc, config);
}

}  // namespace

CudaTactic implicit_gemm_sm90_conv_tactic() {
    return CudaTactic{.name = "cuda.conv.implicit_gemm_sm90",
                      .op = ir::OpKind::Conv,
                      .num_configs = kImplicitGemmSm90NumConfigs,
                      .can_implement = sm90_can_implement,
                      .make = make_implicit_gemm_sm90,
                      .config_name = implicit_gemm_sm90_config_name};
}

}  // namespace strata::cuda
