// register.cpp: the CPU backend's fast kernels (ops without one, and cases a kernel's can_implement refuses, run on
// the reference kernels). Within an op, the more specialised tactic comes first.
#include "backends/cpu/cpu_common.h"

namespace strata::backends {

void register_cpu_tactics(TacticRegistry& registry) {
    using ir::OpKind;
    auto add = [&](const char* name, OpKind op, CanImplementFn can, KernelFn run) {
        registry.add(Tactic{name, Backend::cpu, op, can, run});
    };
    add("cpu.conv2d_depthwise", OpKind::Conv, cpu::conv_depthwise_can_implement, cpu::conv_depthwise);
    add("cpu.conv2d_im2col_gemm", OpKind::Conv, cpu::conv_gemm_can_implement, cpu::conv_gemm);
    add("cpu.separable_conv", OpKind::SeparableConv, cpu::separable_conv_can_implement, cpu::separable_conv);
    add("cpu.maxpool2d", OpKind::MaxPool, cpu::max_pool_can_implement, cpu::max_pool);
    add("cpu.avgpool2d", OpKind::AveragePool, cpu::average_pool_can_implement, cpu::average_pool);
    add("cpu.global_avgpool", OpKind::GlobalAveragePool, cpu::global_average_pool_can_implement,
        cpu::global_average_pool);
    add("cpu.unary", OpKind::Unary, cpu::unary_can_implement, cpu::unary);
    add("cpu.binary", OpKind::Binary, cpu::binary_can_implement, cpu::binary);
    add("cpu.gemm", OpKind::Gemm, cpu::gemm_can_implement, cpu::gemm);
    add("cpu.fully_connected", OpKind::FullyConnected, cpu::fully_connected_can_implement, cpu::fully_connected);
    add("cpu.concat", OpKind::Concat, cpu::concat_can_implement, cpu::concat);
    add("cpu.batch_norm", OpKind::BatchNorm, cpu::batch_norm_can_implement, cpu::batch_norm);
    add("cpu.softmax", OpKind::Softmax, cpu::softmax_can_implement, cpu::softmax);
    add("cpu.log_softmax", OpKind::LogSoftmax, cpu::softmax_can_implement, cpu::log_softmax);
}

}  // namespace strata::backends
