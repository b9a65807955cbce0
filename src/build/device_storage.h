// device_storage.h: the dtype and layout of every activation of a GPU plan (DESIGN.md: "layout per network").
//
// The whole network computes in one dtype (float32 for fp32/tf32, float16 or bfloat16) and keeps its 4-D
// activations in one layout (NHWC for fp16/bf16, NCHW for fp32), with conversions only at the edges:
//   - graph inputs arrive as the user gives them (float32, logical order): a Cast converts each to the network's
//     dtype and layout; graph outputs leave the same way, through a Cast back to float32 in logical order, except
//     for NOTE [fp32 outputs];
//   - a few ops only read and write logical (row-major) order: views (Reshape, Flatten, Squeeze, Unsqueeze,
//     Identity, Dropout), MatMul, Gemm, FullyConnected, Shape. A 4-D activation flowing between such an op and a
//     layout-aware op crosses a Cast that changes only its layout. When both orders put every byte in the same
//     place (H*W == 1 or C == 1) the memory planner aliases that Cast away.
//
// NOTE [fp32 outputs]
// An output that a GEMM step (FullyConnected, MatMul, Gemm without C) writes and nothing else reads -- a classifier's
// logits -- is written by that step in float32 straight from its fp16/bf16 operands (fp32 accumulation, fp32 bias),
// instead of in the network's dtype and then Cast. Rounding logits to 16 bits loses what tells classes apart: with
// torchvision's initialisation googlenet's and shufflenet_v2's logits are their classifier's bias (about +-0.03,
// neighbours 0.0003 of the largest apart), and bf16's 2^-9 steps merge the largest with its neighbours (2 and 4 equal
// maxima: the top-1 class changes), which fp32 logits keep apart (measured on the CPU with bf16 storage emulated
// through onnxruntime, 2026-12-01). It also saves the Cast's launch. The GEMM tactics take the mixed form
// (gemm_problem.h); the others refuse it.
// The graph is rewritten in place: activations' Value::dtype becomes the device dtype (constants keep theirs; the
// builder uploads them in the form each kernel wants), and `layouts` gets one entry per value.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "strata/tensor.h"

namespace strata::build {

struct DeviceStorage {
    DType compute = DType::f32;
    Layout layout = Layout::nchw;  ///< of the network's 4-D activations
    std::vector<Layout> layouts;   ///< per ValueId: rowmajor or nhwc (rank-4 values only)
};

/// True for the ops that only read and write logical order.
bool needs_logical_order(ir::OpKind op);

/// Rewrites `graph` for the device and returns each value's layout.
DeviceStorage assign_device_storage(ir::Graph& graph, DType compute, Layout layout);

/// True when a Cast step's input and output occupy the same bytes (same dtype and shape, and layouts that agree),
/// so the memory plan can alias it.
bool is_bytewise_cast(const ir::Graph& graph, const DeviceStorage& storage, const ir::Node& node);

}  // namespace strata::build
