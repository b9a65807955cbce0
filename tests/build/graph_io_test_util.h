// graph_io_test_util.h: what the graph and plan file tests share: random attrs for every op (every field set to a
// random value, optionals set, unset or either), a graph holding one node of every op and constants of every dtype,
// and a field-by-field graph comparison that does not go through the serializer.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "ir/graph.h"
#include "strata/tensor.h"
#include "test_support.h"

namespace strata::test {

/// How random_attrs fills std::optional fields.
enum class Optionals { random, all_set, all_unset };

class AttrsGen {
public:
    AttrsGen(uint64_t seed, Optionals mode) : rng_(seed), mode_(mode) {}

    int64_t i64() { return std::uniform_int_distribution<int64_t>(-5, 9)(rng_); }
    float f32() { return std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng_); }
    bool flag() { return rng_() & 1; }
    std::vector<int64_t> ints() {
        std::vector<int64_t> v(rng_() % 5);
        for (int64_t& x : v) x = i64();
        return v;
    }
    template <class E>
    E pick(E last) {
        return static_cast<E>(rng_() % (static_cast<unsigned>(last) + 1));
    }
    bool present() { return mode_ == Optionals::all_set || (mode_ == Optionals::random && flag()); }
    std::optional<std::vector<int64_t>> opt_ints() { return present() ? std::optional(ints()) : std::nullopt; }
    ir::UnaryAttrs unary() { return {pick(ir::UnaryKind::Reciprocal), f32(), f32()}; }
    std::optional<ir::UnaryAttrs> opt_unary() { return present() ? std::optional(unary()) : std::nullopt; }
    uint64_t next() { return rng_(); }
    ir::ConvAttrs conv() {
        return {ints(), ints(), ints(), ints(), ints(), i64(), pick(ir::AutoPad::valid), opt_unary()};
    }

    /// An attrs struct of `op`'s kind with every field random.
    ir::Attrs attrs(ir::OpKind op);

private:
    std::mt19937_64 rng_;
    Optionals mode_;
};

inline ir::Attrs AttrsGen::attrs(ir::OpKind op) {
    using namespace ir;
    switch (op) {
        case OpKind::Conv:
            return conv();
        case OpKind::SeparableConv:
            return SeparableConvAttrs{conv(), conv()};
        case OpKind::ConvTranspose:
            return ConvTransposeAttrs{
                ints(), ints(), ints(), ints(), ints(), ints(), ints(), i64(), pick(AutoPad::valid)};
        case OpKind::BatchNorm:
        case OpKind::InstanceNorm:
            return BatchNormAttrs{f32()};
        case OpKind::Unary:
            return unary();
        case OpKind::Binary:
            return BinaryAttrs{pick(BinaryKind::PRelu)};
        case OpKind::MaxPool:
        case OpKind::AveragePool:
            return PoolAttrs{ints(), ints(), ints(), ints(), ints(), flag(), flag(), pick(AutoPad::valid)};
        case OpKind::Gemm:
            return GemmAttrs{f32(), f32(), flag(), flag()};
        case OpKind::FullyConnected:
            return FullyConnectedAttrs{opt_unary()};
        case OpKind::Softmax:
        case OpKind::LogSoftmax:
            return SoftmaxAttrs{i64(), flag()};
        case OpKind::Reduce:
            return ReduceAttrs{pick(ReduceKind::Min), ints(), flag(), flag()};
        case OpKind::Flatten:
            return FlattenAttrs{i64()};
        case OpKind::Reshape:
            return ReshapeAttrs{opt_ints(), flag()};
        case OpKind::Transpose:
            return TransposeAttrs{ints()};
        case OpKind::Concat:
        case OpKind::Gather:
            return AxisAttrs{i64()};
        case OpKind::Split:
            return SplitAttrs{i64(), opt_ints()};
        case OpKind::Slice:
            return SliceAttrs{opt_ints(), opt_ints(), ints(), ints()};
        case OpKind::Pad:
            return PadAttrs{pick(PadMode::edge), opt_ints(), f32()};
        case OpKind::Squeeze:
        case OpKind::Unsqueeze:
            return AxesAttrs{opt_ints()};
        case OpKind::Tile:
            return TileAttrs{opt_ints()};
        case OpKind::Expand:
            return ExpandAttrs{opt_ints()};
        case OpKind::Shape:
            return ShapeAttrs{i64(), present() ? std::optional(i64()) : std::nullopt};
        case OpKind::ConstantOfShape:
            return ConstantOfShapeAttrs{opt_ints(), pick(DType::boolean), static_cast<double>(f32()) / 7.0};
        case OpKind::Cast:
            return CastAttrs{pick(DType::boolean)};
        default:
            return NoAttrs{};  // GlobalAveragePool, GlobalMaxPool, MatMul, Identity, Dropout
    }
}

