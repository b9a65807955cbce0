// pool_ops.cpp: the pooling tactics (cuda.maxpool, cuda.avgpool, cuda.global_avgpool, cuda.global_maxpool): the
// window geometry comes from the reference's make_window_2d, so both backends read the attributes one way.
#include <climits>
#include <string>

#include "backends/cuda/cuda_tactic.h"
#include "backends/cuda/kernels/data/loop_dims.h"
#include "backends/cuda/kernels/pool/global_pool_split.h"
#include "backends/cuda/kernels/pool/pool.h"
#include "backends/reference/common.h"
#include "core/check.h"

namespace strata::cuda {
namespace {

std::string pool_can_implement(const StepDesc& desc, int) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    if (!is_float_dtype(x.dtype) || y.dtype != x.dtype) return "needs one float dtype";
    if (x.rank() != 3 && x.rank() != 4) return "1-D and 2-D pooling only";
    if (x.channels_last() != y.channels_last()) return "input and output layouts differ";
    if (desc.attr<ir::PoolAttrs>().auto_pad != ir::AutoPad::explicit_pads) return "auto_pad not resolved";
    if (std::string why = check_index_space(desc.inputs, desc.outputs); !why.empty()) return why;
    return {};
}

void pool_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    PoolParams p = pool_params(desc);
    launch_pool2d(desc.inputs[0].dtype, desc.inputs[0].channels_last(), p, b.inputs[0], b.outputs[0],
                  grid_blocks(p.total, kPoolThreads, desc.device), stream);
}

std::string global_pool_can_implement(const StepDesc& desc, int) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    if (!is_float_dtype(x.dtype) || y.dtype != x.dtype) return "needs one float dtype";
    if (x.rank() < 2) return "X must be [N, C, ...]";
    if (x.shape[0] > 65535) return "batch above 65535";
    return {};
}

void global_pool_launch(const StepDesc& desc, const StepBuffers& b, cudaStream_t stream) {
    const TensorDesc& x = desc.inputs[0];
    int64_t inner = 1;
    for (int d = 2; d < x.rank(); ++d) inner *= x.shape[d];
    // Only for inputs whose bytes are row-major (GlobalPoolKernel sends channels-last ones to the split kernel); the
    // output [N, C, 1, ...] has the same bytes in either layout.
    STRATA_ASSERT(rowmajor_bytes(x), "{}: the plane kernel needs a row-major input", desc.name);
    launch_global_pool(x.dtype, desc.node->op == ir::OpKind::GlobalMaxPool, x.shape[0], x.shape[1], inner, b.inputs[0],
                       b.outputs[0], desc.device ? desc.device->sm_count : 132, stream);
}

// Channels-last input: the spatially split kernel (global_pool_split.cu) with its partials in the workspace;
// otherwise the one-warp-per-plane kernel.
class GlobalPoolKernel final : public CudaKernel {
public:
    explicit GlobalPoolKernel(const StepDesc& desc) : desc_(desc) {
        const TensorDesc& x = desc.inputs[0];
        for (int d = 2; d < x.rank(); ++d) inner_ *= x.shape[d];
        split_ = !rowmajor_bytes(x);
        if (!split_) return;
        const int vector = static_cast<int>(16 / dtype_size(x.dtype));
        plan_ =
            plan_global_pool_split(x.shape[0], x.shape[1], inner_, desc.node->op == ir::OpKind::GlobalMaxPool,
                                   x.shape[1] % vector == 0 ? vector : 1, desc.device ? desc.device->sm_count : 132);
    }
    size_t workspace_bytes() const override { return split_ ? global_pool_split_workspace(plan_) : 0; }
    void launch(const StepBuffers& b, cudaStream_t stream) override {
        if (!split_) {
            global_pool_launch(desc_, b, stream);
            return;
        }
        GlobalPoolSplit s = plan_;
        if (reinterpret_cast<uintptr_t>(b.inputs[0]) % 16 != 0) s.vector = 1;  // 16-byte loads need alignment
        launch_global_pool_split(desc_.inputs[0].dtype, s, b.inputs[0], b.outputs[0], b.workspace, stream);
    }
    std::string detail() const override {
        return split_ ? "split " + std::to_string(plan_.splits) + " x " + std::to_string(plan_.chunk) + " rows" : "";
    }

private:
    StepDesc desc_;
    int64_t inner_ = 1;
    bool split_ = false;
    GlobalPoolSplit plan_;
};

std::unique_ptr<CudaKernel> make_global_pool(const StepDesc& desc, int) {
    return std::make_unique<GlobalPoolKernel>(desc);
}

}  // namespace

PoolParams pool_params(const StepDesc& desc) {
    const TensorDesc &x = desc.inputs[0], &y = desc.outputs[0];
    const auto& a = desc.attr<ir::PoolAttrs>();
    backends::reference::Window2d w = backends::reference::make_window_2d(
        *desc.node, x.shape, y.shape, a.kernel, a.strides, a.dilations, a.pads_begin, a.pads_end);
    PoolParams p;
    p.n = static_cast<int>(x.shape[0]);
    p.c = static_cast<int>(x.shape[1]);
    p.in_h = static_cast<int>(w.in_h), p.in_w = static_cast<int>(w.in_w);
    p.out_h = static_cast<int>(w.out_h), p.out_w = static_cast<int>(w.out_w);
    p.k_h = static_cast<int>(w.k_h), p.k_w = static_cast<int>(w.k_w);
    p.stride_h = static_cast<int>(w.stride_h), p.stride_w = static_cast<int>(w.stride_w);
    p.dil_h = static_cast<int>(w.dil_h), p.dil_w = static_cast<int>(w.dil_w);
    p.pad_top = static_cast<int>(w.pad_top), p.pad_left = static_cast<int>(w.pad_left);
    p.pad_bottom = static_cast<int>(w.pad_bottom), p.pad_right = static_cast<int>(w.pad_right);
    p.max = desc.node->op == ir::OpKind::MaxPool;
    p.count_include_pad = a.count_include_pad;
    p.total = static_cast<uint32_t>(y.numel());
    return p;
}

void register_pool_tactics(CudaTacticRegistry& registry);

void register_pool_tactics(CudaTacticRegistry& registry) {
    registry.add({"cuda.maxpool", ir::OpKind::MaxPool, 1, pool_can_implement, make_function_kernel<pool_launch>});
    registry.add({"cuda.avgpool", ir::OpKind::AveragePool, 1, pool_can_implement, make_function_kernel<pool_launch>});
    registry.add(
        {"cuda.global_avgpool", ir::OpKind::GlobalAveragePool, 1, global_pool_can_implement, make_global_pool});
    registry.add({"cuda.global_maxpool", ir::OpKind::GlobalMaxPool, 1, global_pool_can_implement, make_global_pool});
}

}  // namespace strata::cuda
