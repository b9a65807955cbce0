// passes.h: the individual passes default_pipeline() strings together, exposed so that tests and tools can run one
// alone. Each lives in its own file (named after it) that says what it matches and why the rewrite is safe.
#pragma once

#include <functional>
#include <vector>

#include "ir/graph.h"
#include "passes/pass.h"

namespace strata::passes {

bool remove_identity(ir::Graph& graph);         ///< Identity/Dropout bypassed
bool fold_constants(ir::Graph& graph);          ///< nodes of constants (and Shape of a static shape) evaluated
bool fold_batchnorm(ir::Graph& graph);          ///< Conv -> BatchNorm folded into the Conv's weights
bool recognise_relu6(ir::Graph& graph);         ///< Clip(0, 6) -> Relu6, Clip(0, inf) -> Relu
bool recognise_silu(ir::Graph& graph);          ///< x * Sigmoid(x) -> SiLU
bool recognise_hardswish(ir::Graph& graph);     ///< x * HardSigmoid(x, 1/6, 1/2) and x * Relu6(x + 3) / 6 -> HardSwish
bool fully_connected(ir::Graph& graph);         ///< Gemm / MatMul with a constant 2-D weight -> FullyConnected
bool fuse_conv_residual(ir::Graph& graph);      ///< Add(Conv, Z) -> Conv reads Z as its residual (GPU plans)
bool channel_shuffle_gather(ir::Graph& graph);  ///< Reshape -> Transpose -> Reshape channel shuffle -> Gather (GPU)
bool fuse_conv_activation(ir::Graph& graph);    ///< Conv/FullyConnected -> activation becomes the fused epilogue
bool remove_unused(ir::Graph& graph);           ///< nodes whose outputs nobody reads

/// A depthwise Conv (node index dw) whose only reader is a 1x1 Conv (index pw): what fuse_separable_conv fuses.
struct SeparablePair {
    size_t dw = 0;
    size_t pw = 0;
};
/// Decides whether fuse_separable_conv fuses one pair (the CUDA builder times both forms).
using SeparableAccept = std::function<bool(const ir::Graph&, const ir::Node& dw, const ir::Node& pw)>;

/// The fusable pairs in node order (shapes inferred; see fuse_separable_conv.cpp for the conditions).
std::vector<SeparablePair> separable_pairs(const ir::Graph& graph);
/// Depthwise Conv -> 1x1 Conv -> SeparableConv for each pair `accept` takes. Not in default_pipeline().
bool fuse_separable_conv(ir::Graph& graph, const SeparableAccept& accept);
bool fuse_separable_conv(ir::Graph& graph);  ///< every pair

/// The pass called `name` among default_pipeline()'s, or nullptr.
const Pass* find_pass(const std::string& name);

}  // namespace strata::passes