/// A graph that is not meant to run: one node of every op with random attrs, random ids (some kNoValue), values
/// with unknown dims and no shape, and constants of every dtype and layout (one empty, one scalar).
inline ir::Graph every_op_graph(uint64_t seed, Optionals mode) {
    AttrsGen gen(seed, mode);
    ir::Graph g;
    g.name = "every_op_" + std::to_string(seed);
    g.add_value("x", DType::f32, {-1, 3, 7, 5});
    g.add_value("no_shape", DType::i64, {}, false);
    const DType dtypes[] = {DType::f32, DType::f16, DType::bf16, DType::i8,
                            DType::u8,  DType::i32, DType::i64,  DType::boolean};
    for (int i = 0; i < 8; ++i) {
        const Shape shape = i == 0 ? Shape{} : i == 1 ? Shape{2, 0, 3} : Shape{1 + i % 3, 2, 5 - i % 2};
        Tensor t = Tensor::empty(dtypes[i], shape, static_cast<Layout>(i % 4));
        for (size_t b = 0; b < t.nbytes(); ++b) static_cast<uint8_t*>(t.raw())[b] = static_cast<uint8_t>(gen.next());
        g.add_constant(fmt::format("c{}_{}", i, dtype_name(dtypes[i])), t);
    }
    for (int op = 0; op < ir::kOpCount; ++op) {
        const auto kind = static_cast<ir::OpKind>(op);
        std::vector<ir::ValueId> inputs(gen.next() % 4);
        for (ir::ValueId& id : inputs) id = static_cast<ir::ValueId>(gen.next() % (g.num_values() + 1)) - 1;
        const ir::ValueId out = g.add_value(fmt::format("out{}", op), static_cast<DType>(op % 8), {op, -1, 2});
        g.add_node(kind, fmt::format("node_{}", ir::op_name(kind)), inputs, {out}, gen.attrs(kind));
    }
    g.inputs() = {0, 1};
    g.outputs() = {static_cast<ir::ValueId>(g.num_values() - 1), 3};
    return g;
}

inline bool same_tensor(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.layout() == b.layout() && a.nbytes() == b.nbytes() &&
           (a.nbytes() == 0 || std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0);
}

/// Every field of both graphs, compared directly (not through the serializer), with a message naming the first
/// difference.
inline ::testing::AssertionResult same_graph(const ir::Graph& a, const ir::Graph& b) {
    if (a.name != b.name) return ::testing::AssertionFailure() << "graph name " << a.name << " vs " << b.name;
    if (a.num_values() != b.num_values()) return ::testing::AssertionFailure() << "value counts differ";
    for (size_t i = 0; i < a.num_values(); ++i) {
        const ir::Value& va = a.value(static_cast<ir::ValueId>(i));
        const ir::Value& vb = b.value(static_cast<ir::ValueId>(i));
        const bool same = va.name == vb.name && va.dtype == vb.dtype && va.shape == vb.shape &&
                          va.has_shape == vb.has_shape && va.constant.has_value() == vb.constant.has_value() &&
                          (!va.constant || same_tensor(*va.constant, *vb.constant));
        if (!same) return ::testing::AssertionFailure() << "value " << i << " '" << va.name << "' differs";
    }
    if (a.nodes().size() != b.nodes().size()) return ::testing::AssertionFailure() << "node counts differ";
    for (size_t i = 0; i < a.nodes().size(); ++i) {
        const ir::Node& na = a.nodes()[i];
        const ir::Node& nb = b.nodes()[i];
        if (na.op != nb.op || na.name != nb.name || na.inputs != nb.inputs || na.outputs != nb.outputs)
            return ::testing::AssertionFailure() << "node " << i << " " << ir::node_label(na) << " differs";
        if (!(na.attrs == nb.attrs))
            return ::testing::AssertionFailure() << "node " << i << " " << ir::node_label(na) << ": attrs differ";
    }
    if (a.inputs() != b.inputs() || a.outputs() != b.outputs())
        return ::testing::AssertionFailure() << "graph inputs or outputs differ";
    return ::testing::AssertionSuccess();
}

}  // namespace strata::test
