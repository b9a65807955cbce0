// direct_stem_tactic.cpp: the tactic cuda.conv.direct_stem (kernel in direct_stem.cu).
#include <fmt/format.h>

#include "backends/cuda/kernels/conv/conv_tactics.h"
#include "backends/cuda/kernels/conv/direct_stem.h"

namespace strata::cuda {

namespace {

std::string stem_can_implement(const StepDesc& desc, int /*config*/) {
    if (desc.inputs[0].rank() != 3 && desc.inputs[0].rank() != 4) return "only 1-D and 2-D convolutions";
    if (std::string p = conv_dtype_problem(desc); !p.empty()) return p;
    ConvGeometry g = conv_geometry(desc);
    if (g.group != 1) return fmt::format("groups > 1 (group = {})", g.group);
    if (g.c > kStemMaxInputChannels) return fmt::format("for C <= {} (C = {})", kStemMaxInputChannels, g.c);
    if (direct_stem_smem_bytes(g) > kStemMaxSmemBytes)
        return fmt::format("weights need {} bytes of shared memory (most {})", direct_stem_smem_bytes(g),
                           kStemMaxSmemBytes);
    return {};
}

void stem_run(const StepDesc& desc, const StepBuffers& buffers, cudaStream_t stream) {
    DirectStemParams prm;
    prm.g = conv_geometry(desc);
    conv_strides(desc.inputs[0], prm.x_stride);
    conv_strides(desc.inputs[1], prm.w_stride);
    conv_strides(desc.outputs[0], prm.y_stride);
    prm.k_fastest = desc.outputs[0].channels_last();
    prm.x = buffers.inputs[0];
    prm.w = buffers.inputs[1];
    prm.y = buffers.outputs[0];
    prm.epilogue = conv_epilogue(desc, buffers);
    direct_stem_launch(prm, desc.outputs[0].dtype, stream);
}

}  // namespace

CudaTactic direct_stem_tactic() {
    return CudaTactic{.name = "cuda.conv.direct_stem",
                      .op = ir::OpKind::Conv,
                      .can_implement = stem_can_implement,
                      .make = make_function_kernel<stem_run>};
}

}  // namespace strata::cuda
