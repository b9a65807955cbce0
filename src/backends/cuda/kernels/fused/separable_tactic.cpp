// separable_tactic.cpp: the tactic cuda.fused.separable: a SeparableConv step (made by fuse_separable_conv) on the
// fused depthwise -> pointwise kernel of separable.cu. What it covers (separable_problem plus the step's forms),
// and the kernel object that prepares the kernel's shared memory once and fills its params on each launch.
#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels/fused/fused_tactics.h"
#include "backends/cuda/kernels/fused/separable.h"
#include "core/check.h"

namespace strata::cuda {

namespace {

constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();

// The sizes of a SeparableConv step: X [N,Cm,H,W], Wd [Cm,1,R,S], Wp [K,Cm,1,1], Y [N,K,P,Q] (logical).
struct SepGeometry {
    int64_t n, cm, h, w, k, p, q, r, s;
    int64_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
};

SepGeometry sep_geometry(const StepDesc& desc) {
    const auto& a = desc.attr<ir::SeparableConvAttrs>().depthwise;
    const Shape& x = desc.inputs[0].shape;
    const Shape& wd = desc.inputs[1].shape;
    const Shape& y = desc.outputs[0].shape;
    auto at = [](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return i < v.size() ? v[i] : fallback; };
    return {x[0],
            x[1],
            x[2],
            x[3],
            y[1],
            y[2],
            y[3],
            wd[2],
            wd[3],
            at(a.strides, 0, 1),
            at(a.strides, 1, 1),
            at(a.dilations, 0, 1),
            at(a.dilations, 1, 1),
            at(a.pads_begin, 0, 0),
            at(a.pads_begin, 1, 0)};
}

// Dtypes: X, Wd, Wp, Z and Y in the compute dtype; the biases Bd, Bp float32; Z exactly like Y.
std::string forms_problem(const StepDesc& desc) {
    const DType dt = desc.outputs[0].dtype;
    if (dt != DType::f16 && dt != DType::bf16) return fmt::format("fp16 and bf16 only (dtype {})", dtype_name(dt));
    for (size_t i = 0; i < desc.inputs.size(); ++i) {
        const TensorDesc& t = desc.inputs[i];
        if (!t.present) continue;
        const DType want = i == 2 || i == 4 ? DType::f32 : dt;
        if (t.dtype != want)
            return fmt::format("input {} is {}, expected {}", i, dtype_name(t.dtype), dtype_name(want));
        if (i == 5 && (t.shape != desc.outputs[0].shape || t.layout != desc.outputs[0].layout))
            return "residual differs from the output in shape or layout";
    }
    for (size_t i : {size_t{0}, size_t{1}, size_t{3}})
        if (!desc.inputs[i].channels_last()) return "needs nhwc activations and KRSC weights";
    if (!desc.outputs[0].channels_last()) return "needs nhwc activations and KRSC weights";
    return {};
}

std::string sep_can_implement(const StepDesc& desc, int /*config*/) {
    if (desc.inputs.size() < 4 || desc.outputs.size() != 1) return "needs X, Wd, Wp and one output";
    if (desc.inputs[0].rank() != 4 || desc.outputs[0].rank() != 4) return "2-D convolutions only";
    if (std::string p = forms_problem(desc); !p.empty()) return p;
    const SepGeometry g = sep_geometry(desc);
    if (g.dil_h != 1 || g.dil_w != 1)
        return fmt::format("depthwise dilation 1 only (dilation {}x{})", g.dil_h, g.dil_w);
    for (const TensorDesc* t : {&desc.inputs[0], &desc.outputs[0]})
        if (t->numel() > kMaxElements) return "a tensor has 2^31 elements or more";
    const DType dt = desc.outputs[0].dtype;
    if (std::string p =
            separable_problem(dt, static_cast<int>(g.cm), static_cast<int>(g.k), static_cast<int>(g.r),
                              static_cast<int>(g.s), static_cast<int>(g.stride_h), static_cast<int>(g.stride_w));
        !p.empty())
        return p;
    if (desc.device) {
        if (desc.device->compute_capability() < 80)
            return "needs sm_80 or newer (mma.sync m16n8k16, ldmatrix, cp.async)";
        const size_t smem =
            separable_smem_bytes(dt, static_cast<int>(g.r), static_cast<int>(g.stride_h), static_cast<int>(g.k));
        if (smem > desc.device->smem_per_block_optin)
            return fmt::format("needs {} bytes of shared memory per block (most {})", smem,
                               desc.device->smem_per_block_optin);
    }
    return {};
}

bool aligned(const void* p, uintptr_t bytes) {
    return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

class SeparableKernel final : public CudaKernel {
public:
    explicit SeparableKernel(const StepDesc& desc) : desc_(desc), g_(sep_geometry(desc)) {
        STRATA_CUDA_CHECK(separable_prepare(desc.outputs[0].dtype, static_cast<int>(g_.r),
                                            static_cast<int>(g_.stride_h), static_cast<int>(g_.k)),
                          desc.name);
    }

    void launch(const StepBuffers& buffers, cudaStream_t stream) override {
        const auto& a = desc_.attr<ir::SeparableConvAttrs>();
        SeparableParams prm;
        prm.n = static_cast<int>(g_.n), prm.h = static_cast<int>(g_.h), prm.w = static_cast<int>(g_.w);
        prm.cm = static_cast<int>(g_.cm);
        prm.p = static_cast<int>(g_.p), prm.q = static_cast<int>(g_.q), prm.k = static_cast<int>(g_.k);
        prm.r = static_cast<int>(g_.r), prm.s = static_cast<int>(g_.s);
        prm.stride_h = static_cast<int>(g_.stride_h), prm.stride_w = static_cast<int>(g_.stride_w);
        prm.pad_h = static_cast<int>(g_.pad_h), prm.pad_w = static_cast<int>(g_.pad_w);
        prm.x = buffers.inputs[0];
        prm.wd = buffers.inputs[1];
        prm.bd = static_cast<const float*>(input(buffers, 2));
        prm.act_d = activation_params(a.depthwise.activation);
        prm.wp = buffers.inputs[3];
        prm.epilogue.bias = static_cast<const float*>(input(buffers, 4));
        prm.epilogue.residual = input(buffers, 5);
        prm.epilogue.act = activation_params(a.pointwise.activation);
        prm.y = buffers.outputs[0];
        STRATA_ASSERT(aligned(prm.x, 16) && aligned(prm.wp, 16) && aligned(prm.bd, 16) && aligned(prm.y, 4) &&
                          aligned(prm.epilogue.residual, 4) && aligned(prm.wd, 2),
                      "{}: the fused separable kernel needs 16-byte aligned X, Wp and Bd, 4-byte aligned Y and Z",
                      desc_.name);
        separable_launch(prm, desc_.outputs[0].dtype, stream);
    }

    std::string detail() const override { return "8x16 tiles"; }

private:
    // Input i's pointer, or null where the step has no such input.
    const void* input(const StepBuffers& buffers, size_t i) const {
        return i < desc_.inputs.size() && desc_.inputs[i].present && i < buffers.inputs.size() ? buffers.inputs[i]
                                                                                               : nullptr;
    }

    StepDesc desc_;
    SepGeometry g_;
};

std::unique_ptr<CudaKernel> make_separable(const StepDesc& desc, int /*config*/) {
    return std::make_unique<SeparableKernel>(desc);
}

}  // namespace

CudaTactic separable_tactic() {
    return CudaTactic{.name = "cuda.fused.separable",
                      .op = ir::OpKind::SeparableConv,
                      .can_implement = sep_can_implement,
                      .make = make_separable};
}

}  // namespace strata::cuda
