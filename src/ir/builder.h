// builder.h: the C++ API for building networks (used by the zoo, by tests and by users who do not start from ONNX).
// Each method appends one node in topological order and returns its output; shapes are inferred later.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace strata::ir {

class Builder {
public:
    explicit Builder(std::string graph_name);

    ValueId input(const std::string& name, DType dtype, Shape shape);
    ValueId constant(const std::string& name, Tensor data);
    void output(ValueId value, const std::string& name = "");

    /// Any op, one output. `name` names the node (and its output); empty = "<op>_<n>".
    ValueId op(OpKind op, std::vector<ValueId> inputs, Attrs attrs = NoAttrs{}, const std::string& name = "");
    /// Any op, several outputs.
    std::vector<ValueId> op_n(OpKind op, std::vector<ValueId> inputs, size_t num_outputs, Attrs attrs = NoAttrs{},
                              const std::string& name = "");

    // Shorthands for the common layers.
    ValueId conv(ValueId x, Tensor weight, std::optional<Tensor> bias, ConvAttrs attrs, const std::string& name = "");
    ValueId batch_norm(ValueId x, Tensor scale, Tensor bias, Tensor mean, Tensor var, float epsilon = 1e-5f,
                       const std::string& name = "");
    ValueId unary(UnaryKind kind, ValueId x, float alpha = 0.0f, float beta = 0.0f, const std::string& name = "");
    ValueId relu(ValueId x) { return unary(UnaryKind::Relu, x); }
    ValueId binary(BinaryKind kind, ValueId a, ValueId b, const std::string& name = "");
    ValueId add(ValueId a, ValueId b) { return binary(BinaryKind::Add, a, b); }
    ValueId max_pool(ValueId x, PoolAttrs attrs, const std::string& name = "");
    ValueId avg_pool(ValueId x, PoolAttrs attrs, const std::string& name = "");
    ValueId global_avg_pool(ValueId x, const std::string& name = "");
    ValueId concat(std::vector<ValueId> xs, int64_t axis, const std::string& name = "");
    ValueId flatten(ValueId x, int64_t axis = 1, const std::string& name = "");
    /// Y = X W^T + b with W [out, in] (torch.nn.Linear's layout), as ONNX Gemm(transB=1).
    ValueId linear(ValueId x, Tensor weight, std::optional<Tensor> bias, const std::string& name = "");

    Graph& graph() { return *graph_; }
    /// The finished graph; the builder is empty afterwards.
    std::shared_ptr<Graph> finish();

private:
    std::string next_name(OpKind op, const std::string& name);
    std::shared_ptr<Graph> graph_;
    int counter_ = 0;
};

/// ConvAttrs for a square 2-D kernel with symmetric padding.
ConvAttrs conv2d_attrs(int64_t kernel, int64_t stride = 1, int64_t pad = 0, int64_t group = 1, int64_t dilation = 1);
/// PoolAttrs for a square 2-D window.
PoolAttrs pool2d_attrs(int64_t kernel, int64_t stride, int64_t pad = 0, bool ceil_mode = false);

}  // namespace strata::ir
