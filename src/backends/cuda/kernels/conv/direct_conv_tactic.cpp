// direct_conv_tactic.cpp: the tactics cuda.conv.direct and cuda.fc.direct (kernels in direct_conv.cu).
#include "backends/cuda/kernels/conv/conv_tactics.h"
#include "backends/cuda/kernels/conv/direct_conv.h"

namespace strata::cuda {

namespace {

std::string direct_conv_can_implement(const StepDesc& desc, int /*config*/) {
    if (desc.inputs[0].rank() != 3 && desc.inputs[0].rank() != 4) return "only 1-D and 2-D convolutions";
    return conv_dtype_problem(desc);
}

void direct_conv_run(const StepDesc& desc, const StepBuffers& buffers, cudaStream_t stream) {
    DirectConvParams prm;
    prm.g = conv_geometry(desc);
    conv_strides(desc.inputs[0], prm.x_stride);
    conv_strides(desc.inputs[1], prm.w_stride);
    conv_strides(desc.outputs[0], prm.y_stride);
    prm.k_fastest = desc.outputs[0].channels_last();
    prm.x = buffers.inputs[0];
    prm.w = buffers.inputs[1];
    prm.y = buffers.outputs[0];
    prm.epilogue = conv_epilogue(desc, buffers);
    direct_conv_launch(prm, desc.outputs[0].dtype, stream);
}

std::string fc_direct_can_implement(const StepDesc& desc, int /*config*/) {
    if (desc.inputs[0].rank() != 2 || desc.inputs[1].rank() != 2) return "X and W must be 2-D";
    return conv_dtype_problem(desc);
}

void fc_direct_run(const StepDesc& desc, const StepBuffers& buffers, cudaStream_t stream) {
    ConvGeometry g = fc_geometry(desc);
    FcParams prm{g.n, g.c, g.k, buffers.inputs[0], buffers.inputs[1], buffers.outputs[0], conv_epilogue(desc, buffers)};
    fc_direct_launch(prm, desc.outputs[0].dtype, stream);
}

}  // namespace

CudaTactic direct_conv_tactic() {
    return CudaTactic{.name = "cuda.conv.direct",
                      .op = ir::OpKind::Conv,
                      .can_implement = direct_conv_can_implement,
                      .make = make_function_kernel<direct_conv_run>};
}

CudaTactic fc_direct_tactic() {
    return CudaTactic{.name = "cuda.fc.direct",
                      .op = ir::OpKind::FullyConnected,
                      .can_implement = fc_direct_can_implement,
                      .make = make_function_kernel<fc_direct_run>};
}

}  // namespace strata::cuda
