// builder.cpp: the network-building API.
#include "ir/builder.h"

#include "core/check.h"

namespace strata::ir {

Builder::Builder(std::string graph_name) : graph_(std::make_shared<Graph>()) { graph_->name = std::move(graph_name); }

ValueId Builder::input(const std::string& name, DType dtype, Shape shape) {
    ValueId id = graph_->add_value(name, dtype, std::move(shape));
    graph_->inputs().push_back(id);
    return id;
}

ValueId Builder::constant(const std::string& name, Tensor data) {
    return graph_->add_constant(graph_->unique_name(name), std::move(data));
}

void Builder::output(ValueId value, const std::string& name) {
    if (!name.empty()) graph_->value(value).name = name;
    graph_->outputs().push_back(value);
}

std::string Builder::next_name(OpKind op, const std::string& name) {
    ++counter_;
    return graph_->unique_name(name.empty() ? fmt::format("{}_{}", op_name(op), counter_) : name);
}

ValueId Builder::op(OpKind op, std::vector<ValueId> inputs, Attrs attrs, const std::string& name) {
    return op_n(op, std::move(inputs), 1, std::move(attrs), name)[0];
}

std::vector<ValueId> Builder::op_n(OpKind op, std::vector<ValueId> inputs, size_t num_outputs, Attrs attrs,
                                   const std::string& name) {
    std::string node_name = next_name(op, name);
    std::vector<ValueId> outputs;
    for (size_t i = 0; i < num_outputs; ++i) {
        std::string value_name = num_outputs == 1 ? node_name : fmt::format("{}:{}", node_name, i);
        outputs.push_back(graph_->add_value(graph_->unique_name(value_name), DType::f32, {}, false));
    }
    graph_->add_node(op, node_name, std::move(inputs), outputs, std::move(attrs));
    return outputs;
}

ValueId Builder::conv(ValueId x, Tensor weight, std::optional<Tensor> bias, ConvAttrs attrs, const std::string& name) {
    std::string base = name.empty() ? fmt::format("conv_{}", counter_ + 1) : name;
    std::vector<ValueId> inputs{x, constant(base + ".weight", std::move(weight))};
    if (bias) inputs.push_back(constant(base + ".bias", std::move(*bias)));
    return op(OpKind::Conv, std::move(inputs), std::move(attrs), name);
}

ValueId Builder::batch_norm(ValueId x, Tensor scale, Tensor bias, Tensor mean, Tensor var, float epsilon,
                            const std::string& name) {
    std::string base = name.empty() ? fmt::format("bn_{}", counter_ + 1) : name;
    std::vector<ValueId> inputs{x, constant(base + ".weight", std::move(scale)), constant(base + ".bias", std::move(bias)),
                                constant(base + ".running_mean", std::move(mean)),
                                constant(base + ".running_var", std::move(var))};
    return op(OpKind::BatchNorm, std::move(inputs), BatchNormAttrs{epsilon}, name);
}

ValueId Builder::unary(UnaryKind kind, ValueId x, float alpha, float beta, const std::string& name) {
    return op(OpKind::Unary, {x}, UnaryAttrs{kind, alpha, beta}, name);
}

ValueId Builder::binary(BinaryKind kind, ValueId a, ValueId b, const std::string& name) {
    return op(OpKind::Binary, {a, b}, BinaryAttrs{kind}, name);
}

ValueId Builder::max_pool(ValueId x, PoolAttrs attrs, const std::string& name) {
    return op(OpKind::MaxPool, {x}, std::move(attrs), name);
}

ValueId Builder::avg_pool(ValueId x, PoolAttrs attrs, const std::string& name) {
    return op(OpKind::AveragePool, {x}, std::move(attrs), name);
}

ValueId Builder::global_avg_pool(ValueId x, const std::string& name) {
    return op(OpKind::GlobalAveragePool, {x}, NoAttrs{}, name);
}

ValueId Builder::concat(std::vector<ValueId> xs, int64_t axis, const std::string& name) {
    return op(OpKind::Concat, std::move(xs), AxisAttrs{axis}, name);
}

ValueId Builder::flatten(ValueId x, int64_t axis, const std::string& name) {
    return op(OpKind::Flatten, {x}, FlattenAttrs{axis}, name);
}

ValueId Builder::linear(ValueId x, Tensor weight, std::optional<Tensor> bias, const std::string& name) {
    std::string base = name.empty() ? fmt::format("fc_{}", counter_ + 1) : name;
    std::vector<ValueId> inputs{x, constant(base + ".weight", std::move(weight))};
    if (bias) inputs.push_back(constant(base + ".bias", std::move(*bias)));
    GemmAttrs attrs;
    attrs.trans_b = true;
    return op(OpKind::Gemm, std::move(inputs), attrs, name);
}

std::shared_ptr<Graph> Builder::finish() {
    auto g = std::move(graph_);
    graph_ = std::make_shared<Graph>();
    return g;
}

ConvAttrs conv2d_attrs(int64_t kernel, int64_t stride, int64_t pad, int64_t group, int64_t dilation) {
    ConvAttrs a;
    a.kernel = {kernel, kernel};
    a.strides = {stride, stride};
    a.dilations = {dilation, dilation};
    a.pads_begin = {pad, pad};
    a.pads_end = {pad, pad};
    a.group = group;
    return a;
}

PoolAttrs pool2d_attrs(int64_t kernel, int64_t stride, int64_t pad, bool ceil_mode) {
    PoolAttrs a;
    a.kernel = {kernel, kernel};
    a.strides = {stride, stride};
    a.dilations = {1, 1};
    a.pads_begin = {pad, pad};
    a.pads_end = {pad, pad};
    a.ceil_mode = ceil_mode;
    return a;
}

}  // namespace strata::ir
