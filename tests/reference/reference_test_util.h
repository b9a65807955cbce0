// reference_test_util.h: what the reference kernel tests share: running one node through its registered tactic
// ("reference.<Op>", so the registration table is exercised too) and building small tensors by hand.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "backends/kernel.h"
#include "ir/graph.h"
#include "strata/tensor.h"
#include "test_support.h"

namespace strata::test {

/// An output the test expects: dtype and shape (computed by hand in the test, not by shape inference).
struct OutSpec {
    DType dtype;
    Shape shape;
};

/// Runs one node with the given inputs (an undefined Tensor for an omitted optional input) on the reference tactic.
inline std::vector<Tensor> run_reference_op(ir::OpKind op, ir::Attrs attrs, const std::vector<Tensor>& inputs,
                                            const std::vector<OutSpec>& outs) {
    ir::Node node;
    node.op = op;
    node.name = std::string("test_") + ir::op_name(op);
    node.attrs = std::move(attrs);
    const backends::Tactic* tactic =
        backends::TacticRegistry::global().find(std::string("reference.") + ir::op_name(op));
    EXPECT_NE(tactic, nullptr) << ir::op_name(op);
    std::vector<Tensor> outputs;
    for (const OutSpec& o : outs) outputs.push_back(Tensor::empty(o.dtype, o.shape));
    if (tactic) tactic->run(node, inputs, outputs, backends::KernelContext{});
    return outputs;
}

/// One-output shorthand.
inline Tensor run_reference_op1(ir::OpKind op, ir::Attrs attrs, const std::vector<Tensor>& inputs, OutSpec out) {
    return run_reference_op(op, std::move(attrs), inputs, {std::move(out)})[0];
}

template <class T>
Tensor make_tensor(DType dtype, Shape shape, const std::vector<T>& values) {
    Tensor t = Tensor::empty(dtype, std::move(shape));
    EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
    for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.numel()); ++i) t.data<T>()[i] = values[i];
    return t;
}
inline Tensor f32(Shape shape, const std::vector<float>& v) {
    return make_tensor<float>(DType::f32, std::move(shape), v);
}
inline Tensor i64(Shape shape, const std::vector<int64_t>& v) {
    return make_tensor<int64_t>(DType::i64, std::move(shape), v);
}
inline Tensor i32(Shape shape, const std::vector<int32_t>& v) {
    return make_tensor<int32_t>(DType::i32, std::move(shape), v);
}

template <class T>
std::vector<T> values(const Tensor& t) {
    return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

/// A random f32 tensor for this test run; `salt` keeps the tensors of one test different.
inline Tensor rand_f32(const Shape& shape, uint64_t salt, double lo = -1.0, double hi = 1.0) {
    return random_tensor(DType::f32, shape, test_seed() + salt, lo, hi);
}

/// The reference rounds a double result to float once; a test's own double computation may differ by an ulp.
inline void expect_near_f32(const Tensor& got, const Tensor& want, double rel = 1e-6) {
    EXPECT_LE(max_rel_error(got, want), rel) << "seed " << test_seed();
}

}  // namespace strata::test
