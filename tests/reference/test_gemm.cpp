// test_gemm.cpp: Gemm (every transA/transB pair, alpha/beta, C as scalar, row, column and full matrix), MatMul with
// numpy semantics (batched, broadcast batch dims, 1-D operands on either side) and FullyConnected with its fused
// activation, all against dot products written out in the test.
#include <gtest/gtest.h>

#include <algorithm>

#include "reference_test_util.h"

namespace strata::test {
namespace {

// a(i, p) of an [rows, cols] row-major matrix, read transposed when asked.
float at(const Tensor& t, bool trans, int64_t i, int64_t p) {
    int64_t cols = t.dim(1);
    return trans ? t.data<float>()[p * cols + i] : t.data<float>()[i * cols + p];
}

TEST(ReferenceGemm, TransposesAlphaBetaAndCBroadcast) {
    int64_t m = 5, k = 7, n = 3;
    for (bool ta : {false, true})
        for (bool tb : {false, true})
            for (Shape cs : {Shape{}, Shape{n}, Shape{m, 1}, Shape{m, n}}) {
                SCOPED_TRACE(::testing::Message() << "transA=" << ta << " transB=" << tb << " C=" << shape_str(cs)
                                                  << " seed=" << test_seed());
                Tensor a = rand_f32(ta ? Shape{k, m} : Shape{m, k}, 1), b = rand_f32(tb ? Shape{n, k} : Shape{k, n}, 2);
                Tensor c = rand_f32(cs, 3);
                ir::GemmAttrs g{0.75f, -1.5f, ta, tb};
                Tensor y = run_reference_op1(ir::OpKind::Gemm, g, {a, b, c}, {DType::f32, {m, n}});
                Tensor want = Tensor::empty(DType::f32, {m, n});
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = 0; j < n; ++j) {
                        double acc = 0;
                        for (int64_t p = 0; p < k; ++p) acc += double(at(a, ta, i, p)) * at(b, tb, p, j);
                        int64_t ci = cs.empty() ? 0 : cs.size() == 1 ? j : cs[1] == 1 ? i : i * n + j;
                        want.data<float>()[i * n + j] = static_cast<float>(0.75 * acc - 1.5 * c.data<float>()[ci]);
                    }
                expect_near_f32(y, want);
            }
}

TEST(ReferenceGemm, WithoutC) {
    Tensor a = rand_f32({2, 3}, 1), b = rand_f32({3, 4}, 2);
    Tensor y = run_reference_op1(ir::OpKind::Gemm, ir::GemmAttrs{2.0f, 1.0f, false, false}, {a, b, Tensor()},
                                 {DType::f32, {2, 4}});
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 4; ++j) {
            double acc = 0;
            for (int64_t p = 0; p < 3; ++p) acc += double(a.data<float>()[i * 3 + p]) * b.data<float>()[p * 4 + j];
            EXPECT_NEAR(y.data<float>()[i * 4 + j], 2 * acc, 1e-6);
        }
}

TEST(ReferenceGemm, InnerDimMismatchIsAnError) {
    Tensor a = rand_f32({2, 3}, 1), b = rand_f32({4, 2}, 2);
    EXPECT_THROW(run_reference_op1(ir::OpKind::Gemm, ir::GemmAttrs{}, {a, b}, {DType::f32, {2, 2}}), Error);
}

// C[batch..., i, j] for MatMul with A [ba..., m, k] and B [bb..., k, n], batches given as flat index pairs.
Tensor batched_product(const Tensor& a, const Tensor& b, int64_t m, int64_t k, int64_t n,
                       const std::vector<std::pair<int64_t, int64_t>>& pairs, Shape out) {
    Tensor c = Tensor::empty(DType::f32, out);
    for (size_t q = 0; q < pairs.size(); ++q)
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                double acc = 0;
                for (int64_t p = 0; p < k; ++p)
                    acc += double(a.data<float>()[(pairs[q].first * m + i) * k + p]) *
                           b.data<float>()[(pairs[q].second * k + p) * n + j];
                c.data<float>()[(q * m + i) * n + j] = static_cast<float>(acc);
            }
    return c;
}

TEST(ReferenceMatMul, BroadcastBatchDims) {
    // A [2,1,3,4] @ B [3,4,5] -> [2,3,3,5]: batch (i, j) pairs A[i,0] with B[j].
    Tensor a = rand_f32({2, 1, 3, 4}, 1), b = rand_f32({3, 4, 5}, 2);
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j) pairs.push_back({i, j});
    Tensor y = run_reference_op1(ir::OpKind::MatMul, ir::NoAttrs{}, {a, b}, {DType::f32, {2, 3, 3, 5}});
    expect_near_f32(y, batched_product(a, b, 3, 4, 5, pairs, {2, 3, 3, 5}));
}

TEST(ReferenceMatMul, OneDimensionalOperands) {
    Tensor v = rand_f32({4}, 1), m = rand_f32({2, 4, 3}, 2), w = rand_f32({3}, 3), mt = rand_f32({5, 3}, 4);
    // [4] @ [2,4,3] -> [2,3]: the vector is a [1,4] row for each batch.
    Tensor y1 = run_reference_op1(ir::OpKind::MatMul, ir::NoAttrs{}, {v, m}, {DType::f32, {2, 3}});
    expect_near_f32(y1, batched_product(v, m, 1, 4, 3, {{0, 0}, {0, 1}}, {2, 3}));
    // [5,3] @ [3] -> [5]: the vector is a [3,1] column.
    Tensor y2 = run_reference_op1(ir::OpKind::MatMul, ir::NoAttrs{}, {mt, w}, {DType::f32, {5}});
    expect_near_f32(y2, batched_product(mt, w, 5, 3, 1, {{0, 0}}, {5}));
    // [3] @ [3] -> scalar.
    Tensor y3 = run_reference_op1(ir::OpKind::MatMul, ir::NoAttrs{}, {w, w}, {DType::f32, {}});
    double dot = 0;
    for (int i = 0; i < 3; ++i) dot += double(w.data<float>()[i]) * w.data<float>()[i];
    EXPECT_NEAR(y3.data<float>()[0], dot, 1e-6);
}

TEST(ReferenceFullyConnected, LinearLayerWithActivation) {
    int64_t rows = 3, k = 9, m = 4;
    Tensor x = rand_f32({rows, k}, 1), w = rand_f32({m, k}, 2), b = rand_f32({m}, 3);
    ir::FullyConnectedAttrs a;
    a.activation = ir::UnaryAttrs{ir::UnaryKind::Relu};
    Tensor y = run_reference_op1(ir::OpKind::FullyConnected, a, {x, w, b}, {DType::f32, {rows, m}});
    Tensor plain =
        run_reference_op1(ir::OpKind::FullyConnected, ir::FullyConnectedAttrs{}, {x, w, b}, {DType::f32, {rows, m}});
    Tensor want = Tensor::empty(DType::f32, {rows, m});
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < m; ++j) {
            double acc = b.data<float>()[j];
            for (int64_t p = 0; p < k; ++p) acc += double(x.data<float>()[i * k + p]) * w.data<float>()[j * k + p];
            want.data<float>()[i * m + j] = static_cast<float>(acc);
        }
    expect_near_f32(plain, want);
    for (int64_t i = 0; i < want.numel(); ++i) want.data<float>()[i] = std::max(0.0f, want.data<float>()[i]);
    expect_near_f32(y, want);
}

}  // namespace
}  // namespace strata::test
