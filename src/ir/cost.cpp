// cost.cpp: FLOPs (a multiply-add is two), the fewest bytes a node must move and its parameter count, from inferred
// shapes. An unknown (-1) dim counts as 1, so a graph with a dynamic batch is costed per batch item.
#include "ir/cost.h"

#include "core/check.h"

namespace strata::ir {
namespace {

double elements(const Value& v) {
    double n = 1;
    for (int64_t d : v.shape) n *= d < 0 ? 1.0 : static_cast<double>(d);
    return n;
}

double elements(const Graph& g, ValueId id) { return elements(g.value(id)); }

// FLOPs per output element of the elementwise functions: transcendental ones cost more than a compare or a multiply.
double unary_flops(UnaryKind k) {
    switch (k) {
        case UnaryKind::Sigmoid:
        case UnaryKind::Tanh:
        case UnaryKind::SiLU:
        case UnaryKind::Elu:
        case UnaryKind::Selu:
        case UnaryKind::Softplus:
        case UnaryKind::Exp:
        case UnaryKind::Log: return 4;
        case UnaryKind::HardSigmoid:
        case UnaryKind::HardSwish: return 3;
        default: return 1;
    }
}

double fused_activation_flops(const Node& n) {
    const std::optional<UnaryAttrs>* act = nullptr;
    if (n.op == OpKind::Conv) act = &n.attr<ConvAttrs>().activation;
    if (n.op == OpKind::FullyConnected) act = &n.attr<FullyConnectedAttrs>().activation;
    return act && act->has_value() ? unary_flops((*act)->kind) : 0;
}

// Multiply-adds of the GEMM-shaped ops (counted once; the caller doubles them).
double macs(const Graph& g, const Node& n) {
    const Value& out = g.value(n.outputs[0]);
    const Shape& w = g.value(n.inputs[1]).shape;
    switch (n.op) {
        case OpKind::Conv: {  // each output element sums (C / group) * kernel products; W is [M, C/group, k...]
            double per_output = 1;
            for (size_t i = 1; i < w.size(); ++i) per_output *= static_cast<double>(w[i]);
            return elements(out) * per_output;
        }
        case OpKind::ConvTranspose: {  // each input element scatters into (M / group) * kernel outputs
            double per_input = 1;
            for (size_t i = 1; i < w.size(); ++i) per_input *= static_cast<double>(w[i]);
            return elements(g, n.inputs[0]) * per_input;
        }
        case OpKind::Gemm: {
            const Shape& a = g.value(n.inputs[0]).shape;
            double k = static_cast<double>(n.attr<GemmAttrs>().trans_a ? a[0] : a[1]);
            return elements(out) * k;
        }
        case OpKind::MatMul: {
            const Shape& a = g.value(n.inputs[0]).shape;
            return elements(out) * static_cast<double>(a.back());
        }
        case OpKind::FullyConnected: return elements(out) * static_cast<double>(w[1]);
        default: return 0;
    }
}

// SeparableConv: the depthwise conv (R*S products per intermediate element) plus the 1x1 conv (C per output
// element), their biases and activations, as the two Convs would count them (a Conv's residual add is not counted
// either). The intermediate [N,C,OH,OW] is no input or output, so node_cost's bytes leave it out.
double separable_flops(const Graph& g, const Node& n) {
    const auto& a = n.attr<SeparableConvAttrs>();
    const Shape& wd = g.value(n.inputs[1]).shape;
    const Shape& wp = g.value(n.inputs[3]).shape;
    const Shape& y = g.value(n.outputs[0]).shape;
    double out = elements(g, n.outputs[0]);
    double mid = out / static_cast<double>(y[1]) * static_cast<double>(wd[0]);  // N*OH*OW*C
    double f = 2 * mid * static_cast<double>(wd[2] * wd[3]) + 2 * out * static_cast<double>(wp[1]);
    if (n.input(2) != kNoValue) f += mid;
    if (n.input(4) != kNoValue) f += out;
    if (a.depthwise.activation) f += mid * unary_flops(a.depthwise.activation->kind);
    if (a.pointwise.activation) f += out * unary_flops(a.pointwise.activation->kind);
    return f;
}

double flops(const Graph& g, const Node& n) {
    double out = elements(g, n.outputs[0]);
    double in = elements(g, n.inputs[0]);
    switch (n.op) {
        case OpKind::Conv:
        case OpKind::ConvTranspose:
        case OpKind::Gemm:
        case OpKind::MatMul:
        case OpKind::FullyConnected: {
            double f = 2 * macs(g, n);
            if (n.input(2) != kNoValue) f += out;  // bias (Gemm's C)
            return f + out * fused_activation_flops(n);
        }
        case OpKind::SeparableConv: return separable_flops(g, n);
        case OpKind::Unary: return out * unary_flops(n.attr<UnaryAttrs>().kind);
        case OpKind::Binary: return out * (n.attr<BinaryAttrs>().kind == BinaryKind::Pow ? 4 : 1);
        case OpKind::BatchNorm: return 2 * out;     // a scale and a shift once the statistics are folded
        case OpKind::InstanceNorm: return 5 * out;  // mean, variance, normalise, scale, shift
        case OpKind::MaxPool:
        case OpKind::AveragePool: {
            double window = 1;
            for (int64_t k : n.attr<PoolAttrs>().kernel) window *= static_cast<double>(k);
            return out * window;
        }
        case OpKind::GlobalAveragePool:
        case OpKind::GlobalMaxPool:
        case OpKind::Reduce: return in;
        case OpKind::Softmax:
        case OpKind::LogSoftmax: return 5 * out;  // max, subtract, exp, sum, divide
        default: return 0;                        // data movement
    }
}

}  // namespace

NodeCost node_cost(const Graph& graph, const Node& node) {
    NodeCost c;
    for (ValueId id : node.inputs) {
        if (id == kNoValue) continue;
        const Value& v = graph.value(id);
        STRATA_CHECK(v.has_shape, StatusCode::invalid_argument, "cost of {}: input '{}' has no inferred shape",
                     node_label(node), v.name);
        c.bytes += elements(v) * static_cast<double>(dtype_size(v.dtype));
        if (v.constant) c.params += v.constant->numel();
    }
    for (ValueId id : node.outputs) {
        const Value& v = graph.value(id);
        STRATA_CHECK(v.has_shape, StatusCode::invalid_argument, "cost of {}: output '{}' has no inferred shape",
                     node_label(node), v.name);
        c.bytes += elements(v) * static_cast<double>(dtype_size(v.dtype));
    }
    if (!node.inputs.empty() && node.inputs[0] != kNoValue) c.flops = flops(graph, node);
    return c;
}

}  // namespace strata::ir
