// device_storage.h: the dtype and layout of every activation of a GPU plan (DESIGN.md: "layout per network").
//
// The whole network computes in one dtype (float32 for fp32/tf32, float16 or bfloat16) and keeps its 4-D
// activations in one layout (NHWC for fp16/bf16, NCHW for fp32), with conversions only at the edges:
//   - graph inputs arrive as the user gives them (float32, logical order): a Cast converts each to the network's
//     dtype and layout; graph outputs leave the same way, through a Cast back to float32 in logical order;
//   - a few ops only read and write logical (row-major) order: views (Reshape, Flatten, Squeeze, Unsqueeze,
//     Identity, Dropout), MatMul, Gemm, FullyConnected, Shape. A 4-D activation flowing between such an op and a
//     layout-aware op crosses a Cast that changes only its layout. When both orders put every byte in the same
//     place (H*W == 1 or C == 1) the memory planner aliases that Cast away.
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
