// gemm.cpp: the matrix products. Gemm (Y = alpha * op(A) op(B) + beta * C, C broadcast to [M, N]), MatMul with
// numpy semantics (batched, broadcast batch dims, 1-D operands promoted then dropped) and FullyConnected
// (Y = X W^T + b, then the optional fused activation). Every dot product accumulates in double.
#include <vector>

#include "backends/reference/common.h"
#include "backends/reference/kernels.h"
#include "backends/reference/unary.h"

namespace strata::backends::reference {

namespace {
// One [m, n] = [m, k] x [k, n] product over strided operands: A(i, p) = a[i*a_row + p*a_col], likewise B.
struct MatView {
    const float* data;
    int64_t row, col;
    double at(int64_t i, int64_t j) const { return data[i * row + j * col]; }
};

double dot(const MatView& a, const MatView& b, int64_t i, int64_t j, int64_t k) {
    double acc = 0.0;
    for (int64_t p = 0; p < k; ++p) acc += a.at(i, p) * b.at(p, j);
    return acc;
}

void require_f32(const ir::Node& node, Inputs inputs) {
    for (const Tensor& t : inputs)
        if (t.defined()) require_dtype(node, t, {DType::f32});
}
}  // namespace

void gemm_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& a = required_input(node, inputs, 0);
    const Tensor& b = required_input(node, inputs, 1);
    const Tensor* c = inputs.size() > 2 && inputs[2].defined() ? &inputs[2] : nullptr;
    require_f32(node, inputs);
    const auto& attrs = node.attr<ir::GemmAttrs>();
    STRATA_CHECK(a.rank() == 2 && b.rank() == 2, StatusCode::invalid_argument, "{}: A {} and B {} must be 2-D",
                 ir::node_label(node), shape_str(a.shape()), shape_str(b.shape()));
    int64_t m = attrs.trans_a ? a.dim(1) : a.dim(0), k = attrs.trans_a ? a.dim(0) : a.dim(1);
    int64_t kb = attrs.trans_b ? b.dim(1) : b.dim(0), n = attrs.trans_b ? b.dim(0) : b.dim(1);
    STRATA_CHECK(k == kb, StatusCode::invalid_argument, "{}: inner dims differ: A {} B {} (transA={}, transB={})",
                 ir::node_label(node), shape_str(a.shape()), shape_str(b.shape()), attrs.trans_a, attrs.trans_b);
    Shape out{m, n};
    STRATA_ASSERT(outputs[0].shape() == out, "{}: output {} is not {}", ir::node_label(node),
                  shape_str(outputs[0].shape()), shape_str(out));
    MatView va = attrs.trans_a ? MatView{a.data<float>(), 1, m} : MatView{a.data<float>(), k, 1};
    MatView vb = attrs.trans_b ? MatView{b.data<float>(), 1, k} : MatView{b.data<float>(), n, 1};
    std::vector<int64_t> sc = c ? broadcast_strides(node, c->shape(), out) : std::vector<int64_t>{0, 0};
    float* y = outputs[0].data<float>();
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double v = attrs.alpha * dot(va, vb, i, j, k);
            if (c) v += static_cast<double>(attrs.beta) * c->data<float>()[i * sc[0] + j * sc[1]];
            y[i * n + j] = static_cast<float>(v);
        }
    }
}

void matmul_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& a = required_input(node, inputs, 0);
    const Tensor& b = required_input(node, inputs, 1);
    require_f32(node, inputs);
    STRATA_CHECK(a.rank() >= 1 && b.rank() >= 1, StatusCode::invalid_argument, "{}: operands must not be scalars",
                 ir::node_label(node));
    // numpy: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; the added dim is dropped from the result, which
    // leaves the data layout of [batch..., M, N] unchanged.
    Shape sa = a.shape(), sb = b.shape();
    if (sa.size() == 1) sa.insert(sa.begin(), 1);
    if (sb.size() == 1) sb.push_back(1);
    int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
    STRATA_CHECK(sb[sb.size() - 2] == k, StatusCode::invalid_argument, "{}: inner dims differ: A {} B {}",
                 ir::node_label(node), shape_str(a.shape()), shape_str(b.shape()));
    Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
    Shape batch(std::max(batch_a.size(), batch_b.size()));
    for (size_t i = 0; i < batch.size(); ++i) {
        size_t ra = batch.size() - i, rb = batch.size() - i;  // distance from the right
        int64_t da = ra <= batch_a.size() ? batch_a[batch_a.size() - ra] : 1;
        int64_t db = rb <= batch_b.size() ? batch_b[batch_b.size() - rb] : 1;
        batch[i] = da == 1 ? db : da;
    }
    STRATA_ASSERT(outputs[0].numel() == shape_numel(batch) * m * n, "{}: output {} does not fit", ir::node_label(node),
                  shape_str(outputs[0].shape()));
    std::vector<int64_t> ba = broadcast_strides(node, batch_a, batch), bb = broadcast_strides(node, batch_b, batch);
    float* y = outputs[0].data<float>();
    for_each_broadcast(batch, ba, bb, [&](int64_t i, int64_t oa, int64_t ob) {
        MatView va{a.data<float>() + oa * m * k, k, 1}, vb{b.data<float>() + ob * k * n, n, 1};
        for (int64_t r = 0; r < m; ++r)
            for (int64_t col = 0; col < n; ++col) y[(i * m + r) * n + col] = static_cast<float>(dot(va, vb, r, col, k));
    });
}

void fully_connected_kernel(const ir::Node& node, Inputs inputs, Outputs outputs, const KernelContext&) {
    require_outputs(node, outputs, 1);
    const Tensor& x = required_input(node, inputs, 0);
    const Tensor& w = required_input(node, inputs, 1);
    const Tensor* b = inputs.size() > 2 && inputs[2].defined() ? &inputs[2] : nullptr;
    require_f32(node, inputs);
    STRATA_CHECK(x.rank() == 2 && w.rank() == 2 && x.dim(1) == w.dim(1), StatusCode::invalid_argument,
                 "{}: X {} and W {} must be [N, K] and [M, K]", ir::node_label(node), shape_str(x.shape()),
                 shape_str(w.shape()));
    int64_t rows = x.dim(0), k = x.dim(1), m = w.dim(0);
    STRATA_CHECK(!b || b->numel() == m, StatusCode::invalid_argument, "{}: bias has {} values for {} outputs",
                 ir::node_label(node), b ? b->numel() : 0, m);
    const auto& activation = node.attr<ir::FullyConnectedAttrs>().activation;
    MatView vx{x.data<float>(), k, 1}, vw{w.data<float>(), 1, k};  // W^T(p, j) = W[j, p]
    float* y = outputs[0].data<float>();
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < m; ++j) {
            double v = dot(vx, vw, i, j, k) + (b ? b->data<float>()[j] : 0.0);
            y[i * m + j] = activation ? apply_unary(*activation, static_cast<float>(v)) : static_cast<float>(v);
        }
    }
}

}  // namespace strata::backends::reference
