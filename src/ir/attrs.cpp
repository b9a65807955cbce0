// attrs.cpp: names of the attribute enums, for messages and `strata inspect`.
#include "ir/attrs.h"

namespace strata::ir {

const char* unary_kind_name(UnaryKind k) {
    switch (k) {
        case UnaryKind::Relu: return "Relu";
        case UnaryKind::Relu6: return "Relu6";
        case UnaryKind::Clip: return "Clip";
        case UnaryKind::LeakyRelu: return "LeakyRelu";
        case UnaryKind::Elu: return "Elu";
        case UnaryKind::Selu: return "Selu";
        case UnaryKind::Sigmoid: return "Sigmoid";
        case UnaryKind::HardSigmoid: return "HardSigmoid";
        case UnaryKind::HardSwish: return "HardSwish";
        case UnaryKind::SiLU: return "SiLU";
        case UnaryKind::Tanh: return "Tanh";
        case UnaryKind::Softplus: return "Softplus";
        case UnaryKind::Softsign: return "Softsign";
        case UnaryKind::Exp: return "Exp";
        case UnaryKind::Log: return "Log";
        case UnaryKind::Sqrt: return "Sqrt";
        case UnaryKind::Neg: return "Neg";
        case UnaryKind::Abs: return "Abs";
        case UnaryKind::Reciprocal: return "Reciprocal";
    }
    return "?";
}

const char* binary_kind_name(BinaryKind k) {
    switch (k) {
        case BinaryKind::Add: return "Add";
        case BinaryKind::Sub: return "Sub";
        case BinaryKind::Mul: return "Mul";
        case BinaryKind::Div: return "Div";
        case BinaryKind::Pow: return "Pow";
        case BinaryKind::Max: return "Max";
        case BinaryKind::Min: return "Min";
        case BinaryKind::PRelu: return "PRelu";
    }
    return "?";
}

}  // namespace strata::ir
