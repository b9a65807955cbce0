// verify.cpp: the structural checks every pass must preserve: ids in range, each node's attrs struct and arity as
// ops.def says, inputs defined before use, each value produced once, graph outputs defined.
#include "ir/verify.h"

#include <limits>
#include <variant>
#include <vector>

#include "core/check.h"

namespace strata::ir {
namespace {

constexpr size_t kMany = std::numeric_limits<size_t>::max();

struct Arity {
    size_t min_inputs, max_inputs, min_outputs, max_outputs;
};

// Inputs past the data inputs are ONNX's parameter inputs (NOTE [constant parameters]) until they are absorbed.
Arity arity(const Node& node) {
    switch (node.op) {
        case OpKind::Conv: return {2, 4, 1, 1};  // Z: a residual added before the activation (fuse_conv_residual)
        case OpKind::ConvTranspose:
        case OpKind::Gemm:
        case OpKind::FullyConnected: return {2, 3, 1, 1};
        case OpKind::SeparableConv: return {4, 6, 1, 1};  // X, Wd, [Bd], Wp, [Bp], [Z]: Bd may be absent
        case OpKind::BatchNorm: return {5, 5, 1, 1};
        case OpKind::InstanceNorm: return {3, 3, 1, 1};
        case OpKind::Unary:  // Clip's min and max arrive as inputs from ONNX
            return {1, std::get<UnaryAttrs>(node.attrs).kind == UnaryKind::Clip ? 3u : 1u, 1, 1};
        case OpKind::Binary:
        case OpKind::MatMul:
        case OpKind::Gather: return {2, 2, 1, 1};
        case OpKind::Concat: return {1, kMany, 1, 1};
        case OpKind::Split: return {1, 2, 1, kMany};
        case OpKind::Slice: return {1, 5, 1, 1};
        case OpKind::Pad: return {1, 4, 1, 1};
        case OpKind::Dropout: return {1, 3, 1, 1};  // ratio and training_mode inputs; the mask output is refused
        case OpKind::Reshape:
        case OpKind::Squeeze:
        case OpKind::Unsqueeze:
        case OpKind::Tile:
        case OpKind::Expand:
        case OpKind::Reduce: return {1, 2, 1, 1};
        case OpKind::ConstantOfShape: return {0, 1, 1, 1};
        default: return {1, 1, 1, 1};
    }
}

// Inputs below min_inputs that may still be absent (kNoValue): SeparableConv's depthwise bias sits before Wp.
bool optional_within_min(const Node& node, size_t i) { return node.op == OpKind::SeparableConv && i == 2; }

bool attrs_match(const Node& node) {
    switch (node.op) {
#define STRATA_OP(op, Struct) \
    case OpKind::op: return std::holds_alternative<Struct>(node.attrs);
#include "ir/ops.def"
#undef STRATA_OP
    }
    return false;
}

class Verifier {
public:
    explicit Verifier(const Graph& g) : g_(g), defined_(g.num_values(), false), produced_(g.num_values(), false) {}

    void run() {
        for (ValueId id : g_.inputs()) define(check_id(id, "graph input"));
        for (size_t i = 0; i < g_.num_values(); ++i)
            if (g_.value(static_cast<ValueId>(i)).constant) defined_[i] = true;
        for (const Node& n : g_.nodes()) check_node(n);
        for (ValueId id : g_.outputs())
            STRATA_CHECK(defined_[static_cast<size_t>(check_id(id, "graph output"))], StatusCode::invalid_argument,
                         "graph '{}': output '{}' is never produced", g_.name, g_.value(id).name);
    }

private:
    ValueId check_id(ValueId id, const std::string& where) const {
        STRATA_CHECK(id >= 0 && static_cast<size_t>(id) < g_.num_values(), StatusCode::invalid_argument,
                     "graph '{}': {} refers to value id {}, which does not exist ({} values)", g_.name, where, id,
                     g_.num_values());
        return id;
    }
    void define(ValueId id) { defined_[static_cast<size_t>(id)] = true; }

    void check_node(const Node& n) {
        std::string label = fmt::format("graph '{}': {}", g_.name, node_label(n));
        STRATA_CHECK(attrs_match(n), StatusCode::invalid_argument,
                     "{} carries the attrs of another op (alternative {})", label, n.attrs.index());
        Arity a = arity(n);
        STRATA_CHECK(n.inputs.size() >= a.min_inputs && n.inputs.size() <= a.max_inputs, StatusCode::invalid_argument,
                     "{} has {} inputs, expected {} to {}", label, n.inputs.size(), a.min_inputs, a.max_inputs);
        STRATA_CHECK(n.outputs.size() >= a.min_outputs && n.outputs.size() <= a.max_outputs,
                     StatusCode::invalid_argument, "{} has {} outputs, expected {} to {}", label, n.outputs.size(),
                     a.min_outputs, a.max_outputs);
        for (size_t i = 0; i < n.inputs.size(); ++i) {
            ValueId id = n.inputs[i];
            if (id == kNoValue) {
                STRATA_CHECK(i >= a.min_inputs || optional_within_min(n, i), StatusCode::invalid_argument,
                             "{}: required input {} is absent", label, i);
                continue;
            }
            check_id(id, fmt::format("{} input {}", label, i));
            STRATA_CHECK(defined_[static_cast<size_t>(id)], StatusCode::invalid_argument,
                         "{}: input {} ('{}') is used before it is defined (not a graph input, constant or output of "
                         "an earlier node)", label, i, g_.value(id).name);
        }
        for (ValueId id : n.outputs) {
            check_id(id, label + " output");
            const Value& v = g_.value(id);
            const char* earlier = v.constant ? "a constant"
                                  : produced_[static_cast<size_t>(id)] ? "by another node"
                                                                       : "a graph input";
            STRATA_CHECK(!defined_[static_cast<size_t>(id)], StatusCode::invalid_argument,
                         "{}: output '{}' is already defined ({})", label, v.name, earlier);
            produced_[static_cast<size_t>(id)] = true;
            define(id);
        }
    }

    const Graph& g_;
    std::vector<bool> defined_;
    std::vector<bool> produced_;
};

}  // namespace

void verify(const Graph& graph) { Verifier(graph).run(); }

}  // namespace strata::ir
