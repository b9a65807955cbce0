// pointwise_narrow_tactic.cpp: the tactic cuda.conv.pointwise_narrow (kernel in pointwise_narrow.cu): what it
// covers, and the kernel object that sizes its grid once and launches it.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/conv/conv_geometry.h"
#include "backends/cuda/kernels/conv/conv_tactics.h"
#include "backends/cuda/kernels/conv/pointwise_narrow.h"
#include "backends/cuda/pdl.h"
#include "core/check.h"

namespace strata::cuda {

namespace {

constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();

std::string shape_problem(const StepDesc& desc, const ConvGeometry& g) {
    if (g.group != 1) return fmt::format("groups > 1 (group = {})", g.group);
    if (g.r != 1 || g.s != 1) return fmt::format("1x1 kernels only (kernel {}x{})", g.r, g.s);
    if (g.pad_h != 0 || g.pad_w != 0) return fmt::format("no padding (pads {}x{})", g.pad_h, g.pad_w);
    if (g.p != (g.h - 1) / g.stride_h + 1 || g.q != (g.w - 1) / g.stride_w + 1)
        return fmt::format("output {}x{} is not the unpadded {}x{} input at stride {}x{}", g.p, g.q, g.h, g.w,
                           g.stride_h, g.stride_w);
    if (g.c > kPwMaxChannels || g.c % 8 != 0)
        return fmt::format("needs C <= {} and C % 8 == 0 (C = {})", kPwMaxChannels, g.c);
    if (g.k % 8 != 0) return fmt::format("needs K % 8 == 0 (K = {})", g.k);
    for (const TensorDesc* t : {&desc.inputs[0], &desc.outputs[0]})
        if (t->numel() > kMaxElements) return "a tensor has 2^31 elements or more";
    return {};
}

std::string pw_can_implement(const StepDesc& desc, int /*config*/) {
    if (desc.inputs[0].rank() != 4) return "2-D convolutions only";
    for (const TensorDesc* t : {&desc.inputs[0], &desc.inputs[1], &desc.outputs[0]})
        if (!t->channels_last()) return "needs nhwc activations and KRSC weights";
    DType dt = desc.outputs[0].dtype;
    if (dt != DType::f16 && dt != DType::bf16) return fmt::format("fp16 and bf16 only (dtype {})", dtype_name(dt));
    if (std::string p = conv_dtype_problem(desc); !p.empty()) return p;
    ConvGeometry g = conv_geometry(desc);
    if (std::string p = shape_problem(desc, g); !p.empty()) return p;
    if (desc.device) {
        if (desc.device->compute_capability() < 80) return "needs sm_80 or newer (mma.sync m16n8k16, ldmatrix)";
        const size_t smem = pointwise_narrow_smem_bytes(g.c, g.k);
        if (smem > desc.device->smem_per_block_optin)
            return fmt::format("needs {} bytes of shared memory per block (K = {} too large; most {})", smem, g.k,
                               desc.device->smem_per_block_optin);
    }
    return {};
}

bool aligned16(const void* p) {
    return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

class PointwiseNarrowKernel final : public CudaKernel {
public:
    PointwiseNarrowKernel(const StepDesc& desc)
        : desc_(desc), g_(conv_geometry(desc)), pdl_(use_pdl(desc.device)) {
        STRATA_ASSERT(desc.device != nullptr, "{}: pointwise_narrow needs the device info", desc.name);
        const size_t smem = pointwise_narrow_smem_bytes(g_.c, g_.k);
        int per_sm = 0;
        STRATA_CUDA_CHECK(
            pointwise_narrow_prepare(desc.outputs[0].dtype, g_.c, smem, desc.device->smem_per_block_optin, &per_sm),
            desc.name);
        STRATA_ASSERT(per_sm > 0, "{}: pointwise_narrow's block ({} bytes of shared memory) fits on no SM", desc.name,
                      smem);
        // Enough blocks to fill every SM once, no more: each block stages the weights once and strides over tiles.
        const int64_t tiles = (g_.out_pixels() + kPwTileRows - 1) / kPwTileRows;
        const int64_t wanted = (tiles + kPwWarps - 1) / kPwWarps;
        grid_ = static_cast<int>(std::min<int64_t>(wanted, int64_t{per_sm} * desc.device->sm_count));
    }

    void launch(const StepBuffers& buffers, cudaStream_t stream) override {
        PointwiseNarrowParams prm;
        prm.pixels = g_.out_pixels();
        prm.c = g_.c, prm.k = g_.k;
        prm.in_h = g_.h, prm.in_w = g_.w, prm.out_h = g_.p, prm.out_w = g_.q;
        prm.stride_h = g_.stride_h, prm.stride_w = g_.stride_w;
        prm.x = buffers.inputs[0];
        prm.w = buffers.inputs[1];
        prm.y = buffers.outputs[0];
        prm.epilogue = conv_epilogue(desc_, buffers);
        prm.pdl = pdl_;
        STRATA_ASSERT(aligned16(prm.x) && aligned16(prm.y) && aligned16(prm.epilogue.residual),
                      "{}: pointwise_narrow needs 16-byte aligned X, Y and residual", desc_.name);
        STRATA_ASSERT(reinterpret_cast<uintptr_t>(prm.w) % 2 == 0, "{}: weights not 2-byte aligned", desc_.name);
        pointwise_narrow_launch(prm, desc_.outputs[0].dtype, grid_, stream);
    }

    std::string detail() const override { return fmt::format("{} blocks{}", grid_, pdl_ ? ", pdl" : ""); }

private:
    StepDesc desc_;
    ConvGeometry g_;
    bool pdl_;
    int grid_ = 0;
};

std::unique_ptr<CudaKernel> make_pointwise_narrow(const StepDesc& desc, int /*config*/) {
    return std::make_unique<PointwiseNarrowKernel>(desc);
}

}  // namespace

CudaTactic pointwise_narrow_tactic() {
    return CudaTactic{.name = "cuda.conv.pointwise_narrow",
                      .op = ir::OpKind::Conv,
                      .can_implement = pw_can_implement,
                      .make = make_pointwise_narrow};
}

}  // namespace strata::cuda
